// The sample and error inputs of every built-in operator. See Note [Backend op harness] in OpInfo.h.
#include "OpInfo.h"

#include <algorithm>
#include <limits>

#include "OpTestUtil.h"

namespace ember::optest {

// ---- SampleCtx ----------------------------------------------------------------------------------

double SampleCtx::value(ScalarType dt) {
  switch (dt) {
    case kBool:
      return static_cast<double>(rng_() % 2);
    case kUInt8:
      return static_cast<double>(rng_() % 10);
    case kInt8:
    case kInt16:
    case kInt32:
    case kInt64:
      return static_cast<double>(static_cast<int64_t>(rng_() % 11) - 5);
    default:
      return std::uniform_real_distribution<double>(-3, 3)(rng_);
  }
}

Tensor SampleCtx::t(std::vector<int64_t> shape) { return t(std::move(shape), dtype_); }

Tensor SampleCtx::t(std::vector<int64_t> shape, ScalarType dt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = value(dt);
  return from_values(shape, dt, v);
}

Tensor SampleCtx::uniform(std::vector<int64_t> shape, double lo, double hi, ScalarType dt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    x = std::uniform_real_distribution<double>(lo, hi)(rng_);
    if (!is_floating_type(dt)) x = std::floor(x);
  }
  return from_values(shape, dt, v);
}

Tensor SampleCtx::ix(std::vector<int64_t> shape, int64_t bound, ScalarType dt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = static_cast<double>(rng_() % static_cast<uint64_t>(bound));
  return from_values(shape, dt, v);
}

Tensor SampleCtx::mask(std::vector<int64_t> shape, ScalarType dt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = static_cast<double>(rng_() % 2);
  return from_values(shape, dt, v);
}

Tensor SampleCtx::ix_unique(int64_t n, int64_t bound) {
  std::vector<double> v(static_cast<size_t>(bound));
  for (int64_t i = 0; i < bound; ++i) v[i] = static_cast<double>(i);
  std::shuffle(v.begin(), v.end(), rng_);
  v.resize(static_cast<size_t>(n));
  return from_values({n}, kInt64, v);
}

Tensor SampleCtx::distinct(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  std::shuffle(v.begin(), v.end(), rng_);
  for (double& x : v) {
    if (dtype_ == kBool)
      x = static_cast<double>(rng_() % 2);
    else if (is_floating_type(dtype_))
      x = (x - static_cast<double>(n) / 2) * 0.25;
    else if (dtype_ != kUInt8)
      x -= static_cast<double>(n / 2);
  }
  return from_values(shape, dtype_, v);
}

std::vector<IValue> SampleCtx::with_out(std::vector<IValue> args, std::vector<IValue> outs) const {
  const auto& sargs = schema_.arguments();
  size_t first_out = 0;
  while (first_out < sargs.size() && !sargs[first_out].is_out()) ++first_out;
  EMBER_INTERNAL_ASSERT(first_out < sargs.size() && args.size() <= first_out,
                        "{} has no out= argument after {} arguments", schema_.operator_name(), args.size());
  for (size_t i = args.size(); i < first_out; ++i) args.push_back(detail::default_ivalue(schema_, sargs[i]));
  for (IValue& o : outs) args.push_back(std::move(o));
  return args;
}

namespace {

bool has_tensor_argument(const FunctionSchema& s) {
  for (const auto& a : s.arguments()) {
    const TypePtr& t = a.type();
    const TypePtr& base = t->kind() == TypeKind::Optional || t->kind() == TypeKind::List ? t->element() : t;
    if (base->kind() == TypeKind::Tensor ||
        (base->kind() == TypeKind::Optional && base->element()->kind() == TypeKind::Tensor))
      return true;
  }
  return false;
}

bool is_optional_of(const TypePtr& t, TypeKind k) {
  return t->kind() == TypeKind::Optional && t->element()->kind() == k;
}

}  // namespace

std::vector<IValue> SampleCtx::generic_args(const std::vector<int64_t>& shape) {
  std::vector<IValue> args;
  const bool factory = !has_tensor_argument(schema_);
  for (const Argument& a : schema_.arguments()) {
    const TypePtr& t = a.type();
    const TypeKind k = t->kind();
    const std::string& n = a.name();
    if (a.is_out()) {
      args.emplace_back(this->t({0}));
    } else if (k == TypeKind::Tensor || is_optional_of(t, TypeKind::Tensor)) {
      args.emplace_back(this->t(shape));
    } else if (k == TypeKind::List && t->element()->kind() == TypeKind::Tensor) {
      args.emplace_back(std::vector<Tensor>{this->t(shape), this->t(shape)});
    } else if (factory && (k == TypeKind::ScalarType || is_optional_of(t, TypeKind::ScalarType))) {
      args.emplace_back(dtype_);
    } else if (a.default_value()) {
      args.push_back(detail::default_ivalue(schema_, a));
    } else if (k == TypeKind::Scalar || is_optional_of(t, TypeKind::Scalar)) {
      args.emplace_back(2);
    } else if (k == TypeKind::Int || is_optional_of(t, TypeKind::Int)) {
      args.emplace_back(int64_t{1});
    } else if (k == TypeKind::List && t->element()->kind() == TypeKind::Int) {
      args.emplace_back(n == "size" || n == "shape" ? shape : std::vector<int64_t>{1});
    } else if (k == TypeKind::Float) {
      args.emplace_back(0.5);
    } else if (k == TypeKind::Bool) {
      args.emplace_back(false);
    } else {
      args.emplace_back();  // None: optionals, Device, Layout
    }
  }
  return args;
}

std::vector<SampleInput> SampleCtx::generic() {
  std::vector<SampleInput> r;
  for (const auto& shape : std::vector<std::vector<int64_t>>{{3, 4}, {2, 3, 2, 3}, {}}) {
    std::string desc = "generic shape [";
    for (size_t i = 0; i < shape.size(); ++i) desc += (i ? ", " : "") + std::to_string(shape[i]);
    r.push_back({generic_args(shape), desc + "]"});
  }
  return r;
}

// ---- the table ----------------------------------------------------------------------------------

