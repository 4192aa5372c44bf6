// Meta kernels of the non-elementwise families: factories, reductions, cat/flip, matrix products,
// and the ops whose result depends on data (a clear error). Shapes, dtypes and errors come from
// the rules the cpu kernels use (ember/native/Rules.h); every output is contiguous, as the cpu
// kernels' are.
#include "Ops.h"
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
  out.unsafeGetTensorImpl()->bump_version();
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

}  // namespace ember::meta
