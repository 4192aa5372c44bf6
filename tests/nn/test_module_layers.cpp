// Layers: forward against the operators and hand computations, PyTorch's default
// initialisation, options, errors, and printing against LibTorch 1.13's text.
#include <gtest/gtest.h>

#include <cmath>
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

// LibTorch's printed text with torch:: spelled ember::.
std::string libtorch(std::string s) {
  for (size_t at = s.find("torch::"); at != std::string::npos; at = s.find("torch::", at)) s.replace(at, 7, "ember::");
  return s;
}

double max_abs(const Tensor& t) { return t.detach().abs().max().item<double>(); }

TEST(Layers, PrintAsLibTorch) {
  // Reference lines printed by LibTorch 1.13 for the same constructions.
  EXPECT_EQ(printed(nn::Linear(784, 64)), libtorch("torch::nn::Linear(in_features=784, out_features=64, bias=true)"));
  EXPECT_EQ(printed(nn::Conv2d(3, 8, 3)), libtorch("torch::nn::Conv2d(3, 8, kernel_size=[3, 3], stride=[1, 1])"));
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(3, 8, {3, 5})
                                   .stride(2)
                                   .padding(1)
                                   .dilation(2)
                                   .groups(1)
                                   .bias(false)
                                   .padding_mode(kReflect))),
            libtorch("torch::nn::Conv2d(3, 8, kernel_size=[3, 5], stride=[2, 2], padding=[1, 1], dilation=[2, 2], "
                     "bias=false, padding_mode=kReflect)"));
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(kSame))),
            libtorch("torch::nn::Conv2d(3, 8, kernel_size=[3, 3], stride=[1, 1], padding='same')"));
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(kValid))),
            libtorch("torch::nn::Conv2d(3, 8, kernel_size=[3, 3], stride=[1, 1], padding='valid')"));
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(4, 8, 3).groups(2).padding({1, 2}))),
            libtorch("torch::nn::Conv2d(4, 8, kernel_size=[3, 3], stride=[1, 1], padding=[1, 2], groups=2)"));
  EXPECT_EQ(printed(nn::BatchNorm1d(10)),
            libtorch("torch::nn::BatchNorm1d(10, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)"));
  EXPECT_EQ(printed(nn::BatchNorm2d(
                nn::BatchNorm2dOptions(10).momentum(0.2).eps(1e-3).affine(false).track_running_stats(false))),
            libtorch("torch::nn::BatchNorm2d(10, eps=0.001, momentum=0.2, affine=false, track_running_stats=false)"));
  EXPECT_EQ(printed(nn::BatchNorm2d(nn::BatchNorm2dOptions(10).momentum(std::nullopt))),
            libtorch("torch::nn::BatchNorm2d(10, eps=1e-05, momentum=None, affine=true, track_running_stats=true)"));
  EXPECT_EQ(printed(nn::LayerNorm(nn::LayerNormOptions({10, 20}))),
            libtorch("torch::nn::LayerNorm([10, 20], eps=1e-05, elementwise_affine=true)"));
  EXPECT_EQ(printed(nn::LayerNorm(nn::LayerNormOptions({10}).elementwise_affine(false).eps(1e-6))),
            libtorch("torch::nn::LayerNorm([10], eps=1e-06, elementwise_affine=false)"));
  EXPECT_EQ(printed(nn::ReLU()) + "|" + printed(nn::ReLU(nn::ReLUOptions(true))),
            libtorch("torch::nn::ReLU()|torch::nn::ReLU(inplace=true)"));
  EXPECT_EQ(printed(nn::GELU()) + "|" + printed(nn::GELU(nn::GELUOptions().approximate("tanh"))),
            libtorch("torch::nn::GELU()|torch::nn::GELU()"));
  EXPECT_EQ(printed(nn::SiLU()) + "|" + printed(nn::Tanh()) + "|" + printed(nn::Sigmoid()),
            libtorch("torch::nn::SiLU()|torch::nn::Tanh()|torch::nn::Sigmoid()"));
  EXPECT_EQ(printed(nn::Softmax(1)) + "|" + printed(nn::LogSoftmax(-1)),
            libtorch("torch::nn::Softmax(dim=1)|torch::nn::LogSoftmax(dim=-1)"));
  EXPECT_EQ(printed(nn::MaxPool1d(3)),
            libtorch("torch::nn::MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=false)"));
  EXPECT_EQ(printed(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(1).padding(1).dilation(2).ceil_mode(true))),
            libtorch("torch::nn::MaxPool1d(kernel_size=3, stride=1, padding=1, dilation=2, ceil_mode=true)"));
  EXPECT_EQ(printed(nn::MaxPool2d(2)), libtorch("torch::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, "
                                                "0], dilation=[1, 1], ceil_mode=false)"));
  EXPECT_EQ(printed(nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride({2, 1}).padding(1))),
            libtorch("torch::nn::MaxPool2d(kernel_size=[3, 2], stride=[2, 1], padding=[1, 1], dilation=[1, 1], "
                     "ceil_mode=false)"));
  EXPECT_EQ(printed(nn::AvgPool2d(2)),
            libtorch("torch::nn::AvgPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0])"));
  EXPECT_EQ(
      printed(nn::AvgPool2d(
          nn::AvgPool2dOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false).divisor_override(2))),
      libtorch("torch::nn::AvgPool2d(kernel_size=[3, 3], stride=[2, 2], padding=[1, 1])"));
  EXPECT_EQ(printed(nn::AdaptiveAvgPool2d(7)) + "|" +
                printed(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, std::nullopt}))),
            libtorch("torch::nn::AdaptiveAvgPool2d(output_size=[7, 7])|torch::nn::AdaptiveAvgPool2d(output_size=[3, "
                     "None])"));
  EXPECT_EQ(printed(nn::Flatten()) + "|" + printed(nn::Flatten(nn::FlattenOptions().start_dim(2).end_dim(3))),
            libtorch("torch::nn::Flatten(start_dim=1, end_dim=-1)|torch::nn::Flatten(start_dim=2, end_dim=3)"));
  EXPECT_EQ(printed(nn::Unflatten(nn::UnflattenOptions(1, {2, 3}))),
            libtorch("torch::nn::Unflatten(dim=1, unflattened_size={2, 3})"));
  EXPECT_EQ(printed(nn::Embedding(10, 3)), libtorch("torch::nn::Embedding(num_embeddings=10, embedding_dim=3)"));
  EXPECT_EQ(
      printed(nn::Embedding(
          nn::EmbeddingOptions(10, 3).padding_idx(0).max_norm(1.0).norm_type(3).scale_grad_by_freq(true).sparse(true))),
      libtorch("torch::nn::Embedding(num_embeddings=10, embedding_dim=3, padding_idx=0, max_norm=1, "
               "norm_type=3, scale_grad_by_freq=true, sparse=true)"));
  EXPECT_EQ(printed(nn::Identity()), libtorch("torch::nn::Identity()"));
}

