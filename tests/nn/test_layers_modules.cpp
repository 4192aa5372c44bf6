// The layers added beside the Module API's first set: printing and parameter names against
// LibTorch 1.13 / PyTorch, train/eval behaviour, values, gradients and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ModuleTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using ember::nntest::error_of_type;
using ember::nntest::expect_close;
using ember::nntest::printed;
using ember::nntest::values;

namespace {

std::string libtorch(std::string s) {
  for (size_t at = s.find("torch::"); at != std::string::npos; at = s.find("torch::", at)) s.replace(at, 7, "ember::");
  return s;
}

template <class M>
std::vector<std::string> param_names(const M& m) {
  std::vector<std::string> out;
  for (const auto& kv : m->named_parameters()) out.push_back(kv.key() + " " + printed(kv.value().sizes()));
  return out;
}

TEST(NewLayers, PrintAsLibTorch) {
  // Reference lines printed by LibTorch 1.13 for the same constructions.
  EXPECT_EQ(printed(nn::Dropout()), libtorch("torch::nn::Dropout(p=0.5, inplace=false)"));
  EXPECT_EQ(printed(nn::Dropout(nn::DropoutOptions(0.2).inplace(true))),
            libtorch("torch::nn::Dropout(p=0.2, inplace=true)"));
  EXPECT_EQ(printed(nn::Dropout2d()), libtorch("torch::nn::Dropout2d(p=0.5, inplace=false)"));
  EXPECT_EQ(printed(nn::AlphaDropout()), libtorch("torch::nn::AlphaDropout(p=0.5, inplace=false)"));
  EXPECT_EQ(printed(nn::FeatureAlphaDropout(0.3)), libtorch("torch::nn::FeatureAlphaDropout(p=0.3, inplace=false)"));
  EXPECT_EQ(printed(nn::CrossEntropyLoss()) + printed(nn::NLLLoss()) + printed(nn::MSELoss()) + printed(nn::L1Loss()),
            libtorch("torch::nn::CrossEntropyLoss()torch::nn::NLLLoss()torch::nn::MSELoss()torch::nn::L1Loss()"));
  EXPECT_EQ(printed(nn::SmoothL1Loss()) + "|" + printed(nn::HuberLoss()) + "|" + printed(nn::BCELoss()) + "|" +
                printed(nn::BCEWithLogitsLoss()) + "|" + printed(nn::KLDivLoss()),
            libtorch("torch::nn::SmoothL1Loss|torch::nn::HuberLoss|torch::nn::BCELoss()|torch::nn::BCEWithLogitsLoss()|"
                     "torch::nn::KLDivLoss()"));
  EXPECT_EQ(printed(nn::TripletMarginLoss(nn::TripletMarginLossOptions().margin(0.5).p(1).swap(true))),
            libtorch("torch::nn::TripletMarginLoss(margin=0.5, p=1, eps=1e-06, swap=true)"));
  EXPECT_EQ(printed(nn::Conv1d(4, 6, 3)), libtorch("torch::nn::Conv1d(4, 6, kernel_size=3, stride=1)"));
  EXPECT_EQ(printed(nn::Conv3d(nn::Conv3dOptions(4, 6, {2, 3, 2}).stride({1, 2, 1}).groups(2))),
            libtorch("torch::nn::Conv3d(4, 6, kernel_size=[2, 3, 2], stride=[1, 2, 1], groups=2)"));
  EXPECT_EQ(printed(nn::ConvTranspose1d(4, 6, 3)),
            libtorch("torch::nn::ConvTranspose1d(4, 6, kernel_size=3, stride=1)"));
  EXPECT_EQ(printed(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, {3, 2})
                                            .stride({2, 1})
                                            .padding({1, 0})
                                            .output_padding({1, 0})
                                            .groups(2)
                                            .dilation({1, 2}))),
            libtorch("torch::nn::ConvTranspose2d(4, 6, kernel_size=[3, 2], stride=[2, 1], padding=[1, 0], "
                     "dilation=[1, 2], output_padding=[1, 0], groups=2)"));
  EXPECT_EQ(printed(nn::Bilinear(4, 5, 3)),
            libtorch("torch::nn::Bilinear(in1_features=4, in2_features=5, out_features=3, bias=true)"));
  EXPECT_EQ(printed(nn::GroupNorm(nn::GroupNormOptions(2, 4).affine(false).eps(1e-3))),
            libtorch("torch::nn::GroupNorm(2, 4, eps=0.001, affine=false)"));
  EXPECT_EQ(printed(nn::InstanceNorm2d(4)),
            libtorch("torch::nn::InstanceNorm2d(4, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)"));
  EXPECT_EQ(
      printed(nn::LeakyReLU()) + "|" + printed(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2).inplace(true))),
      libtorch("torch::nn::LeakyReLU(negative_slope=0.01)|torch::nn::LeakyReLU(negative_slope=0.2, inplace=true)"));
  EXPECT_EQ(printed(nn::ELU()) + "|" + printed(nn::ELU(nn::ELUOptions().alpha(0.5).inplace(true))),
            libtorch("torch::nn::ELU(alpha=1)|torch::nn::ELU(alpha=0.5, inplace=true)"));
  EXPECT_EQ(printed(nn::EmbeddingBag(10, 3)), libtorch("torch::nn::EmbeddingBag(num_embeddings=10, embedding_dim=3)"));
  EXPECT_EQ(printed(nn::EmbeddingBag(
                nn::EmbeddingBagOptions(10, 3).mode(kSum).max_norm(2).padding_idx(1).include_last_offset(true))),
            libtorch("torch::nn::EmbeddingBag(num_embeddings=10, embedding_dim=3, max_norm=2, mode=kSum, "
                     "include_last_offset=true, padding_idx=1)"));
  EXPECT_EQ(printed(nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}))),
            libtorch("torch::nn::Upsample(scale_factor=[2, 2], mode=kNearest)"));
  EXPECT_EQ(
      printed(nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{4, 6}).mode(kBilinear).align_corners(true))),
      libtorch("torch::nn::Upsample(size=[4, 6], mode=kBilinear)"));
  EXPECT_EQ(printed(nn::MultiheadAttention(8, 2)),
            libtorch("torch::nn::MultiheadAttention(\n  (out_proj): torch::nn::Linear(in_features=8, out_features=8, "
                     "bias=true)\n)"));
}

