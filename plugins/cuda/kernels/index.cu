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

struct Bytes16 {
  uint64_t lo, hi;
};

template <bool Scatter>
bool launch_moving(const GatherArgs& a, gpuStream_t stream) {
  if (a.numel == 0) return true;
  const int grid = grid_size(a.numel);
  switch (a.itemsize) {
    case 1:
      EMBER_GPU_LAUNCH((move_kernel<uint8_t, Scatter>), grid, kBlockSize, 0, stream, a);
      return true;
    case 2:
      EMBER_GPU_LAUNCH((move_kernel<uint16_t, Scatter>), grid, kBlockSize, 0, stream, a);
      return true;
    case 4:
      EMBER_GPU_LAUNCH((move_kernel<uint32_t, Scatter>), grid, kBlockSize, 0, stream, a);
      return true;
    case 8:
      EMBER_GPU_LAUNCH((move_kernel<uint64_t, Scatter>), grid, kBlockSize, 0, stream, a);
      return true;
    case 16:
      EMBER_GPU_LAUNCH((move_kernel<Bytes16, Scatter>), grid, kBlockSize, 0, stream, a);
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
  if constexpr (M == IndexMode::Accumulate) {
    switch (a.dtype) {
      case Float:
        EMBER_GPU_LAUNCH((index_kernel<float, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case Double:
        EMBER_GPU_LAUNCH((index_kernel<double, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case Int32:
        EMBER_GPU_LAUNCH((index_kernel<int32_t, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case Int64:
        EMBER_GPU_LAUNCH((index_kernel<int64_t, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case Half:
        EMBER_GPU_LAUNCH((index_kernel<gpu_half, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case BFloat16:
        EMBER_GPU_LAUNCH((index_kernel<gpu_bfloat16, M>), grid, kBlockSize, 0, stream, a);
        return true;
      default:
        return false;
    }
  } else {
    switch (a.itemsize) {
      case 1:
        EMBER_GPU_LAUNCH((index_kernel<uint8_t, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case 2:
        EMBER_GPU_LAUNCH((index_kernel<uint16_t, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case 4:
        EMBER_GPU_LAUNCH((index_kernel<uint32_t, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case 8:
        EMBER_GPU_LAUNCH((index_kernel<uint64_t, M>), grid, kBlockSize, 0, stream, a);
        return true;
      case 16:
        EMBER_GPU_LAUNCH((index_kernel<Bytes16, M>), grid, kBlockSize, 0, stream, a);
        return true;
      default:
        return false;
    }
  }
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
  const int grid = grid_size(a.numel);
  switch (a.dtype) {
    case Float:
      EMBER_GPU_LAUNCH(scatter_add_kernel<float>, grid, kBlockSize, 0, stream, a);
      return true;
    case Double:
      EMBER_GPU_LAUNCH(scatter_add_kernel<double>, grid, kBlockSize, 0, stream, a);
      return true;
    case Int32:
      EMBER_GPU_LAUNCH(scatter_add_kernel<int32_t>, grid, kBlockSize, 0, stream, a);
      return true;
    case Int64:
      EMBER_GPU_LAUNCH(scatter_add_kernel<int64_t>, grid, kBlockSize, 0, stream, a);
      return true;
    case Half:
      EMBER_GPU_LAUNCH(scatter_add_kernel<gpu_half>, grid, kBlockSize, 0, stream, a);
      return true;
    case BFloat16:
      EMBER_GPU_LAUNCH(scatter_add_kernel<gpu_bfloat16>, grid, kBlockSize, 0, stream, a);
      return true;
    default:
      return false;
  }
}

}  // namespace ember::gpu