TEST(Layers, LinearForwardAndInit) {
  manual_seed(0);
  nn::Linear fc(400, 300);
  EXPECT_EQ(fc->weight.sizes(), IntArrayRef({300, 400}));
  EXPECT_EQ(fc->bias.sizes(), IntArrayRef({300}));
  // kaiming_uniform_(a = sqrt(5)) and U(+-1/sqrt(fan_in)): both bounded by 1/sqrt(400) = 0.05.
  EXPECT_LE(max_abs(fc->weight), 0.05);
  EXPECT_GT(max_abs(fc->weight), 0.0499);
  EXPECT_LE(max_abs(fc->bias), 0.05);
  EXPECT_GT(max_abs(fc->bias), 0.049);
  const Tensor x = randn({7, 400});
  expect_close(fc(x), matmul(x, fc->weight.t()) + fc->bias, 1e-5, "Linear");
  const Tensor x3 = randn({2, 3, 400});
  expect_close(fc(x3), matmul(x3, fc->weight.t()) + fc->bias, 1e-5, "Linear 3-D");
  nn::Linear no_bias(nn::LinearOptions(4, 2).bias(false));
  EXPECT_FALSE(no_bias->bias.defined());
  EXPECT_EQ(no_bias->parameters().size(), 1u);
  const Tensor x4 = randn({3, 4});
  expect_close(no_bias(x4), matmul(x4, no_bias->weight.t()), 1e-6, "Linear without bias");
  EXPECT_EQ(error_of_type<ValueError>([] { nn::Linear(-1, 2); }),
            "[Linear] in_features and out_features: expected non-negative sizes, got -1 and 2");
}

