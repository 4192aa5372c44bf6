#pragma once
// Argument checks and output shapes of the Core ATen nn kernels (softmax and its backward,
// native_dropout, native_group_norm, embedding_dense_backward, _embedding_bag, _cdist_forward,
// _pdist_forward and their backwards), shared by the cpu kernels (plugins/cpu/nn_core.cpp) and the
// meta kernels (plugins/meta/nn_core.cpp), so both give the same sizes and errors. Dtypes follow
// LibTorch 1.13's CPU kernels: what it rejects we reject, with the same kind of error.
#include <optional>
#include <vector>

#include "ember/native/NNRules.h"

namespace ember::native::nn {

// ---- softmax ---------------------------------------------------------------------------------

// _softmax/_log_softmax on the CPU: float32, float64 and bfloat16 (LibTorch's kernel has no
// float16), no half-to-float conversion. Returns the wrapped dim.
inline int64_t check_softmax(const char* op, DeviceType dev, const Tensor& self, int64_t dim, bool half_to_float) {
  check_defined(op, self, "self");
  check_on(op, dev, self);
  EMBER_CHECK_NOT_IMPLEMENTED(!half_to_float, "[{}] softmax with half to float conversion is not supported on CPU", op);
  const ScalarType dt = self.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == kFloat32 || dt == kFloat64 || dt == kBFloat16,
                              "[{}] not implemented for dtype {} on the CPU", op, dt);
  return maybe_wrap_dim(dim, self.dim(), op);
}

// _softmax_backward_data/_log_softmax_backward_data: grad_output and output of one shape and dtype;
// the result takes that dtype (input_dtype may differ only as LibTorch's CPU kernel allows: not
// float16 under a float32 gradient, its CUDA-only half-to-float case). Returns the wrapped dim.
inline int64_t check_softmax_backward(const char* op, DeviceType dev, const Tensor& grad_output, const Tensor& output,
                                      int64_t dim, ScalarType input_dtype) {
  check_defined(op, grad_output, "grad_output");
  check_defined(op, output, "output");
  check_on(op, dev, grad_output, output);
  EMBER_CHECK(grad_output.sizes() == output.sizes(),
              "[{}] expected grad_output and output of the same shape, got {} and {}", op, grad_output.sizes(),
              output.sizes());
  EMBER_CHECK_TYPE(grad_output.dtype() == output.dtype(),
                   "[{}] expected grad_output and output of the same dtype, got {} and {}", op, grad_output.dtype(),
                   output.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(input_dtype == grad_output.dtype() || input_dtype != kFloat16,
                              "[{}] softmax backward with half to float conversion is not supported on CPU", op);
  const ScalarType dt = grad_output.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == kFloat32 || dt == kFloat64 || dt == kBFloat16,
                              "[{}] not implemented for dtype {} on the CPU", op, dt);
  return maybe_wrap_dim(dim, grad_output.dim(), op);
}

// ---- dropout ---------------------------------------------------------------------------------

// native_dropout: whether it draws a mask (train, which None means); checks p and the dtype.
inline bool check_native_dropout(const char* op, DeviceType dev, const Tensor& input, double p,
                                 std::optional<bool> train) {
  check_defined(op, input, "input");
  check_on(op, dev, input);
  EMBER_CHECK(p >= 0 && p <= 1, "[{}] argument 'p': dropout probability has to be between 0 and 1, but got {}", op, p);
  const bool active = train.value_or(true);
  EMBER_CHECK_TYPE(!active || input.is_floating_point(),
                   "[{}] argument 'input': expected a floating point tensor in training, got {}", op, input.dtype());
  return active;
}

