#include "FunctionsManual.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "ember/sparse/SparseTensorImpl.h"

namespace ember::autograd::generated::details {

namespace {

using OptTensorList = std::vector<std::optional<Tensor>>;

TensorOptions index_options(const Tensor& like) { return TensorOptions().dtype(kInt64).device(like.device()); }

// `n` leading Nones then `index`: an advanced index on dimension n alone (LibTorch's
// index_add/index_copy spelled with index_put).
OptTensorList index_at_dim(int64_t n, const Tensor& index) {
  OptTensorList l(static_cast<size_t>(n), std::nullopt);
  l.emplace_back(index.scalar_type() == kInt64 ? index : index.to(kInt64));
  return l;
}

std::vector<int64_t> wrap_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (int64_t d : dims) out.push_back(maybe_wrap_dim(d, ndim, op));
  return out;
}

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Sums over every dimension but 1, keeping the dimensions (batch norm's per-channel sums).
Tensor sum_exclude_dim1(const Tensor& t, bool keepdim = true) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (i != 1) dims.push_back(i);
  if (dims.empty()) return t;
  return t.sum(dims, keepdim);
}

// A per-channel tensor of shape [C] viewed as [1, C, 1, ...] for `target`'s rank.
Tensor expand_as_dim1(const Tensor& src, const Tensor& target) {
  std::vector<int64_t> shape(static_cast<size_t>(target.dim()), 1);
  shape[1] = src.numel();
  return src.reshape(shape);
}

// PyTorch's _maybe_overlapping_memory: whether two elements of a geometry may share memory.
bool maybe_overlapping(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 1) dims.emplace_back(strides[i], sizes[i]);
  std::sort(dims.begin(), dims.end());
  int64_t max_index_in_slice = 0;
  for (const auto& [stride, size] : dims) {
    if (stride <= max_index_in_slice) return true;
    max_index_in_slice += stride * (size - 1);
  }
  return false;
}

// One past the furthest storage element a geometry reaches (its offset when it has none).
int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t end = offset + 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return offset;
    end += (sizes[i] - 1) * strides[i];
  }
  return end;
}

// The gradient of an output of a *_backward operator, or undefined when that output was not
// computed (its output_mask entry was false: the engine then hands zeros of no particular shape).
Tensor if_computed(const Tensor& g, IntArrayRef sizes) { return g.defined() && g.sizes() == sizes ? g : Tensor(); }

Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}

}  // namespace

// ---- errors --------------------------------------------------------------------------------------

Tensor not_implemented(const char* op, const char* input, const char* reason) {
  throw NotImplementedError(fmt::format("[{}] the derivative for '{}' is not implemented: {}", op, input, reason));
}

// ---- dtypes, broadcasting ------------------------------------------------------------------------

Tensor to_dtype(const Tensor& t, ScalarType st) {
  if (!t.defined() || t.scalar_type() == st) return t;
  return t.to(st);
}

Tensor to_options(const Tensor& t, const TensorOptions& options) {
  if (!t.defined()) return t;
  Tensor r = to_dtype(t, options.dtype_or(t.scalar_type()));
  if (options.device_opt() && r.device() != *options.device_opt()) r = r.to(*options.device_opt());
  return r;
}

Tensor sum_to(const Tensor& t, IntArrayRef shape) {
  if (!t.defined() || t.sizes() == shape) return t;
  const int64_t leading = t.dim() - static_cast<int64_t>(shape.size());
  EMBER_CHECK(leading >= 0, "[sum_to] a gradient of shape {} cannot be summed to the larger shape {}", t.sizes(),
              shape);
  std::vector<int64_t> reduce;
  for (int64_t i = 0; i < leading; ++i) reduce.push_back(i);
  for (int64_t i = leading; i < t.dim(); ++i) {
    const int64_t want = shape[static_cast<size_t>(i - leading)];
    EMBER_CHECK(want == t.size(i) || want == 1,
                "[sum_to] a gradient of shape {} does not broadcast from shape {} (dimension {})", t.sizes(), shape, i);
    if (want == 1 && t.size(i) != 1) reduce.push_back(i);
  }
  Tensor r = reduce.empty() ? t : t.sum(reduce, /*keepdim=*/true);
  return leading > 0 ? r.reshape(shape) : r;
}

Tensor reduce_grad(const Tensor& grad, IntArrayRef shape, ScalarType st) { return to_dtype(sum_to(grad, shape), st); }

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool is_one = s.isFloatingPoint() ? s.toDouble() == 1.0 : (!s.isComplex() && s.to<int64_t>() == 1);
  return is_one ? t : t * s;
}

std::vector<int64_t> infer_size(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1, "[infer_size] shapes {} and {} do not broadcast", a, b);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

// ---- arithmetic ----------------------------------------------------------------------------------

// Complex operands enter conjugated (PyTorch's convention: the gradient is dL/d(conj z)); conj of
// a real tensor is the tensor itself, and a complex gradient of a real input keeps its real part.
namespace {
Scalar conj_scalar(const Scalar& s) { return s.isComplex() ? Scalar(std::conj(s.toComplexDouble())) : s; }
}  // namespace

Tensor mul_tensor_backward(const Tensor& grad, const Tensor& other, ScalarType self_st) {
  return to_dtype(grad * other.conj(), self_st);
}

Tensor mul_tensor_backward(const Tensor& grad, const Scalar& other, ScalarType self_st) {
  return to_dtype(grad * conj_scalar(other), self_st);
}

Tensor div_tensor_self_backward(const Tensor& grad, const Tensor& other, ScalarType self_st) {
  return to_dtype(grad / other.conj(), self_st);
}

Tensor div_tensor_self_backward(const Tensor& grad, const Scalar& other, ScalarType self_st) {
  return to_dtype(grad / conj_scalar(other), self_st);
}

Tensor div_tensor_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other) {
  return to_dtype(grad.neg() * ((self / other) / other).conj(), other.scalar_type());
}

Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  if (exponent.toDouble() == 0.0) return zeros_like(self);
  const Scalar minus_one =
      exponent.isFloatingPoint() ? Scalar(exponent.toDouble() - 1.0) : Scalar(exponent.to<int64_t>() - 1);
  return to_dtype(grad * (self.pow(minus_one) * exponent).conj(), self.scalar_type());
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  const Tensor zero = zeros({}, grad.options());
  return to_dtype(where(exponent == 0, zero, grad * (exponent * self.pow(exponent - 1)).conj()), self.scalar_type());
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  // 0^e for e >= 0 is flat in e where log(0) would make the product 0 * -inf.
  const Tensor cond = logical_and(self == 0, exponent >= 0);
  const Tensor self_ = to_dtype(self, result.scalar_type());
  const Tensor zero = zeros({}, grad.options());
  return to_dtype(grad * where(cond, zero, result * self_.log()), exponent.scalar_type());
}

Tensor clamp_tensor_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max) {
  const Tensor zero = zeros({}, grad.options());
  Tensor pred;
  if (min.defined() && max.defined())
    pred = logical_and(self >= min, self <= max);
  else if (min.defined())
    pred = self >= min;
  else
    pred = self <= max;
  return reduce_grad(where(pred, grad, zero), self.sizes(), self.scalar_type());
}

Tensor clamp_tensor_backward_min(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max) {
  const Tensor zero = zeros({}, grad.options());
  // With both bounds, min wins only below max (clamp applies max last).
  const Tensor pred = max.defined() ? logical_and(self < min, min < max) : self < min;
  return reduce_grad(where(pred, grad, zero), min.sizes(), min.scalar_type());
}

Tensor clamp_tensor_backward_max(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max) {
  const Tensor zero = zeros({}, grad.options());
  const Tensor pred = min.defined() ? logical_or(self > max, max < min) : self > max;
  return reduce_grad(where(pred, grad, zero), max.sizes(), max.scalar_type());
}

Tensor pow_scalar_base_backward(const Tensor& grad, const Scalar& base, const Tensor& exponent, const Tensor& result) {
  const double b = base.toDouble();
  Tensor g = grad * (result * std::log(b));
  if (b == 0.0) g = where(exponent < 0, zeros({}, grad.options()), g);
  return to_dtype(g, exponent.scalar_type());
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  const Tensor zero = zeros({}, grad.options());
  Tensor r;
  if (min && max)
    r = where(logical_and(self >= *min, self <= *max), grad, zero);
  else if (min)
    r = where(self >= *min, grad, zero);
  else if (max)
    r = where(self <= *max, grad, zero);
  else
    r = grad;
  return to_dtype(r, self.scalar_type());
}

// ---- pointwise -----------------------------------------------------------------------------------

Tensor log1p_backward(const Tensor& grad, const Tensor& self) { return grad / (self + 1); }

Tensor tanh_backward(const Tensor& grad, const Tensor& result) { return grad * (1 - result * result).conj(); }

Tensor sigmoid_backward(const Tensor& grad, const Tensor& result) { return grad * ((1 - result) * result); }

Tensor erf_backward(const Tensor& grad, const Tensor& self) { return grad * ((self * self).neg().exp() * M_2_SQRTPI); }

Tensor trigamma(const Tensor& self) {
  const Tensor reflect = self < 0.5;
  const Tensor x = where(reflect, 1 - self, self);  // >= 1/2
  Tensor sum = zeros_like(x);
  for (int k = 0; k < 6; ++k) sum = sum + (x + k).pow(2).reciprocal();
  // psi1(z) ~ 1/z + 1/(2z^2) + 1/(6z^3) - 1/(30z^5) + 1/(42z^7) - 1/(30z^9) + 5/(66z^11): below
  // 1e-11 relative for z >= 6.5.
  const Tensor r = (x + 6).reciprocal(), r2 = r * r;
  Tensor series = r2 * (5.0 / 66);
  for (double c : {-1.0 / 30, 1.0 / 42, -1.0 / 30}) series = (series + c) * r2;
  series = ((series + 1.0 / 6) * r + 0.5) * r2 + r;
  const Tensor psi1 = sum + series;
  // psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
  const Tensor s = (self * M_PI).sin();
  return where(reflect, (s * s).reciprocal() * (M_PI * M_PI) - psi1, psi1);
}

