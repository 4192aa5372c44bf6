// gather, scatter (assign), scatter_add_ and advanced-indexing kernels: a thread per index (or
// result) element, the offsets from its multi-index.
#include "Loops.cuh"

namespace ember::gpu {
namespace {

// Offsets (elements) of index element e in self (dim excluded), index and other.
struct Offsets {
  int64_t self = 0, index = 0, other = 0;
};

__device__ __forceinline__ Offsets offsets_of(const GatherArgs& a, int64_t e) {
  Offsets o;
  for (int d = a.ndim - 1; d >= 0; --d) {
    const int64_t i = e % a.sizes[d];
    e /= a.sizes[d];
    if (d != a.dim) o.self += i * a.self_strides[d];
    o.index += i * a.index_strides[d];
    o.other += i * a.other_strides[d];
  }
  return o;
}

// gather (other[i] = self[at]) or scatter (self[at] = other[i]).
template <class U, bool Scatter>
__global__ void move_kernel(GatherArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.numel) {
    const Offsets o = offsets_of(a, e);
    const int64_t at = o.self + a.index[o.index] * a.self_strides[a.dim];
    U* self = reinterpret_cast<U*>(a.self) + at;
    U* other = reinterpret_cast<U*>(a.other) + o.other;
    if constexpr (Scatter)
      *self = *other;
    else
      *other = *self;
  }
}

template <class T>
__device__ __forceinline__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, int64_t>)
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));  // two's complement
  else if constexpr (std::is_same_v<T, gpu_half> || std::is_same_v<T, gpu_bfloat16>)
    atomic_add_narrow(p, narrow_to_float(v));
  else
    atomicAdd(p, v);
}

template <class T>
__global__ void scatter_add_kernel(GatherArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.numel) {
    const Offsets o = offsets_of(a, e);
    const int64_t at = o.self + a.index[o.index] * a.self_strides[a.dim];
    atomic_add(reinterpret_cast<T*>(a.self) + at, reinterpret_cast<const T*>(a.other)[o.other]);
  }
}

// One scatter_reduce step (the cpu's reduce_step).
template <ScatterOp Op, class T>
__device__ __forceinline__ T scatter_step(T cur, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return Op == ScatterOp::Prod || Op == ScatterOp::Amin ? (cur && v) : (cur || v);
  } else {
    constexpr bool narrow = std::is_same_v<T, gpu_half> || std::is_same_v<T, gpu_bfloat16>;
    using C = std::conditional_t<narrow, float, T>;
    C a, b;
    if constexpr (narrow)
      a = narrow_to_float(cur), b = narrow_to_float(v);
    else
      a = cur, b = v;
    auto back = [](C x) {
      if constexpr (narrow)
        return narrow_from_float<T>(x);
      else
        return static_cast<T>(x);
    };
    if constexpr (Op == ScatterOp::Prod) return back(a * b);
    if constexpr (Op == ScatterOp::Amax) return b != b ? v : (a < b ? v : cur);
    if constexpr (Op == ScatterOp::Amin) return b != b ? v : (b < a ? v : cur);
    if constexpr (Op == ScatterOp::Sum) return back(a + b);
  }
}

template <ScatterOp Op, class T>
__global__ void scatter_reduce_kernel(GatherArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.numel) {
    const Offsets o = offsets_of(a, e);
    const int64_t at = o.self + a.index[o.index] * a.self_strides[a.dim];
    const T v = reinterpret_cast<const T*>(a.other)[o.other];
    atomic_update(reinterpret_cast<T*>(a.self) + at, [v](T cur) { return scatter_step<Op>(cur, v); });
  }
}

template <ScatterOp Op>
bool launch_scatter_reduce_as(const GatherArgs& a, gpuStream_t stream) {
  auto launch = [&](auto t) {
    EMBER_GPU_LAUNCH((scatter_reduce_kernel<Op, decltype(t)>), grid_size(a.numel), kBlockSize, 0, stream, a);
  };
  switch (a.dtype) {
    case Bool:
      launch(bool{});
      return true;
    case UInt8:
      launch(uint8_t{});
      return true;
    case Int8:
      launch(int8_t{});
      return true;
    case Int16:
      launch(int16_t{});
      return true;
    case Int32:
      launch(int32_t{});
      return true;
    case Int64:
      launch(int64_t{});
      return true;
    case Half:
      launch(gpu_half{});
      return true;
    case BFloat16:
      launch(gpu_bfloat16{});
      return true;
    case Float:
      launch(float{});
      return true;
    case Double:
      launch(double{});
      return true;
    default:
      return false;
  }
}

