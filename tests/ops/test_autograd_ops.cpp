// gradcheck and gradgradcheck of every differentiable built-in operator, over the backend op
// harness's samples (Note [Backend op harness] in OpInfo.h): float64 samples, their tensors
// contiguous and laid out non-contiguously, each formula of schemas/derivatives.yaml against central
// finite differences, then its own derivative (double backward: with respect to the inputs and to
// the output gradients) against finite differences of the first gradient.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "OpInfo.h"
#include "ember/dispatcher/Ops.h"

namespace ember::optest {
namespace {

// What schemas/derivatives.yaml says of an operator, read line by line (the file's own layout).
struct DerivativeEntry {
  std::set<std::string> non_differentiable;  // arguments marked non_differentiable
  bool has_formula = false;
};

const std::map<std::string, DerivativeEntry>& derivative_entries() {
  static const std::map<std::string, DerivativeEntry> entries = [] {
    std::map<std::string, DerivativeEntry> m;
    std::ifstream in(EMBER_DERIVATIVES_YAML);
    EXPECT_TRUE(in.good()) << "cannot read " << EMBER_DERIVATIVES_YAML;
    std::string line, current;
    while (std::getline(in, line)) {
      if (line.rfind("- name: ", 0) == 0) {
        current = "aten::" + line.substr(8);
        m[current];
        continue;
      }
      if (current.empty() || line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ' || line[2] == '#') continue;
      const size_t colon = line.find(": ");
      if (colon == std::string::npos) continue;
      const std::string key = line.substr(2, colon - 2), value = line.substr(colon + 2);
      if (key == "output_differentiability" || key == "not_implemented") continue;
      if (value == "non_differentiable")
        m[current].non_differentiable.insert(key);
      else
        m[current].has_formula = true;
    }
    return m;
  }();
  return entries;
}

// An in-place operator without an entry takes its functional's (add_.Tensor -> add.Tensor); a
// composite, the non-differentiable arguments of the operator it calls.
const DerivativeEntry* entry_for(const std::string& name) {
  const auto& m = derivative_entries();
  if (name == "aten::batch_norm" || name == "aten::instance_norm") return &m.at("aten::native_batch_norm");
  if (auto it = m.find(name); it != m.end()) return &it->second;
  const size_t dot = name.find('.', 6);
  std::string base = name.substr(0, dot), overload = dot == std::string::npos ? "" : name.substr(dot);
  if (!base.empty() && base.back() == '_') base.pop_back();
  if (auto it = m.find(base + overload); it != m.end()) return &it->second;
  return nullptr;
}

// A differentiable copy of `t` with other strides: transposed back from a transposed copy, or every
// other element of a stacked pair.
Tensor strided_copy(const Tensor& t) {
  const Tensor c = t.clone();  // never a view of the leaf, even where the layout cannot change
  if (c.dim() >= 2) return c.transpose(-1, -2).contiguous().transpose(-1, -2);
  if (c.dim() == 1 && c.numel() > 1) return stack({c, c}, 1).select(1, 0);
  return c;
}

struct Leaf {
  size_t arg;      // which argument
  size_t element;  // its index in a Tensor[] argument
  Tensor value;    // contiguous float64 values, requires grad
};

// The op's call on the leaves laid out by `layout` (a fresh copy each time, so in-place operators
// never write into a leaf).
struct Call {
  OperatorHandle op;
  std::vector<IValue> args;
  std::vector<Leaf> leaves;
  bool non_contiguous = false;

  Tensor lay(const Tensor& t) const { return non_contiguous ? strided_copy(t) : t.clone(); }

  std::vector<IValue> run(const std::vector<Tensor>& values) const {
    std::vector<IValue> a = args;
    for (size_t i = 0; i < leaves.size(); ++i) {
      const Leaf& l = leaves[i];
      if (a[l.arg].isTensorList()) {
        std::vector<Tensor> list = a[l.arg].toTensorVector();
        list[l.element] = lay(values[i]);
        a[l.arg] = IValue(list);
      } else {
        a[l.arg] = IValue(lay(values[i]));
      }
    }
    Stack stack;
    for (IValue& x : a) stack.push_back(std::move(x));
    manual_seed(0);
    op.callBoxed(stack);
    return std::vector<IValue>(stack.begin(), stack.end());
  }
};

// The float tensors among the results, in order (Tensor[] results flattened). A sparse result is
// checked through to_dense (whose backward gives the sparse gradient of its pattern).
std::vector<Tensor> tensors_of(const std::vector<IValue>& outs) {
  std::vector<Tensor> r;
  for (const IValue& o : outs) {
    if (o.isTensor())
      r.push_back(o.toTensor().defined() && o.toTensor().layout() != kStrided ? o.toTensor().to_dense() : o.toTensor());
    else if (o.isTensorList())
      for (const Tensor& t : o.toTensorVector()) r.push_back(t);
  }
  return r;
}

// sum_k <out_k, v_k> over the outputs that have a v.
Tensor loss_of(const std::vector<Tensor>& outs, const std::vector<Tensor>& v) {
  Tensor s = zeros({}, kFloat64);
  for (size_t k = 0; k < outs.size() && k < v.size(); ++k)
    if (v[k].defined()) s = s + (outs[k] * v[k]).sum();
  return s;
}

double value(const Tensor& t) { return t.item<double>(); }

Tensor or_zeros(const Tensor& g, const Tensor& like) { return g.defined() ? g : zeros_like(like); }

struct Checker {
  const Call& call;
  std::vector<Tensor> v;  // one per output (undefined: not differentiable)
  std::string where;
  std::vector<std::string> problems;
  std::mt19937_64 rng{7};

  std::vector<int64_t> elements(int64_t n, size_t k) {
    std::vector<int64_t> e(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) e[static_cast<size_t>(i)] = i;
    std::shuffle(e.begin(), e.end(), rng);
    if (e.size() > k) e.resize(k);
    return e;
  }

  static Tensor bump(const Tensor& t, int64_t e, double d) {
    Tensor oh = zeros({t.numel()}, kFloat64);
    oh.select(0, e).fill_(d);
    return t + oh.view(t.sizes());
  }

  std::vector<Tensor> leaf_values() const {
    std::vector<Tensor> r;
    for (const Leaf& l : call.leaves) r.push_back(l.value);
    return r;
  }

  // The loss with every leaf's value given (no graph).
  double loss_at(const std::vector<Tensor>& values) {
    NoGradGuard g;
    return value(loss_of(tensors_of(call.run(values)), v));
  }

  // First-order gradients at `values`, with `vs` as the output gradients.
  std::vector<Tensor> grads_at(const std::vector<Tensor>& values, const std::vector<Tensor>& vs, bool create_graph) {
    std::vector<Tensor> inputs;
    for (const Tensor& x : values) inputs.push_back(x.detach().requires_grad_());
    const Tensor l = loss_of(tensors_of(call.run(inputs)), vs);
    if (!l.requires_grad()) return std::vector<Tensor>(inputs.size());
    auto g = autograd::grad({l}, inputs, {}, true, create_graph, true);
    for (size_t i = 0; i < g.size(); ++i) g[i] = or_zeros(g[i], inputs[i]);
    return g;
  }

  void fail(const std::string& what) { problems.push_back(where + ": " + what); }

  void first_order(const std::vector<Tensor>& analytic) {
    const double eps = 1e-6;
    for (size_t i = 0; i < call.leaves.size(); ++i) {
      const Tensor& x = call.leaves[i].value;
      const Tensor& g = analytic[i];
      if (g.sizes() != x.sizes() || g.scalar_type() != x.scalar_type()) {
        std::ostringstream os;
        os << "gradient of argument " << call.op.schema().arguments()[call.leaves[i].arg].name() << " has shape "
           << g.sizes() << " and dtype " << g.scalar_type() << ", the input " << x.sizes() << " " << x.scalar_type();
        fail(os.str());
        continue;
      }
      const Tensor flat = g.contiguous().view({-1});
      for (int64_t e : elements(x.numel(), 20)) {
        std::vector<Tensor> plus = leaf_values(), minus = leaf_values();
        plus[i] = bump(x, e, eps);
        minus[i] = bump(x, e, -eps);
        const double fd = (loss_at(plus) - loss_at(minus)) / (2 * eps);
        const double an = value(flat.select(0, e));
        if (!std::isfinite(fd)) continue;  // outside the operator's domain
        if (!(std::abs(fd - an) <= 1e-5 + 1e-3 * std::abs(fd))) {
          std::ostringstream os;
          os << "gradient of argument " << call.op.schema().arguments()[call.leaves[i].arg].name() << ", element " << e
             << ": " << an << ", finite differences " << fd;
          fail(os.str());
          break;
        }
      }
    }
  }

  // d/d(x, v) of sum_i <grad_i(x, v), u_i>.
  void second_order(const std::vector<Tensor>& first) {
    const size_t n = call.leaves.size();
    std::vector<Tensor> u, vs;
    for (const Tensor& g : first) u.push_back(randn(g.sizes(), kFloat64));
    for (const Tensor& t : v) vs.push_back(t.defined() ? t.detach().requires_grad_() : t);
    std::vector<Tensor> inputs;
    for (const Tensor& x : leaf_values()) inputs.push_back(x.detach().requires_grad_());
    Tensor l2 = zeros({}, kFloat64);
    {
      const Tensor l = loss_of(tensors_of(call.run(inputs)), vs);
      if (!l.requires_grad()) return;
      const auto g = autograd::grad({l}, inputs, {}, true, true, true);
      for (size_t i = 0; i < n; ++i)
        if (g[i].defined()) l2 = l2 + (g[i] * u[i]).sum();
    }
    if (!l2.requires_grad()) return;  // the gradient is constant
    std::vector<Tensor> wrt = inputs;
    std::vector<size_t> v_index;
    for (size_t k = 0; k < vs.size(); ++k)
      if (vs[k].defined()) {
        wrt.push_back(vs[k]);
        v_index.push_back(k);
      }
    const auto gg = autograd::grad({l2}, wrt, {}, false, false, true);
    auto l2_at = [&](const std::vector<Tensor>& values, const std::vector<Tensor>& vv) {
      const auto g = grads_at(values, vv, false);
      double s = 0;
      for (size_t i = 0; i < n; ++i) s += value((g[i] * u[i]).sum());
      return s;
    };
    const double eps = 1e-6;
    for (size_t w = 0; w < wrt.size(); ++w) {
      const Tensor& x = wrt[w];
      const Tensor an_t = or_zeros(gg[w], x).contiguous().view({-1});
      for (int64_t e : elements(x.numel(), 6)) {
        std::vector<Tensor> vp = leaf_values(), vm = leaf_values(), wp = v, wm = v;
        if (w < n) {
          vp[w] = bump(x.detach(), e, eps);
          vm[w] = bump(x.detach(), e, -eps);
        } else {
          const size_t k = v_index[w - n];
          wp[k] = bump(v[k], e, eps);
          wm[k] = bump(v[k], e, -eps);
        }
        const double fd = (l2_at(vp, wp) - l2_at(vm, wm)) / (2 * eps);
        const double an = value(an_t.select(0, e));
        if (!std::isfinite(fd)) continue;
        if (!(std::abs(fd - an) <= 1e-4 + 1e-3 * std::abs(fd))) {
          std::ostringstream os;
          os << "double backward with respect to "
             << (w < n ? "argument " + call.op.schema().arguments()[call.leaves[w].arg].name()
                       : "output gradient " + std::to_string(v_index[w - n]))
             << ", element " << e << ": " << an << ", finite differences " << fd;
          fail(os.str());
          break;
        }
      }
    }
  }
};

constexpr const char* kSymmetricInput =
    "it reads one triangle of A but differentiates as a function of a symmetric A, which a perturbation "
    "of one element is not: checked with A = X X^T in tests/autograd/test_linalg_grad.cpp";
constexpr const char* kGaugeInvariant =
    "singular vectors are defined up to sign, so only gauge-invariant losses have a gradient, which a "
    "random loss is not: checked with such losses in tests/autograd/test_linalg_grad.cpp";

// Operators whose samples the generic check cannot use, with the reason (each is checked another way).
const std::map<std::string, std::string>& not_checked_here() {
  static const std::map<std::string, std::string> m = {
      {"aten::heaviside", "a step function (LibTorch defines no derivative): finite differences at 0 see the jump"},
      {"aten::heaviside_", "a step function (LibTorch defines no derivative): finite differences at 0 see the jump"},
      {"aten::native_batch_norm_backward",
       "its double-backward formula treats save_mean/save_invstd as functions of input, while the "
       "samples pass them independently: checked through native_batch_norm's gradgradcheck"},
      // A complex input or output, which the float64 samples here cannot differentiate: gradchecked
      // through view_as_real/view_as_complex in tests/autograd/test_complex_grad.cpp.
      {"aten::_fft_r2c", "a complex output: gradchecked in tests/autograd/test_complex_grad.cpp"},
      {"aten::_fft_c2r", "a complex input: gradchecked in tests/autograd/test_complex_grad.cpp"},
      {"aten::_fft_c2c", "complex input and output: gradchecked in tests/autograd/test_complex_grad.cpp"},
      {"aten::view_as_real", "a complex input: gradchecked in tests/autograd/test_complex_grad.cpp"},
      {"aten::view_as_complex", "a complex output: gradchecked in tests/autograd/test_complex_grad.cpp"},
      {"aten::native_layer_norm_backward",
       "its double-backward formula treats mean/rstd as functions of input, while the samples pass "
       "them independently: checked through native_layer_norm's gradgradcheck"},
      // Note [Linear algebra derivatives]: these need inputs and losses the generic samples are not.
      {"aten::linalg_cholesky_ex", kSymmetricInput},
      {"aten::linalg_cholesky", kSymmetricInput},
      {"aten::cholesky", kSymmetricInput},
      {"aten::_linalg_eigh", kSymmetricInput},
      {"aten::linalg_eigh", kSymmetricInput},
      {"aten::linalg_eigvalsh", kSymmetricInput},
      {"aten::_linalg_svd", kGaugeInvariant},
      {"aten::linalg_svd", kGaugeInvariant},
      {"aten::svd", kGaugeInvariant},
      {"aten::linalg_lu_factor_ex", "its gradient is not implemented (NotImplementedError when A requires grad)"},
      // Backward kernels with no formula of their own (as PyTorch): their forward's formula switches to
      // differentiable operators under create_graph, checked by the forward's gradgradcheck.
      {"aten::native_group_norm_backward", "no formula of its own: checked through native_group_norm's gradgradcheck"},
      {"aten::_embedding_bag_backward", "no formula of its own: checked through _embedding_bag's gradgradcheck"},
      {"aten::_embedding_bag_per_sample_weights_backward",
       "no formula of its own: checked through _embedding_bag's gradgradcheck"},
      {"aten::_cdist_backward", "no formula of its own: checked through _cdist_forward's gradgradcheck"},
      {"aten::_pdist_backward", "no formula of its own: checked through _pdist_forward's gradgradcheck"},
      {"aten::resize_",
       "raises on a tensor that requires grad, as LibTorch ('cannot resize variables that require "
       "grad'): checked in test_fidelity.cpp"},
  };
  return m;
}

// Failures of the autograd plugin itself (not of a formula), found by this test and not fixed yet:
// (operators, a part of the failure's text, why). A listed operator whose failure no longer shows
// fails the test, so the list cannot go stale.
struct KnownFailure {
  std::string test;  // "cpu" (GradcheckAndGradgradcheck) or "meta" (MetaShapes)
  std::set<std::string> ops;
  std::string message;
  std::string reason;
};

const std::vector<KnownFailure>& known_failures() {
  // An entry names a failure the engine or a formula still has.
  static const std::vector<KnownFailure> k = {
      {"cpu",
       {"aten::_native_batch_norm_legit"},
       "gradcheck: [autograd] one of the variables needed for gradient computation has been modified by an inplace "
       "operation",
       "every call writes the running statistics (Tensor(a!), as PyTorch 2.x), and gradcheck's repeated calls share "
       "them, so a later call modifies those an earlier graph saved; the harness's own first- and second-order checks "
       "pass"},
      {"cpu",
       {"aten::grid_sampler_2d", "aten::grid_sampler", "aten::grid_sampler_2d_backward"},
       "the double backward of grid_sampler_2d",
       "grid_sampler_2d_backward has no derivative formula (nor has it in PyTorch)"},
  };
  return k;
}

// Fails the test on every problem not in known_failures(), and on every listed one that is gone.
void report(const std::string& name, const std::string& test, const std::vector<std::string>& problems) {
  std::vector<bool> hit(known_failures().size(), false);
  for (const std::string& p : problems) {
    bool known = false;
    for (size_t k = 0; k < known_failures().size(); ++k) {
      const KnownFailure& f = known_failures()[k];
      if (f.test == test && f.ops.count(name) && p.find(f.message) != std::string::npos) known = hit[k] = true;
    }
    if (!known) {
      ADD_FAILURE() << name << " | " << p;
    }
  }
  for (size_t k = 0; k < known_failures().size(); ++k) {
    const KnownFailure& f = known_failures()[k];
    if (f.test == test && f.ops.count(name) && !hit[k]) {
      ADD_FAILURE() << name << " is listed in known_failures() (" << f.message
                    << ") but no longer fails that way: remove it from the list";
    }
  }
}

// Operators differentiable only where self is positive (the samples draw from [-3, 3)): their self
// is checked at |x| + 0.5.
const std::set<std::string>& positive_domain() {
  static const std::set<std::string> s = {"aten::log",
                                          "aten::log_",
                                          "aten::log1p",
                                          "aten::log1p_",
                                          "aten::sqrt",
                                          "aten::sqrt_",
                                          "aten::rsqrt",
                                          "aten::rsqrt_",
                                          "aten::pow.Tensor_Scalar",
                                          "aten::pow.Tensor_Tensor",
                                          "aten::pow_.Scalar",
                                          "aten::pow_.Tensor",
                                          "aten::float_power.Tensor_Tensor",
                                          "aten::float_power.Tensor_Scalar",
                                          "aten::float_power_.Scalar",
                                          "aten::float_power_.Tensor"};
  return s;
}

// Argument i of a sample: given, or the schema's default.
IValue sample_arg(const FunctionSchema& schema, const SampleInput& sample, size_t i) {
  return i < sample.args.size() ? sample.args[i] : detail::default_ivalue(schema, schema.arguments()[i]);
}

// An operator under test, with its float64 samples; `skip` says why it is not differentiated here
// ("" when it is): listed in not_checked_here() (when `listed` applies), or an out= variant.
struct OpUnderTest {
  OperatorHandle op;
  const DerivativeEntry* entry = nullptr;
  std::string skip;
  Samples samples;
};

OpUnderTest op_under_test(const std::string& name, bool listed) {
  OpUnderTest t{*Dispatcher::singleton().findSchema(name), entry_for(name), "", {}};
  if (auto it = not_checked_here().find(name); listed && it != not_checked_here().end()) {
    t.skip = it->second;
    return t;
  }
  for (const Argument& a : t.op.schema().arguments())
    if (a.is_out()) {
      t.skip = "an out= variant never records a graph";
      return t;
    }
  SampleCtx ctx(t.op.schema(), kFloat64, 11);
  t.samples = op_db().at(name).samples(ctx);
  return t;
}

class AutogradOp : public ::testing::TestWithParam<std::string> {};

TEST_P(AutogradOp, GradcheckAndGradgradcheck) {
  const std::string& name = GetParam();
  const OpUnderTest t = op_under_test(name, true);
  if (!t.skip.empty()) GTEST_SKIP() << t.skip;
  const OperatorHandle& op = t.op;
  const FunctionSchema& schema = op.schema();
  const DerivativeEntry* entry = t.entry;
  const Samples& samples = t.samples;
  int checked = 0;
  std::vector<std::string> problems;
  for (size_t si = 0; si < samples.size() && si < 6; ++si) {
    for (bool nc : {false, true}) {
      Call call{op, {}, {}, nc};
      for (size_t i = 0; i < schema.arguments().size(); ++i) call.args.push_back(sample_arg(schema, samples[si], i));
      // The float64 tensors of the differentiable arguments become leaves.
      for (size_t i = 0; i < call.args.size(); ++i) {
        const std::string& arg = schema.arguments()[i].name();
        if (entry && entry->non_differentiable.count(arg)) continue;
        const bool positive = arg == "self" && positive_domain().count(name);
        auto leaf = [&](const Tensor& t, size_t element) {
          if (!t.defined() || t.scalar_type() != kFloat64) return;
          const Tensor x = positive ? t.detach().abs() + 0.5 : t.detach().contiguous().clone();
          call.leaves.push_back({i, element, x.requires_grad_()});
        };
        if (call.args[i].isTensor()) leaf(call.args[i].toTensor(), 0);
        if (call.args[i].isTensorList())
          for (size_t k = 0; k < call.args[i].toTensorVector().size(); ++k) leaf(call.args[i].toTensorVector()[k], k);
      }
      if (call.leaves.empty()) continue;
      std::vector<Tensor> leaf_vals, outs;
      for (const Leaf& l : call.leaves) leaf_vals.push_back(l.value);
      try {
        NoGradGuard g;
        (void)call.run(leaf_vals);
      } catch (const std::exception&) {
        continue;  // the CPU rejects the sample (one for an error or a dtype): nothing to differentiate
      }
      try {
        outs = tensors_of(call.run(leaf_vals));
      } catch (const std::exception& e) {
        problems.push_back(samples[si].desc + ": the call with inputs that require grad raised: " + e.what());
        continue;
      }
      Checker ck{call, {}, std::string(nc ? "non-contiguous | " : "contiguous | ") + samples[si].desc, {}};
      bool any = false, low_precision = false;
      for (const Tensor& o : outs) {
        const bool diff = o.defined() && o.requires_grad();
        if (diff && o.scalar_type() != kFloat64) low_precision = true;
        ck.v.push_back(diff ? randn(o.sizes(), kFloat64) : Tensor());
        any = any || diff;
      }
      if (!any || low_precision) continue;  // nothing to differentiate, or a float32 result (noise)
      std::vector<Tensor> first;
      try {
        first = ck.grads_at(leaf_vals, ck.v, false);
      } catch (const std::exception& e) {
        problems.push_back(ck.where + ": backward raised: " + e.what());
        continue;
      }
      ++checked;
      try {
        ck.first_order(first);
        if (ck.problems.empty()) ck.second_order(first);
      } catch (const std::exception& e) {
        ck.fail(std::string("raised: ") + e.what());
      }
      // The public checks on the first samples too: full Jacobians, gradient dtypes, undefined and
      // zero output gradients (Note [gradcheck]).
      if (ck.problems.empty() && si < 3) {
        std::vector<size_t> diff_outs;
        for (size_t k = 0; k < ck.v.size(); ++k)
          if (ck.v[k].defined()) diff_outs.push_back(k);
        auto fn = [&](const autograd::variable_list& xs) {
          const std::vector<Tensor> o = tensors_of(call.run(xs));
          autograd::variable_list r;
          for (size_t k : diff_outs) r.push_back(o[k]);
          return r;
        };
        autograd::variable_list inputs;
        for (const Tensor& x : leaf_vals) inputs.push_back(x.detach().requires_grad_());
        autograd::GradcheckOptions opt;
        opt.check_grad_dtypes = true;
        try {
          autograd::gradcheck(fn, inputs, opt);
          autograd::gradgradcheck(fn, inputs, {}, opt);
        } catch (const std::exception& e) {
          ck.fail(std::string("gradcheck: ") + std::string(e.what()).substr(0, 700));
        }
      }
      problems.insert(problems.end(), ck.problems.begin(), ck.problems.end());
    }
  }
  report(name, "cpu", problems);
  if (entry && entry->has_formula && derivative_entries().count(name)) {
    EXPECT_GT(checked, 0) << name << " has formulas but no float64 sample was differentiated";
  }
  if (checked == 0) GTEST_SKIP() << "no sample with a differentiable float64 output";
}

// The same calls on meta tensors: every gradient, first and second order, has its input's shape
// and dtype (an operator whose result is the data raises NotImplementedError there: skipped).
TEST_P(AutogradOp, MetaShapes) {
  const std::string& name = GetParam();
  const OpUnderTest t = op_under_test(name, false);
  if (!t.skip.empty()) GTEST_SKIP() << t.skip;
  const OperatorHandle& op = t.op;
  const FunctionSchema& schema = op.schema();
  const DerivativeEntry* entry = t.entry;
  const Samples& samples = t.samples;
  int checked = 0;
  std::vector<std::string> problems;
  for (size_t si = 0; si < samples.size() && si < 6; ++si) {
    std::vector<Tensor> leaves;
    Stack stack;
    for (size_t i = 0; i < schema.arguments().size(); ++i) {
      const IValue a = sample_arg(schema, samples[si], i);
      const bool diff = !(entry && entry->non_differentiable.count(schema.arguments()[i].name()));
      auto meta = [&](const Tensor& t) -> Tensor {
        if (!t.defined()) return t;
        Tensor m = t.to(Device(kMeta));
        if (!diff || t.scalar_type() != kFloat64) return m;
        leaves.push_back(m.requires_grad_());
        return m.clone();  // not the leaf itself: in-place operators write into it
      };
      if (a.isTensor()) {
        stack.push_back(IValue(meta(a.toTensor())));
      } else if (a.isTensorList()) {
        std::vector<Tensor> l;
        for (const Tensor& t : a.toTensorVector()) l.push_back(meta(t));
        stack.push_back(IValue(l));
      } else if (a.isList()) {
        std::vector<IValue> l;
        for (const IValue& e : a.toListRef()) l.push_back(e.isTensor() ? IValue(e.toTensor().to(Device(kMeta))) : e);
        stack.push_back(IValue::make_list(std::move(l)));
      } else {
        stack.push_back(a);
      }
    }
    if (leaves.empty()) continue;
    try {
      op.callBoxed(stack);
      std::vector<Tensor> outs, gouts;
      for (const Tensor& o : tensors_of(std::vector<IValue>(stack.begin(), stack.end())))
        if (o.defined() && o.requires_grad()) {
          outs.push_back(o);
          gouts.push_back(ones_like(o));
        }
      if (outs.empty()) continue;
      const auto g = autograd::grad(outs, leaves, gouts, true, true, true);
      Tensor s;
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!g[i].defined()) continue;
        EXPECT_EQ(g[i].sizes(), leaves[i].sizes()) << name << " | " << samples[si].desc << ": gradient " << i;
        EXPECT_EQ(g[i].scalar_type(), leaves[i].scalar_type()) << name << " | " << samples[si].desc;
        EXPECT_TRUE(g[i].is_meta()) << name << " | " << samples[si].desc;
        if (g[i].requires_grad()) s = s.defined() ? s + g[i].sum() : g[i].sum();
      }
      if (s.defined()) {
        const auto gg = autograd::grad({s}, leaves, {}, false, false, true);
        for (size_t i = 0; i < leaves.size(); ++i) {
          if (gg[i].defined()) {
            EXPECT_EQ(gg[i].sizes(), leaves[i].sizes()) << name << " | " << samples[si].desc << ": second order " << i;
          }
        }
      }
      ++checked;
    } catch (const NotImplementedError&) {
      continue;  // the result (or a gradient) is the data
    } catch (const std::exception& e) {
      // A sample the CPU rejects too (one for an error or a dtype) is no failure.
      bool cpu_rejects = false;
      try {
        Stack cpu;
        for (size_t i = 0; i < schema.arguments().size(); ++i) cpu.push_back(sample_arg(schema, samples[si], i));
        NoGradGuard ng;
        op.callBoxed(cpu);
      } catch (const std::exception&) {
        cpu_rejects = true;
      }
      if (!cpu_rejects) problems.push_back(samples[si].desc + ": raised on meta: " + e.what());
    }
  }
  report(name, "meta", problems);
  if (checked == 0) GTEST_SKIP() << "no sample with a differentiable output ran on meta";
}

// ---- gradients on a device backend ---------------------------------------------------------------

// The device EMBER_TEST_BACKEND names (a backend with values: cuda, hip), or none.
std::optional<Device> gradient_device() {
  const char* b = std::getenv("EMBER_TEST_BACKEND");
  if (!b || !*b || std::string(b) == "cpu" || std::string(b) == "meta") return std::nullopt;
  return Device(std::string(b));
}

// Why a's values are not b's (float64, NaN equal to NaN), or empty.
std::string difference(const Tensor& a, const Tensor& b) {
  std::ostringstream os;
  if (a.defined() != b.defined()) return a.defined() ? "defined on the cpu only" : "defined on the device only";
  if (!a.defined()) return "";
  if (a.sizes() != b.sizes()) {
    os << "shape " << b.sizes() << ", the cpu's " << a.sizes();
    return os.str();
  }
  const Tensor x = a.contiguous().to(kFloat64), y = b.cpu().contiguous().to(kFloat64);
  const double* p = x.data_ptr<double>();
  const double* q = y.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const bool same = (std::isnan(p[i]) && std::isnan(q[i])) || std::abs(p[i] - q[i]) <= 1e-7 + 1e-7 * std::abs(p[i]);
    if (!same) {
      os << "element " << i << ": " << q[i] << ", the cpu's " << p[i];
      return os.str();
    }
  }
  return "";
}

