// Note [AutogradHooks]: the Tensor autograd members, autograd::grad/backward and
// Function<T>::apply call through the table the autograd plugin installs. A fake table stands in
// for the plugin here; an older, shorter one shows the error for a missing capability.
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <string>

#include "UnitTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using autograd::AutogradContext;
using autograd::variable_list;

namespace {

using test::error_of;
#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

Tensor filled(std::initializer_list<float> v) {
  Tensor t = make_empty({static_cast<int64_t>(v.size())}, kFloat32);
  std::copy(v.begin(), v.end(), t.data_ptr<float>());
  return t;
}

// ---- the fake plugin ----------------------------------------------------------------------

struct FakeMeta final : AutogradMetaInterface {
  bool rg = false, retains = false;
  Tensor g;
  std::map<unsigned, std::function<Tensor(const Tensor&)>> hooks;
  std::string grad_fn;
  bool requires_grad() const override { return rg; }
  void set_requires_grad(bool on, TensorImpl*) override { rg = on; }
  const Tensor& grad() const override { return g; }
  Tensor& mutable_grad() override { return g; }
  bool is_leaf() const override { return grad_fn.empty(); }
};
FakeMeta& fake(const Tensor& t) { return *static_cast<FakeMeta*>(t.unsafeGetTensorImpl()->autograd_meta()); }

struct Calls {
  std::vector<std::string> log;
  std::vector<Tensor> outputs, grad_outputs;
  FunctionNodeArgs node;  // the last recorded node, its arrays copied below
  std::vector<Tensor> node_inputs, node_saved;
  int released = 0;
} g_calls;

void record_node(const FunctionNodeArgs& a) {
  g_calls.log.push_back(std::string("record ") + a.name);
  g_calls.node = a;
  g_calls.node_inputs.assign(a.inputs, a.inputs + a.num_inputs);
  g_calls.node_saved.assign(a.saved, a.saved + a.num_saved);
  for (size_t i = 0; i < a.num_outputs; ++i) {  // the outputs now come from this node
    Tensor& o = a.outputs[i];
    o.unsafeGetTensorImpl()->set_autograd_meta(std::make_unique<FakeMeta>());
    fake(o).rg = true;
    fake(o).grad_fn = a.name;
  }
}

AutogradHooks full_table() {
  AutogradHooks h;
  h.plugin = "fakegrad";
  h.make_meta = [](TensorImpl*) -> std::unique_ptr<AutogradMetaInterface> { return std::make_unique<FakeMeta>(); };
  h.backward = [](const std::vector<Tensor>& outs, const std::vector<Tensor>& grads, std::optional<bool>, bool) {
    g_calls.log.push_back("backward");
    g_calls.outputs = outs;
    g_calls.grad_outputs = grads;
  };
  h.grad = [](const std::vector<Tensor>&, const std::vector<Tensor>& inputs, const std::vector<Tensor>&,
              std::optional<bool>, bool, bool allow_unused) {
    g_calls.log.push_back(allow_unused ? "grad allow_unused" : "grad");
    return inputs;
  };
  h.retain_grad = [](const Tensor& t) { fake(t).retains = true; };
  h.retains_grad = [](const Tensor& t) { return fake(t).retains; };
  h.grad_fn_name = [](const Tensor& t) { return fake(t).grad_fn; };
  h.register_hook = [](const Tensor& t, std::function<Tensor(const Tensor&)> f) {
    auto& m = fake(t);
    unsigned id = static_cast<unsigned>(m.hooks.size()) + 10;
    m.hooks[id] = std::move(f);
    return id;
  };
  h.remove_hook = [](const Tensor& t, unsigned id) { fake(t).hooks.erase(id); };
  h.set_data = [](const Tensor& self, const Tensor& d) {
    g_calls.log.push_back("set_data " + std::to_string(self.numel()) + "->" + std::to_string(d.numel()));
  };
  h.record_function_node = &record_node;
  return h;
}

// Installs a table for one test and removes it after.
struct Installed {
  AutogradHooks table;
  explicit Installed(AutogradHooks h) : table(h) {
    g_calls = {};
    set_autograd_hooks(&table);
  }
  ~Installed() { set_autograd_hooks(nullptr); }
};

// A custom function: y = x^3 * k, with k a non-tensor argument.
struct Cube : autograd::Function<Cube> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
    EXPECT_FALSE(GradMode::is_enabled()) << "forward runs with grad mode off";
    ctx->save_for_backward({x});
    ctx->saved_data["k"] = k;
    Tensor y = make_empty(x.sizes(), kFloat32);
    for (int64_t i = 0; i < x.numel(); ++i) {
      float v = x.data_ptr<float>()[i];
      y.data_ptr<float>()[i] = static_cast<float>(v * v * v * k);
    }
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const Tensor& x = ctx->get_saved_variables()[0];
    const double k = ctx->saved_data["k"].toDouble();
    Tensor gx = make_empty(x.sizes(), kFloat32);
    for (int64_t i = 0; i < x.numel(); ++i) {
      float v = x.data_ptr<float>()[i];
      gx.data_ptr<float>()[i] = static_cast<float>(g[0].data_ptr<float>()[i] * 3 * v * v * k);
    }
    return {gx, Tensor()};
  }
};

}  // namespace

