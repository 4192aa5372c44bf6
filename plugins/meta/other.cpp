// Meta kernels of the non-elementwise families: factories, reductions, cat/flip, matrix products,
// and the ops whose result depends on data (a clear error). Shapes, dtypes and errors come from
// the rules the cpu kernels use (ember/native/Rules.h); every output is contiguous, as the cpu
// kernels' are.
#include "MetaKernels.h"
#include "ember/native/Geometry.h"
#include "ember/generated/Functions.h"
#include "ember/native/Rules.h"

namespace ember::meta {
namespace {

Tensor empty_meta(IntArrayRef sizes, ScalarType dtype) { return native::empty_on(kMeta, sizes, dtype); }

void check_factory(const char* op, OptLayout layout, OptDevice device, OptBool pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == kStrided, "[{}] only the strided layout is supported by the meta plugin",
                              op);
  EMBER_CHECK(!device || device->type() == kMeta, "[{}] the meta kernel was asked for a tensor on {}", op, *device);
  EMBER_CHECK_NOT_IMPLEMENTED(!pin_memory.value_or(false), "[{}] pin_memory=true: meta tensors have no memory to pin",
                              op);
}

[[noreturn]] void no_data(const char* op) {
  EMBER_THROW(NotImplementedError,
              "[{}] needs the tensor's values, and a meta tensor has none (only sizes, strides and dtype)", op);
}

IntArrayRef one_dim(const int64_t& d) { return IntArrayRef(&d, 1); }

// A reduction of `dims` (all when empty): the kept sizes, contiguous, in `dtype`.
Tensor reduce(const char* op, const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype,
              bool nonempty = false) {
  const auto red = native::reduced_mask(self, dims, op);
  if (nonempty) native::check_nonempty_reduction(self, dims, red, op);
  return empty_meta(native::reduced_shape(self, red, keepdim), dtype);
}

// An op along one dimension (softmax, cumsum): self's shape, contiguous.
Tensor along_dim(const char* op, const Tensor& self, int64_t dim, ScalarType dtype) {
  maybe_wrap_dim(dim, self.dim(), op);
  return empty_meta(self.sizes(), dtype);
}

}  // namespace

// ---- factories ----------------------------------------------------------------------------------

Tensor empty(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_factory("empty", layout, device, pin_memory);
  return empty_meta(size, dtype.value_or(get_default_dtype()));
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout layout, OptDevice device,
                     OptBool pin_memory) {
  check_factory("empty_strided", layout, device, pin_memory);
  return native::empty_strided_on(kMeta, size, stride, dtype.value_or(get_default_dtype()));
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype, OptLayout layout,
              OptDevice device, OptBool pin_memory) {
  check_factory("arange", layout, device, pin_memory);
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const ScalarType dt = dtype.value_or(integral ? kInt64 : get_default_dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool && !is_complex_type(dt), "[arange] not implemented for dtype {} on the CPU",
                              dt);
  return empty_meta({native::arange_length(start, end, step, dt)}, dt);
}

Tensor linspace(const Scalar& /*start*/, const Scalar& /*end*/, int64_t steps, OptDtype dtype, OptLayout layout,
                OptDevice device, OptBool pin_memory) {
  check_factory("linspace", layout, device, pin_memory);
  EMBER_CHECK(steps >= 0, "[linspace] number of steps must be non-negative, got {}", steps);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool && !is_complex_type(dt), "[linspace] not implemented for dtype {} on the CPU",
                              dt);
  return empty_meta({steps}, dt);
}

Tensor eye_m(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_factory("eye", layout, device, pin_memory);
  native::check_eye(n, m);
  return empty_meta({n, m}, dtype.value_or(get_default_dtype()));
}

Tensor eye(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return meta::eye_m(n, n, dtype, layout, device, pin_memory);
}

// ---- data-dependent -------------------------------------------------------------------------------

Scalar item(const Tensor& self) {
  native::check_defined("item", self, "self");
  no_data("item");
}
bool equal(const Tensor& /*self*/, const Tensor& /*other*/) { no_data("equal"); }
bool allclose(const Tensor& /*self*/, const Tensor& /*other*/, double /*rtol*/, double /*atol*/, bool /*equal_nan*/) {
  no_data("allclose");
}

