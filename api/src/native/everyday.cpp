// LibTorch's aliases (NumPy-style and long-form names of existing operators) and the everyday
// functions it composes from other operators: pointwise math (exp2, logit, xlogy, logaddexp, sinc,
// float_power, heaviside, ...), activations (celu, selu, relu6, glu, hardshrink, softshrink,
// log_sigmoid, prelu), pixel_shuffle, NaN-aware and counting reductions, isclose and diff,
// cross/kron/rot90, stacking and splitting, matrix_power, and the addmm-like family.
// CompositeImplicitAutograd: autograd differentiates the parts, every backend runs them.
#include <cmath>
#include <numbers>

#include "Composite.h"
#include "ember/api/Operators.h"
#include "ember/native/LinalgRules.h"

namespace ember::native {

namespace {

// An in-place composite: the functional `f` of self written back into self, which must be able to
// hold it (its dtype and its shape, as LibTorch's in-place kernels require). Under autograd `f`
// reads a copy (when self or another of its `inputs` requires grad), so what its graph saves is not
// the self the write bumps.
template <class F>
Tensor& assign_(const char* op, Tensor& self, F&& f, std::initializer_list<Tensor> inputs = {}) {
  bool graph = self.requires_grad();
  for (const Tensor& t : inputs) graph = graph || (t.defined() && t.requires_grad());
  const Tensor result = f(graph ? self.clone() : self);
  EMBER_CHECK_TYPE(can_cast(result.scalar_type(), self.scalar_type()),
                   "[{}] result type {} can't be cast to the desired output type {}", op, result.scalar_type(),
                   self.scalar_type());
  EMBER_CHECK(result.sizes() == self.sizes(), "[{}] output with shape {} doesn't match the broadcast shape {}", op,
              self.sizes(), result.sizes());
  self.copy_(result);
  return self;
}

// self in the dtype a floating unary function computes in: integers and bool in the default dtype.
Tensor to_floating(const Tensor& self) {
  return is_integral_type(self.scalar_type(), true) ? self.to(get_default_dtype()) : self;
}

void check_floating(const char* op, const Tensor& self) {
  EMBER_CHECK_TYPE(is_floating_type(self.scalar_type()), "[{}] expected a floating point tensor, got {}", op,
                   self.scalar_type());
}

// A Scalar operand as a 0-dim tensor of the dtype the pair promotes to (a wrapped number's rule),
// and the tensor operand in that dtype.
Tensor scalar_operand(const Scalar& s, ScalarType dtype, const Tensor& like) {
  return scalar_tensor(s, like.options().dtype(dtype));
}

}  // namespace

// ---- aliases ----------------------------------------------------------------------------------------

Tensor square(const Tensor& self) { return ember::pow(self, 2); }
Tensor& square_(Tensor& self) { return self.pow_(2); }

Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return ember::sub(other, self, alpha); }
Tensor rsub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_defined("rsub", self, "self");
  return ember::sub(scalar_operand(other, result_type(self, other), self), self, alpha);
}

Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return ember::clamp(self, min, max);
}
Tensor clip_tensor(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return ember::clamp(self, min, max);
}
Tensor& clip_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return ember::clamp_(self, min, max);
}
Tensor& clip_tensor_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return ember::clamp_(self, min, max);
}

Tensor absolute(const Tensor& self) { return ember::abs(self); }
Tensor& absolute_(Tensor& self) { return self.abs_(); }
Tensor negative(const Tensor& self) { return ember::neg(self); }
Tensor& negative_(Tensor& self) { return self.neg_(); }

Tensor subtract(const Tensor& self, const Tensor& other, const Scalar& alpha) { return ember::sub(self, other, alpha); }
Tensor& subtract_(Tensor& self, const Tensor& other, const Scalar& alpha) { return self.sub_(other, alpha); }
Tensor subtract_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return ember::sub(self, other, alpha);
}
Tensor& subtract_scalar_(Tensor& self, const Scalar& other, const Scalar& alpha) { return self.sub_(other, alpha); }

Tensor multiply(const Tensor& self, const Tensor& other) { return ember::mul(self, other); }
Tensor& multiply_(Tensor& self, const Tensor& other) { return self.mul_(other); }
Tensor multiply_scalar(const Tensor& self, const Scalar& other) { return ember::mul(self, other); }
Tensor& multiply_scalar_(Tensor& self, const Scalar& other) { return self.mul_(other); }

Tensor divide(const Tensor& self, const Tensor& other) { return ember::div(self, other); }
Tensor& divide_(Tensor& self, const Tensor& other) { return self.div_(other); }
Tensor divide_scalar(const Tensor& self, const Scalar& other) { return ember::div(self, other); }
Tensor& divide_scalar_(Tensor& self, const Scalar& other) { return self.div_(other); }
Tensor divide_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return ember::div(self, other, rounding_mode);
}
Tensor& divide_mode_(Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return self.div_(other, rounding_mode);
}
Tensor divide_scalar_mode(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return ember::div(self, other, rounding_mode);
}
Tensor& divide_scalar_mode_(Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return self.div_(other, rounding_mode);
}

Tensor fix(const Tensor& self) { return ember::trunc(self); }
Tensor& fix_(Tensor& self) { return self.trunc_(); }

#define EMBER_UNARY_ALIAS(alias, op)                           \
  Tensor alias(const Tensor& self) { return ember::op(self); } \
  Tensor& alias##_(Tensor& self) { return self.op##_(); }
