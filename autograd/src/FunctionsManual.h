#pragma once
// The hand-written helpers that the derivative formulas of schemas/derivatives.yaml call (PyTorch's
// torch/csrc/autograd/FunctionsManual.h). Every helper is written with ember's public operators,
// never a loop over data, so that a gradient it computes is itself differentiable when the engine
// runs with create_graph (double backward, gradgradcheck, Hessians).
//
// Arguments come as the formula environment has them: a saved `self.sizes()` is a
// std::vector<int64_t> (taken here as IntArrayRef), `int[1]?` an optional vector, `Tensor?` a
// Tensor that is undefined for None, `bool[3]` a std::array<bool, 3>.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"

namespace ember::autograd::generated::details {

using variable_list = std::vector<Tensor>;
using OptIntArrayRef = std::optional<IntArrayRef>;

// ---- errors --------------------------------------------------------------------------------------

// A formula for an input that has none: raises NotImplementedError naming the operator, the input
// and what is missing. Evaluated only when that input needs a gradient.
[[noreturn]] Tensor not_implemented(const char* op, const char* input, const char* reason);

// ---- dtypes, broadcasting ------------------------------------------------------------------------

// `t` in dtype `st` (no copy when it already is).
Tensor to_dtype(const Tensor& t, ScalarType st);
// `t` in the dtype and on the device of `options` (an input's gradient from its output's).
Tensor to_options(const Tensor& t, const TensorOptions& options);
// PyTorch's at::sum_to: sums `t` down to `shape` (its leading dimensions, and the dimensions where
// `shape` has 1), which `t`'s shape broadcasts from.
Tensor sum_to(const Tensor& t, IntArrayRef shape);
// The gradient of a broadcast operand: sum_to its shape, cast to its dtype.
Tensor reduce_grad(const Tensor& grad, IntArrayRef shape, ScalarType st);
// PyTorch's handle_r_to_c (a complex gradient of a real input keeps its real part): Ember has no
// complex tensors, so the gradient passes through.
inline Tensor handle_r_to_c(ScalarType, Tensor gradient) { return gradient; }
// t * s, skipping the multiplication when s is 1.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
// The shape `a` and `b` broadcast to.
std::vector<int64_t> infer_size(IntArrayRef a, IntArrayRef b);
// Undefined Tensor -> nullopt (Tensor? arguments of the public functions).
std::optional<Tensor> opt(const Tensor& t);

// ---- arithmetic ----------------------------------------------------------------------------------

Tensor mul_tensor_backward(const Tensor& grad, const Tensor& other, ScalarType self_st);
Tensor mul_tensor_backward(const Tensor& grad, const Scalar& other, ScalarType self_st);
Tensor div_tensor_self_backward(const Tensor& grad, const Tensor& other, ScalarType self_st);
Tensor div_tensor_self_backward(const Tensor& grad, const Scalar& other, ScalarType self_st);
Tensor div_tensor_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other);
Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);

// ---- pointwise -----------------------------------------------------------------------------------

Tensor log1p_backward(const Tensor& grad, const Tensor& self);
Tensor tanh_backward(const Tensor& grad, const Tensor& result);
Tensor sigmoid_backward(const Tensor& grad, const Tensor& result);
Tensor erf_backward(const Tensor& grad, const Tensor& self);
// grad where output > threshold, else 0.
Tensor gelu_backward(const Tensor& grad, const Tensor& self, const std::string& approximate);
Tensor silu_backward(const Tensor& grad, const Tensor& self);

// ---- reductions ----------------------------------------------------------------------------------

