// Lexer and recursive-descent parser for schema strings. See Note [Schema grammar].
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "ember/core/Exception.h"
#include "ember/core/Schema.h"

namespace ember {

namespace {

// clang-format off
enum class Tok : uint8_t {
  End, Ident, Number, String, LParen, RParen, LBracket, RBracket, Comma, Question, Bang, Pipe,
  Star, Equal, Dot, Ellipsis, Scope, Arrow, Minus
};
// clang-format on

struct Token {
  Tok kind = Tok::End;
  size_t pos = 0;  // byte offset of the first character
  std::string_view text;
};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }

// The base types, fetched once so that name lookups while parsing copy nothing.
const std::array<TypePtr, static_cast<size_t>(TypeKind::Any) + 1>& base_types() {
  static const auto all = [] {
    std::array<TypePtr, static_cast<size_t>(TypeKind::Any) + 1> out;
    for (size_t i = 0; i < out.size(); ++i) out[i] = Type::get(static_cast<TypeKind>(i));
    return out;
  }();
  return all;
}

class Parser {
 public:
  Parser(std::string_view src, const char* who) : src_(src), who_(who) { advance(); }

  std::pair<std::string, std::string> parse_name() {
    std::string name(expect(Tok::Ident, "operator name").text);
    if (accept(Tok::Scope)) {
      name += "::";
      name += expect(Tok::Ident, "operator name after '::'").text;
    }
    std::string overload;
    if (accept(Tok::Dot)) overload = expect(Tok::Ident, "overload name after '.'").text;
    return {std::move(name), std::move(overload)};
  }

  FunctionSchema parse_schema() {
    auto [name, overload] = parse_name();
    std::vector<Argument> args;
    bool vararg = false;
    expect(Tok::LParen, "'('");
    parse_arguments(args, vararg);
    expect(Tok::Arrow, "'->'");
    std::vector<Argument> rets;
    bool varret = false;
    if (accept(Tok::LParen)) {
      parse_returns(rets, varret);
    } else if (accept(Tok::Ellipsis)) {
      varret = true;
    } else {
      rets.push_back(parse_return());
    }
    expect_end();
    return FunctionSchema(std::move(name), std::move(overload), std::move(args), std::move(rets),
                          vararg, varret);
  }

  void expect_end() { expect(Tok::End, "end of input"); }

 private:
  // ---- errors ----

  [[noreturn]] void fail_at(size_t pos, std::string_view msg) const {
    // Newlines and tabs would break the caret's alignment.
    std::string line(src_);
    for (char& c : line)
      if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    EMBER_THROW(ValueError, "[{}] column {}: {}\n  {}\n  {}^", who_, pos + 1, msg, line,
                std::string(pos, ' '));
  }

  [[noreturn]] void fail_expected(std::string_view what) const {
    std::string found = cur_.kind == Tok::End ? "end of input" : fmt::format("'{}'", cur_.text);
    fail_at(cur_.pos, fmt::format("expected {} but found {}", what, found));
  }

  // ---- lexer ----