EMBER_UNARY_ALIAS(arccos, acos)
EMBER_UNARY_ALIAS(arcsin, asin)
EMBER_UNARY_ALIAS(arctan, atan)
EMBER_UNARY_ALIAS(arccosh, acosh)
EMBER_UNARY_ALIAS(arcsinh, asinh)
EMBER_UNARY_ALIAS(arctanh, atanh)
#undef EMBER_UNARY_ALIAS

Tensor arctan2(const Tensor& self, const Tensor& other) { return ember::atan2(self, other); }
Tensor& arctan2_(Tensor& self, const Tensor& other) { return self.atan2_(other); }

#define EMBER_COMPARE_ALIAS(alias, op)                                                              \
  Tensor alias(const Tensor& self, const Tensor& other) { return ember::op(self, other); }          \
  Tensor alias##_scalar(const Tensor& self, const Scalar& other) { return ember::op(self, other); } \
  Tensor& alias##_(Tensor& self, const Tensor& other) { return self.op##_(other); }                 \
  Tensor& alias##_scalar_(Tensor& self, const Scalar& other) { return self.op##_(other); }
EMBER_COMPARE_ALIAS(greater, gt)
EMBER_COMPARE_ALIAS(greater_equal, ge)
EMBER_COMPARE_ALIAS(less, lt)
EMBER_COMPARE_ALIAS(less_equal, le)
EMBER_COMPARE_ALIAS(not_equal, ne)
#undef EMBER_COMPARE_ALIAS

Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }
Tensor reshape_as(const Tensor& self, const Tensor& other) { return self.reshape(other.sizes()); }
Tensor type_as(const Tensor& self, const Tensor& other) { return self.to(other); }

// ---- pointwise math ---------------------------------------------------------------------------------

Tensor exp2(const Tensor& self) {
  check_defined("exp2", self, "self");
  const Tensor x = to_floating(self);
  // A 0-dim base tensor, so the result follows self's layout (a unary op's, as LibTorch's exp2).
  return ember::pow(ember::scalar_tensor(2, x.options()), x);
}
Tensor& exp2_(Tensor& self) {
  return assign_("exp2_", self, [&](const Tensor& x) { return native::exp2(x); });
}

Tensor logit(const Tensor& self, std::optional<double> eps) {
  check_defined("logit", self, "self");
  Tensor x = to_floating(self);
  if (eps && *eps >= 0) x = ember::clamp(x, *eps, 1.0 - *eps);
  return ember::log(x / ember::rsub(x, 1));
}
Tensor& logit_(Tensor& self, std::optional<double> eps) {
  return assign_("logit_", self, [&](const Tensor& x) { return native::logit(x, eps); });
}

namespace {
// xlogy in the promoted floating dtype (its gradients are derivatives.yaml's, PyTorch's).
Tensor xlogy_impl(Tensor x, Tensor y, ScalarType common) {
  const ScalarType r = is_integral_type(common, true) ? get_default_dtype() : common;
  x = x.to(r);
  y = y.to(r);
  const Tensor zero = x.eq(0).logical_and(y.isnan().logical_not());
  return ember::where(zero, ember::scalar_tensor(0, x.options()), x * ember::log(y));
}
}  // namespace

Tensor xlogy(const Tensor& self, const Tensor& other) {
  check_defined("xlogy", self, "self");
  check_defined("xlogy", other, "other");
  return xlogy_impl(self, other, result_type(self, other));  // CompositeExplicitAutograd
}
Tensor xlogy_scalar_self(const Scalar& self, const Tensor& other) {
  check_defined("xlogy", other, "other");
  return ember::xlogy(scalar_operand(self, result_type(other, self), other), other);
}
Tensor xlogy_scalar_other(const Tensor& self, const Scalar& other) {
  check_defined("xlogy", self, "self");
  return ember::xlogy(self, scalar_operand(other, result_type(self, other), self));
}
Tensor& xlogy_(Tensor& self, const Tensor& other) {
  return assign_("xlogy_", self, [&](const Tensor& x) { return ember::xlogy(x, other); }, {other});
}
Tensor& xlogy_scalar_other_(Tensor& self, const Scalar& other) {
  return assign_("xlogy_", self, [&](const Tensor& x) { return native::xlogy_scalar_other(x, other); });
}

namespace {
// log(b^x + b^y) / log(b) = max + log1p(b^-|x - y|) / log(b); equal infinities give themselves.
Tensor logaddexp_impl(const char* op, const Tensor& self, const Tensor& other, bool base2) {
  check_defined(op, self, "self");
  check_defined(op, other, "other");
  const ScalarType r = result_type(self, other);
  EMBER_CHECK_TYPE(is_floating_type(r), "[{}] expected floating point inputs, got {} and {}", op, self.scalar_type(),
                   other.scalar_type());
  const Tensor a = self.to(r), b = other.to(r);
  const Tensor d = ember::abs(a - b).neg();
  const Tensor tail =
      base2 ? ember::log1p(ember::pow(2.0, d)) * (1.0 / std::numbers::ln2) : ember::log1p(ember::exp(d));
  return ember::where(a.isinf().logical_and(a.eq(b)), a, ember::maximum(a, b) + tail);
}
}  // namespace

Tensor logaddexp(const Tensor& self, const Tensor& other) { return logaddexp_impl("logaddexp", self, other, false); }
Tensor logaddexp2(const Tensor& self, const Tensor& other) { return logaddexp_impl("logaddexp2", self, other, true); }

