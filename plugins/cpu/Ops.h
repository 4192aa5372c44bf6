#pragma once
// Internal to the CPU plugin: every kernel it registers (register.cpp), by family. Each has the
// exact C++ signature API.md maps its schema to. Kernels are called qualified (cpu::add_tensor),
// never unqualified, so argument-dependent lookup cannot pick the generated ember:: function.
#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember::cpu {

using OptDtype = std::optional<ScalarType>;
using OptLayout = std::optional<Layout>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;

// A factory schema's (dtype, layout, device) group as TensorOptions, for composite factories that
// call ember::empty and friends.
inline TensorOptions make_options(OptDtype dtype, OptLayout layout, OptDevice device) {
  TensorOptions o;
  if (dtype) o = o.dtype(*dtype);
  if (layout) o = o.layout(*layout);
  if (device) o = o.device(*device);
  return o;
}

// factories.cpp
Tensor empty(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout layout,
                     OptDevice device, OptBool pin_memory);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype,
              OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor& fill_(Tensor& self, const Scalar& value);
Tensor& zero_(Tensor& self);
// CompositeExplicitAutograd: through the dispatcher (empty + fill_).
Tensor zeros(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor ones(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor full(IntArrayRef size, const Scalar& fill_value, OptDtype dtype, OptLayout layout,
            OptDevice device, OptBool pin_memory);
Tensor empty_like(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor zeros_like(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor ones_like(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor full_like(const Tensor& self, const Scalar& fill_value, OptDtype dtype, OptLayout layout,
                 OptDevice device, OptBool pin_memory);

// binary.cpp
Tensor add_tensor(const Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& add__tensor(Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out);
Tensor add_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor& add__scalar(Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor sub_tensor(const Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& sub__tensor(Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out);
Tensor sub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor& sub__scalar(Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor mul_tensor(const Tensor& self, const Tensor& other);
Tensor& mul__tensor(Tensor& self, const Tensor& other);
Tensor& mul_out(const Tensor& self, const Tensor& other, Tensor& out);
Tensor mul_scalar(const Tensor& self, const Scalar& other);
Tensor& mul__scalar(Tensor& self, const Scalar& other);
Tensor div_tensor(const Tensor& self, const Tensor& other);
Tensor& div__tensor(Tensor& self, const Tensor& other);
Tensor& div_out(const Tensor& self, const Tensor& other, Tensor& out);
Tensor div_scalar(const Tensor& self, const Scalar& other);
Tensor& div__scalar(Tensor& self, const Scalar& other);
Tensor eq_tensor(const Tensor& self, const Tensor& other);
Tensor eq_scalar(const Tensor& self, const Scalar& other);
Tensor ne_tensor(const Tensor& self, const Tensor& other);
Tensor ne_scalar(const Tensor& self, const Scalar& other);
Tensor lt_tensor(const Tensor& self, const Tensor& other);
Tensor lt_scalar(const Tensor& self, const Scalar& other);
Tensor le_tensor(const Tensor& self, const Tensor& other);
Tensor le_scalar(const Tensor& self, const Scalar& other);
Tensor gt_tensor(const Tensor& self, const Tensor& other);
Tensor gt_scalar(const Tensor& self, const Scalar& other);
Tensor ge_tensor(const Tensor& self, const Tensor& other);
Tensor ge_scalar(const Tensor& self, const Scalar& other);

// copy.cpp
Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking);
// CompositeExplicitAutograd.
Tensor _to_copy(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device,
                OptBool pin_memory, bool non_blocking);
Tensor clone(const Tensor& self);
// CompositeImplicitAutograd.
Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy);
Tensor to_device(const Tensor& self, Device device, OptDtype dtype, bool non_blocking, bool copy);
Tensor to_cpu(const Tensor& self);
Tensor contiguous(const Tensor& self);

// reduce.cpp
Tensor sum(const Tensor& self, OptDtype dtype);
Tensor sum_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype);
Scalar item(const Tensor& self);
bool equal(const Tensor& self, const Tensor& other);
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan);

// views.cpp (CompositeExplicitAutograd: metadata only; reshape is CompositeImplicitAutograd)
Tensor view(const Tensor& self, IntArrayRef size);
Tensor reshape(const Tensor& self, IntArrayRef shape);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& self);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor expand(const Tensor& self, IntArrayRef size, bool implicit);
Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                  std::optional<int64_t> storage_offset);

// shape.cpp. CompositeExplicitAutograd views:
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor squeeze(const Tensor& self);
Tensor squeeze_dim(const Tensor& self, int64_t dim);
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2);
Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step);
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim);
// CompositeImplicitAutograd (built from reshape, slice, split):
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim);
// CPU:
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype, OptLayout layout,
                OptDevice device, OptBool pin_memory);
Tensor eye(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor eye_m(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
// CompositeExplicitAutograd (they dispatch cat, empty, copy_):
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
Tensor repeat(const Tensor& self, IntArrayRef repeats);

// linalg.cpp (matmul is CompositeImplicitAutograd)
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha);
Tensor matmul(const Tensor& self, const Tensor& other);

// random.cpp. CPU fills on the given CPU generator (None: the default one):
Tensor& uniform_(Tensor& self, double from, double to, std::optional<Generator> generator);
Tensor& normal_(Tensor& self, double mean, double std, std::optional<Generator> generator);
Tensor& random_from(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator);
Tensor& bernoulli_float(Tensor& self, double p, std::optional<Generator> generator);
// CompositeExplicitAutograd (they dispatch empty and a fill):
Tensor rand(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor rand_generator(IntArrayRef size, std::optional<Generator> generator, OptDtype dtype, OptLayout layout,
                      OptDevice device, OptBool pin_memory);
Tensor randn(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor randn_generator(IntArrayRef size, std::optional<Generator> generator, OptDtype dtype, OptLayout layout,
                       OptDevice device, OptBool pin_memory);
Tensor randint(int64_t high, IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device,
               OptBool pin_memory);
Tensor randint_generator(int64_t high, IntArrayRef size, std::optional<Generator> generator, OptDtype dtype,
                         OptLayout layout, OptDevice device, OptBool pin_memory);
Tensor randint_low(int64_t low, int64_t high, IntArrayRef size, OptDtype dtype, OptLayout layout,
                   OptDevice device, OptBool pin_memory);
Tensor randint_low_generator(int64_t low, int64_t high, IntArrayRef size, std::optional<Generator> generator,
                             OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);

// indexing.cpp (see Note [CPU advanced indexing]). CPU:
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
// CompositeExplicitAutograd (clone, then the in-place op through the dispatcher):
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate);
Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);

// sort.cpp (Note [CPU sort order])
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending);
std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, OptBool stable, int64_t dim, bool descending);
Tensor argsort(const Tensor& self, int64_t dim, bool descending);
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted);
std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim, bool descending, Tensor& values,
                                         Tensor& indices);
std::tuple<Tensor&, Tensor&> topk_values(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
                                         Tensor& values, Tensor& indices);

// reduce2.cpp, second part: cumprod, var/std with a correction, norms, out= variants.
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
Tensor norm_scalaropt_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim);
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

// ---- neural network ops (issue 3) ----
// conv.cpp (conv2d is CompositeImplicitAutograd)
Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups);
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, std::optional<IntArrayRef> bias_sizes,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask);
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups);
// pool.cpp (max_pool2d and adaptive_avg_pool2d are CompositeImplicitAutograd)
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
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode);
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);
// norm.cpp (batch_norm and layer_norm are CompositeImplicitAutograd)
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
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled);
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enable);

}  // namespace ember::cpu
