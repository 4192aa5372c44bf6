// The loss operators of the nn plugin against LibTorch 1.13 (values from at::cross_entropy_loss,
// at::nll_loss_nd, ... on the same seq() inputs, float64), for every reduction; their errors; and
// finite-difference gradients.
#include <functional>
#include <limits>

#include "NNTestUtil.h"

namespace ember::nntest {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The shared inputs of the reference program.
struct Inputs {
  Tensor x = seq({3, 4}, 0.7, 0.3) * 2;
  Tensor t = tensor({1, 0, 3});
  Tensor w = tensor({0.2, 0.5, 1.0, 1.5}, kFloat64);
  Tensor prob = softmax(seq({3, 4}, 0.9, 0.1), 1);
  Tensor x4 = seq({2, 3, 2, 2}, 0.5, 0.2) * 3;
  Tensor t4 = tensor({0, 2, 1, 1, 2, 0, 0, 1}).view({2, 2, 2});
  Tensor w3 = tensor({0.3, 1.0, 2.0}, kFloat64);
  Tensor x3 = seq({2, 3, 4}, 0.3, 0.5) * 2;
  Tensor t3 = tensor({0, 2, 1, 1, 2, 0, 0, 1}).view({2, 4});
  Tensor x5 = seq({2, 3, 2, 1, 2}, 0.3, 0.5) * 2;
  Tensor x1 = seq({4}, 0.8, 0.1);
  Tensor a = seq({2, 3}, 0.6, 0.1) * 2, b = seq({2, 3}, 1.1, 0.7) * 2;
  Tensor pr = sigmoid(a), tg = sigmoid(b * 2);
  Tensor bw = tensor({0.5, 1.0, 2.0}, kFloat64), pw = tensor({1.5, 0.5, 3.0}, kFloat64);
};

// One loss call per reduction (none, mean, sum) and LibTorch's values for each.
struct Case {
  const char* name;
  std::function<Tensor(const Inputs&, int64_t)> call;
  std::vector<double> none, mean, sum;
};

std::vector<Case> cases() {
  return {
      {"ce",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x, in.t, {}, r); },
       {1.2247855313433609, 0.44349935975300037, 0.73268002563262746},
       {0.8003216389096629},
       {2.4009649167289888}},
      {"ce_w",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x, in.t, in.w, r); },
       {0.61239276567168044, 0.088699871950600084, 1.0990200384489412},
       {0.81823303457782792},
       {1.8001126760712216}},
      {"ce_w_ign0",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x, in.t, in.w, r, 0); },
       {0.61239276567168044, 0, 1.0990200384489412},
       {0.8557064020603109},
       {1.7114128041206218}},
      {"ce_ls",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x, in.t, {}, r, -100, 0.1); },
       {1.2528737691812974, 0.57337859233439248, 0.84167869666054951},
       {0.88931035272541314},
       {2.6679310581762397}},
      {"ce_w_ign0_ls",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x, in.t, in.w, r, 0, 0.25); },
       {0.73025268506866459, 0, 1.0646106651932994},
       {0.89743167513098199},
       {1.794863350261964}},
      {"ce_prob",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x, in.prob, {}, r); },
       {1.345996643556322, 1.8288386630365023, 2.2252080081996803},
       {1.8000144382641683},
       {5.4000433147925051}},
      {"ce_prob_w_ls",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x, in.prob, in.w, r, -100, 0.2); },
       {1.0361835353146072, 2.0420160986245817, 0.92972934642291216},
       {1.3359763267873672},
       {4.0079289803621014}},
      {"ce4_w_ign1",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x4, in.t4, in.w3, r, 1); },
       {0.59516734245238878, 10.714056298481442, 0, 0, 9.948131855309903, 0.34763280246709943, 0.051009930987098613, 0},
       {4.4195914754485583},
       {21.655998229697932}},
      {"ce4_w_ls",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x4, in.t4, in.w3, r, -100, 0.3); },
       {1.5305001564321308, 8.6914950718149058, 3.5219729820656198, 4.597609752463538, 8.0574418059312265,
        1.3651942137331752, 1.3267586165017311, 4.1024368079485152},
       {4.2016973932773229},
       {33.193409406890851}},
      {"ce3_w",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x3, in.t3, in.w3, r); },
       {0.44476812406190208, 5.0744884174737415, 0.89582448453021579, 1.2987246723488126, 0.44578930010358181,
        0.91216619155480649, 1.0770840059220337, 2.1160602047669448},
       {1.5525196709825366},
       {12.264905400762039}},
      {"ce5_w",
       [](const Inputs& in, int64_t r) {
         return cross_entropy_loss(in.x5, in.t4.view({2, 2, 1, 2}), in.w3, r, 2);
       },
       {0.44476812406190208, 0, 0.89582448453021579, 1.2987246723488126, 0, 0.91216619155480649, 1.0770840059220337,
        2.1160602047669448},
       {1.7293917136371066},
       {6.7446276831847154}},
      {"ce1",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x1, tensor({2}).view({}), in.w, r); },
       {1.0635844861262655},
       {1.0635844861262655},
       {1.0635844861262655}},
      {"ce1_prob",
       [](const Inputs& in, int64_t r) { return cross_entropy_loss(in.x1, softmax(seq({4}, 0.4, 0.3), 0), in.w, r); },
       {1.2211261312809829},
       {1.2211261312809829},
       {1.2211261312809829}},
      {"nll",
       [](const Inputs& in, int64_t r) { return nll_loss_nd(log_softmax(in.x, 1), in.t, in.w, r, 3); },
       {0.61239276567168044, 0.088699871950600084, 0},
       {1.0015609108889723},
       {0.70109263762228058}},
      {"nll_all_ignored",
       [](const Inputs& in, int64_t r) {
         return nll_loss_nd(log_softmax(in.x, 1), tensor({2, 2, 2}), in.w, r, 2);
       },
       {0, 0, 0},
       {kNaN},
       {0}},
      {"mse",
       [](const Inputs& in, int64_t r) { return mse_loss(in.a, in.b, r); },
       {1.1854169362669829, 0.4346235989777677, 2.098493276697615, 11.602233632821632, 9.293801316932754,
        0.062170500678541844},
       {4.1127898770625491},
       {24.676739262375293}},
      {"l1",
       [](const Inputs& in, int64_t r) { return l1_loss(in.a, in.b, r); },
       {1.0887685411817256, 0.65925988728100826, 1.4486177124064219, 3.4062051659906851, 3.0485736528633769,
        0.24934013050157378},
       {1.6501275150374652},
       {9.900765090224791}},
      {"sl1_b05",
       [](const Inputs& in, int64_t r) { return smooth_l1_loss(in.a, in.b, r, 0.5); },
       {0.83876854118172561, 0.40925988728100826, 1.1986177124064219, 3.1562051659906851, 2.7985736528633769,
        0.062170500678541844},
       {1.4105992434002932},
       {8.4635954604017591}},
      {"sl1_b0",
       [](const Inputs& in, int64_t r) { return smooth_l1_loss(in.a, in.b, r, 0.0); },
       {1.0887685411817256, 0.65925988728100826, 1.4486177124064219, 3.4062051659906851, 3.0485736528633769,
        0.24934013050157378},
       {1.6501275150374652},
       {9.900765090224791}},
      {"huber_07",
       [](const Inputs& in, int64_t r) { return huber_loss(in.a, in.b, r, 0.7); },
       {0.51713797882720791, 0.21731179948888385, 0.76903239868449524, 2.1393436161934796, 1.8890015570043637,
        0.031085250339270922},
       {0.92715210008961702},
       {5.5629126005377021}},
      {"bce",
       [](const Inputs& in, int64_t r) { return binary_cross_entropy(in.pr, in.tg, {}, r); },
       {0.61239370700916318, 0.26917517274960406, 0.67063585739975051, 1.9454926510991837, 1.4321479026537522,
        0.70085832111896296},
       {0.93845060200506936},
       {5.6307036120304161}},
      {"bce_w",
       [](const Inputs& in, int64_t r) {
         return binary_cross_entropy(in.pr, in.tg, in.bw.expand({2, 3}), r);
       },
       {0.30619685350458159, 0.26917517274960406, 1.341271714799501, 0.97274632554959184, 1.4321479026537522,
        1.4017166422379259},
       {0.95387576858249279},
       {5.7232546114949567}},
      {"bcel",
       [](const Inputs& in, int64_t r) { return binary_cross_entropy_with_logits(in.a, in.tg, {}, {}, r); },
       {0.61239370700916318, 0.26917517274960401, 0.67063585739975051, 1.9454926510991843, 1.4321479026537522,
        0.70085832111896296},
       {0.93845060200506947},
       {5.630703612030417}},
      {"bcel_w_pw",
       [](const Inputs& in, int64_t r) { return binary_cross_entropy_with_logits(in.a, in.tg, in.bw, in.pw, r); },
       {0.44520300452776213, 0.14985339703178127, 1.7340337668940995, 0.97436780716183868, 1.4289733608299184,
        2.4917120469831047},
       {1.2040238972380841},
       {7.2241433834285047}},
      {"kl",
       [](const Inputs& in, int64_t r) { return kl_div(log_softmax(in.a, 1), softmax(in.b, 1), r); },
       {0.30906061020340647, 0.35171915885808991, -0.19665523685536221, -0.21713202259805159, -0.10898625356426148,
        1.3488570517193688},
       {0.24781055129386498},
       {1.4868633077631899}},
      {"kl_log",
       [](const Inputs& in, int64_t r) { return kl_div(log_softmax(in.a, 1), log_softmax(in.b, 1), r, true); },
       {0.30906061020340664, 0.35171915885808996, -0.19665523685536224, -0.21713202259805159, -0.1089862535642615,
        1.3488570517193685},
       {0.24781055129386498},
       {1.4868633077631899}},
      {"kl_zero",
       [](const Inputs& in, int64_t r) {
         Tensor q = softmax(in.b, 1);
         q.select(0, 0).select(0, 1).fill_(0.0);
         return kl_div(log_softmax(in.a, 1), q, r);
       },
       {0.30906061020340647, 0, -0.19665523685536221, -0.21713202259805159, -0.10898625356426148, 1.3488570517193688},
       {0.18919069148418333},
       {1.1351441489051}},
  };
}

