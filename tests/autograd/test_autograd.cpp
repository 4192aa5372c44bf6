// Autograd semantics, PyTorch's (error texts as LibTorch 1.13 words them, led by "[op]").
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "AutogradTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using autograd::variable_list;

namespace {

Tensor t64(std::vector<double> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return from_blob(v.data(), shape, kFloat64).clone();  // a fresh tensor, no view
}

Tensor s64(double v) { return t64({v}).reshape({}); }

std::vector<double> vals(const Tensor& t) { return agtest::values(t); }
using agtest::error_of;

bool d_key_probe(const Tensor& t) { return t.key_set().has(DispatchKey::AutogradCPU); }

}  // namespace

TEST(Autograd, MulSumBackward) {
  Tensor x = t64({1, 2, 3}).requires_grad_();
  Tensor y = t64({4, 5, 6}).requires_grad_();
  Tensor z = mul(x, y).sum();
  EXPECT_EQ(autograd::grad_fn_name(z), "SumBackward0");
  ASSERT_TRUE(z.grad_fn());
  EXPECT_EQ(z.grad_fn()->name(), "SumBackward0");
  auto next = z.grad_fn()->next_functions();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].first->name(), "MulBackward0");
  EXPECT_EQ(next[0].first->next_functions()[0].first->name(), "AccumulateGrad");
  z.backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{1, 2, 3}));
}

TEST(Autograd, RequiresGradPropagationAndLeaves) {
  Tensor a = t64({1, 2});
  Tensor b = t64({3, 4}).requires_grad_();
  EXPECT_TRUE(a.is_leaf());
  EXPECT_TRUE(b.is_leaf());
  EXPECT_FALSE(b.grad_fn());
  Tensor c = mul(a, a);
  EXPECT_FALSE(c.requires_grad());
  EXPECT_TRUE(c.is_leaf());
  EXPECT_FALSE(c.key_set().has(DispatchKey::AutogradCPU));
  EXPECT_TRUE(d_key_probe(b));
  Tensor d = mul(a, b);
  EXPECT_TRUE(d.requires_grad());
  EXPECT_FALSE(d.is_leaf());
  EXPECT_EQ(autograd::grad_fn_name(d), "MulBackward0");
  // A non-leaf's flag cannot be turned off; an integer tensor cannot require grad.
  EXPECT_HAS(error_of([&] { d.requires_grad_(false); }), "you can only change requires_grad flags of leaf variables");
  EXPECT_THROW(ones({2}, kInt64).requires_grad_(), TypeError);
  // The result of an op in no-grad mode is a leaf without grad.
  {
    NoGradGuard g;
    Tensor e = mul(b, b);
    EXPECT_FALSE(e.requires_grad());
    EXPECT_TRUE(e.is_leaf());
  }
}

TEST(Autograd, GradAccumulatesAndRetainGrad) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = mul(x, x);
  y.retain_grad();
  EXPECT_TRUE(y.retains_grad());
  Tensor z = y.sum();
  z.backward({}, /*retain_graph=*/true);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2, 4}));
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{1, 1}));
  z.backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{4, 8}));
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{2, 2}));
  // The grad of a non-leaf without retain_grad stays undefined.
  Tensor w = mul(x, x);
  w.sum().backward();
  EXPECT_FALSE(w.grad().defined());
  EXPECT_FALSE(w.retains_grad());
}

