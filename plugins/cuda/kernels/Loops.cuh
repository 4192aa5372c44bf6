#pragma once
// Elementwise loops over an Iter (Note [GPU kernel interface] in Kernels.h).
//
// Note [GPU elementwise loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// One functor per operation computes in its compute type C. Two loops run it:
// - contiguous: every operand has C's dtype and is either contiguous or one broadcast value
//   (a Scalar's 0-dim operand); element i is data[k][i * step[k]] with step 0 or 1, read with
//   no dtype switch, so the loop is memory-bound as a copy is;
// - general: any strides and dtypes; element i's byte offsets come from its multi-index
//   (innermost dimension first) and each operand is loaded and stored with a conversion from
//   and to its own dtype (PyTorch's dynamic casting), so one instantiation per (operation, C)
//   serves every mix of dtypes.
// Both are grid-stride loops over the 64-bit linear index.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "Kernels.h"

namespace ember::gpu {

constexpr int kBlockSize = 256;

inline int grid_size(int64_t n) {
  const int64_t blocks = (n + kBlockSize - 1) / kBlockSize;
  return static_cast<int>(blocks < 65535 * 8 ? (blocks < 1 ? 1 : blocks) : 65535 * 8);
}

// A grid-stride loop of `i` over [0, n): every kernel's outer loop.
#define EMBER_GPU_GRID_STRIDE(i, n)                                                      \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

template <class A>
__device__ __forceinline__ A max_nan(A a, A b) {
  return isnan(a) || a > b ? a : b;
}

// The block's total of v (sum or NaN-propagating max), returned to every thread.
template <bool Max, class A>
__device__ A block_reduce(A v) {
  __shared__ A partial[kBlockSize / EMBER_GPU_WARP_SIZE];
  __shared__ A total;
  for (int s = EMBER_GPU_WARP_SIZE / 2; s > 0; s /= 2) {
    const A o = EMBER_GPU_SHFL_DOWN(0xffffffffu, v, s);
    v = Max ? max_nan(v, o) : v + o;
  }
  const int lane = static_cast<int>(threadIdx.x) % EMBER_GPU_WARP_SIZE;
  const int warp = static_cast<int>(threadIdx.x) / EMBER_GPU_WARP_SIZE;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    A t = partial[0];
    for (int w = 1; w < static_cast<int>(blockDim.x) / EMBER_GPU_WARP_SIZE; ++w)
      t = Max ? max_nan(t, partial[w]) : t + partial[w];
    total = t;
  }
  __syncthreads();
  const A r = total;
  __syncthreads();  // total and partial are reused by the next call
  return r;
}

template <class T>
struct DtOf;
template <>
struct DtOf<bool> {
  static constexpr Dt value = Bool;
};
template <>
struct DtOf<uint8_t> {
  static constexpr Dt value = UInt8;
};
template <>
struct DtOf<int8_t> {
  static constexpr Dt value = Int8;
};
template <>
struct DtOf<int16_t> {
  static constexpr Dt value = Int16;
};
template <>
struct DtOf<int32_t> {
  static constexpr Dt value = Int32;
};
template <>
struct DtOf<int64_t> {
  static constexpr Dt value = Int64;
};
template <>
struct DtOf<float> {
  static constexpr Dt value = Float;
};
template <>
struct DtOf<double> {
  static constexpr Dt value = Double;
};

// Conversions as the CPU's: to bool is != 0, floating to integer through int64 (wrapping as
// x86 does), 16-bit floats through float.
template <class To, class From>
__device__ __forceinline__ To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return static_cast<To>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <class T>
__device__ __forceinline__ T load(const char* p, int8_t dt) {
  switch (dt) {
    case Bool:
      return convert<T>(*reinterpret_cast<const bool*>(p));
    case UInt8:
      return convert<T>(*reinterpret_cast<const uint8_t*>(p));
    case Int8:
      return convert<T>(*reinterpret_cast<const int8_t*>(p));
    case Int16:
      return convert<T>(*reinterpret_cast<const int16_t*>(p));
    case Int32:
      return convert<T>(*reinterpret_cast<const int32_t*>(p));
    case Int64:
      return convert<T>(*reinterpret_cast<const int64_t*>(p));
    case Half:
      return convert<T>(__half2float(*reinterpret_cast<const gpu_half*>(p)));
    case BFloat16:
      return convert<T>(static_cast<float>(*reinterpret_cast<const gpu_bfloat16*>(p)));
    case Float:
      return convert<T>(*reinterpret_cast<const float*>(p));
    default:
      return convert<T>(*reinterpret_cast<const double*>(p));
  }
}