  void advance() {
    prev_end_ = cur_.pos + cur_.text.size();
    size_t p = pos_;
    while (p < src_.size() &&
           (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\n' || src_[p] == '\r'))
      ++p;
    cur_ = lex(p);
    pos_ = cur_.pos + cur_.text.size();
  }

  Token lex(size_t p) const {
    auto tok = [&](Tok k, size_t len) { return Token{k, p, src_.substr(p, len)}; };
    if (p >= src_.size()) return Token{Tok::End, src_.size(), {}};
    char c = src_[p];
    auto next_is = [&](size_t off, char want) {
      return p + off < src_.size() && src_[p + off] == want;
    };
    if (is_alpha(c)) {
      size_t e = p + 1;
      while (e < src_.size() && is_alnum(src_[e])) ++e;
      return tok(Tok::Ident, e - p);
    }
    if (is_digit(c)) return lex_number(p);
    static constexpr std::pair<char, Tok> kSingle[] = {
        {'(', Tok::LParen}, {')', Tok::RParen},   {'[', Tok::LBracket}, {']', Tok::RBracket},
        {',', Tok::Comma},  {'?', Tok::Question}, {'!', Tok::Bang},     {'|', Tok::Pipe},
        {'*', Tok::Star},   {'=', Tok::Equal}};
    for (auto [ch, kind] : kSingle)
      if (c == ch) return tok(kind, 1);
    switch (c) {
      case '.':
        return next_is(1, '.') && next_is(2, '.') ? tok(Tok::Ellipsis, 3) : tok(Tok::Dot, 1);
      case '-':
        return next_is(1, '>') ? tok(Tok::Arrow, 2) : tok(Tok::Minus, 1);
      case ':':
        if (next_is(1, ':')) return tok(Tok::Scope, 2);
        fail_at(p, "expected '::' but found ':'");
      case '"':
      case '\'': {
        for (size_t e = p + 1; e < src_.size(); ++e) {
          if (src_[e] == '\\') {
            ++e;
          } else if (src_[e] == c) {
            return tok(Tok::String, e + 1 - p);
          }
        }
        fail_at(p, "unterminated string literal");
      }
      default:
        fail_at(p, fmt::format("unexpected character '{}'", c));
    }
  }

  // digits ['.' digits] [('e'|'E') ['+'|'-'] digits]; a glued-on letter is an error, not a token.
  Token lex_number(size_t p) const {
    size_t e = p;
    auto digits = [&] {
      size_t start = e;
      while (e < src_.size() && is_digit(src_[e])) ++e;
      return e > start;
    };
    digits();
    bool ok = true;
    if (e < src_.size() && src_[e] == '.' && !(e + 1 < src_.size() && src_[e + 1] == '.')) {
      ++e;
      digits();
    }
    if (e < src_.size() && (src_[e] == 'e' || src_[e] == 'E')) {
      ++e;
      if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
      ok = digits();
    }
    if (!ok || (e < src_.size() && is_alnum(src_[e]))) {
      while (e < src_.size() && (is_alnum(src_[e]) || src_[e] == '.')) ++e;
      fail_at(p, fmt::format("invalid number '{}'", src_.substr(p, e - p)));
    }
    return Token{Tok::Number, p, src_.substr(p, e - p)};
  }

  bool accept(Tok k) {
    if (cur_.kind != k) return false;
    advance();
    return true;
  }

  Token expect(Tok k, std::string_view what) {
    if (cur_.kind != k) fail_expected(what);
    Token t = cur_;
    advance();
    return t;
  }

  // ---- types ----

  TypePtr parse_base_type() {
    Token t = expect(Tok::Ident, "a type");
    for (const auto& b : base_types())
      if (b->name() == t.text) return b;
    if (t.text == "__torch__") {
      std::string name(t.text);
      while (accept(Tok::Dot)) {
        name += '.';
        name += expect(Tok::Ident, "class name after '.'").text;
      }
      return Type::class_type(std::move(name));
    }
    if (t.text == "double" || t.text == "long" || t.text == "int64_t")
      fail_at(t.pos, fmt::format("unknown type '{}' (schemas spell it '{}')", t.text,
                                 t.text == "double" ? "float" : "int"));
    // PyTorch's rule: other lower-case identifiers are type variables.
    if (t.text[0] >= 'a' && t.text[0] <= 'z') return Type::type_var(std::string(t.text));
    fail_at(t.pos, fmt::format("unknown type '{}'", t.text));
  }

  void parse_alias_sets(std::vector<std::string>& sets) {
    do {
      if (cur_.kind == Tok::Star) {
        sets.emplace_back("*");
        advance();
      } else {
        sets.emplace_back(expect(Tok::Ident, "an alias set name or '*'").text);
      }
    } while (accept(Tok::Pipe));
  }

  // After '(': a|b! [-> c|*] ')'
  AliasInfo parse_alias() {
    AliasInfo info;
    parse_alias_sets(info.before_sets);
    info.is_write = accept(Tok::Bang);
    if (accept(Tok::Arrow)) {
      parse_alias_sets(info.after_sets);
    } else {
      info.after_sets = info.before_sets;
    }
    if (cur_.kind != Tok::RParen)
      fail_expected(info.is_write ? "')' or '->'" : "'|', '!', '->' or ')'");
    advance();
    return info;
  }

  TypePtr parse_type(std::optional<AliasInfo>& alias) {
    TypePtr type = parse_base_type();
    if (accept(Tok::LParen)) alias = parse_alias();
    for (;;) {
      if (accept(Tok::Question)) {
        type = Type::optional(std::move(type));
      } else if (accept(Tok::LBracket)) {
        std::optional<int64_t> n;
        if (cur_.kind == Tok::Number) n = parse_size();
        expect(Tok::RBracket, n ? "']'" : "a list size or ']'");
        type = Type::list(std::move(type), n);
      } else {
        return type;
      }
    }
  }

  int64_t parse_size() {
    Token t = cur_;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), n);
    if (ec != std::errc() || end != t.text.data() + t.text.size())
      fail_at(t.pos, fmt::format("invalid list size '{}'", t.text));
    advance();
    return n;
  }

