// Ember against LibTorch 1.13 (Debian's libtorch-dev) for the optimizers LibTorch has: the
// parameters after N steps on the problem of OptimTestUtil.h, printed by libtorch/reference.cpp
// (built and run by hand, its output pasted below), must agree to a relative error of 1e-10.
// And LibTorch's StepLR, which lags PyTorch's by one step (Note [LR scheduler semantics]).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "OptimTestUtil.h"

using namespace ember;
using namespace ember::optim;
using namespace ember::optim_test;

namespace {

// Output of libtorch/reference.cpp (LibTorch 1.13.1, x86-64).
// SGD
const Params kSGD = {
    {0.9920832633627551, 0.9881628298364461, 0.98785156214473835, 0.99693688322420404, 0.98638614321909523,
     0.98482034365673154},
    {0.97878638676232788, 0.97590039355590841, 0.97554912270242067, 0.99263210108187183, 0.9724648096939118,
     0.97086539208306166},
    {0.47792767415092041, -0.48823932338490628, 0.79682571585510453, -3.9615899179729032e-07},
};
// Adam
const Params kAdam = {
    {-0.7304054762321458, 0.45456049488339073, 0.72865824328590523, -0.19888954955004523, 1.3286820950057678,
     0.39397969801072408},
    {0.61932915039483427, 0.13242607748652915, 0.50775942129068452, 0.25443274278070588, 1.7819691325047275,
     0.004057038721371301},
    {0.47761815233547411, -0.49215871926544297, 0.89069197172807713, 0.0039134825304279206},
};
// AdamW
const Params kAdamW = {
    {-0.66036546081597702, 0.46587437636823503, 0.70270726336734157, -0.12857287652946309, 1.2622152260975861,
     0.42113788403577374},
    {0.54272094105718882, 0.14365150978204383, 0.47035650675146035, 0.19953057446364555, 1.6112068111142148,
     0.042345311121297746},
    {0.48740544999662716, -0.45269783352079063, 0.98244440907991581, -0.014047072100643912},
};
// RMSprop
const Params kRMSprop = {
    {0.12530727050305782, 0.73121690458313182, 0.87331031998283215, 0.58752916886147799, 1.1769608985925735,
     0.68802029552193744},
    {0.0056669266577907898, 0.50657294423010479, 0.75284201902416104, 0.29339555341839268, 1.3951004121666162,
     0.42920266945196994},
    {0.47813800497942904, -0.61730081039592477, 1.4872001319062396, 0.11783597054398155},
};
// Adagrad
const Params kAdagrad = {
    {-0.39402692519689103, 0.61092707031362903, 0.81631076099075239, 0.40598610842144195, 1.2706489209243281,
     0.52953752825669897},
    {0.23500120084356871, 0.32521628840792566, 0.65123980203581033, 0.11283011468503795, 1.6295153641662157,
     0.19577773618483515},
    {0.47813800484912899, -0.53842070845376699, 1.2875048457442673, 0.042660530996367262},
};
// LBFGS valley
const Params kLBFGSValley = {
    {1.024898625033162, 1.0174907993189297, 1.0003431299174286, 1.0559569804314943, 1.0822049657538766,
     1.0325935707605147},
    {1.0522881062888665, 1.0360101817410847, 1.0005098031307946, 1.1147233940124812, 1.1835224235821258,
     1.0630495355874592},
    {0.47746566796595008, -0.48207655525695936, 0.8050947717294471, -0.0071935002362735305},
};
// LBFGS valley strong_wolfe
const Params kLBFGSValleyWolfe = {
    {1.0634913336973821, 0.98676786804096395, 0.97765443299394372, 1.0748360499573999, 1.0937617766750465,
     0.97710285469902025},
    {1.1290970026506917, 0.97147601505436765, 0.95789413150947211, 1.1633609196270385, 1.1939559701820213,
     0.95228036917983028},
    {0.47933793609846642, -0.51513795486934055, 0.77925375385929718, -0.019319802216516954},
};
// LBFGS convex strong_wolfe
const Params kLBFGSConvexWolfe = {
    {1.0000019709925414, 1.0000011351577991, 1.0000004133855009, 1.000001093799753, 0.99999845806620757,
     1.0000017585407714},
    {0.50000133939628943, 0.50000061278832642, 0.50000022686147028, 0.5000007596554561, 0.49999920467274206,
     0.50000097524185616},
    {0.47813611550428853, -0.48835258143877952, 0.79728787776861176, 1.1061215263261031e-05},
};
// StepLR
const std::vector<double> kStepLR = {1, 1, 0.5, 0.5, 0.25, 0.25};

std::vector<OptimizerParamGroup> two_groups(const std::vector<Tensor>& p, const OptimizerOptions& a,
                                            const OptimizerOptions& b) {
  return {OptimizerParamGroup({p[0], p[1]}, a), OptimizerParamGroup({p[2]}, b)};
}

void expect_matches(const Params& libtorch, const std::vector<Tensor>& p, const std::string& what) {
  for (size_t k = 0; k < p.size(); ++k)
    EXPECT_LE(max_rel_error(to_vec(p[k]), libtorch[k]), 1e-10) << what << ", tensor " << k;
}

void run(Optimizer& opt, const std::vector<Tensor>& p, int steps = 100) {
  for (int t = 0; t < steps; ++t) {
    opt.zero_grad();
    loss_of(p).backward();
    opt.step();
  }
}

TEST(LibTorchReference, SGD) {
  auto p = make_params();
  SGD opt(two_groups(p, SGDOptions(0.01).momentum(0.9).dampening(0.1).weight_decay(0.01),
                     SGDOptions(0.02).momentum(0.8).nesterov(true).weight_decay(0.001)),
          SGDOptions(0.1));
  run(opt, p);
  expect_matches(kSGD, p, "SGD");
}

TEST(LibTorchReference, Adam) {
  auto p = make_params();
  Adam opt(two_groups(p, AdamOptions(0.01).betas({0.8, 0.99}).weight_decay(0.01).amsgrad(true),
                      AdamOptions(0.02).eps(1e-6)));
  run(opt, p);
  expect_matches(kAdam, p, "Adam");
}

TEST(LibTorchReference, AdamW) {
  auto p = make_params();
  AdamW opt(two_groups(p, AdamWOptions(0.01).weight_decay(0.1).amsgrad(true), AdamWOptions(0.03).betas({0.95, 0.9})));
  run(opt, p);
  expect_matches(kAdamW, p, "AdamW");
}

TEST(LibTorchReference, RMSprop) {
  auto p = make_params();
  RMSprop opt(two_groups(p, RMSpropOptions(0.005).centered(true).momentum(0.5).weight_decay(0.01),
                         RMSpropOptions(0.005).alpha(0.9)));
  run(opt, p);
  expect_matches(kRMSprop, p, "RMSprop");
}

TEST(LibTorchReference, Adagrad) {
  auto p = make_params();
  Adagrad opt(two_groups(p, AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.5).weight_decay(0.01),
                         AdagradOptions(0.05).eps(1e-6)));
  run(opt, p);
  expect_matches(kAdagrad, p, "Adagrad");
}