template <class T>
__device__ __forceinline__ void store(char* p, int8_t dt, T v) {
  switch (dt) {
    case Bool:
      *reinterpret_cast<bool*>(p) = convert<bool>(v);
      break;
    case UInt8:
      *reinterpret_cast<uint8_t*>(p) = convert<uint8_t>(v);
      break;
    case Int8:
      *reinterpret_cast<int8_t*>(p) = convert<int8_t>(v);
      break;
    case Int16:
      *reinterpret_cast<int16_t*>(p) = convert<int16_t>(v);
      break;
    case Int32:
      *reinterpret_cast<int32_t*>(p) = convert<int32_t>(v);
      break;
    case Int64:
      *reinterpret_cast<int64_t*>(p) = convert<int64_t>(v);
      break;
    case Half:
      *reinterpret_cast<gpu_half*>(p) = __float2half_rn(convert<float>(v));
      break;
    case BFloat16:
      *reinterpret_cast<gpu_bfloat16*>(p) = gpu_bfloat16(convert<float>(v));
      break;
    case Float:
      *reinterpret_cast<float*>(p) = convert<float>(v);
      break;
    default:
      *reinterpret_cast<double*>(p) = convert<double>(v);
      break;
  }
}

// An element of 16 bytes (complex128), moved as a whole.
struct Bytes16 {
  uint64_t lo, hi;
};

// f(W{}) with W an unsigned word of `size` bytes (1, 2, 4, 8 or 16): kernels that move elements
// without arithmetic are instantiated per element size, not per dtype. False for other sizes.
template <class F>
bool visit_word(int size, F&& f) {
  switch (size) {
    case 1:
      f(uint8_t{});
      return true;
    case 2:
      f(uint16_t{});
      return true;
    case 4:
      f(uint32_t{});
      return true;
    case 8:
      f(uint64_t{});
      return true;
    case 16:
      f(Bytes16{});
      return true;
    default:
      return false;
  }
}

template <class T>
__device__ __forceinline__ float narrow_to_float(T v) {
  if constexpr (std::is_same_v<T, gpu_half>)
    return __half2float(v);
  else
    return static_cast<float>(v);
}
template <class T>
__device__ __forceinline__ T narrow_from_float(float v) {
  if constexpr (std::is_same_v<T, gpu_half>)
    return __float2half_rn(v);
  else
    return T(v);
}

// *p = f(*p) as one atomic step: a compare-and-swap loop on the 8-byte element, or on the 4-byte
// word that holds a 1-, 2- or 4-byte element (its neighbours in the word are written back as read).
template <class T, class F>
__device__ __forceinline__ void atomic_update(T* p, F f) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (sizeof(T) == 8) {
    auto* word = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *word, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(static_cast<void*>(&cur), &assumed, 8);
      const T next = f(cur);
      unsigned long long next_bits;
      memcpy(&next_bits, static_cast<const void*>(&next), 8);
      old = atomicCAS(word, assumed, next_bits);
    } while (assumed != old);
  } else {
    using Bits = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>;
    auto* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(reinterpret_cast<uintptr_t>(p) & 3) * 8u;
    const unsigned mask = static_cast<unsigned>(static_cast<Bits>(~Bits{0})) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const auto bits = static_cast<Bits>(assumed >> shift);
      T cur;
      memcpy(static_cast<void*>(&cur), &bits, sizeof(T));
      const T next = f(cur);
      Bits next_bits;
      memcpy(&next_bits, static_cast<const void*>(&next), sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (static_cast<unsigned int>(next_bits) << shift));
    } while (assumed != old);
  }
}

// *p = T(float(*p) + v) for T float16 or bfloat16 as one atomic step: each addition rounds to T,
// as the cpu's sequential adds do.
template <class T>
__device__ __forceinline__ void atomic_add_narrow(T* p, float v) {
  static_assert(sizeof(T) == 2);
  atomic_update(p, [v](T cur) { return narrow_from_float<T>(narrow_to_float(cur) + v); });
}