  // ---- defaults ----

  // One number (optionally negated) or inf/nan; stores into d as Int or Float.
  void parse_number(DefaultValue& d) {
    bool neg = accept(Tok::Minus);
    Token t = cur_;
    if (t.kind == Tok::Ident && (t.text == "inf" || (t.text == "nan" && !neg))) {
      advance();
      d.kind = DefaultValue::Kind::Float;
      d.f = t.text == "inf" ? std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::quiet_NaN();
      if (neg) d.f = -d.f;
      return;
    }
    if (t.kind != Tok::Number) fail_expected(neg ? "a number after '-'" : "a default value");
    advance();
    // from_chars takes the sign itself, so parse from the '-' when there is one.
    const char* first = neg ? src_.data() + t.pos - 1 : t.text.data();
    if (neg && *first != '-') fail_at(t.pos, "expected a number right after '-'");
    const char* last = t.text.data() + t.text.size();
    bool is_float = t.text.find_first_of(".eE") != std::string_view::npos;
    std::from_chars_result r;
    if (is_float) {
      d.kind = DefaultValue::Kind::Float;
      r = std::from_chars(first, last, d.f);
    } else {
      d.kind = DefaultValue::Kind::Int;
      r = std::from_chars(first, last, d.i);
    }
    if (r.ec != std::errc() || r.ptr != last)
      fail_at(t.pos,
              fmt::format("number '{}' is out of range", std::string_view(first, last - first)));
  }

  static std::string unescape(std::string_view quoted) {
    std::string out;
    for (size_t i = 1; i + 1 < quoted.size(); ++i) {
      char c = quoted[i];
      if (c == '\\') {
        c = quoted[++i];
        if (c == 'n')
          c = '\n';
        else if (c == 't')
          c = '\t';
      }
      out += c;
    }
    return out;
  }

  DefaultValue parse_default(const Type& type) {
    using K = DefaultValue::Kind;
    DefaultValue d;
    size_t start = cur_.pos;
    if (cur_.kind == Tok::Ident && cur_.text != "inf" && cur_.text != "nan") {
      std::string_view w = cur_.text;
      if (w == "None") {
        d.kind = K::None;
      } else if (w == "True" || w == "False") {
        d.kind = K::Bool;
        d.b = w == "True";
      } else {
        d.kind = K::Ident;
        d.s = std::string(w);
      }
      advance();
    } else if (cur_.kind == Tok::String) {
      d.kind = K::Str;
      d.s = unescape(cur_.text);
      advance();
    } else if (accept(Tok::LBracket)) {
      parse_list_default(d, type);
    } else {
      parse_number(d);
    }
    d.text = std::string(src_.substr(start, prev_end_ - start));
    check_default(type, d, start);
    return d;
  }

  // After '[': [] or [n, n, ...] of numbers, or of True/False.
  void parse_list_default(DefaultValue& d, const Type& type) {
    using K = DefaultValue::Kind;
    bool any_float = false, any_num = false;
    if (cur_.kind != Tok::RBracket) {
      do {
        if (cur_.kind == Tok::Ident && (cur_.text == "True" || cur_.text == "False")) {
          if (any_num) fail_at(cur_.pos, "list default mixes booleans and numbers");
          d.bools.push_back(cur_.text == "True");
          advance();
          continue;
        }
        if (!d.bools.empty()) fail_expected("True or False");
        DefaultValue x;
        parse_number(x);
        any_num = true;
        any_float |= x.kind == K::Float;
        d.floats.push_back(x.kind == K::Float ? x.f : static_cast<double>(x.i));
        d.ints.push_back(x.i);
      } while (accept(Tok::Comma));
    }
    if (cur_.kind != Tok::RBracket) fail_expected("',' or ']'");
    advance();
    if (!d.bools.empty()) {
      d.kind = K::BoolList;
    } else if (any_float) {
      d.kind = K::FloatList;
      d.ints.clear();
    } else if (any_num) {
      d.kind = K::IntList;
      d.floats.clear();
    } else {  // `[]`: the declared element type decides
      const Type* t = type.kind() == TypeKind::Optional ? type.element().get() : &type;
      TypeKind e = t->kind() == TypeKind::List ? t->element()->kind() : TypeKind::Int;
      d.kind = e == TypeKind::Float ? K::FloatList : e == TypeKind::Bool ? K::BoolList : K::IntList;
    }
  }

