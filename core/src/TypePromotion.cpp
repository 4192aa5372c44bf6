// PyTorch's type promotion rules.
#include "ember/core/TypePromotion.h"

namespace ember {

namespace {
int int_rank(ScalarType t) {
  switch (t) {
    case kInt8:
      return 1;
    case kInt16:
      return 2;
    case kInt32:
      return 3;
    case kInt64:
      return 4;
    default:
      return 0;  // uint8
  }
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  EMBER_CHECK_TYPE(!is_quantized_type(a) && !is_quantized_type(b),
                   "[promote_types] quantized dtypes do not promote ({} and {})", a, b);
  if (a == kBool) return b;
  if (b == kBool) return a;
  if (is_complex_type(a) || is_complex_type(b)) {
    if (a == kComplex128 || b == kComplex128 || a == kFloat64 || b == kFloat64) return kComplex128;
    return kComplex64;
  }
  if (is_floating_type(a) && is_floating_type(b)) {
    if ((a == kFloat16 && b == kBFloat16) || (a == kBFloat16 && b == kFloat16)) return kFloat32;
    auto rank = [](ScalarType t) { return t == kFloat64 ? 3 : t == kFloat32 ? 2 : 1; };
    return rank(a) >= rank(b) ? a : b;
  }
  if (is_floating_type(a)) return a;
  if (is_floating_type(b)) return b;
  // Both integral.
  if ((a == kUInt8 && b == kInt8) || (a == kInt8 && b == kUInt8)) return kInt16;
  if (a == kUInt8) return b;
  if (b == kUInt8) return a;
  return int_rank(a) >= int_rank(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex_type(from) && !is_complex_type(to)) return false;
  if (is_floating_type(from) && is_integral_type(to, false)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

namespace {
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_complex_type(higher)) return higher;
  if (is_complex_type(lower)) {
    if (is_floating_type(higher)) return higher == kFloat64 ? kComplex128 : kComplex64;
    return lower;
  }
  if (is_floating_type(higher)) return higher;
  if (higher == kBool || is_floating_type(lower)) return promote_types(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}
}  // namespace

void ResultTypeState::add(const TensorBase& t) {
  if (t.dim() == 0)
    zero = promote_types(zero, t.dtype());
  else
    dim = promote_types(dim, t.dtype());
}

void ResultTypeState::add(const Scalar& s) {
  ScalarType t = s.type();
  if (s.isFloatingPoint())
    t = get_default_dtype();
  else if (s.isComplex())
    t = get_default_dtype() == kFloat64 ? kComplex128 : kComplex64;
  wrapped = promote_types(wrapped, t);
}

ScalarType ResultTypeState::result() const { return combine_categories(dim, combine_categories(zero, wrapped)); }

}  // namespace ember
