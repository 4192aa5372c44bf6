#pragma once
// The operator schema language: PyTorch's grammar, its types, a parser and a printer.
//
// Note [Schema grammar]
// ~~~~~~~~~~~~~~~~~~~~~
//   schema   := [ns '::'] name ['.' overload] '(' args ')' '->' returns
//   args     := [arg (',' arg)*]     arg := '*' | '...' | Type name ['=' default]
//   returns  := Type [name] | '...' | '(' [ret (',' ret)*] ')'
//   Type     := base ['(' alias ')'] ('[' [N] ']' | '?')*
//   alias    := set ('|' set)* ['!'] ['->' set ('|' set)*]     set := ident | '*'
// A bare '*' makes the arguments after it keyword-only; '...' (last) marks varargs/varrets.
// An alias annotation always sits right after the base type name, the position PyTorch prints
// (`Tensor(a!)[]`, `Tensor(a!)?`), so one annotation per argument round-trips exactly.
// Lower-case identifiers that are not built-in types are type variables (`t`), as in PyTorch;
// `__torch__.a.b.C` names a class type. Defaults keep their source text, so printing a parsed
// schema reproduces the input exactly when it was written canonically (`, ` between arguments,
// `=` without spaces, one unnamed or named return without parentheses).
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/Macros.h"

namespace ember {

// clang-format off
enum class TypeKind : uint8_t {
  Tensor, Int, Float, Bool, Str, Scalar, ScalarType, Layout, Device, MemoryFormat, Generator,
  Dimname, Complex, SymInt, SymFloat, Storage, Stream, QScheme, Any,  // base kinds, Any last
  TypeVar, Class, List, Optional
};
// clang-format on

class Type;
using TypePtr = std::shared_ptr<const Type>;

// An immutable schema type. Scalar kinds are shared singletons; List and Optional wrap an element.
class EMBER_API Type {
 public:
  TypeKind kind() const { return kind_; }
  const TypePtr& element() const { return element_; }  // List/Optional element, else null
  std::optional<int64_t> fixed_size() const { return fixed_size_; }  // List only: int[2] -> 2
  // TypeVar / Class name; the spelling ("int", "Tensor") for other base kinds; "" for containers.
  const std::string& name() const { return name_; }
  std::string str() const;  // "int[2]", "Tensor?[]", "float?"
  bool operator==(const Type& other) const;

  static TypePtr get(TypeKind k);  // shared singletons for the base kinds (not TypeVar/Class)
  static TypePtr list(TypePtr elem, std::optional<int64_t> n = {});
  static TypePtr optional(TypePtr elem);
  static TypePtr type_var(std::string name);         // "t"
  static TypePtr class_type(std::string qualified);  // "__torch__.torch.classes.x.Y"

 private:
  Type(TypeKind kind, TypePtr elem, std::optional<int64_t> n, std::string name);

  TypeKind kind_;
  std::optional<int64_t> fixed_size_;
  TypePtr element_;
  std::string name_;
};

// Tensor(a|b!) / Tensor(a -> *). Without '->' the after sets equal the before sets (as PyTorch).
struct EMBER_API AliasInfo {
  std::vector<std::string> before_sets;
  std::vector<std::string> after_sets;
  bool is_write = false;
  std::string str() const;  // "a!", "a|b", "a -> *" (no parentheses)
  bool operator==(const AliasInfo&) const = default;
};

// A parsed default plus its exact source text, which is what gets printed. Str holds the
// unescaped value in `s`; Ident (`contiguous_format`, `Mean`) holds the identifier in `s`.
// Float covers `inf`, `-inf` and `nan`. An empty `[]` takes its list kind from the argument type.
struct EMBER_API DefaultValue {
  enum class Kind : uint8_t { None, Int, Float, Bool, Str, IntList, FloatList, BoolList, Ident };
  Kind kind = Kind::None;
  std::string text;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<bool> bools;
  bool operator==(const DefaultValue&) const = default;
};

class EMBER_API Argument {
 public:
  Argument(std::string name, TypePtr type, std::optional<DefaultValue> def = {},
           bool kwarg_only = false, std::optional<AliasInfo> alias = {});
  const std::string& name() const { return name_; }  // "" for an unnamed return
  const TypePtr& type() const { return type_; }
  const std::optional<DefaultValue>& default_value() const { return default_; }
  bool kwarg_only() const { return kwarg_only_; }
  // The annotation on the base type: on the outer type (`Tensor(a!)`) or the list element
  // (`Tensor(a!)[]`). See Note [Schema grammar].
  const std::optional<AliasInfo>& alias_info() const { return alias_; }
  bool is_out() const { return kwarg_only_ && alias_ && alias_->is_write; }
  std::string str() const;  // "Tensor(a!)[] out", "int[2] stride=1"

 private:
  std::string name_;
  TypePtr type_;
  std::optional<DefaultValue> default_;
  bool kwarg_only_;
  std::optional<AliasInfo> alias_;
};

class EMBER_API FunctionSchema {
 public:
  FunctionSchema(std::string name, std::string overload, std::vector<Argument> args,
                 std::vector<Argument> rets, bool is_vararg = false, bool is_varret = false);
  const std::string& name() const { return name_; }  // qualified: "aten::add" ("add" if no ns)
  const std::string& overload_name() const { return overload_; }  // "Tensor", or ""
  std::string_view ns() const;                                    // "aten", or ""
  std::string_view base_name() const;                             // "add"
  std::string operator_name() const;  // "aten::add.Tensor" / "aten::add"
  const std::vector<Argument>& arguments() const { return args_; }  // keyword-only included
  const std::vector<Argument>& returns() const { return rets_; }
  bool is_vararg() const { return is_vararg_; }
  bool is_varret() const { return is_varret_; }
  bool is_mutable() const;                             // any argument with a write alias
  void set_namespace_if_missing(std::string_view ns);  // "scale" -> "myops::scale"
  std::string str() const;                             // canonical print, PyTorch's format

 private:
  std::string name_;
  std::string overload_;
  std::vector<Argument> args_;
  std::vector<Argument> rets_;
  bool is_vararg_;
  bool is_varret_;
};

EMBER_API std::ostream& operator<<(std::ostream& out, const Type& t);
EMBER_API std::ostream& operator<<(std::ostream& out, const FunctionSchema& s);

// Throws ValueError naming the 1-based column and what was expected, with a caret under it.
EMBER_API FunctionSchema parse_schema(std::string_view s);
// "ns::name.overload" or "ns::name" (no parentheses) -> {name, overload}; throws like parse_schema.
EMBER_API std::pair<std::string, std::string> parse_operator_name(std::string_view s);

}  // namespace ember