TEST(AutogradHooks, WithoutThePluginEveryEntryNamesIt) {
  ASSERT_EQ(autograd_hooks(), nullptr);
  Tensor x = filled({1, 2});
  for (const std::string& e : {error_of([&] { x.requires_grad_(); }), error_of([&] { x.backward(); }),
                               error_of([&] { autograd::grad({x}, {x}); }), error_of([&] { autograd::backward({x}); }),
                               error_of([&] { x.mutable_grad(); })}) {
    EXPECT_HAS(e, "needs the autograd plugin, which is not loaded");
    EXPECT_HAS(e, "ember::plugins::load(\"autograd\")");
  }
  EXPECT_HAS(error_of([&] { autograd::grad({x}, {x}); }), "[autograd::grad]");
  EXPECT_THROW(x.requires_grad_(), NotImplementedError);
  // What needs no graph works without the plugin.
  EXPECT_FALSE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(x.retains_grad());
  EXPECT_EQ(autograd::grad_fn_name(x), "");
  EXPECT_HAS(error_of([&] { x.retain_grad(); }),
             "[retain_grad] can't retain_grad on a tensor that has requires_grad=False");
  EXPECT_HAS(error_of([&] { x.register_hook([](const Tensor&) {}); }),
             "[register_hook] cannot register a hook on a tensor that doesn't require gradient");
  Tensor d = x.detach();
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  EXPECT_FALSE(d.is_view());
  Tensor y = Cube::apply(x, 2.0);  // no input requires grad: a plain call
  EXPECT_EQ(y.data_ptr<float>()[1], 16.f);
  EXPECT_FALSE(y.requires_grad());
}

TEST(AutogradHooks, TensorMembersCallThroughTheTable) {
  Installed inst(full_table());
  Tensor x = filled({1, 2});
  x.requires_grad_();
  ASSERT_NE(x.unsafeGetTensorImpl()->autograd_meta(), nullptr);
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.key_set().has_functionality(Functionality::Autograd));
  EXPECT_FALSE(x.retains_grad());
  x.retain_grad();
  EXPECT_TRUE(x.retains_grad());
  EXPECT_EQ(autograd::grad_fn_name(x), "");
  fake(x).grad_fn = "MulBackward0";
  EXPECT_EQ(autograd::grad_fn_name(x), "MulBackward0");
  EXPECT_FALSE(x.is_leaf());

  // A void hook only sees the gradient; a Tensor hook replaces it.
  int seen = 0;
  unsigned h1 = x.register_hook([&seen](const Tensor&) { ++seen; });
  unsigned h2 = x.register_hook([](const Tensor& g) { return g.detach(); });
  EXPECT_NE(h1, h2);
  ASSERT_EQ(fake(x).hooks.size(), 2u);
  Tensor g = filled({5, 6});
  EXPECT_FALSE(fake(x).hooks[h1](g).defined());
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(fake(x).hooks[h2](g).data_ptr(), g.data_ptr());
  x.remove_hook(h1);
  EXPECT_EQ(fake(x).hooks.count(h1), 0u);
  EXPECT_EQ(fake(x).hooks.count(h2), 1u);

  x.backward(g, true, false);
  EXPECT_EQ(g_calls.log.back(), "backward");
  ASSERT_EQ(g_calls.outputs.size(), 1u);
  EXPECT_TRUE(g_calls.outputs[0].is_same(x));
  ASSERT_EQ(g_calls.grad_outputs.size(), 1u);
  EXPECT_TRUE(g_calls.grad_outputs[0].is_same(g));
  autograd::backward({x}, {g});
  EXPECT_EQ(g_calls.log.back(), "backward");
  auto r = autograd::grad({x}, {g}, {}, {}, false, true);
  EXPECT_EQ(g_calls.log.back(), "grad allow_unused");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].is_same(g));
}