TEST(Layers, Conv2dForwardPaddingAndInit) {
  manual_seed(0);
  nn::Conv2d conv(nn::Conv2dOptions(16, 32, 3).padding(1));
  EXPECT_EQ(conv->weight.sizes(), IntArrayRef({32, 16, 3, 3}));
  EXPECT_LE(max_abs(conv->weight), 1.0 / 12);  // 1 / sqrt(16 * 9)
  EXPECT_GT(max_abs(conv->weight), 1.0 / 12 - 1e-3);
  EXPECT_LE(max_abs(conv->bias), 1.0 / 12);
  const Tensor x = randn({2, 16, 8, 8});
  expect_close(conv(x), conv2d(x, conv->weight, conv->bias, 1, 1), 1e-6, "Conv2d");

  nn::Conv2d grouped(nn::Conv2dOptions(4, 8, 3).groups(2).stride(2).bias(false));
  EXPECT_EQ(grouped->weight.sizes(), IntArrayRef({8, 2, 3, 3}));
  const Tensor xg = randn({1, 4, 9, 9});
  expect_close(grouped(xg), conv2d(xg, grouped->weight, {}, 2, std::vector<int64_t>{0, 0}, 1, 2), 1e-6,
               "grouped Conv2d");

  // 'same' with an even kernel: PyTorch pads 1 before and 2 after each spatial dim.
  nn::Conv2d same(nn::Conv2dOptions(2, 3, 4).padding(kSame));
  const Tensor xs = randn({1, 2, 5, 6});
  const Tensor ys = same(xs);
  EXPECT_EQ(ys.sizes(), IntArrayRef({1, 3, 5, 6}));
  Tensor padded = cat({zeros({1, 2, 1, 6}), xs, zeros({1, 2, 2, 6})}, 2);
  padded = cat({zeros({1, 2, 8, 1}), padded, zeros({1, 2, 8, 2})}, 3);
  expect_close(ys, conv2d(padded, same->weight, same->bias), 1e-5, "same Conv2d");
  nn::Conv2d same_odd(nn::Conv2dOptions(2, 3, {3, 5}).padding(kSame).dilation({1, 2}));
  EXPECT_EQ(same_odd(xs).sizes(), IntArrayRef({1, 3, 5, 6}));
  expect_close(same_odd(xs), conv2d(xs, same_odd->weight, same_odd->bias, 1, {1, 4}, {1, 2}), 1e-5, "same odd");
  nn::Conv2d valid(nn::Conv2dOptions(2, 3, 3).padding(kValid));
  EXPECT_EQ(valid(xs).sizes(), IntArrayRef({1, 3, 3, 4}));

  EXPECT_EQ(error_of_type<ValueError>([] { nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(kSame).stride(2)); }),
            "[Conv2d] padding='same' is not supported for strided convolutions (stride 2, 2)");
  EXPECT_EQ(error_of_type<ValueError>([] { nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)); }),
            "[Conv2d] in_channels must be divisible by groups (got 3 and 2)");
  // The other padding modes pad the input by F::pad (LibTorch's _reversed_padding_repeated_twice).
  nn::Conv2d reflect(nn::Conv2dOptions(2, 3, 3).padding({1, 2}).padding_mode(kReflect));
  expect_close(reflect(xs), conv2d(reflection_pad2d(xs, {2, 2, 1, 1}), reflect->weight, reflect->bias), 1e-5,
               "padding_mode kReflect");
  nn::Conv2d circular(nn::Conv2dOptions(2, 3, {2, 3}).padding(kSame).padding_mode(kCircular));
  expect_close(circular(xs), conv2d(pad(xs, {1, 1, 0, 1}, "circular"), circular->weight, circular->bias), 1e-5,
               "padding_mode kCircular, same");
}

// y = (x - mean) / sqrt(var + eps) * w + b per channel of an [N, C, H, W] tensor (biased var).
Tensor batch_norm_by_hand(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor& w, const Tensor& b,
                          double eps) {
  auto c = [](const Tensor& t) { return t.reshape({1, -1, 1, 1}); };
  return (x - c(mean)) / (c(var) + eps).sqrt() * c(w) + c(b);
}