namespace {

using A = std::vector<IValue>;
SampleInput S(A args, std::string desc) { return {std::move(args), std::move(desc)}; }
// A sample whose result is the data (SampleInput::reads_data).
SampleInput D(A args, std::string desc) { return {std::move(args), std::move(desc), true}; }
// A sample that writes each place once: no expanded variant (SampleInput::expand).
SampleInput W(A args, std::string desc) { return {std::move(args), std::move(desc), false, false}; }
ErrorInput E(A args, std::string desc, std::string kind, std::string message) {
  return {{std::move(args), std::move(desc)}, std::move(kind), std::move(message)};
}
const double kInf = std::numeric_limits<double>::infinity();

Samples generic(SampleCtx& c) { return c.generic(); }

// The out= variant's samples from the functional ones: an empty out (resized by the call), then
// one of another size and one of float64 (out= comes last; the schema's defaults fill the keyword
// arguments between).
Samples add_out(SampleCtx& c, const Samples& functional) {
  Samples r;
  for (size_t i = 0; i < functional.size(); ++i) {
    const SampleInput& s = functional[i];
    A outs;
    for (const auto& a : c.schema().arguments()) {
      if (a.is_out()) outs.emplace_back(i == 1 ? c.t({5}) : i == 2 ? c.t({0}, kFloat64) : c.t({0}));
    }
    SampleInput o = s;
    o.args = c.with_out(s.args, outs);
    o.desc = s.desc + (i == 1 ? ", out of another size" : i == 2 ? ", empty float64 out" : ", empty out");
    r.push_back(std::move(o));
  }
  return r;
}

// ---- elementwise

// Operand pairs: broadcasting, 0-d and empty operands, and type promotion with another dtype.
struct Pair {
  Tensor a, b;
  std::string desc;
  bool inplace_ok;  // the broadcast shape is a's
};
std::vector<Pair> binary_pairs(SampleCtx& c) {
  return {
      {c.t({3, 4}), c.t({3, 4}), "same shape", true},
      {c.t({3, 4}), c.t({4}), "broadcast [3, 4] with [4]", true},
      {c.t({3, 1}), c.t({1, 4}), "broadcast [3, 1] with [1, 4]", false},
      {c.t({2, 3, 4, 5}), c.t({3, 1, 1}), "broadcast [2, 3, 4, 5] with [3, 1, 1]", true},
      {c.t({}), c.t({}), "0-d", true},
      {c.t({0, 4}), c.t({4}), "empty", true},
      {c.t({3, 4}), c.t({4}, kInt32), "other int32", true},
      {c.t({3, 4}), c.t({}, kFloat64), "other 0-d float64", true},
      {c.t({2, 3}), c.t({2, 1}, kFloat16), "other float16", true},
      {c.t({2, 3}, kInt64), c.t({3}), "self int64", true},
  };
}

// op.Tensor, op_.Tensor and op.out (the variant from the schema), with `extra` after other.
Samples binary(SampleCtx& c, A extra = {}) {
  const auto& args = c.schema().arguments();
  const bool inplace = args[0].alias_info() && args[0].alias_info()->is_write;
  Samples r;
  for (Pair& p : binary_pairs(c)) {
    if (inplace && !p.inplace_ok) continue;
    A a = {p.a, p.b};
    a.insert(a.end(), extra.begin(), extra.end());
    r.push_back(S(a, p.desc));
  }
  return c.schema().is_mutable() && !inplace ? add_out(c, r) : r;
}

// `args`, plus an empty out= argument when the schema has one.
A maybe_out(SampleCtx& c, A args) {
  return c.schema().arguments().back().is_out() ? c.with_out(std::move(args), {c.t({0})}) : args;
}

Errors binary_errors(SampleCtx& c) {
  const std::string op(c.schema().base_name());
  Errors e = {E(maybe_out(c, {c.t({2, 3}), c.t({4})}), "shapes that do not broadcast", "ValueError",
                "shapes [2, 3] and [4] cannot be broadcast together: the size of tensor a (3) must match the size of "
                "tensor b (4) at non-singleton dimension 1")};
  if (op.back() == '_')
    e.push_back(E({c.t({4}), c.t({3, 4})}, "a broadcast beyond self", "ValueError",
                  "output with shape [4] doesn't match the broadcast shape [3, 4]"));
  return e;
}

// op.Scalar and op_.Scalar: integer, floating and bool scalars.
Samples binary_scalar(SampleCtx& c, A extra = {}) {
  Samples r;
  auto with = [&](A a) {
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  r.push_back(S(with({c.t({3, 4}), 2}), "int scalar"));
  r.push_back(S(with({c.t({3, 4}), 2.5}), "float scalar"));
  r.push_back(S(with({c.t({3, 4}), true}), "bool scalar"));
  r.push_back(S(with({c.t({2, 3, 4, 5}), -1}), "4-d, negative scalar"));
  r.push_back(S(with({c.t({}), 3}), "0-d"));
  return c.schema().is_mutable() && !c.schema().arguments()[0].alias_info() ? add_out(c, r) : r;
}

// Unary ops: functional, in-place and out= (from the schema).
Samples unary(SampleCtx& c, A extra = {}) {
  auto with = [&](Tensor x) {
    A a = {std::move(x)};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  Samples r = {S(with(c.t({3, 4})), "[3, 4]"), S(with(c.t({2, 3, 4, 5})), "4-d"), S(with(c.t({})), "0-d"),
               S(with(c.t({0, 3})), "empty")};
  const auto& args = c.schema().arguments();
  if (!args.back().is_out()) return r;
  Samples o = add_out(c, r);
  o.push_back(S(c.with_out(with(c.t({3, 4})), {c.t({3, 4}, kFloat64)}), "out float64"));
  o.push_back(S(c.with_out(with(c.t({3, 4})), {c.t({4, 3})}), "out of the right numel, another shape"));
  return o;
}

// ---- linear algebra inputs: float64 values cast to the dtype under test (the kernels reject all
// but float32 and float64 alike on every backend)

// A well-conditioned square batch: random entries plus 3n on the diagonal.
Tensor well_conditioned(SampleCtx& c, std::vector<int64_t> shape) {
  const int64_t n = shape.back();
  const Tensor eye = ember::eye(n, TensorOptions().dtype(kFloat64));
  return (c.t(shape, kFloat64) + eye * (3.0 * static_cast<double>(n))).to(c.dtype());
}

// A symmetric positive-definite batch, X X^T + n I (times `scale`).
Tensor spd(SampleCtx& c, std::vector<int64_t> shape, double scale = 1) {
  const int64_t n = shape.back();
  const Tensor x = c.t(shape, kFloat64);
  const Tensor eye = ember::eye(n, TensorOptions().dtype(kFloat64));
  return ((ember::matmul(x, x.transpose(-2, -1)) + eye * static_cast<double>(n)) * scale).to(c.dtype());
}

// The argument errors every square-matrix operator shares, under its API name.
std::function<Errors(SampleCtx&)> square_errors(std::string api, A extra = {}) {
  return [api, extra](SampleCtx& c) -> Errors {
    auto with = [&](Tensor x) {
      A a = {std::move(x)};
      a.insert(a.end(), extra.begin(), extra.end());
      return a;
    };
    return {E(with(c.t({3, 4})), "non-square", "ValueError",
              "[" + api + "] A must be batches of square matrices, but they are 3 by 4 matrices"),
            E(with(c.t({3})), "1-d", "ValueError", "[" + api + "] The input tensor A must have at least 2 dimensions."),
            E(with(c.t({2, 2}, kInt64)), "int64", "TypeError",
              "[" + api + "] Expected a floating point or complex tensor as input. Got Long"),
            E(with(c.t({2, 2}, kFloat16)), "float16", "TypeError",
              "[" + api + "] Low precision dtypes not supported. Got Half")};
  };
}

std::map<std::string, OpInfo> build() {
  std::map<std::string, OpInfo> db;
  auto add = [&](std::string name, std::function<Samples(SampleCtx&)> samples,
                 std::function<Errors(SampleCtx&)> errors = {}, Values values = Values::Compared) {
    name = "aten::" + name;
    const bool added = db.emplace(name, OpInfo{name, std::move(samples), std::move(errors), values}).second;
    EMBER_INTERNAL_ASSERT(added, "{} has two OpInfo entries", name);
  };

  // ---- factories: the device argument names the backend (see run() in test_backend_ops.cpp)
  add(
      "empty.memory_format",
      [](SampleCtx& c) -> Samples {
        return {S({ints({2, 3}), c.dtype()}, "[2, 3]"), S({ints({0, 4}), c.dtype()}, "[0, 4]"),
                S({ints({}), c.dtype()}, "0-d"),
                S({ints({2, 3, 4, 5}), c.dtype(), kNone, kNone, kNone, IValue(MemoryFormat::ChannelsLast)},
                  "channels-last"),
                S({ints({2, 3, 1, 4, 5}), c.dtype(), kNone, kNone, kNone, IValue(MemoryFormat::ChannelsLast3d)},
                  "channels-last 3-d")};
      },
      [](SampleCtx&) -> Errors {
        return {E({ints({2, -1})}, "negative size", "ValueError", "[empty] negative dimension -1 in size [2, -1]"),
                E({ints({2, 3}), kNone, kNone, kNone, kNone, IValue(MemoryFormat::ChannelsLast)},
                  "channels-last of 2-d", "ValueError", "[empty] required rank 4 tensor to use channels_last format"),
                E({ints({2, 3}), kNone, kNone, kNone, kNone, IValue(MemoryFormat::Preserve)}, "Preserve", "ValueError",
                  "[empty] unsupported memory format Preserve")};
      },
      Values::Uninitialized);
  add(
      "empty_strided",
      [](SampleCtx& c) -> Samples {
        return {S({ints({2, 3}), ints({1, 2}), c.dtype()}, "column-major"),
                S({ints({2, 3}), ints({0, 1}), c.dtype()}, "stride 0"),
                S({ints({2, 3}), ints({3, 1}), c.dtype()}, "contiguous")};
      },
      [](SampleCtx&) -> Errors {
        return {E({ints({2, 3}), ints({1})}, "strides of another length", "ValueError",
                  "[empty_strided] mismatch in length of size [2, 3] and stride [1]")};
      },
      Values::Uninitialized);
  for (const char* name : {"zeros", "ones"}) {
    add(name, [](SampleCtx& c) -> Samples {
      return {S({ints({2, 3}), c.dtype()}, "[2, 3]"), S({ints({0}), c.dtype()}, "[0]"),
              S({ints({2, 3})}, "default dtype")};
    });
  }
  add("full", [](SampleCtx& c) -> Samples {
    return {
        S({ints({2, 3}), 1.5, c.dtype()}, "float value"), S({ints({2}), 3, c.dtype()}, "int value"),
        S({ints({2}), true, c.dtype()}, "bool value"),    S({ints({2}), 300, c.dtype()}, "a value out of int8's range"),
        S({ints({2}), 2.5}, "dtype from a float value"),  S({ints({2}), 7}, "dtype from an int value")};
  });
  add(
      "arange.start_step",
      [](SampleCtx& c) -> Samples {
        return {S({0, 10, 3, c.dtype()}, "int bounds"), S({1.5, 7.25, 0.5, c.dtype()}, "float bounds"),
                S({5, 0, -1, c.dtype()}, "downwards"), S({0, 10}, "dtype from the bounds")};
      },
      [](SampleCtx&) -> Errors {
        return {E({0, 10, -1}, "a step away from end", "ValueError",
                  "[arange] upper bound and lower bound inconsistent with step sign (start 0, end 10, step -1)"),
                E({0, 10, 0}, "step 0", "ValueError", "[arange] step must be nonzero")};
      });
  add(
      "linspace",
      [](SampleCtx& c) -> Samples {
        return {S({0, 1, 5, c.dtype()}, "5 steps"), S({-2, 2, 1, c.dtype()}, "1 step"),
                S({0, 1, 0, c.dtype()}, "0 steps")};
      },
      [](SampleCtx&) -> Errors {
        return {
            E({0, 1, -2}, "negative steps", "ValueError", "[linspace] number of steps must be non-negative, got -2")};
      });
  add(
      "eye",
      [](SampleCtx& c) -> Samples {
        return {S({3, c.dtype()}, "3"), S({0, c.dtype()}, "0")};
      },
      [](SampleCtx&) -> Errors {
        return {E({-1}, "negative n", "ValueError", "[eye] n must be greater or equal to 0, got -1")};
      });
  add(
      "eye.m",
      [](SampleCtx& c) -> Samples {
        return {S({2, 4, c.dtype()}, "2 x 4"), S({3, 1, c.dtype()}, "3 x 1")};
      },
      [](SampleCtx&) -> Errors {
        return {E({2, -3}, "negative m", "ValueError", "[eye] m must be greater or equal to 0, got -3")};
      });
  for (const char* name : {"rand", "randn"}) {
    add(
        name,
        [](SampleCtx& c) -> Samples {
          return {S({ints({2, 3}), c.dtype()}, "[2, 3]"), S({ints({0}), c.dtype()}, "[0]")};
        },
        {}, Values::Random);
  }
  add(
      "randint",
      [](SampleCtx& c) -> Samples {
        return {S({10, ints({2, 3}), c.dtype()}, "[0, 10)"), S({10, ints({3})}, "int64")};
      },
      [](SampleCtx&) -> Errors {
        return {E({0, ints({2})}, "an empty range", "ValueError",
                  "[randint] low >= high: expected low < high, got low=0 and high=0")};
      },
      Values::Random);
  add(
      "randint.low",
      [](SampleCtx& c) -> Samples {
        return {S({-3, 10, ints({2, 3}), c.dtype()}, "[-3, 10)")};
      },
      [](SampleCtx&) -> Errors {
        return {E({10, 3, ints({2})}, "low above high", "ValueError",
                  "[randint] low >= high: expected low < high, got low=10 and high=3")};
      },
      Values::Random);

  // The .generator overloads with None: the device's default generator, which the harness reseeds
  // for each run (an explicit generator would be shared by both runs and advance between them;
  // tests/ops/test_cpu_generator.cpp covers that path).
  for (const char* name : {"rand.generator", "randn.generator"}) {
    add(
        name,
        [](SampleCtx& c) -> Samples {
          return {S({ints({2, 3}), IValue(), c.dtype()}, "[2, 3], default generator")};
        },
        {}, Values::Random);
  }
  add(
      "randint.generator",
      [](SampleCtx& c) -> Samples {
        return {S({10, ints({2, 3}), IValue(), c.dtype()}, "[0, 10), default generator")};
      },
      {}, Values::Random);
  add(
      "randint.low_generator",
      [](SampleCtx& c) -> Samples {
        return {S({-3, 10, ints({2, 3}), IValue(), c.dtype()}, "[-3, 10), default generator")};
      },
      {}, Values::Random);

  // ---- *_like: strides of a dense input are kept (PyTorch's preserve_format)
  for (const char* name : {"empty_like", "zeros_like", "ones_like"}) {
    add(
        name,
        [](SampleCtx& c) -> Samples {
          return {
              S({c.t({3, 4})}, "[3, 4]"), S({c.t({2, 3, 4, 5}), kFloat64}, "4-d, float64"), S({c.t({})}, "0-d"),
              S({c.t({2, 3, 4, 5}), kNone, kNone, kNone, kNone, IValue(MemoryFormat::ChannelsLast)}, "channels-last"),
              S({c.t({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast)}, "a channels-last input")};
        },
        {}, std::string(name) == "empty_like" ? Values::Uninitialized : Values::Compared);
  }
  add("full_like", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), 2.5}, "float value"), S({c.t({2, 3, 4, 5}), 1, kInt64}, "4-d, int64")};
  });
  add("fill_.Scalar", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), 1}, "int value"),
            S({c.t({3, 4}), 2.5}, "float value"),
            S({c.t({2, 3, 4, 5}), true}, "bool value"),
            S({c.t({}), -1}, "0-d"),
            S({c.t({3, 4}), 300}, "300"),
            S({c.t({3, 4}), 1e300}, "1e300")};
  });
  add("zero_", generic);

  // ---- arithmetic, comparisons, logical ops
  for (const char* op : {"add", "sub"}) {
    const std::string n(op);
    auto with_alpha = [](SampleCtx& c) {
      Samples r = binary(c);
      Samples a = binary(c, {2});
      for (auto& s : a) s.desc += ", alpha 2";
      r.insert(r.end(), a.begin(), a.end());
      r.push_back(S(maybe_out(c, {c.t({2, 3}), c.t({3}, kInt32), 2.5}), "other int32, alpha 2.5"));
      return r;
    };
    add(n + ".Tensor", with_alpha, binary_errors);
    add(n + "_.Tensor", with_alpha, binary_errors);
    add(n + ".out", with_alpha, binary_errors);
    add(n + ".Scalar", [](SampleCtx& c) {
      Samples r = binary_scalar(c);
      r.push_back(S({c.t({3, 4}), 2, 2.5}, "alpha 2.5"));
      return r;
    });
    add(n + "_.Scalar", [](SampleCtx& c) { return binary_scalar(c, {3}); });
  }
  for (const char* op : {"mul", "div"}) {
    const std::string n(op);
    add(
        n + ".Tensor", [](SampleCtx& c) { return binary(c); }, binary_errors);
    add(
        n + "_.Tensor", [](SampleCtx& c) { return binary(c); }, binary_errors);
    add(
        n + ".out", [](SampleCtx& c) { return binary(c); }, binary_errors);
    add(n + ".Scalar", [](SampleCtx& c) { return binary_scalar(c); });
    add(n + "_.Scalar", [](SampleCtx& c) { return binary_scalar(c); });
  }
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    const std::string n(op);
    for (const std::string v : {".Tensor", "_.Tensor", ".Tensor_out"})
      add(
          n + v, [](SampleCtx& c) { return binary(c); }, binary_errors);
    for (const std::string v : {".Scalar", "_.Scalar", ".Scalar_out"})
      add(n + v, [](SampleCtx& c) { return binary_scalar(c); });
  }
  for (const char* op : {"logical_and", "logical_or", "logical_xor"}) {
    const std::string n(op);
    for (const std::string v : {"", "_", ".out"})
      add(
          n + v, [](SampleCtx& c) { return binary(c); }, binary_errors);
  }
  // Integer powers with non-negative exponents (PyTorch's integer pow of a negative exponent is 0).
  auto pow_tensor = [](SampleCtx& c) {
    const ScalarType dt = c.dtype();
    const bool inplace = c.schema().base_name() == "pow_";
    Samples r = {S({c.t({3, 4}), c.uniform({3, 4}, 0, 4, dt)}, "same shape"),
                 S({c.t({3, 4}), c.uniform({4}, 0, 3, kInt64)}, "int64 exponent [4]"),
                 S({c.t({2, 3, 4, 5}), c.uniform({3, 1, 1}, 0, 3, dt)}, "4-d"),
                 S({c.t({}), c.uniform({}, 0, 3, kFloat64)}, "0-d float64 exponent")};
    if (!inplace) r.push_back(S({c.t({3, 1}), c.uniform({1, 4}, 0, 3, dt)}, "broadcast both"));
    return c.schema().is_mutable() && !inplace ? add_out(c, r) : r;
  };
  add("pow.Tensor_Tensor", pow_tensor, binary_errors);
  add("pow.Tensor_Tensor_out", pow_tensor, binary_errors);
  add("pow_.Tensor", pow_tensor, binary_errors);
  auto pow_scalar = [](SampleCtx& c) {
    Samples r = {S({c.t({3, 4}), 2}, "square"), S({c.t({3, 4}), 0.5}, "0.5"), S({c.t({2, 3, 4, 5}), 3}, "4-d cube"),
                 S({c.t({}), -1}, "0-d, -1"), S({c.t({3, 4}), 0}, "0")};
    return c.schema().is_mutable() && c.schema().base_name() != "pow_" ? add_out(c, r) : r;
  };
  add("pow.Tensor_Scalar", pow_scalar);
  add("pow.Tensor_Scalar_out", pow_scalar);
  add("pow_.Scalar", pow_scalar);

  // ---- unary
  for (const char* op : {"neg", "abs", "sign", "exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
                         "erf", "silu", "logical_not"}) {
    const std::string n(op);
    for (const std::string v : {"", "_", ".out"}) add(n + v, [](SampleCtx& c) { return unary(c); });
  }
  add("relu", [](SampleCtx& c) { return unary(c); });
  add("relu_", [](SampleCtx& c) { return unary(c); });
  auto gelu = [](SampleCtx& c) {
    Samples r = unary(c);
    for (SampleInput& s : unary(c, {"tanh"})) {
      if (c.schema().arguments().back().is_out()) continue;
      s.desc += ", tanh";
      r.push_back(s);
    }
    return r;
  };
  auto gelu_errors = [](SampleCtx& c) -> Errors {
    return {E({c.t({3}), "exact"}, "an unknown approximation", "ValueError",
              "argument 'approximate' must be 'none' or 'tanh', got 'exact'")};
  };
  add("gelu", gelu, gelu_errors);
  add("gelu_", gelu, gelu_errors);
  add("gelu.out", gelu);

  // ---- copies and conversions
  add(
      "copy_",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), c.t({3, 4})}, "same shape"), S({c.t({3, 4}), c.t({4}, kFloat32)}, "broadcast float32"),
                S({c.t({2, 3, 4, 5}), c.t({2, 3, 4, 5}, kInt64)}, "4-d int64"), S({c.t({3, 4}), c.t({})}, "0-d src"),
                S({c.t({2, 3}), c.t({2, 3}, kBool)}, "bool src")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), c.t({4})}, "a src that does not broadcast", "ValueError",
                  "[copy_] shapes [2, 3] and [4] cannot be broadcast together: the size of tensor a (3) must match the "
                  "size of tensor b (4) at non-singleton dimension 1"),
                E({c.t({3}), c.t({2, 3})}, "a src of more dims", "ValueError",
                  "[copy_] output with shape [3] doesn't match the broadcast shape [2, 3]")};
      });
  add("_to_copy", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4})}, "same dtype"), S({c.t({2, 3, 4, 5}), kFloat64}, "4-d to float64"),
            S({c.t({3, 4}), kBool}, "to bool")};
  });
  add("to.dtype", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), kFloat64}, "to float64"), S({c.t({3, 4}), c.dtype()}, "same dtype: self"),
            S({c.t({2, 3, 4, 5}), c.dtype(), false, true}, "4-d, copy=true"), S({c.t({}), kInt32}, "0-d to int32")};
  });
  // The device argument is the backend's (run() in test_backend_ops.cpp).
  add("to.device", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), Device(kCPU), c.dtype()}, "same device: self"),
            S({c.t({3, 4}), Device(kCPU), kFloat64}, "float64"),
            S({c.t({2, 3, 4, 5}), Device(kCPU), c.dtype(), false, true}, "4-d, copy=true"),
            S({c.t({2, 3, 4, 5}), Device(kCPU), c.dtype(), false, false, IValue(MemoryFormat::ChannelsLast)},
              "4-d, channels-last")};
  });
  // To the cpu: a backend without data cannot.
  add("cpu", [](SampleCtx& c) -> Samples { return {D({c.t({3, 4})}, "[3, 4]")}; });
  add("clone", [](SampleCtx& c) -> Samples {
    Samples s = c.generic();
    s.push_back(S({c.t({2, 3, 4, 5}), IValue(MemoryFormat::ChannelsLast)}, "channels-last"));
    s.push_back(S({c.t({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast)}, "a channels-last input"));
    return s;
  });
  add("contiguous", [](SampleCtx& c) -> Samples {
    Samples s = c.generic();
    s.push_back(S({c.t({2, 3, 4, 5}), IValue(MemoryFormat::ChannelsLast)}, "channels-last"));
    s.push_back(S({c.t({2, 3, 4, 5, 2}), IValue(MemoryFormat::ChannelsLast3d)}, "channels-last 3-d"));
    return s;
  });

  // ---- values out of a tensor: the result is the data
  add(
      "item",
      [](SampleCtx& c) -> Samples {
        return {D({c.t({})}, "0-d"), D({c.t({1, 1})}, "one element")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2})}, "two elements", "ValueError",
                  "[item] a Tensor with 2 elements cannot be converted to Scalar")};
      });
  add("equal", [](SampleCtx& c) -> Samples {
    const Tensor x = c.t({3, 4});
    return {D({x, x.clone()}, "equal"), D({x, c.t({3, 4})}, "different"), D({x, c.t({4})}, "other shape"),
            D({x, x.to(kFloat64)}, "other dtype"), D({x, x.to(kBool)}, "bool other")};
  });
  add(
      "allclose",
      [](SampleCtx& c) -> Samples {
        const Tensor x = c.t({3, 4});
        return {D({x, x.clone()}, "equal"), D({x, c.t({3, 4})}, "different"),
                D({x, c.t({4}), 1e-3, 1e-3, true}, "broadcast, tolerances, equal_nan")};
      },
      // Argument errors come before the values are read, on a backend without data too.
      [](SampleCtx& c) -> Errors {
        const Tensor x = c.t({3, 4});
        return {E({x, c.t({3, 4}, kInt64)}, "other dtype", "TypeError", "[allclose] dtype float32 did not match int64"),
                E({x, x, -1.0}, "negative rtol", "ValueError", "[allclose] rtol must be greater than or equal to zero"),
                E({x, x, 1e-5, -1.0}, "negative atol", "ValueError", "[allclose] atol must be greater than or equal"),
                E({x, c.t({3})}, "shapes that do not broadcast", "ValueError", "cannot be broadcast")};
      });

  // ---- reductions
  auto dtype_arg = [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4})}, "[3, 4]"), S({c.t({2, 3, 4, 5})}, "4-d"), S({c.t({})}, "0-d"), S({c.t({0, 3})}, "empty"),
            S({c.t({3, 4}), kFloat64}, "dtype float64")};
  };
  add("sum", dtype_arg);
  add("mean", dtype_arg);
  add("prod", dtype_arg);
  add(
      "sum.dim_IntList",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 4}), ints({0, -1}), true}, "dims 0 and -1, keepdim"),
                S({c.t({2, 3, 4}), ints({1}), false, kFloat64}, "dim 1 to float64"),
                S({c.t({2, 3}), ints({}), false}, "no dims: all"),
                S({c.t({2, 3, 4, 5}), ints({1}), true}, "4-d, dim 1, keepdim"), S({c.t({0, 3}), ints({0})}, "empty")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), ints({0, 0})}, "a repeated dim", "ValueError",
                  "[sum] dim 0 appears multiple times in the list of dims"),
                E({c.t({2, 3}), ints({2})}, "a dim out of range", "IndexError",
                  "[sum] dimension out of range (expected to be in range of [-2, 1], but got 2)")};
      });
  add(
      "mean.dim",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 4}), ints({1}), true, kFloat32}, "dim 1 to float32, keepdim"),
                S({c.t({2, 3, 4}), ints({0, 2})}, "dims 0 and 2"),
                S({c.t({2, 3, 4, 5}), ints({-1}), true}, "4-d, last dim")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), ints({2})}, "a dim out of range", "IndexError",
                  "[mean] dimension out of range (expected to be in range of [-2, 1], but got 2)")};
      });
  add("prod.dim_int", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 4}), -1, true}, "last dim, keepdim"), S({c.t({2, 3, 4}), 0}, "dim 0"),
            S({c.t({2, 3}), 1, false, kFloat64}, "to float64")};
  });
  for (const char* op : {"amax", "amin"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {S({c.t({2, 3, 4}), ints({0, 2})}, "dims 0 and 2"), S({c.t({2, 3, 4}), ints({1}), true}, "keepdim"),
                  S({c.t({3, 4})}, "all dims"), S({c.t({2, 3, 4, 5}), ints({1})}, "4-d")};
        },
        [](SampleCtx& c) -> Errors {
          return {E({c.t({2, 0}), ints({1})}, "an empty reduction", "IndexError",
                    "cannot reduce over a zero-size dimension: expected reduction dim 1 to have non-zero size")};
        });
  }
  for (const char* op : {"max", "min"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {S({c.distinct({3, 4})}, "[3, 4]"), S({c.t({})}, "0-d")};
        },
        [](SampleCtx& c) -> Errors {
          return {E({c.t({0, 3})}, "empty", "IndexError",
                    "cannot reduce over a zero-size dimension: expected reduction dim to be specified for "
                    "input.numel() == 0")};
        });
    add(std::string(op) + ".dim", [](SampleCtx& c) -> Samples {
      return {S({c.distinct({2, 3, 4}), 1, true}, "dim 1, keepdim"), S({c.distinct({2, 3, 4}), -1}, "last dim"),
              S({c.distinct({2, 3, 4, 5}), 1}, "4-d")};
    });
  }
  for (const char* op : {"argmax", "argmin"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {S({c.distinct({3, 4})}, "all"), S({c.distinct({3, 4}), 1, true}, "dim 1, keepdim"),
                  S({c.distinct({3, 4}), 0}, "dim 0"), S({c.distinct({2, 3, 4, 5}), 1}, "4-d")};
        },
        [](SampleCtx& c) -> Errors {
          return {E({c.t({2, 3}), 2}, "a dim out of range", "IndexError",
                    "dimension out of range (expected to be in range of [-2, 1], but got 2)")};
        });
  }
  for (const char* op : {"any", "all"}) {
    add(op, [](SampleCtx& c) -> Samples {
      return {S({c.t({3, 4})}, "[3, 4]"), S({c.t({2, 3, 4, 5})}, "4-d"), S({c.t({0})}, "empty")};
    });
    add(std::string(op) + ".dim", [](SampleCtx& c) -> Samples {
      return {S({c.t({3, 4}), 1, true}, "dim 1, keepdim"), S({c.t({3, 4}), -2}, "dim -2"),
              S({c.t({2, 3, 4, 5}), 1}, "4-d")};
    });
  }
  add("logsumexp", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 4}), ints({1, 2})}, "dims 1 and 2"), S({c.t({2, 3}), ints({0}), true}, "dim 0, keepdim")};
  });
  for (const char* op : {"var", "std"}) {
    const std::string n(op);
    add(n, [](SampleCtx& c) -> Samples {
      return {S({c.t({3, 4})}, "unbiased"), S({c.t({3, 4}), false}, "biased"), S({c.t({2, 3, 4, 5})}, "4-d")};
    });
    add(n + ".dim", [](SampleCtx& c) -> Samples {
      return {S({c.t({2, 3, 4}), ints({0, 2}), true, true}, "dims 0 and 2, keepdim"),
              S({c.t({2, 3}), kNone, false}, "all dims, biased"), S({c.t({2, 3}), ints({1})}, "dim 1")};
    });
    add(n + ".correction", [](SampleCtx& c) -> Samples {
      return {S({c.t({2, 3, 4}), ints({1}), 0, true}, "dim 1, correction 0, keepdim"),
              S({c.t({2, 3}), kNone, 2}, "all dims, correction 2"),
              S({c.t({2, 3}), ints({0, 0}), 1}, "a repeated dim")};
    });
    add(n + "_mean.correction", [](SampleCtx& c) -> Samples {
      return {S({c.t({2, 3}), ints({0}), 1}, "dim 0"),
              S({c.t({2, 3, 4}), ints({0, 2}), kNone, true}, "dims 0 and 2, keepdim")};
    });
  }
  add(
      "norm.Scalar",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3})}, "2-norm"), S({c.t({2, 3}), 1}, "1-norm"), S({c.t({2, 3, 4}), 3}, "3-norm"),
                S({c.t({2, 3}), kInf}, "inf-norm")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), std::complex<double>(1, 1)}, "a complex p", "TypeError",
                  "[norm] argument 'p': expected a real number, got a complex one")};
      });
  add("norm.ScalarOpt_dim", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 4}), 3, ints({0, 2}), true}, "3-norm over dims 0 and 2, keepdim"),
            S({c.t({2, 3}), kNone, ints({-1})}, "p None"), S({c.t({2, 0}), kInf, ints({1})}, "empty, inf-norm"),
            S({c.t({2, 0}), 2, ints({1})}, "empty, 2-norm")};
  });
  add("linalg_vector_norm", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), 2, ints({1}), false, kFloat64}, "2-norm to float64"),
            S({c.t({2, 3}), 0, kNone, true}, "0-norm, keepdim"),
            S({c.t({2, 3}), -kInf, kNone, false, kInt32}, "-inf-norm to int32")};
  });
  for (const char* op : {"cumsum", "cumprod"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {S({c.t({2, 3}), 1}, "dim 1"), S({c.t({2, 3}), -2, kFloat64}, "dim -2 to float64"),
                  S({c.t({}), 0}, "0-d"), S({c.t({2, 3, 4, 5}), 1}, "4-d")};
        },
        [](SampleCtx& c) -> Errors {
          return {E({c.t({2, 3}), 2}, "a dim out of range", "IndexError",
                    "dimension out of range (expected to be in range of [-2, 1], but got 2)")};
        });
  }
  for (const char* op : {"softmax.int", "log_softmax.int"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {S({c.t({2, 3}), 1}, "dim 1"), S({c.t({2, 3}), 0, kFloat64}, "dim 0 to float64"),
                  S({c.t({2, 3, 4, 5}), 1}, "4-d, dim 1"), S({c.t({}), 0}, "0-d")};
        },
        [](SampleCtx& c) -> Errors {
          return {E({c.t({2, 3}), 2}, "a dim out of range", "IndexError",
                    "dimension out of range (expected to be in range of [-2, 1], but got 2)")};
        });
  }
  // Their out= variants: out is resized (empty, or of the wrong size), or must have the dtype.
  add("sum.IntList_out", [](SampleCtx& c) -> Samples {
    return {
        S(c.with_out({c.t({2, 3, 4}), ints({1})}, {c.t({0})}), "dim 1, empty out"),
        S(c.with_out({c.t({2, 3}), ints({}), false, kFloat64}, {c.t({2, 3}, kFloat64)}), "all, out of another size"),
        S(c.with_out({c.t({2, 3}), ints({0}), false, kFloat32}, {c.t({0}, kInt64)}), "dtype float32, out int64")};
  });
  add("mean.out", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.t({2, 3}), ints({0}), true}, {c.t({0})}), "dim 0, keepdim"),
            S(c.with_out({c.t({2, 3}), ints({1})}, {c.t({2}, kFloat64)}), "out float64")};
  });
  add("prod.int_out", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.t({2, 3}), 1}, {c.t({5})}), "out of another size"),
            S(c.with_out({c.t({2, 3}), 0, true}, {c.t({0})}), "keepdim")};
  });
  for (const char* op : {"cumsum.out", "cumprod.out"}) {
    add(op, [](SampleCtx& c) -> Samples {
      return {S(c.with_out({c.t({2, 3}), 1}, {c.t({2, 3})}), "out of the right size"),
              S(c.with_out({c.t({2, 3}), 0}, {c.t({0})}), "empty out"),
              S(c.with_out({c.t({2, 3}), 1, kFloat32}, {c.t({2, 3}, kFloat64)}), "dtype float32, out float64")};
    });
  }
  add(
      "amax.out",
      [](SampleCtx& c) -> Samples {
        return {S(c.with_out({c.t({2, 3}), ints({1}), true}, {c.t({0})}), "dim 1, keepdim"),
                S(c.with_out({c.t({2, 3})}, {c.t({3}, kFloat64)}), "all, out float64")};
      },
      [](SampleCtx& c) -> Errors {
        return {E(c.with_out({c.t({2, 0}), ints({1})}, {c.t({0})}), "an empty reduction", "IndexError",
                  "[amax] cannot reduce over a zero-size dimension: expected reduction dim 1 to have non-zero size")};
      });
  add("amin.out", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.t({2, 3})}, {c.t({})}), "all, 0-d out"),
            S(c.with_out({c.t({2, 3}), ints({0})}, {c.t({0})}), "dim 0")};
  });
  add("max.dim_max", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.distinct({2, 3}), 1}, {c.t({0}), c.t({0}, kInt64)}), "dim 1"),
            S(c.with_out({c.distinct({2, 3}), 0, true}, {c.t({0}), c.t({3}, kInt32)}), "indices int32")};
  });
  add("min.dim_min", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.distinct({2, 3}), 0, true}, {c.t({0}), c.t({0}, kInt64)}), "dim 0, keepdim"),
            S(c.with_out({c.distinct({2, 3}), 1}, {c.t({2}, kFloat64), c.t({2}, kInt64)}), "values float64")};
  });
  for (const char* op : {"argmax.out", "argmin.out"}) {
    add(op, [](SampleCtx& c) -> Samples {
      return {S(c.with_out({c.distinct({2, 3}), 1}, {c.t({0}, kInt64)}), "dim 1"),
              S(c.with_out({c.distinct({2, 3})}, {c.t({0}, kFloat32)}), "out float32"),
              S(c.with_out({c.distinct({2, 3}), 2}, {c.t({0}, kInt64)}), "a dim out of range")};
    });
  }
  add("logsumexp.out", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.t({2, 3}), ints({1})}, {c.t({0})}), "dim 1"),
            S(c.with_out({c.t({2, 3}), ints({0, 1}), true}, {c.t({0}, kFloat64)}), "out float64")};
  });

  // ---- views (their results share self's storage: compared as aliasing)
  add(
      "view",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), ints({4, 3})}, "[4, 3]"), S({c.t({3, 4}), ints({-1})}, "flat"),
                S({c.t({2, 3, 4, 5}), ints({6, -1})}, "4-d to [6, 20]"), S({c.t({}), ints({1, 1})}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), ints({5, -1})}, "a size that does not divide", "ValueError",
                  "[view] shape '[5, -1]' is invalid for input of size 12"),
                E({c.t({4, 3}).t(), ints({12})}, "a transposed tensor flattened", "ValueError",
                  "[view] view size is not compatible with input tensor's size and stride (at least one dimension "
                  "spans across two contiguous subspaces). Use .reshape(...) instead.")};
      });
  add(
      "reshape",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), ints({4, 3})}, "[4, 3]"), S({c.t({3, 4}), ints({-1})}, "flat"),
                S({c.t({2, 3, 4, 5}), ints({6, -1})}, "4-d to [6, 20]")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), ints({5, 5})}, "another numel", "ValueError",
                  "[reshape] shape '[5, 5]' is invalid for input of size 12")};
      });
  add(
      "select.int",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), 0, 1}, "dim 0"), S({c.t({3, 4}), 1, -1}, "dim 1, index -1"),
                S({c.t({2, 3, 4, 5}), 1, 2}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 2, 0}, "a dim out of range", "IndexError",
                  "[select] dimension out of range (expected to be in range of [-2, 1], but got 2)"),
                E({c.t({3, 4}), 0, 3}, "an index out of range", "IndexError",
                  "[select] index 3 out of range for tensor of size [3, 4] at dimension 0")};
      });
  add(
      "slice.Tensor",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), 1, 1, kNone, 2}, "dim 1 from 1, step 2"), S({c.t({3, 4}), 0, -2}, "dim 0 from -2"),
                S({c.t({3, 4}), 0, 5, 9}, "past the end"), S({c.t({2, 3, 4, 5}), 3, 1, 4}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 0, 0, 2, 0}, "step 0", "ValueError", "[slice] slice step must be positive, got 0")};
      });
  add(
      "transpose.int",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 4}), 0, 2}, "dims 0 and 2"), S({c.t({3, 4}), -1, 0}, "dims -1 and 0"),
                S({c.t({}), 0, -1}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 0, 3}, "a dim out of range", "IndexError",
                  "[transpose] dimension out of range (expected to be in range of [-2, 1], but got 3)")};
      });
  add(
      "t",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4})}, "2-d"), S({c.t({4})}, "1-d"), S({c.t({})}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {
            E({c.t({2, 3, 4})}, "3-d", "ValueError", "[t] t() expects a tensor with <= 2 dimensions, but self is 3D")};
      });
  auto swap = [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 4}), 0, 2}, "dims 0 and 2"), S({c.t({3, 4}), -1, 0}, "dims -1 and 0")};
  };
  add("swapaxes", swap);
  add("swapdims", swap);
  add("numpy_T", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 4})}, "3-d"), S({c.t({4})}, "1-d"), S({c.t({})}, "0-d")};
  });
  add(
      "matrix_H",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4})}, "2-d"), S({c.t({})}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3, 4})}, "3-d", "ValueError",
                  "[matrix_H] tensor.H is only supported on matrices (2-D tensors), got a 3-D tensor; for batches of "
                  "matrices, use tensor.mH")};
      });
  for (const char* op : {"mT", "mH", "adjoint"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {S({c.t({2, 3, 4})}, "3-d"), S({c.t({3, 4})}, "2-d")};
        },
        [](SampleCtx& c) -> Errors {
          const std::string name(c.schema().base_name());
          const std::string what = name == "adjoint" ? "tensor.adjoint()" : "tensor." + name;
          return {
              E({c.t({4})}, "1-d", "ValueError",
                "[" + name + "] " + what + " is only supported on matrices or batches of matrices, got a 1-D tensor")};
        });
  }
  add(
      "unsqueeze",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), 0}, "dim 0"), S({c.t({3, 4}), -1}, "dim -1"), S({c.t({}), 0}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 3}, "a dim out of range", "IndexError",
                  "[unsqueeze] dimension out of range (expected to be in range of [-3, 2], but got 3)")};
      });
  add(
      "expand",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 1}), ints({3, 4})}, "[3, 1] to [3, 4]"), S({c.t({4}), ints({2, 3, 4})}, "new dims"),
                S({c.t({3, 1}), ints({-1, 4})}, "-1 keeps a size")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), ints({2, 4})}, "a non-singleton dim", "ValueError",
                  "[expand] the expanded size of the tensor (2) must match the existing size (3) at non-singleton "
                  "dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 4]"),
                E({c.t({3, 4}), ints({4})}, "fewer dims", "ValueError",
                  "[expand] expand(float32 tensor of size [3, 4], size=[4]): the number of sizes provided (1) must be "
                  "greater or equal to the number of dimensions in the tensor (2)")};
      });
  add(
      "as_strided",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), ints({2, 2}), ints({1, 2})}, "column-major"),
                S({c.t({3, 4}), ints({2, 2}), ints({4, 1}), 1}, "offset 1"),
                S({c.t({3, 4}), ints({3}), ints({0})}, "stride 0")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), ints({-1}), ints({1})}, "a negative size", "ValueError",
                  "[as_strided] negative size -1 in [-1]")};
      });
  add(
      "flatten.using_ints",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 4})}, "all"), S({c.t({2, 3, 4}), 1}, "from 1"), S({c.t({2, 3, 4}), 0, 1}, "0 to 1"),
                S({c.t({})}, "0-d"), S({c.t({2, 3, 4, 5}), 1, 2}, "4-d, 1 to 2")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3, 4}), 2, 1}, "start after end", "ValueError",
                  "[flatten] flatten() has invalid args: start_dim cannot come after end_dim")};
      });
  add(
      "permute",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 4}), ints({2, 0, 1})}, "3-d"), S({c.t({3, 4}), ints({1, 0})}, "2-d"),
                S({c.t({2, 3, 4, 5}), ints({0, 2, 3, 1})}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), ints({0, 0})}, "a repeated dim", "ValueError",
                  "[permute] dim 0 appears multiple times in the list of dims"),
                E({c.t({3, 4}), ints({0})}, "too few dims", "ValueError",
                  "[permute] number of dimensions in the tensor input does not match the length of the desired "
                  "ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1")};
      });
  add("squeeze", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 1, 4})}, "[3, 1, 4]"), S({c.t({1})}, "[1]"), S({c.t({})}, "0-d")};
  });
  add(
      "squeeze.dim",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 1, 4}), 1}, "size 1"), S({c.t({3, 1, 4}), 0}, "size 3: unchanged"), S({c.t({}), 0}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 2}, "a dim out of range", "IndexError",
                  "[squeeze] dimension out of range (expected to be in range of [-2, 1], but got 2)")};
      });
  add(
      "narrow",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), 1, 1, 2}, "dim 1"), S({c.t({3, 4}), 0, -2, 1}, "negative start")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 1, 3, 2}, "past the end", "IndexError",
                  "[narrow] start (3) + length (2) exceeds dimension size (4)."),
                E({c.t({3, 4}), 1, 0, -1}, "a negative length", "ValueError",
                  "[narrow] length must be non-negative, got -1")};
      });
  add(
      "diagonal",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4})}, "main"), S({c.t({3, 4}), 1}, "offset 1"), S({c.t({3, 4}), -5}, "offset past the end"),
                S({c.t({2, 3, 4}), -1, 1, 2}, "dims 1 and 2")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 0, 0, 0}, "one dim twice", "ValueError",
                  "[diagonal] diagonal dimensions cannot be identical 0, 0")};
      });
  add(
      "unfold",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 8}), 1, 3, 2}, "size 3 step 2"), S({c.t({5}), 0, 2, 1}, "1-d"),
                S({c.t({}), 0, 1, 1}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 1, 5, 1}, "a size past the dim", "ValueError",
                  "[unfold] maximum size for tensor at dimension 1 is 4 but size is 5")};
      });
  add(
      "narrow.Tensor",
      [](SampleCtx& c) -> Samples {
        // The view's offset is start's value: meta has none (reads_data).
        return {D({c.t({3, 4}), 1, ember::full({}, 1, kInt64), 2}, "dim 1"),
                D({c.t({3, 4}), 0, ember::full({}, -2, kInt32), 1}, "a negative int32 start")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 1, ember::full({1}, 1, kInt64), 2}, "a 1-d start", "ValueError",
                  "[narrow] expected argument 'start' to be a 0-dim integral tensor, got a 1-D int64 tensor")};
      });
  add("split.sizes", [](SampleCtx& c) -> Samples {
    return {S({c.t({5, 4}), ints({2, 3})}, "sizes 2, 3"), S({c.t({3, 4}), ints({1, 0, 3}), 1}, "dim 1, a 0 size")};
  });
  for (const char* op : {"max.other", "min.other"})
    add(op, [](SampleCtx& c) -> Samples {
      return {S({c.t({3, 4}), c.t({4})}, "broadcast"), S({c.t({2, 3}), c.t({2, 3}, kFloat64)}, "float64 other")};
    });
  add(
      "split.Tensor",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({5, 4}), 2}, "uneven"), S({c.t({3, 4}), 3, 1}, "dim 1"), S({c.t({3, 4}), 0, 1}, "size 0")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), -1}, "a negative size", "ValueError",
                  "[split] expects split_size be non-negative, but got split_size=-1")};
      });
  add(
      "chunk",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({5, 4}), 2}, "uneven"), S({c.t({3, 4}), 3, 1}, "dim 1"),
                S({c.t({3, 4}), 6}, "more chunks than rows")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 0}, "0 chunks", "ValueError", "[chunk] expects `chunks` to be greater than 0, got: 0")};
      });

  // ---- joins and copies of a new shape
  add(
      "cat",
      [](SampleCtx& c) -> Samples {
        return {S({tensors({c.t({2, 3}), c.t({4, 3}, kInt64)}), 0}, "dim 0, promoted"),
                S({tensors({c.t({2, 3}), c.t({2, 2})}), 1}, "dim 1"),
                S({tensors({c.t({2, 3}), c.t({0})}), -1}, "a legacy empty 1-d"),
                S({tensors({c.t({0}), c.t({0}, kInt32)})}, "all empty"),
                S({tensors({c.t({2, 3, 4, 5}), c.t({2, 1, 4, 5})}), 1}, "4-d, dim 1")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({tensors({c.t({2, 3}), c.t({2, 4})}), 0}, "sizes that differ off the dim", "ValueError",
                  "[cat] Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor "
                  "number 1 in the list (shapes [2, 3] and [2, 4])"),
                E({tensors({c.t({2, 3}), c.t({3})}), 0}, "dims that differ", "ValueError",
                  "[cat] Tensors must have same number of dimensions: got 2 and 1 (tensor number 0 in the list has "
                  "shape [2, 3], tensor number 1 has shape [3])"),
                E({tensors({})}, "no tensors: no backend to choose", "NotImplementedError",
                  "[aten::cat] no kernel for dispatch key Undefined")};
      });
  add(
      "stack",
      [](SampleCtx& c) -> Samples {
        return {S({tensors({c.t({2, 3}), c.t({2, 3})}), 1}, "dim 1"),
                S({tensors({c.t({3}), c.t({3}), c.t({3})})}, "three")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({tensors({c.t({2, 3}), c.t({3, 2})})}, "shapes that differ", "ValueError",
                  "[stack] expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1")};
      });
  add(
      "repeat",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3}), ints({2, 1})}, "[2, 1]"), S({c.t({3}), ints({2, 2})}, "new dims"),
                S({c.t({2, 3}), ints({0, 2})}, "0 repeats")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), ints({2})}, "fewer repeats than dims", "ValueError",
                  "[repeat] Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor "
                  "(repeats [2] for a tensor of shape [2, 3])")};
      });
  add(
      "flip",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3}), ints({0, -1})}, "both dims"), S({c.t({2, 3}), ints({})}, "no dims"),
                S({c.t({2, 3, 4, 5}), ints({1})}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), ints({1, 1})}, "a repeated dim", "ValueError",
                  "[flip] dim 1 appears multiple times in the list of dims")};
      });

  // ---- matrix products
  add(
      "mm",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3}), c.t({3, 4})}, "[2, 3] x [3, 4]"), S({c.t({0, 3}), c.t({3, 4})}, "empty")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), c.t({4, 4})}, "inner sizes that differ", "ValueError",
                  "[mm] self and mat2 shapes cannot be multiplied ([2, 3] and [4, 4])"),
                E({c.t({2, 3}), c.t({3})}, "a 1-d operand", "ValueError",
                  "[mm] expected self and mat2 to be 2-D, but got shapes [2, 3] and [3]")};
      });
  add("mm.out", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.t({2, 3}), c.t({3, 4})}, {c.t({0})}), "empty out"),
            S(c.with_out({c.t({2, 3}), c.t({3, 5})}, {c.t({2, 5}, kFloat64)}), "out float64")};
  });
  add(
      "bmm",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 2, 3}), c.t({2, 3, 4})}, "batch 2")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 2, 3}), c.t({3, 3, 4})}, "batches that differ", "ValueError",
                  "[bmm] batch sizes differ: shapes [2, 2, 3] and [3, 3, 4]")};
      });
  add(
      "addmm",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({4}), c.t({2, 3}), c.t({3, 4})}, "bias [4]"),
                S({c.t({2, 1}), c.t({2, 3}), c.t({3, 4}), 0, 2}, "beta 0, alpha 2")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3}), c.t({2, 3}), c.t({3, 4})}, "a bias that does not broadcast", "ValueError",
                  "[addmm] shapes [3] and [2, 4] cannot be broadcast together: the size of tensor a (3) must match the "
                  "size of tensor b (4) at non-singleton dimension 1")};
      });
  add(
      "matmul",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3}), c.t({3})}, "dot"),
                S({c.t({2, 3}), c.t({3})}, "matrix-vector"),
                S({c.t({3}), c.t({3, 4})}, "vector-matrix"),
                S({c.t({2, 3}), c.t({3, 4})}, "matrix-matrix"),
                S({c.t({2, 2, 3}), c.t({3, 4})}, "batched"),
                S({c.t({2, 1, 2, 3}), c.t({3, 3, 4})}, "broadcast batches")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), c.t({4})}, "sizes that differ", "ValueError",
                  "[matmul] shapes cannot be multiplied ([2, 3] and [4])")};
      });

  // ---- linear algebra (LAPACK): well-conditioned or positive-definite inputs, so that no
  // factorization fails on the CPU where meta (no values) cannot tell; batched, empty batches, 0x0.
  // A single matrix is not expanded (W): its rows repeated make it singular.
  add(
      "_linalg_check_errors",
      [](SampleCtx&) -> Samples {
        return {S({ember::zeros({2}, kInt32), std::string("linalg.inv"), false}, "all zero")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2}), std::string("linalg.inv"), false}, "float info", "TypeError",
                  "[_linalg_check_errors] expected info of dtype int32, got float32")};
      });
  for (const char* op : {"linalg_inv_ex", "linalg_inv", "inverse"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {W({well_conditioned(c, {3, 3})}, "3x3"), S({well_conditioned(c, {2, 4, 4})}, "batch 2"),
                  S({c.t({0, 3, 3})}, "empty batch"), S({c.t({0, 0})}, "0x0")};
        },
        square_errors("linalg.inv"));
  }
  // A singular matrix only where it is reported in info, not raised; seventh, past the samples the
  // autograd test differentiates (the inverse has no derivative there).
  db.at("aten::linalg_inv_ex").samples = [](SampleCtx& c) -> Samples {
    return {W({well_conditioned(c, {3, 3})}, "3x3"),
            S({well_conditioned(c, {2, 4, 4})}, "batch 2"),
            S({c.t({0, 3, 3})}, "empty batch"),
            S({c.t({0, 0})}, "0x0"),
            S({well_conditioned(c, {1, 1})}, "1x1"),
            S({well_conditioned(c, {2, 1, 2, 2})}, "batch [2, 1]"),
            S({ember::zeros({2, 2}, c.dtype())}, "singular: info 1")};
  };
  for (const char* op : {"linalg_solve_ex", "linalg_solve"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {W({well_conditioned(c, {3, 3}), c.t({3, 2})}, "matrix B"),
                  S({well_conditioned(c, {2, 3, 3}), c.t({2, 3})}, "batched vector B"),
                  S({well_conditioned(c, {2, 3, 3}), c.t({3})}, "1-d B broadcast"),
                  W({well_conditioned(c, {3, 3}), c.t({2, 1, 3, 4})}, "B with more batch dims"),
                  S({well_conditioned(c, {2, 3, 3}), c.t({4, 3}), false}, "XA = B"),
                  S({c.t({0, 0}), c.t({0, 2})}, "0x0")};
        },
        [](SampleCtx& c) -> Errors {
          return {E({c.t({3, 3}), c.t({4})}, "sizes that differ", "ValueError",
                    "[linalg.solve] Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"),
                  E({c.t({3, 3}), c.t({3}, kFloat64)}, "dtypes that differ", "TypeError",
                    "[linalg.solve] Expected A and B to have the same dtype, but found A of type Float and B of type "
                    "Double instead"),
                  E({c.t({3, 4}), c.t({3, 2})}, "non-square A", "ValueError",
                    "[linalg.solve] A must be batches of square matrices, but they are 3 by 4 matrices"),
                  E({c.t({3, 3}, kInt64), c.t({3}, kInt64)}, "int64", "TypeError",
                    "[linalg.solve] Expected a floating point or complex tensor as input. Got Long"),
                  E({c.t({2, 1, 1}), c.t({2, 1}), false}, "a vector B with left=false", "ValueError",
                    "[linalg.solve] Vector broadcasting of the left hand side is not supported for left=False")};
        });
  }
  add(
      "linalg_cholesky_ex",
      [](SampleCtx& c) -> Samples {
        return {
            W({spd(c, {3, 3})}, "3x3"), S({spd(c, {2, 4, 4}), true}, "batch 2, upper"),
            S({c.t({0, 3, 3})}, "empty batch"), S({c.t({0, 0})}, "0x0"),
            S({ember::eye(3, TensorOptions().dtype(kFloat64)).neg().to(c.dtype())}, "not positive-definite: info 1")};
      },
      square_errors("linalg.cholesky"));
  add(
      "linalg_cholesky",
      [](SampleCtx& c) -> Samples {
        return {W({spd(c, {3, 3})}, "3x3"), S({spd(c, {2, 4, 4}), true}, "batch 2, upper"), S({c.t({0, 0})}, "0x0")};
      },
      square_errors("linalg.cholesky"));
  add(
      "cholesky",
      [](SampleCtx& c) -> Samples {
        return {W({spd(c, {3, 3})}, "3x3"), S({spd(c, {2, 4, 4}), true}, "batch 2, upper")};
      },
      square_errors("cholesky"));
  add(
      "linalg_qr",
      // The modes without a derivative (complete with m > n, 'r') last, past the six samples the
      // autograd test differentiates.
      [](SampleCtx& c) -> Samples {
        return {S({c.t({4, 3})}, "tall"),
                S({c.t({3, 5})}, "wide"),
                S({c.t({2, 3, 4}), std::string("complete")}, "complete, wide"),
                S({c.t({2, 5, 3})}, "batched tall"),
                S({c.t({3, 3})}, "square"),
                S({c.t({0, 3})}, "no rows"),
                S({c.t({2, 4, 3}), std::string("complete")}, "complete, tall"),
                S({c.t({4, 3}), std::string("r")}, "r"),
                S({c.t({3, 0}), std::string("complete")}, "no columns, complete")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 3}), std::string("bad")}, "an unknown mode", "ValueError",
                  "[linalg.qr] qr received unrecognized mode 'bad' but expected one of 'reduced' (default), 'r', or "
                  "'complete'"),
                E({c.t({3})}, "1-d", "ValueError", "[linalg.qr] The input tensor A must have at least 2 dimensions."),
                E({c.t({3, 3}, kInt64)}, "int64", "TypeError",
                  "[linalg.qr] Expected a floating point or complex tensor as input. Got Long")};
      });
  auto svd_errors = [](SampleCtx& c) -> Errors {
    return {E({c.t({3})}, "1-d", "ValueError", "[linalg.svd] The input tensor A must have at least 2 dimensions."),
            E({c.t({3, 3}, kInt64)}, "int64", "TypeError",
              "[linalg.svd] Expected a floating point or complex tensor as input. Got Long")};
  };
  add(
      "_linalg_svd",
      [](SampleCtx& c) -> Samples {
        // Values only (no derivative) last, past the six samples the autograd test differentiates.
        return {S({c.t({4, 3})}, "tall, reduced"),
                S({c.t({3, 5}), true}, "wide, full"),
                S({c.t({0, 3}), true}, "no rows, full"),
                S({c.t({0, 2, 3})}, "empty batch"),
                S({c.t({3, 3})}, "square"),
                S({c.t({2, 4, 3})}, "batched tall"),
                S({c.t({2, 3, 3}), false, false}, "values only")};
      },
      svd_errors);
  add(
      "linalg_svd",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({4, 3})}, "tall, full"), S({c.t({2, 3, 5}), false}, "wide, reduced"),
                S({c.t({3, 0})}, "no columns")};
      },
      svd_errors);
  add(
      "linalg_svdvals",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({4, 3})}, "tall"), S({c.t({2, 3, 5})}, "batched wide")};
      },
      svd_errors);
  add(
      "svd",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({4, 3})}, "some"), S({c.t({2, 3, 5}), false}, "all"),
                S({c.t({4, 3}), true, false}, "no U, V: zeros")};
      },
      svd_errors);
  for (const char* op : {"_linalg_eigh", "linalg_eigh", "linalg_eigvalsh"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {W({spd(c, {3, 3})}, "3x3"), S({spd(c, {2, 4, 4}), std::string("U")}, "batch 2, upper"),
                  S({c.t({3, 3})}, "non-symmetric: the lower triangle"), S({c.t({0, 0})}, "0x0")};
        },
        [](SampleCtx& c) -> Errors {
          Errors e = square_errors("linalg.eigh")(c);
          e.push_back(E({c.t({3, 3}), std::string("X")}, "an unknown UPLO", "ValueError",
                        "[linalg.eigh] Expected UPLO argument to be 'L' or 'U', but got X"));
          return e;
        });
  }
  add(
      "linalg_lu_factor_ex",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 3})}, "3x3"), S({c.t({2, 3, 4})}, "wide"), S({c.t({4, 2})}, "tall"),
                S({ember::zeros({2, 2}, c.dtype())}, "singular: info 1"), S({c.t({0, 3, 3})}, "empty batch")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 3}), false}, "no pivoting", "NotImplementedError",
                  "[linalg.lu_factor_ex] LU without pivoting is not implemented on the CPU"),
                E({c.t({3})}, "1-d", "ValueError",
                  "[linalg.lu_factor_ex] The input tensor A must have at least 2 dimensions.")};
      });
  for (auto [op, api] : {std::pair{"_linalg_det", "linalg.det"}, std::pair{"linalg_det", "linalg.det"},
                         std::pair{"det", "linalg.det"}, std::pair{"_linalg_slogdet", "linalg.slogdet"},
                         std::pair{"linalg_slogdet", "linalg.slogdet"}, std::pair{"slogdet", "linalg.slogdet"}}) {
    add(
        op,
        // The singular matrix seventh: its derivative goes through an SVD with repeated singular
        // values, whose own derivative (double backward) is infinite.
        [](SampleCtx& c) -> Samples {
          return {S({c.t({3, 3})}, "3x3"),
                  S({c.t({2, 4, 4})}, "batch 2"),
                  S({c.t({0, 3, 3})}, "empty batch"),
                  S({c.t({0, 0})}, "0x0"),
                  S({c.t({1, 1})}, "1x1"),
                  S({c.t({2, 1, 2, 2})}, "batch [2, 1]"),
                  S({ember::zeros({2, 2}, c.dtype())}, "singular")};
        },
        square_errors(api));
  }
  add(
      "logdet",
      // Positive determinants first (the log's domain); a negative one (NaN) and a singular one
      // (-inf) past the six samples the autograd test differentiates.
      [](SampleCtx& c) -> Samples {
        return {S({spd(c, {3, 3})}, "3x3"),
                S({spd(c, {2, 4, 4})}, "batch 2"),
                S({c.t({0, 3, 3})}, "empty batch"),
                S({c.t({0, 0})}, "0x0"),
                S({spd(c, {1, 1})}, "1x1"),
                S({spd(c, {2, 1, 2, 2})}, "batch [2, 1]"),
                S({spd(c, {3, 3}, -1)}, "negative determinant"),
                S({ember::zeros({2, 2}, c.dtype())}, "singular")};
      },
      square_errors("logdet"));

  // ---- random fills: the values are the generator's (Values::Random)
  add(
      "uniform_",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3}), -1, 1}, "[-1, 1)"), S({c.t({2, 3, 4, 5})}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), 1, 0}, "from above to", "ValueError",
                  "[uniform_] expects to return a [from, to) range, but found from=1 > to=0")};
      },
      Values::Random);
  add(
      "normal_",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3}), 0, 2}, "std 2"), S({c.t({2, 3, 4, 5})}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {
            E({c.t({2, 3}), 0, -1}, "a negative std", "ValueError", "[normal_] expects std >= 0.0, but found std -1")};
      },
      Values::Random);
  add(
      "random_.from",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3}), 0, 5}, "[0, 5)"), S({c.t({2, 3}), 0, kNone}, "to None")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3}), 5, 1}, "from above to", "ValueError",
                  "[random_] expects 'from' to be less than 'to', but got from=5 >= to=1"),
                E({c.t({2, 3}, kUInt8), -300, kNone}, "from below the dtype's range", "ValueError",
                  "[random_] from=-300 is out of bounds for uint8")};
      },
      Values::Random);
  add(
      "bernoulli_.float",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3}), 0.5}, "p 0.5"), S({c.t({2, 3, 4, 5}), 1.0}, "4-d, p 1")};
      },
      [](SampleCtx& c) -> Errors {
        return {
            E({c.t({2, 3}), 1.5}, "p above 1", "ValueError", "[bernoulli_] expects p to be in [0, 1], but got p=1.5")};
      },
      Values::Random);

  // ---- pointwise with several operands
  auto clamp = [](SampleCtx& c) {
    Samples r = {S({c.t({3, 4}), 0, 1.5}, "min 0, max 1.5"), S({c.t({3, 4}), -1}, "min only"),
                 S({c.t({2, 3, 4, 5}), kNone, 2}, "4-d, max only"), S({c.t({3, 4}), 2, -1}, "min above max"),
                 S({c.t({}), 0, 1}, "0-d")};
    return c.schema().arguments().back().is_out() ? add_out(c, r) : r;
  };
  auto clamp_errors = [](SampleCtx& c) -> Errors {
    return {E(maybe_out(c, {c.t({3, 4}), kNone, kNone}), "neither min nor max", "ValueError",
              "at least one of 'min' or 'max' must not be None")};
  };
  add("clamp", clamp, clamp_errors);
  add("clamp_", clamp, clamp_errors);
  add("clamp.out", clamp, clamp_errors);
  auto where = [](SampleCtx& c) {
    Samples r = {S({c.mask({3, 4}), c.t({3, 4}), c.t({4}, kFloat64)}, "other float64 [4]"),
                 S({c.mask({4}), c.t({3, 4}), c.t({})}, "0-d other"),
                 S({c.mask({3, 1}), c.t({1, 4}), c.t({3, 4})}, "broadcast all three"),
                 S({c.mask({3, 1, 1}), c.t({2, 3, 4, 5}), c.t({5})}, "4-d")};
    return c.schema().arguments().back().is_out() ? add_out(c, r) : r;
  };
  auto where_errors = [](SampleCtx& c) -> Errors {
    return {E(maybe_out(c, {c.t({3, 4}, kInt32), c.t({3, 4}), c.t({3, 4})}), "an int32 condition", "TypeError",
              "[where] expected argument 'condition' to be a bool tensor, but got a tensor with dtype int32"),
            E(maybe_out(c, {c.mask({3, 4}), c.t({3, 4}), c.t({2, 4})}), "shapes that do not broadcast", "ValueError",
              "[where] shapes [3, 4] and [2, 4] cannot be broadcast together: the size of tensor a (3) must match the "
              "size of tensor b (2) at non-singleton dimension 0")};
  };
  add("where.self", where, where_errors);
  auto threshold_backward = [](SampleCtx& c) {
    Samples r = {S({c.t({3, 4}), c.t({3, 4}), 0}, "threshold 0"),
                 S({c.t({2, 3, 4, 5}), c.t({2, 3, 4, 5}, kFloat64), 0.25}, "4-d, self float64"),
                 S({c.t({3, 4}), c.t({4}), -0.5}, "broadcast self"), S({c.t({}), c.t({}), 0}, "0-d")};
    return c.schema().arguments().back().is_out() ? add_out(c, r) : r;
  };
  auto threshold_backward_errors = [](SampleCtx& c) -> Errors {
    return {E(maybe_out(c, {c.t({3, 4}), c.t({2, 4}), 0}), "shapes that do not broadcast", "ValueError",
              "[threshold_backward] shapes [3, 4] and [2, 4] cannot be broadcast together")};
  };
  add("threshold_backward", threshold_backward, threshold_backward_errors);
  add("threshold_backward.grad_input", threshold_backward, threshold_backward_errors);
  add("where.self_out", where, where_errors);
  auto masked_fill = [](SampleCtx& c) -> Samples {
    Samples r = {S({c.t({3, 4}), c.mask({4}), -2}, "mask [4], int value"),
                 S({c.t({3, 4}), c.mask({3, 4}), 1.5}, "float value"),
                 S({c.t({2, 3, 4, 5}), c.mask({3, 1, 5}), true}, "4-d, bool value"),
                 S({c.t({3, 4}), c.mask({4}), 70000.0}, "a value out of float16's range"),
                 S({c.t({3, 4}), c.mask({4}), -200}, "a value out of int8's range")};
    if (c.schema().base_name() == "masked_fill")
      r.push_back(S({c.t({3, 4}), c.mask({2, 1, 4}), 1}, "a mask of more dims"));
    return r;
  };
  auto masked_fill_errors = [](SampleCtx& c) -> Errors {
    return {E({c.t({3, 4}), c.t({4}, kInt32), 1}, "an int32 mask", "TypeError",
              "expected argument 'mask' to be a bool tensor, but got dtype int32")};
  };
  add("masked_fill.Scalar", masked_fill, masked_fill_errors);
  add("masked_fill_.Scalar", masked_fill, masked_fill_errors);
  auto masked_fill_tensor = [](SampleCtx& c) -> Samples {
    Samples r = {S({c.t({3, 4}), c.mask({4}), c.t({})}, "mask [4], a 0-dim value"),
                 S({c.t({2, 3, 4}), c.mask({3, 1}), ember::full({}, 2.5, kFloat64)}, "a float64 value")};
    if (c.schema().base_name() == "masked_fill")
      r.push_back(S({c.t({3, 4}), c.mask({2, 1, 4}), c.t({})}, "a mask of more dims"));
    return r;
  };
  auto masked_fill_tensor_errors = [](SampleCtx& c) -> Errors {
    return {E({c.t({3, 4}), c.mask({4}), c.t({1})}, "a 1-d value", "ValueError",
              "expected argument 'value' to be a 0-dim tensor, but got one with 1 dimension(s)"),
            E({c.t({3, 4}), c.t({4}, kInt32), c.t({})}, "an int32 mask", "TypeError",
              "expected argument 'mask' to be a bool tensor, but got dtype int32")};
  };
  add("masked_fill.Tensor", masked_fill_tensor, masked_fill_tensor_errors);
  add("masked_fill_.Tensor", masked_fill_tensor, masked_fill_tensor_errors);
  auto lerp = [](SampleCtx& c) {
    const bool inplace = c.schema().base_name() == "lerp_";
    Samples r = {S({c.t({3, 4}), c.t({4}), 0.5}, "end [4]"), S({c.t({3, 4}), c.t({3, 4}), 1}, "weight 1"),
                 S({c.t({2, 3, 4, 5}), c.t({2, 3, 4, 5}), -0.25}, "4-d"),
                 S({c.t({3, 4}), c.t({3, 4}, kFloat64), 0.5}, "end float64")};
    if (!inplace) r.push_back(S({c.t({3, 1}), c.t({1, 4}), 0.5}, "broadcast both"));
    return c.schema().arguments().back().is_out() ? add_out(c, r) : r;
  };
  add("lerp.Scalar", lerp);
  add("lerp_.Scalar", lerp);
  add("lerp.Scalar_out", lerp);
  auto addcmul = [](SampleCtx& c) {
    const bool inplace = c.schema().base_name() == "addcmul_";
    Samples r = {S({c.t({3, 4}), c.t({4}, kInt32), c.t({3, 1})}, "tensor1 int32"),
                 S({c.t({3, 4}), c.t({4}), c.t({4}), 2}, "value 2"),
                 S({c.t({2, 3, 4, 5}), c.t({3, 1, 1}), c.t({5}), 0.5}, "4-d, value 0.5")};
    if (!inplace) r.push_back(S({c.t({3, 4}), c.t({3, 4}), c.t({2, 1, 1})}, "a broadcast beyond self"));
    return c.schema().arguments().back().is_out() ? add_out(c, r) : r;
  };
  add("addcmul", addcmul);
  add("addcmul_", addcmul);
  add("addcmul.out", addcmul);

  // ---- indexing: index tensors in range (a value out of range is an error only a backend with
  // data can raise); writes of distinct places where the order of two writes would show.
  add(
      "index.Tensor",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({4, 5, 6}), opt_tensors({c.ix({2, 3}, 4)})}, "one index [2, 3]"),
                S({c.t({4, 5, 6}), opt_tensors({kNone, c.ix({3}, 5), c.ix({2, 1}, 6)})},
                  "two broadcast indices after a None"),
                S({c.t({4, 5, 6}), opt_tensors({c.ix({3}, 4), kNone, c.ix({3}, 6)})}, "indices around a None"),
                S({c.t({4, 5, 6}), opt_tensors({kNone})}, "only None"),
                S({c.t({4, 5}), opt_tensors({c.ix({}, 4), c.ix({2}, 5)})}, "a 0-d index"),
                S({c.t({4, 5}), opt_tensors({c.ix({2}, 4, kInt32)})}, "an int32 index"),
                D({c.t({4, 5, 6}), opt_tensors({c.mask({4, 5})})}, "a bool mask"),
                D({c.t({4, 5}), opt_tensors({kNone, c.mask({5}, kUInt8)})}, "a uint8 mask")};
      },
      [](SampleCtx& c) -> Errors {
        return {
            E({c.t({4, 5}), opt_tensors({c.ix({2}, 4), c.ix({3}, 5)})}, "indices that do not broadcast", "IndexError",
              "[index] shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"),
            E({c.t({4, 5}), opt_tensors({c.ix({2}, 4), c.ix({2}, 5), c.ix({2}, 1)})}, "too many indices", "IndexError",
              "[index] too many indices for tensor of dimension 2 (got 3)"),
            E({c.t({4, 5}), opt_tensors({c.ix({2}, 4, kFloat32)})}, "a float index", "IndexError",
              "[index] tensors used as indices must be long, byte or bool tensors, got float32"),
            E({c.t({2, 3}), opt_tensors({c.mask({3})})}, "a mask of the wrong shape", "IndexError",
              "[index] the shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3] at "
              "index 0")};
      });
  auto index_put = [](SampleCtx& c) -> Samples {
    return {W({c.t({4, 5, 6}), opt_tensors({c.ix_unique(2, 4)}), c.t({5, 6})}, "rows"),
            S({c.t({4, 5, 6}), opt_tensors({kNone, c.ix({2, 1}, 5)}), c.t({1, 1, 6}), true}, "accumulate"),
            W({c.t({4, 5}), opt_tensors({c.ix_unique(3, 4), c.ix({3}, 5)}), c.t({})}, "points, a 0-d value"),
            W({c.t({4, 5}), opt_tensors({c.ix_unique(3, 4)}), c.t({5}, kFloat64)}, "float64 values"),
            D({c.t({4, 5}), opt_tensors({c.mask({4, 5})}), c.t({})}, "a bool mask")};
  };
  auto index_put_errors = [](SampleCtx& c) -> Errors {
    return {E({c.t({4, 5}), opt_tensors({c.ix_unique(3, 4)}), c.t({2, 5})}, "values that do not broadcast",
              "ValueError",
              "[index_put_] shape mismatch: value tensor of shape [2, 5] cannot be broadcast to indexing result of "
              "shape [3, 5]")};
  };
  add("index_put_", index_put, index_put_errors);
  add("index_put", index_put, index_put_errors);
  add(
      "index_select",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), 1, c.ix({5}, 4)}, "dim 1"),
                S({c.t({3, 4}), -2, c.ix({}, 3, kInt32)}, "a 0-d int32 index"),
                S({c.t({}), 0, c.ix({1}, 1)}, "0-d self"), S({c.t({2, 3, 4, 5}), 1, c.ix({2}, 3)}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 0, c.ix({2, 2}, 3)}, "a 2-d index", "ValueError",
                  "[index_select] argument 'index': expected a 1-d or 0-d tensor, got 2 dims"),
                E({c.t({3, 4}), 2, c.ix({2}, 3)}, "a dim out of range", "IndexError",
                  "[index_select] dimension out of range (expected to be in range of [-2, 1], but got 2)"),
                E({c.t({3, 4}), 0, c.ix({2}, 3, kInt8)}, "an int8 index", "TypeError",
                  "[index_select] argument 'index': expected dtype int64 or int32, got int8")};
      });
  add("index_select.out", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.t({3, 4}), 0, c.ix({2}, 3)}, {c.t({0})}), "empty out"),
            S(c.with_out({c.t({3, 4}), 1, c.ix({2}, 4)}, {c.t({7, 2})}), "out of another size"),
            S(c.with_out({c.t({3, 4}), 1, c.ix({2}, 4)}, {c.t({3}, kInt8)}), "out int8")};
  });
  add(
      "gather",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), 1, c.ix({3, 2}, 4)}, "dim 1"), S({c.t({3, 4}), -2, c.ix({2, 4}, 3)}, "dim -2"),
                S({c.t({}), 0, c.ix({}, 1)}, "0-d"), S({c.t({2, 3, 4, 5}), 1, c.ix({2, 2, 4, 5}, 3)}, "4-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 1, c.ix({4, 2}, 4)}, "an index larger than self off the dim", "ValueError",
                  "[gather] argument 'index': size 4 does not fit self [3, 4] at dimension 0: index [4, 2] must be no "
                  "larger than self apart from dimension 1"),
                E({c.t({3, 4}), 1, c.ix({3}, 4)}, "an index of fewer dims", "ValueError",
                  "[gather] argument 'index': expected the same number of dimensions as self (2), got 1"),
                E({c.t({3, 4}), 1, c.ix({3, 2}, 4, kInt32)}, "an int32 index", "TypeError",
                  "[gather] argument 'index': expected dtype int64, got int32")};
      });
  // Each column's rows once (dim 0), so no two writes land on one place.
  auto scatter_index = [](SampleCtx& c) {
    return ember::stack({c.ix_unique(2, 3), c.ix_unique(2, 3), c.ix_unique(2, 3), c.ix_unique(2, 3)}, 1);
  };
  auto scatter_src = [scatter_index](SampleCtx& c) -> Samples {
    return {W({c.t({3, 4}), 0, scatter_index(c), c.t({2, 5})}, "dim 0, a larger src"),
            S({c.t({3, 4}), 1, c.ix({3, 0}, 4), c.t({3, 1})}, "an empty index")};
  };
  auto scatter_src_errors = [](SampleCtx& c) -> Errors {
    return {
        E({c.t({3, 4}), 1, c.ix({3, 2}, 4), c.t({3, 1})}, "a src smaller than the index", "ValueError",
          "argument 'index': size 2 does not fit src [3, 1] at dimension 1: index [3, 2] must be no larger than src"),
        E({c.t({3, 4}), 1, c.ix({3, 2}, 4), c.t({3, 2}, kFloat64)}, "a src of another dtype", "TypeError",
          "argument 'src': expected dtype float32 (self's), got float64")};
  };
  add("scatter.src", scatter_src, scatter_src_errors);
  add("scatter_.src", scatter_src, scatter_src_errors);
  auto scatter_value = [scatter_index](SampleCtx& c) -> Samples {
    return {W({c.t({3, 4}), 0, scatter_index(c), 1.5}, "dim 0"), S({c.t({}), 0, c.ix({}, 1), 2}, "0-d")};
  };
  add("scatter.value", scatter_value);
  add("scatter_.value", scatter_value);
  auto scatter_add = [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), 1, c.ix({3, 3}, 4), c.t({3, 3})}, "dim 1"),
            S({c.t({3, 4}), 0, c.ix({0, 3}, 3), c.t({1, 1})}, "an empty index"),
            S({c.t({2, 3, 4, 5}), 2, c.ix({2, 3, 2, 5}, 4), c.t({2, 3, 2, 5})}, "4-d")};
  };
  add("scatter_add", scatter_add, scatter_src_errors);
  add("scatter_add_", scatter_add, scatter_src_errors);
  add(
      "masked_select",
      [](SampleCtx& c) -> Samples {
        return {D({c.t({3, 4}), c.mask({4})}, "mask [4]"), D({c.t({3, 4}), c.mask({3, 4}, kUInt8)}, "a uint8 mask")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), c.t({4}, kInt32)}, "an int32 mask", "TypeError",
                  "[masked_select] argument 'mask': expected dtype bool or uint8, got int32"),
                E({c.t({3, 4}), c.mask({5})}, "a mask that does not broadcast", "ValueError",
                  "[masked_select] shapes [3, 4] and [5] cannot be broadcast together: the size of tensor a (4) must "
                  "match the size of tensor b (5) at non-singleton dimension 1")};
      });
  add("nonzero", [](SampleCtx& c) -> Samples { return {D({c.t({3, 4})}, "[3, 4]"), D({c.t({})}, "0-d")}; });
  add(
      "embedding",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({10, 4}), c.ix({2, 3}, 10)}, "indices [2, 3]"),
                S({c.t({10, 4}), c.ix({}, 10, kInt32)}, "a 0-d int32 index")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({10}), c.ix({2}, 10)}, "a 1-d weight", "ValueError",
                  "[embedding] argument 'weight': expected a 2-d tensor, got 1 dims")};
      });
  add(
      "index_fill_.int_Scalar",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), 1, c.ix({2}, 4), 1}, "dim 1"), S({c.t({3, 4}), -2, c.ix({}, 3), 2.5}, "a 0-d index"),
                S({c.t({}), 0, c.ix({1}, 1), 0}, "0-d self")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), 1, c.ix({2, 1}, 4), 1}, "a 2-d index", "ValueError",
                  "[index_fill_] argument 'index': expected a 1-d or 0-d tensor, got 2 dims"),
                E({c.t({3, 4}), 1, c.ix({2}, 4, kInt32), 1}, "an int32 index", "TypeError",
                  "[index_fill_] argument 'index': expected dtype int64, got int32")};
      });
  auto index_fill = [](SampleCtx& c) -> Samples {
    const bool tensor_value = c.schema().overload_name() == "int_Tensor";
    auto v = [&](double x) -> IValue { return tensor_value ? IValue(ember::full({}, x, kFloat64)) : IValue(x); };
    return {S({c.t({3, 4}), 1, c.ix({2}, 4), v(1)}, "dim 1"), S({c.t({3, 4}), -2, c.ix({}, 3), v(2.5)}, "a 0-d index")};
  };
  auto index_fill_errors = [](SampleCtx& c) -> Errors {
    return {E({c.t({3, 4}), 1, c.ix({2, 1}, 4), 1}, "a 2-d index", "ValueError",
              "[index_fill_] argument 'index': expected a 1-d or 0-d tensor, got 2 dims")};
  };
  add("index_fill.int_Scalar", index_fill, index_fill_errors);
  add("index_fill.int_Tensor", index_fill);
  add("index_fill_.int_Tensor", index_fill, [](SampleCtx& c) -> Errors {
    return {E({c.t({3, 4}), 1, c.ix({2}, 4), c.t({1})}, "a 1-d value", "ValueError",
              "[index_fill_] expected argument 'value' to be a 0-dim tensor, but got one with 1 dimension(s)")};
  });
  add(
      "masked_scatter_",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({3, 4}), c.mask({4}), c.t({12})}, "mask [4]"),
                S({c.t({3, 4}), c.mask({3, 4}, kUInt8), c.t({4, 3})}, "a uint8 mask")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({3, 4}), c.mask({3}), c.t({12})}, "a mask that does not broadcast", "ValueError",
                  "[masked_scatter_] shapes [3, 4] and [3] cannot be broadcast together: the size of tensor a (4) must "
                  "match the size of tensor b (3) at non-singleton dimension 1"),
                E({c.t({3, 4}), c.t({4}, kInt64), c.t({12})}, "an int64 mask", "TypeError",
                  "[masked_scatter_] argument 'mask': expected dtype bool or uint8, got int64"),
                E({c.t({3, 4}), c.mask({2, 3, 4}), c.t({24})}, "a mask of more dims", "ValueError",
                  "[masked_scatter_] argument 'mask': shape [2, 3, 4] does not broadcast to self's shape [3, 4]")};
      });

  // ---- sorting: distinct values, so no tie decides an index
  add(
      "sort",
      [](SampleCtx& c) -> Samples {
        return {S({c.distinct({2, 3, 4}), 1, true}, "dim 1, descending"), S({c.distinct({2, 3})}, "last dim"),
                S({c.t({})}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 5}), 2}, "a dim out of range", "IndexError",
                  "[sort] dimension out of range (expected to be in range of [-2, 1], but got 2)")};
      });
  add("sort.stable", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), true, 0}, "stable, dim 0"), S({c.distinct({2, 3}), kNone, -1, true}, "descending")};
  });
  add("argsort", [](SampleCtx& c) -> Samples {
    return {S({c.distinct({2, 3})}, "last dim"), S({c.distinct({2, 3}), -2, true}, "dim -2, descending")};
  });
  add(
      "topk",
      [](SampleCtx& c) -> Samples {
        return {S({c.distinct({2, 5}), 3}, "k 3"), S({c.distinct({4, 3}), 2, 0, false, true}, "smallest, dim 0"),
                S({c.t({2, 3}), 0}, "k 0"), S({c.t({}), 1}, "0-d")};
      },
      [](SampleCtx& c) -> Errors {
        return {
            E({c.t({2, 5}), 6}, "k past the dim", "IndexError",
              "[topk] argument 'k': selected index k out of range (expected 0 <= k <= 5, the size of dim 1, got 6)"),
            E({c.t({2, 5}), -1}, "negative k", "IndexError",
              "[topk] argument 'k': selected index k out of range (expected 0 <= k <= 5, the size of dim 1, got -1)")};
      });
  add("sort.values", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.distinct({2, 3}), 0}, {c.t({0}), c.t({0}, kInt64)}), "dim 0"),
            S(c.with_out({c.distinct({2, 3})}, {c.t({0}, kFloat64), c.t({0}, kInt64)}), "values float64")};
  });
  add("topk.values", [](SampleCtx& c) -> Samples {
    return {S(c.with_out({c.distinct({3, 4}), 2}, {c.t({3, 2}), c.t({3, 2}, kInt64)}), "outs of the right size"),
            S(c.with_out({c.distinct({3, 4}), 2}, {c.t({0}), c.t({0}, kInt32)}), "indices int32")};
  });

  // ---- convolution
  const IValue i1 = ints({1}), i0 = ints({0});
  add(
      "convolution",
      [i1, i0](SampleCtx& c) -> Samples {
        return {S({c.t({2, 4, 6, 5}), c.t({6, 2, 3, 3}), c.t({6}), i1, i1, i1, false, i0, 2}, "groups 2, padding 1"),
                S({c.t({2, 4, 6, 5}), c.t({3, 4, 2, 2}), kNone, ints({2, 1}), ints({0, 1}), ints({2}), false,
                   ints({0, 0}), 1},
                  "stride, padding and dilation per dim"),
                S({c.t({0, 4, 3, 3}), c.t({5, 4, 3, 3}), c.t({5}), i1, i0, i1, false, i0, 1}, "an empty batch"),
                S({c.t({2, 4, 9}), c.t({6, 2, 3}), c.t({6}), ints({2}), i1, ints({2}), false, i0, 2}, "1-d, groups 2"),
                S({c.t({2, 2, 4, 5, 3}), c.t({3, 2, 2, 3, 2}), c.t({3}), ints({1, 2, 1}), ints({1, 0, 1}), i1, false,
                   i0, 1},
                  "3-d"),
                S({c.t({2, 4, 3, 4}), c.t({4, 3, 3, 2}), c.t({6}), ints({2, 1}), ints({1, 0}), ints({1, 2}), true,
                   ints({1, 0}), 2},
                  "transposed, output_padding, groups 2"),
                S({c.t({2, 4, 5}), c.t({4, 3, 3}), kNone, ints({2}), i1, i1, true, i1, 1}, "transposed 1-d"),
                S({c.t({1, 2, 2, 3, 2}), c.t({2, 3, 2, 2, 2}), c.t({3}), ints({2, 1, 2}), ints({0, 1, 0}), i1, true,
                   ints({1, 0, 0}), 1},
                  "transposed 3-d")};
      },
      [i1, i0](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 4, 6, 5});
        return {
            E({x, c.t({6, 4, 3, 3}), kNone, i1, i0, i1, true, i0, 1}, "transposed with another in_channels",
              "ValueError",
              "[convolution] expected input [2, 4, 6, 5] to have 6 channels (weight [6, 4, 3, 3]'s in_channels, "
              "transposed), but got 4 channels"),
            E({x, c.t({4, 4, 3, 3}), kNone, i1, i0, i1, true, i1, 1}, "transposed, output_padding not below stride",
              "ValueError",
              "[convolution] argument 'output_padding': expected non-negative values smaller than either stride or "
              "dilation, got output_padding [1] with stride [1] and dilation [1]"),
            E({x, c.t({6, 4, 3, 3}), kNone, i1, i0, i1, false, i1, 1}, "output_padding", "ValueError",
              "[convolution] argument 'output_padding': expected zeros for a non-transposed convolution, got [1]"),
            E({c.t({4, 6}), c.t({6, 4, 3}), kNone, i1, i0, i1, false, i0, 1}, "a 2-d input", "ValueError",
              "[convolution] argument 'input': expected a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) "
              "input, got shape [4, 6]"),
            E({c.t({4, 6, 5}), c.t({6, 4, 3, 3}), kNone, i1, i0, i1, false, i0, 1}, "a 4-d weight for a 3-d input",
              "ValueError",
              "[convolution] argument 'weight': expected a 3-D weight (out_channels, in_channels / groups, kernel...) "
              "for a 3-D input, got shape [6, 4, 3, 3]"),
            E({x, c.t({6, 4, 3, 3}, kFloat64), kNone, i1, i0, i1, false, i0, 1}, "a float64 weight", "TypeError",
              "[convolution] expected input and weight to have the same dtype, got float32 and float64"),
            E({x, c.t({6, 3, 3, 3}), kNone, i1, i0, i1, false, i0, 1}, "channels that differ", "ValueError",
              "[convolution] expected input [2, 4, 6, 5] to have 3 channels (weight [6, 3, 3, 3] with groups=1), but "
              "got 4 channels"),
            E({x, c.t({6, 2, 3, 3}), kNone, i1, i0, i1, false, i0, 3}, "groups that do not divide", "ValueError",
              "[convolution] expected input [2, 4, 6, 5] to have 6 channels (weight [6, 2, 3, 3] with groups=3), but "
              "got 4 channels"),
            E({x, c.t({6, 4, 7, 3}), kNone, i1, i0, i1, false, i0, 1}, "a kernel larger than the input", "ValueError",
              "[convolution] kernel size (dilated) 7x3 can't be greater than the padded input size 6x5 (input [2, 4, "
              "6, 5], padding [0])"),
            E({x, c.t({6, 4, 3, 3}), kNone, ints({1, 2, 3}), i0, i1, false, i0, 1}, "three strides", "ValueError",
              "[convolution] argument 'stride': expected a single int or a tuple of two ints, got [1, 2, 3]"),
            E({x, c.t({6, 4, 3, 3}), kNone, i0, i0, i1, false, i0, 1}, "stride 0", "ValueError",
              "[convolution] argument 'stride': expected positive values, got [0]"),
            E({x, c.t({6, 4, 3, 3}), kNone, i1, ints({-1}), i1, false, i0, 1}, "negative padding", "ValueError",
              "[convolution] argument 'padding': expected non-negative values, got [-1]"),
            E({x, c.t({6, 4, 3, 3}), c.t({5}), i1, i0, i1, false, i0, 1}, "a bias of the wrong size", "ValueError",
              "[convolution] argument 'bias': expected a 1-D tensor of out_channels=6 elements, got shape [5]"),
            E({x, c.t({6, 4, 3, 3}), c.t({6}, kInt32), i1, i0, i1, false, i0, 1}, "an int32 bias", "TypeError",
              "[convolution] expected input and bias to have the same dtype, got float32 and int32")};
      });
  add(
      "conv2d",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 4, 6, 5}), c.t({6, 2, 3, 3}), c.t({6}), ints({1}), ints({1}), ints({1}), 2}, "groups 2"),
                S({c.t({4, 7, 5}), c.t({3, 4, 3, 2}), kNone, ints({2, 1}), ints({0}), ints({1, 2})}, "unbatched")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({6, 5}), c.t({6, 4, 3, 3})}, "a 2-d input", "ValueError",
                  "[conv2d] argument 'input': expected a 3-D (unbatched) or 4-D (batched) input, got shape [6, 5]")};
      });
  add(
      "convolution_backward",
      [i1, i0](SampleCtx& c) -> Samples {
        const Tensor x = c.t({2, 4, 6, 5}), w = c.t({6, 2, 3, 3});
        return {
            S({c.t({2, 6, 6, 5}), x, w, ints({6}), i1, i1, i1, false, i0, 2, bools({true, true, true})}, "all grads"),
            S({c.t({2, 3, 2, 5}), x, c.t({3, 4, 2, 2}), kNone, ints({2, 1}), ints({0, 1}), ints({2}), false,
               ints({0, 0}), 1, bools({false, true, true})},
              "no input grad, stride and dilation"),
            S({c.t({2, 6, 6, 5}), x, w, ints({6}), i1, i1, i1, false, i0, 2, bools({true, false, false})},
              "input grad only"),
            S({c.t({2, 6, 4}), c.t({2, 4, 9}), c.t({6, 2, 3}), ints({6}), ints({2}), i1, ints({2}), false, i0, 2,
               bools({true, true, true})},
              "1-d"),
            S({c.t({2, 6, 6, 6}), c.t({2, 4, 3, 4}), c.t({4, 3, 3, 2}), ints({6}), ints({2, 1}), ints({1, 0}),
               ints({1, 2}), true, ints({1, 0}), 2, bools({true, true, true})},
              "transposed, groups 2"),
            S({c.t({1, 3, 4, 4, 4}), c.t({1, 2, 2, 3, 2}), c.t({2, 3, 2, 2, 2}), ints({3}), ints({2, 1, 2}), i0, i1,
               true, i0, 1, bools({true, true, true})},
              "transposed 3-d")};
      },
      [i1, i0](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 4, 6, 5}), w = c.t({6, 4, 3, 3});
        const IValue mask = bools({true, true, false}), all = bools({true, true, true});
        return {
            E({c.t({2, 6, 6, 5}), x, w, kNone, i1, i0, i1, false, i0, 1, mask}, "a grad_output of the wrong shape",
              "ValueError",
              "[convolution_backward] argument 'grad_output': expected shape [2, 6, 4, 3] (the convolution's output), "
              "got [2, 6, 6, 5]"),
            E({c.t({2, 6, 4, 3}, kInt64), x, w, kNone, i1, i0, i1, false, i0, 1, mask}, "an int64 grad_output",
              "TypeError",
              "[convolution_backward] expected grad_output and input to have the same dtype, got int64 and float32"),
            E({c.t({2, 6, 4, 3}), x, w, ints({5}), i1, i0, i1, false, i0, 1, all}, "bias_sizes not [out_channels]",
              "ValueError", "[convolution_backward] argument 'bias_sizes': expected [6], got [5]"),
            E({c.t({2, 6, 4, 3}), x, w, kNone, i1, i0, i1, true, i0, 1, all}, "transposed, channels that differ",
              "ValueError",
              "[convolution_backward] expected input [2, 4, 6, 5] to have 6 channels (weight [6, 4, 3, 3]'s "
              "in_channels, transposed), but got 4 channels")};
      });

  // ---- pooling
  add(
      "max_pool2d_with_indices",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 7, 6}), ints({3}), ints({2}), ints({1}), ints({1}), true}, "ceil_mode, padding 1"),
                S({c.t({2, 3, 7, 6}), ints({2, 3})}, "kernel [2, 3]"),
                S({c.t({3, 5, 5}), ints({3}), ints({1}), ints({1}), ints({2})}, "unbatched, dilation 2"),
                S({c.t({0, 3, 5, 5}), ints({2})}, "an empty batch")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 3, 7, 6});
        return {E({x, ints({3}), ints({2}), ints({2})}, "padding over half the kernel", "ValueError",
                  "[max_pool2d_with_indices] argument 'padding': expected non-negative values at most half the kernel "
                  "size [3], got [2]"),
                E({x, ints({8})}, "an output too small", "ValueError",
                  "[max_pool2d_with_indices] given input of shape [2, 3, 7, 6], the calculated output size 0x0 is too "
                  "small (kernel_size [8], stride [], padding [0, 0], dilation [1, 1])"),
                E({x, ints({2, 2, 2})}, "three kernel sizes", "ValueError",
                  "[max_pool2d_with_indices] argument 'kernel_size': expected a single int or a tuple of two ints, got "
                  "[2, 2, 2]"),
                E({x, ints({0})}, "kernel 0", "ValueError",
                  "[max_pool2d_with_indices] argument 'kernel_size': expected positive values, got [0]"),
                E({x, ints({2}), ints({-1})}, "a negative stride", "ValueError",
                  "[max_pool2d_with_indices] argument 'stride': expected positive values, got [-1]"),
                E({x, ints({2}), ints({}), ints({0}), ints({0})}, "dilation 0", "ValueError",
                  "[max_pool2d_with_indices] argument 'dilation': expected positive values, got [0]"),
                E({c.t({3, 7}), ints({2})}, "a 2-d input", "ValueError",
                  "[max_pool2d_with_indices] argument 'self': expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got "
                  "shape [3, 7]"),
                E({c.t({2, 0, 7, 6}), ints({2})}, "no channels", "ValueError",
                  "[max_pool2d_with_indices] argument 'self': expected non-zero sizes except the batch, got shape [2, "
                  "0, 7, 6]"),
                E({c.t({1, 2, 4, 4}, kInt32), ints({2})}, "int32", "TypeError",
                  "[max_pool2d_with_indices] argument 'self': expected a floating point tensor, got int32")};
      });
  add("max_pool2d", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 7, 6}), ints({3, 2}), ints({2, 1}), ints({1, 0}), ints({1}), true}, "ceil_mode"),
            S({c.t({3, 7, 6}), ints({2})}, "unbatched")};
  });
  // Valid indices from a forward on the same input (its float32 copy: indices exist for any dtype).
  auto pool_indices = [](const Tensor& x) {
    return std::get<1>(ember::max_pool2d_with_indices(x.to(kFloat32), {3}, {2}, {1}, {1}, true));
  };
  add(
      "max_pool2d_with_indices_backward",
      [pool_indices](SampleCtx& c) -> Samples {
        const Tensor x = c.t({2, 3, 7, 6}), ind = pool_indices(x);
        return {S({c.t({2, 3, 4, 4}), x, ints({3}), ints({2}), ints({1}), ints({1}), true, ind}, "ceil_mode")};
      },
      [pool_indices](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 3, 7, 6}), ind = pool_indices(x);
        return {E({c.t({2, 3, 4, 4}), x, ints({3}), ints({2}), ints({1}), ints({1}), true, ind.to(kInt32)},
                  "int32 indices", "ValueError",
                  "[max_pool2d_with_indices_backward] argument 'indices': expected an int64 tensor of shape [2, 3, 4, "
                  "4], got int32 of shape [2, 3, 4, 4]"),
                E({c.t({2, 3, 4, 3}), x, ints({3}), ints({2}), ints({1}), ints({1}), true, ind},
                  "a grad_output of the wrong shape", "ValueError",
                  "[max_pool2d_with_indices_backward] argument 'grad_output': expected shape [2, 3, 4, 4] (the "
                  "output's), got [2, 3, 4, 3]")};
      });
  add(
      "avg_pool2d",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 7, 6}), ints({3}), ints({2}), ints({1}), true, false}, "ceil_mode, padding excluded"),
                S({c.t({2, 3, 7, 6}), ints({2, 3}), ints({}), ints({0}), false, true, 3}, "divisor_override 3"),
                S({c.t({3, 5, 4}), ints({2})}, "unbatched")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 3, 7, 6});
        return {E({x, ints({3}), ints({2}), ints({1}), false, true, 0}, "divisor_override 0", "ValueError",
                  "[avg_pool2d] argument 'divisor_override': expected a non-zero value"),
                E({x, ints({3}), ints({2}), ints({2})}, "padding over half the kernel", "ValueError",
                  "[avg_pool2d] argument 'padding': expected non-negative values at most half the kernel size [3], got "
                  "[2]")};
      });
  add(
      "avg_pool2d_backward",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 4, 4}), c.t({2, 3, 7, 6}), ints({3}), ints({2}), ints({1}), true, false, 2},
                  "ceil_mode, divisor_override 2"),
                S({c.t({3, 2, 2}), c.t({3, 5, 4}), ints({2}), ints({}), ints({0}), false, true, kNone}, "unbatched")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 3, 7, 6});
        return {
            E({c.t({2, 3, 4, 3}), x, ints({3}), ints({2}), ints({1}), true, false, kNone},
              "a grad_output of the wrong shape", "ValueError",
              "[avg_pool2d_backward] argument 'grad_output': expected shape [2, 3, 4, 4] (the output's), got [2, 3, 4, "
              "3]"),
            E({c.t({2, 3, 4, 4}, kFloat64), x, ints({3}), ints({2}), ints({1}), true, false, kNone},
              "a float64 grad_output", "TypeError",
              "[avg_pool2d_backward] expected grad_output and self to have the same dtype, got float64 and float32")};
      });
  add(
      "_adaptive_avg_pool2d",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 7, 6}), ints({3, 2})}, "[3, 2]"),
                S({c.t({3, 5, 4}), ints({5, 9})}, "unbatched, upsampling"),
                S({c.t({2, 3, 7, 6}), ints({0, 2})}, "an empty output")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3, 7, 6}), ints({3, -1})}, "a negative size", "ValueError",
                  "[adaptive_avg_pool2d] argument 'output_size': expected two non-negative sizes, got [3, -1]"),
                E({c.t({2, 3, 7, 6}), ints({3})}, "one size", "ValueError",
                  "[adaptive_avg_pool2d] argument 'output_size': expected two non-negative sizes, got [3]")};
      });
  add(
      "adaptive_avg_pool2d",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 7, 6}), ints({4})}, "[4]"), S({c.t({3, 5, 4}), ints({1, 1})}, "unbatched, global")};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 3, 7, 6}), ints({1, 2, 3})}, "three sizes", "ValueError",
                  "[adaptive_avg_pool2d] argument 'output_size': expected a single int or a tuple of two ints, got [1, "
                  "2, 3]")};
      });
  add(
      "_adaptive_avg_pool2d_backward",
      [](SampleCtx& c) -> Samples {
        return {S({c.t({2, 3, 3, 2}), c.t({2, 3, 7, 6})}, "[3, 2]"),
                S({c.t({3, 1, 1}), c.t({3, 5, 4})}, "unbatched, global")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 3, 7, 6});
        return {E({c.t({3, 3, 2}), x}, "dims that differ", "ValueError",
                  "[adaptive_avg_pool2d_backward] expected grad_output of 4 dimensions like self, got shape [3, 3, 2]"),
                E({c.t({2, 4, 3, 2}), x}, "channels that differ", "ValueError",
                  "[adaptive_avg_pool2d_backward] argument 'grad_output': expected shape [2, 3, 3, 2] (the output's), "
                  "got [2, 4, 3, 2]"),
                E({c.t({2, 3, 3, 2}, kInt32), x}, "an int32 grad_output", "TypeError",
                  "[adaptive_avg_pool2d_backward] expected grad_output and self to have the same dtype, got int32 and "
                  "float32")};
      });

  // ---- batch and layer norm
  add(
      "native_batch_norm",
      [](SampleCtx& c) -> Samples {
        const Tensor x = c.t({4, 3, 5, 2});
        return {S({x, c.t({3}), c.t({3}), c.t({3}), c.uniform({3}, 0.5, 2, c.dtype()), true, 0.1, 1e-5}, "training"),
                S({x, c.t({3}), c.t({3}), c.t({3}), c.uniform({3}, 0.5, 2, c.dtype()), false, 0.1, 1e-5}, "evaluation"),
                S({c.t({4, 3}), kNone, kNone, kNone, kNone, true, 0.1, 1e-5}, "2-d, no weight or stats")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor x = c.t({4, 3, 5, 2}), w = c.t({3}), b = c.t({3}), rm = c.t({3}), rv = c.t({3});
        return {
            E({x, w, b, kNone, rv, false, 0.1, 1e-5}, "evaluation without running stats", "ValueError",
              "[native_batch_norm] running_mean and running_var must be defined in evaluation mode (training=False)"),
            E({x, c.t({4}), b, rm, rv, true, 0.1, 1e-5}, "a weight of the wrong length", "ValueError",
              "[native_batch_norm] argument 'weight': expected a 1-D tensor of 3 elements, got shape [4]"),
            E({x, w, b, rm, c.t({3}, kInt64), true, 0.1, 1e-5}, "an int64 running_var", "TypeError",
              "[native_batch_norm] argument 'running_var': expected a floating point tensor, got int64"),
            E({c.t({4}), w, b, rm, rv, true, 0.1, 1e-5}, "a 1-d input", "ValueError",
              "[native_batch_norm] argument 'input': expected at least 2 dimensions (N, C, ...), got shape [4]")};
      });
  add("batch_norm", [](SampleCtx& c) -> Samples {
    return {
        S({c.t({4, 3, 5, 2}), c.t({3}), c.t({3}), c.t({3}), c.uniform({3}, 0.5, 2, c.dtype()), false, 0.1, 1e-5, false},
          "evaluation"),
        S({c.t({4, 3}), kNone, kNone, c.t({3}), c.uniform({3}, 0.5, 2, c.dtype()), true, 0.1, 1e-5, false},
          "training, no weight")};
  });
  add(
      "native_batch_norm_backward",
      [](SampleCtx& c) -> Samples {
        const Tensor g = c.t({4, 3, 5, 2}), x = c.t({4, 3, 5, 2}), w = c.t({3}), rm = c.t({3});
        const Tensor rv = c.uniform({3}, 0.5, 2, c.dtype()), sm = c.t({3}), si = c.uniform({3}, 0.5, 2, c.dtype());
        return {S({g, x, w, rm, rv, sm, si, true, 1e-5, bools({true, true, true})}, "training"),
                S({g, x, c.t({3}, kFloat64), rm, rv, kNone, kNone, false, 1e-5, bools({true, false, true})},
                  "evaluation, a float64 weight"),
                S({g, x, kNone, kNone, kNone, sm, si, true, 1e-5, bools({false, true, true})}, "no weight")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor g = c.t({4, 3, 5, 2}), x = c.t({4, 3, 5, 2}), w = c.t({3}), rm = c.t({3}), rv = c.t({3});
        const IValue all = bools({true, true, true});
        return {
            E({g, x, w, rm, rv, c.t({3}), kNone, true, 1e-5, all}, "training without save_invstd", "ValueError",
              "[native_batch_norm_backward] save_mean and save_invstd must be defined when train=True"),
            E({g, x, w, kNone, rv, c.t({3}), c.t({3}), false, 1e-5, all}, "evaluation without running stats",
              "ValueError",
              "[native_batch_norm_backward] running_mean and running_var must be defined when train=False"),
            E({c.t({4, 3, 10}), x, w, rm, rv, c.t({3}), c.t({3}), true, 1e-5, all}, "a grad_out of another shape",
              "ValueError",
              "[native_batch_norm_backward] argument 'grad_out': expected shape [4, 3, 5, 2] (input's), got [4, 3, "
              "10]"),
            E({g, x, w, rm, rv, c.t({2}), c.t({3}), true, 1e-5, all}, "a save_mean of the wrong length", "ValueError",
              "[native_batch_norm_backward] argument 'save_mean': expected a 1-D tensor of 3 elements, got shape [2]")};
      });
  add(
      "native_layer_norm",
      [](SampleCtx& c) -> Samples {
        const Tensor x = c.t({2, 3, 4});
        return {S({x, ints({4}), c.t({4}), c.t({4}), 1e-5}, "last dim"),
                S({x, ints({3, 4}), c.t({3, 4}), c.t({3, 4}), 1e-5}, "two dims"),
                S({c.t({0, 4}), ints({4}), kNone, kNone, 1e-5}, "empty"),
                S({x, ints({}), kNone, kNone, 1e-5}, "no dims")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor x = c.t({2, 3, 4});
        return {E({x, ints({3}), kNone, kNone, 1e-5}, "a normalized_shape that is not the input's end", "ValueError",
                  "[native_layer_norm] given normalized_shape=[3], expected the input's trailing dimensions to match "
                  "it, but got input of shape [2, 3, 4]"),
                E({x, ints({3, 4}), c.t({12}), c.t({3, 4}), 1e-5}, "a weight of another shape", "ValueError",
                  "[native_layer_norm] argument 'weight': expected shape [3, 4] (normalized_shape), got [12]"),
                E({x, ints({3, 4}), c.t({3, 4}), c.t({3, 4}, kInt32), 1e-5}, "an int32 bias", "TypeError",
                  "[native_layer_norm] argument 'bias': expected a floating point tensor, got int32")};
      });
  add("layer_norm", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 4}), ints({4})}, "last dim"),
            S({c.t({5, 2, 3, 4}), ints({3, 4}), c.t({3, 4}), c.t({3, 4})}, "4-d, two dims")};
  });
  add(
      "native_layer_norm_backward",
      [](SampleCtx& c) -> Samples {
        const Tensor g = c.t({2, 3, 4}), x = c.t({2, 3, 4});
        return {
            S({g, x, ints({3, 4}), c.t({2, 1, 1}), c.t({2, 1, 1}), c.t({3, 4}), c.t({3, 4}), bools({true, true, true})},
              "two dims"),
            S({g, x, ints({4}), c.t({2, 3, 1}), c.t({6}), kNone, kNone, bools({true, false, true})},
              "last dim, flat rstd, no weight")};
      },
      [](SampleCtx& c) -> Errors {
        const Tensor g = c.t({2, 3, 4}), x = c.t({2, 3, 4}), m = c.t({2, 1, 1}), r = c.t({2, 1, 1});
        const Tensor w = c.t({3, 4}), b = c.t({3, 4});
        const IValue all = bools({true, true, true});
        return {E({g, x, ints({3, 4}), c.t({3}), r, w, b, all}, "a mean of the wrong size", "ValueError",
                  "[native_layer_norm_backward] argument 'mean': expected 2 elements (one per row), got shape [3]"),
                E({c.t({2, 12}), x, ints({3, 4}), m, r, w, b, all}, "a grad_out of another shape", "ValueError",
                  "[native_layer_norm_backward] argument 'grad_out': expected shape [2, 3, 4] (input's), got [2, 12]"),
                E({g, x, ints({3, 4}), m, r, w, c.t({4}), all}, "a bias of the wrong shape", "ValueError",
                  "[native_layer_norm_backward] argument 'bias': expected shape [3, 4] (normalized_shape), got [4]")};
      });

  // ---- the nn plugin's composites (plugins/nn): each backend runs them over its own kernels
  add("linear", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), c.t({2, 4}), c.t({2})}, "2-d, bias"), S({c.t({2, 3, 4}), c.t({2, 4})}, "3-d, no bias"),
            S({c.t({4}), c.t({4})}, "a vector weight")};
  });
  add("bilinear", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), c.t({3, 5}), c.t({2, 4, 5}), c.t({2})}, "bias"),
            S({c.t({2, 2, 4}), c.t({2, 2, 3}), c.t({3, 4, 3})}, "3-d, no bias")};
  });
  add("conv1d", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 4, 9}), c.t({6, 2, 3}), c.t({6}), ints({2}), ints({1}), ints({2}), 2}, "groups 2"),
            S({c.t({4, 7}), c.t({3, 4, 3})}, "unbatched")};
  });
  // The string paddings: "same" with an even kernel (one more zero after the input), "valid".
  auto conv_padding = [](SampleCtx& c) -> Samples {
    const std::string name(c.schema().base_name());
    if (name == "conv1d")
      return {S({c.t({2, 4, 9}), c.t({6, 2, 4}), c.t({6}), ints({1}), "same", ints({2}), 2}, "same, groups 2"),
              S({c.t({4, 7}), c.t({3, 4, 3}), kNone, ints({1}), "valid"}, "valid, unbatched")};
    if (name == "conv2d")
      return {S({c.t({2, 3, 6, 5}), c.t({4, 3, 2, 3}), c.t({4}), ints({1}), "same", ints({1, 2})}, "same, even kernel"),
              S({c.t({3, 5, 5}), c.t({2, 3, 3, 3}), kNone, ints({1, 1}), "valid"}, "valid, unbatched")};
    return {
        S({c.t({1, 2, 4, 5, 3}), c.t({2, 2, 2, 3, 2}), kNone, ints({1}), "same"}, "same"),
        S({c.t({1, 2, 4, 5, 3}), c.t({2, 1, 2, 2, 2}), kNone, ints({1}), "valid", ints({1}), 2}, "valid, groups 2")};
  };
  auto conv_padding_errors = [](SampleCtx& c) -> Errors {
    const std::string name(c.schema().base_name());
    const int64_t nd = name == "conv1d" ? 1 : name == "conv2d" ? 2 : 3;
    std::vector<int64_t> xs{1, 2}, ws{2, 2};
    for (int64_t i = 0; i < nd; ++i) xs.push_back(5), ws.push_back(3);
    return {E({c.t(xs), c.t(ws), kNone, ints({2}), "same"}, "same with stride 2", "ValueError",
              "[" + name + "] padding='same' is not supported for strided convolutions, got stride [2]"),
            E({c.t(xs), c.t(ws), kNone, ints({1}), "full"}, "an unknown padding", "ValueError",
              "[" + name + "] argument 'padding': expected \"valid\" or \"same\", got \"full\"")};
  };
  add("conv1d.padding", conv_padding, conv_padding_errors);
  add("conv2d.padding", conv_padding, conv_padding_errors);
  add("conv3d.padding", conv_padding, conv_padding_errors);
  add("conv3d", [](SampleCtx& c) -> Samples {
    return {S({c.t({1, 2, 4, 5, 3}), c.t({3, 2, 2, 3, 2}), c.t({3}), ints({1, 2, 1}), ints({1, 0, 1})}, "batched")};
  });
  add("conv_transpose1d", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 4, 5}), c.t({4, 3, 3}), c.t({6}), ints({2}), ints({1}), ints({1}), 2, ints({2})},
              "groups 2, output_padding")};
  });
  add("conv_transpose2d.input", [](SampleCtx& c) -> Samples {
    return {
        S({c.t({2, 4, 3, 4}), c.t({4, 3, 3, 2}), c.t({6}), ints({2, 1}), ints({1, 0}), ints({1, 0}), 2, ints({1, 2})},
          "stride, padding, output_padding, groups, dilation"),
        S({c.t({4, 3, 3}), c.t({4, 2, 2, 2})}, "unbatched")};
  });
  add("conv_transpose3d.input", [](SampleCtx& c) -> Samples {
    return {S({c.t({1, 2, 2, 3, 2}), c.t({2, 3, 2, 2, 2}), kNone, ints({2, 1, 2}), ints({0, 1, 0}), ints({1, 0, 0})},
              "batched")};
  });
  // Losses: class weights and probabilities in [0.5, 2) and [0, 1), valid class indices.
  auto positive = [](SampleCtx& c, std::vector<int64_t> shape) { return c.uniform(shape, 0.5, 2, c.dtype()); };
  auto unit = [](SampleCtx& c, std::vector<int64_t> shape) { return c.uniform(shape, 0.05, 0.95, c.dtype()); };
  add("cross_entropy_loss", [positive, unit](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), c.ix({3}, 4)}, "class indices"),
            S({c.t({3, 4}), c.ix({3}, 4), positive(c, {4}), 1, 0, 0.2}, "weights, ignore_index 0, smoothing"),
            S({c.t({3, 4}), unit(c, {3, 4}), positive(c, {4}), 2, -100, 0.1}, "probabilities, sum"),
            S({c.t({2, 3, 2, 2}), c.ix({2, 2, 2}, 3), kNone, 0}, "4-d, none"), S({c.t({4}), c.ix({}, 4)}, "unbatched")};
  });
  add("nll_loss_nd", [positive](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), c.ix({3}, 4), positive(c, {4}), 1, 2}, "weights, ignore_index 2"),
            S({c.t({2, 3, 4}), c.ix({2, 4}, 3), kNone, 2}, "3-d, sum"),
            S({c.t({2, 3, 2, 1, 2}), c.ix({2, 2, 1, 2}, 3), kNone, 0}, "5-d, none")};
  });
  add("nll_loss", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4}), c.ix({3}, 4)}, "batched"), S({c.t({4}), c.ix({}, 4), kNone, 0}, "unbatched")};
  });
  add("nll_loss2d", [positive](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 2, 2}), c.ix({2, 2, 2}, 3), positive(c, {3})}, "weights")};
  });
  add("mse_loss", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), c.t({2, 3})}, "mean"), S({c.t({2, 3}), c.t({3}), 0}, "broadcast, none")};
  });
  add("l1_loss", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), c.t({2, 3})}, "mean"), S({c.t({2, 3}), c.t({2, 3}), 2}, "sum")};
  });
  add("smooth_l1_loss", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), c.t({2, 3}), 1, 0.5}, "beta 0.5"), S({c.t({2, 3}), c.t({2, 3}), 0, 0.0}, "beta 0")};
  });
  add("huber_loss", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), c.t({2, 3}), 1, 0.7}, "delta 0.7"), S({c.t({4}), c.t({4}), 2}, "sum")};
  });
  add("binary_cross_entropy", [positive, unit](SampleCtx& c) -> Samples {
    return {S({unit(c, {2, 3}), unit(c, {2, 3})}, "mean"),
            S({unit(c, {2, 3}), unit(c, {2, 3}), positive(c, {2, 3}), 0}, "weights, none")};
  });
  add("binary_cross_entropy_with_logits", [positive, unit](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), unit(c, {2, 3})}, "mean"),
            S({c.t({2, 3}), unit(c, {2, 3}), positive(c, {3}), positive(c, {3}), 0}, "weight, pos_weight, none")};
  });
  add("kl_div", [unit](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3}), unit(c, {2, 3})}, "mean"), S({c.t({2, 3}), c.t({2, 3}), 2, true}, "log_target, sum")};
  });
  add("triplet_margin_loss", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 5}), c.t({3, 5}), c.t({3, 5})}, "defaults"),
            S({c.t({3, 5}), c.t({3, 5}), c.t({3, 5}), 0.5, 1.0, 1e-6, true, 0}, "p 1, swap, none")};
  });
  add("cosine_similarity", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 5}), c.t({3, 5})}, "dim 1"), S({c.t({3, 5}), c.t({5}), 0}, "broadcast, dim 0")};
  });
  add("pairwise_distance", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 5}), c.t({3, 5})}, "p 2"), S({c.t({3, 5}), c.t({5}), 3.0, 1e-6, true}, "p 3, keepdim")};
  });
  add("leaky_relu", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4})}, "default slope"), S({c.t({2, 3, 4}), 0.2}, "slope 0.2")};
  });
  add("elu", [](SampleCtx& c) -> Samples {
    return {S({c.t({3, 4})}, "defaults"), S({c.t({2, 3, 4}), 0.5, 1.5, 2.0}, "alpha, scale, input_scale")};
  });
  // Dropout: the mask is the generator's. In evaluation mode the in-place forms leave self alone,
  // its version unchanged (as PyTorch's), so they are sampled in training mode only.
  for (const char* op : {"dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"}) {
    add(
        op,
        [](SampleCtx& c) -> Samples {
          return {S({c.t({2, 3, 4}), 0.3, true}, "train"), S({c.t({2, 3, 4}), 0.3, false}, "eval"),
                  S({c.t({2, 3}), 1.0, true}, "p 1")};
        },
        {}, Values::Random);
    add(
        std::string(op) + "_",
        [](SampleCtx& c) -> Samples {
          return {S({c.t({2, 3, 4}), 0.3, true}, "train"), S({c.t({2, 3}), 1.0, true}, "p 1")};
        },
        {}, Values::Random);
  }
  add("instance_norm", [positive](SampleCtx& c) -> Samples {
    return {S({c.t({2, 3, 4}), c.t({3}), c.t({3}), kNone, kNone, true, 0.1, 1e-5, false}, "affine"),
            S({c.t({2, 3, 2, 2}), kNone, kNone, c.t({3}), positive(c, {3}), true, 0.3, 1e-5, false},
              "running stats updated"),
            S({c.t({2, 3, 4}), kNone, kNone, c.t({3}), positive(c, {3}), false, 0.1, 1e-5, false}, "running stats")};
  });
  add("group_norm", [](SampleCtx& c) -> Samples {
    return {S({c.t({2, 4, 3}), 2, c.t({4}), c.t({4})}, "affine"), S({c.t({2, 6}), 3}, "2-d")};
  });
  // Bags [i0 i1 i2], [], [i3 i4], [i5 i6 i7].
  auto bag = [](SampleCtx& c, int64_t mode, bool weighted) {
    return S({c.t({10, 3}), c.ix({8}, 10), tensor({0, 3, 3, 5}), false, mode, false, weighted ? IValue(c.t({8})) : kNone},
             "mode " + std::to_string(mode) + (weighted ? ", per_sample_weights" : ""));
  };
  add("embedding_bag", [bag](SampleCtx& c) -> Samples {
    return {bag(c, 0, true), bag(c, 1, false), bag(c, 2, false)};
  });
  add("embedding_bag.padding_idx", [](SampleCtx& c) -> Samples {
    return {
        S({c.t({10, 3}), tensor({1, 2, 4, 5, 4, 3, 2, 9}), tensor({0, 3, 3, 5, 8}), false, 1, false, kNone, true, 4},
          "mean, include_last_offset, padding_idx 4")};
  });
  add("scaled_dot_product_attention", [](SampleCtx& c) -> Samples {
    const Tensor q = c.t({2, 3, 4}), k = c.t({2, 5, 4}), v = c.t({2, 5, 6});
    return {S({q, k, v}, "no mask"), S({q, k, v, c.t({3, 5})}, "float mask"),
            S({q, k, v, tensor({true, false, true, true, false}).view({1, 5})}, "bool mask"),
            S({q, k, v, kNone, 0.0, true}, "causal"), S({q, k, v, kNone, 0.0, false, 0.3}, "scale")};
  });
  add("multi_head_attention_forward", [](SampleCtx& c) -> Samples {
    const Tensor q = c.t({3, 2, 6}), k = c.t({4, 2, 6}), v = c.t({4, 2, 6});
    const Tensor kpm = tensor({{false, false, true, false}, {false, true, false, false}});
    return {S({q, k, v, 6, 2, c.t({18, 6}), c.t({18}), kNone, kNone, false, 0.0, c.t({6, 6}), c.t({6}), false},
              "weights averaged"),
            S({q,     k,     v,           6,     2,     c.t({18, 6}), c.t({18}), c.t({1, 1, 6}), c.t({1, 1, 6}),
               true,  0.0,   c.t({6, 6}), kNone, false, kpm,          true,      c.t({3, 4}),    false,
               kNone, kNone, kNone,       kNone, kNone, false},
              "bias_k/v, zero attention, masks, per-head weights")};
  });
  // ---- sparse layouts: the constructors and dense -> sparse conversions (composites); their results
  // are compared member by member (indices, values; crow/col indices). Sizes inferred from the
  // indices, and the patterns of to_sparse, are the data (meta raises).
  const auto i64 = [](std::vector<int64_t> v, std::vector<int64_t> shape) {
    return from_blob(v.data(), {static_cast<int64_t>(v.size())}, TensorOptions().dtype(kInt64)).clone().reshape(shape);
  };
  add(
      "sparse_coo_tensor.size",
      [](SampleCtx& c) -> Samples {
        return {S({ints({2, 3}), c.dtype()}, "[2, 3]"), S({ints({0, 4}), c.dtype()}, "[0, 4]")};
      },
      {}, Values::Compared);
  add("sparse_coo_tensor.indices", [i64](SampleCtx& c) -> Samples {
    return {SampleInput{{i64({0, 1, 1, 2, 0, 2}, {2, 3}), c.t({3})}, "2 sparse dims", true},
            SampleInput{{i64({1, 0, 1}, {1, 3}), c.t({3, 2})}, "hybrid, a repeated index", true}};
  });
  add(
      "sparse_coo_tensor.indices_size",
      [i64](SampleCtx& c) -> Samples {
        return {SampleInput{{i64({0, 1, 1, 2, 0, 2}, {2, 3}), c.t({3}), ints({2, 3})}, "2 sparse dims", false},
                SampleInput{{i64({1, 0, 1}, {1, 3}), c.t({3, 2}), ints({3, 2})}, "hybrid, uncoalesced", false},
                SampleInput{{i64({}, {2, 0}), c.t({0}), ints({2, 3})}, "no entries", false}};
      },
      [i64](SampleCtx& c) -> Errors {
        const Tensor ix = i64({0, 1, 1, 2, 0, 2}, {2, 3});
        return {E({ix.to(kInt32), c.t({3}), ints({2, 3})}, "int32 indices", "TypeError",
                  "[sparse_coo_tensor] expected indices of scalar type Int64 but found int32"),
                E({ix.select(0, 0), c.t({3}), ints({2, 3})}, "1-d indices", "ValueError",
                  "[sparse_coo_tensor] indices must be sparse_dim x nnz, but got: [3]"),
                E({ix, c.t({3}), ints({2, 3, 4})}, "a size of another length", "ValueError",
                  "[sparse_coo_tensor] number of dimensions must be sparse_dim (2) + dense_dim (0), but got 3"),
                E({ix, c.t({3, 2}), ints({2, 3, 3})}, "values of another dense size", "ValueError",
                  "[sparse_coo_tensor] values has incorrect size, expected [3, 3], got [3, 2]")};
      });
  add(
      "sparse_csr_tensor.crow_col_value_size",
      [i64](SampleCtx& c) -> Samples {
        // Not expanded: repeated crow_indices are invalid, which meta cannot see (no values).
        return {SampleInput{{i64({0, 2, 3}, {3}), i64({0, 2, 1}, {3}), c.t({3}), ints({2, 3})}, "int64", false, false},
                SampleInput{{i64({0, 0, 1, 1}, {4}).to(kInt32), i64({3}, {1}).to(kInt32), c.t({1}), ints({3, 4})},
                            "int32 indices, empty rows",
                            false,
                            false}};
      },
      [i64](SampleCtx& c) -> Errors {
        const Tensor cr = i64({0, 1, 3}, {3}), co = i64({1, 0, 2}, {3});
        return {E({cr, co, c.t({3}), ints({3, 3})}, "rows of another count", "ValueError",
                  "[sparse_csr_tensor] crow_indices.shape[-1] must be equal to the number of rows + 1 (=4), but got 3"),
                E({cr, co.to(kInt32), c.t({3}), ints({2, 3})}, "index dtypes differ", "TypeError",
                  "[sparse_csr_tensor] crow_indices and col_indices must have the same dtype, but got int64 and "
                  "int32, respectively"),
                E({cr, co, c.t({3}), ints({2, 3, 4})}, "batched", "NotImplementedError",
                  "[sparse_csr_tensor] batched CSR (size [2, 3, 4]) is not supported")};
      });
  add("sparse_csr_tensor.crow_col_value", [i64](SampleCtx& c) -> Samples {
    return {SampleInput{{i64({0, 2, 3}, {3}), i64({0, 2, 1}, {3}), c.t({3})}, "size inferred", true, false}};
  });
  add(
      "to_sparse.sparse_dim",
      [](SampleCtx& c) -> Samples {
        return {SampleInput{{c.t({3, 4}), 1}, "1 sparse dim", true}, SampleInput{{c.t({2, 3, 2}), 2}, "hybrid", true},
                SampleInput{{c.t({3, 4}), 0}, "no sparse dim", true}};
      },
      [](SampleCtx& c) -> Errors {
        return {E({c.t({2, 2}), 3}, "too many sparse dims", "ValueError",
                  "[to_sparse] sparse_dim must be less than or equal to self.dim()")};
      });
  add("to_sparse", [](SampleCtx& c) -> Samples {
    return {SampleInput{{c.t({3, 4})}, "2-d", true}, SampleInput{{c.t({5})}, "1-d", true},
            SampleInput{{c.t({2, 0})}, "empty", true}};
  });
  add("to_sparse_csr", [](SampleCtx& c) -> Samples {
    return {SampleInput{{c.t({3, 4})}, "2-d", true}, SampleInput{{c.t({0, 3})}, "no rows", true}};
  });

  // Families whose tables live in their own files.
