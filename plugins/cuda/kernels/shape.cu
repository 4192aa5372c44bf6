// Index-map kernels (flip, roll, padding, tril/triu) and the range fills (arange, linspace).
//
// Note [GPU index maps]
// ~~~~~~~~~~~~~~~~~~~~~
// The shape kernels that move elements without arithmetic all read, for each element of the
// mapped tensor, the source element whose index follows from its own dimension by dimension:
// the index minus a left pad (constant padding, a crop for a negative pad; outside the source the
// fill bytes), reflected or clamped at the edges (reflection and replication padding), shifted
// around the dimension (roll) or reversed (flip). One thread per mapped element; elements move
// as words of the dtype's size, so every dtype shares four instantiations. The padding backwards
// run the same map the other way: each mapped gradient is added into the source element it was
// read from, with device atomics in float or double (the host accumulates float16/bfloat16 in
// float), so the order of the additions, and the last bits, may differ from the cpu's.
#include <cstring>

#include "Loops.cuh"

namespace ember::gpu {
namespace {

// The source offset (elements) of mapped element e and its mapped offset; false when the source
// index lies outside the source (an Offset dimension), or outside the band.
struct Mapped {
  int64_t mapped = 0, source = 0;
  bool inside = true, in_band = true;
};

__device__ __forceinline__ int64_t source_index(const RemapArgs& a, int d, int64_t i, bool& inside) {
  const int64_t n = a.source_sizes[d];
  switch (static_cast<MapMode>(a.mode[d])) {
    case MapMode::Offset: {
      const int64_t j = i - a.shift[d];
      if (j < 0 || j >= n) inside = false;
      return j;
    }
    case MapMode::Reflect: {
      const int64_t j = i - a.shift[d];
      return j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j;
    }
    case MapMode::Replicate: {
      const int64_t j = i - a.shift[d];
      return j < 0 ? 0 : j >= n ? n - 1 : j;
    }
    case MapMode::Roll: {
      const int64_t j = i - a.shift[d];
      return j < 0 ? j + n : j;
    }
    default:  // Flip
      return n - 1 - i;
  }
}

__device__ __forceinline__ Mapped map_of(const RemapArgs& a, int64_t e) {
  Mapped m;
  int64_t row = 0, col = 0;
  for (int d = a.ndim - 1; d >= 0; --d) {
    const int64_t i = e % a.sizes[d];
    e /= a.sizes[d];
    if (d == a.ndim - 1) col = i;
    if (d == a.ndim - 2) row = i;
    m.mapped += i * a.mapped_strides[d];
    m.source += source_index(a, d, i, m.inside) * a.source_strides[d];
  }
  if (a.band != Band::None) m.in_band = a.band == Band::Lower ? col - row <= a.diagonal : col - row >= a.diagonal;
  return m;
}

template <class W>
__global__ void remap_kernel(RemapArgs a) {
  W fill;
  memcpy(&fill, a.fill, sizeof(W));
  EMBER_GPU_GRID_STRIDE(e, a.numel) {
    const Mapped m = map_of(a, e);
    W* out = reinterpret_cast<W*>(a.mapped) + m.mapped;
    if (!m.in_band)
      memset(out, 0, sizeof(W));  // all-zero bits is 0 in every dtype
    else if (!m.inside)
      *out = fill;
    else
      *out = reinterpret_cast<const W*>(a.source)[m.source];
  }
}

template <class T>
__global__ void remap_add_kernel(RemapArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.numel) {
    const Mapped m = map_of(a, e);
    if (m.inside) atomicAdd(reinterpret_cast<T*>(a.source) + m.source, reinterpret_cast<const T*>(a.mapped)[m.mapped]);
  }
}

// arange: start + step i in Acc; linspace: from both ends in Step (Note [GPU range fills]).
template <class T, class A>
__global__ void range_kernel(RangeArgs a, A start, A step, A end) {
  T* out = reinterpret_cast<T*>(a.out);
  const int64_t half = a.n / 2;
  EMBER_GPU_GRID_STRIDE(i, a.n) {
    A v;
    if (a.kind == RangeKind::Arange)
      v = static_cast<A>(start + step * static_cast<A>(i));
    else
      v = i < half ? start + step * static_cast<A>(i) : end - step * static_cast<A>(a.n - i - 1);
    if constexpr (std::is_same_v<T, gpu_half>)
      out[i] = __float2half_rn(static_cast<float>(v));
    else if constexpr (std::is_same_v<T, gpu_bfloat16>)
      out[i] = gpu_bfloat16(static_cast<float>(v));
    else
      out[i] = convert<T>(v);
  }
}

// The Value in the Step / Acc type A, through the dtype T first (Scalar -> dtype -> A, as the
// cpu's scalar_to).
template <class T, class A>
A value_in(Value v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<A>(static_cast<T>(v.i));
  else
    return static_cast<A>(static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(v.f));
}

template <class T>
void launch_range_as(const RangeArgs& a, gpuStream_t stream) {
  // arange accumulates in int64 (integers), float (float16/bfloat16) or double; linspace steps in
  // double (integers), float (float16/bfloat16) or the dtype.
  constexpr bool reduced = std::is_same_v<T, gpu_half> || std::is_same_v<T, gpu_bfloat16>;
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, std::conditional_t<reduced, float, double>>;
  using Step = std::conditional_t<std::is_integral_v<T>, double, std::conditional_t<reduced, float, T>>;
  using Tv = std::conditional_t<reduced, float, T>;
  const int grid = grid_size(a.n);
  if (a.kind == RangeKind::Arange) {
    const Acc s = std::is_integral_v<T> ? static_cast<Acc>(a.start.i) : value_in<double, Acc>(a.start);
    const Acc st = std::is_integral_v<T> ? static_cast<Acc>(a.step.i) : value_in<double, Acc>(a.step);
    EMBER_GPU_LAUNCH((range_kernel<T, Acc>), grid, kBlockSize, 0, stream, a, s, st, Acc(0));
  } else {
    const Step s = value_in<Tv, Step>(a.start);
    const Step e = a.n == 1 ? s : value_in<Tv, Step>(a.end);  // one step is start
    const Step st = a.n == 1 ? Step(0) : (e - s) / static_cast<Step>(a.n - 1);
    EMBER_GPU_LAUNCH((range_kernel<T, Step>), grid, kBlockSize, 0, stream, a, s, st, e);
  }
}

}  // namespace