Tensor gelu_backward(const Tensor& grad, const Tensor& self, const std::string& approximate) {
  if (approximate == "none") {
    constexpr double kAlpha = M_SQRT1_2;
    constexpr double kBeta = M_2_SQRTPI * M_SQRT1_2 * 0.5;  // 1 / sqrt(2 pi)
    const Tensor cdf = ((self * kAlpha).erf() + 1) * 0.5;
    const Tensor pdf = (self * self * -0.5).exp() * kBeta;
    return grad * (cdf + self * pdf);
  }
  EMBER_CHECK(approximate == "tanh", "[gelu_backward] approximate must be 'none' or 'tanh', got '{}'", approximate);
  constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5;  // sqrt(2 / pi)
  constexpr double kKappa = 0.044715;
  const Tensor x_sq = self * self;
  const Tensor inner = (self + x_sq * self * kKappa) * kBeta;
  const Tensor tanh_inner = inner.tanh();
  const Tensor left = self * 0.5;
  const Tensor right = tanh_inner + 1;
  const Tensor left_derivative = right * 0.5;
  const Tensor tanh_derivative = 1 - tanh_inner * tanh_inner;
  const Tensor inner_derivative = (x_sq * (3 * kKappa) + 1) * kBeta;
  const Tensor right_derivative = left * tanh_derivative * inner_derivative;
  return grad * (left_derivative + right_derivative);
}

Tensor silu_backward(const Tensor& grad, const Tensor& self) {
  const Tensor s = self.sigmoid();
  return grad * (s * (1 + self * (1 - s)));
}

// ---- reductions ----------------------------------------------------------------------------------

Tensor unsqueeze_multiple(const Tensor& t, IntArrayRef dims, size_t n_dims) {
  std::vector<int64_t> wrapped = wrap_dims(dims, static_cast<int64_t>(n_dims), "unsqueeze_multiple");
  std::sort(wrapped.begin(), wrapped.end());
  wrapped.erase(std::unique(wrapped.begin(), wrapped.end()), wrapped.end());
  Tensor r = t;
  for (int64_t d : wrapped) r = r.unsqueeze(d);
  return r;
}

Tensor restore_reduced_dims(const Tensor& output, IntArrayRef dims, bool keepdim) {
  if (keepdim || dims.empty()) return output;
  const int64_t total = output.dim() + static_cast<int64_t>(dims.size());
  std::vector<int64_t> shape(static_cast<size_t>(total), 0);
  for (int64_t d : wrap_dims(dims, total, "restore_reduced_dims")) shape[static_cast<size_t>(d)] = 1;
  size_t j = 0;
  for (int64_t s : output.sizes()) {
    while (shape[j] > 0) ++j;
    shape[j++] = s;
  }
  return output.reshape(shape);
}

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  if (!keepdim && !sizes.empty() && !dims.empty()) return unsqueeze_multiple(grad, dims, sizes.size()).expand(sizes);
  return grad.expand(sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef dims, int64_t numel, bool keepdim) {
  int64_t n = numel;
  if (!sizes.empty() && !dims.empty()) {
    n = 1;
    for (int64_t d : wrap_dims(dims, static_cast<int64_t>(sizes.size()), "mean_backward"))
      n *= sizes[static_cast<size_t>(d)];
  }
  return sum_backward(grad, sizes, dims, keepdim) / n;
}

namespace {

// The product of all elements but each one, along `dim`, without dividing (so zeros are fine):
// exclusive cumulative products from the front and from the back.
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& inp, int64_t dim) {
  if (inp.numel() == 0) return grad.expand(inp.sizes());
  const int64_t n = inp.size(dim);
  std::vector<int64_t> ones_size(inp.sizes().begin(), inp.sizes().end());
  ones_size[static_cast<size_t>(dim)] = 1;
  const Tensor ones_t = ones(ones_size, grad.options());
  const Tensor exclusive_normal = cat({ones_t, inp.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  const Tensor narrow_reverse = inp.narrow(dim, 1, n - 1).flip({dim});
  const Tensor exclusive_reverse = cat({ones_t, narrow_reverse}, dim).cumprod(dim).flip({dim});
  return grad * (exclusive_normal * exclusive_reverse);
}

// Whether `t` has a zero (false on a backend without values, which then takes the safe path).
bool has_zero(const Tensor& t) { return t.is_meta() || (t == 0).any().item<bool>(); }

}  // namespace

Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  if (input.dim() == 0) return to_dtype(grad, input.scalar_type());
  const Tensor in = to_dtype(input, grad.scalar_type());
  Tensor r;
  if (!has_zero(in))
    r = grad * (result / in);
  else
    r = prod_safe_zeros_backward(grad, in.contiguous().view({-1}), 0).view(input.sizes());
  return to_dtype(r, input.scalar_type());
}

Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, int64_t dim, bool keepdim) {
  if (input.dim() == 0) return to_dtype(grad, input.scalar_type());
  dim = maybe_wrap_dim(dim, input.dim(), "prod_backward");
  Tensor g = grad, res = result;
  if (!keepdim) {
    g = g.unsqueeze(dim);
    res = res.unsqueeze(dim);
  }
  const Tensor in = to_dtype(input, grad.scalar_type());
  const Tensor r = has_zero(in) ? prod_safe_zeros_backward(g, in, dim) : g * (res / in);
  return to_dtype(r, input.scalar_type());
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value) {
  // NaN == NaN here: a NaN result came from the NaNs of the input.
  const Tensor both_nan = logical_and(input != input, value != value);
  const Tensor mask = logical_or(input == value, both_nan);
  return to_dtype(mask * (grad / mask.sum()), input.scalar_type());
}

Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim) {
  const Tensor mask = restore_reduced_dims(result, dim, keepdim) == self;
  const Tensor count = mask.sum(dim, /*keepdim=*/true);
  return to_dtype(restore_reduced_dims(grad, dim, keepdim) / count * mask, self.scalar_type());
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim) {
  if (sizes.empty()) return grad;
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "value_selecting_reduction_backward");
  Tensor g = grad, idx = indices;
  if (!keepdim) {
    g = g.unsqueeze(dim);
    idx = idx.unsqueeze(dim);
  }
  return zeros(sizes, g.options()).scatter(dim, idx, g);
}

Tensor softmax_backward_data(const Tensor& grad, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return to_dtype((grad - (grad * output).sum({dim}, true)) * output, input_dtype);
}

Tensor log_softmax_backward_data(const Tensor& grad, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return to_dtype(grad - output.exp() * grad.sum({dim}, true), input_dtype);
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim) {
  Tensor g = grad, r = result;
  if (!keepdim && self.dim() != 0) {
    g = unsqueeze_multiple(grad, dim, static_cast<size_t>(self.dim()));
    r = unsqueeze_multiple(result, dim, static_cast<size_t>(self.dim()));
  }
  return g * (self - r).exp();
}

Tensor var_backward(const Tensor& grad, const Tensor& self, OptIntArrayRef dim, std::optional<int64_t> correction,
                    bool keepdim) {
  const IntArrayRef dims = dim ? *dim : IntArrayRef();
  const int64_t corr = correction.value_or(1);
  int64_t n = self.numel();
  if (!dims.empty() && self.dim() > 0) {
    n = 1;
    for (int64_t d : wrap_dims(dims, self.dim(), "var_backward")) n *= self.size(d);
  }
  const double dof = static_cast<double>(n - corr);
  Tensor g = grad;
  if (!keepdim && self.dim() > 1 && !dims.empty()) g = unsqueeze_multiple(grad, dims, static_cast<size_t>(self.dim()));
  const Tensor mean = dims.empty() || self.dim() == 0 ? self.mean() : self.mean(dims, /*keepdim=*/true);
  return (2.0 / dof) * g * (self - mean);
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptIntArrayRef dim,
                    std::optional<int64_t> correction, bool keepdim) {
  const Tensor grad_var = (grad / (result * 2)).masked_fill(result == 0, 0);
  return var_backward(grad_var, self, dim, correction, keepdim);
}

Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self, OptIntArrayRef dim,
                         std::optional<int64_t> correction, bool keepdim) {
  Tensor r;
  if (gvar.defined()) r = var_backward(gvar, self, dim, correction, keepdim);
  if (gmean.defined())
    r = add_defined(r, mean_backward(gmean, self.sizes(), dim ? *dim : IntArrayRef(), self.numel(), keepdim));
  return r;
}

Tensor std_mean_backward(const Tensor& gstd, const Tensor& gmean, const Tensor& self, const Tensor& std,
                         OptIntArrayRef dim, std::optional<int64_t> correction, bool keepdim) {
  Tensor r;
  if (gstd.defined()) r = std_backward(std, gstd, self, dim, correction, keepdim);
  if (gmean.defined())
    r = add_defined(r, mean_backward(gmean, self.sizes(), dim ? *dim : IntArrayRef(), self.numel(), keepdim));
  return r;
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p_, const Tensor& norm_,
                     IntArrayRef dim, bool keepdim) {
  const double p = p_ ? p_->toDouble() : 2.0;
  if (p == 0.0) return zeros_like(self);
  Tensor g = grad, norm = norm_;
  if (!keepdim && self.dim() != 0) {
    g = unsqueeze_multiple(grad, dim, static_cast<size_t>(self.dim()));
    norm = unsqueeze_multiple(norm_, dim, static_cast<size_t>(self.dim()));
  }
  Tensor r;
  if (p == 1.0) {
    r = self.sign() * g;
  } else if (p == 2.0) {
    r = g * (self / norm).masked_fill(norm == 0, 0);
  } else if (std::isinf(p)) {
    // The elements equal to the norm (the max or min of |self|) share the gradient, NaNs included.
    const Tensor self_abs = self.abs();
    const Tensor mask = logical_or(self_abs == norm, self_abs != self_abs);
    r = self.sign() * ((g / mask.sum(dim, true)) * mask);
  } else if (p < 1.0) {
    const Tensor self_scaled = self.sign() * self.abs().pow(p - 1).masked_fill(self == 0, 0);
    r = self_scaled * g * norm.pow(1 - p);
  } else if (p < 2.0) {
    const Tensor self_scaled = self.sign() * self.abs().pow(p - 1);
    const Tensor scale_v = (g / norm.pow(p - 1)).masked_fill(norm == 0, 0);
    r = self_scaled * scale_v;
  } else {
    const Tensor self_scaled = self * self.abs().pow(p - 2);
    const Tensor scale_v = (g / norm.pow(p - 1)).masked_fill(norm == 0, 0);
    r = self_scaled * scale_v;
  }
  return to_dtype(r, self.scalar_type());
}

