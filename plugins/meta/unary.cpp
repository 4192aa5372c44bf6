// Unary elementwise meta kernels (plugins/cpu/unary.cpp) that are not structured: relu, relu_
// and isfinite. The structured unary family has none here: its Meta kernel is the shared meta function
// (plugins/common/ElementwiseMeta.cpp).
#include "MetaHelpers.h"
#include "ember/native/ElementwiseMeta.h"

namespace ember::meta {
namespace {

void unary(const char* name, const native::UnaryRule& rule, Tensor& out, OutKind ok, const Tensor& self) {
  native::TensorIter it(name, kMeta, nullptr);
  native::unary_meta(it, name, rule, self, out, ok);
}

}  // namespace

Tensor relu(const Tensor& self) {
  Tensor out;
  unary("relu", native::unary_rules::no_bool, out, OutKind::Functional, self);
  return out;
}
Tensor& relu_(Tensor& self) {
  unary("relu_", native::unary_rules::no_bool, self, OutKind::InPlace, self);
  return self;
}

Tensor isfinite(const Tensor& self) {
  Tensor out;
  unary("isfinite", native::unary_rules::to_bool, out, OutKind::Functional, self);
  return out;
}

}  // namespace ember::meta
