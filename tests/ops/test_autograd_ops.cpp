// gradcheck and gradgradcheck of every differentiable built-in operator, over the backend op
// harness's samples (Note [Backend op harness] in OpInfo.h): float64 samples, their tensors
// contiguous and laid out non-contiguously, each formula of schemas/derivatives.yaml against central
// finite differences, then its own derivative (double backward: with respect to the inputs and to
// the output gradients) against finite differences of the first gradient.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
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
  if (name == "aten::batch_norm") return &m.at("aten::native_batch_norm");
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

// The float tensors among the results, in order (Tensor[] results flattened).
std::vector<Tensor> tensors_of(const std::vector<IValue>& outs) {
  std::vector<Tensor> r;
  for (const IValue& o : outs) {
    if (o.isTensor())
      r.push_back(o.toTensor());
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

// Operators whose samples the generic check cannot use, with the reason (each is checked another way).
const std::map<std::string, std::string>& not_checked_here() {
  static const std::map<std::string, std::string> m = {
      {"aten::native_batch_norm_backward",
       "its double-backward formula treats save_mean/save_invstd as functions of input, while the "
       "samples pass them independently: checked through native_batch_norm's gradgradcheck"},
      {"aten::native_layer_norm_backward",
       "its double-backward formula treats mean/rstd as functions of input, while the samples pass "
       "them independently: checked through native_layer_norm's gradgradcheck"},
  };
  return m;
}

// Failures of the autograd plugin itself (not of a formula), found by this test and not fixed yet:
// (operators, a part of the failure's text, why). A listed operator whose failure no longer shows
// fails the test, so the list cannot go stale.
struct KnownFailure {
  std::set<std::string> ops;
  std::string message;
  std::string reason;
};

const std::vector<KnownFailure>& known_failures() {
  static const std::vector<KnownFailure> k = {
      {{"aten::abs_",
        "aten::add_.Scalar",
        "aten::add_.Tensor",
        "aten::addcmul_",
        "aten::clamp_",
        "aten::copy_",
        "aten::cos_",
        "aten::div_.Scalar",
        "aten::div_.Tensor",
        "aten::erf_",
        "aten::exp_",
        "aten::gelu_",
        "aten::index_fill_.int_Scalar",
        "aten::index_put_",
        "aten::lerp_.Scalar",
        "aten::log1p_",
        "aten::log_",
        "aten::masked_fill_.Scalar",
        "aten::masked_scatter_",
        "aten::mul_.Scalar",
        "aten::mul_.Tensor",
        "aten::neg_",
        "aten::pow_.Scalar",
        "aten::pow_.Tensor",
        "aten::relu_",
        "aten::rsqrt_",
        "aten::scatter_.src",
        "aten::scatter_.value",
        "aten::scatter_add_",
        "aten::sigmoid_",
        "aten::silu_",
        "aten::sin_",
        "aten::sqrt_",
        "aten::sub_.Scalar",
        "aten::sub_.Tensor",
        "aten::tanh_"},
       "output 0 of CopySlices",
       "an in-place op on a view: the graph a create_graph backward records through CopySlices fails its own "
       "version check in the second backward (x.clone().t().neg_(); (v * w).sum() with w requiring grad; "
       "grad with create_graph, then grad again)"},
      {{"aten::cos_", "aten::div_.Tensor", "aten::erf_", "aten::gelu_", "aten::log1p_", "aten::log_",
        "aten::mul_.Tensor", "aten::pow_.Scalar", "aten::pow_.Tensor", "aten::silu_", "aten::sin_"},
       "double backward with respect to argument self",
       "an in-place op whose formula reads self: the kernel saves self's clone below autograd, so the "
       "saved self has no history and double backward loses the terms through it"},
      {{"aten::reshape", "aten::flatten.using_ints", "aten::matmul"},
       "returned an invalid gradient",
       "reshape of a non-contiguous input (a copy): the next node's input metadata has the input's shape, "
       "not the result's"},
  };
  return k;
}

class AutogradOp : public ::testing::TestWithParam<std::string> {};

TEST_P(AutogradOp, GradcheckAndGradgradcheck) {
  const std::string& name = GetParam();
  if (auto it = not_checked_here().find(name); it != not_checked_here().end()) GTEST_SKIP() << it->second;
  const OpInfo& info = op_db().at(name);
  const OperatorHandle op = *Dispatcher::singleton().findSchema(name);
  const FunctionSchema& schema = op.schema();
  for (const Argument& a : schema.arguments())
    if (a.is_out()) GTEST_SKIP() << "an out= variant never records a graph";
  const DerivativeEntry* entry = entry_for(name);

  SampleCtx ctx(schema, kFloat64, 11);
  const Samples samples = info.samples(ctx);
  int checked = 0;
  std::vector<std::string> problems;
  for (size_t si = 0; si < samples.size() && si < 6; ++si) {
    for (bool nc : {false, true}) {
      Call call{op, {}, {}, nc};
      for (size_t i = 0; i < schema.arguments().size(); ++i)
        call.args.push_back(i < samples[si].args.size() ? samples[si].args[i]
                                                        : detail::default_ivalue(schema, schema.arguments()[i]));
      // The float64 tensors of the differentiable arguments become leaves.
      for (size_t i = 0; i < call.args.size(); ++i) {
        const std::string& arg = schema.arguments()[i].name();
        if (entry && entry->non_differentiable.count(arg)) continue;
        auto leaf = [&](const Tensor& t, size_t element) {
          if (t.defined() && t.scalar_type() == kFloat64)
            call.leaves.push_back({i, element, t.detach().contiguous().clone().requires_grad_()});
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
      problems.insert(problems.end(), ck.problems.begin(), ck.problems.end());
    }
  }
  std::vector<bool> known_hit(known_failures().size(), false);
  for (const std::string& p : problems) {
    bool known = false;
    for (size_t k = 0; k < known_failures().size(); ++k) {
      const KnownFailure& f = known_failures()[k];
      if (f.ops.count(name) && p.find(f.message) != std::string::npos) known = known_hit[k] = true;
    }
    if (!known) {
      ADD_FAILURE() << name << " | " << p;
    }
  }
  for (size_t k = 0; k < known_failures().size(); ++k) {
    if (known_failures()[k].ops.count(name) && !known_hit[k]) {
      ADD_FAILURE() << name << " is listed in known_failures() (" << known_failures()[k].message
                    << ") but no longer fails that way: remove it from the list";
    }
  }
  if (entry && entry->has_formula && derivative_entries().count(name)) {
    EXPECT_GT(checked, 0) << name << " has formulas but no float64 sample was differentiated";
  }
  if (checked == 0) GTEST_SKIP() << "no sample with a differentiable float64 output";
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