Tensor linalg_vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& norm,
                                   OptIntArrayRef dim, bool keepdim) {
  return norm_backward(grad, self, ord, norm, dim ? *dim : IntArrayRef(), keepdim);
}

Tensor reversed_cumsum(const Tensor& t, int64_t dim) {
  if (t.dim() == 0) return t;
  return t.flip({dim}).cumsum(dim).flip({dim});
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() <= 1) return grad;
  return reversed_cumsum(grad, maybe_wrap_dim(dim, grad.dim(), "cumsum_backward"));
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output) {
  if (input.dim() == 0 || input.numel() <= 1) return grad;
  dim = maybe_wrap_dim(dim, input.dim(), "cumprod_backward");
  const int64_t n = input.size(dim);
  if (n == 1) return grad;
  if (!has_zero(input)) return reversed_cumsum(output * grad, dim) / input;
  // With zeros: grad_k = sum_{j >= k} grad_j * prod_{i <= j, i != k} input_i, one slice at a time
  // (quadratic in n, but no division, and differentiable again).
  std::vector<int64_t> one_size(input.sizes().begin(), input.sizes().end());
  one_size[static_cast<size_t>(dim)] = 1;
  const Tensor ones_t = ones(one_size, grad.options());
  std::vector<Tensor> parts;
  parts.reserve(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const Tensor before = k == 0 ? ones_t : input.slice(dim, 0, k).prod(dim, /*keepdim=*/true);
    Tensor omitted = ones_t;
    if (k + 1 < n) omitted = cat({ones_t, input.slice(dim, k + 1, n).cumprod(dim)}, dim);
    parts.push_back((grad.slice(dim, k, n) * (omitted * before)).sum({dim}, /*keepdim=*/true));
  }
  return cat(parts, dim);
}

// ---- views and shape operators -------------------------------------------------------------------

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "select_backward");
  if (index < 0) index += sizes[static_cast<size_t>(dim)];
  const Tensor idx = full({1}, index, index_options(grad));
  return zeros(sizes, grad.options()).index_put(index_at_dim(dim, idx), grad.unsqueeze(dim));
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "slice_backward");
  const int64_t n = sizes[static_cast<size_t>(dim)];
  int64_t s = start.value_or(0), e = end.value_or(std::numeric_limits<int64_t>::max());
  if (s < 0) s += n;
  if (e < 0) e += n;
  s = std::clamp<int64_t>(s, 0, n);
  e = std::clamp<int64_t>(e, s, n);
  const Tensor z = zeros(sizes, grad.options());
  if (grad.numel() == 0) return z;
  return z.index_put(index_at_dim(dim, arange(s, e, step, index_options(grad))), grad);
}

namespace {
bool column_major(IntArrayRef sizes, IntArrayRef strides) {
  return sizes.size() == 2 && strides[0] == 1 && strides[1] == std::max<int64_t>(sizes[0], 1) && sizes[1] > 1;
}
}  // namespace

Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef mat1_sizes, IntArrayRef mat1_strides,
                        const Scalar& alpha) {
  if (column_major(mat1_sizes, mat1_strides)) return maybe_multiply(mat2.mm(grad.t()).t(), alpha);
  return maybe_multiply(grad.mm(mat2.t()), alpha);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_sizes, IntArrayRef mat2_strides,
                        const Scalar& alpha) {
  // A sparse mat1: its transpose (COO) times the dense grad, the one sparse product there is.
  if (mat1.layout() != kStrided)
    return maybe_multiply((mat1.layout() == kSparseCsr ? mat1.to_sparse() : mat1).t().mm(grad), alpha);
  if (column_major(mat2_sizes, mat2_strides)) return maybe_multiply(grad.t().mm(mat1).t(), alpha);
  return maybe_multiply(mat1.t().mm(grad), alpha);
}

Tensor mm_mat1_sparse_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha) {
  // Only the pattern is read: detached, so no graph goes through coalesce (not differentiable).
  const Tensor p = mat1.detach();
  const Tensor coo = (p.layout() == kSparseCsr ? p.to_sparse() : p).coalesce();
  const Tensor ix = coo.indices();
  Tensor v = grad.index_select(0, ix.select(0, 0)).mul(mat2.index_select(0, ix.select(0, 1))).sum(IntArrayRef{1});
  Tensor g = sparse_coo_tensor(ix, maybe_multiply(v, alpha), mat1.sizes());
  return mat1.layout() == kSparseCsr ? g.to_sparse_csr() : g;
}

Tensor sparse_values_backward(const Tensor& grad, const Tensor& indices) {
  const int64_t sd = indices.size(0), nnz = indices.size(1);
  Tensor lin = zeros({nnz}, TensorOptions().dtype(kInt64).device(indices.device()));
  int64_t stride = 1;
  for (int64_t d = sd - 1; d >= 0; --d) {
    lin = lin.add(indices.select(0, d).mul(stride));
    stride *= grad.size(d);
  }
  std::vector<int64_t> vsize{nnz};
  vsize.insert(vsize.end(), grad.sizes().begin() + sd, grad.sizes().end());
  const TensorOptions opts = TensorOptions().dtype(grad.scalar_type()).device(grad.device());
  if (grad.layout() == kStrided) {
    std::vector<int64_t> rows{-1};
    rows.insert(rows.end(), grad.sizes().begin() + sd, grad.sizes().end());
    return grad.reshape(rows).index_select(0, lin);
  }
  if (nnz == 0) return zeros(vsize, opts);
  // A sparse grad is gathered at the unique indices (sparse_mask with the coalesced pattern, whose
  // entries are in ascending linear order), never densified; each entry then reads its slot.
  const auto [sorted, perm] = lin.sort();
  Tensor first = ones({nnz}, TensorOptions().dtype(kBool).device(indices.device()));
  if (nnz > 1) first.narrow(0, 1, nnz - 1).copy_(sorted.narrow(0, 1, nnz - 1).ne(sorted.narrow(0, 0, nnz - 1)));
  Tensor slot = empty({nnz}, TensorOptions().dtype(kInt64).device(indices.device()));
  slot.index_put_({perm}, first.to(kInt64).cumsum(0).sub(1));
  const Tensor mask = sparse_coo_tensor(indices, zeros({1}, opts).expand(vsize), grad.sizes()).coalesce();
  const Tensor at_unique = (grad.layout() == kSparseCsr ? grad.to_sparse() : grad).sparse_mask(mask)._values();
  return at_unique.index_select(0, slot);
}

// An uncoalesced self's gradient has its coalesced pattern: a sparse gradient stands for the dense
// one, so duplicates would count twice.
Tensor to_dense_backward(const Tensor& grad, const Tensor& self) {
  const Tensor p = self.detach();  // the pattern only
  return grad.sparse_mask(p.layout() == kSparse ? p.coalesce() : p);
}

namespace {

// A sparse tensor of like's pattern (COO indices as stored, or CSR) holding `values`. Through the
// constructors when building a graph (so it is differentiable); else without their checks,
// keeping like's coalesced flag.
Tensor sparse_of_pattern(const Tensor& like, const Tensor& values) {
  if (like.layout() == kSparseCsr)
    return sparse_csr_tensor(like.crow_indices(), like.col_indices(), values, like.sizes(),
                             TensorOptions().dtype(values.scalar_type()));
  if (GradMode::is_enabled()) return sparse_coo_tensor(like._indices(), values, like.sizes());
  return make_sparse_coo(like.sizes(), like._indices(), values.contiguous(), like.is_coalesced());
}

}  // namespace

Tensor sparse_csr_values_backward(const Tensor& grad, const Tensor& crow_indices, const Tensor& col_indices) {
  // The entries' (row, column) in CSR order: the COO indices of the CSR pattern.
  const Tensor pattern =
      sparse_csr_tensor(
          crow_indices, col_indices,
          zeros({col_indices.size(0)}, TensorOptions().dtype(grad.scalar_type()).device(col_indices.device())),
          grad.sizes(), TensorOptions().dtype(grad.scalar_type()))
          .to_sparse()
          ._indices();
  return sparse_values_backward(grad, pattern);
}

Tensor sparse_mask_backward(const Tensor& grad, const Tensor& self, const Tensor& mask) {
  const Tensor g = grad.sparse_mask(mask.detach());
  return self.layout() == kStrided ? g.to_dense() : g;
}

Tensor values_backward(const Tensor& grad, const Tensor& self) {
  return sparse_of_pattern(self, grad.to(self.scalar_type()));
}

Tensor sparse_sum_backward(const Tensor& grad, const Tensor& self, IntArrayRef dim) {
  const Tensor p = self.detach();                                              // the pattern only
  const Tensor coo = p.layout() == kSparseCsr ? p.to_sparse() : p.coalesce();  // CSR order kept
  const int64_t nd = self.dim(), sd = coo.sparse_dim();
  std::vector<bool> reduce(static_cast<size_t>(nd), dim.empty());
  for (int64_t d : dim) reduce[static_cast<size_t>(maybe_wrap_dim(d, nd, "sum"))] = true;
  std::vector<int64_t> kept_sparse;
  for (int64_t d = 0; d < sd; ++d)
    if (!reduce[static_cast<size_t>(d)]) kept_sparse.push_back(d);
  // g: [nnz or 1, kept dense dims...], the grad at each entry's kept sparse coordinates.
  Tensor g;
  if (kept_sparse.empty()) {
    g = grad.unsqueeze(0);
  } else {
    Tensor ix = coo._indices();
    if (static_cast<int64_t>(kept_sparse.size()) < sd)
      ix = ix.index_select(0, from_blob(kept_sparse.data(), {static_cast<int64_t>(kept_sparse.size())},
                                        TensorOptions().dtype(kInt64))
                                  .clone()
                                  .to(ix.device()))
               .contiguous();
    g = sparse_values_backward(grad, ix);
  }
  // Back to the values' shape: reduced dense dims become 1, then everything is expanded.
  std::vector<int64_t> shape{g.size(0)}, vsize{coo._nnz()};
  for (int64_t d = sd; d < nd; ++d) {
    shape.push_back(reduce[static_cast<size_t>(d)] ? 1 : self.size(d));
    vsize.push_back(self.size(d));
  }
  return sparse_of_pattern(self.layout() == kSparseCsr ? p : coo,
                           g.reshape(shape).expand(vsize).to(self.scalar_type()).contiguous());
}