TEST(NewLayers, ParameterNamesAsPyTorch) {
  using V = std::vector<std::string>;
  EXPECT_EQ(param_names(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, {3, 2}).groups(2))),
            (V{"weight [4, 3, 3, 2]", "bias [6]"}));
  EXPECT_EQ(param_names(nn::Conv3d(nn::Conv3dOptions(4, 6, {2, 3, 2}).groups(2))),
            (V{"weight [6, 2, 2, 3, 2]", "bias [6]"}));
  EXPECT_EQ(param_names(nn::Bilinear(nn::BilinearOptions(4, 5, 3).bias(false))), (V{"weight [3, 4, 5]"}));
  EXPECT_EQ(param_names(nn::InstanceNorm2d(4)), V{});
  EXPECT_EQ(param_names(nn::InstanceNorm2d(nn::InstanceNorm2dOptions(4).affine(true).track_running_stats(true))),
            (V{"weight [4]", "bias [4]"}));
  EXPECT_EQ(param_names(nn::MultiheadAttention(8, 2)),
            (V{"in_proj_weight [24, 8]", "in_proj_bias [24]", "out_proj.weight [8, 8]", "out_proj.bias [8]"}));
  EXPECT_EQ(param_names(nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).kdim(5).vdim(6).add_bias_kv(true))),
            (V{"q_proj_weight [8, 8]", "k_proj_weight [8, 5]", "v_proj_weight [8, 6]", "in_proj_bias [24]",
               "bias_k [1, 1, 8]", "bias_v [1, 1, 8]", "out_proj.weight [8, 8]", "out_proj.bias [8]"}));
  EXPECT_EQ(param_names(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16))),
            (V{"self_attn.in_proj_weight [24, 8]", "self_attn.in_proj_bias [24]", "self_attn.out_proj.weight [8, 8]",
               "self_attn.out_proj.bias [8]", "linear1.weight [16, 8]", "linear1.bias [16]", "linear2.weight [8, 16]",
               "linear2.bias [8]", "norm1.weight [8]", "norm1.bias [8]", "norm2.weight [8]", "norm2.bias [8]"}));
  // Loss weights are buffers, present only when given (LibTorch's named_buffers).
  EXPECT_EQ(nn::CrossEntropyLoss()->buffers().size(), 0u);
  EXPECT_EQ(nn::BCEWithLogitsLoss(nn::BCEWithLogitsLossOptions().pos_weight(ones({3})).weight(ones({3})))
                ->named_buffers()
                .keys(),
            (V{"weight", "pos_weight"}));
}