// ---- shapes ---------------------------------------------------------------------------------------

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const native::CatShape cs = native::cat_shape(
      tensors, dim, [](const Tensor& a, const Tensor& b) { native::check_same_device("cat", kMeta, a, b); });
  return empty_meta(cs.sizes, cs.dtype);
}

// flip's result is empty_like(self): the dispatched composite, as on the cpu.
Tensor flip(const Tensor& self, IntArrayRef dims) {
  native::check_defined("flip", self, "self");
  native::wrap_dims(dims, self.dim(), "flip");
  return ember::empty_like(self);
}

// ---- matrix products ------------------------------------------------------------------------------

Tensor mm(const Tensor& self, const Tensor& mat2) {
  native::check_defined("mm", self, "self");
  native::check_defined("mm", mat2, "mat2");
  native::check_same_device("mm", kMeta, self, mat2);
  native::check_matmul_pair("mm", self, mat2, 2, "self", "mat2");
  native::check_matmul_dtype("mm", self.dtype());
  return empty_meta({self.size(0), mat2.size(1)}, self.dtype());
}

Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  const Tensor r = meta::mm(self, mat2);
  native::check_defined("mm", out, "out");
  native::check_same_device("mm", kMeta, self, out);
  EMBER_CHECK_TYPE(out.dtype() == self.dtype(), "[mm] expected out to have dtype {}, but got {}", self.dtype(),
                   out.dtype());
  native::resize_output(out, r.sizes(), "mm");
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  native::check_defined("bmm", self, "self");
  native::check_defined("bmm", mat2, "mat2");
  native::check_same_device("bmm", kMeta, self, mat2);
  native::check_matmul_pair("bmm", self, mat2, 3, "self", "mat2");
  EMBER_CHECK(self.size(0) == mat2.size(0), "[bmm] batch sizes differ: shapes {} and {}", self.sizes(), mat2.sizes());
  native::check_matmul_dtype("bmm", self.dtype());
  return empty_meta({self.size(0), self.size(1), mat2.size(2)}, self.dtype());
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& /*beta*/,
             const Scalar& /*alpha*/) {
  native::check_defined("addmm", mat1, "mat1");
  native::check_defined("addmm", mat2, "mat2");
  native::check_same_device("addmm", kMeta, mat1, mat2);
  native::check_matmul_pair("addmm", mat1, mat2, 2, "mat1", "mat2");
  native::check_defined("addmm", self, "self");
  native::check_same_device("addmm", kMeta, mat1, self);
  native::check_addmm_self(self, mat1, mat2);
  native::check_matmul_dtype("addmm", mat1.dtype());
  return empty_meta({mat1.size(0), mat2.size(1)}, mat1.dtype());
}

// ---- reductions -----------------------------------------------------------------------------------

Tensor sum(const Tensor& self, OptDtype dtype) { return meta::sum_dim(self, {}, false, dtype); }
Tensor sum_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  native::check_defined("sum", self, "self");
  return reduce("sum", self, dim, keepdim, native::sum_like_dtype("sum", self, dtype));
}
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

