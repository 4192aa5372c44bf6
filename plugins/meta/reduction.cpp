// Meta reductions (plugins/cpu/reduction.cpp): mean, prod, amax/amin, max/min (with indices),
// argmax/argmin, any/all, logsumexp, var/std (with a correction), var_mean/std_mean, the norms;
// softmax, log_softmax, cumsum, cumprod; and the out= variants of the reductions (sum's among
// them, as on the cpu). Shapes and dtypes come from the rules the cpu kernels use
// (ember/native/Rules.h); every result is contiguous.
#include <cmath>

#include "MetaHelpers.h"

namespace ember::meta {
namespace {

IntArrayRef one_dim(const int64_t& d) { return IntArrayRef(&d, 1); }

// An op along one dimension (softmax, cumsum): self's shape, contiguous.
Tensor along_dim(const char* op, const Tensor& self, int64_t dim, ScalarType dtype) {
  maybe_wrap_dim(dim, self.dim(), op);
  return empty_meta(self.sizes(), dtype);
}

}  // namespace

// ---- mean, prod, extremes, any/all, softmax, cumsum, logsumexp, var/std -------------------------

Tensor mean(const Tensor& self, OptDtype dtype) { return meta::mean_dim(self, {}, false, dtype); }
Tensor mean_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  native::check_defined("mean", self, "self");
  return reduce("mean", self, dim, keepdim, native::mean_dtype(self, dtype));
}
Tensor prod(const Tensor& self, OptDtype dtype) {
  native::check_defined("prod", self, "self");
  return reduce("prod", self, {}, false, native::sum_like_dtype("prod", self, dtype));
}
Tensor prod_dim_int(const Tensor& self, int64_t dim, bool keepdim, OptDtype dtype) {
  native::check_defined("prod", self, "self");
  return reduce("prod", self, one_dim(dim), keepdim, native::sum_like_dtype("prod", self, dtype));
}

