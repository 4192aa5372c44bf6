// Meta Core ATen nn kernels (plugins/cpu/nn_core.cpp and norm.cpp): softmax and its backward,
// _native_batch_norm_legit, native_group_norm, native_dropout, embedding_dense_backward,
// _embedding_bag, cdist and pdist, with the cpu kernels' checks and shapes
// (ember/native/NNCoreRules.h). Checks on values (index ranges, offsets) need data: skipped here.
#include "MetaHelpers.h"
#include "ember/native/NNCoreRules.h"

namespace ember::meta {

namespace nn = native::nn;

Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  nn::check_softmax("_softmax", kMeta, self, dim, half_to_float);
  return empty_meta(self.sizes(), self.dtype());
}
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  nn::check_softmax("_log_softmax", kMeta, self, dim, half_to_float);
  return empty_meta(self.sizes(), self.dtype());
}
Tensor& _softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  const Tensor r = meta::_softmax(self, dim, half_to_float);
  check_out("_softmax", out, self.dtype());
  return write_out(out, r, "_softmax");
}
Tensor& _log_softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  const Tensor r = meta::_log_softmax(self, dim, half_to_float);
  check_out("_log_softmax", out, self.dtype());
  return write_out(out, r, "_log_softmax");
}
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  nn::check_softmax_backward("_softmax_backward_data", kMeta, grad_output, output, dim, input_dtype);
  return empty_meta(grad_output.sizes(), grad_output.dtype());
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  nn::check_softmax_backward("_log_softmax_backward_data", kMeta, grad_output, output, dim, input_dtype);
  return empty_meta(grad_output.sizes(), grad_output.dtype());
}

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(const Tensor& input, const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias, Tensor& running_mean,
                                                            Tensor& running_var, bool training, double momentum,
                                                            double eps) {
  return meta::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_stats(const Tensor& input,
                                                                     const std::optional<Tensor>& weight,
                                                                     const std::optional<Tensor>& bias, bool training,
                                                                     double momentum, double eps) {
  return meta::native_batch_norm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps) {
  return meta::native_batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps);
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double /*eps*/) {
  nn::check_group_norm("native_group_norm", kMeta, input, weight, bias, N, C, HxW, group);
  const ScalarType dt = input.dtype();
  return {empty_meta(input.sizes(), dt), empty_meta({N, group}, dt), empty_meta({N, group}, dt)};
}
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const std::optional<Tensor>& weight, int64_t N, int64_t C,
                                                              int64_t HxW, int64_t group,
                                                              std::array<bool, 3> output_mask) {
  nn::check_group_norm_backward("native_group_norm_backward", kMeta, grad_out, input, mean, rstd, weight, N, C, HxW,
                                group);
  const ScalarType dt = input.dtype();
  return {empty_if(output_mask[0], input.sizes(), dt), empty_if(output_mask[1], {C}, dt),
          empty_if(output_mask[2], {C}, dt)};
}

// Random values: the meta result has the cpu's shapes and dtypes.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  nn::check_native_dropout("native_dropout", kMeta, input, p, train);
  return {empty_meta(input.sizes(), input.dtype()), empty_meta(input.sizes(), kBool)};
}
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double /*scale*/) {
  nn::check_native_dropout_backward("native_dropout_backward", kMeta, grad_output, mask);
  return empty_meta(grad_output.sizes(), grad_output.dtype());
}

Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/) {
  const int64_t D =
      nn::check_embedding_dense_backward("embedding_dense_backward", kMeta, grad_output, indices, num_weights);
  return empty_meta({num_weights, D}, grad_output.dtype());
}

// Note [Embedding bag outputs] in plugins/cpu/nn_core.cpp.
std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag(const Tensor& weight, const Tensor& indices,
                                                          const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                                                          bool /*sparse*/,
                                                          const std::optional<Tensor>& per_sample_weights,
                                                          bool include_last_offset, int64_t /*padding_idx*/) {
  const auto s = nn::check_embedding_bag("_embedding_bag", kMeta, weight, indices, offsets, scale_grad_by_freq, mode,
                                         per_sample_weights, include_last_offset);
  const ScalarType it = indices.dtype();
  Tensor max_indices = mode == nn::kBagMax ? empty_meta({s.bags, s.dim}, it) : empty_meta({s.bags}, it);
  return {empty_meta({s.bags, s.dim}, weight.dtype()), empty_meta({indices.numel()}, it), empty_meta({s.bags}, it),
          max_indices};
}
Tensor _embedding_bag_backward(const Tensor& grad, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                               const Tensor&, int64_t num_weights, bool, int64_t mode, bool sparse,
                               const std::optional<Tensor>&, int64_t) {
  const char* op = "_embedding_bag_backward";
  nn::check_embedding_bag_backward(op, kMeta, grad, mode, sparse);
  return empty_meta({num_weights, grad.size(1)}, grad.dtype());
}
Tensor _embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                  const Tensor&, const Tensor&, int64_t mode, int64_t) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  nn::check_embedding_bag_psw_backward(op, kMeta, grad, weight, mode);
  return empty_meta({indices.numel()}, grad.dtype());
}

Tensor _cdist_forward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  return empty_meta(nn::check_cdist("_cdist_forward", kMeta, x1, x2, p, compute_mode), x1.dtype());
}
Tensor _cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  const char* op = "_cdist_backward";
  nn::check_cdist_backward(op, kMeta, grad, x1, x2, p, cdist);
  return empty_meta(x1.sizes(), x1.dtype());
}
Tensor _pdist_forward(const Tensor& self, double p) {
  return empty_meta({nn::check_pdist("_pdist_forward", kMeta, self, p)}, self.dtype());
}
Tensor _pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  const char* op = "_pdist_backward";
  nn::check_pdist_backward(op, kMeta, grad, self, p, pdist);
  return empty_meta(self.sizes(), self.dtype());
}

}  // namespace ember::meta
