#pragma once
// The metadata half of the index-shape kernels (scatter_reduce, the view scatters, index_add_,
// index_copy_, take, masked_scatter, tril/triu, roll, randperm, repeat_interleave, fill_):
// argument checks and result shapes, shared by the cpu kernels (plugins/cpu/index_shape.cpp,
// indexing.cpp, random.cpp) and the meta kernels (plugins/meta/index_shape.cpp), so both raise
// the same errors. What needs values (index bounds, repeat counts) is checked by the cpu alone.
#include <string_view>
#include <utility>

#include "ember/generated/Functions.h"
#include "ember/native/Rules.h"

namespace ember::native {

// ---- scatter_reduce -------------------------------------------------------------------------------

enum class ScatterReduce { Sum, Prod, Mean, Amax, Amin };

inline ScatterReduce scatter_reduce_kind(std::string_view reduce) {
  if (reduce == "sum") return ScatterReduce::Sum;
  if (reduce == "prod") return ScatterReduce::Prod;
  if (reduce == "mean") return ScatterReduce::Mean;
  if (reduce == "amax") return ScatterReduce::Amax;
  if (reduce == "amin") return ScatterReduce::Amin;
  EMBER_THROW(ValueError, "[scatter_reduce] reduce argument must be either sum, prod, mean, amax or amin, got '{}'",
              reduce);
}

// scatter_reduce's checks: the reduction and the wrapped dim.
inline std::pair<ScatterReduce, int64_t> check_scatter_reduce(DeviceType dev, const Tensor& self, int64_t dim,
                                                              const Tensor& index, const Tensor& src,
                                                              std::string_view reduce) {
  const ScatterReduce kind = scatter_reduce_kind(reduce);
  dim = maybe_wrap_dim(dim, self.dim(), "scatter_reduce");
  check_gather_scatter(dev, "scatter_reduce", self, dim, index, &src);
  EMBER_CHECK_NOT_IMPLEMENTED(!(kind == ScatterReduce::Mean && self.dtype() == kBool),
                              "[scatter_reduce] reduce 'mean' is not implemented for dtype bool");
  return {kind, dim};
}

// ---- select_scatter, slice_scatter, diagonal_scatter -----------------------------------------------

// src must have exactly the shape of self's view (no broadcasting, as LibTorch).
inline void check_view_scatter(const char* op, DeviceType dev, const Tensor& self, const Tensor& src,
                               const Tensor& view) {
  check_same_device(op, dev, self, src);
  EMBER_CHECK(view.sizes() == src.sizes(),
              "[{}] expected src to have a size equal to the slice of self. src size = {}, slice size = {}", op,
              src.sizes(), view.sizes());
}

// An out= argument of a kernel whose result has self's shape and dtype: checked and resized.
inline void prepare_same_out(const char* op, DeviceType dev, const Tensor& self, Tensor& out) {
  check_defined(op, out, "out");
  check_same_device(op, dev, self, out);
  check_out_dtype(op, out, self.dtype());
  resize_output(out, self.sizes(), op);
  check_out_writable(op, out);
}

// ---- index_add_, index_copy_, take -----------------------------------------------------------------

// index_add_'s (int64 or int32 index) and index_copy_'s (int64 index) checks; returns the wrapped
// dim. source has self's shape with the index's length at dim (a 0-d source stands for one element).
inline int64_t check_index_add_copy(DeviceType dev, const char* op, const Tensor& self, int64_t dim,
                                    const Tensor& index, const Tensor& source, bool int32_index) {
  check_same_device(op, dev, self, index);
  check_same_device(op, dev, self, source);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  EMBER_CHECK(index.dim() <= 1, "[{}] argument 'index': expected a 1-d or 0-d tensor, got {} dims", op, index.dim());
  if (int32_index)
    check_int_index(op, index, "index");
  else
    EMBER_CHECK_TYPE(index.dtype() == kInt64, "[{}] argument 'index': expected dtype int64, got {}", op,
                     index.dtype());
  EMBER_CHECK_TYPE(source.dtype() == self.dtype(), "[{}] argument 'source': expected dtype {} (self's), got {}", op,
                   self.dtype(), source.dtype());
  DimVector expected(self.sizes());
  if (self.dim() > 0) expected[dim] = index.numel();
  int64_t n = 1;
  for (int64_t s : expected) n *= s;
  const bool fits = source.sizes() == IntArrayRef(expected) || (source.numel() == 1 && n == 1 && source.dim() <= 1);
  EMBER_CHECK(fits && (self.dim() > 0 || index.numel() == 1),
              "[{}] argument 'source': expected shape {} (self's, with the index's {} elements at dim {}), got {}", op,
              IntArrayRef(expected), index.numel(), dim, source.sizes());
  check_writable(op, self);
  return dim;
}

inline void check_take(DeviceType dev, const Tensor& self, const Tensor& index) {
  check_same_device("take", dev, self, index);
  EMBER_CHECK_TYPE(index.dtype() == kInt64, "[take] argument 'index': expected dtype int64, got {}", index.dtype());
  EMBER_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, "[take] tried to take from an empty tensor");
}