Tensor sinc(const Tensor& self) {
  check_defined("sinc", self, "self");
  const Tensor x = to_floating(self);
  // At 0 the value 1 and a zero gradient come from the constant branch (pi x replaced by 1 there).
  const Tensor zero = x.eq(0);
  const Tensor px = ember::where(zero, ember::scalar_tensor(1, x.options()), x * std::numbers::pi);
  return ember::where(zero, ember::scalar_tensor(1, x.options()), ember::sin(px) / px);
}
Tensor& sinc_(Tensor& self) {
  return assign_("sinc_", self, [&](const Tensor& x) { return native::sinc(x); });
}

Tensor deg2rad(const Tensor& self) {
  check_defined("deg2rad", self, "self");
  EMBER_CHECK_TYPE(!self.is_complex(), "[deg2rad] deg2rad is not supported for complex tensors.");
  return to_floating(self) * (std::numbers::pi / 180.0);
}
Tensor& deg2rad_(Tensor& self) {
  return assign_("deg2rad_", self, [&](const Tensor& x) { return native::deg2rad(x); });
}
Tensor rad2deg(const Tensor& self) {
  check_defined("rad2deg", self, "self");
  EMBER_CHECK_TYPE(!self.is_complex(), "[rad2deg] rad2deg is not supported for complex tensors.");
  return to_floating(self) * (180.0 / std::numbers::pi);
}
Tensor& rad2deg_(Tensor& self) {
  return assign_("rad2deg_", self, [&](const Tensor& x) { return native::rad2deg(x); });
}

Tensor sgn(const Tensor& self) {
  check_defined("sgn", self, "self");
  if (!self.is_complex()) return ember::sign(self);
  const Tensor a = ember::abs(self);
  const Tensor zero = a.eq(0);
  const Tensor safe = ember::where(zero, ember::scalar_tensor(1, a.options()), a);
  return ember::where(zero, ember::scalar_tensor(0, self.options()), self / safe);
}
Tensor& sgn_(Tensor& self) {
  return assign_("sgn_", self, [&](const Tensor& x) { return native::sgn(x); });
}

namespace {
ScalarType float_power_dtype(bool complex) { return complex ? kComplex128 : kFloat64; }
// In place, self must already be of the result's dtype.
void check_float_power_base(const Tensor& self, ScalarType r) {
  EMBER_CHECK_TYPE(self.scalar_type() == r,
                   "[float_power_] the base given to float_power_ has dtype {} but the operation's result requires "
                   "dtype {}",
                   self.scalar_type(), r);
}
}  // namespace

Tensor float_power(const Tensor& self, const Tensor& exponent) {
  check_defined("float_power", self, "self");
  check_defined("float_power", exponent, "exponent");
  const ScalarType r = float_power_dtype(self.is_complex() || exponent.is_complex());
  return ember::pow(self.to(r), exponent.to(r));
}
Tensor float_power_scalar_self(const Scalar& self, const Tensor& exponent) {
  check_defined("float_power", exponent, "exponent");
  const ScalarType r = float_power_dtype(self.isComplex() || exponent.is_complex());
  return ember::pow(self, exponent.to(r));  // pow.Scalar: a contiguous result, as LibTorch's
}
Tensor float_power_scalar(const Tensor& self, const Scalar& exponent) {
  check_defined("float_power", self, "self");
  const ScalarType r = float_power_dtype(self.is_complex() || exponent.isComplex());
  return ember::pow(self.to(r), scalar_operand(exponent, r, self));
}
Tensor& float_power_(Tensor& self, const Tensor& exponent) {
  const ScalarType r = float_power_dtype(self.is_complex() || exponent.is_complex());
  check_float_power_base(self, r);
  return self.pow_(exponent.to(r));
}
Tensor& float_power_scalar_(Tensor& self, const Scalar& exponent) {
  const ScalarType r = float_power_dtype(self.is_complex() || exponent.isComplex());
  check_float_power_base(self, r);
  return self.pow_(scalar_operand(exponent, r, self));
}

Tensor heaviside(const Tensor& self, const Tensor& values) {
  check_defined("heaviside", self, "self");
  check_defined("heaviside", values, "values");
  EMBER_CHECK_TYPE(!self.is_complex() && !values.is_complex(),
                   "[heaviside] heaviside is not yet implemented for complex tensors.");
  EMBER_CHECK_TYPE(self.scalar_type() == values.scalar_type(),
                   "[heaviside] heaviside is not yet implemented for tensors with different dtypes, got {} and {}",
                   self.scalar_type(), values.scalar_type());
  return ember::where(self.eq(0), values, self.gt(0).to(self.scalar_type()));
}
Tensor& heaviside_(Tensor& self, const Tensor& values) {
  return assign_("heaviside_", self, [&](const Tensor& x) { return native::heaviside(x, values); }, {values});
}

// ---- activations ------------------------------------------------------------------------------------

namespace {
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

double celu_inverse_alpha(const Scalar& alpha) {
  const double a = alpha.to<double>();
  EMBER_CHECK(a != 0, "[celu] ZeroDivisionError: alpha must not be 0");
  return 1.0 / a;
}
}  // namespace