#define EMBER_META_DEFINE_EXTREME(name)                                                      \
  Tensor a##name(const Tensor& self, IntArrayRef dim, bool keepdim) {                        \
    native::check_defined("a" #name, self, "self");                                          \
    return reduce("a" #name, self, dim, keepdim, self.dtype(), true);                        \
  }                                                                                          \
  Tensor name(const Tensor& self) {                                                          \
    native::check_defined(#name, self, "self");                                              \
    return reduce(#name, self, {}, false, self.dtype(), true);                               \
  }                                                                                          \
  std::tuple<Tensor, Tensor> name##_dim(const Tensor& self, int64_t dim, bool keepdim) {     \
    native::check_defined(#name, self, "self");                                              \
    Tensor values = reduce(#name, self, one_dim(dim), keepdim, self.dtype(), true);          \
    return {values, empty_meta(values.sizes(), kInt64)};                                     \
  }                                                                                          \
  /* Without a dim: an index into the flattened tensor, 0-dim (keepdim ignored, LibTorch 1.13). */ \
  Tensor arg##name(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {           \
    native::check_defined("arg" #name, self, "self");                                        \
    const int64_t d = dim.value_or(0);                                                       \
    Tensor r = reduce("arg" #name, self, dim ? one_dim(d) : IntArrayRef(), dim && keepdim, kInt64, true); \
    native::check_arg_extreme_dtype("arg" #name, self.dtype());                              \
    return r;                                                                                \
  }
EMBER_META_DEFINE_EXTREME(max)
EMBER_META_DEFINE_EXTREME(min)
#undef EMBER_META_DEFINE_EXTREME

#define EMBER_META_DEFINE_ANY_ALL(name)                                                   \
  Tensor name(const Tensor& self) {                                                       \
    native::check_defined(#name, self, "self");                                           \
    return reduce(#name, self, {}, false, native::any_all_dtype(self));                   \
  }                                                                                       \
  Tensor name##_dim(const Tensor& self, int64_t dim, bool keepdim) {                      \
    native::check_defined(#name, self, "self");                                           \
    return reduce(#name, self, one_dim(dim), keepdim, native::any_all_dtype(self));       \
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

#define EMBER_META_DEFINE_VAR(name)                                                                 \
  Tensor name(const Tensor& self, bool /*unbiased*/) {                                              \
    native::check_defined(#name, self, "self");                                                     \
    native::check_var_dtype(#name, self);                                                           \
    return reduce(#name, self, {}, false, self.dtype());                                            \
  }                                                                                                 \
  Tensor name##_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool /*unbiased*/, bool keepdim) { \
    native::check_defined(#name, self, "self");                                                     \
    native::check_var_dtype(#name, self);                                                           \
    return reduce(#name, self, dim.value_or(IntArrayRef()), keepdim, self.dtype());                 \
  }
EMBER_META_DEFINE_VAR(var)
EMBER_META_DEFINE_VAR(std)
#undef EMBER_META_DEFINE_VAR

// ---- sort and topk (plugins/cpu/sort.cpp) ---------------------------------------------------------

namespace {

// An out= argument: defined, on meta, of dtype `expected` (the cpu's check_out).
void check_out(const char* op, const Tensor& out, ScalarType expected, const char* name = "out") {
  native::check_defined(op, out, name);
  EMBER_CHECK(out.is_meta(), "[{}] expected a meta tensor, got one on {}", op, out.device());
  native::check_out_dtype(op, out, expected, name);
}

// out = result, as the cpu's write_out: resized to result's shape when it differs, then copied.
Tensor& write_out(Tensor& out, const Tensor& result, const char* op) {
  native::resize_output(out, result.sizes(), op);
  return meta::copy_(out, result, false);
}

std::tuple<Tensor, Tensor> sorted_along(const Tensor& self, int64_t dim, std::optional<int64_t> k, const char* op) {
  native::check_defined(op, self, "self");
  const native::SortShape s = native::sort_shape(op, self, dim, k);
  return {empty_meta(s.sizes, self.dtype()), empty_meta(s.sizes, kInt64)};
}

std::tuple<Tensor&, Tensor&> sorted_out(const Tensor& self, int64_t dim, std::optional<int64_t> k, Tensor& values,
                                        Tensor& indices, const char* op) {
  native::check_defined(op, self, "self");
  check_out(op, values, self.dtype(), "values");
  check_out(op, indices, kInt64, "indices");
  const auto [v, i] = sorted_along(self, dim, k, op);
  write_out(values, v, op);
  write_out(indices, i, op);
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool /*descending*/) {
  return sorted_along(self, dim, std::nullopt, "sort");
}
std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, OptBool /*stable*/, int64_t dim, bool /*descending*/) {
  return sorted_along(self, dim, std::nullopt, "sort");
}
Tensor argsort(const Tensor& self, int64_t dim, bool /*descending*/) {
  return std::get<1>(sorted_along(self, dim, std::nullopt, "argsort"));
}
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool /*largest*/, bool /*sorted*/) {
  return sorted_along(self, dim, k, "topk");
}
std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim, bool /*descending*/, Tensor& values,
                                         Tensor& indices) {
  return sorted_out(self, dim, std::nullopt, values, indices, "sort");
}
std::tuple<Tensor&, Tensor&> topk_values(const Tensor& self, int64_t k, int64_t dim, bool /*largest*/,
                                         bool /*sorted*/, Tensor& values, Tensor& indices) {
  return sorted_out(self, dim, k, values, indices, "topk");
}

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

}  // namespace ember::meta