// The same differentiable calls on the backend under test (EMBER_TEST_BACKEND) and on the cpu,
// whose gradients the finite differences above check: the outputs and the first-order gradients
// (one random output gradient) agree, and the gradients live on the device. This runs the
// backward formulas on device tensors, the backend's backward kernels and the engine's device path.
TEST_P(AutogradOp, DeviceGradientsMatchCpu) {
  const std::optional<Device> dev = gradient_device();
  if (!dev) GTEST_SKIP() << "EMBER_TEST_BACKEND names no device backend";
  const std::string& name = GetParam();
  const OpUnderTest t = op_under_test(name, true);
  if (!t.skip.empty()) GTEST_SKIP() << t.skip;
  const OperatorHandle& op = t.op;
  const FunctionSchema& schema = op.schema();
  const DerivativeEntry* entry = t.entry;
  const Samples& samples = t.samples;
  int checked = 0;
  std::vector<std::string> problems;
  for (size_t si = 0; si < samples.size() && si < 3; ++si) {
    // One side's call: its leaves, and its outputs (undefined when the call raised).
    struct Side {
      std::vector<Tensor> leaves, outs;
      std::string error;
    };
    auto side = [&](std::optional<Device> to) {
      Side r;
      Stack stack;
      for (size_t i = 0; i < schema.arguments().size(); ++i) {
        const bool diff = !(entry && entry->non_differentiable.count(schema.arguments()[i].name()));
        auto place = [&](const Tensor& t) -> Tensor {
          if (!t.defined()) return t;
          Tensor m = to ? t.to(*to) : t.clone();
          if (!diff || t.scalar_type() != kFloat64) return m;
          r.leaves.push_back(m.requires_grad_());
          return m.clone();  // not the leaf itself: in-place operators write into it
        };
        const IValue a = sample_arg(schema, samples[si], i);
        if (to && schema.arguments()[i].name() == "tensor_indices_or_sections") {
          stack.push_back(a);  // on the host whatever the device (tensor_split's rule)
        } else if (a.isTensor()) {
          stack.push_back(IValue(place(a.toTensor())));
        } else if (a.isTensorList()) {
          std::vector<Tensor> l;
          for (const Tensor& t : a.toTensorVector()) l.push_back(place(t));
          stack.push_back(IValue(l));
        } else if (a.isList() && to) {
          std::vector<IValue> l;
          for (const IValue& e : a.toListRef()) l.push_back(e.isTensor() ? IValue(e.toTensor().to(*to)) : e);
          stack.push_back(IValue::make_list(std::move(l)));
        } else if (a.isDevice() && to) {
          stack.push_back(IValue(*to));
        } else {
          stack.push_back(a);
        }
      }
      try {
        manual_seed(0);
        op.callBoxed(stack);
        r.outs = tensors_of(std::vector<IValue>(stack.begin(), stack.end()));
      } catch (const std::exception& e) {
        r.error = e.what();
      }
      return r;
    };
    Side c = side(std::nullopt);
    if (!c.error.empty() || c.leaves.empty()) continue;  // the cpu rejects the sample, or nothing differentiable
    Side d = side(dev);
    const std::string where = samples[si].desc;
    if (!d.error.empty()) {
      // Sparse tensors on a GPU need SparseCUDA kernels, which the sparse plugin (host loops) lacks.
      if (d.error.find("no kernel for dispatch key Sparse") == std::string::npos)
        problems.push_back(where + ": raised on " + dev->str() + ": " + d.error);
      continue;
    }
    // The float64 outputs that require grad, each with a random output gradient.
    std::vector<Tensor> co, dout, cv, dv;
    Generator gen = ember::detail::createCPUGenerator(5);
    for (size_t k = 0; k < c.outs.size() && k < d.outs.size(); ++k) {
      const Tensor& o = c.outs[k];
      if (const std::string diff = difference(o, d.outs[k]); !diff.empty())
        problems.push_back(where + ": output " + std::to_string(k) + ": " + diff);
      if (!o.defined() || !o.requires_grad() || o.scalar_type() != kFloat64) continue;
      if (!d.outs[k].defined() || !d.outs[k].requires_grad()) {
        problems.push_back(where + ": output " + std::to_string(k) + " does not require grad on the device");
        continue;
      }
      co.push_back(o);
      dout.push_back(d.outs[k]);
      cv.push_back(randn(o.sizes(), gen, kFloat64));
      dv.push_back(cv.back().to(*dev));
    }
    if (co.empty()) continue;
    std::vector<Tensor> cg, dg;
    try {
      cg = autograd::grad(co, c.leaves, cv, false, false, true);
    } catch (const std::exception&) {
      continue;  // no cpu gradient to compare with (the finite-difference test reports it)
    }
    try {
      dg = autograd::grad(dout, d.leaves, dv, false, false, true);
    } catch (const std::exception& e) {
      problems.push_back(where + ": backward raised on " + dev->str() + ": " + e.what());
      continue;
    }
    ++checked;
    for (size_t i = 0; i < cg.size() && i < dg.size(); ++i) {
      if (dg[i].defined() && dg[i].device() != d.leaves[i].device())
        problems.push_back(where + ": gradient " + std::to_string(i) + " is on " + dg[i].device().str());
      if (const std::string diff = difference(cg[i], dg[i]); !diff.empty())
        problems.push_back(where + ": gradient " + std::to_string(i) + ": " + diff);
    }
  }
  report(name, dev->str(), problems);
  if (checked == 0) GTEST_SKIP() << "no sample with a differentiable output ran";
}

