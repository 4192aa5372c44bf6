#pragma once
// PyTorch's type promotion, public as in LibTorch (c10::promoteTypes, c10::canCast,
// at::result_type), so out-of-tree backends and composite kernels use the same rules.
#include "ember/core/Scalar.h"
#include "ember/core/TensorBase.h"

namespace ember {

// The smallest dtype both promote to (PyTorch's table); Undefined is the identity.
EMBER_API ScalarType promote_types(ScalarType a, ScalarType b);
// PyTorch's canCast: no complex -> real, floating -> integral, or non-bool -> bool.
EMBER_API bool can_cast(ScalarType from, ScalarType to);
inline ScalarType promoteTypes(ScalarType a, ScalarType b) { return promote_types(a, b); }
inline bool canCast(ScalarType from, ScalarType to) { return can_cast(from, to); }

// PyTorch's ResultTypeState: dimensioned tensors, 0-dim tensors and Scalars (wrapped numbers)
// promote within their class; a lower class only counts when its category is higher.
struct EMBER_API ResultTypeState {
  ScalarType dim = ScalarType::Undefined;
  ScalarType zero = ScalarType::Undefined;
  ScalarType wrapped = ScalarType::Undefined;
  void add(const TensorBase& t);
  void add(const Scalar& s);
  ScalarType result() const;
};
inline ScalarType result_type(const TensorBase& a, const TensorBase& b) {
  ResultTypeState r;
  r.add(a);
  r.add(b);
  return r.result();
}
inline ScalarType result_type(const TensorBase& a, const Scalar& b) {
  ResultTypeState r;
  r.add(a);
  r.add(b);
  return r.result();
}

}  // namespace ember
