// Host half of the cuda plugin's reductions: shapes, dtypes and errors from the shared rules
// (ember/native/Rules.h), then one kernel launch (Note [GPU reductions] in kernels/reduce.cu).
#include <cmath>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {
namespace {

using gpu::Reduction;

// The accumulation type of a dtype: float for float and the 16-bit types, double, int64 for
// integers and bool.
gpu::Dt acc_of(ScalarType t) {
  if (t == kFloat64) return gpu::Double;
  if (is_floating_type(t)) return gpu::Float;
  return gpu::Int64;
}

// Reduces `self` over `dims` (every dimension when empty) into a fresh contiguous tensor of
// `out_dt` (kInt64 for the arg kinds).
Tensor reduce(const char* op, Reduction kind, const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType out_dt,
              bool nonempty) {
  native::check_defined(op, self, "self");
  OptionalDeviceGuard guard(self.device());
  const auto red = native::reduced_mask(self, dims, op);
  if (nonempty) native::check_nonempty_reduction(self, dims, red, op);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(self.dtype()), "[{}] the {} plugin has no kernel for {} tensors yet", op,
                              gpu::kGpuLabel, self.dtype());
  const int64_t nd = self.dim();
  Tensor out = empty_cuda(native::reduced_shape(self, red, keepdim), out_dt);

  gpu::ReduceArgs r;
  // Innermost first: the kernels decompose linear indices from the last dimension.
  int64_t out_stride = static_cast<int64_t>(out.itemsize());
  for (int64_t d = nd - 1; d >= 0; --d) {
    const int64_t size = self.size(d), stride = self.stride(d) * static_cast<int64_t>(self.itemsize());
    if (red[static_cast<size_t>(d)]) {
      EMBER_CHECK_NOT_IMPLEMENTED(r.n_red_dims < gpu::kMaxDims, "[{}] more than {} reduced dimensions", op,
                                  gpu::kMaxDims);
      r.red_sizes[r.n_red_dims] = size;
      r.in_red_strides[r.n_red_dims++] = stride;
      r.n_red *= size;
    } else {
      EMBER_CHECK_NOT_IMPLEMENTED(r.n_kept < gpu::kMaxDims, "[{}] more than {} kept dimensions", op, gpu::kMaxDims);
      r.kept_sizes[r.n_kept] = size;
      r.in_kept_strides[r.n_kept] = stride;
      r.out_strides[r.n_kept++] = out_stride;
      out_stride *= size;
      r.n_out *= size;
    }
  }
  if (nd == 0) r.n_red = 1;
  r.in = static_cast<const char*>(self.data_ptr());
  r.out = static_cast<char*>(out.data_ptr());
  r.in_dtype = static_cast<int8_t>(self.dtype());
  r.out_dtype = static_cast<int8_t>(out_dt);
  const bool integral = is_integral_type(self.dtype(), true);
  // prod accumulates in float64 (int64 for integers), as the cpu's.
  r.acc_dtype =
      static_cast<int8_t>(acc_of(kind == Reduction::Sum || kind == Reduction::Mean ? (integral ? kInt64 : out_dt)
                                 : kind == Reduction::Prod                         ? (integral ? kInt64 : kFloat64)
                                                                                   : self.dtype()));
  check_launch(gpu::launch_reduce(kind, r, stream()), op, self.dtype());
  return out;
}

// sum/mean with a dtype convert the input first (PyTorch's order: then sum in that dtype).
Tensor converted(const Tensor& self, OptDtype dtype) {
  if (!dtype || *dtype == self.dtype()) return self;
  OptionalDeviceGuard guard(self.device());
  Tensor c = empty_cuda(self.sizes(), *dtype);
  EMBER_GPU_NS::copy_(c, self, false);
  return c;
}