inline void check_native_dropout_backward(const char* op, DeviceType dev, const Tensor& grad_output,
                                          const Tensor& mask) {
  check_defined(op, grad_output, "grad_output");
  check_defined(op, mask, "mask");
  check_on(op, dev, grad_output, mask);
  EMBER_CHECK_TYPE(grad_output.is_floating_point(),
                   "[{}] argument 'grad_output': expected a floating point tensor, got {}", op, grad_output.dtype());
  EMBER_CHECK_TYPE(mask.dtype() == kBool, "[{}] argument 'mask': expected a bool tensor, got {}", op, mask.dtype());
  EMBER_CHECK(mask.sizes() == grad_output.sizes(), "[{}] argument 'mask': expected shape {} (grad_output's), got {}",
              op, grad_output.sizes(), mask.sizes());
}

// ---- group norm ------------------------------------------------------------------------------

// native_group_norm over input viewed as (N, C, HxW): float32, float64, bfloat16 (LibTorch's CPU
// kernel has no float16); weight and bias of C elements in input's dtype.
inline void check_group_norm(const char* op, DeviceType dev, const Tensor& input, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW, int64_t group) {
  check_defined(op, input, "input");
  check_on(op, dev, input);
  const ScalarType dt = input.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == kFloat32 || dt == kFloat64 || dt == kBFloat16,
                              "[{}] not implemented for dtype {} on the CPU", op, dt);
  EMBER_CHECK(group > 0, "[{}] argument 'group': expected num groups to be greater than 0, got {}", op, group);
  EMBER_CHECK(N >= 0 && C >= 0 && HxW >= 0 && input.numel() == N * C * HxW,
              "[{}] expected input of N * C * HxW = {} * {} * {} elements, got shape {}", op, N, C, HxW, input.sizes());
  EMBER_CHECK(C % group == 0,
              "[{}] expected the number of channels of input {} to be divisible by num_groups, got num_groups={}", op,
              input.sizes(), group);
  for (const auto& [t, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!*t || !(*t)->defined()) continue;
    check_on(op, dev, **t);
    EMBER_CHECK((*t)->dim() == 1 && (*t)->numel() == C,
                "[{}] argument '{}': expected a vector of {} elements (the input's channels), got shape {}", op, name,
                C, (*t)->sizes());
    EMBER_CHECK_TYPE((*t)->dtype() == dt, "[{}] argument '{}': expected dtype {} (input's), got {}", op, name, dt,
                     (*t)->dtype());
  }
}

inline void check_group_norm_backward(const char* op, DeviceType dev, const Tensor& grad_out, const Tensor& input,
                                      const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
                                      int64_t N, int64_t C, int64_t HxW, int64_t group) {
  check_group_norm(op, dev, input, weight, std::nullopt, N, C, HxW, group);
  for (const auto& [t, name] : {std::pair{&grad_out, "grad_out"}, std::pair{&mean, "mean"}, std::pair{&rstd, "rstd"}}) {
    check_defined(op, *t, name);
    check_on(op, dev, *t);
    EMBER_CHECK_TYPE(t->dtype() == input.dtype(), "[{}] argument '{}': expected dtype {} (input's), got {}", op, name,
                     input.dtype(), t->dtype());
  }
  EMBER_CHECK(grad_out.sizes() == input.sizes(), "[{}] argument 'grad_out': expected shape {} (input's), got {}", op,
              input.sizes(), grad_out.sizes());
  EMBER_CHECK(mean.numel() == N * group && rstd.numel() == N * group,
              "[{}] expected mean and rstd of N * group = {} elements, got shapes {} and {}", op, N * group,
              mean.sizes(), rstd.sizes());
}

// ---- embeddings ------------------------------------------------------------------------------

inline void check_index_dtype(const char* op, const Tensor& t, const char* name) {
  EMBER_CHECK_TYPE(t.dtype() == kInt64 || t.dtype() == kInt32,
                   "[{}] argument '{}': expected an int64 or int32 tensor, got {}", op, name, t.dtype());
}