// PyTorch's gradient layout contract: a dense leaf's .grad has the leaf's strides whatever layout
// the incoming gradient has (sizes of 1 aside); a leaf that is not dense gets a contiguous one.
TEST(Autograd, GradObeysTheLayoutContract) {
  const Tensor base = arange(24, kFloat64).reshape({4, 6});
  Tensor xt = base.t().detach().requires_grad_();  // dense, strides [1, 6]
  (xt.contiguous() * 2).sum().backward();          // the incoming gradient is contiguous
  EXPECT_EQ(xt.grad().strides(), xt.strides());
  EXPECT_EQ(vals(xt.grad()), std::vector<double>(24, 2));
  Tensor cl = ones({2, 3, 4, 5}, kFloat64).contiguous(MemoryFormat::ChannelsLast).requires_grad_();
  (cl.contiguous() * 3).sum().backward();
  EXPECT_EQ(cl.grad().strides(), cl.strides());
  Tensor ex = ones({3}, kFloat64).expand({4, 3}).detach().requires_grad_();  // overlapping
  (ex * 2).sum().backward();
  EXPECT_TRUE(ex.grad().is_contiguous());
  // Under create_graph the copy keeps its history: the gradient is differentiable.
  Tensor y = base.t().detach().requires_grad_();
  auto g = autograd::grad({(y.contiguous() * y.contiguous()).sum()}, {y}, {}, true, true);
  EXPECT_TRUE(g[0].requires_grad());
  (y.contiguous() * y.contiguous()).sum().backward({}, {}, /*create_graph=*/true);
  EXPECT_EQ(y.grad().strides(), y.strides());
  EXPECT_TRUE(y.grad().requires_grad());
  y.mutable_grad() = Tensor();  // the grad's history holds y: break the cycle (PyTorch's too)
}

TEST(Autograd, BackwardNeedsAGradientForNonScalars) {
  Tensor x = t64({1, 2, 3}).requires_grad_();
  Tensor y = mul(x, x);
  EXPECT_HAS(error_of([&] { y.backward(); }), "grad can be implicitly created only for scalar outputs");
  EXPECT_HAS(error_of([&] {
               y.backward(t64({1, 1}));
             }),
             "Mismatch in shape: grad_output[0] has a shape of [2] and output[0] has a shape of [3].");
  y.backward(t64({1, 10, 100}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2, 40, 600}));
  Tensor c = t64({1, 2});
  EXPECT_HAS(error_of([&] { c.sum().backward(); }),
             "element 0 of tensors does not require grad and does not have a grad_fn");
}

TEST(Autograd, RetainGraph) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor z = mul(x, x).sum();
  z.backward();
  std::string e = error_of([&] { z.backward(); });
  EXPECT_HAS(e, "Trying to backward through the graph a second time");
  EXPECT_HAS(e, "Specify retain_graph=true");
  EXPECT_THROW(z.backward(), ValueError);
}

TEST(Autograd, CreateGraphHigherOrder) {
  Tensor x = t64({2, 3}).requires_grad_();
  Tensor y = mul(mul(x, x), x).sum();  // sum x^3
  variable_list g = autograd::grad({y}, {x}, {}, {}, /*create_graph=*/true);
  EXPECT_EQ(vals(g[0]), (std::vector<double>{12, 27}));  // 3x^2
  EXPECT_TRUE(g[0].requires_grad());
  variable_list g2 = autograd::grad({g[0].sum()}, {x}, {}, {}, true);
  EXPECT_EQ(vals(g2[0]), (std::vector<double>{12, 18}));  // 6x
  variable_list g3 = autograd::grad({g2[0].sum()}, {x});
  EXPECT_EQ(vals(g3[0]), (std::vector<double>{6, 6}));
  // grad accumulates nothing.
  EXPECT_FALSE(x.grad().defined());
  // backward(create_graph) leaves a differentiable grad.
  Tensor w = mul(x, x).sum();
  w.backward({}, {}, /*create_graph=*/true);
  EXPECT_TRUE(x.grad().requires_grad());
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{4, 6}));
  // x.grad's history reaches x's AccumulateGrad, which holds x: a cycle (as in PyTorch, which
  // warns), broken by dropping the grad.
  x.mutable_grad() = Tensor();
}