bool launch_remap(const RemapArgs& a, gpuStream_t stream) {
  if (a.numel == 0) return true;
  return visit_word(a.itemsize, [&](auto word) {
    EMBER_GPU_LAUNCH(remap_kernel<decltype(word)>, grid_size(a.numel), kBlockSize, 0, stream, a);
  });
}

bool launch_remap_add(const RemapArgs& a, gpuStream_t stream) {
  if (a.numel == 0) return true;
  const int grid = grid_size(a.numel);
  switch (a.dtype) {
    case Float:
      EMBER_GPU_LAUNCH(remap_add_kernel<float>, grid, kBlockSize, 0, stream, a);
      return true;
    case Double:
      EMBER_GPU_LAUNCH(remap_add_kernel<double>, grid, kBlockSize, 0, stream, a);
      return true;
    default:
      return false;
  }
}

bool launch_range(const RangeArgs& a, gpuStream_t stream) {
  if (a.n == 0) return true;
  switch (a.dtype) {
    case UInt8:
      launch_range_as<uint8_t>(a, stream);
      return true;
    case Int8:
      launch_range_as<int8_t>(a, stream);
      return true;
    case Int16:
      launch_range_as<int16_t>(a, stream);
      return true;
    case Int32:
      launch_range_as<int32_t>(a, stream);
      return true;
    case Int64:
      launch_range_as<int64_t>(a, stream);
      return true;
    case Half:
      launch_range_as<gpu_half>(a, stream);
      return true;
    case BFloat16:
      launch_range_as<gpu_bfloat16>(a, stream);
      return true;
    case Float:
      launch_range_as<float>(a, stream);
      return true;
    case Double:
      launch_range_as<double>(a, stream);
      return true;
    default:
      return false;
  }
}

}  // namespace ember::gpu
