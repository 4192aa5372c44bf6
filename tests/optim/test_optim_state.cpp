// The optimizer base: parameter groups and their options, zero_grad, step's closure, the
// construction errors (PyTorch's messages), sparse gradients, and state_dict / load_state_dict
// (layout, structure checks, atomic failure, bit-identical resume for every optimizer).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "OptimTestUtil.h"

using namespace ember;
using namespace ember::optim;
using namespace ember::optim_test;

namespace {

void backward_on(const std::vector<Tensor>& p) { loss_of(p).backward(); }

// A sparse-layout tensor without storage (only its layout matters here).
class FakeSparseImpl final : public TensorImpl {
 public:
  explicit FakeSparseImpl(IntArrayRef sizes)
      : TensorImpl(backend_key_set(kCPU, kSparse, false), kFloat64, Device(kCPU), kSparse, sizes) {}
};

TEST(OptimizerGroups, EachGroupOwnsACopyOfItsOptions) {
  auto p = make_params();
  SGDOptions defaults(0.1);
  SGD opt({OptimizerParamGroup({p[0], p[1]}), OptimizerParamGroup({p[2]}, SGDOptions(0.5))}, defaults);
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  EXPECT_EQ(opt.param_groups()[1].options().get_lr(), 0.5);
  EXPECT_EQ(opt.size(), 3u);
  EXPECT_EQ(opt.parameters().size(), 2u);
  // Changing one group's options changes neither the defaults nor the other group.
  opt.param_groups()[0].options().set_lr(0.25);
  static_cast<SGDOptions&>(opt.param_groups()[1].options()).momentum(0.5);
  EXPECT_EQ(opt.defaults().get_lr(), 0.1);
  EXPECT_EQ(static_cast<SGDOptions&>(opt.defaults()).momentum(), 0.0);
  EXPECT_EQ(opt.param_groups()[1].options().get_lr(), 0.5);
  // And the step uses the group's lr: x -= 0.25 * grad.
  const Vec x0 = to_vec(p[0]);
  backward_on(p);
  const Vec g = to_vec(p[0].grad());
  opt.step();
  const Vec x1 = to_vec(p[0]);
  for (size_t i = 0; i < x0.size(); ++i) EXPECT_DOUBLE_EQ(x1[i], x0[i] - 0.25 * g[i]);
}

TEST(OptimizerGroups, AddParamGroupChecksBeforeAdding) {
  auto p = make_params();
  Adam opt({p[0]}, AdamOptions(0.01));
  opt.add_param_group(OptimizerParamGroup({p[1]}, AdamOptions(0.5)));
  EXPECT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.param_groups()[1].options().get_lr(), 0.5);
  opt.add_param_group({{p[2]}});  // no options: a copy of the defaults
  EXPECT_EQ(opt.param_groups()[2].options().get_lr(), 0.01);

  Tensor fresh = zeros({2}, kFloat64).requires_grad_();
  EXPECT_EQ(error_of([&] {
              opt.add_param_group({{fresh, p[0]}});
            }),
            "[Adam] some parameters appear in more than one parameter group (parameter 1 of the new group)");
  EXPECT_EQ(error_of([&] {
              opt.add_param_group({{fresh, fresh}});
            }),
            "[Adam] add_param_group: parameter 1 appears twice in the group");
  Tensor non_leaf = fresh * 2;
  EXPECT_EQ(error_of([&] { opt.add_param_group({{non_leaf}}); }),
            "[Adam] can't optimize a non-leaf Tensor (parameter 0 of the group)");
  EXPECT_EQ(error_of([&] { opt.add_param_group({{Tensor()}}); }),
            "[Adam] add_param_group: parameter 0 is an undefined tensor");
  EXPECT_EQ(error_of([&] { opt.add_param_group({{zeros({2}, kInt64)}}); }),
            "[Adam] add_param_group: parameter 0 has dtype int64; only floating-point tensors can be optimized");
  EXPECT_THROW(opt.add_param_group(OptimizerParamGroup({fresh}, SGDOptions(0.1))), TypeError);
  EXPECT_EQ(error_of([&] { opt.add_param_group(OptimizerParamGroup({fresh}, SGDOptions(0.1))); }),
            "[Adam] expected AdamOptions for a parameter group, got options of another optimizer");
  EXPECT_EQ(error_of([&] { opt.add_param_group(OptimizerParamGroup({fresh}, AdamOptions(-0.5))); }),
            "[Adam] Invalid learning rate: -0.5");
  EXPECT_EQ(opt.param_groups().size(), 3u);  // nothing was added by the failures
  opt.add_param_group({{fresh}});
  EXPECT_EQ(opt.param_groups().size(), 4u);
}

