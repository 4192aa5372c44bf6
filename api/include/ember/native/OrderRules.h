#pragma once
// Argument checks and output shapes of the order statistics (kthvalue, median, nanmedian, mode),
// unique, searchsorted/bucketize and the vector products dot and mv, shared by the cpu kernels
// (plugins/cpu/order.cpp) and the meta kernels (plugins/meta/order.cpp). Dtypes follow LibTorch
// 1.13's CPU kernels.
#include <optional>
#include <string_view>

#include "ember/native/Rules.h"

namespace ember::native::order {

// A reduction along one dim that picks an element (kthvalue, median.dim, mode): the wrapped dim
// and the values' shape. all_dtypes: the ten real dtypes (mode); otherwise bool and float16 are
// rejected, as by LibTorch's kthvalue/median kernels.
struct Pick {
  int64_t dim = 0;
  DimVector shape;
};

inline Pick check_pick(const char* op, const Tensor& self, int64_t dim, bool keepdim, bool all_dtypes) {
  check_defined(op, self, "self");
  const ScalarType dt = self.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(all_dtypes || (dt != kBool && dt != kFloat16),
                              "[{}] not implemented for dtype {} on the CPU", op, dt);
  const int64_t w = maybe_wrap_dim(dim, self.dim(), op);
  EMBER_CHECK_INDEX(self.dim() == 0 || self.size(w) > 0, "[{}] Expected reduction dim {} to have non-zero size.", op,
                    w);
  const SmallVector<bool, 8> red = reduced_mask(self, IntArrayRef(&w, 1), op);
  return {w, reduced_shape(self, red, keepdim)};
}

inline Pick check_kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const char* op = "kthvalue";
  Pick p = check_pick(op, self, dim, keepdim, false);
  const int64_t n = self.dim() == 0 ? 1 : self.size(p.dim);
  EMBER_CHECK_INDEX(k >= 1 && k <= n,
                    "[{}] argument 'k': selected number k out of range for dimension {} (expected 1 <= k <= {}, got "
                    "{})",
                    op, p.dim, n, k);
  return p;
}

// median/nanmedian over every element: 0-d; bool and float16 rejected.
inline void check_median_all(const char* op, const Tensor& self) {
  check_defined(op, self, "self");
  const ScalarType dt = self.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool && dt != kFloat16, "[{}] not implemented for dtype {} on the CPU", op, dt);
}

// _unique2, unique_dim, unique_consecutive: every dtype but float16 (LibTorch's "unique" kernel).
inline void check_unique(const char* op, const Tensor& self) {
  check_defined(op, self, "self");
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != kFloat16, "[{}] not implemented for dtype {} on the CPU", op,
                              self.dtype());
}

// unique along `dim`: the wrapped dim; the other dims must not be empty (there is nothing to
// compare slices by).
inline int64_t check_unique_dim(const char* op, const Tensor& self, int64_t dim) {
  check_unique(op, self);
  const int64_t w = maybe_wrap_dim(dim, self.dim(), op);
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(d == w || self.size(d) > 0,
                "[{}] There are 0 sized dimensions, and they aren't selected, so unique cannot be applied", op);
  return w;
}

// searchsorted: whether it finds the right edge; checks side/right, the boundaries' shape against
// the values' (1-D, or the values' leading dims), the sorter and the dtypes (not bool).
inline bool check_searchsorted(const char* op, const Tensor& sorted_sequence, IntArrayRef values_shape,
                               ScalarType values_dtype, bool right, std::optional<std::string_view> side,
                               const std::optional<Tensor>& sorter) {
  check_defined(op, sorted_sequence, "sorted_sequence");
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right", "[{}] side can only be 'left' or 'right' but got {}", op, *side);
    EMBER_CHECK(!right || *side == "right",
                "[{}] side and right can't be set to opposites, got side of {} while right was True", op, *side);
  }
  const IntArrayRef b = sorted_sequence.sizes();
  EMBER_CHECK(b.size() >= 1, "[{}] boundaries tensor should have at least 1 dimension, got a 0-d tensor", op);
  const bool one_d = b.size() == 1;
  EMBER_CHECK(one_d || (b.size() == values_shape.size() &&
                        b.slice(0, b.size() - 1) == values_shape.slice(0, values_shape.size() - 1)),
              "[{}] boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and "
              "input value tensor must match, but we got boundaries tensor {} and input value tensor {}",
              op, b, values_shape);
  for (ScalarType dt : {sorted_sequence.dtype(), values_dtype})
    EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool, "[{}] not implemented for dtype {} on the CPU", op, dt);
  if (sorter && sorter->defined()) {
    EMBER_CHECK_TYPE(sorter->dtype() == kInt64, "[{}] argument 'sorter': expected an int64 tensor, got {}", op,
                     sorter->dtype());
    EMBER_CHECK(sorter->sizes() == b,
                "[{}] boundary and sorter must have the same size, but got boundary tensor {} and sorter tensor {}", op,
                b, sorter->sizes());
  }
  return right || (side && *side == "right");
}

// dot: two 1-D tensors of one dtype and length; not bool or float16.
inline void check_dot(const char* op, const Tensor& self, const Tensor& other) {
  check_defined(op, self, "self");
  check_defined(op, other, "tensor");
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "[{}] 1D tensors expected, but got {}D and {}D tensors", op,
              self.dim(), other.dim());
  EMBER_CHECK(self.numel() == other.numel(),
              "[{}] inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements",
              op, self.numel(), other.numel());
  EMBER_CHECK_TYPE(self.dtype() == other.dtype(), "[{}] expected both vectors to have same dtype, but found {} and {}",
                   op, self.dtype(), other.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != kBool && self.dtype() != kFloat16,
                              "[{}] not implemented for dtype {} on the CPU", op, self.dtype());
}

// mv: (n, m) @ (m) of one dtype; not bool or float16.
inline void check_mv(const char* op, const Tensor& self, const Tensor& vec) {
  check_defined(op, self, "self");
  check_defined(op, vec, "vec");
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "[{}] vector + matrix @ vector expected, got {}, {}", op, self.dim(),
              vec.dim());
  EMBER_CHECK(self.size(1) == vec.size(0), "[{}] size mismatch, got {}x{},{}", op, self.size(0), self.size(1),
              vec.size(0));
  EMBER_CHECK_TYPE(self.dtype() == vec.dtype(), "[{}] expected self and vec of the same dtype, got {} and {}", op,
                   self.dtype(), vec.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != kBool && self.dtype() != kFloat16,
                              "[{}] not implemented for dtype {} on the CPU", op, self.dtype());
}

}  // namespace ember::native::order