Tensor celu(const Tensor& self, const Scalar& alpha) { return ember::elu(self, alpha, 1, celu_inverse_alpha(alpha)); }
Tensor& celu_(Tensor& self, const Scalar& alpha) { return ember::elu_(self, alpha, 1, celu_inverse_alpha(alpha)); }
Tensor selu(const Tensor& self) { return ember::elu(self, kSeluAlpha, kSeluScale); }
Tensor& selu_(Tensor& self) { return ember::elu_(self, kSeluAlpha, kSeluScale); }
Tensor relu6(const Tensor& self) { return ember::hardtanh(self, 0, 6); }
Tensor& relu6_(Tensor& self) { return ember::hardtanh_(self, 0, 6); }

Tensor glu(const Tensor& self, int64_t dim) {
  check_defined("glu", self, "self");
  EMBER_CHECK(self.dim() > 0, "[glu] glu does not support scalars because halving size must be even");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "glu");
  const int64_t n = self.size(d);
  EMBER_CHECK(n % 2 == 0, "[glu] Halving dimension must be even, but dimension {} is size {}", d, n);
  check_floating("glu", self);
  return self.narrow(d, 0, n / 2) * ember::sigmoid(self.narrow(d, n / 2, n / 2));
}

Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  check_defined("hardshrink", self, "self");
  check_floating("hardshrink", self);
  const double l = lambd.to<double>();
  // The band [-lambd, lambd] gives 0; everything else (NaN included) passes.
  return ember::where(self.ge(-l).logical_and(self.le(l)), ember::scalar_tensor(0, self.options()), self);
}

Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  check_defined("softshrink", self, "self");
  const double l = lambd.to<double>();
  EMBER_CHECK(l >= 0, "[softshrink] lambda must be greater or equal to 0, but found to be {}.", l);
  check_floating("softshrink", self);
  // The band [-lambd, lambd] (and NaN, as LibTorch's vectorised kernel) gives 0.
  const Tensor zero = ember::scalar_tensor(0, self.options());
  return ember::where(self.gt(l), self - l, ember::where(self.lt(-l), self + l, zero));
}

Tensor log_sigmoid(const Tensor& self) {
  check_defined("log_sigmoid", self, "self");
  check_floating("log_sigmoid", self);
  // Contiguous, as LibTorch's kernel writes it.
  return (ember::clamp_max(self, 0) - ember::log1p(ember::exp(ember::abs(self).neg()))).contiguous();
}

Tensor prelu(const Tensor& self, const Tensor& weight) {
  check_defined("prelu", self, "self");
  check_defined("prelu", weight, "weight");
  EMBER_CHECK(weight.dim() <= 1, "[prelu] Expected `weight` to be a scalar or 1D tensor, but got: ndim = {}",
              weight.dim());
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  const int64_t n = weight.numel();
  EMBER_CHECK(n == 1 || n == channels,
              "[prelu] Mismatch of parameter numbers and input channel size. Found parameter numbers = {} and channel "
              "size = {}.",
              n, channels);
  check_floating("prelu", self);
  Tensor w = weight.reshape({n});
  if (n > 1) {
    std::vector<int64_t> shape(static_cast<size_t>(self.dim() - 1), 1);
    shape[0] = n;
    w = w.reshape(shape);
  } else {
    w = w.reshape({});
  }
  // LibTorch's kernel writes the input's suggested format (channels-last stays so, else contiguous).
  return ember::where(self.gt(0), self, w * self).contiguous(self.suggest_memory_format());
}

namespace {
// pixel_(un)shuffle's rearrangement of the last three dims [C, H, W]: split into five, permuted,
// merged into three; leading dims kept. The result in self's suggested format, as LibTorch's kernel.
Tensor shuffle_planes(const Tensor& self, std::initializer_list<int64_t> split5, std::initializer_list<int64_t> perm5,
                      std::initializer_list<int64_t> out3) {
  const auto batch = self.sizes().slice(0, static_cast<size_t>(self.dim() - 3));
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> split(batch.begin(), batch.end()), perm, out(batch.begin(), batch.end());
  split.insert(split.end(), split5);
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  for (int64_t i : perm5) perm.push_back(nb + i);
  out.insert(out.end(), out3);
  return self.reshape(split).permute(perm).reshape(out).contiguous(self.suggest_memory_format());
}
}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  check_defined("pixel_shuffle", self, "self");
  EMBER_CHECK(self.dim() >= 3,
              "[pixel_shuffle] pixel_shuffle expects input to have at least 3 dimensions, but got input with {} "
              "dimension(s)",
              self.dim());
  const int64_t r = upscale_factor;
  EMBER_CHECK(r > 0, "[pixel_shuffle] pixel_shuffle expects a positive upscale_factor, but got {}", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(c % (r * r) == 0,
              "[pixel_shuffle] pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
              "upscale_factor, but input.size(-3)={} is not divisible by {}",
              c, r * r);
  // [C, r, r, H, W] -> [C, H, r, W, r]
  return shuffle_planes(self, {c / (r * r), r, r, h, w}, {0, 3, 1, 4, 2}, {c / (r * r), h * r, w * r});
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  check_defined("pixel_unshuffle", self, "self");
  EMBER_CHECK(self.dim() >= 3,
              "[pixel_unshuffle] pixel_unshuffle expects input to have at least 3 dimensions, but got input with {} "
              "dimension(s)",
              self.dim());
  const int64_t r = downscale_factor;
  EMBER_CHECK(r > 0, "[pixel_unshuffle] pixel_unshuffle expects a positive downscale_factor, but got {}", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(h % r == 0,
              "[pixel_unshuffle] pixel_unshuffle expects height to be divisible by downscale_factor, but "
              "input.size(-2)={} is not divisible by {}",
              h, r);
  EMBER_CHECK(w % r == 0,
              "[pixel_unshuffle] pixel_unshuffle expects width to be divisible by downscale_factor, but "
              "input.size(-1)={} is not divisible by {}",
              w, r);
  // [C, H, r, W, r] -> [C, r, r, H, W]
  return shuffle_planes(self, {c, h / r, r, w / r, r}, {0, 2, 4, 1, 3}, {c * r * r, h / r, w / r});
}

// ---- reductions and comparisons ---------------------------------------------------------------------

namespace {
// An optional dims list: every dimension when absent or empty (LibTorch 1.13's reading of []).
DimVector reduced_dims(const Tensor& self, std::optional<IntArrayRef> dim) {
  if (dim && !dim->empty()) return DimVector(*dim);
  DimVector all;
  for (int64_t i = 0; i < self.dim(); ++i) all.push_back(i);
  return all;
}
}  // namespace

Tensor count_nonzero_dims(const Tensor& self, IntArrayRef dim) {
  check_defined("count_nonzero", self, "self");
  return self.ne(0).sum(reduced_dims(self, dim), false, kInt64);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  return dim ? count_nonzero_dims(self, *dim) : count_nonzero_dims(self, {});
}

Tensor nansum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined("nansum", self, "self");
  EMBER_CHECK_TYPE(!self.is_complex(), "[nansum] nansum does not support complex inputs");
  const Tensor x =
      self.is_floating_point() ? ember::where(self.isnan(), ember::scalar_tensor(0, self.options()), self) : self;
  return x.sum(reduced_dims(self, dim), keepdim, dtype);
}