TEST(OptimizerGroups, EmptyParameterList) {
  EXPECT_EQ(error_of([] { SGD(std::vector<Tensor>{}, SGDOptions(0.1)); }),
            "[SGD] optimizer got an empty parameter list");
}

TEST(OptimizerErrors, PyTorchMessages) {
  auto p = make_params();
  const std::pair<std::function<void()>, std::string> cases[] = {
      {[&] { SGD(p, SGDOptions(-1)); }, "[SGD] Invalid learning rate: -1"},
      {[&] { SGD(p, SGDOptions(0.1).momentum(-0.5)); }, "[SGD] Invalid momentum value: -0.5"},
      {[&] { SGD(p, SGDOptions(0.1).weight_decay(-1)); }, "[SGD] Invalid weight_decay value: -1"},
      {[&] { SGD(p, SGDOptions(0.1).nesterov(true)); },
       "[SGD] Nesterov momentum requires a momentum and zero dampening"},
      {[&] { SGD(p, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)); },
       "[SGD] Nesterov momentum requires a momentum and zero dampening"},
      {[&] { Adam(p, AdamOptions(-1)); }, "[Adam] Invalid learning rate: -1"},
      {[&] { Adam(p, AdamOptions().eps(-1e-8)); }, "[Adam] Invalid epsilon value: -1e-08"},
      {[&] {
         Adam(p, AdamOptions().betas({1.0, 0.999}));
       },
       "[Adam] Invalid beta parameter at index 0: 1"},
      {[&] {
         Adam(p, AdamOptions().betas({0.9, -0.1}));
       },
       "[Adam] Invalid beta parameter at index 1: -0.1"},
      {[&] { Adam(p, AdamOptions().weight_decay(-0.1)); }, "[Adam] Invalid weight_decay value: -0.1"},
      {[&] {
         AdamW(p, AdamWOptions().betas({0.9, 1.5}));
       },
       "[AdamW] Invalid beta parameter at index 1: 1.5"},
      {[&] { RMSprop(p, RMSpropOptions().alpha(-1)); }, "[RMSprop] Invalid alpha value: -1"},
      {[&] { RMSprop(p, RMSpropOptions().momentum(-1)); }, "[RMSprop] Invalid momentum value: -1"},
      {[&] { Adagrad(p, AdagradOptions().lr_decay(-1)); }, "[Adagrad] Invalid lr_decay value: -1"},
      {[&] { Adagrad(p, AdagradOptions().initial_accumulator_value(-1)); },
       "[Adagrad] Invalid initial_accumulator_value value: -1"},
      {[&] { Adadelta(p, AdadeltaOptions().rho(1.5)); }, "[Adadelta] Invalid rho value: 1.5"},
      {[&] { Adamax(p, AdamaxOptions(-2)); }, "[Adamax] Invalid learning rate: -2"},
      {[&] { NAdam(p, NAdamOptions().momentum_decay(-1)); }, "[NAdam] Invalid momentum_decay value: -1"},
      {[&] { RAdam(p, RAdamOptions().eps(-1)); }, "[RAdam] Invalid epsilon value: -1"},
      {[&] {
         Rprop(p, RpropOptions().etas({1.5, 1.2}));
       },
       "[Rprop] Invalid eta values: 1.5, 1.2"},
      {[&] {
         Rprop(p, RpropOptions().step_sizes({1, 0.1}));
       },
       "[Rprop] Invalid step_sizes: 1, 0.1 (expected 0 <= min <= max)"},
      {[&] { ASGD(p, ASGDOptions().weight_decay(-1)); }, "[ASGD] Invalid weight_decay value: -1"},
  };
  for (const auto& [make, message] : cases) EXPECT_EQ(error_of(make), message);
}