Tensor sum_impl(const Tensor& self, IntArrayRef dims, bool keepdim, OptDtype dtype) {
  native::check_defined("sum", self, "self");
  const ScalarType out_dt = native::sum_like_dtype("sum", self, dtype);
  return reduce("sum", Reduction::Sum, converted(self, dtype), dims, keepdim, out_dt, false);
}

Tensor mean_impl(const Tensor& self, IntArrayRef dims, bool keepdim, OptDtype dtype) {
  native::check_defined("mean", self, "self");
  const ScalarType out_dt = native::mean_dtype(self, dtype);
  return reduce("mean", Reduction::Mean, converted(self, dtype), dims, keepdim, out_dt, false);
}

Tensor prod_impl(const Tensor& self, IntArrayRef dims, bool keepdim, OptDtype dtype) {
  native::check_defined("prod", self, "self");
  const ScalarType out_dt = native::sum_like_dtype("prod", self, dtype);
  return reduce("prod", Reduction::Prod, converted(self, dtype), dims, keepdim, out_dt, false);
}

// The variance with divisor max(0, n - correction), in float64 from two passes (the mean, then
// the squared deviations), as the cpu's: a zero divisor gives inf, or NaN for 0 / 0.
Tensor var_impl(const char* op, bool take_sqrt, const Tensor& self, IntArrayRef dims, double correction, bool keepdim) {
  native::check_defined(op, self, "self");
  OptionalDeviceGuard guard(device_of(self));
  native::check_var_dtype(op, self);
  const auto red = native::reduced_mask(self, dims, op);
  double n = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (red[static_cast<size_t>(d)]) n *= static_cast<double>(self.size(d));
  const Tensor x = self.to(kFloat64);
  const Tensor mean = sum_impl(x, dims, true, std::nullopt) / n;
  const Tensor dev = x - mean;
  Tensor v = sum_impl(dev * dev, dims, keepdim, std::nullopt) / (n > correction ? n - correction : 0.0);
  if (take_sqrt) v = ember::sqrt(v);
  return v.to(self.dtype());
}

// log(sum(exp(x - m))) + m with m the maximum (0 where it is infinite: all -inf gives -inf, an
// inf gives inf), in float64 as the cpu's.
Tensor logsumexp_impl(const Tensor& self, IntArrayRef dims, bool keepdim) {
  native::check_defined("logsumexp", self, "self");
  OptionalDeviceGuard guard(device_of(self));
  const ScalarType out_dt = native::logsumexp_dtype(self);
  const Tensor x = self.to(kFloat64);
  Tensor m = x.numel() == 0 ? sum_impl(x, dims, true, std::nullopt)
                            : reduce("logsumexp", Reduction::Max, x, dims, true, kFloat64, false);
  m = ember::masked_fill(m, ember::isinf(m), Scalar(0.0));
  Tensor r = ember::log(sum_impl(ember::exp(x - m), dims, true, std::nullopt)) + m;
  if (!keepdim) r = r.reshape(native::reduced_shape(self, native::reduced_mask(self, dims, "logsumexp"), false));
  return r.to(out_dt);
}

// cumsum / cumprod: a dtype converts the input first (as the cpu's), then the scan of its lines.
Tensor cumulative(const char* op, bool prod, const Tensor& self, int64_t dim, OptDtype dtype) {
  native::check_defined(op, self, "self");
  const ScalarType out_dt = native::sum_like_dtype(op, self, dtype);
  OptionalDeviceGuard guard(device_of(self));
  const int64_t w = maybe_wrap_dim(dim, self.dim(), op);
  return scan(op, converted(self, dtype).contiguous(), w, out_dt, prod);
}