TEST(Autograd, GradOfUnusedInputs) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor u = t64({5}).requires_grad_();
  Tensor n = t64({5});
  Tensor y = mul(x, x).sum();
  EXPECT_HAS(error_of([&] {
               autograd::grad({y}, {x, u}, {}, true);
             }),
             "One of the differentiated Tensors (input 1) appears to not have been used in the graph. Set "
             "allow_unused=true if this is the desired behavior.");
  variable_list g = autograd::grad({y}, {x, u}, {}, true, false, /*allow_unused=*/true);
  EXPECT_EQ(vals(g[0]), (std::vector<double>{2, 4}));
  EXPECT_FALSE(g[1].defined());
  EXPECT_HAS(error_of([&] { autograd::grad({y}, {n}, {}, true); }),
             "One of the differentiated Tensors (input 0) does not require grad");
  // The gradient of an intermediate (non-leaf) input.
  Tensor m = mul(x, x);
  Tensor s = mul(m, m).sum();
  variable_list gm = autograd::grad({s}, {m});
  EXPECT_EQ(vals(gm[0]), (std::vector<double>{2, 8}));  // 2m
}

TEST(Autograd, BroadcastingReducesGradients) {
  Tensor a = t64({1, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  Tensor b = t64({10, 20, 30}, {3}).requires_grad_();
  Tensor c = t64({7}, {1, 1}).requires_grad_();
  mul(add(a, b), c).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(vals(a.grad()), std::vector<double>(6, 7));
  EXPECT_EQ(b.grad().sizes(), IntArrayRef({3}));
  EXPECT_EQ(vals(b.grad()), std::vector<double>(3, 14));
  EXPECT_EQ(c.grad().sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(vals(c.grad()), std::vector<double>{1 + 2 + 3 + 4 + 5 + 6 + 2 * (10 + 20 + 30)});
}

TEST(Autograd, InPlaceOnLeafIsAnError) {
  Tensor x = t64({1, 2}).requires_grad_();
  const uint64_t v0 = x._version();
  EXPECT_HAS(error_of([&] { x.mul_(x); }),
             "[aten::mul_.Tensor] a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_HAS(error_of([&] { x.select(0, 0).mul_(s64(2)); }),
             "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_EQ(x._version(), v0);  // refused before the kernel ran
  // Under NoGradGuard it is allowed (how optimizers update parameters).
  {
    NoGradGuard g;
    x.mul_(t64({2, 2}));
  }
  EXPECT_EQ(vals(x), (std::vector<double>{2, 4}));
  EXPECT_TRUE(x.is_leaf());
  EXPECT_TRUE(x.requires_grad());
}

TEST(Autograd, ModifiedSavedTensorIsAnError) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = mul(x, x);  // y is not saved by mul; x is
  Tensor z = mul(y, y);  // saves y (version 0)
  y.add_(t64({1, 1}));   // y is now at version 1
  std::string e = error_of([&] { z.sum().backward(); });
  EXPECT_HAS(e,
             "one of the variables needed for gradient computation has been modified by an inplace operation: "
             "[CPUDoubleType [2]], which is output 0 of AddBackward0, is at version 1; expected version 0 "
             "instead.");
  EXPECT_HAS(e, "DetectAnomalyGuard");
}

TEST(Autograd, InPlaceRecordsAndRebases) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = mul(x, t64({3, 3}));
  y.mul_(x);  // y = 3x * x
  EXPECT_EQ(autograd::grad_fn_name(y), "MulBackward0");
  EXPECT_EQ(y._version(), 1u);
  y.sum().backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6, 12}));  // 6x
}

TEST(Autograd, InPlaceOnViewRebasesTheBase) {
  Tensor x = t64({1, 2, 3}).requires_grad_();
  Tensor w = s64(5).requires_grad_();
  Tensor base = mul(x, t64({1, 1, 1}));  // a non-leaf
  Tensor v = base.select(0, 1);
  v.mul_(w);  // base[1] *= w
  EXPECT_EQ(autograd::grad_fn_name(base), "CopySlices");
  EXPECT_EQ(autograd::grad_fn_name(v), "AsStridedBackward0");
  EXPECT_EQ(vals(base), (std::vector<double>{1, 10, 3}));
  mul(base, t64({1, 10, 100})).sum().backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1, 50, 100}));
  EXPECT_EQ(vals(w.grad()), (std::vector<double>{20}));
}