Tensor nanmean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined("nanmean", self, "self");
  EMBER_CHECK_TYPE(self.is_floating_point() || self.is_complex(),
                   "[nanmean] nanmean(): expected input to have floating point or complex dtype but got {}",
                   self.scalar_type());
  const Tensor counted = self.isnan().logical_not();
  const Tensor factor = counted.sum(reduced_dims(self, dim), keepdim);
  return native::nansum(self, dim, keepdim, dtype).div(factor);
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  check_defined("aminmax", self, "self");
  if (dim) {
    const int64_t d = maybe_wrap_dim(*dim, std::max<int64_t>(self.dim(), 1), "aminmax");
    EMBER_CHECK(self.dim() == 0 || self.size(d) != 0,
                "[aminmax] aminmax(): Expected reduction dim {} to have non-zero size.", d);
    if (self.dim() == 0) return {self.clone(), self.clone()};
    return {ember::amin(self, d, keepdim), ember::amax(self, d, keepdim)};
  }
  EMBER_CHECK(self.numel() > 0,
              "[aminmax] aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  return {ember::amin(self, {}, keepdim), ember::amax(self, {}, keepdim)};
}

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  check_defined("isclose", self, "self");
  check_defined("isclose", other, "other");
  EMBER_CHECK_TYPE(self.scalar_type() == other.scalar_type(), "[isclose] {} did not match {}", self.scalar_type(),
                   other.scalar_type());
  EMBER_CHECK_NOT_IMPLEMENTED(!(self.is_complex() && equal_nan),
                              "[isclose] isclose with equal_nan=True is not supported for complex inputs.");
  EMBER_CHECK(rtol >= 0, "[isclose] rtol must be greater than or equal to zero, but got {}", rtol);
  EMBER_CHECK(atol >= 0, "[isclose] atol must be greater than or equal to zero, but got {}", atol);
  Tensor close = self.eq(other);
  if (equal_nan && self.is_floating_point()) close = close.logical_or(self.isnan().logical_and(other.isnan()));
  if (rtol == 0 && atol == 0) return close;
  // LibTorch measures integers as the default floating dtype, so a tolerance applies to them too.
  const Tensor a = self.scalar_type() == kBool ? self.to(get_default_dtype()) : self;
  const Tensor b = other.scalar_type() == kBool ? other.to(get_default_dtype()) : other;
  const Tensor allowed = ember::abs(b * rtol) + atol;
  const Tensor actual = ember::abs(a - b);
  return close.logical_or(actual.isfinite().logical_and(actual.le(allowed)));
}

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  check_defined("diff", self, "self");
  EMBER_CHECK(self.dim() >= 1, "[diff] diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, "[diff] order must be non-negative but got {}", n);
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "diff");
  Tensor x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    for (const std::optional<Tensor>* t : {&prepend, &append}) {
      if (!*t || !(*t)->defined()) continue;
      EMBER_CHECK((*t)->dim() == self.dim(), "[diff] diff expects prepend or append to be the same dimension as input");
    }
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    x = ember::cat(parts, d);
  }
  n = std::min(n, x.size(d));
  int64_t len = x.size(d) - 1;
  const bool is_bool = x.scalar_type() == kBool;
  for (; n > 0; --n, --len) {
    const Tensor hi = x.narrow(d, 1, len), lo = x.narrow(d, 0, len);
    x = is_bool ? ember::logical_xor(hi, lo) : hi - lo;
  }
  return x;
}

