#pragma once
// Element types. The order of ScalarType is part of the ABI (plugins switch on it).
#include <complex>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include "ember/core/Exception.h"
#include "ember/core/Half.h"

namespace ember {

// X(C++ type, Name, short name)
#define EMBER_FORALL_SCALAR_TYPES(X)      \
  X(bool, Bool, "bool")                   \
  X(uint8_t, UInt8, "uint8")              \
  X(int8_t, Int8, "int8")                 \
  X(int16_t, Int16, "int16")              \
  X(int32_t, Int32, "int32")              \
  X(int64_t, Int64, "int64")              \
  X(::ember::Half, Float16, "float16")    \
  X(::ember::BFloat16, BFloat16, "bfloat16") \
  X(float, Float32, "float32")            \
  X(double, Float64, "float64")           \
  X(std::complex<float>, Complex64, "complex64") \
  X(std::complex<double>, Complex128, "complex128")

// Quantized types: storage only; kernels live in the quantized plugin.
struct QUInt8 { uint8_t val_; };
struct QInt8 { int8_t val_; };
struct QInt32 { int32_t val_; };

enum class ScalarType : int8_t {
#define EMBER_DEF_ENUM(T, N, S) N,
  EMBER_FORALL_SCALAR_TYPES(EMBER_DEF_ENUM)
#undef EMBER_DEF_ENUM
  QUInt8,
  QInt8,
  QInt32,
  Undefined,
  NumOptions = Undefined
};

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kUInt8 = ScalarType::UInt8;
constexpr ScalarType kInt8 = ScalarType::Int8;
constexpr ScalarType kInt16 = ScalarType::Int16;
constexpr ScalarType kInt32 = ScalarType::Int32;
constexpr ScalarType kInt64 = ScalarType::Int64;
constexpr ScalarType kFloat16 = ScalarType::Float16;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat32 = ScalarType::Float32;
constexpr ScalarType kFloat64 = ScalarType::Float64;
constexpr ScalarType kComplex64 = ScalarType::Complex64;
constexpr ScalarType kComplex128 = ScalarType::Complex128;
constexpr ScalarType kQUInt8 = ScalarType::QUInt8;
constexpr ScalarType kQInt8 = ScalarType::QInt8;
constexpr ScalarType kQInt32 = ScalarType::QInt32;
// LibTorch's aliases.
constexpr ScalarType kByte = kUInt8, kChar = kInt8, kShort = kInt16, kInt = kInt32,
                     kLong = kInt64, kHalf = kFloat16, kFloat = kFloat32, kDouble = kFloat64;

constexpr int kNumScalarTypes = static_cast<int>(ScalarType::NumOptions);

constexpr size_t element_size(ScalarType t) {
  switch (t) {
#define EMBER_DEF_CASE(T, N, S) \
  case ScalarType::N:           \
    return sizeof(T);
    EMBER_FORALL_SCALAR_TYPES(EMBER_DEF_CASE)
#undef EMBER_DEF_CASE
    case ScalarType::QUInt8:
    case ScalarType::QInt8:
      return 1;
    case ScalarType::QInt32:
      return 4;
    default:
      return 0;
  }
}

// "float32", "int64", ... (the torch.dtype spelling).
constexpr std::string_view dtype_name(ScalarType t) {
  switch (t) {
#define EMBER_DEF_CASE(T, N, S) \
  case ScalarType::N:           \
    return S;
    EMBER_FORALL_SCALAR_TYPES(EMBER_DEF_CASE)
#undef EMBER_DEF_CASE
    case ScalarType::QUInt8:
      return "quint8";
    case ScalarType::QInt8:
      return "qint8";
    case ScalarType::QInt32:
      return "qint32";
    default:
      return "undefined";
  }
}
// "Float", "Long", ... (LibTorch's printed type names, as in "CPUFloatType").
EMBER_API std::string_view scalar_type_name(ScalarType t);
// Parses either spelling ("float32", "Float", "float", "long"); nullopt when unknown.
EMBER_API std::optional<ScalarType> parse_scalar_type(std::string_view s);

constexpr bool is_floating_type(ScalarType t) {
  return t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64;
}
constexpr bool is_complex_type(ScalarType t) { return t == kComplex64 || t == kComplex128; }
// The dtype a kernel computes in for dtype t (every backend's): float16 and bfloat16 compute in float.
constexpr ScalarType compute_dtype(ScalarType t) { return t == kFloat16 || t == kBFloat16 ? kFloat32 : t; }
constexpr bool is_quantized_type(ScalarType t) {
  return t == kQUInt8 || t == kQInt8 || t == kQInt32;
}
constexpr bool is_integral_type(ScalarType t, bool include_bool) {
  return (include_bool && t == kBool) || t == kUInt8 || t == kInt8 || t == kInt16 ||
         t == kInt32 || t == kInt64;
}

template <class T>
struct CppTypeToScalarType;
#define EMBER_DEF_MAP(T, N, S) \
  template <>                  \
  struct CppTypeToScalarType<T> { static constexpr ScalarType value = ScalarType::N; };
EMBER_FORALL_SCALAR_TYPES(EMBER_DEF_MAP)
#undef EMBER_DEF_MAP
template <class T>
constexpr ScalarType scalar_type_of = CppTypeToScalarType<T>::value;

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

}  // namespace ember

template <>
struct fmt::formatter<ember::ScalarType> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(ember::ScalarType t, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(ember::dtype_name(t), ctx);
  }
};