TEST(NewLayers, DropoutTrainEval) {
  manual_seed(0);
  nn::Dropout d(0.5);
  const Tensor x = ones({1000});
  const auto v = values(d->forward(x));
  int zeros_n = 0;
  for (double e : v) {
    EXPECT_TRUE(e == 0 || e == 2) << e;
    zeros_n += e == 0;
  }
  EXPECT_GT(zeros_n, 400);
  EXPECT_LT(zeros_n, 600);
  d->eval();
  expect_close(d->forward(x), x, 0);
  nn::Dropout2d d2(0.5);
  const auto v2 = values(d2->forward(ones({4, 50, 3, 3})));
  for (size_t plane = 0; plane < 200; ++plane)
    for (size_t i = 1; i < 9; ++i) EXPECT_EQ(v2[plane * 9 + i], v2[plane * 9]) << "one draw per channel";
  nn::AlphaDropout a(0.3);
  a->eval();
  expect_close(a->forward(x), x, 0);
  EXPECT_NE(error_of_type<ValueError>([] { nn::Dropout(1.5); }).find("[Dropout] p: dropout probability"),
            std::string::npos);
}

TEST(NewLayers, ActivationValues) {
  const Tensor x = tensor({-2.0, -0.5, 0.0, 1.5}, kFloat64);
  // LibTorch 1.13: leaky_relu(x, 0.2), elu(x, 0.5).
  expect_close(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))->forward(x),
               tensor({-0.4, -0.1, 0.0, 1.5}, kFloat64), 1e-15);
  expect_close(nn::ELU(nn::ELUOptions().alpha(0.5))->forward(x),
               tensor({-0.43233235838169365, -0.19673467014368329, 0.0, 1.5}, kFloat64), 1e-15);
  // A large positive input keeps elu's gradient finite (the unused branch's exp is clamped).
  Tensor big = tensor({100.0, -1.0}, kFloat64).requires_grad_();
  nn::ELU()->forward(big).sum().backward();
  expect_close(big.grad(), tensor({1.0, 0.36787944117144233}, kFloat64), 1e-15);
}

TEST(NewLayers, UpsampleValues) {
  const Tensor x = arange(6, kFloat64).view({1, 1, 2, 3});
  // LibTorch 1.13: F::interpolate(x, size {3, 4}, nearest) and bilinear with / without align_corners.
  expect_close(nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{3, 4}))->forward(x),
               tensor({0., 0., 1., 2., 0., 0., 1., 2., 3., 3., 4., 5.}, kFloat64).view({1, 1, 3, 4}), 0);
  expect_close(nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{3, 4}).mode(kBilinear).align_corners(true))
                   ->forward(x),
               tensor({0., 0.6666666666666667, 1.3333333333333335, 2., 1.5, 2.166666666666667, 2.8333333333333335, 3.5,
                       3., 3.666666666666667, 4.333333333333334, 5.},
                      kFloat64)
                   .view({1, 1, 3, 4}),
               1e-12);
  // LibTorch 1.13: F::interpolate(x, scale_factor {2, 2}, bicubic, align_corners false), first row.
  expect_close(nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(kBicubic))
                   ->forward(x)
                   .select(2, 0),
               tensor({-0.421875, -0.125, 0.3515625, 1.015625, 1.4921875, 1.7890625}, kFloat64).view({1, 1, 6}), 1e-12);
  // As LibTorch: one scale factor per spatial dimension.
  EXPECT_NE(error_of_type<ValueError>([&] {
              nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2}))->forward(x);
            }).find("[interpolate] scale_factor: expected 2 factors"),
            std::string::npos);
  EXPECT_NE(error_of_type<ValueError>([] {
              nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2}))->forward(ones({2, 3}));
            }).find("[interpolate] only 3-D, 4-D and 5-D inputs"),
            std::string::npos);
}

TEST(NewLayers, ConvTransposeOutputSize) {
  nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1));
  const Tensor x = ones({1, 2, 4, 5});
  EXPECT_EQ(ct->forward(x).sizes(), IntArrayRef({1, 3, 7, 9}));
  EXPECT_EQ(ct->forward(x, std::vector<int64_t>{8, 10}).sizes(), IntArrayRef({1, 3, 8, 10}));
  EXPECT_NE(error_of_type<ValueError>([&] {
              ct->forward(x, std::vector<int64_t>{10, 10});
            }).find("[ConvTranspose2d] output_size"),
            std::string::npos);
}

TEST(NewLayers, GradcheckThroughParameters) {
  manual_seed(1);
  nn::Bilinear bl(3, 2, 2);
  bl->to(kFloat64);
  const Tensor a = randn({4, 3}, kFloat64), b = randn({4, 2}, kFloat64);
  EXPECT_TRUE(autograd::gradcheck([&](const std::vector<Tensor>& p) { return ember::bilinear(a, b, p[0], p[1]); },
                                  {bl->weight.detach().requires_grad_(), bl->bias.detach().requires_grad_()}));
}

}  // namespace
