#pragma once
// Internal to the meta plugin: every kernel it registers (register.cpp), with the exact C++
// signature of the cpu kernel of the same operator (plugins/cpu/Ops.h, Reduce.h).
#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember::meta {

using OptDtype = std::optional<ScalarType>;
using OptLayout = std::optional<Layout>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;
using OptScalar = std::optional<Scalar>;

// ---- elementwise.cpp: the shared TensorIter on kMeta ----------------------------------------

#define EMBER_META_DECLARE_ARITH(name)                                                      \
  Tensor name##_tensor(const Tensor& self, const Tensor& other, const Scalar& alpha);       \
  Tensor& name##__tensor(Tensor& self, const Tensor& other, const Scalar& alpha);          \
  Tensor& name##_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out); \
  Tensor name##_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha);       \
  Tensor& name##__scalar(Tensor& self, const Scalar& other, const Scalar& alpha);
#define EMBER_META_DECLARE_MULDIV(name)                                  \
  Tensor name##_tensor(const Tensor& self, const Tensor& other);         \
  Tensor& name##__tensor(Tensor& self, const Tensor& other);             \
  Tensor& name##_out(const Tensor& self, const Tensor& other, Tensor& out); \
  Tensor name##_scalar(const Tensor& self, const Scalar& other);         \
  Tensor& name##__scalar(Tensor& self, const Scalar& other);
#define EMBER_META_DECLARE_CMP(name)                             \
  Tensor name##_tensor(const Tensor& self, const Tensor& other); \
  Tensor name##_scalar(const Tensor& self, const Scalar& other);
#define EMBER_META_DECLARE_UNARY(name) \
  Tensor name(const Tensor& self);     \
  Tensor& name##_(Tensor& self);       \
  Tensor& name##_out(const Tensor& self, Tensor& out);
#define EMBER_META_DECLARE_LOGICAL(name)                     \
  Tensor name(const Tensor& self, const Tensor& other);      \
  Tensor& name##_(Tensor& self, const Tensor& other);        \
  Tensor& name##_out(const Tensor& self, const Tensor& other, Tensor& out);

EMBER_META_DECLARE_ARITH(add)
EMBER_META_DECLARE_ARITH(sub)
EMBER_META_DECLARE_MULDIV(mul)
EMBER_META_DECLARE_MULDIV(div)
EMBER_META_DECLARE_CMP(eq)
EMBER_META_DECLARE_CMP(ne)
EMBER_META_DECLARE_CMP(lt)
EMBER_META_DECLARE_CMP(le)
EMBER_META_DECLARE_CMP(gt)
EMBER_META_DECLARE_CMP(ge)
EMBER_META_DECLARE_UNARY(neg)
EMBER_META_DECLARE_UNARY(abs)
EMBER_META_DECLARE_UNARY(sign)
EMBER_META_DECLARE_UNARY(exp)
EMBER_META_DECLARE_UNARY(log)
EMBER_META_DECLARE_UNARY(log1p)
EMBER_META_DECLARE_UNARY(sqrt)
EMBER_META_DECLARE_UNARY(rsqrt)
EMBER_META_DECLARE_UNARY(sin)
EMBER_META_DECLARE_UNARY(cos)
EMBER_META_DECLARE_UNARY(tanh)
EMBER_META_DECLARE_UNARY(sigmoid)
EMBER_META_DECLARE_UNARY(erf)
EMBER_META_DECLARE_UNARY(silu)
EMBER_META_DECLARE_UNARY(logical_not)
EMBER_META_DECLARE_LOGICAL(logical_and)
EMBER_META_DECLARE_LOGICAL(logical_or)
EMBER_META_DECLARE_LOGICAL(logical_xor)
Tensor relu(const Tensor& self);
Tensor& relu_(Tensor& self);
Tensor gelu(const Tensor& self, std::string_view approximate);
Tensor& gelu_(Tensor& self, std::string_view approximate);
Tensor& gelu_out(const Tensor& self, std::string_view approximate, Tensor& out);

Tensor pow_tensor_tensor(const Tensor& self, const Tensor& exponent);
Tensor& pow__tensor(Tensor& self, const Tensor& exponent);
Tensor& pow_tensor_tensor_out(const Tensor& self, const Tensor& exponent, Tensor& out);
Tensor pow_tensor_scalar(const Tensor& self, const Scalar& exponent);
Tensor& pow__scalar(Tensor& self, const Scalar& exponent);
Tensor& pow_tensor_scalar_out(const Tensor& self, const Scalar& exponent, Tensor& out);
Tensor clamp(const Tensor& self, const OptScalar& min, const OptScalar& max);
Tensor& clamp_(Tensor& self, const OptScalar& min, const OptScalar& max);
Tensor& clamp_out(const Tensor& self, const OptScalar& min, const OptScalar& max, Tensor& out);
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor& where_out(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight);
Tensor& lerp_out(const Tensor& self, const Tensor& end, const Scalar& weight, Tensor& out);
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value);
Tensor& addcmul_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value);
Tensor& addcmul_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                    Tensor& out);