TEST(OptimizerStep, ClosureRunsWithGradEnabledAndItsLossIsReturned) {
  auto p = make_params();
  SGD opt(p, SGDOptions(0.01));
  EXPECT_FALSE(opt.step().defined());  // no closure, no gradient: nothing happens
  EXPECT_EQ(to_vec(p[0]), kX0);
  NoGradGuard outer;  // step enables grad for the closure anyway
  Tensor loss = opt.step([&] {
    EXPECT_TRUE(GradMode::is_enabled());
    opt.zero_grad();
    Tensor l = loss_of(p);
    l.backward();
    return l;
  });
  EXPECT_DOUBLE_EQ(loss.item<double>(), loss_ref(initial_params()));
  EXPECT_FALSE(GradMode::is_enabled());
  EXPECT_NE(to_vec(p[0]), kX0);
}

TEST(OptimizerStep, ZeroGrad) {
  auto p = make_params();
  SGD opt(p, SGDOptions(0.01));
  backward_on(p);
  opt.zero_grad(/*set_to_none=*/false);
  for (const auto& t : p) {
    ASSERT_TRUE(t.grad().defined());
    EXPECT_EQ(t.grad().abs().sum().item<double>(), 0.0);
    EXPECT_FALSE(t.grad().requires_grad());
  }
  backward_on(p);
  opt.zero_grad();
  for (const auto& t : p) EXPECT_FALSE(t.grad().defined());
  // Parameters without a gradient are skipped by step.
  backward_on({p[0], p[1], p[2].detach()});
  opt.step();
  EXPECT_EQ(to_vec(p[2]), kZ0);
  EXPECT_NE(to_vec(p[1]), kY0);
}

TEST(OptimizerStep, SparseGradientsAreNotImplemented) {
  auto make = std::vector<std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>>{
      [](auto p) { return std::make_unique<SGD>(p, SGDOptions(0.1)); },
      [](auto p) { return std::make_unique<Adam>(p); },
      [](auto p) { return std::make_unique<AdamW>(p); },
      [](auto p) { return std::make_unique<RMSprop>(p); },
      [](auto p) { return std::make_unique<Adagrad>(p); },
      [](auto p) { return std::make_unique<Adadelta>(p); },
      [](auto p) { return std::make_unique<Adamax>(p); },
      [](auto p) { return std::make_unique<NAdam>(p); },
      [](auto p) { return std::make_unique<RAdam>(p); },
      [](auto p) { return std::make_unique<Rprop>(p); },
      [](auto p) { return std::make_unique<ASGD>(p); },
  };
  for (const auto& f : make) {
    auto p = make_params();
    auto opt = f(p);
    backward_on(p);
    // The last parameter's gradient is sparse: the check runs before any parameter changes.
    p[2].mutable_grad() = Tensor(make_intrusive<FakeSparseImpl>(IntArrayRef{4}));
    try {
      opt->step();
      ADD_FAILURE() << opt->name() << " accepted a sparse gradient";
    } catch (const NotImplementedError& e) {
      EXPECT_EQ(std::string(e.what()),
                "[" + opt->name() + "] sparse gradients are not supported (got a Sparse gradient)");
    }
    EXPECT_EQ(to_vec(p[0]), kX0) << opt->name();
  }
  auto p = make_params();
  LBFGS lbfgs(p);
  EXPECT_THROW(lbfgs.step([&] {
    Tensor l = loss_of(p);
    l.backward();
    p[2].mutable_grad() = Tensor(make_intrusive<FakeSparseImpl>(IntArrayRef{4}));
    return l;
  }),
               NotImplementedError);
}