TEST(Autograd, InPlaceOnViewOfBaseWithoutGrad) {
  // The base does not require grad; writing a value that does makes it.
  Tensor base = t64({1, 2, 3});
  Tensor w = s64(4).requires_grad_();
  Tensor v = base.select(0, 2);
  v.mul_(w);
  EXPECT_TRUE(base.requires_grad());
  EXPECT_FALSE(base.is_leaf());
  base.sum().backward();
  EXPECT_EQ(vals(w.grad()), (std::vector<double>{3}));
}

TEST(Autograd, InPlaceOnViewDifferentiatesTwice) {
  // exp_ on a transposed view: its saved result unpacks with exp_'s node (the view's shape), and
  // nothing it saves keeps the base alive (no reference cycle through CopySlices).
  Tensor x = t64({0, 1, 2, 3, 4, 5}, {2, 3}).requires_grad_();
  Tensor t = mul(x, s64(1));
  Tensor v = t.t();
  v.exp_();
  variable_list g = autograd::grad({t.sum()}, {x}, {}, {}, /*create_graph=*/true);
  variable_list g2 = autograd::grad({g[0].sum()}, {x});
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(vals(g[0])[i], std::exp(i), 1e-12);
    EXPECT_NEAR(vals(g2[0])[i], std::exp(i), 1e-12);
  }
}

TEST(Autograd, StaleViewGradFnIsRegenerated) {
  Tensor x = t64({1, 2, 3}).requires_grad_();
  Tensor base = mul(x, t64({1, 1, 1}));
  Tensor v = base.select(0, 0);  // SelectBackward0, before base changes
  EXPECT_EQ(autograd::grad_fn_name(v), "SelectBackward0");
  base.mul_(t64({2, 2, 2}));  // base changes in place: v's history is stale
  EXPECT_EQ(autograd::grad_fn_name(v), "AsStridedBackward0");
  mul(v, v).backward();  // v = 2 x0: d(v^2)/dx0 = 2 v * 2 = 8 x0
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{8, 0, 0}));
}

TEST(Autograd, DetachAndSetData) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = mul(x, x);
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_FALSE(d._is_view());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  y.detach_();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  EXPECT_FALSE(y.grad_fn());
  Tensor z = mul(x, x);
  Tensor zv = z.select(0, 0);
  EXPECT_HAS(error_of([&] { zv.detach_(); }), "Can't detach views in-place. Use detach() instead.");
  // set_data keeps the autograd identity.
  Tensor p = t64({1, 2}).requires_grad_();
  p.set_data(t64({5, 6, 7}));
  EXPECT_TRUE(p.requires_grad());
  EXPECT_EQ(vals(p), (std::vector<double>{5, 6, 7}));
  mul(p, p).sum().backward();
  EXPECT_EQ(vals(p.grad()), (std::vector<double>{10, 12, 14}));
}

TEST(Autograd, GradModeGuardsAreThreadLocal) {
  Tensor x = t64({1}).requires_grad_();
  {
    NoGradGuard g;
    EXPECT_FALSE(GradMode::is_enabled());
    std::atomic<bool> other{false};
    std::thread t([&] { other = GradMode::is_enabled() && mul(x, x).requires_grad(); });
    t.join();
    EXPECT_TRUE(other.load());
    {
      AutoGradMode on(true);
      EXPECT_TRUE(mul(x, x).requires_grad());
    }
    EXPECT_FALSE(mul(x, x).requires_grad());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  set_grad_enabled(false);
  EXPECT_FALSE(is_grad_enabled());
  EXPECT_FALSE(mul(x, x).requires_grad());
  set_grad_enabled(true);
  EXPECT_TRUE(mul(x, x).requires_grad());
}

TEST(Autograd, InferenceMode) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y;
  {
    InferenceMode g;
    EXPECT_TRUE(InferenceMode::is_enabled());
    y = mul(x, x);
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_inference());
    EXPECT_FALSE(x.is_inference());
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
  EXPECT_TRUE(y.is_inference());
  // Saving an inference tensor for backward is an error; using it in a recorded op that does not
  // save it is fine.
  EXPECT_HAS(error_of([&] { mul(y, x); }), "inference tensors cannot be saved for backward");
  EXPECT_HAS(error_of([&] { y.requires_grad_(); }),
             "setting requires_grad=True on an inference tensor outside InferenceMode");
}