TEST(AutogradHooks, DetachAndSetData) {
  Installed inst(full_table());
  Tensor x = filled({1, 2, 3});
  x.requires_grad_();
  Tensor d = x.detach();
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  EXPECT_EQ(d.unsafeGetTensorImpl()->storage().get(), x.unsafeGetTensorImpl()->storage().get());
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.unsafeGetTensorImpl()->autograd_meta(), nullptr);
  EXPECT_FALSE(d.key_set().has_functionality(Functionality::Autograd));
  EXPECT_FALSE(d._is_view());
  d.data_ptr<float>()[0] = 9;  // shares data and the version counter
  EXPECT_EQ(x.data_ptr<float>()[0], 9.f);

  Tensor base = make_empty({4, 2}, kFloat64);
  Tensor v = make_view(x, {2}, {1}, 1);  // x viewed: set_data drops the record
  v.requires_grad_();
  AutogradMetaInterface* meta = v.unsafeGetTensorImpl()->autograd_meta();
  v.set_data(base);
  EXPECT_EQ(g_calls.log.back(), "set_data 2->8");
  EXPECT_EQ(v.sizes(), base.sizes());
  EXPECT_EQ(v.dtype(), kFloat64);
  EXPECT_EQ(v.data_ptr(), base.data_ptr());
  EXPECT_EQ(v.unsafeGetTensorImpl()->autograd_meta(), meta);
  EXPECT_TRUE(v.requires_grad());
  EXPECT_TRUE(v.key_set().has_functionality(Functionality::Autograd));
  EXPECT_TRUE(v.key_set().has_backend(kCPU));
  EXPECT_FALSE(v._is_view());
  EXPECT_FALSE(base.requires_grad());

  Tensor plain = filled({1});
  plain.set_data(x);  // no autograd meta: the plugin is not asked
  EXPECT_EQ(g_calls.log.back(), "set_data 2->8");
  EXPECT_EQ(plain.data_ptr(), x.data_ptr());
  EXPECT_FALSE(plain.requires_grad());
  EXPECT_FALSE(plain.key_set().has_functionality(Functionality::Autograd));
  EXPECT_HAS(error_of([&] { plain.set_data(Tensor()); }), "[set_data] new_data is an undefined tensor");
}

TEST(AutogradHooks, FunctionApplyRecordsOneNodeAndItsBackwardRuns) {
  Installed inst(full_table());
  Tensor x = filled({1, 2});
  x.requires_grad_();
  Tensor other = filled({7});
  Tensor y = Cube::apply(x, 2.0);
  EXPECT_EQ(y.data_ptr<float>()[1], 16.f);
  ASSERT_EQ(g_calls.log.back(), "record CubeBackward");
  EXPECT_EQ(autograd::grad_fn_name(y), "CubeBackward");  // the plugin's output made it
  const FunctionNodeArgs& n = g_calls.node;
  EXPECT_EQ(n.struct_size, sizeof(FunctionNodeArgs));
  ASSERT_EQ(g_calls.node_inputs.size(), 1u);
  EXPECT_TRUE(g_calls.node_inputs[0].is_same(x));
  EXPECT_EQ(n.num_outputs, 1u);
  ASSERT_EQ(g_calls.node_saved.size(), 1u);
  EXPECT_TRUE(g_calls.node_saved[0].is_same(x));
  EXPECT_TRUE(n.materialize_grads);
  ASSERT_NE(n.state, nullptr);
  ASSERT_NE(n.backward, nullptr);
  ASSERT_NE(n.release, nullptr);

  // The engine's side: unpacked saved tensors and the output gradient in, input gradients out.
  Tensor go = filled({1, 10});
  Tensor gi[1];
  n.backward(n.state, g_calls.node_saved.data(), 1, &go, 1, gi, 1);
  ASSERT_TRUE(gi[0].defined());
  EXPECT_EQ(gi[0].data_ptr<float>()[0], 6.f);    // 1 * 3 * 1 * 2
  EXPECT_EQ(gi[0].data_ptr<float>()[1], 240.f);  // 10 * 3 * 4 * 2
  n.release(n.state);

  // Not recorded under no-grad, nor when no input requires grad.
  g_calls.log.clear();
  {
    NoGradGuard ng;
    (void)Cube::apply(x, 1.0);
  }
  (void)Cube::apply(other, 1.0);
  EXPECT_TRUE(g_calls.log.empty());
}

namespace {
struct BadCount : autograd::Function<BadCount> {
  static Tensor forward(AutogradContext*, const Tensor& x, int64_t) { return x.detach(); }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }  // one short
};
struct GradForInt : autograd::Function<GradForInt> {
  static Tensor forward(AutogradContext*, const Tensor& x, int64_t) { return x.detach(); }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};
struct Dirty : autograd::Function<Dirty> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x, const Tensor& y) {
    EXPECT_TRUE(ctx->needs_input_grad(0));
    EXPECT_FALSE(ctx->needs_input_grad(1));
    ctx->mark_dirty({y.detach()});  // not an input
    return {x.detach()};
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], Tensor()}; }
};
}  // namespace