// ---- products and rearrangements --------------------------------------------------------------------

Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  check_defined("linalg_cross", self, "self");
  check_defined("linalg_cross", other, "other");
  EMBER_CHECK(self.dim() == other.dim(),
              "[linalg_cross] linalg.cross: inputs must have the same number of dimensions.");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "linalg_cross");
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3,
              "[linalg_cross] linalg.cross: inputs dimension {} must have length 3. Got {} and {}", dim, self.size(d),
              other.size(d));
  EMBER_CHECK_TYPE(self.scalar_type() == other.scalar_type(),
                   "[linalg_cross] expected both inputs to have the same dtype, got {} and {}", self.scalar_type(),
                   other.scalar_type());
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), "linalg_cross");
  const Tensor a = self.expand(shape), b = other.expand(shape);
  auto c = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return ember::cat({c(a, 1) * c(b, 2) - c(a, 2) * c(b, 1), c(a, 2) * c(b, 0) - c(a, 0) * c(b, 2),
                     c(a, 0) * c(b, 1) - c(a, 1) * c(b, 0)},
                    d);
}

Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim) return native::linalg_cross(self, other, *dim);
  check_defined("cross", self, "self");
  for (int64_t i = 0; i < self.dim(); ++i)
    if (self.size(i) == 3) return native::linalg_cross(self, other, i);
  EMBER_CHECK(false, "[cross] no dimension of size 3 in input");
  return {};
}

Tensor kron(const Tensor& self, const Tensor& other) {
  check_defined("kron", self, "self");
  check_defined("kron", other, "other");
  const int64_t nd = std::max(self.dim(), other.dim());
  // Both padded to nd dims with leading ones, interleaved as [a0, 1, a1, 1, ...] and [1, b0, 1, b1, ...].
  std::vector<int64_t> a_shape(static_cast<size_t>(2 * nd), 1), b_shape(static_cast<size_t>(2 * nd), 1),
      out(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t ai = i - (nd - self.dim()), bi = i - (nd - other.dim());
    const int64_t as = ai >= 0 ? self.size(ai) : 1, bs = bi >= 0 ? other.size(bi) : 1;
    a_shape[static_cast<size_t>(2 * i)] = as;
    b_shape[static_cast<size_t>(2 * i + 1)] = bs;
    out[static_cast<size_t>(i)] = as * bs;
  }
  return (self.reshape(a_shape) * other.reshape(b_shape)).reshape(out);
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  check_defined("rot90", self, "self");
  EMBER_CHECK(dims.size() == 2, "[rot90] expected total rotation dims == 2, but got dims = {}", dims.size());
  EMBER_CHECK(self.dim() >= 2, "[rot90] expected total dims >= 2, but got total dims = {}", self.dim());
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != self.dim(),
              "[rot90] expected rotation dims to be different, but got dim0 = {} and dim1 = {}", dims[0], dims[1]);
  EMBER_CHECK(dims[0] < self.dim() && dims[0] >= -self.dim(), "[rot90] Rotation dim0 out of range, dim0 = {}", dims[0]);
  EMBER_CHECK(dims[1] < self.dim() && dims[1] >= -self.dim(), "[rot90] Rotation dim1 out of range, dim1 = {}", dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1:
      return self.flip({dims[1]}).transpose(dims[0], dims[1]);
    case 2:
      return self.flip(dims);
    case 3:
      return self.flip({dims[0]}).transpose(dims[0], dims[1]);
    default:
      return self.clone(MemoryFormat::Contiguous);
  }
}

// ---- stacking and splitting -------------------------------------------------------------------------

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }
Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  return self.dim() == 1 ? self.unsqueeze(0) : self;
}
Tensor atleast_3d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1, 1});
  if (self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
  return self.dim() == 2 ? self.unsqueeze(-1) : self;
}

namespace {
template <class F>
std::vector<Tensor> each(const std::vector<Tensor>& tensors, F&& f) {
  std::vector<Tensor> r;
  r.reserve(tensors.size());
  for (const Tensor& t : tensors) r.push_back(f(t));
  return r;
}
}  // namespace

std::vector<Tensor> atleast_1d_list(const std::vector<Tensor>& tensors) { return each(tensors, atleast_1d); }
std::vector<Tensor> atleast_2d_list(const std::vector<Tensor>& tensors) { return each(tensors, atleast_2d); }
std::vector<Tensor> atleast_3d_list(const std::vector<Tensor>& tensors) { return each(tensors, atleast_3d); }

Tensor hstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "[hstack] hstack expects a non-empty TensorList");
  const std::vector<Tensor> r = atleast_1d_list(tensors);
  return ember::cat(r, r[0].dim() == 1 ? 0 : 1);
}
Tensor vstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "[vstack] vstack expects a non-empty TensorList");
  return ember::cat(atleast_2d_list(tensors), 0);
}
Tensor dstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "[dstack] dstack expects a non-empty TensorList");
  return ember::cat(atleast_3d_list(tensors), 2);
}
Tensor column_stack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "[column_stack] column_stack expects a non-empty TensorList");
  return ember::cat(each(tensors, [](const Tensor& t) { return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t; }), 1);
}

namespace {
int64_t split_dim(const Tensor& self, int64_t dim) {
  check_defined("tensor_split", self, "self");
  EMBER_CHECK(self.dim() > 0,
              "[tensor_split] tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  return maybe_wrap_dim(dim, self.dim(), "tensor_split");
}
}  // namespace

std::vector<Tensor> tensor_split_sections(const Tensor& self, int64_t sections, int64_t dim) {
  const int64_t d = split_dim(self, dim);
  EMBER_CHECK(sections > 0, "[tensor_split] number of sections must be larger than 0, got {}", sections);
  const int64_t size = self.size(d), base = size / sections, extra = size % sections;
  std::vector<Tensor> r;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    r.push_back(self.slice(d, start, start + len));
    start += len;
  }
  return r;
}

