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
#include <string_view>
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
// clamp with tensor bounds (clamp.Tensor, clamp_min.Tensor, clamp_max.Tensor; an absent bound is
// undefined): the gradients of self, min and max (PyTorch's clamp_backward and
// clamp_backward_min_max), each of its input's shape and dtype.
Tensor clamp_tensor_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max);
Tensor clamp_tensor_backward_min(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max);
Tensor clamp_tensor_backward_max(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max);
// d/dexponent of pow(base, exponent) for a Scalar base (PyTorch's: 0 where base is 0 and the
// exponent negative).
Tensor pow_scalar_base_backward(const Tensor& grad, const Scalar& base, const Tensor& exponent, const Tensor& result);
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
// polygamma(1, self) from differentiable operators (digamma's derivative; there is no polygamma
// operator): the recurrence to x + 6, the asymptotic series there, the reflection below 1/2.
Tensor trigamma(const Tensor& self);

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
Tensor adaptive_avg_pool3d_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes);
// The 1-d pools' input gradients: the 2-d backward kernels on the input with a unit H dimension.
Tensor avg_pool1d_backward(const Tensor& grad, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad);
Tensor adaptive_avg_pool1d_backward(const Tensor& grad, const Tensor& self);
// constant_pad_nd's gradient: grad with the padding cropped off (and cropped parts zero).
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);
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

// ---- indexing, scatter and shape operators (index-shape) -------------------------------------------

// scatter_reduce's (self, src) gradients, PyTorch's formulas per reduction (sum, prod, mean, amax,
// amin); src's gradient is zero beyond the index's extent.
std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result);
// index_add's and index_copy's source gradient: grad at the index along dim, times alpha.
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, int64_t source_dim,
                                 const Scalar& alpha);
// take's: grad accumulated at the (flat, possibly negative) indices of a zero tensor of self's shape.
Tensor take_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& index);
// split_with_sizes': the pieces' gradients concatenated, zeros for an undefined one.
Tensor split_with_sizes_backward(const variable_list& grads, IntArrayRef split_sizes, int64_t dim, IntArrayRef sizes,
                                 const TensorOptions& options);
Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims);
// ---- linear algebra ------------------------------------------------------------------------------
//
// Note [Linear algebra derivatives]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// PyTorch's formulas (FunctionsManual.cpp) for real inputs, written with linalg_solve for every
// product with an inverse (so they differentiate again), and with masks for tril and diag_embed.
// - cholesky and eigh read one triangle of A but differentiate as functions of a symmetric A:
//   their gradients are symmetric, right for any loss of a symmetric input (A = X X^T, ...).
// - svd and eigh: singular vectors and eigenvectors are defined up to sign (and up to a rotation
//   for repeated values), so only a loss invariant to that gauge has a gradient; repeated singular
//   values or eigenvalues make it infinite, as in PyTorch. U and Vh of a full_matrices SVD are
//   narrowed to their first min(m, n) vectors first (the rest are not determined).
// - qr: reduced mode (or complete with m <= n, the same factorization); complete mode with m > n
//   and mode 'r' (no Q) raise.
// - det: through A^{-T}, or through the SVD when some determinant is zero.
Tensor linalg_inv_backward(const Tensor& grad, const Tensor& inverse);
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& A,
                                                 IntArrayRef B_sizes, bool left, std::array<bool, 2> grad_input_mask);
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L);
Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, std::string_view mode);
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh, bool full_matrices, bool compute_uv);
Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V, bool compute_v);
Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A);
Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A);
// ---- Core ATen nn kernels (softmax, group norm, dropout, embeddings, distances) ------------------
// Where the kernel's backward has no formula of its own (as in PyTorch), the helper computes the
// gradient with the backward kernel, and under create_graph (GradMode on in the engine) with
// differentiable operators instead, so double backward works.

// d(_softmax_backward_data) / d output, applied to grad: PyTorch's softmax_double_backward.
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t dim, const Tensor& output);
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_for_autograd(const Tensor& grad, const Tensor& input,
                                                                           const Tensor& mean, const Tensor& rstd,
                                                                           const Tensor& weight, int64_t N, int64_t C,
                                                                           int64_t HxW, int64_t group, double eps,
                                                                           std::array<bool, 3> grad_input_mask);
// grad * mask * scale, with native_dropout's scale (1 / (1 - p) in training, 0 for p = 1, 1 otherwise).
Tensor native_dropout_backward_for_autograd(const Tensor& grad, const Tensor& mask, double p,
                                            std::optional<bool> train);
// The gradient of embedding_dense_backward's grad_output: grad's rows at the indices.
Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx,
                                       bool scale_grad_by_freq);
Tensor embedding_bag_backward_for_autograd(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                           const Tensor& offsets, const Tensor& offset2bag, const Tensor& bag_size,
                                           const Tensor& max_indices, bool scale_grad_by_freq, int64_t mode,
                                           bool sparse, const Tensor& per_sample_weights, int64_t padding_idx);
Tensor embedding_bag_per_sample_weights_backward_for_autograd(const Tensor& grad, const Tensor& weight,
                                                              const Tensor& indices, const Tensor& offsets,
                                                              const Tensor& offset2bag, int64_t mode,
                                                              int64_t padding_idx);
// The gradient of _cdist_forward with respect to x1 (for_x1) or x2.
Tensor cdist_backward_for_autograd(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                                   const Tensor& result, bool for_x1);
Tensor pdist_backward_for_autograd(const Tensor& grad, const Tensor& self, double p, const Tensor& result);

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