TEST(Autograd, TensorHooks) {
  Tensor x = t64({1, 2}).requires_grad_();
  std::vector<double> seen;
  unsigned h = x.register_hook([&](const Tensor& g) { seen = vals(g); });
  Tensor y = mul(x, x);
  unsigned hy = y.register_hook([](const Tensor& g) { return mul(g, t64({10, 10})); });
  y.sum().backward();
  EXPECT_EQ(seen, (std::vector<double>{20, 40}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{20, 40}));
  y.remove_hook(hy);
  x.remove_hook(h);
  seen.clear();
  x.mutable_grad() = Tensor();
  mul(x, x).sum().backward();
  EXPECT_TRUE(seen.empty());
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2, 4}));
  EXPECT_HAS(error_of([&] { x.remove_hook(h); }), "no hook with handle");
  Tensor n = t64({1});
  EXPECT_HAS(error_of([&] { n.register_hook([](const Tensor&) {}); }),
             "cannot register a hook on a tensor that doesn't require gradient");
}

TEST(Autograd, NodeHooks) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = mul(x, t64({3, 4}));
  std::vector<std::string> log;
  auto fn = y.grad_fn();
  unsigned pre = fn->register_prehook([&](const variable_list& go) {
    log.push_back("pre " + std::to_string(vals(go[0])[0]));
    return variable_list{mul(go[0], t64({2, 2}))};
  });
  fn->register_hook([&](const variable_list& gi, const variable_list& go) {
    log.push_back("post " + std::to_string(vals(gi[0])[1]) + " " + std::to_string(vals(go[0])[0]));
    return variable_list{};
  });
  y.sum().backward({}, true);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "pre 1.000000");
  EXPECT_EQ(log[1], "post 8.000000 2.000000");
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6, 8}));
  EXPECT_TRUE(fn->remove_hook(pre));
  EXPECT_FALSE(fn->remove_hook(pre));
}

// ---- custom functions ----

namespace {
struct Cube : autograd::Function<Cube> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return mul(mul(x, x), x);
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list g) {
    auto x = ctx->get_saved_variables()[0];
    return {mul(mul(g[0], mul(x, x)), s64(3))};
  }
};

struct CubeOnce : autograd::Function<CubeOnce> {
  static constexpr bool is_once_differentiable = true;
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) { return Cube::forward(ctx, x); }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list g) { return Cube::backward(ctx, g); }
};

// Two outputs, one non-differentiable; an argument that is not a tensor.
struct SplitScale : autograd::Function<SplitScale> {
  static variable_list forward(autograd::AutogradContext* ctx, Tensor x, double k) {
    ctx->saved_data["k"] = k;
    Tensor a = mul(x, s64(k));
    Tensor idx = ones({1}, kInt64);
    ctx->mark_non_differentiable({idx});
    ctx->set_materialize_grads(false);
    return {a, idx};
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list g) {
    EXPECT_TRUE(ctx->needs_input_grad(0));
    EXPECT_FALSE(g[1].defined());
    double k = ctx->saved_data["k"].toDouble();
    return {mul(g[0], s64(k)), Tensor()};
  }
};

// In place on its input.
struct Double_ : autograd::Function<Double_> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    x.mul_(s64(2));
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(autograd::AutogradContext*, variable_list g) { return {mul(g[0], s64(2))}; }
};
}  // namespace