std::vector<Tensor> tensor_split_indices(const Tensor& self, IntArrayRef indices, int64_t dim) {
  const int64_t d = split_dim(self, dim);
  std::vector<Tensor> r;
  int64_t start = 0;
  for (int64_t idx : indices) {
    r.push_back(self.slice(d, start, idx));
    start = idx;
  }
  r.push_back(self.slice(d, start, self.size(d)));
  return r;
}

std::vector<Tensor> tensor_split_tensor(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim) {
  const Tensor& t = tensor_indices_or_sections;
  check_defined("tensor_split", t, "tensor_indices_or_sections");
  EMBER_CHECK_TYPE(t.scalar_type() == kInt64,
                   "[tensor_split] tensor_split expected tensor_indices_or_sections to have dtype of long, but got {}",
                   t.scalar_type());
  EMBER_CHECK(t.dim() <= 1,
              "[tensor_split] tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
              "one-dimensional tensor, but got a tensor with {} dims",
              t.dim());
  EMBER_CHECK_NOT_IMPLEMENTED(t.device().type() != DeviceType::Meta,
                              "[tensor_split] tensor_indices_or_sections holds the split: a meta tensor has no values");
  EMBER_CHECK(t.device().type() == DeviceType::CPU,
              "[tensor_split] tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {}",
              t.device());
  if (t.dim() == 0) return tensor_split_sections(self, t.item().to<int64_t>(), dim);
  const Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return tensor_split_indices(self, IntArrayRef(p, static_cast<size_t>(c.numel())), dim);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  check_defined("unflatten", self, "self");
  EMBER_CHECK(!sizes.empty(), "[unflatten] unflatten: sizes must be non-empty");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "unflatten");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(infer < 0, "[unflatten] only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(sizes[i] >= 0, "[unflatten] invalid shape dimension {}", sizes[i]);
      known *= sizes[i];
    }
  }
  std::vector<int64_t> split(sizes.begin(), sizes.end());
  const int64_t n = self.size(d);
  if (infer >= 0) {
    EMBER_CHECK(known > 0 && n % known == 0, "[unflatten] shape '{}' is invalid for input of size {}", sizes, n);
    split[static_cast<size_t>(infer)] = n / known;
  } else {
    EMBER_CHECK(known == n,
                "[unflatten] unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the input "
                "tensor",
                sizes, d, n);
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + d);
  shape.insert(shape.end(), split.begin(), split.end());
  shape.insert(shape.end(), self.sizes().begin() + d + 1, self.sizes().end());
  return self.view(shape);
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  check_defined("take_along_dim", self, "self");
  check_defined("take_along_dim", indices, "indices");
  EMBER_CHECK_TYPE(indices.scalar_type() == kInt64,
                   "[take_along_dim] torch.take_along_dim(): dtype of indices should be Long but got {}",
                   indices.scalar_type());
  if (!dim) return self.view({-1}).gather(0, indices.view({-1}));
  const int64_t d = maybe_wrap_dim(*dim, self.dim(), "take_along_dim");
  EMBER_CHECK(self.dim() == indices.dim(),
              "[take_along_dim] torch.take_along_dim(): input and indices should have the same number of dimensions, "
              "but got {} dimensions for input, and {} dimensions for indices",
              self.dim(), indices.dim());
  DimVector self_sizes(self.sizes());
  self_sizes[static_cast<size_t>(d)] = indices.size(d);
  const DimVector shape = broadcast_shapes(self_sizes, indices.sizes(), "take_along_dim");
  self_sizes = shape;
  self_sizes[static_cast<size_t>(d)] = self.size(d);
  return self.broadcast_to(self_sizes).gather(d, indices.broadcast_to(shape));
}

Tensor argwhere(const Tensor& self) { return ember::nonzero(self); }

// ---- matrix products --------------------------------------------------------------------------------

Tensor linalg_matrix_power(const Tensor& self, int64_t n) {
  check_square("linalg_matrix_power", self);
  // n = 0: the identity, written into a copy of self (a zero gradient, as LibTorch's).
  if (n == 0)
    return self.clone(MemoryFormat::Contiguous).copy_(ember::eye(self.size(-2), self.options()).expand_as(self));
  if (n == -1) return ember::linalg_inv(self);
  const Tensor a = n < 0 ? ember::linalg_inv(self) : self;
  n = std::abs(n);
  if (n == 1) return a.clone(MemoryFormat::Contiguous);
  if (n == 2) return ember::matmul(a, a);
  if (n == 3) return ember::matmul(ember::matmul(a, a), a);
  // Binary decomposition of n, from the least significant bit: z runs through a^(2^i).
  Tensor z, result;
  while (n > 0) {
    const bool bit = n % 2 == 1;
    n /= 2;
    z = z.defined() ? ember::matmul(z, z) : a;
    if (bit) result = result.defined() ? ember::matmul(result, z) : z;
  }
  return result;
}

Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_defined("addcdiv", tensor1, "tensor1");
  check_defined("addcdiv", tensor2, "tensor2");
  EMBER_CHECK_TYPE(
      !(is_integral_type(tensor1.scalar_type(), true) && is_integral_type(tensor2.scalar_type(), true)),
      "[addcdiv] Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
      "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
      "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
      "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
      "tensor2), for all dtypes.");
  return self + ember::div(tensor1 * value, tensor2);
}
Tensor& addcdiv_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  return assign_("addcdiv_", self, [&](const Tensor& x) { return native::addcdiv(x, tensor1, tensor2, value); },
                 {tensor1, tensor2});
}