// ---- masked_scatter, fill_, tril/triu, roll --------------------------------------------------------

// The functional masked_scatter: self and mask broadcast together (LibTorch's expand_outplace);
// returns the result's shape.
inline DimVector check_masked_scatter_functional(DeviceType dev, const Tensor& self, const Tensor& mask,
                                                 const Tensor& source) {
  check_same_device("masked_scatter", dev, self, mask);
  check_same_device("masked_scatter", dev, self, source);
  EMBER_CHECK_TYPE(is_mask_index(mask), "[masked_scatter] argument 'mask': expected dtype bool or uint8, got {}",
                   mask.dtype());
  EMBER_CHECK_TYPE(source.dtype() == self.dtype(),
                   "[masked_scatter] argument 'source': expected dtype {} (self's), got {}", self.dtype(),
                   source.dtype());
  return broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter");
}

inline void check_fill_value(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0,
              "[fill_] fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.", value.dim());
}

inline void check_tri(const char* op, const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "[{}] expected a tensor with at least 2 dimensions, but self is {}D", op, self.dim());
}

// roll's checks; returns the wrapped dims (empty: roll the flattened tensor by shifts[0]).
inline DimVector check_roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), "[roll] `shifts` required");
  EMBER_CHECK(shifts.size() == dims.size() || (dims.empty() && shifts.size() == 1),
              "[roll] shifts and dimensions must align. shifts: {}, dims: {}", shifts.size(), dims.size());
  DimVector r;
  for (int64_t d : dims) r.push_back(maybe_wrap_dim(d, self.dim(), "roll"));
  return r;
}

// ---- randperm, repeat_interleave -------------------------------------------------------------------

// randperm's dtype must hold n - 1 exactly (LibTorch's limits: 2049 for float16, 2^24 + 1 for
// float32, 2^53 + 1 for float64; bfloat16 is not limited); bool is not supported.
inline void check_randperm(int64_t n, ScalarType dt) {
  EMBER_CHECK(n >= 0, "[randperm] n must be non-negative, got {}", n);
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool && !is_complex_type(dt) && !is_quantized_type(dt),
                              "[randperm] not implemented for dtype {}", dt);
  int64_t limit = std::numeric_limits<int64_t>::max();
  switch (dt) {
    case kUInt8: limit = 256; break;
    case kInt8: limit = 128; break;
    case kInt16: limit = 32768; break;
    case kInt32: limit = int64_t{1} << 31; break;
    case kFloat16: limit = 2049; break;
    case kFloat32: limit = (int64_t{1} << 24) + 1; break;
    case kFloat64: limit = (int64_t{1} << 53) + 1; break;
    default: break;
  }
  EMBER_CHECK(n <= limit, "[randperm] n cannot be greater than {} for dtype {}", limit, dt);
}

// repeat_interleave(repeats)'s checks before the values are read.
inline void check_repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  check_defined("repeat_interleave", repeats, "repeats");
  EMBER_CHECK(repeats.dim() == 1, "[repeat_interleave] repeat_interleave only accept 1D vector as repeat, got {}D",
              repeats.dim());
  check_int_index("repeat_interleave", repeats, "repeats");
  EMBER_CHECK(output_size.value_or(0) >= 0, "[repeat_interleave] output_size must be non-negative, got {}",
              *output_size);
}

}  // namespace ember::native