  // Catches the mistakes that cannot be right for any operator; the rest is the kernel's call.
  void check_default(const Type& type, const DefaultValue& d, size_t pos) const {
    using K = DefaultValue::Kind;
    bool opt = type.kind() == TypeKind::Optional;
    TypeKind base = opt ? type.element()->kind() : type.kind();
    if (base == TypeKind::Any || base == TypeKind::TypeVar) return;
    const char* problem = nullptr;
    if (d.kind == K::None) {
      if (!opt) problem = "None is only a default for an optional type (add '?')";
    } else if (base == TypeKind::Tensor) {
      problem = "a Tensor can only default to None";
    } else if ((d.kind == K::Str) != (base == TypeKind::Str)) {
      problem =
          d.kind == K::Str ? "a string default needs type str" : "a str needs a string default";
    } else if ((d.kind == K::IntList || d.kind == K::FloatList || d.kind == K::BoolList) &&
               base != TypeKind::List) {
      problem = "a list default needs a list type";
    }
    if (problem)
      fail_at(pos, fmt::format("bad default '{}' for type '{}': {}", d.text, type.str(), problem));
  }

  // ---- arguments and returns ----

  // After '(': args ')'
  void parse_arguments(std::vector<Argument>& args, bool& vararg) {
    if (accept(Tok::RParen)) return;
    bool kwarg_only = false;
    for (;;) {
      if (cur_.kind == Tok::Star) {
        if (kwarg_only) fail_at(cur_.pos, "duplicate '*': arguments are already keyword-only");
        kwarg_only = true;
        advance();
        expect(Tok::Comma, "',' after '*'");
        continue;
      }
      if (accept(Tok::Ellipsis)) {
        vararg = true;
        expect(Tok::RParen, "')' after '...'");
        return;
      }
      std::optional<AliasInfo> alias;
      TypePtr type = parse_type(alias);
      Token name = expect(Tok::Ident, "an argument name");
      for (const auto& a : args)
        if (a.name() == name.text)
          fail_at(name.pos, fmt::format("duplicate argument name '{}'", name.text));
      std::optional<DefaultValue> def;
      if (accept(Tok::Equal)) def = parse_default(*type);
      args.emplace_back(std::string(name.text), std::move(type), std::move(def), kwarg_only,
                        std::move(alias));
      if (accept(Tok::RParen)) return;
      if (cur_.kind != Tok::Comma) fail_expected(def ? "')' or ','" : "')', ',' or '='");
      advance();
    }
  }

  Argument parse_return() {
    std::optional<AliasInfo> alias;
    if (cur_.kind != Tok::Ident) fail_expected("a return type");
    TypePtr type = parse_type(alias);
    std::string name;
    if (cur_.kind == Tok::Ident) {
      name = cur_.text;
      advance();
    }
    return Argument(std::move(name), std::move(type), {}, false, std::move(alias));
  }

  // After '(': rets ')'
  void parse_returns(std::vector<Argument>& rets, bool& varret) {
    if (accept(Tok::RParen)) return;
    for (;;) {
      if (accept(Tok::Ellipsis)) {
        varret = true;
        expect(Tok::RParen, "')' after '...'");
        return;
      }
      rets.push_back(parse_return());
      if (accept(Tok::RParen)) return;
      expect(Tok::Comma, "')' or ','");
    }
  }

  std::string_view src_;
  const char* who_;
  Token cur_;
  size_t pos_ = 0;       // where the lexer resumes
  size_t prev_end_ = 0;  // end of the last consumed token (for default text)
};

}  // namespace

FunctionSchema parse_schema(std::string_view s) { return Parser(s, "parse_schema").parse_schema(); }

std::pair<std::string, std::string> parse_operator_name(std::string_view s) {
  Parser p(s, "parse_operator_name");
  auto result = p.parse_name();
  p.expect_end();
  return result;
}

}  // namespace ember