Tensor as_strided_backward(const Tensor& grad, IntArrayRef self_sizes, IntArrayRef self_strides, int64_t self_offset,
                           IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  // The gradient is laid into a flat buffer shaped like the storage both geometries reach, then read
  // back through self's geometry (PyTorch's as_strided_backward).
  int64_t self_numel = 1;
  for (int64_t s : self_sizes) self_numel *= s;
  if (grad.numel() == 0 || self_numel == 0) return zeros(self_sizes, grad.options());
  const int64_t in_off = self_offset;
  const int64_t out_off = storage_offset.value_or(in_off);
  const int64_t base = std::min(in_off, out_off);
  const int64_t n =
      std::max(storage_extent(self_sizes, self_strides, in_off), storage_extent(size, stride, out_off)) - base;
  const Tensor positions = arange(n, index_options(grad));
  const Tensor out_idx = positions.as_strided(size, stride, out_off - base).reshape({-1});
  Tensor storage = zeros({n}, grad.options()).index_put({out_idx}, grad.reshape({-1}), /*accumulate=*/true);
  if (maybe_overlapping(self_sizes, self_strides)) {
    // Elements of self that share memory share its gradient.
    const Tensor in_idx = positions.as_strided(self_sizes, self_strides, in_off - base).reshape({-1});
    const Tensor count =
        zeros({n}, grad.options()).index_put({in_idx}, ones({in_idx.numel()}, grad.options()), /*accumulate=*/true);
    storage = storage / count.clamp(1, std::nullopt);
  }
  return storage.as_strided(self_sizes, self_strides, in_off - base);
}

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(dims.size());
  for (int64_t i = 0; i < n; ++i)
    inverse[static_cast<size_t>(maybe_wrap_dim(dims[static_cast<size_t>(i)], n, "permute_backwards"))] = i;
  return grad.permute(inverse);
}

Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes) {
  if (sizes.empty()) return grad;
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "unsqueeze_to");
  return sizes[static_cast<size_t>(dim)] == 1 ? grad.unsqueeze(dim) : grad;
}

Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  const int64_t d1 = maybe_wrap_dim(dim1, nd, "diagonal_backward");
  const int64_t d2 = maybe_wrap_dim(dim2, nd, "diagonal_backward");
  const int64_t len = grad.size(-1);
  if (len == 0) return zeros(sizes, grad.options());
  // Work with dim1 and dim2 last and flattened: the diagonal is then every (n2 + 1)-th element.
  std::vector<int64_t> perm, flat_shape;
  for (int64_t i = 0; i < nd; ++i)
    if (i != d1 && i != d2) {
      perm.push_back(i);
      flat_shape.push_back(sizes[static_cast<size_t>(i)]);
    }
  perm.push_back(d1);
  perm.push_back(d2);
  const int64_t n1 = sizes[static_cast<size_t>(d1)], n2 = sizes[static_cast<size_t>(d2)];
  flat_shape.push_back(n1 * n2);
  const int64_t first = offset >= 0 ? offset : -offset * n2;
  const Tensor positions = arange(0, len, index_options(grad)) * (n2 + 1) + first;
  std::vector<int64_t> permuted_shape(flat_shape.begin(), flat_shape.end() - 1);
  permuted_shape.push_back(n1);
  permuted_shape.push_back(n2);
  const Tensor flat = zeros(flat_shape, grad.options()).index_put(index_at_dim(nd - 2, positions), grad);
  return permute_backwards(flat.reshape(permuted_shape), perm);
}

Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dimension, int64_t size, int64_t step) {
  if (sizes.empty()) return grad.numel() == 0 ? zeros({}, grad.options()) : grad.reshape({});
  const int64_t d = maybe_wrap_dim(dimension, static_cast<int64_t>(sizes.size()), "unfold_backward");
  const int64_t windows = grad.size(d);
  if (windows * size == 0) return zeros(sizes, grad.options());
  // grad is [A..., windows, B..., size]: bring `size` next to `windows` and flatten the two, so that
  // element (w, j) lands at position w * step + j of dimension d.
  const int64_t gd = grad.dim();
  std::vector<int64_t> perm, shape;
  for (int64_t i = 0; i <= d; ++i) perm.push_back(i);
  perm.push_back(gd - 1);
  for (int64_t i = d + 1; i < gd - 1; ++i) perm.push_back(i);
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i)
    shape.push_back(i == d ? windows * size : grad.size(i));
  const Tensor g = grad.permute(perm).reshape(shape);
  const Tensor idx =
      ((arange(windows, index_options(grad)) * step).unsqueeze(1) + arange(size, index_options(grad))).reshape({-1});
  return zeros(sizes, grad.options()).index_put(index_at_dim(d, idx), g, /*accumulate=*/true);
}

Tensor split_backward(const variable_list& grads, int64_t split_size, int64_t dim, IntArrayRef sizes,
                      const TensorOptions& options) {
  const auto defined = std::find_if(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
  if (defined == grads.end()) return Tensor();
  const TensorOptions opts = defined->options();
  (void)options;
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "split_backward");
  const int64_t n = sizes[static_cast<size_t>(dim)];
  std::vector<Tensor> parts;
  parts.reserve(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) {
      parts.push_back(grads[i]);
      continue;
    }
    std::vector<int64_t> shape(sizes.begin(), sizes.end());
    shape[static_cast<size_t>(dim)] =
        std::max<int64_t>(0, std::min(split_size, n - static_cast<int64_t>(i) * split_size));
    parts.push_back(zeros(shape, opts));
  }
  return cat(parts, dim);
}

std::vector<std::vector<int64_t>> to_args_sizes(const std::vector<Tensor>& tensors) {
  std::vector<std::vector<int64_t>> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.emplace_back(t.sizes().begin(), t.sizes().end());
  return out;
}

std::vector<ScalarType> to_args_scalartypes(const std::vector<Tensor>& tensors) {
  std::vector<ScalarType> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.scalar_type());
  return out;
}

variable_list cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes,
                                   const std::vector<ScalarType>& dtypes, int64_t dim) {
  variable_list out(sizes.size());
  if (!grad.defined()) return out;
  // cat skips 1-d empty tensors (LibTorch's legacy rule): the dimension is the first other one's.
  auto skipped = [](const std::vector<int64_t>& s) { return s.size() == 1 && s[0] == 0; };
  for (const auto& s : sizes)
    if (!skipped(s)) {
      dim = maybe_wrap_dim(dim, static_cast<int64_t>(s.size()), "cat_tensors_backward");
      break;
    }
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (skipped(sizes[i])) {
      out[i] = zeros({0}, grad.options().dtype(dtypes[i]));
      continue;
    }
    const int64_t len = sizes[i][static_cast<size_t>(dim)];
    out[i] = to_dtype(grad.narrow(dim, offset, len), dtypes[i]);
    offset += len;
  }
  return out;
}

variable_list stack_tensors_backward(const Tensor& grad, int64_t dim, const std::vector<ScalarType>& dtypes) {
  variable_list out(dtypes.size());
  if (!grad.defined()) return out;
  dim = maybe_wrap_dim(dim, grad.dim(), "stack_tensors_backward");
  for (size_t i = 0; i < dtypes.size(); ++i) out[i] = to_dtype(grad.select(dim, static_cast<int64_t>(i)), dtypes[i]);
  return out;
}

Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef input_shape) {
  if (std::find(repeats.begin(), repeats.end(), 0) != repeats.end()) return zeros(input_shape, grad.options());
  const int64_t input_dims = static_cast<int64_t>(input_shape.size());
  const int64_t num_unsqueezed = grad.dim() - input_dims;
  Tensor g = grad;
  if (num_unsqueezed > 0) {
    std::vector<int64_t> leading;
    for (int64_t i = 0; i < num_unsqueezed; ++i) leading.push_back(i);
    g = g.sum(leading, false);
  }
  // Each repeated dimension becomes [repeat, size]; summing over `repeat` adds up the copies.
  std::vector<int64_t> grad_size, sum_dims;
  for (int64_t d = 0; d < input_dims; ++d) {
    const int64_t r = repeats[static_cast<size_t>(d + num_unsqueezed)];
    if (r != 1) {
      grad_size.push_back(r);
      sum_dims.push_back(static_cast<int64_t>(grad_size.size()) - 1);
    }
    grad_size.push_back(input_shape[static_cast<size_t>(d)]);
  }
  g = g.reshape(grad_size);
  return sum_dims.empty() ? g : g.sum(sum_dims, false);
}

// ---- indexing ------------------------------------------------------------------------------------

Tensor index_backward(const Tensor& grad, IntArrayRef self_sizes, const std::vector<std::optional<Tensor>>& indices) {
  return zeros(self_sizes, grad.options()).index_put(indices, grad, /*accumulate=*/true);
}

