// Reductions over any set of dimensions: sum, mean, max, min, argmax, argmin.
//
// Note [GPU reductions]
// ~~~~~~~~~~~~~~~~~~~~~
// The host splits the input's dimensions into kept ones (one output element per index) and
// reduced ones. Each output element is reduced by one block: its threads stride over the reduced
// elements, accumulate in the accumulation type (float for float and the 16-bit types, double,
// int64 for integers and bool), then combine through warp shuffles and shared memory. When the
// reduced extent is small and the outputs many, one thread per output does the whole reduction
// instead (no idle threads). max/min propagate NaN; arg* keep the first index of the extreme (of
// the first NaN), as the CPU kernels.
#include <cmath>
#include <cstdint>
#include <limits>

#include "Loops.cuh"

namespace ember::gpu {
namespace {

template <class A>
struct Pair {
  A v;
  int64_t i;
};

template <class A>
__device__ __forceinline__ bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return isnan(v);
  else
    return false;
}

// The combination of Reduction K on accumulators of type A, with an index for the arg kinds.
template <Reduction K, class A>
struct Combine {
  __device__ __forceinline__ Pair<A> operator()(Pair<A> a, Pair<A> b) const {
    if constexpr (K == Reduction::Sum || K == Reduction::Mean) {
      return {static_cast<A>(a.v + b.v), 0};
    } else if constexpr (K == Reduction::Prod) {
      if constexpr (std::is_integral_v<A>)  // wraps, as int64 does in PyTorch
        return {static_cast<A>(static_cast<uint64_t>(a.v) * static_cast<uint64_t>(b.v)), 0};
      else
        return {a.v * b.v, 0};
    } else {
      constexpr bool want_max = K == Reduction::Max || K == Reduction::ArgMax;
      const bool an = is_nan(a.v), bn = is_nan(b.v);
      if (an || bn) {
        if (an && bn) return a.i <= b.i ? a : b;
        return an ? a : b;
      }
      if (a.v == b.v) return a.i <= b.i ? a : b;
      return (want_max ? a.v > b.v : a.v < b.v) ? a : b;
    }
  }
};

template <Reduction K, class A>
__device__ __forceinline__ Pair<A> identity() {
  if constexpr (K == Reduction::Sum || K == Reduction::Mean) {
    return {A(0), 0};
  } else if constexpr (K == Reduction::Prod) {
    return {A(1), 0};
  } else if constexpr (K == Reduction::Max || K == Reduction::ArgMax) {
    if constexpr (std::is_floating_point_v<A>)
      return {-INFINITY, INT64_MAX};
    else
      return {std::numeric_limits<A>::lowest(), INT64_MAX};
  } else {
    if constexpr (std::is_floating_point_v<A>)
      return {INFINITY, INT64_MAX};
    else
      return {std::numeric_limits<A>::max(), INT64_MAX};
  }
}

__device__ __forceinline__ int64_t offset_of(int64_t idx, int ndim, const int64_t* sizes, const int64_t* strides) {
  int64_t off = 0;
  for (int d = 0; d < ndim; ++d) {
    const int64_t k = idx % sizes[d];
    idx /= sizes[d];
    off += k * strides[d];
  }
  return off;
}

template <Reduction K, class T, class A>
__device__ __forceinline__ void finish(const ReduceArgs& r, int64_t o, Pair<A> acc) {
  char* out = r.out + offset_of(o, r.n_kept, r.kept_sizes, r.out_strides);
  if constexpr (K == Reduction::ArgMax || K == Reduction::ArgMin) {
    *reinterpret_cast<int64_t*>(out) = r.n_red == 0 ? 0 : acc.i;
  } else if constexpr (K == Reduction::Mean) {
    store<double>(out, r.out_dtype, static_cast<double>(acc.v) / static_cast<double>(r.n_red));
  } else {
    store<A>(out, r.out_dtype, acc.v);
  }
}

template <Reduction K, class T, class A>
__global__ void reduce_block_kernel(ReduceArgs r) {
  __shared__ Pair<A> partial[kBlockSize / EMBER_GPU_WARP_SIZE];
  const Combine<K, A> combine;
  for (int64_t o = blockIdx.x; o < r.n_out; o += gridDim.x) {
    const char* base = r.in + offset_of(o, r.n_kept, r.kept_sizes, r.in_kept_strides);
    Pair<A> acc = identity<K, A>();
    for (int64_t j = threadIdx.x; j < r.n_red; j += blockDim.x) {
      const A v = load<A>(base + offset_of(j, r.n_red_dims, r.red_sizes, r.in_red_strides), r.in_dtype);
      acc = combine(acc, Pair<A>{v, j});
    }
    for (int s = EMBER_GPU_WARP_SIZE / 2; s > 0; s /= 2) {
      Pair<A> other;
      other.v = EMBER_GPU_SHFL_DOWN(0xffffffffu, acc.v, s);
      other.i = EMBER_GPU_SHFL_DOWN(0xffffffffu, acc.i, s);
      acc = combine(acc, other);
    }
    const int lane = threadIdx.x % EMBER_GPU_WARP_SIZE, warp = threadIdx.x / EMBER_GPU_WARP_SIZE;
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      Pair<A> total = partial[0];
      for (int w = 1; w < static_cast<int>(blockDim.x) / EMBER_GPU_WARP_SIZE; ++w) total = combine(total, partial[w]);
      finish<K, T, A>(r, o, total);
    }
    __syncthreads();
  }
}