// Unsqueezes `t` at each of `dims` (wrapped for an `n_dims`-dim result), in increasing order.
Tensor unsqueeze_multiple(const Tensor& t, IntArrayRef dims, size_t n_dims);
// Gives a reduction's result back its reduced dimensions (size 1), unless keepdim.
Tensor restore_reduced_dims(const Tensor& output, IntArrayRef dims, bool keepdim);
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef dims, bool keepdim);
Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef dims, int64_t numel, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result);
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, int64_t dim, bool keepdim);
// max/min over everything: the gradient is split evenly among the elements equal to the result.
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value);
// amax/amin: split evenly among the ties of each reduced slice.
Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
// max.dim/min.dim/sort/topk: the gradient goes to the places `indices` name along `dim`.
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
Tensor softmax_backward_data(const Tensor& grad, const Tensor& output, int64_t dim, ScalarType input_dtype);
Tensor log_softmax_backward_data(const Tensor& grad, const Tensor& output, int64_t dim, ScalarType input_dtype);
Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
Tensor var_backward(const Tensor& grad, const Tensor& self, OptIntArrayRef dim, std::optional<int64_t> correction,
                    bool keepdim);
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptIntArrayRef dim,
                    std::optional<int64_t> correction, bool keepdim);
Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self, OptIntArrayRef dim,
                         std::optional<int64_t> correction, bool keepdim);
Tensor std_mean_backward(const Tensor& gstd, const Tensor& gmean, const Tensor& self, const Tensor& std,
                         OptIntArrayRef dim, std::optional<int64_t> correction, bool keepdim);
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm,
                     IntArrayRef dim = {}, bool keepdim = false);
Tensor linalg_vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& norm,
                                   OptIntArrayRef dim, bool keepdim);
// Sum from the end: the adjoint of cumsum.
Tensor reversed_cumsum(const Tensor& t, int64_t dim);
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output);

// ---- views and shape operators -------------------------------------------------------------------

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
// mm's gradients in the layout of the matrix they are for: a transposed (column-major) matrix,
// such as a weight used as W.t(), gets a transposed gradient, so that it reaches the weight
// contiguous (PyTorch's mm_mat1_backward / mm_mat2_backward).
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef mat1_sizes, IntArrayRef mat1_strides,
                        const Scalar& alpha);
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_sizes, IntArrayRef mat2_strides,
                        const Scalar& alpha);
// The gradient of a sparse (COO or CSR) mat1 of mm: (grad @ mat2^T) at mat1's specified entries
// only, a sparse tensor of mat1's pattern and layout (PyTorch's torch.sparse.mm).
Tensor mm_mat1_sparse_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha);
// The gradient of sparse_coo_tensor's values: grad (dense or sparse) at each entry's index
// (a duplicate index reads the same value).
Tensor sparse_values_backward(const Tensor& grad, const Tensor& indices);
// The gradient of to_dense: grad at self's specified entries, in self's (coalesced) pattern and
// layout.
Tensor to_dense_backward(const Tensor& grad, const Tensor& self);
// The gradient of sparse_csr_tensor's values: grad (dense or sparse) at each entry.
Tensor sparse_csr_values_backward(const Tensor& grad, const Tensor& crow_indices, const Tensor& col_indices);
// The gradient of sparse_mask's self: grad (dense or sparse) at mask's pattern, in self's layout.
Tensor sparse_mask_backward(const Tensor& grad, const Tensor& self, const Tensor& mask);
// The gradient of values()/_values() of a sparse self: grad as the values of self's pattern.
Tensor values_backward(const Tensor& grad, const Tensor& self);
// The gradient of sum (dim empty) or sum.dim_IntList of a sparse self (torch.sparse.sum): a
// sparse tensor of self's (coalesced) pattern and layout, each entry the grad at its kept
// coordinates.
Tensor sparse_sum_backward(const Tensor& grad, const Tensor& self, IntArrayRef dim);
Tensor as_strided_backward(const Tensor& grad, IntArrayRef self_sizes, IntArrayRef self_strides, int64_t self_offset,
                           IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset);
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
// squeeze.dim's adjoint: unsqueeze at `dim` when squeeze removed it.
Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes);
Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2);
Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dimension, int64_t size, int64_t step);
// Undefined gradients (outputs nobody used) count as zeros.
Tensor split_backward(const variable_list& grads, int64_t split_size, int64_t dim, IntArrayRef sizes,
                      const TensorOptions& options);
std::vector<std::vector<int64_t>> to_args_sizes(const std::vector<Tensor>& tensors);
std::vector<ScalarType> to_args_scalartypes(const std::vector<Tensor>& tensors);
variable_list cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes,
                                   const std::vector<ScalarType>& dtypes, int64_t dim);
