// The meta plugin against the cpu plugin: every operator with a CPU kernel has a Meta kernel, and
// each call on meta tensors gives the sizes, strides and dtype (or the error) the cpu kernel gives
// on real tensors of the same geometry, for every dtype and for contiguous, transposed, sliced and
// expanded inputs.
#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "OpTestUtil.h"
#include "ember/dispatcher/Dispatcher.h"
#include "ember/ember.h"

using namespace ember;
using ember::optest::kDtypes;

namespace {

enum class Lay { Contig, Transposed, Sliced, Expanded };
const Lay kLayouts[] = {Lay::Contig, Lay::Transposed, Lay::Sliced, Lay::Expanded};
const char* lay_name(Lay l) {
  return l == Lay::Contig       ? "contiguous"
         : l == Lay::Transposed ? "transposed"
         : l == Lay::Sliced     ? "sliced"
                                : "expanded";
}

// Builds a case's inputs: real CPU tensors, or meta tensors of the very same geometry.
struct Env {
  bool meta;
  ScalarType dt;
  Lay lay;

  Device dev() const { return meta ? Device(kMeta) : Device(kCPU); }
  TensorOptions opts(ScalarType t) const { return TensorOptions(t).device(dev()); }
  TensorOptions opts() const { return opts(dt); }