Tensor index_put_values_backward(const Tensor& grad, const std::vector<std::optional<Tensor>>& indices,
                                 IntArrayRef values_sizes, ScalarType values_st) {
  return reduce_grad(index(grad, indices), values_sizes, values_st);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  if (sizes.empty()) return grad.sum();
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "index_select_backward");
  return zeros(sizes, grad.options()).index_put(index_at_dim(dim, index.reshape({-1})), grad, /*accumulate=*/true);
}

Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index, bool sparse_grad) {
  EMBER_CHECK_NOT_IMPLEMENTED(!sparse_grad,
                              "[gather] sparse_grad=True asks for a sparse gradient, which Ember's autograd does "
                              "not produce (call gather with sparse_grad=False)");
  return zeros(self_sizes, grad.options()).scatter_add(dim, index, grad);
}

namespace {
// g padded with zeros at the end of each dim up to `sizes` (src beyond the index gets no gradient).
Tensor pad_to(Tensor g, IntArrayRef sizes) {
  for (int64_t d = 0; d < g.dim(); ++d) {
    const int64_t missing = sizes[static_cast<size_t>(d)] - g.size(d);
    if (missing <= 0) continue;
    std::vector<int64_t> shape(g.sizes().begin(), g.sizes().end());
    shape[static_cast<size_t>(d)] = missing;
    g = cat({g, zeros(shape, g.options())}, d);
  }
  return g;
}
}  // namespace

Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  if (index.numel() == 0) return zeros(src_sizes, grad.options());
  // Elements of src beyond the index's extent are never read: pad with zeros up to src's shape.
  return pad_to(grad.gather(dim, index), src_sizes);
}

Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask) {
  const std::vector<int64_t> shape = infer_size(self_sizes, mask.sizes());
  const Tensor z = zeros(shape, grad.options()).index_put({to_dtype(mask, kBool).expand(shape)}, grad);
  return sum_to(z, self_sizes);
}

Tensor masked_scatter_backward(const Tensor& grad, const Tensor& mask, IntArrayRef sizes) {
  const int64_t numel = product(sizes);
  Tensor selected = grad.masked_select(to_dtype(mask, kBool));
  const int64_t missing = numel - selected.numel();
  if (missing > 0) selected = cat({selected, zeros({missing}, grad.options())}, 0);
  return selected.reshape(sizes);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, IntArrayRef weight_sizes, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse) {
  EMBER_CHECK_NOT_IMPLEMENTED(!sparse,
                              "[embedding] sparse=True asks for a sparse gradient of weight, which Ember's autograd "
                              "does not produce (call embedding with sparse=False)");
  const int64_t num_weights = weight_sizes[0];
  if (!GradMode::is_enabled())
    return embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq);
  const Tensor idx = to_dtype(indices.reshape({-1}), kInt64);
  Tensor g = grad.reshape({idx.numel(), grad.size(-1)});
  if (padding_idx >= 0) g = g.masked_fill((idx == padding_idx).unsqueeze(1), 0);
  if (scale_grad_by_freq) {
    // Each row's gradient is divided by how often its index occurs in the batch.
    const Tensor counts =
        zeros({num_weights}, grad.options()).index_put({idx}, ones({idx.numel()}, grad.options()), true);
    g = g / counts.index_select(0, idx).unsqueeze(1);
  }
  return zeros({num_weights, grad.size(-1)}, grad.options()).index_put({idx}, g, /*accumulate=*/true);
}

// ---- neural-network operators --------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> convolution_backward_for_autograd(const Tensor& grad, const Tensor& input,
                                                                     const Tensor& weight, IntArrayRef stride,
                                                                     IntArrayRef padding, IntArrayRef dilation,
                                                                     bool transposed, IntArrayRef output_padding,
                                                                     int64_t groups,
                                                                     std::array<bool, 3> grad_input_mask) {
  if (!grad.defined()) return {};
  const std::vector<int64_t> bias_sizes{grad.size(1)};
  return convolution_backward(grad, input, weight, IntArrayRef(bias_sizes), stride, padding, dilation, transposed,
                              output_padding, groups, grad_input_mask);
}

std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(
    const Tensor& ggI_, const Tensor& ggW_, const Tensor& ggb_, const Tensor& gO, const Tensor& input,
    const Tensor& weight, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
    IntArrayRef output_padding, int64_t groups, std::array<bool, 3> grad_input_mask) {
  const Tensor ggI = if_computed(ggI_, input.sizes()), ggW = if_computed(ggW_, weight.sizes());
  const Tensor ggb = if_computed(ggb_, {gO.size(1)});
  // grad_input(gO, W) and grad_weight(gO, I) are the adjoints of conv(., W) and conv(I, .):
  // <ggI, grad_input> = <conv(ggI, W), gO> and <ggW, grad_weight> = <conv(I, ggW), gO>.
  Tensor g_gO, g_input, g_weight;
  if (grad_input_mask[0]) {
    if (ggI.defined())
      g_gO = convolution(ggI, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
    if (ggW.defined())
      g_gO = add_defined(
          g_gO, convolution(input, ggW, std::nullopt, stride, padding, dilation, transposed, output_padding, groups));
    if (ggb.defined()) {
      std::vector<int64_t> shape(static_cast<size_t>(gO.dim()), 1);
      shape[1] = ggb.numel();
      g_gO = add_defined(g_gO, ggb.reshape(shape));
      if (g_gO.sizes() != gO.sizes()) g_gO = g_gO.expand(gO.sizes());
    }
  }
  if (grad_input_mask[1] && ggW.defined())
    g_input = std::get<0>(convolution_backward(gO, input, ggW, std::nullopt, stride, padding, dilation, transposed,
                                               output_padding, groups, {true, false, false}));
  if (grad_input_mask[2] && ggI.defined())
    g_weight = std::get<1>(convolution_backward(gO, ggI, weight, std::nullopt, stride, padding, dilation, transposed,
                                                output_padding, groups, {false, true, false}));
  return {g_gO, g_input, g_weight};
}

Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, int64_t dim) {
  EMBER_CHECK(indices.dim() >= dim, "[max_pool_double_backward] indices must have at least {} dimensions", dim);
  if (indices.numel() == 0) return zeros(indices.sizes(), grad.options());
  // Indices are flat positions within each input plane: pick grad there.
  std::vector<int64_t> size(indices.sizes().begin(), indices.sizes().end() - dim);
  size.push_back(-1);
  return grad.reshape(size).gather(-1, indices.reshape(size)).reshape(indices.sizes());
}

Tensor adaptive_avg_pool2d_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes) {
  const size_t n = grad_output_sizes.size();
  return _adaptive_avg_pool2d(grad, {grad_output_sizes[n - 2], grad_output_sizes[n - 1]});
}

Tensor adaptive_avg_pool3d_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes) {
  const size_t n = grad_output_sizes.size();
  return _adaptive_avg_pool3d(grad, {grad_output_sizes[n - 3], grad_output_sizes[n - 2], grad_output_sizes[n - 1]});
}