variable_list stack_tensors_backward(const Tensor& grad, int64_t dim, const std::vector<ScalarType>& dtypes);
Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef input_shape);

// ---- indexing ------------------------------------------------------------------------------------

Tensor index_backward(const Tensor& grad, IntArrayRef self_sizes, const std::vector<std::optional<Tensor>>& indices);
Tensor index_put_values_backward(const Tensor& grad, const std::vector<std::optional<Tensor>>& indices,
                                 IntArrayRef values_sizes, ScalarType values_st);
Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index);
Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index, bool sparse_grad);
// scatter's src: the gradient at the places the index names, zeros where src is larger than index.
Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes);
Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask);
Tensor masked_scatter_backward(const Tensor& grad, const Tensor& mask, IntArrayRef sizes);
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, IntArrayRef weight_sizes, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse);

// ---- neural-network operators --------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> convolution_backward_for_autograd(const Tensor& grad, const Tensor& input,
                                                                     const Tensor& weight, IntArrayRef stride,
                                                                     IntArrayRef padding, IntArrayRef dilation,
                                                                     bool transposed, IntArrayRef output_padding,
                                                                     int64_t groups,
                                                                     std::array<bool, 3> grad_input_mask);
// The derivatives of convolution_backward's (grad_input, grad_weight, grad_bias) from their gradients
// ggI, ggW, ggb: for (grad_output, input, weight).
std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(const Tensor& ggI, const Tensor& ggW, const Tensor& ggb,
                                                               const Tensor& gO, const Tensor& input,
                                                               const Tensor& weight, IntArrayRef stride,
                                                               IntArrayRef padding, IntArrayRef dilation,
                                                               bool transposed, IntArrayRef output_padding,
                                                               int64_t groups, std::array<bool, 3> grad_input_mask);
// The gradient of max_pool*_with_indices_backward's grad_output: picks grad at the indices.
Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, int64_t dim);
Tensor adaptive_avg_pool2d_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_for_autograd(
    const Tensor& grad, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool training, double eps,
    std::array<bool, 3> grad_input_mask);
// The derivatives of native_batch_norm_backward's (grad_input, grad_weight, grad_bias) from their
// gradients ggI, ggG, ggB: for (input, weight, grad_out).
std::tuple<Tensor, Tensor, Tensor> batchnorm_double_backward(const Tensor& input, const Tensor& gamma,
                                                             const Tensor& ggI, const Tensor& ggG, const Tensor& ggB,
                                                             const Tensor& gO, const Tensor& running_mean,
                                                             const Tensor& running_var, bool training, double eps,
                                                             const Tensor& save_mean, const Tensor& save_invstd,
                                                             std::array<bool, 3> output_mask);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_for_autograd(const Tensor& grad, const Tensor& input,
                                                                           IntArrayRef normalized_shape,
                                                                           const Tensor& mean, const Tensor& rstd,
                                                                           const Tensor& weight, const Tensor& bias,
                                                                           std::array<bool, 3> grad_input_mask);
// As batchnorm_double_backward, over the normalized (trailing) dimensions.
std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(const Tensor& input, const Tensor& gamma,
                                                              const Tensor& ggI, const Tensor& ggG, const Tensor& ggB,
                                                              const Tensor& gO, const Tensor& save_mean,
                                                              const Tensor& save_invstd, IntArrayRef normalized_shape,
                                                              std::array<bool, 3> output_mask);

// ---- complex numbers and FFT -----------------------------------------------------------------------

// abs: grad * sign(self), or grad * self / |self| for a complex self (PyTorch's sgn).
Tensor abs_backward(const Tensor& grad, const Tensor& self);
// PyTorch's angle_backward: zero for a real self; grad * i z / |z|^2 for a complex one.
Tensor angle_backward(const Tensor& grad, const Tensor& self);
// PyTorch's fft_r2c_backward: the onesided spectrum's gradient padded with zeros to the full
// length, then the real part of the inverse complex transform (unnormalised as the forward was).
Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        int64_t last_dim_size);
// PyTorch's fft_c2r_backward: the onesided r2c of grad, with the terms that stand for two
// conjugate entries of the full spectrum doubled.
Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization);

}  // namespace ember::autograd::generated::details