// embedding_dense_backward: grad_output (*indices.shape, D); returns D.
inline int64_t check_embedding_dense_backward(const char* op, DeviceType dev, const Tensor& grad_output,
                                              const Tensor& indices, int64_t num_weights) {
  check_defined(op, grad_output, "grad_output");
  check_defined(op, indices, "indices");
  check_on(op, dev, grad_output, indices);
  check_index_dtype(op, indices, "indices");
  EMBER_CHECK(num_weights >= 0, "[{}] argument 'num_weights': expected a non-negative value, got {}", op, num_weights);
  EMBER_CHECK(grad_output.dim() == indices.dim() + 1 &&
                  grad_output.sizes().slice(0, static_cast<size_t>(indices.dim())) == indices.sizes(),
              "[{}] argument 'grad_output': expected shape {} + [embedding_dim] (indices' shape), got {}", op,
              indices.sizes(), grad_output.sizes());
  return grad_output.size(-1);
}

enum EmbeddingBagMode : int64_t { kBagSum = 0, kBagMean = 1, kBagMax = 2 };

struct BagShape {
  int64_t bags = 0, dim = 0;
};

// _embedding_bag: weight (rows, D) float32/float64/bfloat16/float16, 1-D int indices and offsets of
// one dtype, per_sample_weights (sum mode) of indices' shape and weight's dtype.
inline BagShape check_embedding_bag(const char* op, DeviceType dev, const Tensor& weight, const Tensor& indices,
                                    const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                                    const std::optional<Tensor>& per_sample_weights, bool include_last_offset) {
  check_defined(op, weight, "weight");
  check_defined(op, indices, "indices");
  check_defined(op, offsets, "offsets");
  check_on(op, dev, weight, indices);
  check_on(op, dev, offsets);
  EMBER_CHECK(weight.dim() == 2, "[{}] argument 'weight': expected a 2-D (num_embeddings, dim) tensor, got shape {}",
              op, weight.sizes());
  EMBER_CHECK_TYPE(weight.is_floating_point(), "[{}] argument 'weight': expected a floating point tensor, got {}", op,
                   weight.dtype());
  check_index_dtype(op, indices, "indices");
  check_index_dtype(op, offsets, "offsets");
  EMBER_CHECK_TYPE(indices.dtype() == offsets.dtype(),
                   "[{}] expected indices and offsets of the same dtype, got {} and {}", op, indices.dtype(),
                   offsets.dtype());
  EMBER_CHECK(indices.dim() == 1, "[{}] argument 'indices': expected a 1-D tensor, got shape {}", op, indices.sizes());
  EMBER_CHECK(offsets.dim() == 1, "[{}] argument 'offsets': expected a 1-D tensor, got shape {}", op, offsets.sizes());
  EMBER_CHECK(mode == kBagSum || mode == kBagMean || mode == kBagMax,
              "[{}] argument 'mode': expected 0 (sum), 1 (mean) or 2 (max), got {}", op, mode);
  EMBER_CHECK(!scale_grad_by_freq || mode != kBagMax,
              "[{}] max mode does not support scaling the gradient by the frequency (scale_grad_by_freq)", op);
  if (per_sample_weights && per_sample_weights->defined()) {
    check_on(op, dev, *per_sample_weights);
    EMBER_CHECK(mode == kBagSum, "[{}] per_sample_weights is only supported with mode 0 (sum), got mode {}", op, mode);
    EMBER_CHECK(per_sample_weights->sizes() == indices.sizes(),
                "[{}] argument 'per_sample_weights': expected the shape of indices {}, got {}", op, indices.sizes(),
                per_sample_weights->sizes());
    EMBER_CHECK_TYPE(per_sample_weights->dtype() == weight.dtype(),
                     "[{}] argument 'per_sample_weights': expected dtype {} (weight's), got {}", op, weight.dtype(),
                     per_sample_weights->dtype());
  }
  EMBER_CHECK(!include_last_offset || offsets.numel() >= 1,
              "[{}] argument 'offsets': expected at least one offset with include_last_offset", op);
  return {include_last_offset ? offsets.numel() - 1 : offsets.numel(), weight.size(1)};
}