  static Tensor values(IntArrayRef sizes, ScalarType t) { return (ember::randn(sizes, kFloat64) * 3).to(t); }
  Tensor twin(const Tensor& c) const {
    if (!meta) return c;
    return ember::empty_strided(c.sizes(), c.strides(), TensorOptions(c.dtype()).device(kMeta));
  }
  // A contiguous input.
  Tensor t(IntArrayRef sizes, std::optional<ScalarType> t = {}) const { return twin(values(sizes, t.value_or(dt))); }
  // A contiguous index tensor of in-range values (0, 1, ..., bound - 1, 0, ...): cpu kernels check
  // index values, which meta tensors do not have.
  Tensor ix(IntArrayRef sizes, int64_t bound, ScalarType t = kInt64) const {
    Tensor c = ember::empty(sizes, TensorOptions(kInt64));
    int64_t* p = c.data_ptr<int64_t>();
    for (int64_t i = 0; i < c.numel(); ++i) p[i] = i % bound;
    return twin(c.to(t));
  }
  // x() as an lvalue, for kernels that take `Tensor&` self.
  Tensor& w(IntArrayRef sizes) const { return written_.emplace_back(x(sizes)); }
  mutable std::deque<Tensor> written_{};
  // The case's main input, in the case's layout.
  Tensor x(IntArrayRef sizes, std::optional<ScalarType> t = {}) const {
    const ScalarType d = t.value_or(dt);
    std::vector<int64_t> s(sizes.begin(), sizes.end());
    Tensor c;
    if (lay == Lay::Transposed && s.size() >= 2) {
      std::swap(s[s.size() - 1], s[s.size() - 2]);
      c = values(s, d).transpose(-1, -2);
    } else if (lay == Lay::Sliced && !s.empty()) {
      s.back() *= 2;
      c = values(s, d).slice(-1, 0, std::nullopt, 2);
    } else if (lay == Lay::Expanded && !s.empty() && s[0] > 1) {
      s[0] = 1;
      c = values(s, d).expand(sizes);
    } else {
      c = values(sizes, d);
    }
    return twin(c);
  }
};

// One output of a case, or the error its call raised (each call is caught on its own, so an op
// that rejects a dtype does not hide the case's other calls).
struct Out {
  Tensor t;
  bool threw = false;
  std::string error;
  std::string type;
};
using Outs = std::vector<Out>;
template <class F>
Out run_one(F&& f) {
  Out o;
  try {
    o.t = f();
  } catch (const Error& err) {
    o.threw = true;
    o.error = err.what();
    o.type = typeid(err).name();
  }
  return o;
}
#define R(...) run_one([&] { return Tensor(__VA_ARGS__); })
// The two outputs of a tuple-returning call (both carry its error when it raises).
template <class F>
Outs run_two(F&& f) {
  Outs o(2);
  try {
    std::tie(o[0].t, o[1].t) = f();
  } catch (const Error& err) {
    for (Out& x : o) x = Out{Tensor(), true, err.what(), typeid(err).name()};
  }
  return o;
}
#define R2(...) run_two([&] { return std::tuple<Tensor, Tensor>(__VA_ARGS__); })
Outs join(std::initializer_list<Outs> parts) {
  Outs r;
  for (const Outs& p : parts) r.insert(r.end(), p.begin(), p.end());
  return r;
}
struct Case {
  std::vector<std::string> ops;  // schema names ("add.Tensor") this case calls
  std::function<Outs(const Env&)> run;
};

std::vector<Case> nn_cases();  // the CNN operators (end of file)

// Every operator with a CPU kernel appears in some case (checked below).
std::vector<Case> cases() {
  std::vector<Case> c = nn_cases();
  // ---- factories
  c.push_back({{"empty", "empty_strided", "arange.start_step", "linspace", "eye", "eye.m"}, [](const Env& e) {
                 return Outs{R(ember::empty({2, 3}, e.opts())),
                             R(ember::empty({0, 4}, e.opts())),
                             R(ember::empty_strided({2, 3}, {1, 2}, e.opts())),
                             R(ember::arange(0, 10, 3, e.opts())),
                             R(ember::arange(1.5, 7.25, 0.5, e.opts())),
                             R(ember::linspace(0, 1, 5, e.opts())),
                             R(ember::eye(3, e.opts())),
                             R(ember::eye(2, 4, e.opts()))};
               }});
  c.push_back({{"empty"}, [](const Env& e) { return Outs{R(ember::empty({2, -1}, e.opts()))}; }});
  c.push_back({{"arange.start_step"}, [](const Env& e) { return Outs{R(ember::arange(0, 10, -1, e.opts()))}; }});
  c.push_back({{"arange.start_step"}, [](const Env& e) { return Outs{R(ember::arange(0, 10, 0, e.opts()))}; }});
  c.push_back({{"linspace"}, [](const Env& e) { return Outs{R(ember::linspace(0, 1, -2, e.opts()))}; }});
  c.push_back({{"eye.m"}, [](const Env& e) { return Outs{R(ember::eye(2, -3, e.opts()))}; }});
  c.push_back(
      {{"fill_.Scalar", "zero_", "copy_"}, [](const Env& e) {
         Tensor a = e.x({2, 3}), z = e.x({2, 3}), d = e.x({2, 3});
         return Outs{R(a.fill_(1)), R(z.zero_()), R(d.copy_(e.t({3}, kFloat32))), R(e.t({4, 3}).copy_(e.x({3})))};
       }});
  // A value that does not fit the dtype (checked from the Scalar and the dtype, no data needed).
  c.push_back({{"fill_.Scalar"}, [](const Env& e) { return Outs{R(e.x({2, 3}).fill_(300))}; }});
  c.push_back({{"fill_.Scalar"}, [](const Env& e) { return Outs{R(e.x({2, 3}).fill_(1e300))}; }});
  c.push_back({{"masked_fill.Scalar", "masked_fill_.Scalar"}, [](const Env& e) {
                 return Outs{R(ember::masked_fill(e.x({2, 3}), e.t({3}, kBool), -200)),
                             R(e.x({2, 3}).masked_fill_(e.t({3}, kBool), 70000.0))};
               }});
  c.push_back({{"copy_"}, [](const Env& e) { return Outs{R(e.t({2, 3}).copy_(e.x({4})))}; }});
  c.push_back({{"copy_"}, [](const Env& e) { return Outs{R(e.t({3}).copy_(e.x({2, 3})))}; }});
  // ---- binary arithmetic and comparisons: broadcasting, promotion with tensors, 0-dim tensors
  // and Scalars, in place and out=, and bad shapes.
  c.push_back(
      {{"add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "add.Scalar", "sub.Scalar", "mul.Scalar", "div.Scalar"},
       [](const Env& e) {
         Tensor a = e.x({2, 3}), i = e.t({3}, kInt32), z = e.t({}, kFloat64), f = e.t({2, 1}, kFloat16);
         return Outs{
             R(ember::add(a, i)),      R(ember::sub(a, f, 2)),          R(ember::mul(a, z)),    R(ember::div(a, i)),
             R(ember::add(a, 1)),      R(ember::sub(a, 2.5)),           R(ember::mul(a, true)), R(ember::div(a, 2)),
             R(ember::add(i, a, 2.5)), R(ember::mul(a, e.x({4, 2, 3})))};
       }});
  c.push_back({{"add.Tensor"}, [](const Env& e) { return Outs{R(ember::add(e.x({2, 3}), e.t({4})))}; }});
  c.push_back({{"mul.Tensor"}, [](const Env& e) { return Outs{R(ember::mul(e.x({2, 3}), e.t({2})))}; }});
  c.push_back({{"add_.Tensor", "sub_.Tensor", "mul_.Tensor", "div_.Tensor", "add_.Scalar", "sub_.Scalar", "mul_.Scalar",
                "div_.Scalar"},
               [](const Env& e) {
                 Outs o;
                 o.push_back(R(e.x({2, 3}).add_(e.t({3}, kInt64))));
                 o.push_back(R(e.x({2, 3}).sub_(e.t({}, kFloat64), 3)));
                 o.push_back(R(e.x({2, 3}).mul_(e.t({2, 1}))));
                 o.push_back(R(e.x({2, 3}).div_(e.t({3}))));
                 o.push_back(R(e.x({2, 3}).add_(1.5)));
                 o.push_back(R(e.x({2, 3}).sub_(1)));
                 o.push_back(R(e.x({2, 3}).mul_(2)));
                 o.push_back(R(e.x({2, 3}).div_(2)));
                 return o;
               }});
  c.push_back({{"add_.Tensor"}, [](const Env& e) { return Outs{R(e.x({3}).add_(e.t({2, 3})))}; }});
  c.push_back({{"add.out", "sub.out", "mul.out", "div.out"}, [](const Env& e) {
                 Tensor o1 = e.t({0}), o2 = e.t({2, 3}), o3 = e.t({5}), o4 = e.t({2, 3}, kFloat64);
                 return Outs{
                     R(ember::add_out(o1, e.x({2, 3}), e.t({3}))), R(ember::sub_out(o2, e.x({2, 3}), e.t({2, 3}))),
                     R(ember::mul_out(o3, e.x({2, 3}), e.t({1}))), R(ember::div_out(o4, e.x({2, 3}), e.t({3})))};
               }});
  c.push_back({{"eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "lt.Tensor", "lt.Scalar", "le.Tensor", "le.Scalar",
                "gt.Tensor", "gt.Scalar", "ge.Tensor", "ge.Scalar"},
               [](const Env& e) {
                 Tensor a = e.x({2, 3}), o = e.t({3}, kInt8);
                 return Outs{R(ember::eq(a, o)), R(ember::eq(a, 1)),   R(ember::ne(a, o)), R(ember::ne(a, 1.5)),
                             R(ember::lt(a, o)), R(ember::lt(a, 0)),   R(ember::le(a, o)), R(ember::le(a, true)),
                             R(ember::gt(a, o)), R(ember::gt(a, 2.0)), R(ember::ge(a, o)), R(ember::ge(a, 1))};
               }});
  c.push_back({{"lt.Tensor"}, [](const Env& e) { return Outs{R(ember::lt(e.x({2, 3}), e.t({2})))}; }});
  // ---- unary
  using InPlace = std::function<Tensor&(Tensor&)>;
  auto unary = [](const char* name, Tensor (*f)(const Tensor&), InPlace inplace,
                  Tensor& (*out)(Tensor&, const Tensor&)) {
    std::vector<std::string> ops = {name, std::string(name) + "_", std::string(name) + ".out"};
    return Case{ops, [f, inplace, out](const Env& e) {
                  Tensor o = e.t({0}), x = e.x({2, 3});
                  return Outs{R(f(e.x({2, 3}))), R(inplace(x)), R(out(o, e.x({2, 3}))), R(f(e.x({4, 2, 3})))};
                }};
  };
  c.push_back(unary(
      "neg", &ember::neg, [](Tensor& x) -> Tensor& { return x.neg_(); }, &ember::neg_out));
  c.push_back(unary(
      "abs", &ember::abs, [](Tensor& x) -> Tensor& { return x.abs_(); }, &ember::abs_out));
  c.push_back(unary(
      "sign", &ember::sign, [](Tensor& x) -> Tensor& { return x.sign_(); }, &ember::sign_out));
  c.push_back(unary(
      "exp", &ember::exp, [](Tensor& x) -> Tensor& { return x.exp_(); }, &ember::exp_out));
  c.push_back(unary(
      "log", &ember::log, [](Tensor& x) -> Tensor& { return x.log_(); }, &ember::log_out));
  c.push_back(unary(
      "log1p", &ember::log1p, [](Tensor& x) -> Tensor& { return x.log1p_(); }, &ember::log1p_out));
  c.push_back(unary(
      "sqrt", &ember::sqrt, [](Tensor& x) -> Tensor& { return x.sqrt_(); }, &ember::sqrt_out));
  c.push_back(unary(
      "rsqrt", &ember::rsqrt, [](Tensor& x) -> Tensor& { return x.rsqrt_(); }, &ember::rsqrt_out));
  c.push_back(unary(
      "sin", &ember::sin, [](Tensor& x) -> Tensor& { return x.sin_(); }, &ember::sin_out));
  c.push_back(unary(
      "cos", &ember::cos, [](Tensor& x) -> Tensor& { return x.cos_(); }, &ember::cos_out));
  c.push_back(unary(
      "tanh", &ember::tanh, [](Tensor& x) -> Tensor& { return x.tanh_(); }, &ember::tanh_out));
  c.push_back(unary(
      "sigmoid", &ember::sigmoid, [](Tensor& x) -> Tensor& { return x.sigmoid_(); }, &ember::sigmoid_out));
  c.push_back(unary(
      "erf", &ember::erf, [](Tensor& x) -> Tensor& { return x.erf_(); }, &ember::erf_out));
  c.push_back(unary(
      "silu", &ember::silu, [](Tensor& x) -> Tensor& { return ember::silu_(x); }, &ember::silu_out));
  c.push_back(unary(
      "logical_not", &ember::logical_not, [](Tensor& x) -> Tensor& { return x.logical_not_(); },
      &ember::logical_not_out));
  c.push_back({{"relu", "relu_", "gelu", "gelu_", "gelu.out"}, [](const Env& e) {
                 auto gelu_x = [](Tensor x) { return ember::gelu_(x, "tanh"); };
                 Tensor o = e.t({0});
                 return Outs{R(ember::relu(e.x({2, 3}))), R(e.x({2, 3}).relu_()), R(ember::gelu(e.x({2, 3}), "tanh")),
                             R(gelu_x(e.x({2, 3}))), R(ember::gelu_out(o, e.x({2, 3})))};
               }});
  c.push_back({{"gelu"}, [](const Env& e) { return Outs{R(ember::gelu(e.x({2, 3}), "exact"))}; }});
  // ---- pointwise with several operands
  c.push_back({{"pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out", "pow.Tensor_Scalar", "pow_.Scalar",
                "pow.Tensor_Scalar_out"},
               [](const Env& e) {
                 Tensor o1 = e.t({0}), o2 = e.t({0});
                 return Outs{R(ember::pow(e.x({2, 3}), e.t({3}, kInt64))),
                             R(e.x({2, 3}).pow_(e.t({3}))),
                             R(ember::pow_out(o1, e.x({2, 3}), e.t({2, 3}))),
                             R(ember::pow(e.x({2, 3}), 2.5)),
                             R(e.x({2, 3}).pow_(2)),
                             R(ember::pow_out(o2, e.x({2, 3}), -1))};
               }});
  c.push_back({{"clamp", "clamp_", "clamp.out"}, [](const Env& e) {
                 Tensor o = e.t({0});
                 return Outs{R(ember::clamp(e.x({2, 3}), 0, 1.5)), R(e.x({2, 3}).clamp_(-1)),
                             R(ember::clamp_out(o, e.x({2, 3}), {}, 2)), R(ember::clamp(e.x({2, 3})))};
               }});
  c.push_back({{"where.self", "where.self_out", "masked_fill.Scalar", "masked_fill_.Scalar"}, [](const Env& e) {
                 Tensor o = e.t({0});
                 Tensor m = e.t({2, 3}, kBool), m1 = e.t({3}, kBool);
                 return Outs{R(ember::where(m, e.x({2, 3}), e.t({3}, kFloat64))),
                             R(ember::where_out(o, m1, e.x({2, 3}), e.t({}))),
                             R(ember::masked_fill(e.x({2, 3}), e.t({4, 1, 3}, kBool), 1)),
                             R(e.x({2, 3}).masked_fill_(m1, 0)),
                             R(ember::where(e.t({2, 3}), e.x({2, 3}), e.x({2, 3})))};
               }});
  c.push_back(
      {{"lerp.Scalar", "lerp_.Scalar", "lerp.Scalar_out", "addcmul", "addcmul_", "addcmul.out"}, [](const Env& e) {
         Tensor o1 = e.t({0}), o2 = e.t({0});
         return Outs{R(ember::lerp(e.x({2, 3}), e.t({3}), 0.5)),
                     R(e.x({2, 3}).lerp_(e.t({2, 3}), 0.25)),
                     R(ember::lerp_out(o1, e.x({2, 3}), e.t({1}), 1)),
                     R(ember::addcmul(e.x({2, 3}), e.t({3}, kInt32), e.t({2, 1}))),
                     R(e.x({2, 3}).addcmul_(e.t({3}), e.t({3}), 2)),
                     R(ember::addcmul_out(o2, e.x({2, 3}), e.t({3}), e.t({4, 1, 1})))};
       }});
  c.push_back({{"logical_and", "logical_and_", "logical_and.out", "logical_or", "logical_or_", "logical_or.out",
                "logical_xor", "logical_xor_", "logical_xor.out"},
               [](const Env& e) {
                 Tensor o1 = e.t({0}), o2 = e.t({0}, kFloat32), o3 = e.t({0}, kBool);
                 return Outs{R(ember::logical_and(e.x({2, 3}), e.t({3}, kInt8))),
                             R(e.x({2, 3}).logical_and_(e.t({3}))),
                             R(ember::logical_and_out(o1, e.x({2, 3}), e.t({2, 3}))),
                             R(ember::logical_or(e.x({2, 3}), e.t({}))),
                             R(e.x({2, 3}).logical_or_(e.t({2, 3}, kBool))),
                             R(ember::logical_or_out(o2, e.x({2, 3}), e.t({3}))),
                             R(ember::logical_xor(e.x({2, 3}), e.t({4, 1, 3}))),
                             R(e.x({2, 3}).logical_xor_(e.t({1}))),
                             R(ember::logical_xor_out(o3, e.x({2, 3}), e.t({3})))};
               }});
  // ---- reductions
  c.push_back({{"sum", "sum.dim_IntList", "mean", "mean.dim", "prod", "prod.dim_int"}, [](const Env& e) {
                 return Outs{R(ember::sum(e.x({2, 3, 4}))),
                             R(ember::sum(e.x({2, 3, 4}), {0, -1}, true)),
                             R(ember::sum(e.x({2, 3, 4}), {1}, false, kFloat64)),
                             R(ember::mean(e.x({2, 3, 4}))),
                             R(ember::mean(e.x({2, 3, 4}), {1}, true, kFloat32)),
                             R(ember::prod(e.x({2, 3, 4}))),
                             R(ember::prod(e.x({2, 3, 4}), -1, true)),
                             R(ember::sum(e.x({2, 3}), {}, false))};
               }});
  c.push_back({{"sum.dim_IntList"}, [](const Env& e) { return Outs{R(ember::sum(e.x({2, 3}), {0, 0}))}; }});
  c.push_back({{"mean.dim"}, [](const Env& e) { return Outs{R(ember::mean(e.x({2, 3}), {2}))}; }});
  c.push_back({{"amax", "amin", "max", "min", "max.dim", "min.dim", "argmax", "argmin"}, [](const Env& e) {
                 auto [v1, i1] = ember::max(e.x({2, 3, 4}), 1, true);
                 auto [v2, i2] = ember::min(e.x({2, 3, 4}), -1);
                 return Outs{R(ember::amax(e.x({2, 3, 4}), {0, 2})),
                             R(ember::amin(e.x({2, 3, 4}), {1}, true)),
                             R(ember::max(e.x({2, 3}))),
                             R(ember::min(e.x({2, 3}))),
                             R(v1),
                             R(i1),
                             R(v2),
                             R(i2),
                             R(ember::argmax(e.x({2, 3}))),
                             R(ember::argmin(e.x({2, 3}), 1, true)),
                             R(ember::argmax(e.x({2, 3}), 0))};
               }});
  c.push_back({{"max"}, [](const Env& e) { return Outs{R(ember::max(e.x({0, 3})))}; }});
  c.push_back({{"amax"}, [](const Env& e) { return Outs{R(ember::amax(e.x({2, 0}), {1}))}; }});
  c.push_back({{"any", "any.dim", "all", "all.dim"}, [](const Env& e) {
                 return Outs{R(ember::any(e.x({2, 3}))), R(ember::any(e.x({2, 3}), 1, true)),
                             R(ember::all(e.x({2, 3}))), R(ember::all(e.x({2, 3}), -2))};
               }});
  c.push_back({{"softmax.int", "log_softmax.int", "logsumexp", "cumsum"}, [](const Env& e) {
                 return Outs{R(ember::softmax(e.x({2, 3}), 1)),
                             R(ember::log_softmax(e.x({2, 3}), 0, kFloat64)),
                             R(ember::logsumexp(e.x({2, 3, 4}), {1, 2})),
                             R(ember::logsumexp(e.x({2, 3}), {0}, true)),
                             R(ember::cumsum(e.x({2, 3}), 1)),
                             R(ember::cumsum(e.x({2, 3}), 0, kFloat32))};
               }});
  c.push_back({{"softmax.int"}, [](const Env& e) { return Outs{R(ember::softmax(e.x({2, 3}), 2))}; }});
  c.push_back({{"var", "var.dim", "std", "std.dim"}, [](const Env& e) {
                 return Outs{R(ember::var(e.x({2, 3}))), R(ember::var(e.x({2, 3, 4}), IntArrayRef({0, 2}), true, true)),
                             R(ember::std(e.x({2, 3}), false)), R(ember::std(e.x({2, 3}), std::nullopt, true, true))};
               }});
  // ---- sort and topk; tuple results and out= pairs
  c.push_back({{"sort", "sort.stable", "argsort", "topk", "sort.values", "topk.values"}, [](const Env& e) {
                 Tensor v1 = e.t({0}), i1 = e.t({0}, kInt64), v2 = e.t({3, 2}), i2 = e.t({3, 2}, kInt64);
                 Tensor v3 = e.t({0}, kFloat64), i3 = e.t({0}, kInt64), v4 = e.t({0}), i4 = e.t({0}, kInt32);
                 return join({R2(ember::sort(e.x({2, 3, 4}), 1, true)),
                              R2(ember::sort(e.x({2, 3}), std::optional<bool>(true), 0)),
                              R2(ember::sort(e.t({}))),
                              {R(ember::argsort(e.x({2, 3}))), R(ember::argsort(e.x({2, 3}), -2, true))},
                              R2(ember::topk(e.x({2, 5}), 3)),
                              R2(ember::topk(e.x({4, 3}), 2, 0, false, false)),
                              R2(ember::topk(e.x({2, 3}), 0)),
                              R2(ember::topk(e.t({}), 1)),
                              R2(ember::sort_out(v1, i1, e.x({2, 3}), 0)),
                              R2(ember::topk_out(v2, i2, e.x({3, 4}), 2)),
                              R2(ember::sort_out(v3, i3, e.x({2, 3}))),
                              R2(ember::topk_out(v4, i4, e.x({3, 4}), 2))});
               }});
  c.push_back({{"topk"}, [](const Env& e) { return R2(ember::topk(e.x({2, 5}), 6)); }});
  c.push_back({{"topk"}, [](const Env& e) { return R2(ember::topk(e.x({2, 5}), -1)); }});
  c.push_back({{"sort"}, [](const Env& e) { return R2(ember::sort(e.x({2, 5}), 2)); }});
  // ---- norms, var/std with a correction, cumprod
  c.push_back({{"norm.Scalar", "norm.ScalarOpt_dim", "linalg_vector_norm", "var.correction", "std.correction",
                "var_mean.correction", "std_mean.correction", "cumprod", "cumprod.out"},
               [](const Env& e) {
                 using OptI = std::optional<int64_t>;
                 const double inf = std::numeric_limits<double>::infinity();
                 Tensor o = e.t({0}), o2 = e.t({2, 3}, kFloat64);
                 return join({{R(ember::norm(e.x({2, 3}))), R(ember::norm(e.x({2, 3}), 1)),
                               R(ember::norm(e.x({2, 3, 4}), std::optional<Scalar>(3), {0, 2}, true)),
                               R(ember::norm(e.x({2, 3}), std::nullopt, {-1})),
                               R(ember::norm(e.x({2, 0}), inf, {1})), R(ember::norm(e.x({2, 0}), 2, {1})),
                               R(ember::linalg_vector_norm(e.x({2, 3}), 2, IntArrayRef({1}), false, kFloat64)),
                               R(ember::linalg_vector_norm(e.x({2, 3}), 0, std::nullopt, true)),
                               R(ember::linalg_vector_norm(e.x({2, 3}), -inf, std::nullopt, false, kInt32)),
                               R(ember::var(e.x({2, 3, 4}), IntArrayRef({1}), OptI(0), true)),
                               R(ember::std(e.x({2, 3}), std::nullopt, OptI(2))),
                               R(ember::var(e.x({2, 3}), IntArrayRef({0, 0}), OptI(1)))},
                              R2(ember::var_mean(e.x({2, 3}), IntArrayRef({0}), OptI(1))),
                              R2(ember::std_mean(e.x({2, 3, 4}), IntArrayRef({0, 2}), std::nullopt, true)),
                              {R(ember::cumprod(e.x({2, 3}), 1)), R(ember::cumprod(e.x({2, 3}), -2, kFloat64)),
                               R(ember::cumprod(e.x({2, 3}), 2)), R(ember::cumprod_out(o, e.x({2, 3}), 0)),
                               R(ember::cumprod_out(o2, e.x({2, 3}), 1, kFloat32))}});
               }});
  c.push_back({{"norm.Scalar"}, [](const Env& e) { return Outs{R(ember::norm(e.x({2, 3}), Scalar(std::complex<double>(1, 1))))}; }});
  // ---- reductions' out= variants: out's dtype is the computation's (or must be the given
  // dtype), wrong sizes are resized, and index outputs must be int64.
  c.push_back({{"sum.IntList_out", "mean.out", "prod.int_out", "cumsum.out", "amax.out", "amin.out", "max.dim_max",
                "min.dim_min", "argmax.out", "argmin.out", "logsumexp.out"},
               [](const Env& e) {
                 Tensor o1 = e.t({0}), o2 = e.t({2, 3}, kFloat64), o3 = e.t({0}), o4 = e.t({5}), o5 = e.t({2, 3});
                 Tensor o6 = e.t({0}), o7 = e.t({}), v1 = e.t({0}), i1 = e.t({0}, kInt64), v2 = e.t({0});
                 Tensor i2 = e.t({3}, kInt32), a1 = e.t({0}, kInt64), a2 = e.t({0}, kFloat32), l1 = e.t({0});
                 Tensor l2 = e.t({0}, kFloat64), o8 = e.t({0}, kInt64);
                 return join({{R(ember::sum_out(o1, e.x({2, 3, 4}), {1})),
                               R(ember::sum_out(o2, e.x({2, 3}), {}, false, kFloat64)),
                               R(ember::sum_out(o8, e.x({2, 3}), {0}, false, kFloat32)),
                               R(ember::mean_out(o3, e.x({2, 3}), {0}, true)),
                               R(ember::prod_out(o4, e.x({2, 3}), 1)),
                               R(ember::cumsum_out(o5, e.x({2, 3}), 1)),
                               R(ember::amax_out(o6, e.x({2, 3}), {1}, true)),
                               R(ember::amin_out(o7, e.x({2, 3})))},
                              R2(ember::max_out(v1, i1, e.x({2, 3}), 1)),
                              R2(ember::min_out(v2, i2, e.x({2, 3}), 0, true)),
                              {R(ember::argmax_out(a1, e.x({2, 3}), 1)), R(ember::argmin_out(a2, e.x({2, 3}))),
                               R(ember::logsumexp_out(l1, e.x({2, 3}), {1})),
                               R(ember::logsumexp_out(l2, e.x({2, 3}), {0, 1}, true))}});
               }});
  c.push_back({{"amax.out"}, [](const Env& e) {
                 Tensor o = e.t({0});
                 return Outs{R(ember::amax_out(o, e.x({2, 0}), {1}))};
               }});
  c.push_back({{"argmax.out"}, [](const Env& e) {
                 Tensor o = e.t({0}, kInt64);
                 return Outs{R(ember::argmax_out(o, e.x({2, 3}), 2))};
               }});
  // ---- shapes and products
  c.push_back({{"cat", "flip"}, [](const Env& e) {
                 return Outs{R(ember::cat({e.x({2, 3}), e.t({4, 3}, kInt64)}, 0)),
                             R(ember::cat({e.x({2, 3}), e.t({0})}, -1)), R(ember::cat({e.t({0}), e.t({0}, kInt32)})),
                             R(ember::flip(e.x({2, 3}), {0, -1})), R(ember::flip(e.x({2, 3}), {}))};
               }});
  c.push_back({{"cat"}, [](const Env& e) { return Outs{R(ember::cat({e.x({2, 3}), e.t({2, 4})}, 0))}; }});
  c.push_back({{"cat"}, [](const Env& e) { return Outs{R(ember::cat({e.x({2, 3}), e.t({3})}, 0))}; }});
  c.push_back({{"flip"}, [](const Env& e) { return Outs{R(ember::flip(e.x({2, 3}), {1, 1}))}; }});
  c.push_back({{"mm", "mm.out", "bmm", "addmm"}, [](const Env& e) {
                 Tensor o = e.t({0});
                 return Outs{R(ember::mm(e.x({2, 3}), e.t({3, 4}))), R(ember::mm_out(o, e.x({2, 3}), e.t({3, 5}))),
                             R(ember::bmm(e.x({2, 2, 3}), e.t({2, 3, 4}))),
                             R(ember::addmm(e.t({4}), e.x({2, 3}), e.t({3, 4}))),
                             R(ember::addmm(e.t({2, 1}), e.x({2, 3}), e.t({3, 4}), 0, 2))};
               }});
  c.push_back({{"mm"}, [](const Env& e) { return Outs{R(ember::mm(e.x({2, 3}), e.t({4, 4})))}; }});
  c.push_back({{"mm"}, [](const Env& e) { return Outs{R(ember::mm(e.x({2, 3}), e.t({3})))}; }});
  c.push_back({{"bmm"}, [](const Env& e) { return Outs{R(ember::bmm(e.x({2, 2, 3}), e.t({3, 3, 4})))}; }});
  c.push_back({{"addmm"}, [](const Env& e) { return Outs{R(ember::addmm(e.t({3}), e.x({2, 3}), e.t({3, 4})))}; }});
  // ---- indexing: integer index tensors only (a mask index has a data-dependent result size:
  // MetaTensors.DataDependentOpsThrow). Expanded inputs written in place are an error on both.
  using OptT = std::optional<Tensor>;
  c.push_back({{"index.Tensor", "index_put_"}, [](const Env& e) {
                 const OptT none;
                 return Outs{R(ember::index(e.x({4, 5, 6}), {e.ix({2, 3}, 4)})),
                             R(ember::index(e.x({4, 5, 6}), {none, e.ix({3}, 5), e.ix({2, 1}, 6)})),
                             R(ember::index(e.x({4, 5, 6}), {e.ix({3}, 4), none, e.ix({3}, 6)})),
                             R(ember::index(e.x({4, 5, 6}), {none})),
                             R(ember::index(e.x({4, 5}), {e.ix({}, 4), e.ix({2}, 5)})),
                             R(ember::index_put_(e.w({4, 5, 6}), {e.ix({2}, 4)}, e.t({5, 6}))),
                             R(ember::index_put_(e.w({4, 5, 6}), {none, e.ix({2, 1}, 5)}, e.t({1, 1, 6}), true)),
                             R(ember::index_put_(e.w({4, 5}), {e.ix({3}, 4), e.ix({3}, 5)}, e.t({}))),
                             R(ember::index_put_(e.w({4, 5}), {e.ix({3}, 4)}, e.t({5}, kFloat64)))};
               }});
  c.push_back({{"index.Tensor"}, [](const Env& e) {
                 return Outs{R(ember::index(e.x({4, 5}), {e.ix({2}, 4), e.ix({3}, 5)}))};
               }});
  c.push_back({{"index.Tensor"}, [](const Env& e) {
                 return Outs{R(ember::index(e.x({4, 5}), {e.ix({2}, 4), e.ix({2}, 5), e.ix({2}, 1)}))};
               }});
  c.push_back({{"index.Tensor"}, [](const Env& e) { return Outs{R(ember::index(e.x({4, 5}), {e.ix({2}, 4, kInt32)}))}; }});
  c.push_back({{"index_put_"}, [](const Env& e) {
                 return Outs{R(ember::index_put_(e.w({4, 5}), {e.ix({3}, 4)}, e.t({2, 5})))};
               }});
  c.push_back({{"index_select", "index_select.out", "embedding"}, [](const Env& e) {
                 Tensor o1 = e.t({0}), o2 = e.t({7, 2}), o3 = e.t({3}, kInt8);
                 return Outs{R(ember::index_select(e.x({3, 4}), 1, e.ix({5}, 4))),
                             R(ember::index_select(e.x({3, 4}), -2, e.ix({}, 3, kInt32))),
                             R(ember::index_select(e.t({}), 0, e.ix({1}, 1))),
                             R(ember::index_select_out(o1, e.x({3, 4}), 0, e.ix({2}, 3))),
                             R(ember::index_select_out(o2, e.x({3, 4}), 1, e.ix({2}, 4))),
                             R(ember::index_select_out(o3, e.x({3, 4}), 1, e.ix({2}, 4))),
                             R(ember::embedding(e.x({10, 4}), e.ix({2, 3}, 10))),
                             R(ember::embedding(e.x({10, 4}), e.ix({}, 10, kInt32)))};
               }});
  c.push_back({{"index_select"}, [](const Env& e) { return Outs{R(ember::index_select(e.x({3, 4}), 0, e.ix({2, 2}, 3)))}; }});
  c.push_back({{"index_select"}, [](const Env& e) { return Outs{R(ember::index_select(e.x({3, 4}), 2, e.ix({2}, 3)))}; }});
  c.push_back({{"index_select"}, [](const Env& e) { return Outs{R(ember::index_select(e.x({3, 4}), 0, e.ix({2}, 3, kInt8)))}; }});
  c.push_back({{"embedding"}, [](const Env& e) { return Outs{R(ember::embedding(e.x({10}), e.ix({2}, 10)))}; }});
  c.push_back({{"gather", "scatter_.src", "scatter_.value", "scatter_add_"}, [](const Env& e) {
                 return Outs{R(ember::gather(e.x({3, 4}), 1, e.ix({3, 2}, 4))),
                             R(ember::gather(e.x({3, 4}), -2, e.ix({2, 4}, 3))),
                             R(ember::gather(e.x({}), 0, e.ix({}, 1))),
                             R(e.x({3, 4}).scatter_(0, e.ix({2, 4}, 3), e.t({2, 5}))),
                             R(e.x({3, 4}).scatter_(1, e.ix({3, 2}, 4), 1.5)),
                             R(e.x({3, 4}).scatter_add_(1, e.ix({3, 3}, 4), e.t({3, 3}))),
                             R(e.x({3, 4}).scatter_add_(1, e.ix({0, 3}, 4), e.t({1, 1})))};
               }});
  c.push_back({{"gather"}, [](const Env& e) { return Outs{R(ember::gather(e.x({3, 4}), 1, e.ix({4, 2}, 4)))}; }});
  c.push_back({{"gather"}, [](const Env& e) { return Outs{R(ember::gather(e.x({3, 4}), 1, e.ix({3}, 4)))}; }});
  c.push_back({{"gather"}, [](const Env& e) { return Outs{R(ember::gather(e.x({3, 4}), 1, e.ix({3, 2}, 4, kInt32)))}; }});
  c.push_back({{"scatter_.src"}, [](const Env& e) { return Outs{R(e.x({3, 4}).scatter_(1, e.ix({3, 2}, 4), e.t({3, 1})))}; }});
  c.push_back({{"scatter_add_"}, [](const Env& e) {
                 return Outs{R(e.x({3, 4}).scatter_add_(1, e.ix({3, 2}, 4), e.t({3, 2}, kFloat64)))};
               }});
  c.push_back({{"index_fill_.int_Scalar", "masked_scatter_"}, [](const Env& e) {
                 return Outs{R(e.x({3, 4}).index_fill_(1, e.ix({2}, 4), 1)),
                             R(e.x({3, 4}).index_fill_(-2, e.ix({}, 3), 2.5)),
                             R(e.t({}).index_fill_(0, e.ix({1}, 1), 0)),
                             R(e.x({3, 4}).masked_scatter_(e.t({4}, kBool), e.t({12}))),
                             R(e.x({3, 4}).masked_scatter_(e.t({3, 4}, kUInt8), e.t({4, 3})))};
               }});
  c.push_back({{"index_fill_.int_Scalar"}, [](const Env& e) { return Outs{R(e.x({3, 4}).index_fill_(1, e.ix({2, 1}, 4), 1))}; }});
  c.push_back({{"index_fill_.int_Scalar"}, [](const Env& e) { return Outs{R(e.x({3, 4}).index_fill_(1, e.ix({2}, 4, kInt32), 1))}; }});
  c.push_back({{"masked_scatter_"}, [](const Env& e) { return Outs{R(e.x({3, 4}).masked_scatter_(e.t({3}, kBool), e.t({12})))}; }});
  c.push_back({{"masked_scatter_"}, [](const Env& e) { return Outs{R(e.x({3, 4}).masked_scatter_(e.t({4}, kInt64), e.t({12})))}; }});
  c.push_back({{"masked_scatter_"}, [](const Env& e) { return Outs{R(e.x({3, 4}).masked_scatter_(e.t({2, 3, 4}, kBool), e.t({24})))}; }});
  // ---- random fills
  c.push_back({{"uniform_", "normal_", "random_.from", "bernoulli_.float"}, [](const Env& e) {
                 return Outs{R(e.x({2, 3}).uniform_(-1, 1)), R(e.x({2, 3}).normal_(0, 2)), R(e.x({2, 3}).random_(0, 5)),
                             R(e.x({2, 3}).bernoulli_(0.5))};
               }});
  c.push_back({{"uniform_"}, [](const Env& e) { return Outs{R(e.x({2, 3}).uniform_(1, 0))}; }});
  c.push_back({{"normal_"}, [](const Env& e) { return Outs{R(e.x({2, 3}).normal_(0, -1))}; }});
  c.push_back({{"random_.from"}, [](const Env& e) { return Outs{R(e.x({2, 3}).random_(5, 1))}; }});
  c.push_back({{"random_.from"}, [](const Env& e) { return Outs{R(e.x({2, 3}).random_(-300, std::nullopt))}; }});
  c.push_back({{"bernoulli_.float"}, [](const Env& e) { return Outs{R(e.x({2, 3}).bernoulli_(1.5))}; }});
  return c;
}

// Ops whose result is a value, not a tensor: on meta they throw (MetaTensors.DataDependentOpsThrow).
// nonzero and masked_select: the result's size is data (NotImplementedError, as PyTorch's meta).
const std::set<std::string> kDataDependent = {"item", "equal", "allclose", "nonzero", "masked_select"};

// Operators with a CPU kernel that may lack a Meta kernel, each with its reason. Empty: every
// CPU kernel has one. (A new op gets a Meta kernel in plugins/meta and a case above, or an entry
// here saying why not.)
const std::map<std::string, std::string> kNoMetaKernel = {};

// A case's outputs; `threw` when something outside the calls (input set-up, a tuple result)
// raised.
struct Result {
  Outs outs;
  bool threw = false;
  std::string error;
};

Result run(const Case& c, bool meta, ScalarType dt, Lay lay) {
  Result r;
  Env e{meta, dt, lay};
  try {
    r.outs = c.run(e);
  } catch (const Error& err) {
    r.threw = true;
    r.error = err.what();
  }
  return r;
}

std::string describe(const Tensor& t) {
  std::ostringstream os;
  if (!t.defined()) return "undefined";
  os << t.dtype() << " sizes " << t.sizes() << " strides " << t.strides() << " offset " << t.storage_offset();
  return os.str();
}

// The kernels registered for one key, by schema name, from the dispatcher's table dump.
std::set<std::string> ops_with_kernel(const std::string& key) {
  std::set<std::string> r;
  for (const auto& op : Dispatcher::singleton().operators()) {
    const std::string table = op.dump_table();
    const size_t reg = table.find("registered:\n"), comp = table.find("computed table:");
    if (reg == std::string::npos) continue;
    const std::string section = table.substr(reg, comp - reg);
    if (section.find("\n  " + key + ": ") == std::string::npos) continue;
    std::string name = op.operator_name();
    if (name.rfind("aten::", 0) == 0) name = name.substr(6);
    r.insert(name);
  }
  return r;
}

}  // namespace

TEST(MetaTensors, FactoryAndData) {
  Tensor m = ember::empty({2, 3}, TensorOptions().device(kMeta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.device(), Device(kMeta));
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(m.strides(), IntArrayRef({3, 1}));
  EXPECT_EQ(m.dtype(), kFloat32);
  EXPECT_EQ(m.data_ptr(), nullptr);
  EXPECT_EQ(m.unsafeGetTensorImpl()->storage()->nbytes(), 24u);  // sized storage, no memory
  // Printed as LibTorch's Python repr (its C++ print throws for meta tensors).
  auto str = [](const Tensor& t) {
    std::ostringstream os;
    os << t;
    return os.str();
  };
  EXPECT_EQ(str(m), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(str(ember::empty({4}, TensorOptions(kInt64).device(kMeta))),
            "tensor(..., device='meta', size=(4,), dtype=torch.int64)");
  EXPECT_EQ(str(ember::empty({}, TensorOptions(kFloat16).device(kMeta))),
            "tensor(..., device='meta', size=(), dtype=torch.float16)");
  EXPECT_EQ(m.toString(), "MetaFloatType");
  EXPECT_ERROR(NotImplementedError, m.data_ptr<float>(), "[data_ptr]", "meta tensor has no data");
  EXPECT_ERROR(NotImplementedError, ember::empty({}, TensorOptions().device(kMeta)).item(), "[item]",
               "meta tensor has none");
  EXPECT_ERROR(NotImplementedError, m.cpu(), "[copy_]", "cannot copy out of a meta tensor");
  // Into meta from any device: only the shapes are checked.
  Tensor c = ember::ones({3});
  EXPECT_EQ(m.copy_(c).sizes(), IntArrayRef({2, 3}));
  Tensor to = c.to(Device(kMeta));
  EXPECT_TRUE(to.is_meta());
  EXPECT_EQ(to.sizes(), IntArrayRef({3}));
  // Mixed meta and cpu operands are a device error, as on the cpu.
  EXPECT_ERROR(ValueError, ember::add(m, ember::ones({2, 3})), "[add]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::mm(m, ember::ones({3, 2})), "[mm]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::addmm(ember::ones({2}), m, m.t()), "[addmm]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::cat({m, ember::ones({2, 3})}), "[cat]", "same device", "meta", "cpu");
  Tensor out = ember::ones({0});
  EXPECT_ERROR(ValueError, ember::mm_out(out, m, m.t()), "[mm]", "same device", "meta", "cpu");
  Tensor idx = ember::zeros({2, 3}, TensorOptions(kInt64));
  EXPECT_ERROR(ValueError, ember::gather(m, 0, idx), "[gather]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::index(m, {idx}), "[index]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::index_select(m, 0, idx.select(0, 0)), "[index_select]", "same device");
  Tensor values = ember::empty({0}, TensorOptions().device(kMeta)), indices = ember::ones({0}, TensorOptions(kInt64));
  EXPECT_ERROR(ValueError, ember::sort_out(values, indices, m), "[sort]", "expected a meta tensor, got one on cpu");
  EXPECT_ERROR(ValueError, ember::sum_out(out, m, {0}), "[sum]", "expected a meta tensor, got one on cpu");
}

TEST(MetaTensors, DataDependentOpsThrow) {
  Tensor m = ember::empty({2}, TensorOptions().device(kMeta));
  EXPECT_ERROR(NotImplementedError, ember::equal(m, m), "[equal]", "a meta tensor has none");
  EXPECT_ERROR(NotImplementedError, ember::allclose(m, m), "[allclose]", "a meta tensor has none");
  EXPECT_ERROR(NotImplementedError, m.sum().item(), "[item]", "a meta tensor has none");
  // A result size that is data: nonzero, masked_select, and a bool or uint8 mask index.
  const TensorOptions mb = TensorOptions(kBool).device(kMeta);
  Tensor x = ember::empty({2, 3}, TensorOptions().device(kMeta));
  EXPECT_ERROR(NotImplementedError, x.nonzero(), "[nonzero]", "data-dependent output shape");
  EXPECT_ERROR(NotImplementedError, x.masked_select(ember::empty({3}, mb)), "[masked_select]",
               "data-dependent output shape");
  EXPECT_ERROR(NotImplementedError, ember::index(x, {ember::empty({2, 3}, mb)}), "[index]",
               "bool or uint8 mask index", "data-dependent output shape");
  EXPECT_ERROR(NotImplementedError,
               ember::index(x, {std::nullopt, ember::empty({3}, TensorOptions(kUInt8).device(kMeta))}), "[index]",
               "mask index");
  EXPECT_ERROR(NotImplementedError, ember::index_put_(x, {ember::empty({2}, mb)}, ember::empty({}, x.options())),
               "[index_put_]", "mask index");
  // Their argument errors come first, as on the cpu.
  EXPECT_ERROR(TypeError, x.masked_select(ember::empty({3}, TensorOptions(kInt32).device(kMeta))),
               "[masked_select] argument 'mask': expected dtype bool or uint8, got int32");
  EXPECT_ERROR(ValueError, x.masked_select(ember::empty({4}, mb)), "[masked_select]");
  EXPECT_ERROR(IndexError, ember::index(x, {ember::empty({3}, mb)}), "[index] the shape of the mask");
  EXPECT_ERROR(ValueError, x.masked_select(ember::ones({3}, TensorOptions(kBool))), "[masked_select]",
               "same device");
}

TEST(MetaTensors, CompositesServeMeta) {
  // Views, composite factories and copies reach meta through the cpu plugin's composites.
  Tensor m = ember::empty({2, 3, 4}, TensorOptions().device(kMeta));
  Tensor v = m.transpose(0, 2).slice(1, 0, std::nullopt, 2);
  EXPECT_TRUE(v.is_meta());
  EXPECT_EQ(v.sizes(), IntArrayRef({4, 2, 2}));
  EXPECT_EQ(v.strides(), IntArrayRef({1, 8, 12}));
  EXPECT_EQ(v.contiguous().strides(), IntArrayRef({4, 2, 1}));
  EXPECT_EQ(ember::zeros({5}, TensorOptions(kInt32).device(kMeta)).dtype(), kInt32);
  EXPECT_EQ(ember::matmul(m, ember::empty({4, 7}, TensorOptions().device(kMeta))).sizes(), IntArrayRef({2, 3, 7}));
  EXPECT_EQ(ember::stack({m, m}, 1).sizes(), IntArrayRef({2, 2, 3, 4}));
  EXPECT_EQ(m.reshape({6, -1}).sizes(), IntArrayRef({6, 4}));
  EXPECT_EQ(ember::rand({3}, TensorOptions().device(kMeta)).device(), Device(kMeta));
}

TEST(MetaKernels, EveryCpuKernelHasAMetaKernel) {
  const std::set<std::string> cpu = ops_with_kernel("CPU"), meta = ops_with_kernel("Meta");
  ASSERT_GT(cpu.size(), 100u);  // the dump parse found the cpu plugin's kernels
  for (const auto& op : cpu)
    EXPECT_TRUE(meta.count(op) || kNoMetaKernel.count(op)) << op << " has a CPU kernel but no Meta kernel";
  for (const auto& [op, why] : kNoMetaKernel) {
    EXPECT_FALSE(why.empty()) << op;
    EXPECT_FALSE(meta.count(op)) << op << " has a Meta kernel now: drop it from kNoMetaKernel";
  }
  for (const auto& op : meta) EXPECT_TRUE(cpu.count(op)) << op << " has a Meta kernel but no CPU kernel";
}

TEST(MetaKernels, EveryCpuKernelIsCompared) {
  std::set<std::string> covered(kDataDependent);
  for (const auto& entry : kNoMetaKernel) covered.insert(entry.first);
  for (const auto& c : cases()) covered.insert(c.ops.begin(), c.ops.end());
  for (const auto& op : ops_with_kernel("CPU"))
    EXPECT_TRUE(covered.count(op)) << op << " has a CPU kernel but no case in test_meta.cpp";
}

TEST(MetaKernels, SameGeometryDtypeAndErrorsAsCpu) {
  int compared = 0, errors = 0;
  for (const auto& c : cases()) {
    for (ScalarType dt : kDtypes) {
      for (Lay lay : kLayouts) {
        const std::string where = c.ops[0] + " dtype " + std::string(dtype_name(dt)) + " " + lay_name(lay);
        const Result cpu = run(c, false, dt, lay), meta = run(c, true, dt, lay);
        ASSERT_FALSE(cpu.threw) << where << ": " << cpu.error;
        ASSERT_FALSE(meta.threw) << where << ": " << meta.error;
        ASSERT_EQ(cpu.outs.size(), meta.outs.size()) << where;
        for (size_t i = 0; i < cpu.outs.size(); ++i) {
          const Out &co = cpu.outs[i], &mo = meta.outs[i];
          EXPECT_EQ(co.threw, mo.threw) << where << " output " << i << "\ncpu: " << (co.threw ? co.error : "ok")
                                        << "\nmeta: " << (mo.threw ? mo.error : "ok");
          if (co.threw != mo.threw) continue;
          if (co.threw) {
            EXPECT_EQ(co.error, mo.error) << where << " output " << i;
            EXPECT_EQ(co.type, mo.type) << where << " output " << i;
            ++errors;
          } else {
            EXPECT_EQ(describe(co.t), describe(mo.t)) << where << " output " << i;
            EXPECT_TRUE(mo.t.defined() && mo.t.is_meta()) << where << " output " << i;
            ++compared;
          }
        }
      }
    }
  }
  // Both paths run: many outputs compared and many errors matched.
  EXPECT_GT(compared, 5000);
  EXPECT_GT(errors, 2000);
}

// ---- CNN operators: convolution, pooling, batch and layer norm ---------------------------------
// Their cases join cases() above (so the coverage and parity tests see them); the composites
// (conv2d, max_pool2d, adaptive_avg_pool2d, batch_norm, layer_norm) are called too: on meta they
// reach the Meta kernels through the cpu plugin's composites.

namespace {

// The outputs of a call returning a tuple, one Out each. An output the kernel leaves undefined
// (output_mask false) is recorded as the pseudo-error "undefined output", so that both sides must
// agree on it; a thrown error is recorded for every output.
Out failed(std::string error, std::string type) {
  Out o;
  o.threw = true;
  o.error = std::move(error);
  o.type = std::move(type);
  return o;
}
Out produced(const Tensor& t) {
  Out o;
  o.t = t;
  return o;
}
template <size_t N, class F>
void push_all(Outs& outs, F&& f) {
  try {
    const auto t = f();
    std::apply(
        [&](const auto&... x) {
          (outs.push_back(x.defined() ? produced(x) : failed("undefined output", "undefined")), ...);
        },
        t);
  } catch (const Error& err) {
    for (size_t i = 0; i < N; ++i) outs.push_back(failed(err.what(), typeid(err).name()));
  }
}

using Mask = std::array<bool, 3>;

std::vector<Case> nn_cases() {
  std::vector<Case> c;
  // ---- convolution
  c.push_back(
      {{"convolution", "convolution_backward", "conv2d"}, [](const Env& e) {
         const Tensor x = e.x({2, 4, 6, 5}), w = e.t({6, 2, 3, 3}), b = e.t({6});
         Outs o{R(ember::convolution(x, w, b, {1}, {1}, {1}, false, {0}, 2)),
                R(ember::convolution(x, e.t({3, 4, 2, 2}), std::nullopt, {2, 1}, {0, 1}, {2}, false, {0, 0}, 1)),
                R(ember::convolution(e.x({0, 4, 3, 3}), e.t({5, 4, 3, 3}), e.t({5}), {1}, {0}, {1}, false, {0}, 1)),
                R(ember::conv2d(x, w, b, 1, 1, 1, 2)),
                R(ember::conv2d(e.x({4, 7, 5}), e.t({3, 4, 3, 2}), std::nullopt, {2, 1}, 0, {1, 2}))};
         push_all<3>(o, [&] {
           return ember::convolution_backward(e.t({2, 6, 6, 5}), x, w, IntArrayRef({6}), {1}, {1}, {1}, false, {0}, 2,
                                              Mask{true, true, true});
         });
         push_all<3>(o, [&] {
           return ember::convolution_backward(e.t({2, 3, 2, 5}), x, e.t({3, 4, 2, 2}), std::nullopt, {2, 1}, {0, 1},
                                              {2}, false, {0, 0}, 1, Mask{false, true, true});
         });
         push_all<3>(o, [&] {
           return ember::convolution_backward(e.t({2, 6, 6, 5}), x, w, IntArrayRef({6}), {1}, {1}, {1}, false, {0}, 2,
                                              Mask{true, false, false});
         });
         return o;
       }});
  // Bad arguments: each call raises (the same error on both sides).
  c.push_back(
      {{"convolution"}, [](const Env& e) {
         const Tensor x = e.x({2, 4, 6, 5});
         return Outs{
             R(ember::convolution(x, e.t({6, 4, 3, 3}), std::nullopt, {1}, {0}, {1}, true, {0}, 1)),
             R(ember::convolution(x, e.t({6, 4, 3, 3}), std::nullopt, {1}, {0}, {1}, false, {1}, 1)),
             R(ember::convolution(e.x({4, 6, 5}), e.t({6, 4, 3, 3}), std::nullopt, {1}, {0}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 4, 3, 3}, kFloat64), std::nullopt, {1}, {0}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 3, 3, 3}), std::nullopt, {1}, {0}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 2, 3, 3}), std::nullopt, {1}, {0}, {1}, false, {0}, 3)),
             R(ember::convolution(x, e.t({6, 4, 7, 3}), std::nullopt, {1}, {0}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 4, 3, 3}), std::nullopt, {1, 2, 3}, {0}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 4, 3, 3}), std::nullopt, {0}, {0}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 4, 3, 3}), std::nullopt, {1}, {-1}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 4, 3, 3}), e.t({5}), {1}, {0}, {1}, false, {0}, 1)),
             R(ember::convolution(x, e.t({6, 4, 3, 3}), e.t({6}, kInt32), {1}, {0}, {1}, false, {0}, 1)),
             R(ember::conv2d(e.x({6, 5}), e.t({6, 4, 3, 3})))};
       }});
  c.push_back({{"convolution_backward"}, [](const Env& e) {
                 const Tensor x = e.x({2, 4, 6, 5}), w = e.t({6, 4, 3, 3});
                 Outs o;
                 push_all<3>(o, [&] {  // grad_output of the wrong shape
                   return ember::convolution_backward(e.t({2, 6, 6, 5}), x, w, std::nullopt, {1}, {0}, {1}, false, {0},
                                                      1, Mask{true, true, false});
                 });
                 push_all<3>(o, [&] {  // grad_output of another dtype
                   return ember::convolution_backward(e.t({2, 6, 4, 3}, kInt64), x, w, std::nullopt, {1}, {0}, {1},
                                                      false, {0}, 1, Mask{true, true, false});
                 });
                 push_all<3>(o, [&] {  // bias_sizes not [out_channels]
                   return ember::convolution_backward(e.t({2, 6, 4, 3}), x, w, IntArrayRef({5}), {1}, {0}, {1}, false,
                                                      {0}, 1, Mask{true, true, true});
                 });
                 push_all<3>(o, [&] {
                   return ember::convolution_backward(e.t({2, 6, 4, 3}), x, w, std::nullopt, {1}, {0}, {1}, true, {0},
                                                      1, Mask{true, true, true});
                 });
                 return o;
               }});
  // ---- pooling
  c.push_back(
      {{"max_pool2d_with_indices", "max_pool2d_with_indices_backward", "max_pool2d"}, [](const Env& e) {
         const Tensor x = e.x({2, 3, 7, 6});
         Outs o;
         push_all<2>(o, [&] { return ember::max_pool2d_with_indices(x, {3}, {2}, {1}, {1}, true); });
         push_all<2>(o, [&] { return ember::max_pool2d_with_indices(x, {2, 3}); });
         push_all<2>(o, [&] { return ember::max_pool2d_with_indices(e.x({3, 5, 5}), {3}, {1}, {1}, {2}); });
         push_all<2>(o, [&] { return ember::max_pool2d_with_indices(e.x({0, 3, 5, 5}), {2}); });
         o.push_back(R(ember::max_pool2d(x, {3, 2}, {2, 1}, {1, 0}, 1, true)));
         o.push_back(R(ember::max_pool2d(e.x({3, 7, 6}), 2)));
         // Valid indices come from a float32 forward (a meta tensor's values cannot be checked).
         auto [y, ind] = ember::max_pool2d_with_indices(e.x({2, 3, 7, 6}, kFloat32), {3}, {2}, {1}, {1}, true);
         o.push_back(R(ember::max_pool2d_with_indices_backward(e.t(y.sizes()), x, {3}, {2}, {1}, {1}, true, ind)));
         // indices of the wrong dtype, grad_output of the wrong shape
         o.push_back(R(ember::max_pool2d_with_indices_backward(e.t(y.sizes()), x, {3}, {2}, {1}, {1}, true,
                                                               e.t(y.sizes(), kInt32))));
         o.push_back(R(ember::max_pool2d_with_indices_backward(e.t({2, 3, 4, 3}), x, {3}, {2}, {1}, {1}, true, ind)));
         return o;
       }});
  c.push_back({{"max_pool2d_with_indices"}, [](const Env& e) {
                 const Tensor x = e.x({2, 3, 7, 6});
                 return Outs{R(ember::max_pool2d(x, {3}, {2}, {2})),         // padding over half the kernel
                             R(ember::max_pool2d(x, {8})),                   // output too small
                             R(ember::max_pool2d(x, {2, 2, 2})),             // not an int[2]
                             R(ember::max_pool2d(x, {0})),                   // kernel size
                             R(ember::max_pool2d(x, {2}, {-1})),             // stride
                             R(ember::max_pool2d(x, {2}, {}, 0, 0)),         // dilation
                             R(ember::max_pool2d(e.x({3, 7}), {2})),         // 2-D input
                             R(ember::max_pool2d(e.x({2, 0, 7, 6}), {2}))};  // empty channels
               }});
  c.push_back({{"avg_pool2d", "avg_pool2d_backward"}, [](const Env& e) {
                 const Tensor x = e.x({2, 3, 7, 6});
                 return Outs{R(ember::avg_pool2d(x, {3}, {2}, {1}, true, false)),
                             R(ember::avg_pool2d(x, {2, 3}, {}, 0, false, true, 3)),
                             R(ember::avg_pool2d(e.x({3, 5, 4}), {2})),
                             R(ember::avg_pool2d(x, {3}, {2}, {1}, false, true, 0)),  // divisor_override 0
                             R(ember::avg_pool2d(x, {3}, {2}, {2})),                  // padding over half
                             R(ember::avg_pool2d_backward(e.t({2, 3, 4, 4}), x, {3}, {2}, {1}, true, false, 2)),
                             R(ember::avg_pool2d_backward(e.t({3, 2, 2}), e.x({3, 5, 4}), {2}, {}, {0}, false, true,
                                                          std::nullopt)),
                             R(ember::avg_pool2d_backward(e.t({2, 3, 4, 3}), x, {3}, {2}, {1}, true, false,
                                                          std::nullopt)),  // grad_output shape
                             R(ember::avg_pool2d_backward(e.t({2, 3, 4, 4}, kFloat64), x, {3}, {2}, {1}, true, false,
                                                          std::nullopt))};  // grad_output dtype (float64: equal)
               }});
  c.push_back({{"_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "adaptive_avg_pool2d"}, [](const Env& e) {
                 const Tensor x = e.x({2, 3, 7, 6});
                 return Outs{R(ember::_adaptive_avg_pool2d(x, {3, 2})),
                             R(ember::_adaptive_avg_pool2d(e.x({3, 5, 4}), {5, 9})),
                             R(ember::_adaptive_avg_pool2d(x, {0, 2})),
                             R(ember::adaptive_avg_pool2d(x, {4})),
                             R(ember::adaptive_avg_pool2d(e.x({3, 5, 4}), {1, 1})),
                             R(ember::_adaptive_avg_pool2d(x, {3, -1})),   // negative size
                             R(ember::_adaptive_avg_pool2d(x, {3})),       // not two sizes
                             R(ember::adaptive_avg_pool2d(x, {1, 2, 3})),  // not an int[2]
                             R(ember::_adaptive_avg_pool2d_backward(e.t({2, 3, 3, 2}), x)),
                             R(ember::_adaptive_avg_pool2d_backward(e.t({3, 1, 1}), e.x({3, 5, 4}))),
                             R(ember::_adaptive_avg_pool2d_backward(e.t({3, 3, 2}), x)),              // dims differ
                             R(ember::_adaptive_avg_pool2d_backward(e.t({2, 4, 3, 2}), x)),           // channels differ
                             R(ember::_adaptive_avg_pool2d_backward(e.t({2, 3, 3, 2}, kInt32), x))};  // dtype
               }});
  // ---- batch norm
  c.push_back({{"native_batch_norm", "native_batch_norm_backward", "batch_norm"}, [](const Env& e) {
                 const Tensor x = e.x({4, 3, 5, 2}), w = e.t({3}), b = e.t({3}), rm = e.t({3}), rv = e.t({3});
                 const Tensor w64 = e.t({3}, kFloat64);
                 Outs o;
                 push_all<3>(o, [&] { return ember::native_batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5); });
                 push_all<3>(o, [&] { return ember::native_batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5); });
                 push_all<3>(o, [&] {
                   return ember::native_batch_norm(e.x({4, 3}), std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                                   true, 0.1, 1e-5);
                 });
                 push_all<3>(o, [&] {  // evaluation without running stats
                   return ember::native_batch_norm(x, w, b, std::nullopt, rv, false, 0.1, 1e-5);
                 });
                 push_all<3>(o, [&] {  // a weight of the wrong length
                   return ember::native_batch_norm(x, e.t({4}), b, rm, rv, true, 0.1, 1e-5);
                 });
                 push_all<3>(o, [&] {  // a running_var of an integer dtype
                   return ember::native_batch_norm(x, w, b, rm, e.t({3}, kInt64), true, 0.1, 1e-5);
                 });
                 push_all<3>(o, [&] {
                   return ember::native_batch_norm(e.x({4}), w, b, rm, rv, true, 0.1, 1e-5);  // 1-D input
                 });
                 o.push_back(R(ember::batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5, false)));
                 const Tensor g = e.t({4, 3, 5, 2});
                 push_all<3>(o, [&] {
                   return ember::native_batch_norm_backward(g, x, w, rm, rv, e.t({3}), e.t({3}), true, 1e-5,
                                                            Mask{true, true, true});
                 });
                 push_all<3>(o, [&] {  // the weight's dtype for the weight and bias gradients
                   return ember::native_batch_norm_backward(g, x, w64, rm, rv, std::nullopt, std::nullopt, false, 1e-5,
                                                            Mask{true, false, true});
                 });
                 push_all<3>(o, [&] {
                   return ember::native_batch_norm_backward(g, x, std::nullopt, std::nullopt, std::nullopt, e.t({3}),
                                                            e.t({3}), true, 1e-5, Mask{false, true, true});
                 });
                 push_all<3>(o, [&] {  // training without save_invstd
                   return ember::native_batch_norm_backward(g, x, w, rm, rv, e.t({3}), std::nullopt, true, 1e-5,
                                                            Mask{true, true, true});
                 });
                 push_all<3>(o, [&] {  // evaluation without running stats
                   return ember::native_batch_norm_backward(g, x, w, std::nullopt, rv, e.t({3}), e.t({3}), false, 1e-5,
                                                            Mask{true, true, true});
                 });
                 push_all<3>(o, [&] {  // grad_out of another shape
                   return ember::native_batch_norm_backward(e.t({4, 3, 10}), x, w, rm, rv, e.t({3}), e.t({3}), true,
                                                            1e-5, Mask{true, true, true});
                 });
                 push_all<3>(o, [&] {  // save_mean of the wrong length
                   return ember::native_batch_norm_backward(g, x, w, rm, rv, e.t({2}), e.t({3}), true, 1e-5,
                                                            Mask{true, true, true});
                 });
                 return o;
               }});
  // ---- layer norm
  c.push_back(
      {{"native_layer_norm", "native_layer_norm_backward", "layer_norm"}, [](const Env& e) {
         const Tensor x = e.x({2, 3, 4}), w = e.t({3, 4}), b = e.t({3, 4});
         Outs o;
         push_all<3>(o, [&] { return ember::native_layer_norm(x, {4}, e.t({4}), e.t({4}), 1e-5); });
         push_all<3>(o, [&] { return ember::native_layer_norm(x, {3, 4}, w, b, 1e-5); });
         push_all<3>(o, [&] { return ember::native_layer_norm(e.x({0, 4}), {4}, std::nullopt, std::nullopt, 1e-5); });
         push_all<3>(o, [&] { return ember::native_layer_norm(x, {3}, std::nullopt, std::nullopt, 1e-5); });
         push_all<3>(o, [&] { return ember::native_layer_norm(x, {}, std::nullopt, std::nullopt, 1e-5); });
         push_all<3>(o, [&] { return ember::native_layer_norm(x, {3, 4}, e.t({12}), b, 1e-5); });
         push_all<3>(o, [&] { return ember::native_layer_norm(x, {3, 4}, w, e.t({3, 4}, kInt32), 1e-5); });
         o.push_back(R(ember::layer_norm(x, {4})));
         o.push_back(R(ember::layer_norm(e.x({5, 2, 3, 4}), {3, 4}, w, b)));
         const Tensor g = e.t({2, 3, 4}), m = e.t({2, 1, 1}), r = e.t({2, 1, 1});
         push_all<3>(o, [&] {
           return ember::native_layer_norm_backward(g, x, {3, 4}, m, r, w, b, Mask{true, true, true});
         });
         push_all<3>(o, [&] {
           return ember::native_layer_norm_backward(g, x, {4}, e.t({2, 3, 1}), e.t({6}), std::nullopt, std::nullopt,
                                                    Mask{true, false, true});
         });
         push_all<3>(o, [&] {  // mean of the wrong size
           return ember::native_layer_norm_backward(g, x, {3, 4}, e.t({3}), r, w, b, Mask{true, true, true});
         });
         push_all<3>(o, [&] {  // grad_out of another shape
           return ember::native_layer_norm_backward(e.t({2, 12}), x, {3, 4}, m, r, w, b, Mask{true, true, true});
         });
         push_all<3>(o, [&] {  // a bias of the wrong shape
           return ember::native_layer_norm_backward(g, x, {3, 4}, m, r, w, e.t({4}), Mask{true, true, true});
         });
         return o;
       }});
  return c;
}

}  // namespace

