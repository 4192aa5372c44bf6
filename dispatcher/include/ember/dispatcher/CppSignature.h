#pragma once
// The C++ spelling of each kernel argument, computed at compile time, and the spelling a schema
// demands (API.md's mapping). Registration and typed<Sig>() compare the two lists, so a kernel
// taking float where the schema says `float` (= double), or Tensor by value where it says
// `Tensor` (= const Tensor&), is refused with both spellings in the message.
#include <array>
#include <complex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/core/Schema.h"
#include "ember/dispatcher/IValue.h"

namespace ember {

class OperatorHandle;

namespace detail {

template <class T>
struct TypeSpelling {
  // Not a schema type: name it as the compiler does so the error says what was given.
  static std::string_view get() {
    std::string_view p = __PRETTY_FUNCTION__;
    auto b = p.find("T = ");
    auto e = p.find_first_of(";]", b);
    return b == std::string_view::npos ? p : p.substr(b + 4, e - b - 4);
  }
};
#define EMBER_SPELL(T, S)                       \
  template <>                                   \
  struct TypeSpelling<T> {                      \
    static std::string_view get() { return S; } \
  };
EMBER_SPELL(const Tensor&, "const Tensor&")
EMBER_SPELL(Tensor&, "Tensor&")
EMBER_SPELL(const Tensor&&, "const Tensor&&")
EMBER_SPELL(Tensor, "Tensor")
EMBER_SPELL(double, "double")
EMBER_SPELL(float, "float")
EMBER_SPELL(int64_t, "int64_t")
EMBER_SPELL(int, "int")
EMBER_SPELL(bool, "bool")
EMBER_SPELL(const Scalar&, "const Scalar&")
EMBER_SPELL(Scalar, "Scalar")
EMBER_SPELL(IntArrayRef, "IntArrayRef")
EMBER_SPELL(ArrayRef<double>, "ArrayRef<double>")
EMBER_SPELL(std::string_view, "std::string_view")
EMBER_SPELL(const std::vector<Tensor>&, "const std::vector<Tensor>&")
EMBER_SPELL(std::vector<Tensor>, "std::vector<Tensor>")
EMBER_SPELL(const std::vector<std::optional<Tensor>>&, "const std::vector<std::optional<Tensor>>&")
EMBER_SPELL(ScalarType, "ScalarType")
EMBER_SPELL(Layout, "Layout")
EMBER_SPELL(QScheme, "QScheme")
EMBER_SPELL(MemoryFormat, "MemoryFormat")
EMBER_SPELL(Device, "Device")
EMBER_SPELL(std::complex<double>, "std::complex<double>")
EMBER_SPELL(const std::optional<Tensor>&, "const std::optional<Tensor>&")
EMBER_SPELL(std::optional<Tensor>, "std::optional<Tensor>")
EMBER_SPELL(const std::optional<Scalar>&, "const std::optional<Scalar>&")
EMBER_SPELL(std::optional<Scalar>, "std::optional<Scalar>")
EMBER_SPELL(std::optional<int64_t>, "std::optional<int64_t>")
EMBER_SPELL(std::optional<double>, "std::optional<double>")
EMBER_SPELL(std::optional<bool>, "std::optional<bool>")
EMBER_SPELL(std::optional<IntArrayRef>, "std::optional<IntArrayRef>")
EMBER_SPELL(std::optional<ArrayRef<double>>, "std::optional<ArrayRef<double>>")
EMBER_SPELL(std::optional<std::string_view>, "std::optional<std::string_view>")
EMBER_SPELL(std::optional<ScalarType>, "std::optional<ScalarType>")
EMBER_SPELL(std::optional<Layout>, "std::optional<Layout>")
EMBER_SPELL(std::optional<MemoryFormat>, "std::optional<MemoryFormat>")
EMBER_SPELL(std::optional<Device>, "std::optional<Device>")
EMBER_SPELL(Generator, "Generator")
EMBER_SPELL(std::optional<Generator>, "std::optional<Generator>")
EMBER_SPELL(const std::optional<Generator>&, "const std::optional<Generator>&")
EMBER_SPELL(Stream, "Stream")
EMBER_SPELL(std::optional<Stream>, "std::optional<Stream>")
EMBER_SPELL(void, "void")
#undef EMBER_SPELL

// Fixed-size bool lists (bool[3] output masks): "std::array<bool, 3>".
template <size_t N>
struct TypeSpelling<std::array<bool, N>> {
  static std::string_view get() {
    static const std::string s = "std::array<bool, " + std::to_string(N) + ">";
    return s;
  }
};

// Multiple returns: "std::tuple<Tensor, double>". The string is built once per type (a copy per
// shared object is harmless: spellings are compared by value, never by address).
template <class... T>
struct TypeSpelling<std::tuple<T...>> {
  static std::string_view get() {
    static const std::string s = [] {
      std::string r = "std::tuple<";
      size_t i = 0;
      ((r += (i++ ? ", " : ""), r += TypeSpelling<T>::get()), ...);
      return r + ">";
    }();
    return s;
  }
};

}  // namespace detail

// Spellings of a C++ function type's return and arguments (DispatchKeySet first argument
// excluded: see Note [Kernels that redispatch]).
struct EMBER_API CppSignature {
  std::string_view ret;
  std::vector<std::string_view> args;
  std::string str() const;  // "Tensor(const Tensor&, double)"
};

template <class Ret, class... Args>
CppSignature make_cpp_signature() {
  return CppSignature{detail::TypeSpelling<Ret>::get(), {detail::TypeSpelling<Args>::get()...}};
}

// The C++ spelling the schema demands for an argument / for the returns (API.md's table);
// nullopt with `why` set when the type has no unboxed mapping yet.
EMBER_API std::optional<std::string> expected_cpp_arg(const Argument& a, std::string* why);
EMBER_API std::string expected_cpp_return(const FunctionSchema& s);
// Empty when `sig` matches `schema`; else a message naming the first difference.
EMBER_API std::string signature_mismatch(const FunctionSchema& schema, const CppSignature& sig);

}  // namespace ember
