#include "ember/core/ScalarType.h"

#include <array>
#include <utility>

namespace ember {

std::string_view scalar_type_name(ScalarType t) {
  switch (t) {
    case kBool: return "Bool";
    case kUInt8: return "Byte";
    case kInt8: return "Char";
    case kInt16: return "Short";
    case kInt32: return "Int";
    case kInt64: return "Long";
    case kFloat16: return "Half";
    case kBFloat16: return "BFloat16";
    case kFloat32: return "Float";
    case kFloat64: return "Double";
    case kComplex64: return "ComplexFloat";
    case kComplex128: return "ComplexDouble";
    case kQUInt8: return "QUInt8";
    case kQInt8: return "QInt8";
    case kQInt32: return "QInt32";
    default: return "Undefined";
  }
}

std::optional<ScalarType> parse_scalar_type(std::string_view s) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto t = static_cast<ScalarType>(i);
    if (s == dtype_name(t) || s == scalar_type_name(t)) return t;
  }
  static constexpr std::array<std::pair<std::string_view, ScalarType>, 8> kAliases{{
      {"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16}, {"long", kInt64},
      {"int", kInt32}, {"short", kInt16}, {"byte", kUInt8}, {"char", kInt8}}};
  for (auto& [n, t] : kAliases)
    if (s == n) return t;
  return std::nullopt;
}

}  // namespace ember
