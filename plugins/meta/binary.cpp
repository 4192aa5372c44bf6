// Binary elementwise meta kernels (plugins/cpu/binary.cpp): the Scalar overloads of add, sub,
// mul, div and the comparisons. Each is its family's dtype rule (ember/native/Rules.h, shared
// with the cpu kernels) and one TensorIter build on kMeta, which broadcasts, checks in-place and
// out= shapes, orders dimensions like the inputs and allocates the (dataless) output. The
// structured add/sub/mul/div.Tensor have none here: see plugins/common/ElementwiseMeta.cpp.
#include "MetaHelpers.h"
#include "ember/native/ElementwiseMeta.h"

namespace ember::meta {
namespace {

using native::Arith;

// The scalar overloads of the arith family: its metadata step (shared with the cpu kernels and
// the structured meta functions) on kMeta.
void arith(const char* name, Arith kind, Tensor& out, OutKind ok, const Tensor& a, const Tensor* bt, const Scalar* bs,
           const Scalar& alpha) {
  native::TensorIter it(name, kMeta, nullptr);
  native::arith_meta(it, name, kind, a, bt, bs, bt, alpha, out, ok);
}

Tensor arith_functional(const char* name, Arith kind, const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  arith(name, kind, out, OutKind::Functional, self, nullptr, &other, alpha);
  return out;
}

Tensor compare(const char* name, const Tensor& a, const Tensor* bt, const Scalar* bs) {
  native::check_defined(name, a, "self");
  if (bt) native::check_defined(name, *bt, "other");
  (void)(bs ? native::result_type(a, *bs) : native::result_type(a, *bt));  // rejects what cpu rejects
  Tensor out;
  if (bt)
    iterate(name, out, OutKind::Functional, kBool, {&a, bt});
  else
    iterate(name, out, OutKind::Functional, kBool, {&a});
  return out;
}

}  // namespace

#define EMBER_META_DEFINE_ARITH(name, Kind)                                              \
  Tensor name##_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {   \
    return arith_functional(#name, Arith::Kind, self, other, alpha);                     \
  }                                                                                      \
  Tensor& name##__scalar(Tensor& self, const Scalar& other, const Scalar& alpha) {       \
    arith(#name "_", Arith::Kind, self, OutKind::InPlace, self, nullptr, &other, alpha); \
    return self;                                                                         \
  }
EMBER_META_DEFINE_ARITH(add, Add)
EMBER_META_DEFINE_ARITH(sub, Sub)
#undef EMBER_META_DEFINE_ARITH

#define EMBER_META_DEFINE_MULDIV(name, Kind)                                         \
  Tensor name##_scalar(const Tensor& self, const Scalar& other) {                    \
    return arith_functional(#name, Arith::Kind, self, other, 1);                     \
  }                                                                                  \
  Tensor& name##__scalar(Tensor& self, const Scalar& other) {                        \
    arith(#name "_", Arith::Kind, self, OutKind::InPlace, self, nullptr, &other, 1); \
    return self;                                                                     \
  }
EMBER_META_DEFINE_MULDIV(mul, Mul)
EMBER_META_DEFINE_MULDIV(div, Div)
#undef EMBER_META_DEFINE_MULDIV

#define EMBER_META_DEFINE_CMP(name)                                                                               \
  Tensor name##_tensor(const Tensor& self, const Tensor& other) { return compare(#name, self, &other, nullptr); } \
  Tensor name##_scalar(const Tensor& self, const Scalar& other) { return compare(#name, self, nullptr, &other); }
EMBER_META_DEFINE_CMP(eq)
EMBER_META_DEFINE_CMP(ne)
EMBER_META_DEFINE_CMP(lt)
EMBER_META_DEFINE_CMP(le)
EMBER_META_DEFINE_CMP(gt)
EMBER_META_DEFINE_CMP(ge)
#undef EMBER_META_DEFINE_CMP

}  // namespace ember::meta