TEST(AutogradHooks, FunctionErrorsNameTheFunction) {
  Installed inst(full_table());
  Tensor x = filled({1, 2});
  x.requires_grad_();
  Tensor go = filled({1, 1});
  auto run_backward = [&] {
    const FunctionNodeArgs& n = g_calls.node;
    Tensor gi[1];
    std::string e = error_of([&] { n.backward(n.state, nullptr, 0, &go, 1, gi, 1); });
    n.release(n.state);
    return e;
  };
  (void)BadCount::apply(x, 3);
  std::string e = run_backward();
  EXPECT_HAS(e, "[BadCountBackward] backward returned 1 gradients, expected 2");
  (void)GradForInt::apply(x, 3);
  e = run_backward();
  EXPECT_HAS(e, "[GradForIntBackward] backward returned a defined gradient at position 1");
  EXPECT_HAS(error_of([&] {
               Dirty::apply(x, filled({3, 4}));
             }),
             "[DirtyBackward] mark_dirty was given a tensor that is not an input of forward");
  AutogradContext ctx;
  EXPECT_HAS(error_of([&] { ctx.get_saved_variables(); }), "available in backward only");
}

TEST(AutogradHooks, AnOlderShorterTableLacksTheNewerCapabilities) {
  // A plugin built when the table ended before retain_grad: those fields are absent even though
  // this (newer) struct has memory for them.
  AutogradHooks old = full_table();
  old.struct_size = offsetof(AutogradHooks, retain_grad);
  old.retain_grad = [](const Tensor&) { ADD_FAILURE() << "read past struct_size"; };
  old.register_hook = [](const Tensor&, std::function<Tensor(const Tensor&)>) -> unsigned {
    ADD_FAILURE() << "read past struct_size";
    return 0;
  };
  old.record_function_node = [](const FunctionNodeArgs&) { ADD_FAILURE() << "read past struct_size"; };
  Installed inst(old);
  Tensor x = filled({1, 2});
  x.requires_grad_();  // make_meta is within the old table
  EXPECT_TRUE(x.requires_grad());
  x.backward();
  EXPECT_EQ(g_calls.log.back(), "backward");
  std::string e = error_of([&] { x.retain_grad(); });
  EXPECT_HAS(e, "[retain_grad] needs the autograd capability 'retain_grad', which plugin 'fakegrad' does not provide");
  EXPECT_HAS(e, "version " + std::to_string(AutogradHooks::kVersion) + ", " + std::to_string(offsetof(AutogradHooks, retain_grad)) + " bytes");
  EXPECT_HAS(e, "update or rebuild plugin 'fakegrad'");
  EXPECT_THROW(x.retain_grad(), NotImplementedError);
  EXPECT_HAS(error_of([&] { x.register_hook([](const Tensor&) {}); }), "capability 'register_hook'");
  EXPECT_HAS(error_of([&] { Cube::apply(x, 1.0); }),
             "[CubeBackward] needs the autograd capability 'record_function_node'");
  EXPECT_HAS(error_of([&] { x.set_data(filled({3})); }), "[set_data] needs the autograd capability 'set_data'");
  EXPECT_EQ(x.numel(), 2) << "a failed set_data changes nothing";
}

TEST(AutogradHooks, ANullFieldIsAbsentToo) {
  AutogradHooks h = full_table();
  h.remove_hook = nullptr;
  Installed inst(h);
  Tensor x = filled({1});
  x.requires_grad_();
  unsigned id = x.register_hook([](const Tensor& g) { return g; });
  EXPECT_HAS(error_of([&] { x.remove_hook(id); }),
             "[remove_hook] needs the autograd capability 'remove_hook', which plugin 'fakegrad' does not provide");
}

TEST(AutogradHooks, UnreadableTablesAreRefused) {
  AutogradHooks good = full_table();
  Installed inst(good);
  AutogradHooks v1 = full_table();
  v1.version = 1;
  EXPECT_HAS(error_of([&] { set_autograd_hooks(&v1); }), "[set_autograd_hooks] the table is version 1");
  AutogradHooks tiny = full_table();
  tiny.struct_size = 8;
  EXPECT_HAS(error_of([&] { set_autograd_hooks(&tiny); }), "rebuild the autograd plugin");
  EXPECT_EQ(autograd_hooks(), &inst.table) << "a refused table leaves the installed one";
}

TEST(AutogradHooks, AnomalyModeIsCoreState) {
  EXPECT_FALSE(AnomalyMode::is_enabled());
  {
    autograd::DetectAnomalyGuard g(false);
    EXPECT_TRUE(AnomalyMode::is_enabled());
    EXPECT_FALSE(AnomalyMode::should_check_nan());
  }
  EXPECT_FALSE(AnomalyMode::is_enabled());
  EXPECT_TRUE(AnomalyMode::should_check_nan());
}