// The composites built on the CNN kernels, on meta: the shapes a network's forward produces.
TEST(MetaTensors, CnnCompositesServeMeta) {
  const TensorOptions m = TensorOptions().device(kMeta);
  Tensor x = ember::empty({8, 3, 32, 32}, m);
  Tensor h = ember::conv2d(x, ember::empty({16, 3, 3, 3}, m), ember::empty({16}, m), 1, 1);
  EXPECT_TRUE(h.is_meta());
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 16, 32, 32}));
  h = ember::batch_norm(h, ember::empty({16}, m), ember::empty({16}, m), ember::empty({16}, m), ember::empty({16}, m),
                        true, 0.1, 1e-5, false);
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 16, 32, 32}));
  EXPECT_EQ(ember::max_pool2d(h, 3, 2, 1, 1, false).sizes(), IntArrayRef({8, 16, 16, 16}));
  h = ember::max_pool2d(ember::relu(h), 3, 2, 1, 1, true);  // ceil_mode: one more window
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 16, 17, 17}));
  h = ember::conv2d(h, ember::empty({32, 16, 3, 3}, m), std::nullopt, 2, 0, 1);
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 32, 8, 8}));
  h = ember::adaptive_avg_pool2d(h, 1);
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 32, 1, 1}));
  EXPECT_EQ(h.strides(), IntArrayRef({32, 1, 1, 1}));
  Tensor t = ember::layer_norm(h.flatten(1), {32});
  EXPECT_EQ(t.sizes(), IntArrayRef({8, 32}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_TRUE(t.is_meta());
  // A bad geometry is the cpu kernel's error, named after the meta kernel's operator.
  EXPECT_ERROR(ValueError, ember::conv2d(x, ember::empty({16, 4, 3, 3}, m)), "[convolution]", "3 channels");
  EXPECT_ERROR(TypeError, ember::max_pool2d(ember::empty({1, 2, 4, 4}, TensorOptions(kInt32).device(kMeta)), 2),
               "[max_pool2d_with_indices]", "floating point");
  // A weight on the cpu with a meta input is a device error.
  EXPECT_ERROR(ValueError, ember::conv2d(x, ember::empty({16, 3, 3, 3})), "[convolution]", "same device", "meta",
               "cpu");
}

// Note [Version counters]: meta kernels bump nothing themselves; the dispatcher bumps once.
TEST(MetaTensors, InPlaceAndOutOpsBumpOnce) {
  const TensorOptions m = TensorOptions().device(kMeta);
  Tensor x = empty({3, 4}, m), y = empty({3, 4}, m), out = empty({0}, m);
  Tensor mx = empty({0}, m), mi = empty({0}, m.dtype(kInt64));
  x.add_(y);
  EXPECT_EQ(x._version(), 1u);
  add_out(out, x, y);
  EXPECT_EQ(out._version(), 1u);
  EXPECT_EQ(out.sizes(), x.sizes());
  x.copy_(y);
  x.fill_(2);
  x.zero_();
  EXPECT_EQ(x._version(), 4u);
  max_out(mx, mi, x, 1);
  EXPECT_EQ(mx._version(), 1u);
  EXPECT_EQ(mi._version(), 1u);
  x.select(0, 1).mul_(2);
  EXPECT_EQ(x._version(), 5u);
  EXPECT_EQ(y._version(), 0u);
}
