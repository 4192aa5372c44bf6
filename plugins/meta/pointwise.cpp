// Pointwise meta kernels (plugins/cpu/pointwise.cpp): where and masked_fill. Each is its
// dtype rule (ember/native/Rules.h, shared with the cpu kernels) and one TensorIter build on kMeta;
// the structured families (pow, clamp, lerp, addcmul, the logical ops) have none here
// (plugins/common/ElementwiseMeta.cpp).
#include "MetaHelpers.h"

namespace ember::meta {
namespace {

// A functional, in-place or out= call of an op whose dtype rule gave `result`.
Tensor& pointwise(const char* name, Tensor& out, OutKind ok, ScalarType result,
                  std::initializer_list<const Tensor*> inputs) {
  if (ok != OutKind::Functional) native::check_out_dtype(name, ok == OutKind::Out, out, result);
  iterate(name, out, ok, result, inputs);
  return out;
}
Tensor functional(const char* name, ScalarType result, std::initializer_list<const Tensor*> inputs) {
  Tensor out;
  iterate(name, out, OutKind::Functional, result, inputs);
  return out;
}

}  // namespace

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

}  // namespace ember::meta
