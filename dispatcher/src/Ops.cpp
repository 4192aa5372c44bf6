#include "ember/dispatcher/Ops.h"

namespace ember::detail {

IValue default_ivalue(const FunctionSchema& s, const Argument& a) {
  const auto& d = a.default_value();
  EMBER_CHECK(d.has_value(), "[{}] argument '{}' has no default and was not given", s.operator_name(), a.name());
  using K = DefaultValue::Kind;
  const Type& t = *a.type();
  const Type& base = t.kind() == TypeKind::Optional ? *t.element() : t;
  switch (d->kind) {
    case K::None: return IValue();
    case K::Int:
      if (base.kind() == TypeKind::Float) return IValue(static_cast<double>(d->i));
      if (base.kind() == TypeKind::List) return IValue(std::vector<int64_t>(
                                                 static_cast<size_t>(base.fixed_size().value_or(1)), d->i));
      return IValue(d->i);
    case K::Float: return IValue(d->f);
    case K::Bool: return IValue(d->b);
    case K::Str: return IValue(std::string_view(d->s));
    case K::IntList: return IValue(d->ints);
    case K::FloatList: return IValue(d->floats);
    case K::BoolList: return IValue(d->bools);
    case K::Ident:
      if (base.kind() == TypeKind::ScalarType) {
        auto st = parse_scalar_type(d->s);
        EMBER_CHECK(st.has_value(), "[{}] unknown dtype default '{}' for '{}'", s.operator_name(), d->s, a.name());
        return IValue(*st);
      }
      if (base.kind() == TypeKind::MemoryFormat) {  // PyTorch's spellings in schemas
        if (d->s == "contiguous_format") return IValue(MemoryFormat::Contiguous);
        if (d->s == "preserve_format") return IValue(MemoryFormat::Preserve);
        if (d->s == "channels_last") return IValue(MemoryFormat::ChannelsLast);
        if (d->s == "channels_last_3d") return IValue(MemoryFormat::ChannelsLast3d);
      }
      break;
  }
  EMBER_THROW(NotImplementedError, "[{}] default '{}' of argument '{}' has no boxed value yet", s.operator_name(),
              d->text, a.name());
}

namespace {

bool accepts(const Type& t, const IValue& v) {
  switch (t.kind()) {
    case TypeKind::Optional: return v.isNone() || accepts(*t.element(), v);
    case TypeKind::Tensor: return v.isTensor();
    case TypeKind::Float: return v.isDouble() || v.isInt();
    case TypeKind::Int:
    case TypeKind::SymInt: return v.isInt();
    case TypeKind::Bool: return v.isBool();
    case TypeKind::Scalar: return v.isScalar();
    case TypeKind::Str: return v.isString();
    case TypeKind::Device: return v.isDevice() || v.isString();
    case TypeKind::Generator:
      return v.isGenerator();
    case TypeKind::Stream:
      return v.isStream();
    case TypeKind::ScalarType:
    case TypeKind::Layout:
    case TypeKind::MemoryFormat:
    case TypeKind::QScheme:
      return v.isInt();
    case TypeKind::List: {
      const Type& e = *t.element();
      if (e.kind() == TypeKind::Int || e.kind() == TypeKind::SymInt) return v.isIntList() || v.isInt();
      if (e.kind() == TypeKind::Float) return v.isDoubleList();
      if (e.kind() == TypeKind::Bool) return v.isBoolList();
      return v.isTensorList() || v.isList();
    }
    default: return true;
  }
}

// Empty when `args` fit `s` (after defaults); else why not.
std::string fit(const FunctionSchema& s, const Stack& args) {
  const auto& a = s.arguments();
  if (args.size() > a.size()) return fmt::format("takes at most {} arguments, got {}", a.size(), args.size());
  for (size_t i = 0; i < args.size(); ++i)
    if (!accepts(*a[i].type(), args[i]))
      return fmt::format("argument {} '{}' expects {}, got {}", i + 1, a[i].name(), a[i].type()->str(),
                         args[i].tag_name());
  for (size_t i = args.size(); i < a.size(); ++i)
    if (!a[i].default_value()) return fmt::format("argument {} '{}' is required", i + 1, a[i].name());
  return {};
}

}  // namespace

IValue call_by_name(std::string_view qualified_name, Stack& args) {
  auto [name, overload] = parse_operator_name(qualified_name);
  auto& d = Dispatcher::singleton();
  std::optional<OperatorHandle> op;
  std::string why;
  if (auto h = d.findSchema(name, overload); h && (!overload.empty() || fit(h->schema(), args).empty())) {
    op = h;
  } else if (overload.empty()) {
    for (auto& h : d.operators()) {
      if (h.schema().name() != name) continue;
      std::string w = fit(h.schema(), args);
      if (w.empty()) {
        op = h;
        break;
      }
      why += fmt::format("\n  {}: {}", h.schema().str(), w);
    }
  }
  if (!op) {
    d.findSchemaOrThrow(name, overload);  // throws "no operator" with suggestions when absent
    EMBER_THROW(TypeError, "[ops::call] no overload of '{}' accepts these arguments:{}", qualified_name, why);
  }
  const FunctionSchema& s = op->schema();
  std::string w = fit(s, args);
  EMBER_CHECK_TYPE(w.empty(), "[ops::call] {}: {}", s.str(), w);
  for (size_t i = args.size(); i < s.arguments().size(); ++i) args.push_back(default_ivalue(s, s.arguments()[i]));
  op->callBoxed(args);
  size_t n = s.returns().size();
  if (n == 0) return IValue();
  if (n == 1) return std::move(args.back());
  std::vector<IValue> r(std::make_move_iterator(args.end() - n), std::make_move_iterator(args.end()));
  return IValue::make_tuple(std::move(r));
}

}  // namespace ember::detail