// The vector p-norm over dims in float64, as the cpu's: a count of nonzeros (p = 0), the largest
// or smallest magnitude (p = +-inf, NaN when there is one), else (sum |x|^p)^(1/p).
Tensor norm_impl(const char* op, const Tensor& self, double p, IntArrayRef dims, bool keepdim, OptDtype dtype) {
  native::check_defined(op, self, "self");
  const ScalarType out_dt = native::norm_dtype(op, self, dtype);
  OptionalDeviceGuard guard(device_of(self));
  const Tensor x = self.to(kFloat64);
  const Tensor m = ember::abs(x);
  Tensor r;
  if (p == 0) {
    r = sum_impl(ember::ne(x, Scalar(0.0)).to(kFloat64), dims, keepdim, std::nullopt);
  } else if (std::isinf(p)) {
    r = reduce(op, p > 0 ? Reduction::Max : Reduction::Min, m, dims, keepdim, kFloat64, true);
  } else if (p == 1) {
    r = sum_impl(m, dims, keepdim, std::nullopt);
  } else if (p == 2) {
    r = ember::sqrt(sum_impl(m * m, dims, keepdim, std::nullopt));
  } else {
    r = ember::pow(sum_impl(ember::pow(m, Scalar(p)), dims, keepdim, std::nullopt), Scalar(1.0 / p));
  }
  return r.to(out_dt);
}

// max.dim_max / min.dim_min: both outs checked first, then the functional `f`'s values and indices written.
std::tuple<Tensor&, Tensor&> extreme_dim_out(const char* op,
                                             std::tuple<Tensor, Tensor> (*f)(const Tensor&, int64_t, bool),
                                             const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                             Tensor& indices, const char* values_name, const char* indices_name) {
  native::check_defined(op, self, "self");
  check_out(op, values, self.dtype(), values_name);
  check_out(op, indices, kInt64, indices_name);
  const auto [v, i] = f(self, dim, keepdim);
  write_out(values, v, op);
  write_out(indices, i, op);
  return {values, indices};
}

}  // namespace

void check_out(const char* op, const Tensor& out, ScalarType expected, const char* name) {
  native::check_defined(op, out, name);
  EMBER_CHECK(out.device().type() == gpu::kGpuDevice, "[{}] expected a {} tensor for argument '{}', got one on {}", op,
              gpu::kGpuLabel, name, out.device());
  native::check_out_dtype(op, out, expected, name);
}

Tensor& write_out(Tensor& out, const Tensor& result, const char* op) {
  native::resize_output(out, result.sizes(), op);
  native::check_out_writable(op, out);
  return EMBER_GPU_NS::copy_(out, result, false);
}

Tensor& sum_intlist_out(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype, Tensor& out) {
  const ScalarType dt = native::reduction_out_dtype("sum", out, dtype);
  check_out("sum", out, dt);
  return write_out(out, sum_impl(self, dim, keepdim, dt), "sum");
}
Tensor& mean_out(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype, Tensor& out) {
  const ScalarType dt = native::reduction_out_dtype("mean", out, dtype);
  check_out("mean", out, dt);
  return write_out(out, mean_impl(self, dim, keepdim, dt), "mean");
}
Tensor& amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  native::check_defined("amax", self, "self");
  check_out("amax", out, self.dtype());
  return write_out(out, EMBER_GPU_NS::amax(self, dim, keepdim), "amax");
}
Tensor& amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  native::check_defined("amin", self, "self");
  check_out("amin", out, self.dtype());
  return write_out(out, EMBER_GPU_NS::amin(self, dim, keepdim), "amin");
}
std::tuple<Tensor&, Tensor&> max_dim_max(const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                                         Tensor& max_values) {
  return extreme_dim_out("max", &EMBER_GPU_NS::max_dim, self, dim, keepdim, max, max_values, "max", "max_values");
}
std::tuple<Tensor&, Tensor&> min_dim_min(const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                                         Tensor& min_indices) {
  return extreme_dim_out("min", &EMBER_GPU_NS::min_dim, self, dim, keepdim, min, min_indices, "min", "min_indices");
}
Tensor& argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  check_out("argmax", out, kInt64);
  return write_out(out, EMBER_GPU_NS::argmax(self, dim, keepdim), "argmax");
}
Tensor& argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  check_out("argmin", out, kInt64);
  return write_out(out, EMBER_GPU_NS::argmin(self, dim, keepdim), "argmin");
}