TEST(OptimizerStep, Float32ParametersKeepTheirDtype) {
  auto make = std::vector<std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>>{
      [](auto p) { return std::make_unique<SGD>(p, SGDOptions(0.01).momentum(0.9)); },
      [](auto p) { return std::make_unique<Adam>(p, AdamOptions(0.01).amsgrad(true)); },
      [](auto p) { return std::make_unique<AdamW>(p); },
      [](auto p) { return std::make_unique<RMSprop>(p, RMSpropOptions(0.01).centered(true).momentum(0.5)); },
      [](auto p) { return std::make_unique<Adagrad>(p); },
      [](auto p) { return std::make_unique<Adadelta>(p); },
      [](auto p) { return std::make_unique<Adamax>(p); },
      [](auto p) { return std::make_unique<NAdam>(p); },
      [](auto p) { return std::make_unique<RAdam>(p); },
      [](auto p) { return std::make_unique<Rprop>(p); },
      [](auto p) { return std::make_unique<ASGD>(p); },
  };
  for (const auto& f : make) {
    std::vector<Tensor> p;
    for (const auto& t : make_params()) p.push_back(t.detach().to(kFloat32).requires_grad_());
    auto opt = f(p);
    const double before = loss_of(p).item<double>();
    for (int i = 0; i < 5; ++i) {
      opt->zero_grad();
      loss_of(p).backward();
      opt->step();
    }
    for (const auto& t : p) EXPECT_EQ(t.scalar_type(), kFloat32) << opt->name();
    EXPECT_LT(loss_of(p).item<double>(), before) << opt->name();
    for (const auto& item : opt->state_dict()) {
      if (item.key().rfind("state.", 0) == 0 && item.value().dim() > 0) {
        EXPECT_EQ(item.value().scalar_type(), kFloat32) << opt->name() << " " << item.key();
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// state_dict

TEST(OptimizerStateDict, LayoutFollowsPyTorch) {
  auto p = make_params();
  const AdamOptions::betas_t betas{0.8, 0.9};  // LibTorch's spelling
  Adam opt({OptimizerParamGroup({p[0], p[1]}, AdamOptions(0.01).amsgrad(true)), OptimizerParamGroup({p[2]})},
           AdamOptions(0.02).betas(betas));
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    backward_on(p);
    opt.step();
  }
  TensorDict sd = opt.state_dict();
  const std::vector<std::string> keys = {"state.0.step",
                                         "state.0.exp_avg",
                                         "state.0.exp_avg_sq",
                                         "state.0.max_exp_avg_sq",
                                         "state.1.step",
                                         "state.1.exp_avg",
                                         "state.1.exp_avg_sq",
                                         "state.1.max_exp_avg_sq",
                                         "state.2.step",
                                         "state.2.exp_avg",
                                         "state.2.exp_avg_sq",
                                         "param_groups.0.lr",
                                         "param_groups.0.betas",
                                         "param_groups.0.eps",
                                         "param_groups.0.weight_decay",
                                         "param_groups.0.amsgrad",
                                         "param_groups.0.maximize",
                                         "param_groups.0.params",
                                         "param_groups.1.lr",
                                         "param_groups.1.betas",
                                         "param_groups.1.eps",
                                         "param_groups.1.weight_decay",
                                         "param_groups.1.amsgrad",
                                         "param_groups.1.maximize",
                                         "param_groups.1.params"};
  EXPECT_EQ(sd.keys(), keys);
  EXPECT_EQ(sd["state.2.step"].scalar_type(), kInt64);
  EXPECT_EQ(sd["state.2.step"].dim(), 0);
  EXPECT_EQ(sd["state.2.step"].item<int64_t>(), 3);
  EXPECT_EQ(sd["state.1.exp_avg"].sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(sd["param_groups.0.lr"].scalar_type(), kFloat64);
  EXPECT_EQ(sd["param_groups.0.lr"].dim(), 0);
  EXPECT_EQ(sd["param_groups.0.lr"].item<double>(), 0.01);
  EXPECT_EQ(to_vec(sd["param_groups.1.betas"]), (Vec{0.8, 0.9}));
  EXPECT_EQ(sd["param_groups.0.amsgrad"].scalar_type(), kBool);
  EXPECT_TRUE(sd["param_groups.0.amsgrad"].item<bool>());
  EXPECT_EQ(sd["param_groups.1.params"].scalar_type(), kInt64);
  EXPECT_EQ(sd["param_groups.1.params"].item<int64_t>(), 2);
  EXPECT_EQ(sd["param_groups.0.params"].sizes(), IntArrayRef({2}));
}

// Runs `make`'s optimizer 12 steps straight, and 6 steps, a state_dict round trip (through copies
// of the tensors) into a fresh optimizer on copies of the parameters, then 6 more: the two runs
// must agree bit for bit.
void expect_exact_resume(const std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>& make,
                         bool closure_step = false) {
  auto run = [&](Optimizer& opt, std::vector<Tensor>& p, int steps) {
    for (int i = 0; i < steps; ++i) {
      auto closure = [&] {
        opt.zero_grad();
        Tensor l = loss_of(p);
        l.backward();
        return l;
      };
      if (closure_step) {
        opt.step(closure);
      } else {
        closure();
        opt.step();
      }
    }
  };
  auto straight = make_params();
  auto a = make(straight);
  run(*a, straight, 12);

  auto first = make_params();
  auto b = make(first);
  run(*b, first, 6);
  TensorDict saved;
  for (const auto& item : b->state_dict()) saved.insert(item.key(), item.value().clone());
  std::vector<Tensor> resumed;
  for (const auto& t : first) resumed.push_back(t.detach().clone().requires_grad_());
  b.reset();
  auto c = make(resumed);
  c->load_state_dict(saved);
  EXPECT_EQ(c->state_dict().keys(), saved.keys());
  run(*c, resumed, 6);
  for (size_t k = 0; k < straight.size(); ++k)
    EXPECT_TRUE(equal(straight[k].detach(), resumed[k].detach())) << a->name() << " tensor " << k;
}

TEST(OptimizerStateDict, ResumeIsBitIdentical) {
  auto groups = [](const std::vector<Tensor>& p, const OptimizerOptions& a, const OptimizerOptions& b) {
    return std::vector<OptimizerParamGroup>{OptimizerParamGroup({p[0], p[1]}, a), OptimizerParamGroup({p[2]}, b)};
  };
  expect_exact_resume([&](auto p) {
    return std::make_unique<SGD>(
        groups(p, SGDOptions(0.01).momentum(0.9), SGDOptions(0.02).momentum(0.5).nesterov(true)), SGDOptions(0.1));
  });
  expect_exact_resume(
      [&](auto p) { return std::make_unique<Adam>(groups(p, AdamOptions(0.01).amsgrad(true), AdamOptions(0.03))); });
  expect_exact_resume([&](auto p) { return std::make_unique<AdamW>(p, AdamWOptions(0.01).amsgrad(true)); });
  expect_exact_resume(
      [&](auto p) { return std::make_unique<RMSprop>(p, RMSpropOptions(0.01).centered(true).momentum(0.5)); });
  expect_exact_resume([&](auto p) { return std::make_unique<Adagrad>(p, AdagradOptions(0.1).lr_decay(0.01)); });
  expect_exact_resume([&](auto p) { return std::make_unique<Adadelta>(p); });
  expect_exact_resume([&](auto p) { return std::make_unique<Adamax>(p, AdamaxOptions(0.01)); });
  expect_exact_resume([&](auto p) { return std::make_unique<NAdam>(p, NAdamOptions(0.01)); });
  expect_exact_resume([&](auto p) { return std::make_unique<RAdam>(p, RAdamOptions(0.01)); });
  expect_exact_resume([&](auto p) { return std::make_unique<Rprop>(p); });
  expect_exact_resume([&](auto p) { return std::make_unique<ASGD>(p, ASGDOptions(0.01).t0(3)); });
  expect_exact_resume(
      [&](auto p) {
        return std::make_unique<LBFGS>(p, LBFGSOptions(1).max_iter(3).history_size(4).line_search_fn("strong_wolfe"));
      },
      /*closure_step=*/true);
  expect_exact_resume([&](auto p) { return std::make_unique<LBFGS>(p, LBFGSOptions(0.3).max_iter(2)); }, true);
}

TEST(OptimizerStateDict, LoadRestoresGroupOptions) {
  auto p = make_params();
  SGD a(p, SGDOptions(0.1).momentum(0.9));
  a.param_groups()[0].options().set_lr(0.05);
  a.param_groups()[0].options().set_initial_lr(0.1);
  auto q = make_params();
  SGD b(q, SGDOptions(0.3));
  b.load_state_dict(a.state_dict());
  const auto& o = static_cast<const SGDOptions&>(b.param_groups()[0].options());
  EXPECT_EQ(o.lr(), 0.05);
  EXPECT_EQ(o.momentum(), 0.9);
  EXPECT_EQ(o.initial_lr(), 0.1);
  EXPECT_TRUE(b.state().empty());
}

TEST(OptimizerStateDict, LoadChecksTheStructureAndChangesNothingOnError) {
  auto p = make_params();
  Adam opt({OptimizerParamGroup({p[0], p[1]}), OptimizerParamGroup({p[2]}, AdamOptions(0.5))});
  backward_on(p);
  opt.step();
  const TensorDict good = opt.state_dict();
  auto copy_of = [](const TensorDict& d) {
    TensorDict out;
    for (const auto& item : d) out.insert(item.key(), item.value().clone());
    return out;
  };
  auto expect_rejected = [&](const TensorDict& bad, const std::string& message) {
    auto q = make_params();
    Adam target({OptimizerParamGroup({q[0], q[1]}), OptimizerParamGroup({q[2]}, AdamOptions(0.7))});
    EXPECT_EQ(error_of([&] { target.load_state_dict(bad); }), message);
    EXPECT_TRUE(target.state().empty());
    EXPECT_EQ(target.param_groups()[1].options().get_lr(), 0.7);
  };
  TensorDict bad = copy_of(good);
  bad.erase("param_groups.1.params");
  bad.erase("param_groups.1.lr");
  expect_rejected(bad,
                  "[Adam] load_state_dict: loaded state dict has a different number of parameter groups (1, the "
                  "optimizer has 2)");
  bad = copy_of(good);
  bad["param_groups.1.params"] = from_vec({2}, {1}).to(kInt64);
  bad["param_groups.0.params"] = zeros({3}, kInt64);
  expect_rejected(bad,
                  "[Adam] load_state_dict: loaded state dict contains a parameter group that doesn't match the size "
                  "of optimizer's group (group 0: 3 parameters saved, 2 in the optimizer)");
  bad = copy_of(good);
  bad["state.1.exp_avg"] = zeros({3, 2}, kFloat64);
  expect_rejected(bad,
                  "[Adam] load_state_dict: 'state.1.exp_avg' has shape [3, 2], but its parameter has shape [2, 3]");
  bad = copy_of(good);
  bad.erase("state.2.exp_avg_sq");
  expect_rejected(bad, "[Adam] load_state_dict: missing key 'state.2.exp_avg_sq'");
  bad = copy_of(good);
  bad.erase("param_groups.1.eps");
  expect_rejected(bad, "[Adam] load_state_dict: missing key 'param_groups.1.eps'");
  bad = copy_of(good);
  bad.insert("state.0.momentum_buffer", zeros({2, 3}, kFloat64));
  expect_rejected(bad, "[Adam] load_state_dict: unexpected key 'state.0.momentum_buffer'");
  bad = copy_of(good);
  bad.insert("state.7.step", zeros({}, kInt64));
  expect_rejected(bad, "[Adam] load_state_dict: state for parameter index 7, which no parameter group holds");
  bad = copy_of(good);
  bad["state.0.step"] = zeros({2}, kInt64);
  expect_rejected(bad, "[Adam] load_state_dict: 'state.0.step' expected a 0-dim tensor, got shape [2]");
  bad = copy_of(good);
  bad["param_groups.0.betas"] = zeros({3}, kFloat64);
  expect_rejected(bad, "[Adam] load_state_dict: 'param_groups.0.betas' expected 2 values, got 3");
  bad = copy_of(good);
  bad["param_groups.1.lr"] = full({}, -1.0, kFloat64);
  expect_rejected(bad, "[Adam] Invalid learning rate: -1");
  // Another optimizer's dict.
  auto q = make_params();
  SGD sgd({OptimizerParamGroup({q[0], q[1]}), OptimizerParamGroup({q[2]})}, SGDOptions(0.1).momentum(0.9));
  EXPECT_EQ(error_of([&] { sgd.load_state_dict(good); }),
            "[SGD] load_state_dict: missing key 'param_groups.0.momentum'");
}

TEST(OptimizerStateDict, LoadedStateIsCopiedToTheParameterDtype) {
  auto p = make_params();
  SGD a(p, SGDOptions(0.1).momentum(0.9));
  backward_on(p);
  a.step();
  TensorDict sd = a.state_dict();
  Tensor saved = sd["state.0.momentum_buffer"];
  sd["state.0.momentum_buffer"] = saved.to(kFloat32);
  auto q = make_params();
  SGD b(q, SGDOptions(0.1));
  b.load_state_dict(sd);
  const auto& st = static_cast<const SGDParamState&>(*b.state().at(param_key(q[0])));
  EXPECT_EQ(st.momentum_buffer().scalar_type(), kFloat64);
  EXPECT_TRUE(allclose(st.momentum_buffer(), saved, 1e-6, 0));
  // A copy: stepping b does not touch the dict's tensor.
  const Vec before = to_vec(sd["state.1.momentum_buffer"]);
  backward_on(q);
  b.step();
  EXPECT_EQ(to_vec(sd["state.1.momentum_buffer"]), before);
}

}  // namespace