TEST(NNLosses, MatchLibTorchForEveryReduction) {
  const Inputs in;
  for (const Case& c : cases()) {
    const Tensor none = c.call(in, Reduction::None), mean = c.call(in, Reduction::Mean),
                 sum = c.call(in, Reduction::Sum);
    expect_close(none, c.none, 1e-10, 1e-12, std::string(c.name) + " none");
    expect_close(mean, c.mean, 1e-10, 1e-12, std::string(c.name) + " mean");
    expect_close(sum, c.sum, 1e-10, 1e-12, std::string(c.name) + " sum");
    EXPECT_EQ(mean.dim(), 0) << c.name;
    EXPECT_EQ(sum.dim(), 0) << c.name;
    EXPECT_EQ(none.scalar_type(), kFloat64) << c.name;
  }
}

TEST(NNLosses, DefaultReductionIsMean) {
  const Inputs in;
  EXPECT_EQ(values(cross_entropy_loss(in.x, in.t)), values(cross_entropy_loss(in.x, in.t, {}, Reduction::Mean)));
  EXPECT_EQ(values(mse_loss(in.a, in.b)), values(mse_loss(in.a, in.b, 1)));
}

TEST(NNLosses, Float32ComputesInFloat32) {
  const Inputs in;
  const Tensor l = cross_entropy_loss(in.x.to(kFloat32), in.t, in.w.to(kFloat32), Reduction::Mean, 0, 0.25);
  EXPECT_EQ(l.scalar_type(), kFloat32);
  expect_close(l, {0.89743167513098199}, 1e-6, 0, "ce float32");
}

