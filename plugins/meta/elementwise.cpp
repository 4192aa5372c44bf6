// Elementwise meta kernels: each is its family's dtype rule (ember/native/Rules.h, shared with the
// cpu kernels) and one TensorIter build on kMeta, which broadcasts, checks in-place and out=
// shapes, orders dimensions like the inputs and allocates the (dataless) output. Adding an op of
// an existing family is one macro line here and its `Meta` key in ops.yaml. Structured families
// (unary, add/sub/mul/div.Tensor, logical_*) have none here: see plugins/common/ElementwiseMeta.cpp.
#include "MetaKernels.h"
#include "ember/native/ElementwiseMeta.h"

namespace ember::meta {
namespace {

using native::Arith;

// The cpu TensorIter's geometry, without data: `out` is allocated, checked or resized.
void iterate(const char* name, Tensor& out, OutKind ok, ScalarType result, std::initializer_list<const Tensor*> inputs,
             bool check_overlap = true) {
  native::TensorIter it(name, kMeta, nullptr);
  it.add_output(&out, result, ok == OutKind::Out).check_mem_overlap(check_overlap);
  for (const Tensor* t : inputs) it.add_input(*t);
  it.build();
}

void check_out(const char* name, OutKind ok, const Tensor& out, ScalarType result) {
  if (ok != OutKind::Functional) native::check_out_dtype(name, ok == OutKind::Out, out, result);
}

// The scalar overloads of the arith family: its metadata step (shared with the cpu kernels and
// the structured meta functions) on kMeta.
void arith(const char* name, Arith kind, Tensor& out, OutKind ok, const Tensor& a, const Tensor* bt, const Scalar* bs,
           const Scalar& alpha) {
  native::TensorIter it(name, kMeta, nullptr);
  native::arith_meta(it, name, kind, a, bt, bs, bt, alpha, out, ok);
}

Tensor compare(const char* name, const Tensor& a, const Tensor* bt, const Scalar* bs) {
  native::check_defined(name, a, "self");
  if (bt) native::check_defined(name, *bt, "other");
  (void)(bs ? native::result_type(a, *bs) : native::result_type(a, *bt));  // rejects what cpu rejects
  Tensor out;
  if (bt) iterate(name, out, OutKind::Functional, kBool, {&a, bt});
  else iterate(name, out, OutKind::Functional, kBool, {&a});
  return out;
}

void unary(const char* name, const native::UnaryRule& rule, Tensor& out, OutKind ok, const Tensor& self) {
  native::TensorIter it(name, kMeta, nullptr);
  native::unary_meta(it, name, rule, self, out, ok);
}

}  // namespace

// ---- add, sub, mul, div, comparisons ----------------------------------------------------------

#define EMBER_META_DEFINE_ARITH(name, Kind)                                                        \
  Tensor name##_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {             \
    Tensor out;                                                                                    \
    arith(#name, Arith::Kind, out, OutKind::Functional, self, nullptr, &other, alpha);             \
    return out;                                                                                    \
  }                                                                                                \
  Tensor& name##__scalar(Tensor& self, const Scalar& other, const Scalar& alpha) {                 \
    arith(#name "_", Arith::Kind, self, OutKind::InPlace, self, nullptr, &other, alpha);           \
    return self;                                                                                   \
  }
EMBER_META_DEFINE_ARITH(add, Add)
EMBER_META_DEFINE_ARITH(sub, Sub)
#undef EMBER_META_DEFINE_ARITH

#define EMBER_META_DEFINE_MULDIV(name, Kind)                                         \
  Tensor name##_scalar(const Tensor& self, const Scalar& other) {                    \
    return add_like_(#name, Arith::Kind, self, nullptr, &other);                     \
  }                                                                                  \
  Tensor& name##__scalar(Tensor& self, const Scalar& other) {                        \
    arith(#name "_", Arith::Kind, self, OutKind::InPlace, self, nullptr, &other, 1); \
    return self;                                                                     \
  }
namespace {
Tensor add_like_(const char* name, Arith kind, const Tensor& self, const Tensor* bt, const Scalar* bs) {
  Tensor out;
  arith(name, kind, out, OutKind::Functional, self, bt, bs, 1);
  return out;
}
}  // namespace
EMBER_META_DEFINE_MULDIV(mul, Mul)
EMBER_META_DEFINE_MULDIV(div, Div)
#undef EMBER_META_DEFINE_MULDIV

#define EMBER_META_DEFINE_CMP(name)                                                                          \
  Tensor name##_tensor(const Tensor& self, const Tensor& other) { return compare(#name, self, &other, nullptr); } \
  Tensor name##_scalar(const Tensor& self, const Scalar& other) { return compare(#name, self, nullptr, &other); }
EMBER_META_DEFINE_CMP(eq)
EMBER_META_DEFINE_CMP(ne)
EMBER_META_DEFINE_CMP(lt)
EMBER_META_DEFINE_CMP(le)
EMBER_META_DEFINE_CMP(gt)
EMBER_META_DEFINE_CMP(ge)
#undef EMBER_META_DEFINE_CMP

// ---- unary ------------------------------------------------------------------------------------

Tensor relu(const Tensor& self) {
  Tensor out;
  unary("relu", native::unary_rules::no_bool, out, OutKind::Functional, self);
  return out;
}
Tensor& relu_(Tensor& self) {
  unary("relu_", native::unary_rules::no_bool, self, OutKind::InPlace, self);
  return self;
}


// ---- pow, clamp, where, masked_fill, lerp, addcmul ----------------------------------------------

namespace {
// A functional, in-place or out= call of an op whose dtype rule gave `result`.
Tensor& pointwise(const char* name, Tensor& out, OutKind ok, ScalarType result,
                  std::initializer_list<const Tensor*> inputs) {
  check_out(name, ok, out, result);
  iterate(name, out, ok, result, inputs);
  return out;
}
Tensor functional(const char* name, ScalarType result, std::initializer_list<const Tensor*> inputs) {
  Tensor out;
  iterate(name, out, OutKind::Functional, result, inputs);
  return out;
}
}  // namespace

Tensor pow_tensor_tensor(const Tensor& self, const Tensor& exponent) {
  return functional("pow", native::pow_result("pow", self, &exponent, nullptr), {&self, &exponent});
}
Tensor& pow__tensor(Tensor& self, const Tensor& exponent) {
  return pointwise("pow_", self, OutKind::InPlace, native::pow_result("pow_", self, &exponent, nullptr),
                   {&self, &exponent});
}
Tensor& pow_tensor_tensor_out(const Tensor& self, const Tensor& exponent, Tensor& out) {
  return pointwise("pow", out, OutKind::Out, native::pow_result("pow", self, &exponent, nullptr), {&self, &exponent});
}
Tensor pow_tensor_scalar(const Tensor& self, const Scalar& exponent) {
  return functional("pow", native::pow_result("pow", self, nullptr, &exponent), {&self});
}
Tensor& pow__scalar(Tensor& self, const Scalar& exponent) {
  return pointwise("pow_", self, OutKind::InPlace, native::pow_result("pow_", self, nullptr, &exponent), {&self});
}
Tensor& pow_tensor_scalar_out(const Tensor& self, const Scalar& exponent, Tensor& out) {
  return pointwise("pow", out, OutKind::Out, native::pow_result("pow", self, nullptr, &exponent), {&self});
}

Tensor clamp(const Tensor& self, const OptScalar& min, const OptScalar& max) {
  return functional("clamp", native::clamp_result("clamp", self, min, max), {&self});
}
Tensor& clamp_(Tensor& self, const OptScalar& min, const OptScalar& max) {
  return pointwise("clamp_", self, OutKind::InPlace, native::clamp_result("clamp_", self, min, max), {&self});
}
Tensor& clamp_out(const Tensor& self, const OptScalar& min, const OptScalar& max, Tensor& out) {
  return pointwise("clamp", out, OutKind::Out, native::clamp_result("clamp", self, min, max), {&self});
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return functional("where", native::where_result("where", condition, self, other), {&condition, &self, &other});
}
Tensor& where_out(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return pointwise("where", out, OutKind::Out, native::where_result("where", condition, self, other),
                   {&condition, &self, &other});
}

// masked_fill keeps self's dtype; the in-place form cannot grow self.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  native::check_masked_fill("masked_fill", self, mask);
  native::check_scalar_fits(value, self.dtype(), "masked_fill");
  return functional("masked_fill", self.dtype(), {&mask, &self});
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  native::check_masked_fill("masked_fill_", self, mask);
  native::check_scalar_fits(value, self.dtype(), "masked_fill_");
  iterate("masked_fill_", self, OutKind::InPlace, self.dtype(), {&mask, &self});
  return self;
}

Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& /*weight*/) {
  return functional("lerp", native::lerp_result("lerp", self, end), {&self, &end});
}
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& /*weight*/) {
  return pointwise("lerp_", self, OutKind::InPlace, native::lerp_result("lerp_", self, end), {&self, &end});
}
Tensor& lerp_out(const Tensor& self, const Tensor& end, const Scalar& /*weight*/, Tensor& out) {
  return pointwise("lerp", out, OutKind::Out, native::lerp_result("lerp", self, end), {&self, &end});
}

Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& /*value*/) {
  return functional("addcmul", native::addcmul_result("addcmul", self, tensor1, tensor2),
                    {&self, &tensor1, &tensor2});
}
Tensor& addcmul_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& /*value*/) {
  return pointwise("addcmul_", self, OutKind::InPlace, native::addcmul_result("addcmul_", self, tensor1, tensor2),
                   {&self, &tensor1, &tensor2});
}
Tensor& addcmul_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& /*value*/,
                    Tensor& out) {
  return pointwise("addcmul", out, OutKind::Out, native::addcmul_result("addcmul", self, tensor1, tensor2),
                   {&self, &tensor1, &tensor2});
}