TEST(Layers, BatchNorm2dTrainEvalAndRunningStats) {
  manual_seed(2);
  nn::BatchNorm2d bn(3);
  EXPECT_EQ(values(bn->weight), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(values(bn->bias), (std::vector<double>{0, 0, 0}));
  {
    NoGradGuard no_grad;
    bn->weight.copy_(tensor({1.0, 2.0, 0.5}));
    bn->bias.copy_(tensor({0.0, -1.0, 3.0}));
  }
  const Tensor x = randn({4, 3, 5, 5}, kFloat64).to(kFloat32) * 2 + 1;
  const Tensor mean = x.mean({0, 2, 3});
  const Tensor var_biased = x.var(IntArrayRef{0, 2, 3}, /*unbiased=*/false);
  const Tensor var_unbiased = x.var(IntArrayRef{0, 2, 3}, /*unbiased=*/true);
  expect_close(bn(x), batch_norm_by_hand(x, mean, var_biased, bn->weight, bn->bias, 1e-5), 1e-4, "train");
  expect_close(bn->running_mean, mean * 0.1, 1e-6, "running_mean");
  expect_close(bn->running_var, var_unbiased * 0.1 + 0.9, 1e-5, "running_var");
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  const Tensor rm = bn->running_mean.clone(), rv = bn->running_var.clone();
  expect_close(bn(x), batch_norm_by_hand(x, rm, rv, bn->weight, bn->bias, 1e-5), 1e-4, "eval");
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  expect_close(bn->running_mean, rm, 0, "eval leaves the running mean");

  // momentum None: the cumulative average of the batches' statistics.
  nn::BatchNorm2d cumulative(nn::BatchNorm2dOptions(3).momentum(std::nullopt));
  const Tensor x2 = randn({4, 3, 2, 2});
  cumulative(x);
  cumulative(x2);
  expect_close(cumulative->running_mean, (mean + x2.mean({0, 2, 3})) / 2, 1e-5, "cumulative mean");
  EXPECT_EQ(cumulative->num_batches_tracked.item<int64_t>(), 2);

  // Without running statistics: batch statistics in eval mode too.
  nn::BatchNorm2d untracked(nn::BatchNorm2dOptions(3).track_running_stats(false).affine(false));
  EXPECT_FALSE(untracked->running_mean.defined());
  EXPECT_EQ(untracked->parameters().size(), 0u);
  EXPECT_EQ(untracked->buffers().size(), 0u);
  untracked->eval();
  expect_close(untracked(x), batch_norm_by_hand(x, mean, var_biased, ones({3}), zeros({3}), 1e-5), 1e-4, "untracked");

  EXPECT_EQ(error_of_type<ValueError>([&] { bn(randn({3, 5})); }), "[BatchNorm2d] expected 4D input (got 2D input)");
  bn->train();
  EXPECT_EQ(error_of_type<ValueError>([&] {
              bn(randn({1, 3, 1, 1}));
            }),
            "[BatchNorm2d] Expected more than 1 value per channel when training, got input size [1, 3, 1, 1]");
}

TEST(Layers, BatchNorm1dAndLayerNorm) {
  nn::BatchNorm1d bn(4);
  const Tensor x = randn({6, 4});
  const Tensor want = (x - x.mean({0}, true)) / (x.var(IntArrayRef{0}, false, true) + 1e-5).sqrt();
  expect_close(bn(x), want, 1e-4, "BatchNorm1d");
  EXPECT_EQ(bn(randn({6, 4, 3})).sizes(), IntArrayRef({6, 4, 3}));
  EXPECT_EQ(error_of_type<ValueError>([&] {
              bn(randn({2, 4, 3, 3}));
            }),
            "[BatchNorm1d] expected 2D or 3D input (got 4D input)");

  nn::LayerNorm ln(nn::LayerNormOptions({3, 4}).eps(1e-6));
  EXPECT_EQ(ln->weight.sizes(), IntArrayRef({3, 4}));
  {
    NoGradGuard no_grad;
    ln->weight.fill_(2);
    ln->bias.fill_(0.5);
  }
  const Tensor y = randn({2, 3, 4});
  const Tensor mean = y.mean({1, 2}, true), var = y.var(IntArrayRef{1, 2}, false, true);
  expect_close(ln(y), (y - mean) / (var + 1e-6).sqrt() * 2 + 0.5, 1e-4, "LayerNorm");
  nn::LayerNorm plain(nn::LayerNormOptions({4}).elementwise_affine(false));
  EXPECT_EQ(plain->parameters().size(), 0u);
  expect_close(plain(y), (y - y.mean({2}, true)) / (y.var(IntArrayRef{2}, false, true) + 1e-5).sqrt(), 1e-4,
               "plain LayerNorm");
}

TEST(Layers, Activations) {
  const Tensor x = tensor({-2.0, -0.5, 0.0, 1.5});
  EXPECT_EQ(values(nn::ReLU()(x)), (std::vector<double>{0, 0, 0, 1.5}));
  EXPECT_EQ(values(x), (std::vector<double>{-2, -0.5, 0, 1.5}));
  Tensor y = x.clone();
  nn::ReLU(nn::ReLUOptions(true))(y);
  EXPECT_EQ(values(y), (std::vector<double>{0, 0, 0, 1.5}));  // in place
  expect_close(nn::GELU()(x), gelu(x), 0, "GELU");
  expect_close(nn::GELU(nn::GELUOptions().approximate("tanh"))(x), gelu(x, "tanh"), 0, "GELU tanh");
  EXPECT_FALSE(allclose(gelu(x), gelu(x, "tanh"), 0, 1e-7));
  expect_close(nn::SiLU()(x), x * sigmoid(x), 1e-6, "SiLU");
  expect_close(nn::Tanh()(x), tanh(x), 0, "Tanh");
  expect_close(nn::Sigmoid()(x), sigmoid(x), 0, "Sigmoid");
  const Tensor m = tensor({{1.0, 2.0}, {3.0, 5.0}});
  expect_close(nn::Softmax(0)(m), softmax(m, 0), 0, "Softmax");
  expect_close(nn::LogSoftmax(1)(m), log_softmax(m, 1), 0, "LogSoftmax");
  const double e = std::exp(1.0);
  expect_close(nn::Softmax(1)(m), tensor({{1 / (1 + e), e / (1 + e)}, {1 / (1 + e * e), e * e / (1 + e * e)}}), 1e-6,
               "Softmax by hand");
}

TEST(Layers, Pooling) {
  const Tensor seq = tensor({{{1.0, 5.0, 2.0, 4.0, 3.0, 0.0}}});
  EXPECT_EQ(values(nn::MaxPool1d(2)(seq)), (std::vector<double>{5, 4, 3}));
  EXPECT_EQ(nn::MaxPool1d(2)(seq).sizes(), IntArrayRef({1, 1, 3}));
  EXPECT_EQ(values(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1))(seq)), (std::vector<double>{5, 5, 4}));
  EXPECT_EQ(values(nn::MaxPool1d(nn::MaxPool1dOptions(2).stride(2).dilation(2).ceil_mode(true))(seq)),
            (std::vector<double>{2, 3, 3}));
  EXPECT_EQ(nn::MaxPool1d(2)(seq[0]).sizes(), IntArrayRef({1, 3}));  // [C, L]
  EXPECT_EQ(error_of_type<ValueError>([&] {
              nn::MaxPool1d(2)(randn({1, 1, 2, 2}));
            }),
            "[MaxPool1d] Expected 2D or 3D input tensor, but got 4D");

  const Tensor img = randn({2, 3, 7, 6});
  expect_close(nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride({2, 1}).padding(1))(img),
               max_pool2d(img, {3, 2}, {2, 1}, 1), 0, "MaxPool2d");
  expect_close(nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false))(img),
               avg_pool2d(img, 3, 2, 1, false, false), 0, "AvgPool2d");
  const Tensor four = arange(0, 24).to(kFloat32).reshape({1, 1, 6, 4});
  const Tensor pooled = nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, std::nullopt}))(four);
  EXPECT_EQ(pooled.sizes(), IntArrayRef({1, 1, 3, 4}));
  EXPECT_EQ(values(pooled), (std::vector<double>{2, 3, 4, 5, 10, 11, 12, 13, 18, 19, 20, 21}));
  EXPECT_EQ(values(nn::AdaptiveAvgPool2d(1)(four)), (std::vector<double>{11.5}));
}