#define EMBER_META_DEFINE_EXTREME(name)                                                                   \
  Tensor a##name(const Tensor& self, IntArrayRef dim, bool keepdim) {                                     \
    native::check_defined("a" #name, self, "self");                                                       \
    return reduce("a" #name, self, dim, keepdim, self.dtype(), true);                                     \
  }                                                                                                       \
  Tensor name(const Tensor& self) {                                                                       \
    native::check_defined(#name, self, "self");                                                           \
    return reduce(#name, self, {}, false, self.dtype(), true);                                            \
  }                                                                                                       \
  std::tuple<Tensor, Tensor> name##_dim(const Tensor& self, int64_t dim, bool keepdim) {                  \
    native::check_defined(#name, self, "self");                                                           \
    Tensor values = reduce(#name, self, one_dim(dim), keepdim, self.dtype(), true);                       \
    return {values, empty_meta(values.sizes(), kInt64)};                                                  \
  }                                                                                                       \
  /* Without a dim: an index into the flattened tensor, 0-dim (keepdim ignored, LibTorch 1.13). */        \
  Tensor arg##name(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {                        \
    native::check_defined("arg" #name, self, "self");                                                     \
    const int64_t d = dim.value_or(0);                                                                    \
    Tensor r = reduce("arg" #name, self, dim ? one_dim(d) : IntArrayRef(), dim && keepdim, kInt64, true); \
    native::check_arg_extreme_dtype("arg" #name, self.dtype());                                           \
    return r;                                                                                             \
  }
EMBER_META_DEFINE_EXTREME(max)
EMBER_META_DEFINE_EXTREME(min)
#undef EMBER_META_DEFINE_EXTREME

#define EMBER_META_DEFINE_ANY_ALL(name)                                             \
  Tensor name(const Tensor& self) {                                                 \
    native::check_defined(#name, self, "self");                                     \
    return reduce(#name, self, {}, false, native::any_all_dtype(self));             \
  }                                                                                 \
  Tensor name##_dim(const Tensor& self, int64_t dim, bool keepdim) {                \
    native::check_defined(#name, self, "self");                                     \
    return reduce(#name, self, one_dim(dim), keepdim, native::any_all_dtype(self)); \
  }
EMBER_META_DEFINE_ANY_ALL(any)
EMBER_META_DEFINE_ANY_ALL(all)
#undef EMBER_META_DEFINE_ANY_ALL

Tensor softmax_int(const Tensor& self, int64_t dim, OptDtype dtype) {
  native::check_defined("softmax", self, "self");
  return along_dim("softmax", self, dim, native::softmax_dtype("softmax", self, dtype));
}
Tensor log_softmax_int(const Tensor& self, int64_t dim, OptDtype dtype) {
  native::check_defined("log_softmax", self, "self");
  return along_dim("log_softmax", self, dim, native::softmax_dtype("log_softmax", self, dtype));
}
Tensor cumsum(const Tensor& self, int64_t dim, OptDtype dtype) {
  native::check_defined("cumsum", self, "self");
  return along_dim("cumsum", self, dim, native::sum_like_dtype("cumsum", self, dtype));
}
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  native::check_defined("logsumexp", self, "self");
  return reduce("logsumexp", self, dim, keepdim, native::logsumexp_dtype(self));
}

#define EMBER_META_DEFINE_VAR(name)                                                                        \
  Tensor name(const Tensor& self, bool /*unbiased*/) {                                                     \
    native::check_defined(#name, self, "self");                                                            \
    native::check_var_dtype(#name, self);                                                                  \
    return reduce(#name, self, {}, false, self.dtype());                                                   \
  }                                                                                                        \
  Tensor name##_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool /*unbiased*/, bool keepdim) { \
    native::check_defined(#name, self, "self");                                                            \
    native::check_var_dtype(#name, self);                                                                  \
    return reduce(#name, self, dim.value_or(IntArrayRef()), keepdim, self.dtype());                        \
  }
EMBER_META_DEFINE_VAR(var)
EMBER_META_DEFINE_VAR(std)
#undef EMBER_META_DEFINE_VAR

// ---- cumprod, var/std with a correction, norms --------------------------------------------------

Tensor cumprod(const Tensor& self, int64_t dim, OptDtype dtype) {
  native::check_defined("cumprod", self, "self");
  return along_dim("cumprod", self, dim, native::sum_like_dtype("cumprod", self, dtype));
}

namespace {
Tensor var_like(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  native::check_defined(op, self, "self");
  native::check_var_dtype(op, self);
  return reduce(op, self, dim.value_or(IntArrayRef()), keepdim, self.dtype());
}

Tensor norm_meta(const char* op, const Tensor& self, double p, IntArrayRef dims, bool keepdim, OptDtype dtype) {
  native::check_defined(op, self, "self");
  const ScalarType out_dt = native::norm_dtype(op, self, dtype);
  return reduce(op, self, dims, keepdim, out_dt, std::isinf(p));  // +-inf norms have no identity
}
}  // namespace

Tensor var_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> /*correction*/,
                      bool keepdim) {
  return var_like("var", self, dim, keepdim);
}
Tensor std_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> /*correction*/,
                      bool keepdim) {
  return var_like("std", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> var_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> /*correction*/, bool keepdim) {
  Tensor v = var_like("var_mean", self, dim, keepdim);
  return {v, meta::mean_dim(self, dim.value_or(IntArrayRef()), keepdim, std::nullopt)};
}
std::tuple<Tensor, Tensor> std_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                                               std::optional<int64_t> /*correction*/, bool keepdim) {
  Tensor v = var_like("std_mean", self, dim, keepdim);
  return {v, meta::mean_dim(self, dim.value_or(IntArrayRef()), keepdim, std::nullopt)};
}

Tensor norm_scalar(const Tensor& self, const Scalar& p) {
  return norm_meta("norm", self, native::norm_order(p, "norm"), {}, false, std::nullopt);
}
Tensor norm_scalaropt_dim(const Tensor& self, const OptScalar& p, IntArrayRef dim, bool keepdim) {
  return norm_meta("norm", self, p ? native::norm_order(*p, "norm") : 2.0, dim, keepdim, std::nullopt);
}
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          OptDtype dtype) {
  return norm_meta("linalg_vector_norm", self, native::norm_order(ord, "linalg_vector_norm"),
                   dim.value_or(IntArrayRef()), keepdim, dtype);
}

// ---- reduction out= variants: the functional meta kernel, then written into out -----------------

namespace {
template <class F>
Tensor& out_in_dtype(const char* op, Tensor& out, OptDtype dtype, F compute) {
  const ScalarType dt = native::reduction_out_dtype(op, out, dtype);
  check_out(op, out, dt);
  return write_out(out, compute(dt), op);
}

std::tuple<Tensor&, Tensor&> extreme_dim_out(std::tuple<Tensor, Tensor> (*f)(const Tensor&, int64_t, bool),
                                             const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                             Tensor& indices, const char* op, const char* values_name,
                                             const char* indices_name) {
  native::check_defined(op, self, "self");
  check_out(op, values, self.dtype(), values_name);
  check_out(op, indices, kInt64, indices_name);
  const auto [v, i] = f(self, dim, keepdim);
  write_out(values, v, op);
  write_out(indices, i, op);
  return {values, indices};
}
}  // namespace

Tensor& sum_intlist_out(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype, Tensor& out) {
  return out_in_dtype("sum", out, dtype, [&](ScalarType dt) { return meta::sum_dim(self, dim, keepdim, dt); });
}
Tensor& mean_out(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype, Tensor& out) {
  return out_in_dtype("mean", out, dtype, [&](ScalarType dt) { return meta::mean_dim(self, dim, keepdim, dt); });
}
Tensor& prod_int_out(const Tensor& self, int64_t dim, bool keepdim, OptDtype dtype, Tensor& out) {
  return out_in_dtype("prod", out, dtype, [&](ScalarType dt) { return meta::prod_dim_int(self, dim, keepdim, dt); });
}
Tensor& cumsum_out(const Tensor& self, int64_t dim, OptDtype dtype, Tensor& out) {
  return out_in_dtype("cumsum", out, dtype, [&](ScalarType dt) { return meta::cumsum(self, dim, dt); });
}
Tensor& cumprod_out(const Tensor& self, int64_t dim, OptDtype dtype, Tensor& out) {
  return out_in_dtype("cumprod", out, dtype, [&](ScalarType dt) { return meta::cumprod(self, dim, dt); });
}
Tensor& amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  native::check_defined("amax", self, "self");
  check_out("amax", out, self.dtype());
  return write_out(out, meta::amax(self, dim, keepdim), "amax");
}
Tensor& amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  native::check_defined("amin", self, "self");
  check_out("amin", out, self.dtype());
  return write_out(out, meta::amin(self, dim, keepdim), "amin");
}
std::tuple<Tensor&, Tensor&> max_dim_max(const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                                         Tensor& max_values) {
  return extreme_dim_out(&meta::max_dim, self, dim, keepdim, max, max_values, "max", "max", "max_values");
}
std::tuple<Tensor&, Tensor&> min_dim_min(const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                                         Tensor& min_indices) {
  return extreme_dim_out(&meta::min_dim, self, dim, keepdim, min, min_indices, "min", "min", "min_indices");
}
Tensor& argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  check_out("argmax", out, kInt64);
  return write_out(out, meta::argmax(self, dim, keepdim), "argmax");
}
Tensor& argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  check_out("argmin", out, kInt64);
  return write_out(out, meta::argmin(self, dim, keepdim), "argmin");
}
Tensor& logsumexp_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  native::check_logsumexp_out(out);
  return write_out(out, meta::logsumexp(self, dim, keepdim), "logsumexp");
}

// ---- any.dims, all.dims ----------------------------------------------------------------------------

Tensor any_dims(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  native::check_defined("any", self, "self");
  return reduce("any", self, dim.value_or(IntArrayRef()), keepdim, native::any_all_dtype(self));
}
Tensor all_dims(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  native::check_defined("all", self, "self");
  return reduce("all", self, dim.value_or(IntArrayRef()), keepdim, native::any_all_dtype(self));
}
Tensor& any_dims_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  native::check_defined("any", self, "self");
  check_out("any", out, native::any_all_dtype(self));
  return write_out(out, meta::any_dims(self, dim, keepdim), "any");
}
Tensor& all_dims_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  native::check_defined("all", self, "self");
  check_out("all", out, native::any_all_dtype(self));
  return write_out(out, meta::all_dims(self, dim, keepdim), "all");
}

}  // namespace ember::meta