// ---- copy-like: the cpu kernel's checks, no data to write -------------------------------------------

Tensor& copy_(Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  native::check_defined("copy_", self, "self");
  native::check_defined("copy_", src, "src");
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_meta(),
                              "[copy_] cannot copy out of a meta tensor into a tensor on {}: a meta tensor has no data",
                              self.device());
  if (self.is_same(src)) return self;
  // Any source may be copied into a meta tensor; its geometry is checked as the cpu kernel's.
  const Tensor s = src.is_meta() ? src : native::empty_strided_on(kMeta, src.sizes(), src.strides(), src.dtype());
  iterate("copy_", self, OutKind::InPlace, self.dtype(), {&s});
  return self;
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  native::check_defined("fill_", self, "self");
  native::check_scalar_fits(value, self.dtype(), "fill_");
  return self;
}

Tensor& zero_(Tensor& self) {
  native::check_defined("zero_", self, "self");
  return self;
}

namespace {
// The cpu fills write a non-contiguous tensor through copy_, with copy_'s overlap check.
void check_fill_target(Tensor& self) {
  if (self.is_contiguous()) return;
  const Tensor src = native::empty_on(kMeta, self.sizes(), self.dtype());
  iterate("copy_", self, OutKind::InPlace, self.dtype(), {&src});
}
}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, std::optional<Generator> /*generator*/) {
  native::check_defined("uniform_", self, "self");
  native::check_uniform(self, from, to);
  check_fill_target(self);
  return self;
}

Tensor& normal_(Tensor& self, double /*mean*/, double std, std::optional<Generator> /*generator*/) {
  native::check_defined("normal_", self, "self");
  native::check_normal(self, std);
  check_fill_target(self);
  return self;
}

Tensor& random_from(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> /*generator*/) {
  native::check_defined("random_", self, "self");
  native::random_from_end(self, from, to);
  check_fill_target(self);
  return self;
}

Tensor& bernoulli_float(Tensor& self, double p, std::optional<Generator> /*generator*/) {
  native::check_defined("bernoulli_", self, "self");
  native::check_bernoulli(p);
  check_fill_target(self);
  return self;
}

}  // namespace ember::meta
