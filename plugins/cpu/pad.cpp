// Padding on the CPU: constant_pad_nd, reflection_pad{1,2,3}d and replication_pad{1,2,3}d with
// their out= forms and backwards (Note [Padding geometry] in ember/native/PadRules.h).
// The forwards move elements without arithmetic, so they run on the element's bytes (one
// instantiation per element size) and take every dtype their checks accept: output rows are
// written left edge, a memcpy of the row's inside, right edge, threaded over rows. The backwards
// add each output gradient into the input element it was read from, plane by plane (an input
// element receives from several outputs of its plane), in float32 for float16/bfloat16.
#include <algorithm>
#include <complex>
#include <cstring>

#include "CPUKernels.h"
#include "NN.h"
#include "Reduce.h"
#include "ember/native/PadRules.h"

namespace ember::cpu {
namespace {

using native::pad::PadGeom;

// An element of 16 bytes (complex128), copied as a whole.
struct Bytes16 {
  uint64_t lo, hi;
};

// f(a value of an unsigned type of n bytes): the forwards move elements by their size only.
template <class F>
decltype(auto) visit_size(size_t n, F&& f) {
  switch (n) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      return f(Bytes16{});
  }
}

// The input element output o reads along a dimension of n inputs with left pad lo.
EMBER_ALWAYS_INLINE int64_t source(int64_t o, int64_t lo, int64_t n, bool reflect) {
  const int64_t i = o - lo;
  if (reflect) return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
  return std::clamp<int64_t>(i, 0, n - 1);
}

std::vector<int64_t> source_map(int64_t out, int64_t lo, int64_t n, bool reflect) {
  std::vector<int64_t> m(out);
  for (int64_t o = 0; o < out; ++o) m[o] = source(o, lo, n, reflect);
  return m;
}

template <class T>
void pad_forward(const PadGeom& g, bool reflect, const T* in, T* out) {
  const int64_t W = g.in[2], oW = g.out[2], lw = g.lo[2];
  const std::vector<int64_t> wmap = source_map(oW, lw, W, reflect);
  // Outputs [m0, m1) read the inputs [m0 - lw, m1 - lw) in order.
  const int64_t m0 = std::clamp<int64_t>(lw, 0, oW), m1 = std::clamp<int64_t>(lw + W, m0, oW);
  const int64_t rows = g.planes * g.out[0] * g.out[1];
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(oW, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t oh = r % g.out[1], od = r / g.out[1] % g.out[0], p = r / (g.out[0] * g.out[1]);
      const int64_t id = source(od, g.lo[0], g.in[0], reflect), ih = source(oh, g.lo[1], g.in[1], reflect);
      const T* src = in + p * g.in_plane() + (id * g.in[1] + ih) * W;
      T* dst = out + r * oW;
      for (int64_t o = 0; o < m0; ++o) dst[o] = src[wmap[o]];
      if (m1 > m0) std::memcpy(dst + m0, src + (m0 - lw), static_cast<size_t>(m1 - m0) * sizeof(T));
      for (int64_t o = m1; o < oW; ++o) dst[o] = src[wmap[o]];
    }
  });
}

template <class T>
void pad_backward(const PadGeom& g, bool reflect, const T* go, T* gi) {
  const int64_t W = g.in[2], oW = g.out[2];
  const std::vector<int64_t> wmap = source_map(oW, g.lo[2], W, reflect);
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(g.out_plane(), 1)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t p = p0; p < p1; ++p)
                   for (int64_t od = 0; od < g.out[0]; ++od) {
                     const int64_t id = source(od, g.lo[0], g.in[0], reflect);
                     for (int64_t oh = 0; oh < g.out[1]; ++oh) {
                       const int64_t ih = source(oh, g.lo[1], g.in[1], reflect);
                       T* dst = gi + p * g.in_plane() + (id * g.in[1] + ih) * W;
                       const T* src = go + ((p * g.out[0] + od) * g.out[1] + oh) * oW;
                       for (int64_t o = 0; o < oW; ++o) dst[wmap[o]] += src[o];
                     }
                   }
               });
}

Tensor pad_impl(const char* op, int64_t nd, bool reflect, const Tensor& self, IntArrayRef padding) {
  const PadGeom g = native::pad::check_pad(op, kCPU, self, nd, padding, reflect);
  const Tensor x = self.is_contiguous() ? self : materialize(self);
  Tensor out = empty_cpu(g.out_shape, self.dtype());
  if (out.numel() > 0)
    visit_size(self.element_size(), [&](auto t) {
      using T = decltype(t);
      pad_forward(g, reflect, static_cast<const T*>(x.data_ptr()), static_cast<T*>(out.data_ptr()));
    });
  return out;
}