template <Reduction K, class T, class A>
__global__ void reduce_thread_kernel(ReduceArgs r) {
  const Combine<K, A> combine;
  EMBER_GPU_GRID_STRIDE(o, r.n_out) {
    const char* base = r.in + offset_of(o, r.n_kept, r.kept_sizes, r.in_kept_strides);
    Pair<A> acc = identity<K, A>();
    for (int64_t j = 0; j < r.n_red; ++j) {
      const A v = load<A>(base + offset_of(j, r.n_red_dims, r.red_sizes, r.in_red_strides), r.in_dtype);
      acc = combine(acc, Pair<A>{v, j});
    }
    finish<K, T, A>(r, o, acc);
  }
}

template <Reduction K>
bool launch_kind(const ReduceArgs& r, gpuStream_t stream) {
  return visit_compute(static_cast<Dt>(r.acc_dtype), [&](auto tag) {
    using A = decltype(tag);
    if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double> || std::is_same_v<A, int64_t>) {
      if (r.n_out == 0) return true;
      if (r.n_red < 64 && r.n_out >= 1024) {
        EMBER_GPU_LAUNCH((reduce_thread_kernel<K, A, A>), grid_size(r.n_out), kBlockSize, 0, stream, r);
      } else {
        const int64_t blocks = r.n_out < 65535 * 16 ? r.n_out : 65535 * 16;
        EMBER_GPU_LAUNCH((reduce_block_kernel<K, A, A>), static_cast<unsigned>(blocks), kBlockSize, 0, stream, r);
      }
      return true;
    } else {
      return false;
    }
  });
}

}  // namespace

bool launch_reduce(Reduction kind, const ReduceArgs& r, gpuStream_t stream) {
  switch (kind) {
    case Reduction::Sum:
      return launch_kind<Reduction::Sum>(r, stream);
    case Reduction::Mean:
      return launch_kind<Reduction::Mean>(r, stream);
    case Reduction::Prod:
      return launch_kind<Reduction::Prod>(r, stream);
    case Reduction::Max:
      return launch_kind<Reduction::Max>(r, stream);
    case Reduction::Min:
      return launch_kind<Reduction::Min>(r, stream);
    case Reduction::ArgMax:
      return launch_kind<Reduction::ArgMax>(r, stream);
    case Reduction::ArgMin:
      return launch_kind<Reduction::ArgMin>(r, stream);
  }
  return false;
}

}  // namespace ember::gpu
