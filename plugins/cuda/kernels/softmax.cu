// softmax and log_softmax, forward and backward, along one dimension of a contiguous tensor seen
// as [outer, dim, inner].
//
// Note [GPU softmax]
// ~~~~~~~~~~~~~~~~~~
// With inner == 1 (the last dimension, the common case) a block takes a row: its threads find
// the row's maximum, then the sum of exp(x - max) (forward) or of the gradient terms (backward),
// each combined across the block through warp shuffles and shared memory, then write the row.
// With inner > 1 a thread takes one (outer, inner) column and walks the dimension itself, its
// neighbours reading neighbouring addresses. Accumulation is in float (double for double), as
// the inputs are converted on load.
#include <cmath>

#include "Loops.cuh"

namespace ember::gpu {
namespace {

template <class A>
__device__ __forceinline__ A at(const char* base, int64_t i, int8_t dt, int size) {
  return load<A>(base + i * size, dt);
}

template <bool Log, class A>
__global__ void softmax_rows(SoftmaxArgs s) {
  const int is = s.in_size, os = s.out_size;
  for (int64_t row = blockIdx.x; row < s.outer; row += gridDim.x) {
    const char* in = s.in + row * s.dim * is;
    char* out = s.out + row * s.dim * os;
    A m = -INFINITY;
    for (int64_t j = threadIdx.x; j < s.dim; j += blockDim.x) m = max_nan(m, at<A>(in, j, s.in_dtype, is));
    m = block_reduce<true>(m);
    A sum = 0;
    for (int64_t j = threadIdx.x; j < s.dim; j += blockDim.x) sum += exp(at<A>(in, j, s.in_dtype, is) - m);
    sum = block_reduce<false>(sum);
    const A lse = log(sum);
    for (int64_t j = threadIdx.x; j < s.dim; j += blockDim.x) {
      const A x = at<A>(in, j, s.in_dtype, is) - m;
      store<A>(out + j * os, s.out_dtype, Log ? x - lse : exp(x) / sum);
    }
  }
}

template <bool Log, class A>
__global__ void softmax_columns(SoftmaxArgs s) {
  const int is = s.in_size, os = s.out_size;
  const int64_t n = s.outer * s.inner;
  EMBER_GPU_GRID_STRIDE(c, n) {
    const int64_t base = (c / s.inner) * s.dim * s.inner + c % s.inner;
    A m = -INFINITY;
    for (int64_t j = 0; j < s.dim; ++j) m = max_nan(m, at<A>(s.in, base + j * s.inner, s.in_dtype, is));
    A sum = 0;
    for (int64_t j = 0; j < s.dim; ++j) sum += exp(at<A>(s.in, base + j * s.inner, s.in_dtype, is) - m);
    const A lse = log(sum);
    for (int64_t j = 0; j < s.dim; ++j) {
      const A x = at<A>(s.in, base + j * s.inner, s.in_dtype, is) - m;
      store<A>(s.out + (base + j * s.inner) * os, s.out_dtype, Log ? x - lse : exp(x) / sum);
    }
  }
}

// Backward: in is the forward's output y, grad the gradient g of the output.
// softmax: g_in = y * (g - sum(g * y)); log_softmax: g_in = g - exp(y) * sum(g).
template <bool Log, class A>
__global__ void softmax_backward_rows(SoftmaxArgs s) {
  const int is = s.in_size, os = s.out_size;
  for (int64_t row = blockIdx.x; row < s.outer; row += gridDim.x) {
    const char* y = s.in + row * s.dim * is;
    const char* g = s.grad + row * s.dim * is;
    char* out = s.out + row * s.dim * os;
    A sum = 0;
    for (int64_t j = threadIdx.x; j < s.dim; j += blockDim.x)
      sum += Log ? at<A>(g, j, s.in_dtype, is) : at<A>(g, j, s.in_dtype, is) * at<A>(y, j, s.in_dtype, is);
    sum = block_reduce<false>(sum);
    for (int64_t j = threadIdx.x; j < s.dim; j += blockDim.x) {
      const A gj = at<A>(g, j, s.in_dtype, is), yj = at<A>(y, j, s.in_dtype, is);
      store<A>(out + j * os, s.out_dtype, Log ? gj - exp(yj) * sum : yj * (gj - sum));
    }
  }
}

template <bool Log, class A>
__global__ void softmax_backward_columns(SoftmaxArgs s) {
  const int is = s.in_size, os = s.out_size;
  const int64_t n = s.outer * s.inner;
  EMBER_GPU_GRID_STRIDE(c, n) {
    const int64_t base = (c / s.inner) * s.dim * s.inner + c % s.inner;
    A sum = 0;
    for (int64_t j = 0; j < s.dim; ++j) {
      const int64_t i = base + j * s.inner;
      sum += Log ? at<A>(s.grad, i, s.in_dtype, is) : at<A>(s.grad, i, s.in_dtype, is) * at<A>(s.in, i, s.in_dtype, is);
    }
    for (int64_t j = 0; j < s.dim; ++j) {
      const int64_t i = base + j * s.inner;
      const A gj = at<A>(s.grad, i, s.in_dtype, is), yj = at<A>(s.in, i, s.in_dtype, is);
      store<A>(s.out + i * os, s.out_dtype, Log ? gj - exp(yj) * sum : yj * (gj - sum));
    }
  }
}

int size_of(int8_t dt) { return dt == Double ? 8 : dt == Float ? 4 : 2; }

template <bool Backward, bool Log, class A>
void launch_typed(SoftmaxArgs s, gpuStream_t stream) {
  s.in_size = size_of(s.in_dtype);
  s.out_size = size_of(s.out_dtype);
  if (s.inner == 1) {
    const unsigned blocks = static_cast<unsigned>(s.outer < 65535 * 16 ? s.outer : 65535 * 16);
    if constexpr (Backward)
      EMBER_GPU_LAUNCH((softmax_backward_rows<Log, A>), blocks, kBlockSize, 0, stream, s);
    else
      EMBER_GPU_LAUNCH((softmax_rows<Log, A>), blocks, kBlockSize, 0, stream, s);
  } else {
    const int grid = grid_size(s.outer * s.inner);
    if constexpr (Backward)
      EMBER_GPU_LAUNCH((softmax_backward_columns<Log, A>), grid, kBlockSize, 0, stream, s);
    else
      EMBER_GPU_LAUNCH((softmax_columns<Log, A>), grid, kBlockSize, 0, stream, s);
  }
}

template <bool Backward>
bool launch(const SoftmaxArgs& s, gpuStream_t stream) {
  const auto ok = [](int8_t dt) { return dt == Float || dt == Double || dt == Half || dt == BFloat16; };
  if (!ok(s.in_dtype) || !ok(s.out_dtype)) return false;
  if (s.outer * s.dim * s.inner == 0) return true;
  const bool dbl = s.in_dtype == Double || s.out_dtype == Double;
  if (s.log) {
    if (dbl)
      launch_typed<Backward, true, double>(s, stream);
    else
      launch_typed<Backward, true, float>(s, stream);
  } else {
    if (dbl)
      launch_typed<Backward, false, double>(s, stream);
    else
      launch_typed<Backward, false, float>(s, stream);
  }
  return true;
}

}  // namespace

bool launch_softmax(const SoftmaxArgs& args, gpuStream_t stream) { return launch<false>(args, stream); }
bool launch_softmax_backward(const SoftmaxArgs& args, gpuStream_t stream) { return launch<true>(args, stream); }

}  // namespace ember::gpu
