// schemas/ops.yaml against what libember registers and what the generated API declares:
// every schema round-trips and is registered verbatim, every generated handle's C++ signature
// matches its schema, every operator method comes from ops.yaml, and Tensor.h hand-writes none.
//
// Needs EMBER_OPS_YAML, EMBER_TENSOR_BASE_H, EMBER_TENSOR_H and EMBER_TENSOR_METHODS_H (paths) from CMake.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/Schema.h"
#include "ember/dispatcher/Dispatcher.h"
#include "ember/generated/Functions.h"

namespace ember {
namespace {

std::string read_file(const char* path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

struct Entry {
  std::string func;
  bool method = false;
};

// A line-based reading of ops.yaml: "- func: ..." starts an entry, "variants: ..." qualifies it.
std::vector<Entry> read_ops_yaml() {
  std::vector<Entry> entries;
  std::istringstream in(read_file(EMBER_OPS_YAML));
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    if (t.rfind("- func:", 0) == 0) {
      entries.push_back({trim(t.substr(7))});
    } else if (t.rfind("variants:", 0) == 0 && !entries.empty()) {
      entries.back().method = t.find("method") != std::string::npos;
    }
  }
  return entries;
}

std::set<std::string> method_names_in_ops_yaml() {
  std::set<std::string> names;
  for (const Entry& e : read_ops_yaml())
    if (e.method) names.insert(std::string(parse_schema(e.func).base_name()));
  return names;
}

TEST(OpsYaml, EverySchemaRoundTrips) {
  std::vector<Entry> entries = read_ops_yaml();
  ASSERT_GT(entries.size(), 50u);
  for (const Entry& e : entries) {
    FunctionSchema s = parse_schema(e.func);
    EXPECT_EQ(s.str(), e.func);
    EXPECT_EQ(s.ns(), "") << e.func << ": ops.yaml schemas carry no namespace";
  }
}

TEST(OpsYaml, EveryOperatorIsRegisteredVerbatim) {
  for (const Entry& e : read_ops_yaml()) {
    FunctionSchema s = parse_schema(e.func);
    auto op = Dispatcher::singleton().findSchema("aten::" + s.name(), s.overload_name());
    ASSERT_TRUE(op.has_value()) << "aten::" << s.name() << "." << s.overload_name() << " is not registered";
    EXPECT_EQ(op->schema().str(), "aten::" + e.func);
  }
}

// Each generated function's typed<Sig>() is checked against its schema on first use; this
// makes every one of them happen now, with no kernel registered.
TEST(OpsYaml, GeneratedSignaturesMatchSchemas) { EXPECT_NO_THROW(detail::check_generated_ops()); }

// The identifier before the first '(' of each declaration line of TensorMethods.h.
std::set<std::string> generated_method_names() {
  std::set<std::string> names;
  std::istringstream in(read_file(EMBER_TENSOR_METHODS_H));
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty() || line.rfind("//", 0) == 0) continue;
    size_t paren = line.find('(');
    EXPECT_NE(paren, std::string::npos) << "unexpected line in TensorMethods.h: " << line;
    if (paren == std::string::npos) continue;
    size_t b = paren;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(line[b - 1])) || line[b - 1] == '_')) --b;
    names.insert(line.substr(b, paren - b));
  }
  return names;
}

TEST(OpsYaml, GeneratedMethodsAreExactlyTheMethodVariants) {
  std::set<std::string> want = method_names_in_ops_yaml(), got = generated_method_names();
  for (const std::string& n : got)
    EXPECT_TRUE(want.count(n)) << "TensorMethods.h declares '" << n << "', no ops.yaml method";
  for (const std::string& n : want)
    EXPECT_TRUE(got.count(n)) << "ops.yaml method '" << n << "' missing from TensorMethods.h";
}

