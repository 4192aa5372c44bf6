// A tiled GEMM of our own: what the HIP plugin multiplies with (Debian has no rocBLAS), and the
// cuda plugin with EMBER_CUDA_NATIVE_GEMM=1, so that the NVIDIA GPU tests it too.
//
// Note [Native GEMM]
// ~~~~~~~~~~~~~~~~~~
// C (row-major, contiguous per batch) = alpha * A B + beta * C, A and B of any strides. Each
// block computes a 64 x 64 tile of C with 256 threads, each thread a 4 x 4 sub-tile held in
// registers; the K dimension is walked in steps of 16 through two shared-memory tiles (A's
// stored k-major so that a thread's 4 rows are adjacent). Tiles are loaded with bounds checks
// and converted to the accumulation type (float for float and the 16-bit types, double for
// double, int64 for the integers), so any shape and layout works without copies. beta == 0 never reads C (NaN there
// does not leak, as BLAS). The batch is the grid's z dimension.
#include "Loops.cuh"

namespace ember::gpu {
namespace {

constexpr int kTileM = 64, kTileN = 64, kTileK = 16, kThreadM = 4, kThreadN = 4;
constexpr int kGemmThreads = (kTileM / kThreadM) * (kTileN / kThreadN);
static_assert(kGemmThreads == 256);

template <class Acc, class T>
__device__ __forceinline__ Acc to_acc(T v) {
  if constexpr (std::is_same_v<T, gpu_half> || std::is_same_v<T, gpu_bfloat16>)
    return static_cast<Acc>(static_cast<float>(v));
  else
    return static_cast<Acc>(v);
}

template <class T, class Acc>
__device__ __forceinline__ T from_acc(Acc v) {
  if constexpr (std::is_same_v<T, gpu_half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, gpu_bfloat16>)
    return gpu_bfloat16(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

template <class T, class Acc>
__global__ void __launch_bounds__(kGemmThreads) gemm_kernel(GemmArgs g) {
  __shared__ Acc as[kTileK][kTileM];
  __shared__ Acc bs[kTileK][kTileN];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (kTileN / kThreadN), ty = tid / (kTileN / kThreadN);
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTileM, col0 = static_cast<int64_t>(blockIdx.x) * kTileN;
  const Acc alpha = static_cast<Acc>(g.alpha), beta = static_cast<Acc>(g.beta);

  for (int64_t batch = blockIdx.z; batch < g.batch; batch += gridDim.z) {
    const T* a = reinterpret_cast<const T*>(g.a) + batch * g.sa_batch;
    const T* b = reinterpret_cast<const T*>(g.b) + batch * g.sb_batch;
    T* c = reinterpret_cast<T*>(g.c) + batch * g.sc_batch;
    Acc acc[kThreadM][kThreadN] = {};
    for (int64_t k0 = 0; k0 < g.k; k0 += kTileK) {
      for (int e = tid; e < kTileM * kTileK; e += kGemmThreads) {
        const int r = e / kTileK, kk = e % kTileK;
        const int64_t i = row0 + r, k = k0 + kk;
        as[kk][r] = i < g.m && k < g.k ? to_acc<Acc>(a[i * g.sa_row + k * g.sa_col]) : Acc(0);
      }
      for (int e = tid; e < kTileK * kTileN; e += kGemmThreads) {
        const int kk = e / kTileN, col = e % kTileN;
        const int64_t k = k0 + kk, j = col0 + col;
        bs[kk][col] = k < g.k && j < g.n ? to_acc<Acc>(b[k * g.sb_row + j * g.sb_col]) : Acc(0);
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTileK; ++kk) {
        Acc ra[kThreadM], rb[kThreadN];
#pragma unroll
        for (int i = 0; i < kThreadM; ++i) ra[i] = as[kk][ty * kThreadM + i];
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) rb[j] = bs[kk][tx * kThreadN + j];
#pragma unroll
        for (int i = 0; i < kThreadM; ++i)
#pragma unroll
          for (int j = 0; j < kThreadN; ++j) acc[i][j] += ra[i] * rb[j];
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kThreadM; ++i) {
      const int64_t gi = row0 + ty * kThreadM + i;
      if (gi >= g.m) continue;
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) {
        const int64_t gj = col0 + tx * kThreadN + j;
        if (gj >= g.n) continue;
        T* p = c + gi * g.sc_row + gj;
        Acc v = alpha * acc[i][j];
        if (g.beta != 0) v += beta * to_acc<Acc>(*p);
        *p = from_acc<T>(v);
      }
    }
  }
}

template <class T, class Acc>
void launch_typed(const GemmArgs& g, gpuStream_t stream) {
  const dim3 grid(static_cast<unsigned>((g.n + kTileN - 1) / kTileN),
                  static_cast<unsigned>((g.m + kTileM - 1) / kTileM),
                  static_cast<unsigned>(g.batch < 65535 ? g.batch : 65535));
  EMBER_GPU_LAUNCH((gemm_kernel<T, Acc>), grid, kGemmThreads, 0, stream, g);
}

}  // namespace

bool launch_gemm(const GemmArgs& g, gpuStream_t stream) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return true;
  switch (g.dtype) {
    case Float:
      launch_typed<float, float>(g, stream);
      return true;
    case Double:
      launch_typed<double, double>(g, stream);
      return true;
    case Half:
      launch_typed<gpu_half, float>(g, stream);
      return true;
    case BFloat16:
      launch_typed<gpu_bfloat16, float>(g, stream);
      return true;
    // Integers accumulate in int64 and wrap on the store, as the cpu plugin's.
    case UInt8:
      launch_typed<uint8_t, int64_t>(g, stream);
      return true;
    case Int8:
      launch_typed<int8_t, int64_t>(g, stream);
      return true;
    case Int16:
      launch_typed<int16_t, int64_t>(g, stream);
      return true;
    case Int32:
      launch_typed<int32_t, int64_t>(g, stream);
      return true;
    case Int64:
      launch_typed<int64_t, int64_t>(g, stream);
      return true;
    default:
      return false;
  }
}

}  // namespace ember::gpu