Tensor avg_pool1d_backward(const Tensor& grad, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  const int64_t k = kernel_size[0], s = stride.empty() ? k : stride[0];
  return avg_pool2d_backward(grad.unsqueeze(-2), self.unsqueeze(-2), {1, k}, {1, s}, {0, padding[0]}, ceil_mode,
                             count_include_pad, std::nullopt)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d_backward(const Tensor& grad, const Tensor& self) {
  return _adaptive_avg_pool2d_backward(grad.unsqueeze(-2), self.unsqueeze(-2)).squeeze(-2);
}

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> negated(pad.begin(), pad.end());
  for (int64_t& p : negated) p = -p;
  return constant_pad_nd(grad, negated, 0);
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_for_autograd(
    const Tensor& grad, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool training, double eps,
    std::array<bool, 3> grad_input_mask) {
  if (!grad.defined()) return {};
  return native_batch_norm_backward(grad, input, opt(weight), opt(running_mean), opt(running_var), opt(save_mean),
                                    opt(save_invstd), training, eps, grad_input_mask);
}

std::tuple<Tensor, Tensor, Tensor> batchnorm_double_backward(const Tensor& input, const Tensor& gamma,
                                                             const Tensor& ggI_, const Tensor& ggG_, const Tensor& ggB_,
                                                             const Tensor& gO, const Tensor& running_mean,
                                                             const Tensor& running_var, bool training, double eps,
                                                             const Tensor& save_mean, const Tensor& save_invstd,
                                                             std::array<bool, 3> output_mask) {
  const Tensor ggI = if_computed(ggI_, input.sizes());
  const Tensor ggG = if_computed(ggG_, {input.size(1)}), ggB = if_computed(ggB_, {input.size(1)});
  const bool affine = gamma.defined();
  const Tensor gamma_expanded = affine ? expand_as_dim1(gamma, input) : ones({}, input.options());
  const Tensor ggG_expanded = ggG.defined() ? expand_as_dim1(ggG, input) : Tensor();
  const Tensor ggB_expanded = ggB.defined() ? expand_as_dim1(ggB, input) : Tensor();
  int64_t M = input.size(0);
  for (int64_t i = 2; i < input.dim(); ++i) M *= input.size(i);
  const double m = static_cast<double>(M);

  const ScalarType st = input.scalar_type();
  const Tensor mu = expand_as_dim1(training ? to_dtype(save_mean, st) : running_mean, input);
  const Tensor input_sub_mu = input - mu;
  const Tensor sigma2_eps_neg_1_2 =
      expand_as_dim1(training ? to_dtype(save_invstd, st) : (running_var + eps).pow(-0.5), input);
  const Tensor sigma2_eps_neg_1 = sigma2_eps_neg_1_2.pow(2);
  const Tensor sigma2_eps_neg_3_2 = sigma2_eps_neg_1_2.pow(3);
  const Tensor input_mu_sigma2_neg_3_2 = input_sub_mu * sigma2_eps_neg_3_2;
  const Tensor gOinmu_sum = sum_exclude_dim1(gO * input_sub_mu);
  const Tensor gO_sum = sum_exclude_dim1(gO);

  // The first backward's grad_input, for an output gradient gO_ and a scale gamma_.
  auto first_back_grad_input = [&](const Tensor& gO_, const Tensor& gamma_) {
    const Tensor h0 = (gamma_ * sigma2_eps_neg_1_2) / m;
    const Tensor h1 =
        gO_ * m - sum_exclude_dim1(gO_) - input_sub_mu * sigma2_eps_neg_1 * sum_exclude_dim1(gO_ * input_sub_mu);
    return h0 * h1;
  };

  Tensor gI;
  if (output_mask[0]) {
    if (ggI.defined() && training) {
      const Tensor ggI_sum = sum_exclude_dim1(ggI);
      const Tensor ggIinmu_sum = sum_exclude_dim1(ggI * input_sub_mu);
      const Tensor all_sub =
          ggI_sum * gO_sum / m - sum_exclude_dim1(gO * ggI) + sigma2_eps_neg_1 * gOinmu_sum * ggIinmu_sum * (3.0 / m);
      const Tensor gI_0t = input_mu_sigma2_neg_3_2 * all_sub / m;
      const Tensor gI_1t = (ggIinmu_sum * sigma2_eps_neg_3_2 / m) * (gO_sum / m - gO);
      const Tensor gI_2t = (gOinmu_sum * sigma2_eps_neg_3_2 / m) * (ggI_sum / m - ggI);
      gI = gamma_expanded * (gI_0t + gI_1t + gI_2t);
    }
    if (ggG.defined()) {
      Tensor term;
      if (training) {
        const Tensor t0 = gO * sigma2_eps_neg_1_2;
        const Tensor t1 = sigma2_eps_neg_1_2 * gO_sum / -m;
        const Tensor t2 = input_mu_sigma2_neg_3_2 * gOinmu_sum / -m;
        term = ggG_expanded * (t0 + t1 + t2);
      } else {
        term = ggG_expanded * sigma2_eps_neg_1_2 * gO;
      }
      gI = add_defined(gI, term);
    }
  }

  Tensor gG;
  if (output_mask[1] && affine && ggI.defined()) {
    if (training)
      gG = sum_exclude_dim1(ggI * first_back_grad_input(gO, ones({}, input.options())), false);
    else
      gG = sum_exclude_dim1(ggI * gO * sigma2_eps_neg_1_2, false);
  }

  Tensor ggO;
  if (output_mask[2]) {
    if (ggI.defined())
      ggO = training ? first_back_grad_input(ggI, gamma_expanded) : ggI * sigma2_eps_neg_1_2 * gamma_expanded;
    if (ggG.defined()) ggO = add_defined(ggO, ggG_expanded * input_sub_mu * sigma2_eps_neg_1_2);
    if (ggB.defined()) ggO = add_defined(ggO, ggB_expanded);
    if (ggO.defined() && ggO.sizes() != gO.sizes()) ggO = ggO.expand(gO.sizes());
  }
  return {gI, gG, ggO};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_for_autograd(const Tensor& grad, const Tensor& input,
                                                                           IntArrayRef normalized_shape,
                                                                           const Tensor& mean, const Tensor& rstd,
                                                                           const Tensor& weight, const Tensor& bias,
                                                                           std::array<bool, 3> grad_input_mask) {
  if (!grad.defined()) return {};
  return native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, opt(weight), opt(bias), grad_input_mask);
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(const Tensor& input_t, const Tensor& gamma,
                                                              const Tensor& ggI_, const Tensor& ggG_,
                                                              const Tensor& ggB_, const Tensor& gO_t,
                                                              const Tensor& save_mean_t, const Tensor& save_invstd_t,
                                                              IntArrayRef normalized_shape,
                                                              std::array<bool, 3> output_mask) {
  const Tensor ggI = if_computed(ggI_, input_t.sizes());
  const Tensor ggG = if_computed(ggG_, normalized_shape), ggB = if_computed(ggB_, normalized_shape);
  const int64_t axis = input_t.dim() - static_cast<int64_t>(normalized_shape.size());
  int64_t M = 1, N = 1;
  for (int64_t i = 0; i < input_t.dim(); ++i) (i < axis ? M : N) *= input_t.size(i);
  const double n = static_cast<double>(N);

  const Tensor input = input_t.reshape({M, N});
  const Tensor gO = gO_t.reshape({M, N});
  const ScalarType st = input.scalar_type();
  const Tensor mu = to_dtype(save_mean_t, st).reshape({M, 1});
  const Tensor sigma2_eps_neg_1_2 = to_dtype(save_invstd_t, st).reshape({M, 1});

  const bool affine = gamma.defined();
  const Tensor gamma_expanded = affine ? gamma.reshape({1, N}) : ones({1}, input.options());
  const Tensor ggG_expanded = ggG.defined() ? ggG.reshape({1, N}) : Tensor();
  const Tensor ggB_expanded = ggB.defined() ? ggB.reshape({1, N}) : Tensor();
  const Tensor ggI_expanded = ggI.defined() ? ggI.reshape({M, N}) : Tensor();

  const Tensor input_sub_mu = input - mu;
  const Tensor sigma2_eps_neg_1 = sigma2_eps_neg_1_2.pow(2);
  const Tensor sigma2_eps_neg_3_2 = sigma2_eps_neg_1_2.pow(3);
  const Tensor input_mu_sigma2_neg_3_2 = input_sub_mu * sigma2_eps_neg_3_2;

  auto row_sum = [](const Tensor& t) { return t.sum({1}, true); };
  // The first backward's grad_input, for an output gradient gO_local and a scale gamma_local.
  auto first_bwd_fn_grad_input = [&](const Tensor& gO_local, const Tensor& gamma_local) {
    const Tensor h0 = (gamma_local * sigma2_eps_neg_1_2) / n;
    const Tensor h1 =
        gO_local * n - row_sum(gO_local) - input_sub_mu * sigma2_eps_neg_1 * row_sum(gO_local * input_sub_mu);
    return h0 * h1;
  };

  Tensor gI;
  if (output_mask[0]) {
    if (ggI.defined()) {
      const Tensor gxhat = gO * gamma_expanded;
      const Tensor gxhat_mu_sum = row_sum(gxhat * input_sub_mu);
      const Tensor gxhat_sum = row_sum(gxhat);
      const Tensor ggI_sum = row_sum(ggI_expanded);
      const Tensor ggI_mu_sum = row_sum(ggI_expanded * input_sub_mu);
      const Tensor all_sub = ggI_sum * gxhat_sum / n - row_sum(ggI_expanded * gxhat) +
                             sigma2_eps_neg_1 * gxhat_mu_sum * ggI_mu_sum * (3.0 / n);
      const Tensor gI_0t = input_mu_sigma2_neg_3_2 * all_sub / n;
      const Tensor gI_1t = (ggI_mu_sum * sigma2_eps_neg_3_2 / n) * (gxhat_sum / n - gxhat);
      const Tensor gI_2t = (gxhat_mu_sum * sigma2_eps_neg_3_2 / n) * (ggI_sum / n - ggI_expanded);
      gI = gI_0t + gI_1t + gI_2t;
    }
    if (ggG.defined()) {
      const Tensor t0 = gO * ggG_expanded * sigma2_eps_neg_1_2;
      const Tensor t1 = sigma2_eps_neg_1_2 * row_sum(gO * ggG_expanded) / -n;
      const Tensor t2 = input_mu_sigma2_neg_3_2 * row_sum(gO * ggG_expanded * input_sub_mu) / -n;
      gI = add_defined(gI, t0 + t1 + t2);
    }
    if (gI.defined()) gI = gI.reshape(input_t.sizes());
  }

  Tensor gG;
  if (output_mask[1] && affine && ggI.defined()) {
    gG = (gO * first_bwd_fn_grad_input(ggI_expanded, ones({}, input.options()))).sum({0}, false);
    gG = gG.reshape(gamma.sizes());
  }

  Tensor ggO;
  if (output_mask[2]) {
    if (ggI.defined()) ggO = first_bwd_fn_grad_input(ggI_expanded, gamma_expanded);
    if (ggG.defined()) ggO = add_defined(ggO, ggG_expanded * input_sub_mu * sigma2_eps_neg_1_2);
    if (ggB.defined()) ggO = add_defined(ggO, ggB_expanded);
    if (ggO.defined()) ggO = ggO.expand({M, N}).reshape(input_t.sizes());
  }
  return {gI, gG, ggO};
}

// ---- indexing, scatter and shape operators (index-shape) -------------------------------------------


std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src_in, std::string_view reduce,
                                                   bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  if (index.numel() == 0) return {grad, zeros_like(src_in)};
  // Only src's elements within the index's extent are read.
  Tensor src = src_in;
  for (int64_t d = 0; d < index.dim(); ++d)
    if (src.size(d) > index.size(d)) src = src.narrow(d, 0, index.size(d));
  const ScalarType st = self.scalar_type();
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = grad.gather(dim, index);
  } else if (reduce == "prod") {
    // Exclusive products where a factor is zero: such a factor's gradient is the product of the others.
    const Tensor masked_self = self.masked_fill(self == 0, 1);
    grad_self = grad * masked_self.scatter_reduce(dim, index, src, reduce, include_self) / masked_self;
    const Tensor src_zero = src == 0;
    const Tensor src_num_zeros = zeros_like(self).scatter_add(dim, index, to_dtype(src_zero, st)).gather(dim, index);
    const Tensor src_single_zero = logical_and(src_zero, src_num_zeros == 1);
    const Tensor masked_src_result =
        self.scatter_reduce(dim, index, src.masked_fill(src_single_zero, 1), reduce, include_self);
    grad_src = where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                     (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1));
  } else if (reduce == "mean") {
    Tensor n = include_self ? ones_like(grad) : zeros_like(grad);
    n = n.scatter_add(dim, index, ones_like(src));
    n = n.masked_fill(n == 0, 1);
    grad_self = grad / n;
    grad_src = grad.gather(dim, index) / n.gather(dim, index);
  } else {  // amax, amin: ties share evenly
    const Tensor value = result.gather(dim, index);
    const Tensor self_is_result = to_dtype(self == result, st);
    const Tensor src_is_result = to_dtype(src == value, st);
    const Tensor distributed = grad / self_is_result.scatter_add(dim, index, src_is_result);
    grad_self = self_is_result * distributed;
    grad_src = src_is_result * distributed.gather(dim, index);
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, 0);
  return {grad_self, pad_to(grad_src, src_in.sizes())};
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, int64_t source_dim,
                                 const Scalar& alpha) {
  Tensor g = grad.index_select(dim, index);
  if (source_dim == 0) g = g.reshape({});
  return maybe_multiply(g, alpha);
}