TEST(AutogradFunction, CubeFirstAndSecondOrder) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = Cube::apply(x);
  EXPECT_EQ(autograd::grad_fn_name(y), "CubeBackward");
  variable_list g = autograd::grad({y.sum()}, {x}, {}, {}, true);
  EXPECT_EQ(vals(g[0]), (std::vector<double>{3, 12}));
  variable_list g2 = autograd::grad({g[0].sum()}, {x});
  EXPECT_EQ(vals(g2[0]), (std::vector<double>{6, 12}));
}

TEST(AutogradFunction, OnceDifferentiableRefusesASecondOrder) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = CubeOnce::apply(x);
  variable_list g = autograd::grad({y.sum()}, {x}, {}, {}, true);
  EXPECT_EQ(vals(g[0]), (std::vector<double>{3, 12}));
  EXPECT_HAS(error_of([&] { autograd::grad({g[0].sum()}, {x}); }),
             "trying to differentiate twice a function that was marked as once differentiable (CubeOnceBackward");
}

TEST(AutogradFunction, NonDifferentiableOutputsAndSavedData) {
  Tensor x = t64({1, 2}).requires_grad_();
  variable_list out = SplitScale::apply(x, 3.0);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  out[0].sum().backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{3, 3}));
}

TEST(AutogradFunction, MarkDirty) {
  Tensor x = t64({1, 2}).requires_grad_();
  Tensor y = mul(x, t64({1, 1}));
  Tensor r = Double_::apply(y);
  EXPECT_TRUE(r.is_same(y));
  EXPECT_EQ(autograd::grad_fn_name(y), "Double_Backward");
  mul(y, y).sum().backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{8, 16}));  // y = 2x: d(4x^2) = 8x
}

// ---- anomaly mode ----

TEST(AutogradAnomaly, ErrorInBackwardNamesTheForwardCall) {
  struct Bad : autograd::Function<Bad> {
    static Tensor forward(autograd::AutogradContext*, Tensor x) { return mul(x, x); }
    static variable_list backward(autograd::AutogradContext*, variable_list) { throw ValueError("boom in backward"); }
  };
  Tensor x = t64({1}).requires_grad_();
  {
    autograd::DetectAnomalyGuard g;
    Tensor y = Bad::apply(x);
    std::string e = error_of([&] { y.sum().backward(); });
    EXPECT_HAS(e, "boom in backward");
    EXPECT_HAS(e, "BadBackward");
    EXPECT_HAS(e, "Traceback of forward call that caused the error (BadBackward)");
    EXPECT_HAS(e, "ember_autograd_tests(");  // a frame of this test's binary
  }
  {
    autograd::DetectAnomalyGuard g;
    Tensor y = mul(x, x);
    Tensor z = mul(y, y);
    y.add_(t64({1}));
    std::string e = error_of([&] { z.sum().backward(); });
    EXPECT_HAS(e, "Traceback of forward call that caused the error (aten::mul.Tensor)");
  }
}

TEST(AutogradAnomaly, NaNNamesTheNode) {
  struct MakesNaN : autograd::Function<MakesNaN> {
    static Tensor forward(autograd::AutogradContext*, Tensor x) { return mul(x, x); }
    static variable_list backward(autograd::AutogradContext*, variable_list g) {
      return {mul(g[0], s64(std::nan("")))};
    }
  };
  Tensor x = t64({1, 2}).requires_grad_();
  autograd::DetectAnomalyGuard g;
  Tensor y = MakesNaN::apply(x);
  std::string e = error_of([&] { y.sum().backward(); });
  EXPECT_HAS(e, "Function 'MakesNaNBackward' returned nan values in its 0th output.");
}

// ---- engine ----

TEST(AutogradEngine, LongChainIsIterative) {
  Tensor x = s64(1).requires_grad_();
  Tensor y = x;
  Tensor k = s64(1.0001);
  for (int i = 0; i < 100000; ++i) y = mul(y, k);
  y.backward();
  EXPECT_NEAR(vals(x.grad())[0], std::pow(1.0001, 100000), 1e-6 * std::pow(1.0001, 100000));
  y = Tensor();  // frees the graph without recursion
}