// Copy-like ops: the shape checks of the cpu kernel, then nothing to write.
Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking);
Tensor& fill_(Tensor& self, const Scalar& value);
Tensor& zero_(Tensor& self);
// The random fills draw nothing (no values), so they leave the generator as it was.
Tensor& uniform_(Tensor& self, double from, double to, std::optional<Generator> generator);
Tensor& normal_(Tensor& self, double mean, double std, std::optional<Generator> generator);
Tensor& random_from(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator);
Tensor& bernoulli_float(Tensor& self, double p, std::optional<Generator> generator);

// ---- other.cpp ----------------------------------------------------------------------------------

// Factories.
Tensor empty(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout layout, OptDevice device,
                     OptBool pin_memory);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype, OptLayout layout,
              OptDevice device, OptBool pin_memory);
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype, OptLayout layout,
                OptDevice device, OptBool pin_memory);
Tensor eye(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor eye_m(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);

// Data-dependent results: a clear error.
Scalar item(const Tensor& self);
bool equal(const Tensor& self, const Tensor& other);
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan);

// Shapes.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor flip(const Tensor& self, IntArrayRef dims);

// Matrix products.
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha);

// Reductions.
Tensor sum(const Tensor& self, OptDtype dtype);
Tensor sum_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype);
Tensor mean(const Tensor& self, OptDtype dtype);
Tensor mean_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype);
Tensor prod(const Tensor& self, OptDtype dtype);
Tensor prod_dim_int(const Tensor& self, int64_t dim, bool keepdim, OptDtype dtype);
Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim);
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor any(const Tensor& self);
Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim);
Tensor all(const Tensor& self);
Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim);
Tensor softmax_int(const Tensor& self, int64_t dim, OptDtype dtype);
Tensor log_softmax_int(const Tensor& self, int64_t dim, OptDtype dtype);
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor var(const Tensor& self, bool unbiased);
Tensor var_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim);
Tensor std(const Tensor& self, bool unbiased);
Tensor std_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim);
Tensor cumsum(const Tensor& self, int64_t dim, OptDtype dtype);

// ---- indexing.cpp -------------------------------------------------------------------------------

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate);
Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad);
Tensor& scatter__src(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter__value(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor nonzero(const Tensor& self);
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse);
Tensor& index_fill__int_scalar(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source);

// ---- other.cpp: sort, norms, var/std corrections, cumprod, out= variants ----------------------

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending);
std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, OptBool stable, int64_t dim, bool descending);
Tensor argsort(const Tensor& self, int64_t dim, bool descending);
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted);
std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim, bool descending, Tensor& values,
                                         Tensor& indices);
std::tuple<Tensor&, Tensor&> topk_values(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
                                         Tensor& values, Tensor& indices);
Tensor cumprod(const Tensor& self, int64_t dim, OptDtype dtype);
Tensor var_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                      bool keepdim);
Tensor std_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                      bool keepdim);
std::tuple<Tensor, Tensor> var_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> correction, bool keepdim);
std::tuple<Tensor, Tensor> std_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> correction, bool keepdim);
Tensor norm_scalar(const Tensor& self, const Scalar& p);
Tensor norm_scalaropt_dim(const Tensor& self, const OptScalar& p, IntArrayRef dim, bool keepdim);
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          OptDtype dtype);
Tensor& sum_intlist_out(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype, Tensor& out);
Tensor& mean_out(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype, Tensor& out);
Tensor& prod_int_out(const Tensor& self, int64_t dim, bool keepdim, OptDtype dtype, Tensor& out);
Tensor& cumsum_out(const Tensor& self, int64_t dim, OptDtype dtype, Tensor& out);
Tensor& cumprod_out(const Tensor& self, int64_t dim, OptDtype dtype, Tensor& out);
Tensor& amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out);
Tensor& amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out);
std::tuple<Tensor&, Tensor&> max_dim_max(const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                                         Tensor& max_values);
std::tuple<Tensor&, Tensor&> min_dim_min(const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                                         Tensor& min_indices);
Tensor& argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out);
Tensor& argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out);
Tensor& logsumexp_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out);

// ---- nn.cpp: the CNN operators (checks and shapes from ember/native/NNRules.h) ----------------

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups);
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, std::optional<IntArrayRef> bias_sizes,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode);
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices);
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override);
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);
Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias,
                                                              std::array<bool, 3> output_mask);

}  // namespace ember::meta