Tensor take_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& index) {
  return zeros({product(self_sizes)}, grad.options())
      .index_put({index.reshape({-1})}, grad.reshape({-1}), true)
      .view(self_sizes);
}

Tensor split_with_sizes_backward(const variable_list& grads, IntArrayRef split_sizes, int64_t dim, IntArrayRef sizes,
                                 const TensorOptions& options) {
  const auto defined = std::find_if(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
  if (defined == grads.end()) return Tensor();
  (void)options;
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "split_with_sizes_backward");
  std::vector<Tensor> parts;
  parts.reserve(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) {
      parts.push_back(grads[i]);
      continue;
    }
    std::vector<int64_t> shape(sizes.begin(), sizes.end());
    shape[static_cast<size_t>(dim)] = split_sizes[i];
    parts.push_back(zeros(shape, defined->options()));
  }
  return cat(parts, dim);
}

Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims) {
  std::vector<int64_t> back(shifts.begin(), shifts.end());
  for (int64_t& s : back) s = -s;
  return grad.roll(back, dims);
}

// ---- linear algebra (Note [Linear algebra derivatives]) ------------------------------------------

namespace {

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

// x with the entries above diagonal k zeroed (tril), through a mask.
Tensor tril_of(const Tensor& x, int64_t k = 0) {
  const TensorOptions idx = TensorOptions().dtype(kInt64).device(x.device());
  const Tensor rows = ember::arange(x.size(-2), idx).unsqueeze(-1);
  const Tensor cols = ember::arange(x.size(-1), idx);
  return ember::where(cols.le(rows + k), x, ember::zeros(IntArrayRef{}, x.options()));
}

// [..., n] -> [..., n, n] with v on the diagonal.
Tensor diag_embed_of(const Tensor& v) { return v.unsqueeze(-1) * ember::eye(v.size(-1), v.options()); }

// A batch of n x n identities scaled by s ([...] -> [..., n, n]).
Tensor scaled_eye(const Tensor& s, int64_t n) { return s.unsqueeze(-1).unsqueeze(-1) * ember::eye(n, s.options()); }

// PyTorch's gA for A = QR with m >= n (Q m x n, R n x n): (gQ + Q copyltu(M)) R^{-T}, where
// M = R gR^T - gQ^T Q and copyltu mirrors M's lower triangle onto its upper one.
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  const Tensor M = ember::matmul(R, mT(gR)) - ember::matmul(mT(gQ), Q);
  const Tensor sym = tril_of(M) + mT(tril_of(M, -1));
  return ember::linalg_solve(mT(R), gQ + ember::matmul(Q, sym), /*left=*/false);
}

}  // namespace

Tensor linalg_inv_backward(const Tensor& grad, const Tensor& inverse) {
  const Tensor it = mT(inverse);
  return ember::matmul(it, ember::matmul(grad, it)).neg();
}

// AX = B: gB = A^{-T} gX and gA = -gB X^T (XA = B: gB = gX A^{-T}, gA = -X^T gB), each summed
// over the batch dimensions its input was broadcast along.
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& A,
                                                 IntArrayRef B_sizes, bool left, std::array<bool, 2> grad_input_mask) {
  const Tensor gB = ember::linalg_solve(mT(A), grad, left);
  Tensor gA;
  if (grad_input_mask[0]) {
    const bool vector_case = X.dim() < A.dim();
    const Tensor gBm = vector_case ? gB.unsqueeze(-1) : gB;
    const Tensor Xm = vector_case ? X.unsqueeze(-1) : X;
    gA = sum_to((left ? ember::matmul(gBm, mT(Xm)) : ember::matmul(mT(Xm), gBm)).neg(), A.sizes());
  }
  return {std::move(gA), grad_input_mask[1] ? sum_to(gB, B_sizes) : Tensor()};
}

// A = L L^T: gA = L^{-T} sym(tril(L^T gL) with its diagonal halved) L^{-1}.
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L) {
  const Tensor L_ = upper ? mT(L) : L;
  const Tensor gL = upper ? mT(grad) : grad;
  Tensor phi = tril_of(ember::matmul(mT(L_), gL));
  phi = (phi + mT(tril_of(phi, -1))) * 0.5;
  return ember::linalg_solve(L_, ember::linalg_solve(mT(L_), phi, true), /*left=*/false);
}

Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, std::string_view mode) {
  const int64_t m = Q.dim() >= 2 ? Q.size(-2) : 0, n = R.size(-1);
  EMBER_CHECK(mode != "r",
              "[linalg.qr] The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  EMBER_CHECK(mode != "complete" || m <= n,
              "[linalg.qr] The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  if (m >= n) return qr_backward_tall(gQ, gR, Q, R);
  // A = [X | Y] with X square: X = Q U and Y = Q V, where R = [U | V].
  const Tensor U = R.narrow(-1, 0, m), gU = gR.narrow(-1, 0, m);
  const Tensor gV = gR.narrow(-1, m, n - m);
  const Tensor Y = ember::matmul(Q, R.narrow(-1, m, n - m));
  const Tensor gX = qr_backward_tall(gQ + ember::matmul(Y, mT(gV)), gU, Q, U);
  return ember::cat({gX, ember::matmul(Q, gV)}, -1);
}

Tensor svd_backward(const Tensor& gU_, const Tensor& gS, const Tensor& gVh_, const Tensor& U_, const Tensor& S,
                    const Tensor& Vh_, bool full_matrices, bool compute_uv) {
  EMBER_CHECK(compute_uv,
              "[linalg.svd] svd_backward: Setting compute_uv to false in torch.svd doesn't compute singular matrices, "
              "and hence we cannot compute backward. Please use torch.svd(compute_uv=True)");
  const int64_t k = S.size(-1);
  const Tensor U = full_matrices ? U_.narrow(-1, 0, k) : U_, gU = full_matrices ? gU_.narrow(-1, 0, k) : gU_;
  const Tensor Vh = full_matrices ? Vh_.narrow(-2, 0, k) : Vh_, gVh = full_matrices ? gVh_.narrow(-2, 0, k) : gVh_;
  const int64_t m = U.size(-2), n = Vh.size(-1);
  const Tensor V = mT(Vh), gV = mT(gVh);
  const Tensor UhgU = ember::matmul(mT(U), gU), VhgV = ember::matmul(Vh, gV);
  const Tensor S2 = S * S;
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + ember::eye(k, S.options());
  Tensor gA = ((UhgU - mT(UhgU)) * S.unsqueeze(-2) + S.unsqueeze(-1) * (VhgV - mT(VhgV))) / E + diag_embed_of(gS);
  if (m > n) {
    const Tensor gUSinv = gU / S.unsqueeze(-2);
    gA = ember::matmul(U, gA) + gUSinv - ember::matmul(U, ember::matmul(mT(U), gUSinv));
    return ember::matmul(gA, Vh);
  }
  if (m < n) {
    const Tensor gVSinvT = mT(gV / S.unsqueeze(-2));
    gA = ember::matmul(gA, Vh) + gVSinvT - ember::matmul(ember::matmul(gVSinvT, V), Vh);
    return ember::matmul(U, gA);
  }
  return ember::matmul(U, ember::matmul(gA, Vh));
}

Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V, bool compute_v) {
  EMBER_CHECK(compute_v,
              "[linalg.eigh] linalg_eigh_backward: torch.linalg.eigvalsh does not compute the eigenvectors, which the "
              "derivative needs. Please use torch.linalg.eigh instead.");
  const int64_t n = L.size(-1);
  const Tensor VhgV = ember::matmul(mT(V), gV);
  const Tensor skew = (VhgV - mT(VhgV)) * 0.5;
  const Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1) + ember::eye(n, L.options());
  return ember::matmul(V, ember::matmul(skew / E + diag_embed_of(gL), mT(V)));
}

Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A) {
  const int64_t n = A.size(-1);
  if (A.numel() == 0) return ember::zeros_like(A);
  if (!ember::any(det.eq(0)).item().toBool()) return ember::linalg_solve(mT(A), scaled_eye(grad * det, n), true);
  // Some matrix is singular: d det(A) = det(U) det(V^T) U diag(prod_{j != i} s_j) V^T.
  auto [U, S, Vh] = ember::linalg_svd(A, false);
  const Tensor ones = ember::ones_like(S.narrow(-1, 0, 1));
  const Tensor before = ember::cat({ones, ember::cumprod(S.narrow(-1, 0, n - 1), -1)}, -1);
  const Tensor rS = ember::flip(S, {-1});
  const Tensor after = ember::flip(ember::cat({ones, ember::cumprod(rS.narrow(-1, 0, n - 1), -1)}, -1), {-1});
  const Tensor scale = grad * ember::linalg_det(U) * ember::linalg_det(Vh);
  return scale.unsqueeze(-1).unsqueeze(-1) * ember::matmul(U, ember::matmul(diag_embed_of(before * after), Vh));
}

Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A) {
  return ember::linalg_solve(mT(A), scaled_eye(grad_logabsdet, A.size(-1)), true);
}

