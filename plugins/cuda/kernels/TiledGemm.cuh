#pragma once
// The tiled GEMM core (Note [Native GEMM] in gemm.cu), over a Problem that says where A's, B's
// and C's elements are: gemm.cu's strided matrices, conv.cu's implicit im2col (Note [Implicit
// GEMM convolution]).
#include <type_traits>

#include "Loops.cuh"

namespace ember::gpu {

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

// A Problem P has m, n, k and batch (int64), and for a batch b:
//   Acc a(b, i, kk), Acc b(b, kk, j): the operands' elements (i < m, kk < k, j < n);
//   void store(b, i, j, Acc acc): writes C's element from the product's.
// One block computes a kTileM x kTileN tile of C for every batch in its z-stride.
template <class Acc, class P>
__global__ void __launch_bounds__(kGemmThreads) tiled_gemm_kernel(P p) {
  __shared__ Acc as[kTileK][kTileM];
  __shared__ Acc bs[kTileK][kTileN];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (kTileN / kThreadN), ty = tid / (kTileN / kThreadN);
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTileM, col0 = static_cast<int64_t>(blockIdx.x) * kTileN;
  for (int64_t batch = blockIdx.z; batch < p.batch; batch += gridDim.z) {
    Acc acc[kThreadM][kThreadN] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += kTileK) {
      for (int e = tid; e < kTileM * kTileK; e += kGemmThreads) {
        const int r = e / kTileK, kk = e % kTileK;
        const int64_t i = row0 + r, k = k0 + kk;
        as[kk][r] = i < p.m && k < p.k ? p.a(batch, i, k) : Acc(0);
      }
      for (int e = tid; e < kTileK * kTileN; e += kGemmThreads) {
        const int kk = e / kTileN, col = e % kTileN;
        const int64_t k = k0 + kk, j = col0 + col;
        bs[kk][col] = k < p.k && j < p.n ? p.b(batch, k, j) : Acc(0);
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
      if (gi >= p.m) continue;
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) {
        const int64_t gj = col0 + tx * kThreadN + j;
        if (gj < p.n) p.store(batch, gi, gj, acc[i][j]);
      }
    }
  }
}

template <class Acc, class P>
void launch_tiled_gemm(const P& p, gpuStream_t stream) {
  if (p.m == 0 || p.n == 0 || p.batch == 0) return;
  const dim3 grid(static_cast<unsigned>((p.n + kTileN - 1) / kTileN),
                  static_cast<unsigned>((p.m + kTileM - 1) / kTileM),
                  static_cast<unsigned>(p.batch < 65535 ? p.batch : 65535));
  EMBER_GPU_LAUNCH((tiled_gemm_kernel<Acc, P>), grid, kGemmThreads, 0, stream, p);
}

}  // namespace ember::gpu