// _embedding_bag's k offsets (over n indices): the first 0, the last at most n, non-decreasing.
inline void check_bag_offsets(const char* op, const int64_t* o, int64_t k, int64_t n) {
  if (k == 0) return;
  EMBER_CHECK(o[0] == 0,
              "[{}] offsets[0] has to be 0, i.e. the first bag has to start at position 0 of indices, got {}", op,
              o[0]);
  EMBER_CHECK(o[k - 1] <= n, "[{}] offsets[-1] can not be greater than the length of indices ({}), got {}", op, n,
              o[k - 1]);
  for (int64_t b = 1; b < k; ++b)
    EMBER_CHECK(o[b] >= o[b - 1], "[{}] argument 'offsets': expected non-decreasing values, got {} after {}", op, o[b],
                o[b - 1]);
}

// _embedding_bag_backward: a dense weight gradient, grad (bags, dim) and a known mode.
inline void check_embedding_bag_backward(const char* op, DeviceType dev, const Tensor& grad, int64_t mode,
                                         bool sparse) {
  EMBER_CHECK_NOT_IMPLEMENTED(!sparse, "[{}] sparse=True (a sparse weight gradient) is not implemented", op);
  check_defined(op, grad, "grad");
  check_on(op, dev, grad);
  EMBER_CHECK(grad.dim() == 2, "[{}] argument 'grad': expected a 2-D (bags, dim) tensor, got shape {}", op,
              grad.sizes());
  EMBER_CHECK(mode == kBagSum || mode == kBagMean || mode == kBagMax,
              "[{}] argument 'mode': expected 0 (sum), 1 (mean) or 2 (max), got {}", op, mode);
}

// _embedding_bag_per_sample_weights_backward: sum mode, grad (bags, dim) and weight (rows, dim).
inline void check_embedding_bag_psw_backward(const char* op, DeviceType dev, const Tensor& grad, const Tensor& weight,
                                             int64_t mode) {
  EMBER_CHECK(mode == kBagSum, "[{}] per_sample_weights is only supported with mode 0 (sum), got mode {}", op, mode);
  check_defined(op, grad, "grad");
  check_defined(op, weight, "weight");
  check_on(op, dev, grad, weight);
  EMBER_CHECK(grad.dim() == 2 && weight.dim() == 2 && grad.size(1) == weight.size(1),
              "[{}] expected grad (bags, dim) and weight (rows, dim) of one dim, got shapes {} and {}", op,
              grad.sizes(), weight.sizes());
}

// ---- distances -------------------------------------------------------------------------------

// _cdist_forward: x1 (..., P, M), x2 (..., R, M) of one floating dtype (float32, float64), batch
// dimensions broadcast; returns the result's shape (..., P, R).
inline std::vector<int64_t> check_cdist(const char* op, DeviceType dev, const Tensor& x1, const Tensor& x2, double p,
                                        std::optional<int64_t> compute_mode) {
  check_defined(op, x1, "x1");
  check_defined(op, x2, "x2");
  check_on(op, dev, x1, x2);
  EMBER_CHECK(x1.dim() >= 2, "[{}] cdist only supports at least 2D tensors, X1 got: {}D", op, x1.dim());
  EMBER_CHECK(x2.dim() >= 2, "[{}] cdist only supports at least 2D tensors, X2 got: {}D", op, x2.dim());
  EMBER_CHECK_TYPE(x1.is_floating_point(), "[{}] cdist only supports floating-point dtypes, X1 got: {}", op,
                   x1.dtype());
  EMBER_CHECK_TYPE(x2.is_floating_point(), "[{}] cdist only supports floating-point dtypes, X2 got: {}", op,
                   x2.dtype());
  EMBER_CHECK_TYPE(x1.dtype() == x2.dtype(), "[{}] expected x1 and x2 of the same dtype, got {} and {}", op, x1.dtype(),
                   x2.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(x1.dtype() == kFloat32 || x1.dtype() == kFloat64,
                              "[{}] not implemented for dtype {} on the CPU", op, x1.dtype());
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "[{}] X1 and X2 must have the same number of columns. X1: {} X2: {}", op,
              x1.size(-1), x2.size(-1));
  EMBER_CHECK(p >= 0, "[{}] cdist only supports non-negative p values", op);
  EMBER_CHECK(!compute_mode || (*compute_mode >= 0 && *compute_mode <= 2), "[{}] possible modes: 0, 1, 2, but was: {}",
              op, compute_mode.value_or(0));
  const DimVector batch = broadcast_shapes(x1.sizes().slice(0, static_cast<size_t>(x1.dim() - 2)),
                                           x2.sizes().slice(0, static_cast<size_t>(x2.dim() - 2)), op);
  std::vector<int64_t> shape(batch.begin(), batch.end());
  shape.push_back(x1.size(-2));
  shape.push_back(x2.size(-2));
  return shape;
}