TEST(Layers, FlattenUnflattenIdentity) {
  const Tensor x = randn({2, 3, 4, 5});
  EXPECT_EQ(nn::Flatten()(x).sizes(), IntArrayRef({2, 60}));
  EXPECT_EQ(nn::Flatten(nn::FlattenOptions().start_dim(2))(x).sizes(), IntArrayRef({2, 3, 20}));
  EXPECT_EQ(nn::Unflatten(1, std::vector<int64_t>{3, 20})(nn::Flatten()(x)).sizes(), IntArrayRef({2, 3, 20}));
  EXPECT_EQ(nn::Unflatten(-1, std::vector<int64_t>{-1, 5})(x).sizes(), IntArrayRef({2, 3, 4, 1, 5}));
  EXPECT_TRUE(equal(nn::Unflatten(3, std::vector<int64_t>{5, 1})(x).reshape({2, 3, 4, 5}), x));
  EXPECT_EQ(error_of_type<ValueError>([&] {
              nn::Unflatten(1, std::vector<int64_t>{2, 2})(x);
            }),
            "[Unflatten] Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor");
  EXPECT_TRUE(nn::Identity()(x).is_same(x));
}

TEST(Layers, Embedding) {
  manual_seed(3);
  nn::Embedding emb(nn::EmbeddingOptions(10, 4).padding_idx(-1));
  EXPECT_EQ(emb->options.padding_idx(), 9);  // normalized, as LibTorch
  EXPECT_EQ(values(emb->weight[9]), (std::vector<double>{0, 0, 0, 0}));
  const Tensor idx = tensor({{1, 9}, {1, 3}});
  const Tensor y = emb(idx);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 2, 4}));
  EXPECT_TRUE(equal(y[0][0], emb->weight[1].detach()));
  y.sum().backward();
  EXPECT_EQ(values(emb->weight.grad()[1]), (std::vector<double>{2, 2, 2, 2}));
  EXPECT_EQ(values(emb->weight.grad()[9]), (std::vector<double>{0, 0, 0, 0}));  // padding_idx gets no gradient
  EXPECT_EQ(error_of_type<IndexError>([] { nn::Embedding(nn::EmbeddingOptions(10, 4).padding_idx(10)); }),
            "[Embedding] padding_idx: Padding_idx must be within num_embeddings (10), got 10");

  const Tensor table = tensor({{3.0, 4.0}, {0.3, 0.4}, {6.0, 8.0}});
  nn::Embedding frozen = nn::Embedding::from_pretrained(table);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_FALSE(table.requires_grad());
  EXPECT_EQ(frozen->weight.data_ptr(), table.data_ptr());  // shares the data
  auto clone = std::dynamic_pointer_cast<nn::EmbeddingImpl>(frozen->clone());
  EXPECT_NE(clone->weight.data_ptr(), table.data_ptr());
  EXPECT_EQ(frozen->weight.data_ptr(), table.data_ptr());  // the clone left the original alone
  EXPECT_TRUE(nn::Embedding::from_pretrained(table, nn::EmbeddingFromPretrainedOptions().freeze(false))
                  ->weight.requires_grad());
  EXPECT_EQ(error_of_type<ValueError>([] { nn::Embedding::from_pretrained(ones({3})); }),
            "[Embedding::from_pretrained] embeddings: Embeddings parameter is expected to be 2-dimensional, got 1-D");

  // max_norm renormalizes the rows looked up, in place, to norm 1 (rows of norm 5 and 10).
  nn::Embedding capped =
      nn::Embedding::from_pretrained(table.clone(), nn::EmbeddingFromPretrainedOptions().max_norm(1.0));
  const Tensor out = capped(tensor({0, 1}));
  expect_close(out, tensor({{0.6, 0.8}, {0.3, 0.4}}), 1e-6, "max_norm");
  expect_close(capped->weight, tensor({{0.6, 0.8}, {0.3, 0.4}, {6.0, 8.0}}), 1e-6, "renormalized in place");
}

}  // namespace