TEST(AutogradEngine, IndependentGraphsConcurrently) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int it = 0; it < 50; ++it) {
        Tensor x = t64({double(t), 1.0}).requires_grad_();
        Tensor y = mul(mul(x, x), x).sum();
        y.backward();
        if (vals(x.grad()) == std::vector<double>{3.0 * t * t, 3.0}) ++ok;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 200);
}

TEST(AutogradEngine, SharedLeafConcurrently) {
  Tensor x = t64({1, 2}).requires_grad_();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int it = 0; it < 25; ++it) mul(x, x).sum().backward();
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{200, 400}));
}

// ---- operators without a formula ----

namespace {
Tensor my_square_cpu(const Tensor& x) { return mul(x, x); }
Tensor my_noformula_cpu(const Tensor& x) { return mul(x, x); }
}  // namespace

EMBER_LIBRARY(agtest, m) {
  m.def("square(Tensor x) -> Tensor");
  m.def("noformula(Tensor x) -> Tensor");
}
EMBER_LIBRARY_IMPL(agtest, CPU, m) {
  m.impl("square", &my_square_cpu);
  m.impl("noformula", &my_noformula_cpu);
}
EMBER_LIBRARY_IMPL(agtest, Autograd, m) {
  autograd::register_autograd(
      m, "square",
      [](autograd::AutogradContext* ctx, const variable_list& g) {
        return variable_list{mul(mul(g[0], ctx->get_saved_variables()[0]), s64(2))};
      },
      [](autograd::AutogradContext* ctx, const std::vector<IValue>& args, const variable_list&) {
        ctx->save_for_backward({args[0].toTensor()});
      });
}

TEST(AutogradCustomOps, FallbackRaisesOnlyWhenAGradientIsNeeded) {
  auto op = Dispatcher::singleton().findSchemaOrThrow("agtest::noformula", "").typed<Tensor(const Tensor&)>();
  Tensor plain = op.call(t64({3}));
  EXPECT_EQ(vals(plain), (std::vector<double>{9}));
  Tensor x = t64({3}).requires_grad_();
  std::string e = error_of([&] { op.call(x); });
  EXPECT_HAS(e, "[agtest::noformula] has no derivative formula, and its argument 'x' requires grad");
  EXPECT_THROW(op.call(x), NotImplementedError);
  {
    NoGradGuard g;
    EXPECT_EQ(vals(op.call(x)), (std::vector<double>{9}));
  }
}

TEST(AutogradCustomOps, RegisteredFormula) {
  auto op = Dispatcher::singleton().findSchemaOrThrow("agtest::square", "").typed<Tensor(const Tensor&)>();
  Tensor x = t64({3, 4}).requires_grad_();
  Tensor y = op.call(x);
  EXPECT_EQ(autograd::grad_fn_name(y), "SquareBackward");
  EXPECT_EQ(vals(y), (std::vector<double>{9, 16}));
  y.sum().backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6, 8}));
}

// LibTorch refuses to resize a variable that requires grad; so does Ember, naming the operator.
TEST(AutogradFidelity, ResizeOfATensorThatRequiresGradRaises) {
  Tensor x = t64({1, 2, 3}).requires_grad_();
  std::string e = error_of([&] { x.resize_({2}); });
  EXPECT_HAS(e, "[aten::resize_]");
  EXPECT_HAS(e, "cannot resize variables that require grad");
  EXPECT_THROW(x.resize_({2}), NotImplementedError);
  EXPECT_EQ(x.sizes(), IntArrayRef({3}));  // left as it was
  Tensor y = t64({1, 2, 3});
  y.resize_({2});  // no grad: fine
  EXPECT_EQ(vals(y), (std::vector<double>{1, 2}));
}