Tensor scan(const char* op, const Tensor& in, int64_t dim, ScalarType out_dt, bool prod) {
  Tensor out = empty_cuda(in.sizes(), out_dt);
  gpu::ScanArgs a;
  for (int64_t d = 0; d < in.dim(); ++d) (d < dim ? a.outer : d == dim ? a.n : a.inner) *= in.size(d);
  a.in = static_cast<const char*>(in.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  a.in_dtype = static_cast<int8_t>(in.dtype());
  a.out_dtype = static_cast<int8_t>(out_dt);
  a.in_itemsize = static_cast<int>(in.itemsize());
  a.out_itemsize = static_cast<int>(out.itemsize());
  a.prod = prod;
  a.integral = is_integral_type(in.dtype(), true);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(in.dtype()) && !is_complex_type(out_dt),
                              "[{}] the {} plugin has no complex scans", op, gpu::kGpuLabel);
  check_launch(gpu::launch_scan(a, stream()), op, in.dtype());
  return out;
}

Tensor cumsum(const Tensor& self, int64_t dim, OptDtype dtype) { return cumulative("cumsum", false, self, dim, dtype); }
Tensor cumprod(const Tensor& self, int64_t dim, OptDtype dtype) {
  return cumulative("cumprod", true, self, dim, dtype);
}
Tensor& cumsum_out(const Tensor& self, int64_t dim, OptDtype dtype, Tensor& out) {
  const ScalarType dt = native::reduction_out_dtype("cumsum", out, dtype);
  check_out("cumsum", out, dt);
  return write_out(out, cumulative("cumsum", false, self, dim, dt), "cumsum");
}
Tensor& cumprod_out(const Tensor& self, int64_t dim, OptDtype dtype, Tensor& out) {
  const ScalarType dt = native::reduction_out_dtype("cumprod", out, dtype);
  check_out("cumprod", out, dt);
  return write_out(out, cumulative("cumprod", true, self, dim, dt), "cumprod");
}

Tensor norm_scalar(const Tensor& self, const Scalar& p) {
  return norm_impl("norm", self, native::norm_order(p, "norm"), {}, false, std::nullopt);
}
Tensor norm_scalaropt_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  return norm_impl("norm", self, p ? native::norm_order(*p, "norm") : 2.0, dim, keepdim, std::nullopt);
}
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          OptDtype dtype) {
  return norm_impl("linalg_vector_norm", self, native::norm_order(ord, "linalg_vector_norm"),
                   dim.value_or(IntArrayRef()), keepdim, dtype);
}

Tensor prod(const Tensor& self, OptDtype dtype) { return prod_impl(self, {}, false, dtype); }
Tensor prod_dim_int(const Tensor& self, int64_t dim, bool keepdim, OptDtype dtype) {
  const int64_t d[1] = {dim};
  return prod_impl(self, d, keepdim, dtype);
}
Tensor& prod_int_out(const Tensor& self, int64_t dim, bool keepdim, OptDtype dtype, Tensor& out) {
  const ScalarType dt = native::reduction_out_dtype("prod", out, dtype);
  check_out("prod", out, dt);
  const int64_t d[1] = {dim};
  return write_out(out, prod_impl(self, d, keepdim, dt), "prod");
}