// ---- conventions finite differences cannot see (values from LibTorch 1.13) ----------------------

std::vector<double> vals(const Tensor& t) {
  const Tensor c = t.contiguous().to(kFloat64);
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

Tensor leaf(std::vector<double> v, std::vector<int64_t> shape) {
  return from_blob(v.data(), {static_cast<int64_t>(v.size())}, kFloat64).clone().reshape(shape).requires_grad_();
}

Tensor grad_of(const Tensor& y, const Tensor& x) { return autograd::grad({y}, {x})[0]; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(AutogradFormulas, TiesShareTheGradientEvenly) {
  Tensor x = leaf({1, 3, 3, 2}, {4});
  EXPECT_EQ(vals(grad_of(x.max(), x)), (std::vector<double>{0, 0.5, 0.5, 0}));
  Tensor y = leaf({1, 3, 3, 2, 2, 0}, {2, 3});
  EXPECT_EQ(vals(grad_of(y.amax({1}).sum(), y)), (std::vector<double>{0, 0.5, 0.5, 0.5, 0.5, 0}));
  Tensor z = leaf({1, -3, 3, 2, 2, 0}, {2, 3});
  EXPECT_EQ(vals(grad_of(z.norm(INFINITY), z)), (std::vector<double>{0, -0.5, 0.5, 0, 0, 0}));
}

TEST(AutogradFormulas, ZerosAndConstants) {
  // Products with zeros divide by nothing; a constant input has a zero std and norm gradient.
  Tensor p = leaf({2, 0, 3, 0}, {4});
  EXPECT_EQ(vals(grad_of(p.prod(), p)), (std::vector<double>{0, 0, 0, 0}));
  Tensor q = leaf({2, 0, 3}, {3});
  EXPECT_EQ(vals(grad_of(q.prod(), q)), (std::vector<double>{0, 6, 0}));
  EXPECT_EQ(vals(grad_of(q.cumprod(0).sum(), q)), (std::vector<double>{1, 8, 0}));
  Tensor c = leaf({1, 1, 1}, {3});
  EXPECT_EQ(vals(grad_of(c.std(), c)), (std::vector<double>{0, 0, 0}));
  Tensor n = leaf({0, 0, 0}, {3});
  EXPECT_EQ(vals(grad_of(n.norm(), n)), (std::vector<double>{0, 0, 0}));
  // sign is piecewise constant: a zero gradient, not a non-differentiable output.
  Tensor s = leaf({-1, 0, 2}, {3});
  const Tensor sy = s.sign();
  EXPECT_TRUE(sy.requires_grad());
  EXPECT_EQ(vals(grad_of(sy.sum(), s)), (std::vector<double>{0, 0, 0}));
}

TEST(AutogradFormulas, InPlaceLogicalOpsGiveZeroGradients) {
  // LibTorch 1.13 records nothing here, so the old history's identity flows back; Ember records a
  // node with zero gradients, as for the in-place comparisons.
  Tensor x = leaf({0, 1, 2}, {3});
  Tensor y = x.clone();
  y.logical_not_();
  EXPECT_EQ(autograd::grad_fn_name(y).rfind("LogicalNotBackward", 0), 0u) << autograd::grad_fn_name(y);
  EXPECT_EQ(vals(grad_of((y * 3).sum(), x)), (std::vector<double>{0, 0, 0}));
  Tensor e = x.clone();
  e.eq_(1);
  EXPECT_EQ(vals(grad_of(e.sum(), x)), (std::vector<double>{0, 0, 0}));
}

TEST(AutogradFormulas, EmbeddingPaddingAndFrequency) {
  Tensor w = leaf(std::vector<double>(10, 1.0), {5, 2});
  const Tensor idx = tensor({1, 2, 1, 4, 1}, TensorOptions().dtype(kInt64));
  // Index 1 occurs 3 times (each row's gradient divided by 3); 4 is the padding row.
  EXPECT_EQ(vals(grad_of(embedding(w, idx, 4, true).sum(), w)), (std::vector<double>{0, 0, 1, 1, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(error_of([&] { grad_of(embedding(w, idx, -1, false, true).sum(), w); }),
            "[embedding] sparse=True asks for a sparse gradient of weight, which Ember's autograd does not produce "
            "(call embedding with sparse=False)\n  (raised in the backward of EmbeddingBackward0)");
  Tensor g = leaf({1, 2, 3, 4}, {2, 2});
  const Tensor gi = tensor({{0, 0}, {1, 0}}, TensorOptions().dtype(kInt64));
  EXPECT_EQ(vals(grad_of(g.gather(1, gi).sum(), g)), (std::vector<double>{2, 0, 1, 1}));
  EXPECT_EQ(error_of([&] { grad_of(g.gather(1, gi, true).sum(), g); }),
            "[gather] sparse_grad=True asks for a sparse gradient, which Ember's autograd does not produce (call "
            "gather with sparse_grad=False)\n  (raised in the backward of GatherBackward0)");
}

TEST(AutogradFormulas, SavedStatisticsHaveNoFormulaOfTheirOwn) {
  // The double backward of the norms treats their saved statistics as functions of input.
  Tensor x = leaf(std::vector<double>(24, 0.5), {2, 3, 4});
  const Tensor g = randn({2, 3, 4}, kFloat64);
  Tensor mean = leaf({0.1, 0.2}, {2, 1, 1}), rstd = leaf({1.5, 2.0}, {2, 1, 1});
  auto r = native_layer_norm_backward(g, x, {3, 4}, mean, rstd, std::nullopt, std::nullopt, {true, false, false});
  EXPECT_EQ(error_of([&] { grad_of(std::get<0>(r).sum(), mean); }),
            "[native_layer_norm_backward] the derivative for 'mean' is not implemented: the double backward treats "
            "the saved mean as a function of input; a mean that requires grad on its own has no formula\n  (raised in "
            "the backward of NativeLayerNormBackwardBackward0)");
}

TEST(AutogradFormulas, BatchNormTrainingWithRunningStatistics) {
  // The running statistics are saved for the evaluation-mode backward: updating them must not bump
  // their versions (LibTorch does not either), or every training step's backward would fail.
  Tensor x = randn({4, 3}, kFloat64).requires_grad_();
  Tensor rm = zeros({3}, kFloat64), rv = ones({3}, kFloat64);
  const uint64_t v0 = rm._version();
  auto r = native_batch_norm(x, std::nullopt, std::nullopt, rm, rv, true, 0.1, 1e-5);
  EXPECT_EQ(rm._version(), v0);
  const Tensor gx = grad_of(std::get<0>(r).pow(2).sum(), x);
  EXPECT_EQ(gx.sizes(), x.sizes());
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const auto& [name, info] : op_db())
    if (info.samples && info.values != Values::Uninitialized) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Ops, AutogradOp, ::testing::ValuesIn(op_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string s = p.param.substr(6);
                           for (char& c : s) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return s;
                         });

}  // namespace
}  // namespace ember::optest
