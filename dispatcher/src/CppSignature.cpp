#include "ember/dispatcher/CppSignature.h"

namespace ember {

std::string CppSignature::str() const {
  std::string s = std::string(ret) + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + std::string(args[i]);
  return s + ")";
}

namespace {

bool is_write(const std::optional<AliasInfo>& a) { return a && a->is_write; }

std::optional<std::string> base_spelling(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Int:
    case TypeKind::SymInt: return "int64_t";
    case TypeKind::Float: return "double";
    case TypeKind::Bool: return "bool";
    case TypeKind::ScalarType: return "ScalarType";
    case TypeKind::Layout: return "Layout";
    case TypeKind::QScheme: return "QScheme";
    case TypeKind::MemoryFormat: return "MemoryFormat";
    case TypeKind::Device: return "Device";
    case TypeKind::Complex: return "std::complex<double>";
    case TypeKind::Generator:
      return "Generator";  // Generator? is taken by value, as LibTorch
    case TypeKind::Stream:
      return "Stream";
    case TypeKind::Str: return "std::string_view";
    default: return std::nullopt;
  }
}

bool is_int_like(const Type& t) { return t.kind() == TypeKind::Int || t.kind() == TypeKind::SymInt; }

}  // namespace

std::optional<std::string> expected_cpp_arg(const Argument& a, std::string* why) {
  const Type& t = *a.type();
  switch (t.kind()) {
    case TypeKind::Tensor: return is_write(a.alias_info()) ? "Tensor&" : "const Tensor&";
    case TypeKind::Scalar: return "const Scalar&";
    case TypeKind::List: {
      const Type& e = *t.element();
      if (is_int_like(e)) return "IntArrayRef";
      if (e.kind() == TypeKind::Float) return "ArrayRef<double>";
      if (e.kind() == TypeKind::Bool && t.fixed_size())  // bool[3] output masks, as LibTorch
        return fmt::format("std::array<bool, {}>", *t.fixed_size());
      if (e.kind() == TypeKind::Tensor) return "const std::vector<Tensor>&";
      if (e.kind() == TypeKind::Optional && e.element()->kind() == TypeKind::Tensor)
        return "const std::vector<std::optional<Tensor>>&";
      break;
    }
    case TypeKind::Optional: {
      const Type& e = *t.element();
      if (e.kind() == TypeKind::Tensor) return "const std::optional<Tensor>&";
      if (e.kind() == TypeKind::Scalar) return "const std::optional<Scalar>&";
      if (e.kind() == TypeKind::List && is_int_like(*e.element())) return "std::optional<IntArrayRef>";
      if (e.kind() == TypeKind::List && e.element()->kind() == TypeKind::Float)
        return "std::optional<ArrayRef<double>>";
      if (auto b = base_spelling(e)) return "std::optional<" + *b + ">";
      break;
    }
    default:
      if (auto b = base_spelling(t)) return b;
  }
  if (why) *why = fmt::format("schema type '{}' has no unboxed C++ mapping yet (register a boxed kernel)", t.str());
  return std::nullopt;
}

std::string expected_cpp_return(const FunctionSchema& s) {
  const auto& r = s.returns();
  auto one = [](const Argument& a) -> std::string {
    const Type& t = *a.type();
    switch (t.kind()) {
      case TypeKind::Tensor: return is_write(a.alias_info()) ? "Tensor&" : "Tensor";
      case TypeKind::Int:
      case TypeKind::SymInt: return "int64_t";
      case TypeKind::Float: return "double";
      case TypeKind::Bool: return "bool";
      case TypeKind::Scalar: return "Scalar";
      case TypeKind::QScheme: return "QScheme";
      case TypeKind::List:
        if (t.element()->kind() == TypeKind::Tensor) return "std::vector<Tensor>";
        [[fallthrough]];
      default: return fmt::format("<{}>", t.str());
    }
  };
  if (r.empty()) return "void";
  if (r.size() == 1) return one(r[0]);
  std::string t = "std::tuple<";
  for (size_t i = 0; i < r.size(); ++i) t += (i ? ", " : "") + one(r[i]);
  return t + ">";
}

std::string signature_mismatch(const FunctionSchema& schema, const CppSignature& sig) {
  const auto& args = schema.arguments();
  auto hint = [](std::string_view want, std::string_view got) -> std::string {
    if (want == "double" && got == "float") return " (schema `float` is C++ double)";
    if (want == "const Tensor&" && got == "Tensor") return " (take Tensor by const reference)";
    if (want == "int64_t" && got == "int") return " (schema `int` is C++ int64_t)";
    if (want == "const Scalar&" && got == "Scalar") return " (take Scalar by const reference)";
    if (want == "std::optional<Generator>" && got == "const std::optional<Generator>&")
      return " (LibTorch takes `Generator?` by value)";
    if (want == "Tensor&" && got == "const Tensor&")
      return " (a mutable argument `Tensor(a!)` is taken as Tensor&)";
    return "";
  };
  if (sig.args.size() != args.size())
    return fmt::format("the schema has {} arguments, the C++ function takes {}", args.size(), sig.args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    std::string why;
    auto want = expected_cpp_arg(args[i], &why);
    if (!want) return fmt::format("argument {} '{}': {}", i + 1, args[i].name(), why);
    if (*want != sig.args[i])
      return fmt::format("argument {} '{}' is `{}` in the schema, so C++ must take `{}`, but it takes `{}`{}",
                         i + 1, args[i].name(), args[i].type()->str(), *want, sig.args[i],
                         hint(*want, sig.args[i]));
  }
  std::string want_ret = expected_cpp_return(schema);
  if (want_ret != sig.ret)
    return fmt::format("the schema returns `{}`, so C++ must return `{}`, but it returns `{}`",
                       schema.str().substr(schema.str().rfind("-> ") + 3), want_ret, sig.ret);
  return {};
}

}  // namespace ember
