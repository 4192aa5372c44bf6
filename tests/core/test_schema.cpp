// Schema language: round trips (hand-picked and all of LibTorch's), structure, and error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/Exception.h"
#include "ember/core/Schema.h"

namespace ember {
namespace {

using K = DefaultValue::Kind;

TEST(Schema, RoundTripsEachGrammarFeature) {
  const char* cases[] = {
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
      "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
      "scale(Tensor x, float alpha=2.0) -> Tensor",
      "myops::noargs() -> ()",
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
      "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
      "aten::sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor, Tensor)",
      "aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
      "aten::_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, "
      "Tensor inv_scale) -> ()",
      "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
      "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
      "aten::f(Tensor(a|b) x, Tensor(a!)? y, Tensor(a! -> a|b) z) -> Tensor(a|b)",
      "aten::fft_fft2(Tensor self, int[1]? s=None, int[1] dim=[-2,-1], str? norm=None) -> Tensor",
      "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
      "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
      "aten::conv(Tensor input, SymInt[2] padding=[1, 1], SymInt[1]? s=None, int[]? d=None) -> "
      "Tensor",
      "aten::layer_norm(Tensor input, int[] normalized_shape, float eps=1e-05, float lo=-inf, "
      "float p=0.5) -> Tensor",
      "aten::empty(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? "
      "device=None, "
      "bool? pin_memory=None, MemoryFormat? memory_format=contiguous_format) -> Tensor",
      "aten::loss(Tensor self, int reduction=Mean, str reduce=\"mean\", str mode='none', "
      "ScalarType dtype=long, QScheme q=per_tensor_affine) -> Tensor",
      "aten::_test_string_default(Tensor dummy, str a=\"\\\"'\\\\\", str b='\"\\'\\\\') -> Tensor",
      "aten::format(str self, ...) -> str",
      "aten::vararg_only(...) -> ...",
      "aten::varret(Tensor x) -> (Tensor, ...)",
      "aten::all_types(int a, float b, bool c, str d, Scalar e, ScalarType f, Layout g, Device h, "
      "MemoryFormat i, Generator? j, Dimname k, complex l, SymInt m, SymFloat n, Storage o, Stream "
      "p, "
      "QScheme q, Any r, t s, __torch__.torch.classes.quantized.Conv2dPackedParamsBase u) -> int",
      "aten::rets() -> (Tensor[], int, float, bool, Scalar, ScalarType, QScheme, int[])",
      "aten::grid_sampler_2d(Tensor grad) -> Tensor grad_theta",
      "aten::list(t[] l, bool[3] mask=[True, False, True], float[] w=[0.5, 1]) -> t",
      "aten::dimnames(Tensor self, Dimname[1] dim, Dimname[]? names) -> Tensor",
      "aten::kwonly(*, Tensor x) -> Tensor",
  };
  for (const char* s : cases) {
    SCOPED_TRACE(s);
    FunctionSchema schema = parse_schema(s);
    EXPECT_EQ(schema.str(), s);
    std::ostringstream os;
    os << schema;
    EXPECT_EQ(os.str(), s);
    // Printing is a fixed point.
    EXPECT_EQ(parse_schema(schema.str()).str(), s);
  }
}

TEST(Schema, NonCanonicalInputPrintsCanonically) {
  EXPECT_EQ(parse_schema(" aten::f ( Tensor  x ,\n\t* , int y = 1 )->( Tensor ) ").str(),
            "aten::f(Tensor x, *, int y=1) -> Tensor");
  EXPECT_EQ(parse_schema("f(Tensor(a!)x)->(Tensor(a!))").str(), "f(Tensor(a!) x) -> Tensor(a!)");
}

TEST(Schema, NamesAndOverloads) {
  FunctionSchema s =
      parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(s.name(), "aten::add");
  EXPECT_EQ(s.overload_name(), "Tensor");
  EXPECT_EQ(s.ns(), "aten");
  EXPECT_EQ(s.base_name(), "add");
  EXPECT_EQ(s.operator_name(), "aten::add.Tensor");
  EXPECT_FALSE(s.is_vararg());
  EXPECT_FALSE(s.is_varret());
  EXPECT_FALSE(s.is_mutable());

  FunctionSchema t = parse_schema("scale(Tensor x, float alpha=2.0) -> Tensor");
  EXPECT_EQ(t.name(), "scale");
  EXPECT_EQ(t.overload_name(), "");
  EXPECT_EQ(t.ns(), "");
  EXPECT_EQ(t.base_name(), "scale");
  EXPECT_EQ(t.operator_name(), "scale");
  t.set_namespace_if_missing("myops");
  EXPECT_EQ(t.name(), "myops::scale");
  EXPECT_EQ(t.ns(), "myops");
  EXPECT_EQ(t.base_name(), "scale");
  EXPECT_EQ(t.str(), "myops::scale(Tensor x, float alpha=2.0) -> Tensor");
  t.set_namespace_if_missing("other");  // already qualified: unchanged
  EXPECT_EQ(t.name(), "myops::scale");

  EXPECT_EQ(parse_operator_name("aten::add.Tensor"),
            std::make_pair(std::string("aten::add"), std::string("Tensor")));
  EXPECT_EQ(parse_operator_name("myops::scale"),
            std::make_pair(std::string("myops::scale"), std::string()));
  EXPECT_EQ(parse_operator_name("relu"), std::make_pair(std::string("relu"), std::string()));
}

TEST(Schema, ArgumentsKwargOnlyAndDefaults) {
  FunctionSchema s =
      parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  const auto& args = s.arguments();
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].name(), "self");
  EXPECT_EQ(args[0].type()->kind(), TypeKind::Tensor);
  EXPECT_FALSE(args[0].kwarg_only());
  EXPECT_FALSE(args[0].default_value().has_value());
  EXPECT_FALSE(args[0].alias_info().has_value());
  EXPECT_FALSE(args[1].kwarg_only());
  EXPECT_TRUE(args[2].kwarg_only());
  EXPECT_EQ(args[2].type()->kind(), TypeKind::Scalar);
  ASSERT_TRUE(args[2].default_value().has_value());
  EXPECT_EQ(args[2].default_value()->kind, K::Int);
  EXPECT_EQ(args[2].default_value()->i, 1);
  EXPECT_EQ(args[2].default_value()->text, "1");
  ASSERT_EQ(s.returns().size(), 1u);
  EXPECT_EQ(s.returns()[0].name(), "");
  EXPECT_EQ(s.returns()[0].type()->kind(), TypeKind::Tensor);
}