// Contiguous loop: R out[i] = f(C in_k[i * step_k]...).
template <class R, class C, int NIN, class F>
__global__ void contiguous_kernel(int64_t n, R* out, const C* in0, const C* in1, const C* in2, int s0, int s1, int s2,
                                  F f) {
  EMBER_GPU_GRID_STRIDE(i, n) {
    if constexpr (NIN == 0)
      out[i] = f();
    else if constexpr (NIN == 1)
      out[i] = f(in0[i * s0]);
    else if constexpr (NIN == 2)
      out[i] = f(in0[i * s0], in1[i * s1]);
    else
      out[i] = f(in0[i * s0], in1[i * s1], in2[i * s2]);
  }
}

template <class R, class C, int NIN, class F>
__global__ void general_kernel(Iter it, F f) {
  EMBER_GPU_GRID_STRIDE(i, it.numel) {
    int64_t off[1 + NIN] = {};
    int64_t rem = i;
    for (int d = 0; d < it.ndim; ++d) {
      const int64_t idx = rem % it.sizes[d];
      rem /= it.sizes[d];
#pragma unroll
      for (int k = 0; k <= NIN; ++k) off[k] += idx * it.strides[k][d];
    }
    R r;
    if constexpr (NIN == 0)
      r = f();
    else if constexpr (NIN == 1)
      r = f(load<C>(it.data[1] + off[1], it.dtype[1]));
    else if constexpr (NIN == 2)
      r = f(load<C>(it.data[1] + off[1], it.dtype[1]), load<C>(it.data[2] + off[2], it.dtype[2]));
    else
      r = f(load<C>(it.data[1] + off[1], it.dtype[1]), load<C>(it.data[2] + off[2], it.dtype[2]),
            load<C>(it.data[3] + off[3], it.dtype[3]));
    store<R>(it.data[0] + off[0], it.dtype[0], r);
  }
}

// Runs f over `it` (one output, NIN inputs): the contiguous loop when it applies, else the
// general one.
template <class R, class C, int NIN, class F>
bool run(const Iter& it, gpuStream_t stream, F f) {
  if (it.numel == 0) return true;
  bool contiguous = it.ndim <= 1 && it.dtype[0] == DtOf<R>::value;
  int step[3] = {1, 1, 1};
  for (int k = 1; k <= NIN && contiguous; ++k) {
    const int64_t s = it.ndim == 0 ? 0 : it.strides[k][0];
    contiguous = it.dtype[k] == DtOf<C>::value && (s == 0 || s == static_cast<int64_t>(sizeof(C)));
    step[k - 1] = s == 0 ? 0 : 1;
  }
  if (contiguous && it.ndim == 1 && it.strides[0][0] != static_cast<int64_t>(sizeof(R))) contiguous = false;
  const int grid = grid_size(it.numel);
  if (contiguous) {
    auto ptr = [&](int k) { return k <= NIN ? reinterpret_cast<const C*>(it.data[k]) : nullptr; };
    EMBER_GPU_LAUNCH((contiguous_kernel<R, C, NIN, F>), grid, kBlockSize, 0, stream, it.numel,
                     reinterpret_cast<R*>(it.data[0]), ptr(1), ptr(2), ptr(3), step[0], step[1], step[2], f);
  } else {
    EMBER_GPU_LAUNCH((general_kernel<R, C, NIN, F>), grid, kBlockSize, 0, stream, it, f);
  }
  return true;
}

// Calls fn(C{}) for the compute dtype (Half and BFloat16 compute in float); false for complex.
template <class Fn>
bool visit_compute(Dt dt, Fn&& fn) {
  switch (dt) {
    case Bool:
      return fn(bool{});
    case UInt8:
      return fn(uint8_t{});
    case Int8:
      return fn(int8_t{});
    case Int16:
      return fn(int16_t{});
    case Int32:
      return fn(int32_t{});
    case Int64:
      return fn(int64_t{});
    case Half:
    case BFloat16:
    case Float:
      return fn(float{});
    case Double:
      return fn(double{});
    default:
      return false;
  }
}

// The floating dtypes with their accumulation types (float for the 16-bit ones): calls
// f(T{}, Acc{}) and returns true, or returns false for any other dtype.
template <class F>
bool visit_floating(int8_t dtype, F&& f) {
  switch (dtype) {
    case Float:
      f(float{}, float{});
      return true;
    case Double:
      f(double{}, double{});
      return true;
    case Half:
      f(gpu_half{}, float{});
      return true;
    case BFloat16:
      f(gpu_bfloat16{}, float{});
      return true;
    default:
      return false;
  }
}

}  // namespace ember::gpu
