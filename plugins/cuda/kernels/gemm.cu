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
#include "TiledGemm.cuh"

namespace ember::gpu {
namespace {

// C = alpha * A B + beta * C over strided matrices.
template <class T, class Acc>
struct StridedGemm {
  GemmArgs g;
  int64_t m, n, k, batch;
  explicit StridedGemm(const GemmArgs& args) : g(args), m(args.m), n(args.n), k(args.k), batch(args.batch) {}
  __device__ Acc a(int64_t bt, int64_t i, int64_t kk) const {
    return to_acc<Acc>(reinterpret_cast<const T*>(g.a)[bt * g.sa_batch + i * g.sa_row + kk * g.sa_col]);
  }
  __device__ Acc b(int64_t bt, int64_t kk, int64_t j) const {
    return to_acc<Acc>(reinterpret_cast<const T*>(g.b)[bt * g.sb_batch + kk * g.sb_row + j * g.sb_col]);
  }
  __device__ void store(int64_t bt, int64_t i, int64_t j, Acc acc) const {
    T* c = reinterpret_cast<T*>(g.c) + bt * g.sc_batch + i * g.sc_row + j;
    Acc v = static_cast<Acc>(g.alpha) * acc;
    if (g.beta != 0) v += static_cast<Acc>(g.beta) * to_acc<Acc>(*c);
    *c = from_acc<T>(v);
  }
};

template <class T, class Acc>
void launch_typed(const GemmArgs& g, gpuStream_t stream) {
  launch_tiled_gemm<Acc>(StridedGemm<T, Acc>(g), stream);
}

}  // namespace

bool launch_gemm(const GemmArgs& g, gpuStream_t stream) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return true;
  if (visit_floating(g.dtype, [&](auto t, auto acc) { launch_typed<decltype(t), decltype(acc)>(g, stream); }))
    return true;
  switch (g.dtype) {
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
