// ember::nn::functional: the calls of functional_calls.inc (LibTorch's spellings; the same file
// compiles against LibTorch 1.13, whose values ReferenceFunctional.h holds), Ember's additions
// and the functions' own errors.
#include "NNTestUtil.h"
#include "ReferenceFunctional.h"

#define NS ember
#include "functional_calls.inc"
#undef NS

namespace ember::nntest {
namespace {

namespace F = ember::nn::functional;

TEST(NNFunctional, MatchesLibTorchCallForCall) {
  const auto got = functional_calls::run();
  const auto& want = ref_functional::results();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& [name, t] = got[i];
    ASSERT_EQ(name, want[i].name);
    ASSERT_TRUE(t.defined()) << name;
    EXPECT_EQ(t.sizes(), IntArrayRef(want[i].sizes)) << name;
    expect_close(t, want[i].values, 1e-10, 1e-12, name);
  }
}

TEST(NNFunctional, SmoothL1LossTakesBetaFromItsOptions) {
  // LibTorch 1.13 ignores SmoothL1LossFuncOptions::beta (only its extra argument counts); Ember
  // honors it, and the extra argument overrides it.
  const Tensor a = seq({2, 3}, 0.6, 0.1) * 2, b = seq({2, 3}, 1.1, 0.7) * 2;
  const double want = smooth_l1_loss(a, b, Reduction::Mean, 0.5).item<double>();
  EXPECT_EQ(F::smooth_l1_loss(a, b, F::SmoothL1LossFuncOptions().beta(0.5)).item<double>(), want);
  EXPECT_EQ(F::smooth_l1_loss(a, b, F::SmoothL1LossFuncOptions().beta(2.0), 0.5).item<double>(), want);
  EXPECT_EQ(F::smooth_l1_loss(a, b).item<double>(), smooth_l1_loss(a, b).item<double>());
}

TEST(NNFunctional, InPlaceOptionsWriteTheInput) {
  Tensor x = seq({3, 4}, 0.7, 0.3);
  const Tensor before = x.clone();
  Tensor r = F::relu(x, F::ReLUFuncOptions(true));
  EXPECT_TRUE(r.is_same(x));
  EXPECT_TRUE(equal(x, before.clamp(0)));
  Tensor y = ones({4, 3, 2});
  F::dropout(y, F::DropoutFuncOptions().p(1.0).inplace(true));
  EXPECT_EQ(y.abs().sum().item<float>(), 0.0f);
  Tensor z = ones({3, 5, 2});  // unbatched for dropout2d: channels along dim 0
  manual_seed(0);
  F::dropout2d(z, F::Dropout2dFuncOptions().p(0.5).inplace(true));
  EXPECT_TRUE(equal(z.amax({1, 2}), z.amin({1, 2})));
}

TEST(NNFunctional, FreeDropoutAndDefaults) {
  // API.md: ember::dropout(Tensor, double p, bool train) is a free function.
  Tensor (*free_dropout)(const Tensor&, double, bool) = &ember::dropout;
  const Tensor x = ones({2, 2});
  EXPECT_TRUE(free_dropout(x, 0.5, false).is_same(x));
  // F::dropout trains by default, F::alpha_dropout does not (LibTorch's defaults).
  EXPECT_EQ(F::DropoutFuncOptions().p(), 0.5);
  EXPECT_TRUE(F::DropoutFuncOptions().training());
  EXPECT_FALSE(F::AlphaDropoutFuncOptions().training());
  EXPECT_EQ(F::CrossEntropyFuncOptions().ignore_index(), -100);
  EXPECT_TRUE(std::holds_alternative<enumtype::kMean>(F::CrossEntropyFuncOptions().reduction()));
  EXPECT_TRUE(std::holds_alternative<enumtype::kMean>(F::EmbeddingBagFuncOptions().mode()));
  EXPECT_EQ(F::MaxPool2dFuncOptions(3).stride()->at(1), 3);  // stride defaults to the kernel size
  EXPECT_EQ(std::get<ExpandingArray<2>>(F::Conv2dFuncOptions().padding())->at(0), 0);
  EXPECT_EQ(F::NormalizeFuncOptions().eps(), 1e-12);
}

TEST(NNFunctional, AdaptivePoolKeepsANoneDimension) {
  const Tensor img = seq({2, 3, 6, 5}, 0.21, 0.1);
  const Tensor y = F::adaptive_avg_pool2d(img, F::AdaptiveAvgPool2dFuncOptions({3, std::nullopt}));
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 3, 3, 5}));
  EXPECT_TRUE(allclose(y, adaptive_avg_pool2d(img, {3, 5}), 0, 0));
}