TEST(NNLosses, EmptyBatches) {
  // Mean over nothing is NaN (0 / 0), as in PyTorch; sum is 0.
  const Tensor e = zeros({0, 4}, kFloat64);
  EXPECT_TRUE(std::isnan(cross_entropy_loss(e, zeros({0}, kInt64)).item<double>()));
  EXPECT_TRUE(std::isnan(cross_entropy_loss(e, zeros({0, 4}, kFloat64)).item<double>()));
  EXPECT_TRUE(std::isnan(mse_loss(zeros({0}, kFloat64), zeros({0}, kFloat64)).item<double>()));
  EXPECT_EQ(cross_entropy_loss(e, zeros({0}, kInt64), {}, Reduction::Sum).item<double>(), 0.0);
  EXPECT_EQ(cross_entropy_loss(e, zeros({0}, kInt64), {}, Reduction::None).sizes(), IntArrayRef({0}));
}

TEST(NNLosses, IgnoredInfiniteLogProbabilityGivesZero) {
  // An ignored target's row may hold -inf; it contributes exactly 0, not NaN.
  const Tensor logp = tensor({{-0.5, -std::numeric_limits<double>::infinity()}, {-0.1, -2.0}}, kFloat64);
  expect_close(nll_loss(logp, tensor({1, 0}), {}, Reduction::None, 1), {0, 0.1});
  expect_close(nll_loss(logp, tensor({1, 0}), {}, Reduction::Mean, 1), {0.1});
}