void run_lbfgs(LBFGS& opt, const std::vector<Tensor>& p, int steps, bool convex) {
  for (int t = 0; t < steps; ++t) {
    opt.step([&] {
      opt.zero_grad();
      Tensor l;
      if (convex) {
        Tensor a = 1.0 - p[0], b = p[1] - 0.5 * p[0], c = p[2] - from_vec(kC, {4}), z2 = p[2] * p[2];
        l = (a * a).sum() + 5.0 * (b * b).sum() + (from_vec(kW, {4}) * c * c).sum() + 0.1 * (z2 * z2).sum();
      } else {
        l = loss_of(p);
      }
      l.backward();
      return l;
    });
  }
}

TEST(LibTorchReference, LBFGS) {
  auto p = make_params();
  LBFGS fixed(p, LBFGSOptions(0.2).max_iter(1).history_size(5));
  run_lbfgs(fixed, p, 40, false);
  expect_matches(kLBFGSValley, p, "LBFGS");
  auto q = make_params();
  LBFGS wolfe(q, LBFGSOptions(1).max_iter(5).history_size(3).line_search_fn("strong_wolfe"));
  run_lbfgs(wolfe, q, 6, false);
  expect_matches(kLBFGSValleyWolfe, q, "LBFGS strong_wolfe");
  auto r = make_params();
  LBFGS convex(r, LBFGSOptions(1).max_iter(4).history_size(3).line_search_fn("strong_wolfe"));
  run_lbfgs(convex, r, 100, true);
  expect_matches(kLBFGSConvexWolfe, r, "LBFGS convex strong_wolfe");
}

TEST(LibTorchReference, StepLRLagsOneStepBehindPyTorch) {
  // LibTorch 1.13's StepLR makes no initial step, so after k steps it shows the lr PyTorch (and
  // Ember) shows after k - 1.
  SGD opt(make_params(), SGDOptions(1.0));
  StepLR s(opt, 2, 0.5);
  std::vector<double> ember{opt.param_groups()[0].options().get_lr()};
  for (int i = 0; i < 5; ++i) {
    s.step();
    ember.push_back(opt.param_groups()[0].options().get_lr());
  }
  EXPECT_EQ(ember, kStepLR);
}

}  // namespace
