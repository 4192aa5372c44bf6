#include "ember/dispatcher/Library.h"

#include <cctype>

#include "Registry.h"

namespace ember {

std::string Provenance::str() const {
  std::string who = plugin.empty() ? "<program>" : plugin;
  if (file.empty()) return fmt::format("'{}'", who);
  return fmt::format("'{}' ({}:{})", who, file, line);
}

CppFunction::CppFunction(BoxedFn f) {
  fn_ = KernelFunction{nullptr,
                       [](OperatorKernel* k, const OperatorHandle& op, DispatchKeySet, Stack* s) {
                         reinterpret_cast<BoxedFn>(k)(op, s);
                       },
                       reinterpret_cast<OperatorKernel*>(f)};
}

CppFunction::CppFunction(BoxedKeysFn f) {
  fn_ = KernelFunction{nullptr,
                       [](OperatorKernel* k, const OperatorHandle& op, DispatchKeySet ks, Stack* s) {
                         reinterpret_cast<BoxedKeysFn>(k)(op, ks.below_highest(), s);
                       },
                       reinterpret_cast<OperatorKernel*>(f)};
}

CppFunction CppFunction::makeFallthrough() {
  CppFunction f;
  f.fallthrough_ = true;
  return f;
}

namespace detail {

namespace {
thread_local std::string tls_registrant;
}  // namespace

const std::string& current_registrant() { return tls_registrant; }

RegistrantScope::RegistrantScope(std::string name) : prev_(std::move(tls_registrant)) {
  tls_registrant = std::move(name);
}
RegistrantScope::~RegistrantScope() { tls_registrant = std::move(prev_); }

}  // namespace detail

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string_view kind_macro(Library::Kind k) {
  switch (k) {
    case Library::Kind::DEF: return "EMBER_LIBRARY";
    case Library::Kind::FRAGMENT: return "EMBER_LIBRARY_FRAGMENT";
    default: return "EMBER_LIBRARY_IMPL";
  }
}

}  // namespace

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line)
    : kind_(kind), ns_(std::move(ns)), key_(key) {
  prov_.plugin = detail::current_registrant();
  prov_.file = file ? file : "";
  prov_.line = line;
  bool wildcard = ns_ == "_";
  EMBER_CHECK(is_identifier(ns_) && (!wildcard || kind_ == Kind::IMPL),
              "[{}] bad namespace '{}' at {}: expected an identifier ('_' only in EMBER_LIBRARY_IMPL, for "
              "fallbacks)",
              kind_macro(kind_), ns_, prov_.str());
  EMBER_CHECK(kind_ != Kind::IMPL || key_.has_value(), "[{}] needs a dispatch key ({})", kind_macro(kind_),
              prov_.str());
  if (kind_ == Kind::DEF) undo_.push_back(detail::registry_claim_namespace(ns_, prov_));
}

Library::~Library() {
  // Undo in reverse: impls before the defs they refer to.
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) (*it)();
}

Provenance Library::at(const SourceLocation& loc) const {
  Provenance p = prov_;
  if (loc.line != 0) {
    p.file = loc.file;
    p.line = loc.line;
  }
  return p;
}

std::string Library::qualify(std::string_view name, const char* what) const {
  auto sep = name.find("::");
  if (sep == std::string_view::npos) return ns_ + "::" + std::string(name);
  EMBER_CHECK(name.substr(0, sep) == ns_,
              "[{}] '{}' is outside this library's namespace '{}' ({}): register it from a library of "
              "namespace '{}'",
              what, name, ns_, prov_.str(), name.substr(0, sep));
  return std::string(name);
}

Library& Library::def(std::string_view schema, SourceLocation loc) {
  EMBER_CHECK(kind_ != Kind::IMPL, "[def] cannot define operators in {}({}, {}) at {}: use EMBER_LIBRARY or "
              "EMBER_LIBRARY_FRAGMENT", kind_macro(kind_), ns_, key_ ? to_string(*key_) : "", prov_.str());
  FunctionSchema s = parse_schema(schema);
  if (!s.ns().empty())
    EMBER_CHECK(s.ns() == ns_, "[def] '{}' is outside this library's namespace '{}' ({})", s.name(), ns_,
                prov_.str());
  s.set_namespace_if_missing(ns_);
  undo_.push_back(detail::registry_def(std::move(s), at(loc)));
  return *this;
}

Library& Library::def(std::string_view schema, CppFunction f, SourceLocation loc) {
  def(schema, loc);
  FunctionSchema s = parse_schema(schema);
  return impl(s.overload_name().empty() ? std::string(s.name()) : s.name() + "." + s.overload_name(),
              DispatchKey::CompositeImplicitAutograd, std::move(f), loc);
}

Library& Library::impl(std::string_view name, CppFunction f, SourceLocation loc) {
  return impl(name, key_.value_or(DispatchKey::CompositeImplicitAutograd), std::move(f), loc);
}

Library& Library::impl(std::string_view name, DispatchKey key, CppFunction f, SourceLocation loc) {
  EMBER_CHECK(ns_ != "_", "[impl] '{}': a library of namespace '_' registers fallbacks only ({})", name,
              prov_.str());
  EMBER_CHECK(kind_ != Kind::IMPL || key == *key_,
              "[impl] '{}': this EMBER_LIBRARY_IMPL block is for key {}, not {} ({})", name, to_string(*key_),
              to_string(key), prov_.str());
  undo_.push_back(detail::registry_impl(qualify(name, "impl"), key, std::move(f), at(loc)));
  return *this;
}

Library& Library::fallback(CppFunction f, SourceLocation loc) {
  EMBER_CHECK(kind_ == Kind::IMPL && ns_ == "_",
              "[fallback] fallbacks are registered from EMBER_LIBRARY_IMPL(_, Key, m), not from {}({}) at {}",
              kind_macro(kind_), ns_, prov_.str());
  EMBER_CHECK(f.is_fallthrough() || f.is_boxed_only(),
              "[fallback] a fallback must be a boxed function `void(const OperatorHandle&, [DispatchKeySet,] "
              "Stack*)` or CppFunction::makeFallthrough() ({})",
              prov_.str());
  undo_.push_back(detail::registry_fallback(*key_, std::move(f), at(loc)));
  return *this;
}

}  // namespace ember