template <bool Scatter>
bool launch_moving(const GatherArgs& a, gpuStream_t stream) {
  if (a.numel == 0) return true;
  return visit_word(a.itemsize, [&](auto word) {
    EMBER_GPU_LAUNCH((move_kernel<decltype(word), Scatter>), grid_size(a.numel), kBlockSize, 0, stream, a);
  });
}

// f(T{}) for the dtypes with device atomic adds (Float, Double, Int32, Int64; Half and BFloat16
// through atomic_add_narrow). False for the others.
template <class F>
bool visit_atomic(int8_t dtype, F&& f) {
  switch (dtype) {
    case Float:
      f(float{});
      return true;
    case Double:
      f(double{});
      return true;
    case Int32:
      f(int32_t{});
      return true;
    case Int64:
      f(int64_t{});
      return true;
    case Half:
      f(gpu_half{});
      return true;
    case BFloat16:
      f(gpu_bfloat16{});
      return true;
    default:
      return false;
  }
}

template <class U, IndexMode M>
__global__ void index_kernel(IndexArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.numel) {
    int64_t so = 0, oo = 0, io[kMaxIndices] = {};
    int64_t rem = e;
    for (int d = a.ndim - 1; d >= 0; --d) {
      const int64_t i = rem % a.sizes[d];
      rem /= a.sizes[d];
      so += i * a.self_strides[d];
      oo += i * a.other_strides[d];
      for (int k = 0; k < a.nindex; ++k) io[k] += i * a.index_strides[k][d];
    }
    for (int k = 0; k < a.nindex; ++k) {
      const int64_t v = a.index[k][io[k]];
      so += (v < 0 ? v + a.index_size[k] : v) * a.index_self_stride[k];
    }
    U* self = reinterpret_cast<U*>(a.self) + so;
    U* other = reinterpret_cast<U*>(a.other) + oo;
    if constexpr (M == IndexMode::Gather)
      *other = *self;
    else if constexpr (M == IndexMode::Put)
      *self = *other;
    else
      atomic_add(self, *other);
  }
}

template <IndexMode M>
bool launch_index_as(const IndexArgs& a, gpuStream_t stream) {
  const int grid = grid_size(a.numel);
  auto launch = [&](auto t) { EMBER_GPU_LAUNCH((index_kernel<decltype(t), M>), grid, kBlockSize, 0, stream, a); };
  if constexpr (M == IndexMode::Accumulate)
    return visit_atomic(a.dtype, launch);
  else
    return visit_word(a.itemsize, launch);
}

}  // namespace

bool launch_index(IndexMode mode, const IndexArgs& a, gpuStream_t stream) {
  if (a.numel == 0) return true;
  switch (mode) {
    case IndexMode::Gather:
      return launch_index_as<IndexMode::Gather>(a, stream);
    case IndexMode::Put:
      return launch_index_as<IndexMode::Put>(a, stream);
    default:
      return launch_index_as<IndexMode::Accumulate>(a, stream);
  }
}

bool launch_gather(const GatherArgs& a, gpuStream_t stream) { return launch_moving<false>(a, stream); }

bool launch_scatter(const GatherArgs& a, gpuStream_t stream) { return launch_moving<true>(a, stream); }

bool launch_scatter_add(const GatherArgs& a, gpuStream_t stream) {
  if (a.numel == 0) return true;
  return visit_atomic(a.dtype, [&](auto t) {
    EMBER_GPU_LAUNCH(scatter_add_kernel<decltype(t)>, grid_size(a.numel), kBlockSize, 0, stream, a);
  });
}

bool launch_scatter_reduce(ScatterOp op, const GatherArgs& a, gpuStream_t stream) {
  if (a.numel == 0) return true;
  switch (op) {
    case ScatterOp::Sum:
      return launch_scatter_reduce_as<ScatterOp::Sum>(a, stream);
    case ScatterOp::Prod:
      return launch_scatter_reduce_as<ScatterOp::Prod>(a, stream);
    case ScatterOp::Amax:
      return launch_scatter_reduce_as<ScatterOp::Amax>(a, stream);
    default:
      return launch_scatter_reduce_as<ScatterOp::Amin>(a, stream);
  }
}

}  // namespace ember::gpu