// Tokens of C++ source: identifiers and single punctuation characters; comments, string and
// character literals and preprocessor lines are dropped.
std::vector<std::string> cpp_tokens(const std::string& src) {
  std::vector<std::string> toks;
  bool line_start = true;
  for (size_t i = 0; i < src.size();) {
    char c = src[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (line_start && c == '#') {
      i = src.find('\n', i);
    } else if (src.compare(i, 2, "//") == 0) {
      i = src.find('\n', i);
    } else if (src.compare(i, 2, "/*") == 0) {
      i = src.find("*/", i) + 2;
    } else if (c == '"' || c == '\'') {
      for (++i; i < src.size() && src[i] != c; ++i)
        if (src[i] == '\\') ++i;
      ++i;
      line_start = false;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = i;
      while (i < src.size() && (std::isalnum(static_cast<unsigned char>(src[i])) || src[i] == '_')) ++i;
      toks.push_back(src.substr(b, i - b));
      line_start = false;
    } else {
      toks.emplace_back(1, c);
      ++i;
      line_start = false;
    }
    if (i == std::string::npos) break;
  }
  return toks;
}

// The names of the member functions declared in the body of the class that `head` opens in
// `path`, leaving out the generated include (a preprocessor line) and every function body.
std::vector<std::string> hand_written_members(const char* path, const char* head) {
  std::string src = read_file(path);
  size_t at = src.find(head);
  EXPECT_NE(at, std::string::npos) << "no `" << head << "` in " << path;
  if (at == std::string::npos) return {};
  std::vector<std::string> t = cpp_tokens(src.substr(at));
  auto skip = [&](size_t i, const char* open, const char* close) {  // past the match of t[i]
    for (int depth = 0; i < t.size(); ++i) {
      depth += t[i] == open ? 1 : t[i] == close ? -1 : 0;
      if (depth == 0) return i + 1;
    }
    return i;
  };
  std::vector<std::string> names, decl;                           // decl: the current declaration's tokens so far
  bool named = false;                                             // its name (before its first '(') is recorded
  size_t i = std::find(t.begin(), t.end(), "{") - t.begin() + 1;  // after the class head
  while (i < t.size() && t[i] != "}") {
    if (t[i] == "{") {  // a function body (ends the declaration) or a braced initializer
      i = skip(i, "{", "}");
      if (named) decl.clear(), named = false;
    } else if (t[i] == ";" || (t[i] == ":" && decl.size() == 1)) {  // end, or public: / private:
      decl.clear(), named = false, ++i;
    } else if (t[i] == "(") {
      if (!named && !decl.empty()) {
        auto op = std::find(decl.begin(), decl.end(), "operator");
        std::string name = decl.back();
        if (op != decl.end()) {
          name.clear();
          for (auto it = op; it != decl.end(); ++it) name += *it;
          if (name == "operator" && i + 1 < t.size() && t[i + 1] == ")") name = "operator()";
        }
        if (name != "static_assert") names.push_back(name);
        named = true;
      }
      i = skip(i, "(", ")");
    } else {
      decl.push_back(t[i++]);
    }
  }
  return names;
}

// Members of Tensor that may be hand-written: metadata and convenience accessors that never
// dispatch (or go through AutogradHooks). Anything that computes belongs in schemas/ops.yaml.
const std::set<std::string> kHandWritten = {
    // handle
    "Tensor", "TensorBase", "operator=", "defined", "unsafeGetTensorImpl", "impl", "reset", "use_count", "is_same",
    // metadata
    "sizes", "strides", "size", "stride", "dim", "ndimension", "numel", "storage_offset", "element_size", "itemsize",
    "nbytes", "scalar_type", "dtype", "device", "layout", "is_contiguous", "is_contiguous_slow", "suggest_memory_format", "is_cpu", "is_cuda", "is_hip", "is_meta",
    "is_sparse", "is_sparse_csr", "is_quantized", "is_floating_point", "is_complex", "key_set", "options", "_version",
    "has_storage", "get_device", "toString", "print", "name", "is_view", "_is_view", "_base",
    // data access
    "data_ptr", "mutable_data_ptr", "const_data_ptr", "accessor", "item",
    // autograd, through AutogradHooks
    "requires_grad_", "set_requires_grad", "requires_grad", "is_leaf", "grad", "mutable_grad", "backward", "detach",
    "retain_grad", "retains_grad", "output_nr", "is_inference", "detach_", "grad_fn", "register_hook", "_register_hook",
    "remove_hook", "set_data",
    // indexing sugar over operators
    "operator[]", "index", "index_put_",
    // private helpers
    "wrap", "check_dtype"};
// Hand-written members that share a name with a generated operator method, and why.
const std::set<std::string> kOverloadsOfOps = {
    "item",  // template <class T> T item(): item().to<T>() over the generated Scalar item()
};

TEST(OpsYaml, TensorHDeclaresNoOperatorMethodByHand) {
  // TensorBase (core) and Tensor: together the methods a Tensor has besides the generated ones.
  std::vector<std::string> members = hand_written_members(EMBER_TENSOR_BASE_H, "class EMBER_API TensorBase {");
  ASSERT_GT(members.size(), 20u) << "could not read TensorBase's class body in " << EMBER_TENSOR_BASE_H;
  const size_t base_members = members.size();
  for (auto& m : hand_written_members(EMBER_TENSOR_H, "class EMBER_API Tensor : public TensorBase {"))
    members.push_back(m);
  ASSERT_GT(members.size(), base_members + 10) << "could not read Tensor's class body in " << EMBER_TENSOR_H;
  std::set<std::string> ops = method_names_in_ops_yaml();
  for (const std::string& n : members) {
    EXPECT_TRUE(kHandWritten.count(n))
        << EMBER_TENSOR_H << " declares Tensor::" << n << " by hand. An operator "
        << "method belongs in schemas/ops.yaml (variants: method); a metadata accessor that "
           "never dispatches goes in kHandWritten in this test.";
    EXPECT_TRUE(!ops.count(n) || kOverloadsOfOps.count(n))
        << "Tensor::" << n << " is both hand-written and generated from schemas/ops.yaml";
  }
  // The scanner itself: these are in today's Tensor.h.
  for (const char* n : {"sizes", "operator[]", "backward", "accessor", "item"})
    EXPECT_NE(std::find(members.begin(), members.end(), n), members.end()) << n;
}

// A few of API.md's precise signatures, at compile time.
template <class F>
using Fn = F*;
static_assert(std::is_same_v<decltype(std::declval<Tensor&>().add_(std::declval<Tensor>())), Tensor&>);
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().mul_(2)), Tensor&>);
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().add(1)), Tensor>);
static_assert(std::is_same_v<decltype(&add_outf), Fn<Tensor&(const Tensor&, const Tensor&, const Scalar&, Tensor&)>>);
static_assert(std::is_same_v<decltype(&add_out), Fn<Tensor&(Tensor&, const Tensor&, const Tensor&, const Scalar&)>>);
static_assert(std::is_same_v<decltype(&allclose), Fn<bool(const Tensor&, const Tensor&, double, double, bool)>>);

// Overload sets cannot be named in a static_assert: these calls must compile (never run).
[[maybe_unused]] void api_md_calls_compile(const Tensor& a) {
  zeros({2, 3});
  ones({2, 2}, kInt32);
  full({3, 4}, 123, TensorOptions().dtype(kFloat64).requires_grad(true));
  empty({5});
  arange(5, 10);
  arange(0, 1, 0.25);
  arange(5, kFloat64);
  zeros_like(a);
  full_like(a, 7);
  a.to(kFloat64);
  a.to(Device(kCUDA, 0));
  a.cpu();
  a.clone();
  a.contiguous();
  a.sum();
  a.sum({0}, true);
  a.sum(0);
  a.slice(0, 1, 3);
  a.item<float>();
  allclose(a, a, 1e-3, 1e-3);
  Tensor b = a;
  Tensor& r = b.mul_(b);
  (void)r;
}

}  // namespace
}  // namespace ember