TEST(NNLosses, BinaryCrossEntropyAtZeroAndOne) {
  // log is clamped at -100 (PyTorch), and the gradient stays finite where it is clamped.
  // clone: a first call that dispatches loads the default plugins (requires_grad_ alone does not).
  Tensor p = tensor({0.0, 1.0, 0.5}, kFloat64).clone().requires_grad_();
  const Tensor t = tensor({1.0, 0.0, 1.0}, kFloat64);
  const Tensor l = binary_cross_entropy(p, t, {}, Reduction::None);
  expect_close(l, {100, 100, std::log(2.0)});
  l.sum().backward();
  for (double g : values(p.grad())) EXPECT_TRUE(std::isfinite(g)) << g;
  EXPECT_NEAR(values(p.grad())[2], -2.0, 1e-12);
}

TEST(NNLosses, GradientMatchesLibTorch) {
  const Inputs in;
  Tensor x = in.x.clone().requires_grad_();
  cross_entropy_loss(x, in.t, in.w, Reduction::Mean, 0, 0.25).backward();
  expect_close(x.grad(),
               {0.022097412965855268, -0.11865154619143994, 0.082821447003483262, 0.013732686222101387, 0, 0, 0, 0,
                0.014589926902480815, 0.066456016533054649, 0.20991884268344865, -0.29096478611898419},
               1e-9, 1e-12, "grad of x");
}

// Finite differences (float64) of every loss in every reduction, with respect to every floating
// input (the class weights of cross entropy and nll too: composites differentiate them).
TEST(NNLosses, Gradcheck) {
  const Inputs in;
  using VL = autograd::variable_list;
  auto req = [](const Tensor& t) { return t.detach().clone().requires_grad_(); };
  for (int64_t r : {0, 1, 2}) {
    SCOPED_TRACE("reduction " + std::to_string(r));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return cross_entropy_loss(v[0], in.t, v[1], r, 0, 0.25); },
                                    {req(in.x), req(in.w)}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return cross_entropy_loss(v[0], v[1], v[2], r, -100, 0.2); },
                                    {req(in.x), req(in.prob), req(in.w)}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return cross_entropy_loss(v[0], in.t4, v[1], r, 1); },
                                    {req(in.x4), req(in.w3)}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return nll_loss2d(v[0], in.t4, {}, r); }, {req(in.x4)}));
    EXPECT_TRUE(
        autograd::gradcheck([&](const VL& v) { return nll_loss(v[0], tensor({2}).view({}), {}, r); }, {req(in.x1)}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return mse_loss(v[0], v[1], r); }, {req(in.a), req(in.b)}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return l1_loss(v[0], v[1], r); }, {req(in.a), req(in.b)}));
    EXPECT_TRUE(
        autograd::gradcheck([&](const VL& v) { return smooth_l1_loss(v[0], v[1], r, 0.5); }, {req(in.a), req(in.b)}));
    EXPECT_TRUE(
        autograd::gradcheck([&](const VL& v) { return huber_loss(v[0], v[1], r, 0.7); }, {req(in.a), req(in.b)}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return binary_cross_entropy(v[0], v[1], v[2], r); },
                                    {req(in.pr), req(in.tg), req(in.bw)}));
    EXPECT_TRUE(
        autograd::gradcheck([&](const VL& v) { return binary_cross_entropy_with_logits(v[0], v[1], v[2], v[3], r); },
                            {req(in.a), req(in.tg), req(in.bw), req(in.pw)}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return kl_div(v[0], v[1], r); },
                                    {req(log_softmax(in.a, 1)), req(softmax(in.b, 1))}));
    EXPECT_TRUE(autograd::gradcheck([&](const VL& v) { return kl_div(v[0], v[1], r, true); },
                                    {req(log_softmax(in.a, 1)), req(log_softmax(in.b, 1))}));
  }
  // Second order through the composites (a Hessian-vector product of a training loss).
  EXPECT_TRUE(autograd::gradgradcheck([&](const VL& v) { return cross_entropy_loss(v[0], in.t, {}, 1, -100, 0.1); },
                                      {req(in.x)}));
}