Tensor var(const Tensor& self, bool unbiased) { return var_impl("var", false, self, {}, unbiased ? 1 : 0, false); }
Tensor var_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl("var", false, self, dim.value_or(IntArrayRef()), unbiased ? 1 : 0, keepdim);
}
Tensor std(const Tensor& self, bool unbiased) { return var_impl("std", true, self, {}, unbiased ? 1 : 0, false); }
Tensor std_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl("std", true, self, dim.value_or(IntArrayRef()), unbiased ? 1 : 0, keepdim);
}
Tensor var_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                      bool keepdim) {
  return var_impl("var", false, self, dim.value_or(IntArrayRef()), static_cast<double>(correction.value_or(1)),
                  keepdim);
}
Tensor std_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                      bool keepdim) {
  return var_impl("std", true, self, dim.value_or(IntArrayRef()), static_cast<double>(correction.value_or(1)), keepdim);
}
std::tuple<Tensor, Tensor> var_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> correction, bool keepdim) {
  const IntArrayRef d = dim.value_or(IntArrayRef());
  Tensor v = var_impl("var_mean", false, self, d, static_cast<double>(correction.value_or(1)), keepdim);
  return {v, mean_impl(self, d, keepdim, std::nullopt)};
}
std::tuple<Tensor, Tensor> std_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> correction, bool keepdim) {
  const IntArrayRef d = dim.value_or(IntArrayRef());
  Tensor v = var_impl("std_mean", true, self, d, static_cast<double>(correction.value_or(1)), keepdim);
  return {v, mean_impl(self, d, keepdim, std::nullopt)};
}

Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) { return logsumexp_impl(self, dim, keepdim); }
Tensor& logsumexp_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  native::check_logsumexp_out(out);
  check_out("logsumexp", out, out.dtype());
  return write_out(out, logsumexp_impl(self, dim, keepdim), "logsumexp");
}

Tensor sum(const Tensor& self, OptDtype dtype) { return sum_impl(self, {}, false, dtype); }
Tensor sum_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  return sum_impl(self, dim, keepdim, dtype);
}
Tensor mean(const Tensor& self, OptDtype dtype) { return mean_impl(self, {}, false, dtype); }
Tensor mean_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  return mean_impl(self, dim, keepdim, dtype);
}

Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  native::check_defined("amax", self, "self");
  return reduce("amax", Reduction::Max, self, dim, keepdim, self.dtype(), true);
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  native::check_defined("amin", self, "self");
  return reduce("amin", Reduction::Min, self, dim, keepdim, self.dtype(), true);
}
Tensor max(const Tensor& self) {
  native::check_defined("max", self, "self");
  return reduce("max", Reduction::Max, self, {}, false, self.dtype(), true);
}
Tensor min(const Tensor& self) {
  native::check_defined("min", self, "self");
  return reduce("min", Reduction::Min, self, {}, false, self.dtype(), true);
}

std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  native::check_defined("max", self, "self");
  const int64_t d[1] = {dim};
  return {reduce("max", Reduction::Max, self, d, keepdim, self.dtype(), true),
          reduce("max", Reduction::ArgMax, self, d, keepdim, kInt64, true)};
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim) {
  native::check_defined("min", self, "self");
  const int64_t d[1] = {dim};
  return {reduce("min", Reduction::Min, self, d, keepdim, self.dtype(), true),
          reduce("min", Reduction::ArgMin, self, d, keepdim, kInt64, true)};
}

// Without a dim, the index is into the flattened tensor and the result is 0-dim (keepdim is
// ignored, as in LibTorch 1.13).
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  native::check_defined("argmax", self, "self");
  const int64_t d[1] = {dim.value_or(0)};
  if (dim) native::reduced_mask(self, d, "argmax");  // the dim's error first, as the cpu's
  native::check_arg_extreme_dtype("argmax", self.dtype());
  return reduce("argmax", Reduction::ArgMax, self, dim ? IntArrayRef(d) : IntArrayRef(), dim && keepdim, kInt64, true);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  native::check_defined("argmin", self, "self");
  const int64_t d[1] = {dim.value_or(0)};
  if (dim) native::reduced_mask(self, d, "argmin");  // the dim's error first, as the cpu's
  native::check_arg_extreme_dtype("argmin", self.dtype());
  return reduce("argmin", Reduction::ArgMin, self, dim ? IntArrayRef(d) : IntArrayRef(), dim && keepdim, kInt64, true);
}

}  // namespace ember::EMBER_GPU_NS