// Whether cdist takes the matrix-product path: p = 2 with compute_mode 1, or None/0 and more
// than 25 rows on either side (LibTorch's rule).
inline bool cdist_uses_mm(double p, std::optional<int64_t> mode, int64_t P, int64_t R) {
  if (p != 2) return false;
  const int64_t m = mode.value_or(0);
  return m == 1 || (m == 0 && (P > 25 || R > 25));
}

// _cdist_backward: the forward's checks, grad and cdist (its result) of the distances' shape,
// which is returned.
inline std::vector<int64_t> check_cdist_backward(const char* op, DeviceType dev, const Tensor& grad, const Tensor& x1,
                                                 const Tensor& x2, double p, const Tensor& cdist) {
  std::vector<int64_t> shape = check_cdist(op, dev, x1, x2, p, std::nullopt);
  check_defined(op, grad, "grad");
  check_defined(op, cdist, "cdist");
  check_on(op, dev, grad, cdist);
  EMBER_CHECK(grad.sizes() == IntArrayRef(shape) && cdist.sizes() == IntArrayRef(shape),
              "[{}] expected grad and cdist of shape {} (the distances'), got {} and {}", op, IntArrayRef(shape),
              grad.sizes(), cdist.sizes());
  return shape;
}

// _pdist_forward: a 2-D (N, M) float32/float64 input; N (N - 1) / 2 distances.
inline int64_t check_pdist(const char* op, DeviceType dev, const Tensor& self, double p) {
  check_defined(op, self, "self");
  check_on(op, dev, self);
  EMBER_CHECK(self.dim() == 2, "[{}] pdist only supports 2D tensors, got: {}D", op, self.dim());
  EMBER_CHECK_TYPE(self.is_floating_point(), "[{}] pdist only supports floating-point dtypes, got {}", op,
                   self.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() == kFloat32 || self.dtype() == kFloat64,
                              "[{}] not implemented for dtype {} on the CPU", op, self.dtype());
  EMBER_CHECK(p >= 0, "[{}] pdist only supports non-negative p values", op);
  const int64_t n = self.size(0);
  return n > 1 ? n * (n - 1) / 2 : 0;
}

// _pdist_backward: the forward's checks, grad and pdist (its result) of the K distances.
inline void check_pdist_backward(const char* op, DeviceType dev, const Tensor& grad, const Tensor& self, double p,
                                 const Tensor& pdist) {
  const int64_t K = check_pdist(op, dev, self, p);
  check_defined(op, grad, "grad");
  check_defined(op, pdist, "pdist");
  check_on(op, dev, grad, pdist);
  EMBER_CHECK(grad.numel() == K && pdist.numel() == K && grad.dim() == 1 && pdist.dim() == 1,
              "[{}] expected grad and pdist of shape [{}] (the distances'), got {} and {}", op, K, grad.sizes(),
              pdist.sizes());
}

}  // namespace ember::native::nn