// ---- Core ATen nn kernels -------------------------------------------------------------------------

Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t dim, const Tensor& output) {
  return grad_output * grad - (output * grad_output).sum({dim}, true) * grad -
         grad_output * (output * grad).sum({dim}, true);
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_for_autograd(const Tensor& grad, const Tensor& input,
                                                                           const Tensor& mean, const Tensor& rstd,
                                                                           const Tensor& weight, int64_t N, int64_t C,
                                                                           int64_t HxW, int64_t group, double eps,
                                                                           std::array<bool, 3> grad_input_mask) {
  if (!grad.defined()) return {};
  if (!GradMode::is_enabled())
    return native_group_norm_backward(grad, input, mean, rstd, opt(weight), N, C, HxW, group, grad_input_mask);
  // Differentiable: the statistics recomputed from input, then layer norm's formula per group.
  const Tensor x = input.reshape({N, group, -1});
  const Tensor xc = x - x.mean({2}, true);
  const Tensor rs = ((xc * xc).mean({2}, true) + eps).rsqrt();
  const Tensor xhat = xc * rs;
  const Tensor g = grad.reshape({N, C, HxW});
  Tensor gI, gW, gB;
  if (grad_input_mask[0]) {
    const Tensor gw = (weight.defined() ? g * weight.view({1, C, 1}) : g).reshape({N, group, -1});
    gI = (rs * (gw - gw.mean({2}, true) - xhat * (gw * xhat).mean({2}, true))).reshape(input.sizes());
  }
  if (grad_input_mask[1] && weight.defined()) gW = (g * xhat.reshape({N, C, HxW})).sum({0, 2});
  if (grad_input_mask[2]) gB = g.sum({0, 2});
  return {gI, gW, gB};
}

Tensor native_dropout_backward_for_autograd(const Tensor& grad, const Tensor& mask, double p,
                                            std::optional<bool> train) {
  const double scale = train.value_or(true) ? (p == 1 ? 0.0 : 1.0 / (1.0 - p)) : 1.0;
  if (!GradMode::is_enabled()) return native_dropout_backward(grad, mask, scale);
  return grad * to_dtype(mask, grad.scalar_type()) * scale;
}

Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx,
                                       bool scale_grad_by_freq) {
  const Tensor idx = to_dtype(indices.reshape({-1}), kInt64);
  Tensor r = grad.index_select(0, idx);
  if (padding_idx >= 0) r = r.masked_fill((idx == padding_idx).unsqueeze(1), 0);
  if (scale_grad_by_freq) {
    const Tensor counts =
        zeros({grad.size(0)}, grad.options()).index_put({idx}, ones({idx.numel()}, grad.options()), true);
    r = r / counts.index_select(0, idx).unsqueeze(1);
  }
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end());
  shape.push_back(grad.size(1));
  return r.reshape(shape);
}

Tensor embedding_bag_backward_for_autograd(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                           const Tensor& offsets, const Tensor& offset2bag, const Tensor& bag_size,
                                           const Tensor& max_indices, bool scale_grad_by_freq, int64_t mode,
                                           bool sparse, const Tensor& per_sample_weights, int64_t padding_idx) {
  EMBER_CHECK_NOT_IMPLEMENTED(!sparse,
                              "[_embedding_bag] sparse=True asks for a sparse gradient of weight, which Ember's "
                              "autograd does not produce");
  const int64_t num_weights = weight.size(0), D = weight.size(1);
  if (!GradMode::is_enabled())
    return _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, max_indices, num_weights,
                                   scale_grad_by_freq, mode, false, opt(per_sample_weights), padding_idx);
  const TensorOptions i64 = index_options(grad);
  if (mode == 2) {  // each bag's maximum came from max_indices' row; empty bags give nothing
    const Tensor filled = to_dtype(bag_size.gt(0).unsqueeze(1), grad.scalar_type());
    const Tensor rows = to_dtype(max_indices, kInt64).reshape({-1});
    const Tensor cols = arange(D, i64).repeat({grad.size(0)});
    return zeros({num_weights, D}, grad.options()).index_put({rows, cols}, (grad * filled).reshape({-1}), true);
  }
  const Tensor idx = to_dtype(indices, kInt64), o2b = to_dtype(offset2bag, kInt64);
  Tensor g = grad.index_select(0, o2b);
  if (mode == 1) {  // empty bags divide by 1: no index reads them
    const Tensor n = to_dtype(bag_size, grad.scalar_type()) + to_dtype(bag_size.eq(0), grad.scalar_type());
    g = g / n.index_select(0, o2b).unsqueeze(1);
  }
  if (per_sample_weights.defined()) g = g * per_sample_weights.unsqueeze(1);
  if (padding_idx >= 0) g = g.masked_fill((idx == padding_idx).unsqueeze(1), 0);
  if (scale_grad_by_freq) {
    const Tensor counts =
        zeros({num_weights}, grad.options()).index_put({idx}, ones({idx.numel()}, grad.options()), true);
    g = g / counts.index_select(0, idx).unsqueeze(1);
  }
  return zeros({num_weights, D}, grad.options()).index_put({idx}, g, true);
}

Tensor embedding_bag_per_sample_weights_backward_for_autograd(const Tensor& grad, const Tensor& weight,
                                                              const Tensor& indices, const Tensor& offsets,
                                                              const Tensor& offset2bag, int64_t mode,
                                                              int64_t padding_idx) {
  if (!GradMode::is_enabled())
    return _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx);
  EMBER_CHECK(mode == 0, "[_embedding_bag] per_sample_weights is only supported with mode 0 (sum), got mode {}", mode);
  const Tensor idx = to_dtype(indices, kInt64);
  Tensor r = (grad.index_select(0, to_dtype(offset2bag, kInt64)) * weight.index_select(0, idx)).sum({1});
  if (padding_idx >= 0) r = r.masked_fill(idx == padding_idx, 0);
  return r;
}

namespace {

const std::vector<int64_t> kLastDim{-1};  // a named list: an optional dim list must not dangle

// d dist / d (x1 - x2) per coordinate difference (Note [Distance p cases] in plugins/cpu/nn_core.cpp),
// from differentiable operators; dist has diff's shape but a last dimension of 1.
Tensor dist_grad_factor(const Tensor& diff, const Tensor& dist, double p) {
  if (p == 0) return zeros_like(diff);
  if (p == 1) return diff.sign();
  const Tensor zero = zeros({}, diff.options());
  const Tensor safe = where(dist == 0, ones({}, diff.options()), dist);
  Tensor f;
  if (p == 2)
    f = diff / safe;
  else if (std::isinf(p))
    f = diff.sign() * to_dtype(diff.abs() == dist, diff.scalar_type());
  else if (p < 2)
    f = diff.sign() * diff.abs().pow(p - 1) / safe.pow(p - 1);
  else
    f = diff * diff.abs().pow(p - 2) / safe.pow(p - 1);
  return where(dist == 0, zero, f);
}

}  // namespace

Tensor cdist_backward_for_autograd(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                                   const Tensor& result, bool for_x1) {
  if (!GradMode::is_enabled()) {
    if (for_x1) return _cdist_backward(grad.contiguous(), x1, x2, p, result);
    return _cdist_backward(grad.transpose(-2, -1).contiguous(), x2, x1, p, result.transpose(-2, -1).contiguous());
  }
  // (..., P, R, M) differences; the distances recomputed so that they depend on x1 and x2.
  const Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);
  const Tensor dist = p == 0 ? result.unsqueeze(-1) : linalg_vector_norm(diff, p, IntArrayRef(kLastDim), true);
  const Tensor gf = grad.unsqueeze(-1) * dist_grad_factor(diff, dist, p);
  return for_x1 ? sum_to(gf.sum({-2}), x1.sizes()) : sum_to(gf.sum({-3}).neg(), x2.sizes());
}

Tensor pdist_backward_for_autograd(const Tensor& grad, const Tensor& self, double p, const Tensor& result) {
  if (!GradMode::is_enabled()) return _pdist_backward(grad, self, p, result);
  const int64_t n = self.size(0);
  std::vector<int64_t> is, js;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      is.push_back(i);
      js.push_back(j);
    }
  const int64_t k = static_cast<int64_t>(is.size());
  const Tensor I = from_blob(is.data(), {k}, kInt64).clone().to(self.device());
  const Tensor J = from_blob(js.data(), {k}, kInt64).clone().to(self.device());
  const Tensor diff = self.index_select(0, I) - self.index_select(0, J);
  const Tensor dist = p == 0 ? result.unsqueeze(-1) : linalg_vector_norm(diff, p, IntArrayRef(kLastDim), true);
  const Tensor gf = grad.unsqueeze(-1) * dist_grad_factor(diff, dist, p);
  return zeros_like(self).index_put({I}, gf, true).index_put({J}, gf.neg(), true);
}

// ---- complex numbers and FFT -----------------------------------------------------------------------

Tensor angle_backward(const Tensor& grad, const Tensor& self) {
  if (!self.is_complex()) return zeros_like(self);
  // d angle = Im(dz / z): the gradient w.r.t. z is grad * i z / |z|^2 (z = 0 gives NaN here,
  // where PyTorch gives 0).
  return grad * self * Scalar(std::complex<double>(0.0, 1.0)) / self.abs().pow(2);
}

Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        int64_t last_dim_size) {
  if (!onesided) return real(_fft_c2c(grad, dim, normalization, false));
  const int64_t last = dim.back() < 0 ? dim.back() + grad.dim() : dim.back();
  const int64_t pad = last_dim_size - grad.size(last);
  Tensor full = grad;
  if (pad > 0) {
    std::vector<int64_t> shape(grad.sizes().begin(), grad.sizes().end());
    shape[last] = pad;
    full = cat({grad, zeros(shape, grad.options())}, last);
  }
  return real(_fft_c2c(full, dim, normalization, false));
}

Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization) {
  Tensor gi = _fft_r2c(grad, dim, normalization, true);
  const int64_t last = dim.back() < 0 ? dim.back() + grad.dim() : dim.back();
  const int64_t double_length = grad.size(last) - gi.size(last);
  if (double_length > 0) {
    // Entries 1 .. double_length stand for themselves and their conjugate mirror.
    std::vector<int64_t> shape(static_cast<size_t>(grad.dim()), 1);
    shape[last] = gi.size(last);
    Tensor w = ones({gi.size(last)},
                    TensorOptions().dtype(gi.scalar_type() == kComplex64 ? kFloat32 : kFloat64).device(gi.device()));
    w.slice(0, 1, 1 + double_length).fill_(2);
    gi = gi * w.reshape(shape);
  }
  return gi;
}

Tensor abs_backward(const Tensor& grad, const Tensor& self) {
  // sgn(z) = z / |z| for a complex self (NaN at 0, where PyTorch's sgn gives 0).
  if (self.is_complex()) return grad * (self / self.abs());
  return grad * self.sign();
}

}  // namespace ember::autograd::generated::details