#include "opinfo/complex_fft.inc"
#include "opinfo/fidelity.inc"
#include "opinfo/index_shape.inc"
#include "opinfo/nn_core.inc"
#include "opinfo/pointwise_binary.inc"
#include "opinfo/pointwise_unary.inc"
#include "opinfo/sort_linalg.inc"
#include "opinfo/spatial_pool.inc"
#include "opinfo/spatial_resample.inc"
  // Last: its aliases copy the entries above.
#include "opinfo/everyday.inc"
  return db;
}

}  // namespace

const std::map<std::string, OpInfo>& op_db() {
  static const std::map<std::string, OpInfo> db = build();
  return db;
}

const std::map<std::string, std::string>& skipped_ops() {
  static const std::map<std::string, std::string> s = {
      {"aten::cuda", "moves a tensor to the CUDA device whatever the backend under test: tests/gpu/test_cuda.cpp"},
      {"aten::is_pinned",
       "asks a GPU plugin's pinned host allocator about CPU tensors: tests/gpu/test_pinned_memory.cpp"},
      {"aten::pin_memory", "copies CPU tensors into a GPU plugin's pinned memory: tests/gpu/test_pinned_memory.cpp"},
      {"aten::_pin_memory", "copies CPU tensors into a GPU plugin's pinned memory: tests/gpu/test_pinned_memory.cpp"},
  };
  return s;
}

// Each entry is a bug in a kernel under plugins/, left for its owner: fix the kernel, then drop the
// entry (the harness fails while a listed case passes).
const std::vector<KnownFailure>& known_failures() {
  static const std::vector<KnownFailure> k = {};  // none now
  return k;
}

}  // namespace ember::optest
