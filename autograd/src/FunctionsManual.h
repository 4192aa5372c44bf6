#pragma once
// Bootstrap helpers (replaced by the full set).
#include "ember/ember.h"

namespace ember::autograd::generated::details {
Tensor sum_to(const Tensor& g, IntArrayRef shape);
inline Tensor handle_r_to_c(ScalarType, Tensor t) { return t; }
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
}  // namespace ember::autograd::generated::details