Tensor pad_backward_impl(const char* op, int64_t nd, bool reflect, const Tensor& grad_output, const Tensor& self,
                         IntArrayRef padding) {
  const PadGeom g = native::pad::check_pad_backward(op, kCPU, grad_output, self, nd, padding, reflect);
  const ScalarType ct = is_complex_type(self.dtype()) ? self.dtype() : nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  if (go.numel() > 0) {
    auto run = [&](auto t) {
      using T = decltype(t);
      pad_backward(g, reflect, static_cast<const T*>(go.data_ptr()), static_cast<T*>(gi.data_ptr()));
    };
    switch (ct) {
      case kFloat32:
        run(float{});
        break;
      case kFloat64:
        run(double{});
        break;
      case kComplex64:
        run(std::complex<float>{});
        break;
      default:
        run(std::complex<double>{});
        break;
    }
  }
  return nn::to_dtype_of(gi, self.dtype());
}

// The fill value's bytes in dtype dt (LibTorch's fill_ conversion: checked to fit); T has dt's
// size, so only the branches of that size copy.
template <class T>
T fill_value(const Scalar& value, ScalarType dt, const char* op) {
  T v{};
  auto put = [&](const auto& e) {
    if constexpr (sizeof(e) == sizeof(T)) std::memcpy(&v, &e, sizeof(T));
  };
  if (dt == kComplex64 || dt == kComplex128) {
    const std::complex<double> c = value.toComplexDouble();
    if (dt == kComplex64)
      put(std::complex<float>(static_cast<float>(c.real()), static_cast<float>(c.imag())));
    else
      put(c);
    return v;
  }
  visit_dtype(dt, op, [&](auto tag) { put(checked_scalar_to<typename decltype(tag)::type>(value, op)); });
  return v;
}

// Output rows (all dimensions but the last) read the input row at their index minus the left
// pads, or are all value where that row is outside the input.
template <class T>
void constant_pad(const Tensor& x, IntArrayRef pad, const T value, Tensor& out) {
  const int64_t dim = out.dim(), npad = static_cast<int64_t>(pad.size()) / 2;
  std::vector<int64_t> lo(dim, 0);
  for (int64_t i = 0; i < npad; ++i) lo[dim - 1 - i] = pad[2 * i];
  const std::vector<int64_t> isz(x.sizes().begin(), x.sizes().end()), osz(out.sizes().begin(), out.sizes().end());
  const int64_t W = dim == 0 ? 1 : isz[dim - 1], oW = dim == 0 ? 1 : osz[dim - 1], lw = dim == 0 ? 0 : lo[dim - 1];
  const int64_t m0 = std::clamp<int64_t>(lw, 0, oW), m1 = std::clamp<int64_t>(lw + W, m0, oW);
  const int64_t rows = oW == 0 ? 0 : out.numel() / oW;
  const T* in = static_cast<const T*>(x.data_ptr());
  T* o = static_cast<T*>(out.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(oW, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      // The input row of output row r, or -1.
      int64_t rem = r, src = 0, stride = 1;
      for (int64_t d = dim - 2; d >= 0 && src >= 0; --d) {
        const int64_t i = rem % osz[d] - lo[d];
        rem /= osz[d];
        if (i < 0 || i >= isz[d])
          src = -1;
        else
          src += i * stride, stride *= isz[d];
      }
      T* dst = o + r * oW;
      if (src < 0) {
        std::fill(dst, dst + oW, value);
        continue;
      }
      std::fill(dst, dst + m0, value);
      if (m1 > m0) std::memcpy(dst + m0, in + src * W + (m0 - lw), static_cast<size_t>(m1 - m0) * sizeof(T));
      std::fill(dst + m1, dst + oW, value);
    }
  });
}

Tensor constant_pad_impl(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const char* op = "constant_pad_nd";
  const std::vector<int64_t> shape = native::pad::constant_pad_shape(op, self, pad);
  EMBER_CHECK(self.device().type() == kCPU, "[{}] expected a CPU tensor, got one on {}", op, self.device());
  const Tensor x = self.is_contiguous() ? self : materialize(self);
  Tensor out = empty_cpu(shape, self.dtype());
  visit_size(self.element_size(), [&](auto t) {
    using T = decltype(t);
    const T v = fill_value<T>(value, self.dtype(), op);
    if (out.numel() > 0) constant_pad(x, pad, v, out);
  });
  return out;
}

}  // namespace

#include "ember/native/PadEntryPoints.inc"

}  // namespace ember::cpu
