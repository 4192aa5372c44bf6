// Shape operators that copy data: cat, flip, linspace, eye. The views and the device-generic
// shape composites (permute, squeeze, split, flatten, stack, repeat, ...) live in libember
// (api/src/native/shape.cpp).
#include <bitset>

#include "Loops.h"
#include "CPUKernels.h"
#include "ember/native/Rules.h"
#include "ember/generated/Functions.h"

namespace ember::cpu {
namespace {

using native::wrap_dims;

using native::cat_skips;

}  // namespace










// ---- copies (CPU) ------------------------------------------------------------------------------

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const native::CatShape cs =
      native::cat_shape(tensors, dim, [](const Tensor& a, const Tensor& b) { check_cpu("cat", a, b); });
  const ScalarType dtype = cs.dtype;
  const DimVector& sz = cs.sizes;
  const int64_t d = cs.dim;
  if (cs.all_skipped) return empty_cpu({0}, dtype);  // every input is a skipped 1-d empty
  Tensor out = empty_cpu(sz, dtype);
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    if (cat_skips(t)) continue;
    if (t.numel() > 0) {
      Tensor part = ember::slice(out, d, at, at + t.size(d), 1);
      cpu::copy_(part, t, false);
    }
    at += t.size(d);
  }
  return out;
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  check_defined("flip", self, "self");
  check_cpu("flip", self);
  const DimVector w = wrap_dims(dims, self.dim(), "flip");
  Tensor out = ember::empty_like(self);
  const int64_t n = self.numel();
  if (n == 0) return out;
  // Walks out's elements in logical order; the source index runs backwards along flipped dims.
  // Elements are moved as opaque words of the dtype's size, so every dtype shares four loops.
  const int64_t nd = self.dim();
  DimVector sizes(self.sizes()), src_st(self.strides()), dst_st(out.strides());
  int64_t src_off = 0;
  for (int64_t d : w) {
    if (nd == 0) break;  // a 0-dim tensor accepts dim 0 and -1; there is nothing to reverse
    src_off += (sizes[d] - 1) * src_st[d];
    src_st[d] = -src_st[d];
  }
  auto run = [&](auto word) {
    using W = decltype(word);
    const W* src = static_cast<const W*>(self.data_ptr());
    W* dst = static_cast<W*>(out.data_ptr());
    DimVector idx(static_cast<size_t>(nd), 0);
    int64_t so = src_off, dof = 0;
    for (int64_t i = 0; i < n; ++i) {
      dst[dof] = src[so];
      for (int64_t d = nd - 1; d >= 0; --d) {
        so += src_st[d];
        dof += dst_st[d];
        if (++idx[d] < sizes[d]) break;
        so -= src_st[d] * sizes[d];
        dof -= dst_st[d] * sizes[d];
        idx[d] = 0;
      }
    }
  };
  struct Word16 {
    uint64_t lo, hi;
  };
  switch (self.itemsize()) {
    case 1:
      run(uint8_t{});
      break;
    case 2:
      run(uint16_t{});
      break;
    case 4:
      run(uint32_t{});
      break;
    case 8:
      run(uint64_t{});
      break;
    case 16:
      run(Word16{});
      break;
    default:
      EMBER_INTERNAL_ASSERT(false, "[flip] unexpected element size {}", self.itemsize());
  }
  return out;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype, OptLayout layout,
                OptDevice device, OptBool pin_memory) {
  check_factory("linspace", layout, device, pin_memory);
  EMBER_CHECK(steps >= 0, "[linspace] number of steps must be non-negative, got {}", steps);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  if (dt == kBool) throw_unsupported_dtype("linspace", dt);
  const Tensor result = visit_dtype(dt, "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // PyTorch's step type: double for integers, the dtype itself otherwise (float for the
    // reduced floats, which PyTorch rounds at each step; Ember keeps float precision).
    using Step = std::conditional_t<std::is_integral_v<T>, double, std::conditional_t<is_reduced_float_v<T>, float, T>>;
    Tensor out = empty_cpu({steps}, dt);
    T* p = static_cast<T*>(out.data_ptr());
    if (steps == 1) p[0] = scalar_to<T>(start);
    if (steps <= 1) return out;
    const auto a = static_cast<Step>(scalar_to<std::conditional_t<is_reduced_float_v<T>, float, T>>(start));
    const auto b = static_cast<Step>(scalar_to<std::conditional_t<is_reduced_float_v<T>, float, T>>(end));
    const Step step = (b - a) / static_cast<Step>(steps - 1);
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i)
      p[i] = convert<T>(i < half ? a + step * static_cast<Step>(i) : b - step * static_cast<Step>(steps - i - 1));
    return out;
  });
  return pinned_result(result, pin_memory);
}

Tensor eye_m(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_factory("eye", layout, device, pin_memory);
  native::check_eye(n, m);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  Tensor out = empty_cpu({n, m}, dt);
  cpu::zero_(out);
  visit_dtype(dt, "eye", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * (m + 1)] = convert<T>(1);
  });
  return pinned_result(out, pin_memory);
}

Tensor eye(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return cpu::eye_m(n, n, dtype, layout, device, pin_memory);
}



}  // namespace ember::cpu
