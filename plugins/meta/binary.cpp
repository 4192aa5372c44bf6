// Binary elementwise meta kernels (plugins/cpu/binary.cpp): the Scalar overloads of add, sub,
// mul and div. Each is its family's dtype rule (ember/native/Rules.h, shared with the cpu
// kernels) and one TensorIter build on kMeta, which broadcasts, checks in-place and out= shapes,
// orders dimensions like the inputs and allocates the (dataless) output. The structured
// add/sub/mul/div.Tensor and the comparisons have none here: see plugins/common/ElementwiseMeta.cpp.
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
  // A Scalar operand is a 0-dim operand of the iteration, as on the cpu (it takes part in the
  // ordering of an empty result's dimensions, as in PyTorch's TensorIterator).
  const ScalarType result = native::arith_result(name, kind, a, bt, bs, alpha);
  const Tensor b = bs ? empty_meta({}, result) : Tensor();
  native::binary_meta(it, name, result, a, bs ? &b : bt, out, ok);
}

Tensor arith_functional(const char* name, Arith kind, const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  arith(name, kind, out, OutKind::Functional, self, nullptr, &other, alpha);
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

}  // namespace ember::meta