TEST(NNLosses, Errors) {
  const Inputs in;
  EXPECT_EQ(error_of([&] {
              cross_entropy_loss(in.x, tensor({1, 0, 4}));
            }),
            "[cross_entropy_loss] target 4 is out of bounds: expected a class index in [0, 4) or ignore_index (-100)");
  EXPECT_EQ(error_of([&] {
              cross_entropy_loss(in.x, tensor({1, 0, -1}));
            }),
            "[cross_entropy_loss] target -1 is out of bounds: expected a class index in [0, 4) or ignore_index (-100)");
  EXPECT_EQ(error_of([&] {
              cross_entropy_loss(in.x, tensor({1, 0, 2}).to(kInt32));
            }),
            "[cross_entropy_loss] argument 'target': expected an int64 tensor of class indices, got int32");
  EXPECT_EQ(error_of([&] {
              cross_entropy_loss(in.x, tensor({1, 0}));
            }),
            "[cross_entropy_loss] expected input batch_size (3) to match target batch_size (2)");
  EXPECT_EQ(error_of([&] { cross_entropy_loss(in.x, in.t, {}, 1, -100, 1.5); }),
            "[cross_entropy_loss] argument 'label_smoothing': expected a value between 0.0 and 1.0, got 1.5");
  EXPECT_EQ(error_of([&] { cross_entropy_loss(in.x, in.prob, {}, 1, 3); }),
            "[cross_entropy_loss] argument 'ignore_index': not supported with class probabilities as targets, got 3 "
            "(leave it at -100)");
  EXPECT_EQ(error_of([&] { cross_entropy_loss(in.x, in.prob.to(kInt64)); }),
            "[cross_entropy_loss] argument 'target': expected a floating point tensor of class probabilities (target "
            "has self's shape [3, 4]), got int64");
  EXPECT_EQ(
      error_of([&] { cross_entropy_loss(in.x, in.t, ones({3}, kFloat64)); }),
      "[cross_entropy_loss] argument 'weight': expected a 1-D tensor of 4 elements (one per class), got shape [3]");
  EXPECT_EQ(
      error_of([&] { cross_entropy_loss(in.x, in.prob, ones({3}, kFloat64)); }),
      "[cross_entropy_loss] argument 'weight': expected a 1-D tensor of 4 elements (one per class), got shape [3]");
  EXPECT_EQ(error_of([&] { cross_entropy_loss(in.x, in.t, in.w.to(kFloat32)); }),
            "[cross_entropy_loss] argument 'weight': expected dtype float64 (self's), got float32");
  EXPECT_EQ(error_of([&] { cross_entropy_loss(in.x, in.t, {}, 3); }),
            "[cross_entropy_loss] argument 'reduction': expected 0 (none), 1 (mean) or 2 (sum), got 3");
  EXPECT_EQ(error_of([&] {
              cross_entropy_loss(tensor({1, 2}), tensor({0, 1}));
            }),
            "[cross_entropy_loss] argument 'self': expected a floating point tensor, got int64");
  EXPECT_EQ(error_of([&] { cross_entropy_loss(scalar_tensor(1.0), tensor({1}).view({})); }),
            "[cross_entropy_loss] argument 'self': expected 1 or more dimensions, got 0");
  EXPECT_EQ(error_of([&] {
              nll_loss(in.x.view({3, 2, 2}), in.t);
            }),
            "[nll_loss] argument 'self': expected a 1-D (C) or 2-D (N, C) tensor, got shape [3, 2, 2] (nll_loss_nd "
            "takes more dimensions)");
  EXPECT_EQ(error_of([&] {
              nll_loss(in.x, in.t.view({3, 1}));
            }),
            "[nll_loss] argument 'target': expected a 0-D or 1-D tensor of class indices, got shape [3, 1]");
  EXPECT_EQ(error_of([&] { nll_loss(in.x1, in.t); }),
            "[nll_loss] expected a 0-dim target (a class index) for an unbatched (C) input [4], got target shape [3]");
  EXPECT_EQ(error_of([&] { nll_loss2d(in.x, in.t); }),
            "[nll_loss2d] argument 'self': expected a 4-D (N, C, H, W) tensor, got shape [3, 4]");
  EXPECT_EQ(error_of([&] {
              nll_loss2d(in.x.view({1, 3, 2, 2}), in.t);
            }),
            "[nll_loss2d] argument 'target': expected a 3-D (N, H, W) tensor, got shape [3]");
  EXPECT_EQ(error_of([&] {
              nll_loss2d(in.x.view({1, 3, 2, 2}), zeros({1, 2, 3}, kInt64));
            }),
            "[nll_loss2d] expected target size [1, 2, 2] for input [1, 3, 2, 2], got [1, 2, 3]");
  EXPECT_EQ(error_of([&] {
              nll_loss_nd(in.x.view({3, 2, 2}), zeros({3, 3}, kInt64));
            }),
            "[nll_loss_nd] expected target size [3, 2] for input [3, 2, 2], got [3, 3]");
  EXPECT_EQ(error_of([&] {
              nll_loss_nd(in.x.view({3, 2, 2}), zeros({2, 2}, kInt64));
            }),
            "[nll_loss_nd] expected input batch_size (3) to match target batch_size (2)");
  EXPECT_EQ(error_of([&] { mse_loss(in.x, in.x.view({4, 3})); }).rfind("[sub]", 0), 0u);  // broadcasting
  EXPECT_EQ(error_of([&] { mse_loss(in.t, in.t); }),
            "[mse_loss] argument 'self': expected a floating point tensor, got int64");
  EXPECT_EQ(error_of([&] { smooth_l1_loss(in.x, in.x, 1, -1.0); }),
            "[smooth_l1_loss] argument 'beta': expected a non-negative value, got -1");
  EXPECT_EQ(error_of([&] { huber_loss(in.x, in.x, 1, 0.0); }),
            "[huber_loss] argument 'delta': expected a positive value, got 0");
  EXPECT_EQ(error_of([&] { binary_cross_entropy(in.x, in.x); }),
            "[binary_cross_entropy] argument 'self': expected every element between 0 and 1 (probabilities)");
  EXPECT_EQ(error_of([&] { kl_div(in.t, in.t); }),
            "[kl_div] argument 'self': expected a floating point tensor, got int64");
}

}  // namespace
}  // namespace ember::nntest

