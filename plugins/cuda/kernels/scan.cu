// Scans (cumsum, cumprod) and what stands on them: nonzero's coordinates, repeat_interleave's
// segment fill.
//
// Note [GPU scans]
// ~~~~~~~~~~~~~~~~
// A scan runs along lines of n elements (the [outer, n, inner] view of a contiguous input): a
// thread per line when the lines are short or many, else a block per line, whose threads each
// scan one chunk of the line twice: once for the chunk's total, then, after one thread has
// turned the totals into the chunks' exclusive prefixes in shared memory, again from its prefix,
// writing. Floating scans accumulate in double and integer ones in int64 that wraps (as the
// cpu's): the integer results are exact in any order, the floating ones differ from the cpu's
// sequential sums by double roundings only.
#include "Loops.cuh"

namespace ember::gpu {
namespace {

template <class A, bool Prod>
__device__ __forceinline__ A combine(A a, A b) {
  if constexpr (std::is_same_v<A, int64_t>) {  // wraps
    const uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    return static_cast<int64_t>(Prod ? x * y : x + y);
  } else {
    return Prod ? a * b : a + b;
  }
}

struct Line {
  const char* in;
  char* out;
  int64_t step_in, step_out;  // bytes between consecutive elements
};

__device__ __forceinline__ Line line_of(const ScanArgs& a, int64_t line) {
  const int64_t o = line / a.inner, i = line % a.inner;
  const int64_t first = o * a.n * a.inner + i;
  return {a.in + first * a.in_itemsize, a.out + first * a.out_itemsize, a.inner * a.in_itemsize,
          a.inner * a.out_itemsize};
}

template <class A, bool Prod>
__global__ void scan_thread_kernel(ScanArgs a) {
  EMBER_GPU_GRID_STRIDE(line, a.outer * a.inner) {
    const Line l = line_of(a, line);
    A acc = Prod ? A(1) : A(0);
    for (int64_t k = 0; k < a.n; ++k) {
      acc = combine<A, Prod>(acc, load<A>(l.in + k * l.step_in, a.in_dtype));
      store<A>(l.out + k * l.step_out, a.out_dtype, acc);
    }
  }
}

template <class A, bool Prod>
__global__ void scan_block_kernel(ScanArgs a) {
  __shared__ A prefix[kBlockSize];
  const int64_t lines = a.outer * a.inner;
  const int64_t chunk = (a.n + blockDim.x - 1) / blockDim.x;
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    const Line l = line_of(a, line);
    const int64_t lo = threadIdx.x * chunk, hi = lo + chunk < a.n ? lo + chunk : a.n;
    A total = Prod ? A(1) : A(0);
    for (int64_t k = lo; k < hi; ++k) total = combine<A, Prod>(total, load<A>(l.in + k * l.step_in, a.in_dtype));
    prefix[threadIdx.x] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
      A run = Prod ? A(1) : A(0);
      for (unsigned t = 0; t < blockDim.x; ++t) {
        const A v = prefix[t];
        prefix[t] = run;
        run = combine<A, Prod>(run, v);
      }
    }
    __syncthreads();
    A acc = prefix[threadIdx.x];
    for (int64_t k = lo; k < hi; ++k) {
      acc = combine<A, Prod>(acc, load<A>(l.in + k * l.step_in, a.in_dtype));
      store<A>(l.out + k * l.step_out, a.out_dtype, acc);
    }
    __syncthreads();  // prefix is reused by the next line
  }
}

template <class A, bool Prod>
void launch_scan_as(const ScanArgs& a, gpuStream_t stream) {
  const int64_t lines = a.outer * a.inner;
  if (a.n <= 64 || lines >= 4096) {
    EMBER_GPU_LAUNCH((scan_thread_kernel<A, Prod>), grid_size(lines), kBlockSize, 0, stream, a);
  } else {
    const int grid = static_cast<int>(lines < 65535 ? lines : 65535);
    EMBER_GPU_LAUNCH((scan_block_kernel<A, Prod>), grid, kBlockSize, 0, stream, a);
  }
}

__global__ void nonzero_kernel(NonzeroArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.numel) {
    const int64_t before = e == 0 ? 0 : a.inclusive[e - 1];
    if (a.inclusive[e] == before) continue;
    int64_t rem = e;
    for (int d = a.ndim - 1; d >= 0; --d) {  // column-major [count, ndim]: coordinate d at d * count
      a.out[d * a.count + before] = rem % a.sizes[d];
      rem /= a.sizes[d];
    }
  }
}

__global__ void repeat_index_kernel(RepeatArgs a) {
  EMBER_GPU_GRID_STRIDE(i, a.n) {
    const int64_t end = a.inclusive[i], begin = i == 0 ? 0 : a.inclusive[i - 1];
    for (int64_t j = begin; j < end; ++j) a.out[j] = i;
  }
}

}  // namespace

bool launch_scan(const ScanArgs& a, gpuStream_t stream) {
  if (a.outer * a.n * a.inner == 0) return true;
  if (a.integral)
    a.prod ? launch_scan_as<int64_t, true>(a, stream) : launch_scan_as<int64_t, false>(a, stream);
  else
    a.prod ? launch_scan_as<double, true>(a, stream) : launch_scan_as<double, false>(a, stream);
  return true;
}

bool launch_nonzero(const NonzeroArgs& a, gpuStream_t stream) {
  if (a.numel == 0 || a.count == 0 || a.ndim == 0) return true;
  EMBER_GPU_LAUNCH(nonzero_kernel, grid_size(a.numel), kBlockSize, 0, stream, a);
  return true;
}

bool launch_repeat_index(const RepeatArgs& a, gpuStream_t stream) {
  if (a.n == 0) return true;
  EMBER_GPU_LAUNCH(repeat_index_kernel, grid_size(a.n), kBlockSize, 0, stream, a);
  return true;
}

}  // namespace ember::gpu
