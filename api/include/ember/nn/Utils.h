#pragma once
// ember::nn::utils (LibTorch's torch::nn::utils): gradient clipping and flattening parameters
// into one vector.
#include <initializer_list>
#include <vector>

#include "ember/dispatcher/Tensor.h"

namespace ember::nn::utils {

// Scales the gradients of `parameters` in place so that their total norm_type-norm (the norm of
// the per-gradient norms; infinity: the largest magnitude) is at most max_norm: each is
// multiplied by min(1, max_norm / (total + 1e-6)). Returns the total norm before clipping (0
// when no parameter has a gradient). A non-finite total is an error when error_if_nonfinite.
EMBER_API double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                                 bool error_if_nonfinite = false);
inline double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type = 2.0,
                              bool error_if_nonfinite = false) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}
inline double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                              bool error_if_nonfinite = false) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

// Clamps every gradient of `parameters` to [-clip_value, clip_value] in place.
EMBER_API void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
inline void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}
inline void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

// The parameters flattened and concatenated into one 1-D tensor (all on one device).
EMBER_API Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
// Makes each parameter a view of its slice of `vec` (the inverse of parameters_to_vector); each
// keeps its identity and requires_grad.
EMBER_API void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
