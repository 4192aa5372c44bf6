// Schema types and the printer. The parser lives in SchemaParser.cpp.
#include "ember/core/Schema.h"

#include <fmt/format.h>

#include <array>
#include <ostream>

#include "ember/core/Exception.h"

namespace ember {

namespace {

constexpr std::array<const char*, 19> kBaseNames = {
    "Tensor",   "int",     "float",        "bool",      "str",     "Scalar",  "ScalarType",
    "Layout",   "Device",  "MemoryFormat", "Generator", "Dimname", "complex", "SymInt",
    "SymFloat", "Storage", "Stream",       "QScheme",   "Any"};
static_assert(kBaseNames.size() == static_cast<size_t>(TypeKind::Any) + 1,
              "one spelling per base TypeKind, in enum order");

bool is_base(TypeKind k) { return static_cast<size_t>(k) < kBaseNames.size(); }

// Prints `t` with the alias annotation right after the base type (see Note [Schema grammar]).
void append_type(std::string& out, const Type& t, const AliasInfo* alias) {
  switch (t.kind()) {
    case TypeKind::List:
      append_type(out, *t.element(), alias);
      out += '[';
      if (t.fixed_size()) out += std::to_string(*t.fixed_size());
      out += ']';
      return;
    case TypeKind::Optional:
      append_type(out, *t.element(), alias);
      out += '?';
      return;
    default:
      out += t.name();
      if (alias) {
        out += '(';
        out += alias->str();
        out += ')';
      }
  }
}

void append_joined(std::string& out, const std::vector<std::string>& sets) {
  for (size_t i = 0; i < sets.size(); ++i) {
    if (i) out += '|';
    out += sets[i];
  }
}

std::string format_float(double f) {
  std::string s = fmt::format("{}", f);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // keep it a float literal
  return s;
}

// Only used for defaults built in code without source text; parsed defaults print `text`.
std::string render_default(const DefaultValue& d) {
  using K = DefaultValue::Kind;
  auto bool_str = [](bool b) { return b ? "True" : "False"; };
  switch (d.kind) {
    case K::None:
      return "None";
    case K::Int:
      return std::to_string(d.i);
    case K::Float:
      return format_float(d.f);
    case K::Bool:
      return bool_str(d.b);
    case K::Ident:
      return d.s;
    case K::Str: {
      std::string out = "\"";
      for (char c : d.s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + '"';
    }
    case K::IntList:
      return fmt::format("[{}]", fmt::join(d.ints, ", "));
    case K::FloatList: {
      std::vector<std::string> parts;
      for (double f : d.floats) parts.push_back(format_float(f));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    case K::BoolList: {
      std::string out = "[";
      for (size_t i = 0; i < d.bools.size(); ++i)
        out += (i ? ", " : "") + std::string(bool_str(d.bools[i]));
      return out + ']';
    }
  }
  return d.text;
}

void append_argument(std::string& out, const Argument& a) {
  append_type(out, *a.type(), a.alias_info() ? &*a.alias_info() : nullptr);
  if (!a.name().empty()) {
    out += ' ';
    out += a.name();
  }
  if (const auto& d = a.default_value()) {
    out += '=';
    out += d->text.empty() ? render_default(*d) : d->text;
  }
}

}  // namespace

// ---- Type ----

Type::Type(TypeKind kind, TypePtr elem, std::optional<int64_t> n, std::string name)
    : kind_(kind), fixed_size_(n), element_(std::move(elem)), name_(std::move(name)) {}

TypePtr Type::get(TypeKind k) {
  static const auto singletons = [] {
    std::array<TypePtr, kBaseNames.size()> all;
    for (size_t i = 0; i < all.size(); ++i)
      all[i] = TypePtr(new Type(static_cast<TypeKind>(i), nullptr, {}, kBaseNames[i]));
    return all;
  }();
  EMBER_CHECK(is_base(k),
              "[Type::get] kind {} is not a base type; use list(), optional(), "
              "type_var() or class_type()",
              static_cast<int>(k));
  return singletons[static_cast<size_t>(k)];
}

TypePtr Type::list(TypePtr elem, std::optional<int64_t> n) {
  EMBER_CHECK(elem != nullptr, "[Type::list] element type is null");
  EMBER_CHECK(!n || *n >= 0, "[Type::list] negative size {}", n.value_or(0));
  return TypePtr(new Type(TypeKind::List, std::move(elem), n, {}));
}

TypePtr Type::optional(TypePtr elem) {
  EMBER_CHECK(elem != nullptr, "[Type::optional] element type is null");
  return TypePtr(new Type(TypeKind::Optional, std::move(elem), {}, {}));
}

TypePtr Type::type_var(std::string name) {
  EMBER_CHECK(!name.empty(), "[Type::type_var] empty name");
  return TypePtr(new Type(TypeKind::TypeVar, nullptr, {}, std::move(name)));
}

TypePtr Type::class_type(std::string qualified) {
  EMBER_CHECK(!qualified.empty(), "[Type::class_type] empty name");
  return TypePtr(new Type(TypeKind::Class, nullptr, {}, std::move(qualified)));
}

std::string Type::str() const {
  std::string out;
  append_type(out, *this, nullptr);
  return out;
}

bool Type::operator==(const Type& other) const {
  if (this == &other) return true;
  if (kind_ != other.kind_ || fixed_size_ != other.fixed_size_ || name_ != other.name_)
    return false;
  if (!element_ || !other.element_) return element_ == other.element_;
  return *element_ == *other.element_;
}

std::ostream& operator<<(std::ostream& out, const Type& t) { return out << t.str(); }

// ---- AliasInfo ----

std::string AliasInfo::str() const {
  std::string out;
  append_joined(out, before_sets);
  if (is_write) out += '!';
  if (after_sets != before_sets) {
    out += " -> ";
    append_joined(out, after_sets);
  }
  return out;
}

// ---- Argument ----

Argument::Argument(std::string name, TypePtr type, std::optional<DefaultValue> def, bool kwarg_only,
                   std::optional<AliasInfo> alias)
    : name_(std::move(name)),
      type_(std::move(type)),
      default_(std::move(def)),
      kwarg_only_(kwarg_only),
      alias_(std::move(alias)) {
  EMBER_CHECK(type_ != nullptr, "[Argument] argument '{}' has a null type", name_);
}

std::string Argument::str() const {
  std::string out;
  append_argument(out, *this);
  return out;
}

// ---- FunctionSchema ----

FunctionSchema::FunctionSchema(std::string name, std::string overload, std::vector<Argument> args,
                               std::vector<Argument> rets, bool is_vararg, bool is_varret)
    : name_(std::move(name)),
      overload_(std::move(overload)),
      args_(std::move(args)),
      rets_(std::move(rets)),
      is_vararg_(is_vararg),
      is_varret_(is_varret) {}

std::string_view FunctionSchema::ns() const {
  auto pos = name_.find("::");
  return pos == std::string::npos ? std::string_view() : std::string_view(name_).substr(0, pos);
}

std::string_view FunctionSchema::base_name() const {
  auto pos = name_.find("::");
  return pos == std::string::npos ? std::string_view(name_)
                                  : std::string_view(name_).substr(pos + 2);
}

std::string FunctionSchema::operator_name() const {
  return overload_.empty() ? name_ : name_ + '.' + overload_;
}

bool FunctionSchema::is_mutable() const {
  for (const auto& a : args_)
    if (a.alias_info() && a.alias_info()->is_write) return true;
  return false;
}

void FunctionSchema::set_namespace_if_missing(std::string_view ns) {
  if (ns.empty() || name_.find("::") != std::string::npos) return;
  name_.insert(0, std::string(ns) + "::");
}

// Same layout as PyTorch's operator<<(ostream&, const FunctionSchema&).
std::string FunctionSchema::str() const {
  std::string out = operator_name();
  out += '(';
  bool seen_kwarg_only = false;
  for (size_t i = 0; i < args_.size(); ++i) {
    if (i) out += ", ";
    if (args_[i].kwarg_only() && !seen_kwarg_only) {
      out += "*, ";
      seen_kwarg_only = true;
    }
    append_argument(out, args_[i]);
  }
  if (is_vararg_) out += args_.empty() ? "..." : ", ...";
  out += ") -> ";
  // One return (named or not) goes bare, as does a lone '...'; anything else is parenthesized.
  bool paren = !((rets_.size() == 1 && !is_varret_) || (rets_.empty() && is_varret_));
  if (paren) out += '(';
  for (size_t i = 0; i < rets_.size(); ++i) {
    if (i) out += ", ";
    append_argument(out, rets_[i]);
  }
  if (is_varret_) out += rets_.empty() ? "..." : ", ...";
  if (paren) out += ')';
  return out;
}

std::ostream& operator<<(std::ostream& out, const FunctionSchema& s) { return out << s.str(); }

}  // namespace ember