TEST(NNFunctional, SamePaddingKeepsTheSizeAndGradients) {
  // An even kernel pads one more zero after the input: gradients flow to the input only.
  Tensor x = seq({1, 2, 7, 6}, 0.3, 0.1).requires_grad_();
  const Tensor w = seq({3, 2, 2, 4}, 0.2, 0.5);
  const Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().padding(kSame));
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 3, 7, 6}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const Tensor& t) { return F::conv2d(t, w, F::Conv2dFuncOptions().padding(kSame)); }, {x}));
}

TEST(NNFunctional, Errors) {
  const Tensor p = full({2, 3}, 0.5, kFloat64), q = full({3}, 0.5, kFloat64);
  EXPECT_EQ(error_of([&] { F::binary_cross_entropy(p, q); }),
            "[binary_cross_entropy] expected a target of the input's size [2, 3], got [3]");
  EXPECT_EQ(error_of([&] { F::binary_cross_entropy_with_logits(p, q); }),
            "[binary_cross_entropy_with_logits] expected a target of the input's size [2, 3], got [3]");
  EXPECT_EQ(error_of([&] {
              F::conv2d(ones({1, 2, 5, 5}), ones({3, 2, 3, 3}), F::Conv2dFuncOptions().stride(2).padding(kSame));
            }),
            "[conv2d] padding='same' is not supported for strided convolutions, got stride [2, 2]");
  EXPECT_EQ(error_of([&] {
              F::batch_norm(ones({1, 3}), zeros({3}), ones({3}), F::BatchNormFuncOptions().training(true));
            }),
            "[batch_norm] expected more than 1 value per channel when training, got input size [1, 3]");
  EXPECT_EQ(error_of([&] {
              F::batch_norm(ones({2, 3}), zeros({3}), ones({3}), F::BatchNormFuncOptions().momentum(std::nullopt));
            }),
            "[batch_norm] argument 'momentum': expected a value (a cumulative average, momentum None, is the "
            "BatchNorm module's)");
  const Tensor ew = ones({10, 3});
  EXPECT_EQ(error_of([&] {
              F::embedding(tensor({1, 2}), ew, F::EmbeddingFuncOptions().padding_idx(10));
            }),
            "[embedding] argument 'padding_idx': expected a value within num_embeddings [-10, 10), got 10");
  EXPECT_EQ(error_of([&] {
              F::embedding_bag(tensor({1, 2}).view({1, 2}), ew, F::EmbeddingBagFuncOptions().offsets(tensor({0})));
            }),
            "[embedding_bag] offsets must be undefined for a 2-D input (each row is a bag), got offsets of shape [1]");
  EXPECT_EQ(error_of([&] {
              F::embedding_bag(tensor({1, 2}), ew);
            }),
            "[embedding_bag] a 1-D input needs offsets (a 1-D tensor of bag starts)");
  EXPECT_EQ(error_of([&] { F::max_pool1d(ones({5}), F::MaxPool1dFuncOptions(2)); }),
            "[max_pool1d] argument 'input': expected a 2-D (C, L) or 3-D (N, C, L) input, got shape [5]");
}

}  // namespace
}  // namespace ember::nntest