TEST(Schema, DefaultKindsAndValues) {
  FunctionSchema s = parse_schema(
      "f(int? a=None, int b=-100, float c=1e-05, float d=-inf, bool e=True, bool g=False, "
      "int[] h=[], float[] i=[], bool[2] j=[], int[2] k=[0,0], SymInt[2] l=[1, -1], "
      "float[] m=[0.5, 2], bool[3] n=[True, False, True], str o=\"mean\", str p='no\\'ne', "
      "MemoryFormat q=contiguous_format, int r=Mean, float s=0.3333333333333333, float t=nan, "
      "int[2] u=1) -> ()");
  std::vector<DefaultValue> d;
  for (const auto& a : s.arguments()) {
    ASSERT_TRUE(a.default_value().has_value()) << a.name();
    d.push_back(*a.default_value());
  }
  ASSERT_EQ(d.size(), 20u);
  EXPECT_EQ(d[0].kind, K::None);
  EXPECT_EQ(d[0].text, "None");
  EXPECT_EQ(d[1].kind, K::Int);
  EXPECT_EQ(d[1].i, -100);
  EXPECT_EQ(d[2].kind, K::Float);
  EXPECT_DOUBLE_EQ(d[2].f, 1e-05);
  EXPECT_EQ(d[2].text, "1e-05");
  EXPECT_EQ(d[3].kind, K::Float);
  EXPECT_TRUE(std::isinf(d[3].f) && d[3].f < 0);
  EXPECT_EQ(d[4].kind, K::Bool);
  EXPECT_TRUE(d[4].b);
  EXPECT_EQ(d[5].kind, K::Bool);
  EXPECT_FALSE(d[5].b);
  EXPECT_EQ(d[6].kind, K::IntList);  // empty list: kind follows the declared element type
  EXPECT_TRUE(d[6].ints.empty());
  EXPECT_EQ(d[7].kind, K::FloatList);
  EXPECT_EQ(d[8].kind, K::BoolList);
  EXPECT_EQ(d[9].kind, K::IntList);
  EXPECT_EQ(d[9].ints, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(d[9].text, "[0,0]");
  EXPECT_EQ(d[10].ints, (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(d[10].text, "[1, -1]");
  EXPECT_EQ(d[11].kind, K::FloatList);
  EXPECT_EQ(d[11].floats, (std::vector<double>{0.5, 2.0}));
  EXPECT_EQ(d[12].kind, K::BoolList);
  EXPECT_EQ(d[12].bools, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(d[13].kind, K::Str);
  EXPECT_EQ(d[13].s, "mean");
  EXPECT_EQ(d[13].text, "\"mean\"");
  EXPECT_EQ(d[14].kind, K::Str);
  EXPECT_EQ(d[14].s, "no'ne");
  EXPECT_EQ(d[14].text, "'no\\'ne'");
  EXPECT_EQ(d[15].kind, K::Ident);
  EXPECT_EQ(d[15].s, "contiguous_format");
  EXPECT_EQ(d[16].kind, K::Ident);
  EXPECT_EQ(d[16].s, "Mean");
  EXPECT_DOUBLE_EQ(d[17].f, 1.0 / 3.0);
  EXPECT_TRUE(std::isnan(d[18].f));
  EXPECT_EQ(d[19].kind, K::Int);  // a scalar default for a sized list broadcasts later
  EXPECT_EQ(d[19].i, 1);
}

TEST(Schema, Types) {
  FunctionSchema s = parse_schema(
      "f(int[2] a, SymInt[1]? b, Tensor?[] c, int[]? d, float? e, t f, Tensor[] g, "
      "__torch__.torch.classes.x.Y h, int[2][] i) -> ()");
  const auto& a = s.arguments();
  EXPECT_EQ(a[0].type()->kind(), TypeKind::List);
  EXPECT_EQ(a[0].type()->fixed_size(), 2);
  EXPECT_EQ(a[0].type()->element()->kind(), TypeKind::Int);
  EXPECT_EQ(a[0].type()->str(), "int[2]");

  const Type& b = *a[1].type();
  EXPECT_EQ(b.kind(), TypeKind::Optional);
  EXPECT_FALSE(b.fixed_size().has_value());
  EXPECT_EQ(b.element()->kind(), TypeKind::List);
  EXPECT_EQ(b.element()->fixed_size(), 1);
  EXPECT_EQ(b.element()->element()->kind(), TypeKind::SymInt);
  EXPECT_EQ(b.str(), "SymInt[1]?");

  const Type& c = *a[2].type();
  EXPECT_EQ(c.kind(), TypeKind::List);
  EXPECT_FALSE(c.fixed_size().has_value());
  EXPECT_EQ(c.element()->kind(), TypeKind::Optional);
  EXPECT_EQ(c.element()->element()->kind(), TypeKind::Tensor);
  EXPECT_EQ(c.str(), "Tensor?[]");

  EXPECT_EQ(a[3].type()->str(), "int[]?");
  EXPECT_EQ(a[4].type()->str(), "float?");
  EXPECT_EQ(a[5].type()->kind(), TypeKind::TypeVar);
  EXPECT_EQ(a[5].type()->name(), "t");
  EXPECT_EQ(a[6].type()->str(), "Tensor[]");
  EXPECT_EQ(a[7].type()->kind(), TypeKind::Class);
  EXPECT_EQ(a[7].type()->name(), "__torch__.torch.classes.x.Y");
  EXPECT_EQ(a[8].type()->str(), "int[2][]");

  // Structural equality and the factories.
  EXPECT_EQ(*a[2].type(), *Type::list(Type::optional(Type::get(TypeKind::Tensor))));
  EXPECT_EQ(*a[0].type(), *Type::list(Type::get(TypeKind::Int), 2));
  EXPECT_FALSE(*a[0].type() == *Type::list(Type::get(TypeKind::Int)));
  EXPECT_FALSE(*a[0].type() == *Type::list(Type::get(TypeKind::SymInt), 2));
  EXPECT_FALSE(*Type::type_var("t") == *Type::type_var("u"));
  EXPECT_EQ(Type::get(TypeKind::Tensor), Type::get(TypeKind::Tensor));  // shared singleton
  EXPECT_EQ(Type::get(TypeKind::Float)->str(), "float");
  EXPECT_EQ(Type::get(TypeKind::Complex)->str(), "complex");
  EXPECT_EQ(Type::get(TypeKind::Tensor)->element(), nullptr);
  EXPECT_THROW(Type::get(TypeKind::List), ValueError);
}

TEST(Schema, AliasAnnotations) {
  FunctionSchema s = parse_schema(
      "f(Tensor(a!) x, Tensor(a|b) y, Tensor(a -> *) z, Tensor(a!)[] w, Tensor(b!)? v, "
      "Tensor(c) u, *, Tensor(d!) out) -> Tensor(a!)[]");
  const auto& a = s.arguments();
  ASSERT_TRUE(a[0].alias_info().has_value());
  EXPECT_EQ(a[0].alias_info()->before_sets, (std::vector<std::string>{"a"}));
  EXPECT_EQ(a[0].alias_info()->after_sets, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(a[0].alias_info()->is_write);
  EXPECT_EQ(a[0].alias_info()->str(), "a!");
  EXPECT_FALSE(a[0].is_out());  // positional: in-place, not out

  EXPECT_EQ(a[1].alias_info()->before_sets, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(a[1].alias_info()->is_write);
  EXPECT_EQ(a[1].alias_info()->str(), "a|b");

  EXPECT_EQ(a[2].alias_info()->before_sets, (std::vector<std::string>{"a"}));
  EXPECT_EQ(a[2].alias_info()->after_sets, (std::vector<std::string>{"*"}));
  EXPECT_EQ(a[2].alias_info()->str(), "a -> *");

  EXPECT_EQ(a[3].type()->str(), "Tensor[]");  // the annotation lives on the element
  EXPECT_TRUE(a[3].alias_info()->is_write);
  EXPECT_EQ(a[3].str(), "Tensor(a!)[] w");
  EXPECT_EQ(a[4].type()->str(), "Tensor?");
  EXPECT_EQ(a[4].str(), "Tensor(b!)? v");
  EXPECT_FALSE(a[5].alias_info()->is_write);

  EXPECT_TRUE(a[6].kwarg_only());
  EXPECT_TRUE(a[6].is_out());
  EXPECT_TRUE(s.is_mutable());
  EXPECT_EQ(s.returns()[0].str(), "Tensor(a!)[]");

  FunctionSchema view = parse_schema("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
  EXPECT_FALSE(view.is_mutable());
  EXPECT_FALSE(view.arguments()[0].is_out());
}

TEST(Schema, Returns) {
  FunctionSchema named = parse_schema(
      "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
      "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)");
  ASSERT_EQ(named.returns().size(), 2u);
  EXPECT_EQ(named.returns()[0].name(), "values");
  EXPECT_EQ(named.returns()[1].name(), "indices");
  EXPECT_TRUE(named.returns()[1].alias_info()->is_write);
  EXPECT_EQ(named.returns()[1].alias_info()->before_sets, (std::vector<std::string>{"b"}));
  EXPECT_TRUE(named.arguments()[3].is_out());
  EXPECT_TRUE(named.arguments()[4].is_out());

  EXPECT_TRUE(parse_schema("f() -> ()").returns().empty());
  EXPECT_EQ(parse_schema("f() -> (int, float)").returns()[1].type()->kind(), TypeKind::Float);
  EXPECT_EQ(parse_schema("f() -> Tensor out").returns()[0].name(), "out");

  FunctionSchema fmt = parse_schema("aten::format(str self, ...) -> str");
  EXPECT_TRUE(fmt.is_vararg());
  EXPECT_FALSE(fmt.is_varret());
  EXPECT_EQ(fmt.arguments().size(), 1u);
  FunctionSchema vr = parse_schema("f(...) -> ...");
  EXPECT_TRUE(vr.is_vararg());
  EXPECT_TRUE(vr.is_varret());
  EXPECT_TRUE(vr.arguments().empty());
  EXPECT_TRUE(vr.returns().empty());
}

TEST(Schema, PrintsSchemasBuiltInCode) {
  DefaultValue one;
  one.kind = K::Int;
  one.i = 1;
  DefaultValue mode;
  mode.kind = K::Str;
  mode.s = "a\"b";
  DefaultValue eps;
  eps.kind = K::Float;
  eps.f = 2;
  DefaultValue dims;
  dims.kind = K::IntList;
  dims.ints = {0, 1};
  AliasInfo w{{"a"}, {"a"}, true};
  FunctionSchema s(
      "ns::op", "out",
      {Argument("x", Type::get(TypeKind::Tensor)), Argument("n", Type::get(TypeKind::Int), one),
       Argument("mode", Type::get(TypeKind::Str), mode),
       Argument("eps", Type::get(TypeKind::Float), eps),
       Argument("dims", Type::list(Type::get(TypeKind::Int)), dims),
       Argument("out", Type::get(TypeKind::Tensor), {}, true, w)},
      {Argument("", Type::get(TypeKind::Tensor), {}, false, w)});
  EXPECT_EQ(s.str(),
            "ns::op.out(Tensor x, int n=1, str mode=\"a\\\"b\", float eps=2.0, int[] dims=[0, 1], "
            "*, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(parse_schema(s.str()).str(), s.str());
}

// The message names the column and what was expected, then shows the input with a caret.
void expect_error(const std::string& schema, size_t column, const std::string& what) {
  SCOPED_TRACE(schema);
  try {
    parse_schema(schema);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[parse_schema] column " + std::to_string(column) + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
    std::string tail = "\n  " + schema + "\n  " + std::string(column - 1, ' ') + "^";
    EXPECT_EQ(msg.substr(msg.size() - std::min(msg.size(), tail.size())), tail) << msg;
  }
}

TEST(Schema, ErrorsNameColumnExpectationAndCaret) {
  expect_error("aten::add(Tensor self x)", 23, "expected ')', ',' or '=' but found 'x'");
  expect_error("aten::add(Tensor self, Tensor other", 36,
               "expected ')', ',' or '=' but found end of input");
  expect_error("aten::f(Tensr x) -> Tensor", 9, "unknown type 'Tensr'");
  expect_error("aten::f(double x) -> Tensor", 9,
               "unknown type 'double' (schemas spell it 'float')");
  expect_error("aten::f(int x=abc!) -> Tensor", 18, "expected ')' or ',' but found '!'");
  expect_error("aten::f(int x=) -> Tensor", 15, "expected a default value but found ')'");
  expect_error("aten::f(int x=1.5e) -> Tensor", 15, "invalid number '1.5e'");
  expect_error("aten::f(int x=None) -> Tensor", 15, "bad default 'None' for type 'int'");
  expect_error("aten::f(Tensor x=1) -> Tensor", 18, "a Tensor can only default to None");
  expect_error("aten::f(int[] x=[1, True]) -> Tensor", 21, "mixes booleans and numbers");
  expect_error("aten::f(int[] x=[1, 2) -> Tensor", 22, "expected ',' or ']' but found ')'");
  expect_error("aten::f(Tensor x) ->", 21, "expected a return type but found end of input");
  expect_error("aten::f(Tensor x) -> (Tensor, )", 31, "expected a return type but found ')'");
  expect_error("aten::f(Tensor x) Tensor", 19, "expected '->' but found 'Tensor'");
  expect_error("aten::f(str x=\"mean) -> Tensor", 15, "unterminated string literal");
  expect_error("aten::f(Tensor(a!!) x) -> Tensor", 18, "expected ')' or '->' but found '!'");
  expect_error("aten::f(Tensor() x) -> Tensor", 16,
               "expected an alias set name or '*' but found ')'");
  expect_error("aten::f(Tensor(a b) x) -> Tensor", 18,
               "expected '|', '!', '->' or ')' but found 'b'");
  expect_error("aten::f(Tensor x, *, int y, *, int z) -> Tensor", 29, "duplicate '*'");
  expect_error("aten::f(Tensor x, *) -> Tensor", 20, "expected ',' after '*' but found ')'");
  expect_error("(Tensor x) -> Tensor", 1, "expected operator name but found '('");
  expect_error("aten::(Tensor x) -> Tensor", 7, "expected operator name after '::' but found '('");
  expect_error("aten:f(Tensor x) -> Tensor", 5, "expected '::' but found ':'");
  expect_error("aten::f.(Tensor x) -> Tensor", 9, "expected overload name after '.' but found '('");
  expect_error("aten::f(Tensor x, Tensor x) -> Tensor", 26, "duplicate argument name 'x'");
  expect_error("aten::f(int[-1] x) -> Tensor", 13, "expected a list size or ']' but found '-'");
  expect_error("aten::f(..., Tensor x) -> Tensor", 12, "expected ')' after '...' but found ','");
  expect_error("aten::f(Tensor x) -> Tensor y z", 31, "expected end of input but found 'z'");
  expect_error("aten::f(Tensor x) -> Tensor $", 29, "unexpected character '$'");
  expect_error("", 1, "expected operator name but found end of input");
}

TEST(Schema, ErrorsFromParseOperatorName) {
  try {
    parse_operator_name("aten::add.Tensor(Tensor self)");
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "[parse_operator_name] column 17: expected end of input but found '('\n"
              "  aten::add.Tensor(Tensor self)\n"
              "                  ^");
  }
  EXPECT_THROW(parse_operator_name(""), ValueError);
  EXPECT_THROW(parse_operator_name("aten::"), ValueError);
}

// Every schema in LibTorch's RegistrationDeclarations.h: `... // {"schema": "aten::...", ...}`.
std::vector<std::string> read_regdecl_schemas(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  const std::string key = "{\"schema\": \"";
  for (std::string line; std::getline(in, line);) {
    size_t p = line.find(key);
    if (p == std::string::npos) continue;
    std::string s;
    for (p += key.size(); p < line.size() && line[p] != '"'; ++p) {
      if (line[p] == '\\') ++p;  // JSON escapes here are only \" and \\ .
      s += line[p];
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(Schema, RoundTripsEveryLibTorchSchema) {
#ifndef EMBER_TORCH_REGDECL
  GTEST_SKIP() << "EMBER_TORCH_REGDECL is not defined";
#else
  const std::string path = EMBER_TORCH_REGDECL;
  if (!std::ifstream(path)) GTEST_SKIP() << "no LibTorch declarations at " << path;
  std::vector<std::string> schemas = read_regdecl_schemas(path);
  size_t parsed = 0;
  for (const auto& s : schemas) {
    try {
      std::string printed = parse_schema(s).str();
      EXPECT_EQ(printed, s);
      parsed += printed == s;
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_EQ(parsed, schemas.size());
  EXPECT_GT(parsed, 2500u);
#endif
}

}  // namespace
}  // namespace ember