namespace {
// beta * self + alpha * product, LibTorch's blas convention: beta 0 ignores self (NaN included).
Tensor scale_add(const Tensor& self, const Tensor& product, const Scalar& beta, const Scalar& alpha) {
  auto is = [](const Scalar& s, double v) { return !s.isComplex() && s.to<double>() == v; };
  const Tensor p = is(alpha, 1.0) ? product : product * alpha;
  if (is(beta, 0.0)) return p;
  return (is(beta, 1.0) ? self : self * beta) + p;
}

void check_batches(const char* op, const Tensor& b1, const Tensor& b2) {
  EMBER_CHECK(b1.dim() == 3, "[{}] batch1 must be a 3D tensor", op);
  EMBER_CHECK(b2.dim() == 3, "[{}] batch2 must be a 3D tensor", op);
  EMBER_CHECK(b1.size(0) == b2.size(0), "[{}] batch1 and batch2 must have same number of batches, got {} and {}", op,
              b1.size(0), b2.size(0));
  EMBER_CHECK(b1.size(2) == b2.size(1), "[{}] Incompatible matrix sizes for bmm ({}x{} and {}x{})", op, b1.size(1),
              b1.size(2), b2.size(1), b2.size(2));
}
}  // namespace

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  check_defined("baddbmm", self, "self");
  check_defined("baddbmm", batch1, "batch1");
  check_defined("baddbmm", batch2, "batch2");
  check_batches("baddbmm", batch1, batch2);
  const Tensor s = self.expand({batch1.size(0), batch1.size(1), batch2.size(2)});
  return scale_add(s, ember::bmm(batch1, batch2), beta, alpha);
}
Tensor& baddbmm_(Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  return assign_("baddbmm_", self, [&](const Tensor& x) { return native::baddbmm(x, batch1, batch2, beta, alpha); },
                 {batch1, batch2});
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  check_defined("addbmm", self, "self");
  check_defined("addbmm", batch1, "batch1");
  check_defined("addbmm", batch2, "batch2");
  check_batches("addbmm", batch1, batch2);
  // sum_i A_i B_i is one product: [A_0 ... A_b-1] (side by side) @ [B_0; ...; B_b-1] (stacked).
  const int64_t b = batch1.size(0), n = batch1.size(1), m = batch1.size(2), p = batch2.size(2);
  const Tensor a = batch1.permute({1, 0, 2}).reshape({n, b * m});
  return ember::addmm(self, a, batch2.reshape({b * m, p}), beta, alpha);
}
Tensor& addbmm_(Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  return assign_("addbmm_", self, [&](const Tensor& x) { return native::addbmm(x, batch1, batch2, beta, alpha); },
                 {batch1, batch2});
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  check_defined("addmv", self, "self");
  check_defined("addmv", mat, "mat");
  check_defined("addmv", vec, "vec");
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1,
              "[addmv] vector + matrix @ vector expected, got {}, {}, {}", self.dim(), mat.dim(), vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0) && (mat.size(0) == self.numel() || self.numel() == 1),
              "[addmv] size mismatch, got input ({}), mat ({}x{}), vec ({})", self.dim() == 0 ? 1 : self.size(0),
              mat.size(0), mat.size(1), vec.size(0));
  return scale_add(self.expand({mat.size(0)}), ember::mv(mat, vec), beta, alpha);
}
Tensor& addmv_(Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return assign_("addmv_", self, [&](const Tensor& x) { return native::addmv(x, mat, vec, beta, alpha); }, {mat, vec});
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  check_defined("addr", self, "self");
  check_defined("addr", vec1, "vec1");
  check_defined("addr", vec2, "vec2");
  EMBER_CHECK(vec1.dim() == 1, "[addr] addr: Expected 1-D argument vec1, but got {}-D", vec1.dim());
  EMBER_CHECK(vec2.dim() == 1, "[addr] addr: Expected 1-D argument vec2, but got {}-D", vec2.dim());
  const Tensor s = self.expand({vec1.size(0), vec2.size(0)});
  // LibTorch's check of the scalars against self's dtype.
  const ScalarType dt = self.scalar_type();
  for (const auto& [v, name] : {std::pair{&beta, "beta"}, std::pair{&alpha, "alpha"}}) {
    EMBER_CHECK_TYPE(!v->isBoolean() || dt == kBool, "[addr] Boolean {} only supported for Boolean results.", name);
    EMBER_CHECK_TYPE(is_floating_type(dt) || is_complex_type(dt) || !(v->isFloatingPoint() || v->isComplex()),
                     "[addr] For integral input tensors, argument {} must not be a floating point number.", name);
  }
  if (s.scalar_type() == kBool && vec1.scalar_type() == kBool && vec2.scalar_type() == kBool) {
    // Boolean: (beta and self) or (alpha and vec1 and vec2).
    const Tensor prod = vec1.unsqueeze(1).logical_and(vec2.unsqueeze(0));
    const Tensor scaled = alpha.to<bool>() ? prod : ember::zeros_like(prod);
    return beta.to<bool>() ? s.logical_or(scaled) : scaled;
  }
  return scale_add(s, ember::outer(vec1, vec2), beta, alpha);
}
Tensor& addr_(Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  return assign_("addr_", self, [&](const Tensor& x) { return native::addr(x, vec1, vec2, beta, alpha); },
                 {vec1, vec2});
}

}  // namespace ember::native