namespace ember::nntest {
namespace {

TEST(NNSoftmax, DtypeArgument) {
  // LibTorch 1.13: an integer input computes in the dtype given, and fails without one.
  expect_close(softmax(tensor({1, 2, 3}), 0, kFloat64),
               {0.090030573170380448, 0.24472847105479761, 0.66524095577482178});
  EXPECT_EQ(softmax(tensor({1, 2, 3}), 0, kFloat64).scalar_type(), kFloat64);
  EXPECT_EQ(error_of([] { softmax(tensor({1, 2, 3}), 0); }), "[softmax] not implemented for dtype int64 on the CPU");
  EXPECT_EQ(error_of([] {
              log_softmax(tensor({1.0, 2.0, 3.0}, kFloat64), 0, kInt32);
            }),
            "[log_softmax] not implemented for dtype int32 on the CPU");
  // A float32 input computed in float64: the result is float64, the gradient float32.
  Tensor x = tensor({1.f, 2.f, 3.f}).clone().requires_grad_();
  const Tensor y = log_softmax(x, 0, kFloat64);
  EXPECT_EQ(y.scalar_type(), kFloat64);
  expect_close(y, {-2.4076059644443806, -1.4076059644443804, -0.40760596444438041});
  (y * tensor({1.0, 2.0, 3.0}, kFloat64)).sum().backward();
  EXPECT_EQ(x.grad().scalar_type(), kFloat32);
  expect_close(x.grad(), {1 - 6 * 0.090030573170380448, 2 - 6 * 0.24472847105479761, 3 - 6 * 0.66524095577482178}, 1e-6,
               1e-6);
}

}  // namespace
}  // namespace ember::nntest
