// bilinear, conv1d/conv3d, conv_transpose1d/2d/3d, instance_norm, group_norm, embedding_bag,
// cosine_similarity, pairwise_distance and triplet_margin_loss against LibTorch 1.13
// (ReferenceValues.h), each against a second path that computes it differently, their errors,
// and finite-difference gradients.
#include "NNTestUtil.h"
#include "ReferenceValues.h"

namespace ember::nntest {
namespace {

using VL = autograd::variable_list;

Tensor req(const Tensor& t) { return t.detach().clone().requires_grad_(); }

// The gradients of sum(f(inputs) * v) with respect to each input.
std::vector<Tensor> grads(const std::function<Tensor(const VL&)>& f, const VL& inputs, const Tensor& v) {
  VL in;
  for (const Tensor& t : inputs) in.push_back(req(t));
  return autograd::grad({(f(in) * v).sum()}, in);
}

// ---- bilinear -----------------------------------------------------------------------------------

TEST(NNBilinear, MatchesLibTorch) {
  const Tensor b1 = seq({2, 3, 4}, 0.3, 0.1), b2 = seq({2, 3, 5}, 0.7, 0.2), w = seq({2, 4, 5}, 0.45, 0.3),
               b = seq({2}, 1.0, 0.5);
  const Tensor y = bilinear(b1, b2, w, b);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 3, 2}));
  expect_close(y, ref::bilinear);
  expect_close(bilinear(b1.select(0, 0), b2.select(0, 0), w), ref::bilinear_nobias);
  EXPECT_TRUE(autograd::gradcheck([](const VL& v) { return bilinear(v[0], v[1], v[2], v[3]); },
                                  {req(b1), req(b2), req(w), req(b)}));
  EXPECT_EQ(bilinear(zeros({0, 4}, kFloat64), zeros({0, 5}, kFloat64), w).sizes(), IntArrayRef({0, 2}));
}

TEST(NNBilinear, Errors) {
  const Tensor w = ones({2, 4, 5});
  EXPECT_EQ(error_of([&] {
              bilinear(ones({3, 4}), ones({3, 5}), ones({2, 4}));
            }),
            "[bilinear] argument 'weight': expected a 3-D (out, in1, in2) tensor, got shape [2, 4]");
  EXPECT_EQ(error_of([&] {
              bilinear(ones({3, 4}), ones({5}), w);
            }),
            "[bilinear] expected input1 and input2 to have the same number of dimensions (at least 1), got shapes [3, "
            "4] and [5]");
  EXPECT_EQ(error_of([&] {
              bilinear(ones({3, 4}), ones({2, 5}), w);
            }),
            "[bilinear] expected input1 and input2 to have the same batch dimensions, got shapes [3, 4] and [2, 5]");
  EXPECT_EQ(error_of([&] {
              bilinear(ones({3, 3}), ones({3, 5}), w);
            }),
            "[bilinear] argument 'input1': expected 4 features (weight [2, 4, 5]), got shape [3, 3]");
  EXPECT_EQ(error_of([&] {
              bilinear(ones({3, 4}), ones({3, 4}), w);
            }),
            "[bilinear] argument 'input2': expected 5 features (weight [2, 4, 5]), got shape [3, 4]");
  EXPECT_EQ(error_of([&] {
              bilinear(ones({3, 4}), ones({3, 5}), w, ones({3}));
            }),
            "[bilinear] argument 'bias': expected a 1-D tensor of 2 elements (weight [2, 4, 5]), got shape [3]");
}

TEST(NNLinear, FusedAndUnfusedPathsAgree) {
  // A 2-D input with a bias takes one addmm; other shapes matmul then add: same values and gradients.
  const Tensor x = seq({5, 4}, 0.3, 0.2), w = seq({3, 4}, 0.7, 0.1), b = seq({3}, 0.9, 0.4);
  const Tensor v = seq({5, 3}, 0.5, 0.5);
  auto fused = [](const VL& t) { return linear(t[0], t[1], t[2]); };
  auto unfused = [](const VL& t) { return linear(t[0].unsqueeze(0), t[1], t[2]).squeeze(0); };
  expect_close(fused({x, w, b}), values(unfused({x, w, b})), 1e-14, 1e-14);
  const auto ga = grads(fused, {x, w, b}, v), gb = grads(unfused, {x, w, b}, v);
  for (size_t i = 0; i < 3; ++i) expect_close(ga[i], values(gb[i]), 1e-14, 1e-14, "gradient " + std::to_string(i));
}

// ---- convolutions ------------------------------------------------------------------------------

TEST(NNConv, Conv1dAndConv3dMatchLibTorch) {
  const Tensor x1 = seq({2, 4, 7}, 0.37, 0.1), w1 = seq({6, 2, 3}, 0.71, 0.2), b1 = seq({6}, 0.5, 0.3);
  expect_close(conv1d(x1, w1, b1, 2, 1, 2, 2), ref::conv1d, 1e-10, 1e-12, "conv1d float64");
  expect_close(conv1d(x1.to(kFloat32), w1.to(kFloat32), b1.to(kFloat32), 2, 1, 2, 2), ref::conv1d, 1e-5, 1e-5,
               "conv1d float32");
  const Tensor w1u = w1.slice(1, 0, 1).repeat({1, 4, 1});
  const Tensor y1u = conv1d(x1.select(0, 1), w1u);
  EXPECT_EQ(y1u.sizes(), IntArrayRef({6, 5}));
  expect_close(y1u, ref::conv1d_unbatched);

  const Tensor x3 = seq({2, 4, 4, 5, 3}, 0.13, 0.1), w3 = seq({6, 2, 2, 3, 2}, 0.29, 0.4), b3 = seq({6}, 0.9, 0.3);
  const std::vector<int64_t> s{1, 2, 1}, p{1, 0, 1}, d{1, 1, 2};
  expect_close(conv3d(x3, w3, b3, s, p, d, 2), ref::conv3d, 1e-10, 1e-12, "conv3d float64");
  expect_close(conv3d(x3.to(kFloat32), w3.to(kFloat32), b3.to(kFloat32), s, p, d, 2), ref::conv3d, 1e-5, 1e-5,
               "conv3d float32");
  expect_close(conv3d(x3.select(0, 0), w3.slice(1, 0, 1).repeat({1, 4, 1, 1, 1})).sum(), ref::conv3d_unbatched_sum);
}

TEST(NNConv, TransposedMatchLibTorch) {
  const Tensor xt1 = seq({2, 4, 5}, 0.41, 0.1), wt1 = seq({4, 3, 3}, 0.57, 0.2), tb1 = seq({6}, 0.8, 0.3);
  for (ScalarType dt : {kFloat64, kFloat32}) {
    const double tol = dt == kFloat64 ? 1e-10 : 1e-5;
    expect_close(conv_transpose1d(xt1.to(dt), wt1.to(dt), tb1.to(dt), 2, 1, 1, 2, 2), ref::conv_transpose1d, tol, tol,
                 "conv_transpose1d");
    const Tensor xt2 = seq({2, 4, 3, 4}, 0.23, 0.1).to(dt), wt2 = seq({4, 3, 3, 2}, 0.37, 0.2).to(dt),
                 tb2 = seq({6}, 0.6, 0.3).to(dt);
    const Tensor y2 = conv_transpose2d(xt2, wt2, tb2, {2, 1}, {1, 0}, {1, 0}, 2, {1, 2});
    EXPECT_EQ(y2.sizes(), IntArrayRef({2, 6, 6, 6}));
    expect_close(y2, ref::conv_transpose2d, tol, tol, "conv_transpose2d");
    expect_close(conv_transpose2d(xt2, seq({4, 2, 2, 2}, 0.3, 0.1).to(dt)), ref::conv_transpose2d_plain, tol, tol,
                 "conv_transpose2d plain");
    const Tensor xt3 = seq({1, 2, 2, 3, 2}, 0.31, 0.1).to(dt), wt3 = seq({2, 3, 2, 2, 2}, 0.47, 0.2).to(dt);
    expect_close(conv_transpose3d(xt3, wt3, {}, {2, 1, 2}, {0, 1, 0}, {1, 0, 0}, 1, 1), ref::conv_transpose3d, tol, tol,
                 "conv_transpose3d");
  }
  // Gradients of sum(y * v) against LibTorch's.
  const Tensor x = seq({2, 4, 3, 4}, 0.23, 0.1), w = seq({4, 3, 3, 2}, 0.37, 0.2), b = seq({6}, 0.6, 0.3);
  auto f = [](const VL& t) { return conv_transpose2d(t[0], t[1], t[2], {2, 1}, {1, 0}, {1, 0}, 2, {1, 2}); };
  const auto g = grads(f, {x, w, b}, seq({2, 6, 6, 6}, 0.11, 0.3));
  expect_close(g[0], ref::ct2_gx, 1e-10, 1e-12, "d/dx");
  expect_close(g[1], ref::ct2_gw, 1e-10, 1e-12, "d/dw");
  expect_close(g[2], ref::ct2_gb, 1e-10, 1e-12, "d/db");
}

TEST(NNConv, Conv1dEqualsConv2dWithAUnitDimension) {
  const Tensor x = seq({2, 4, 9}, 0.37, 0.1), w = seq({6, 2, 3}, 0.71, 0.2), b = seq({6}, 0.5, 0.3);
  const Tensor v = seq({2, 6, 4}, 0.3, 0.3);
  for (ScalarType dt : {kFloat64, kFloat32}) {
    auto one = [](const VL& t) { return conv1d(t[0], t[1], t[2], 2, 1, 2, 2); };
    auto two = [](const VL& t) {
      return conv2d(t[0].unsqueeze(2), t[1].unsqueeze(2), t[2], {1, 2}, std::vector<int64_t>{0, 1}, {1, 2}, 2)
          .squeeze(2);
    };
    const VL in{x.to(dt), w.to(dt), b.to(dt)};
    const double tol = dt == kFloat64 ? 1e-13 : 1e-5;
    expect_close(one(in), values(two(in)), tol, tol, "values");
    const auto ga = grads(one, in, v.to(dt)), gb = grads(two, in, v.to(dt));
    for (size_t i = 0; i < 3; ++i) expect_close(ga[i], values(gb[i]), tol, tol, "gradient " + std::to_string(i));
  }
}

TEST(NNConv, Conv3dWithUnitDepthEqualsConv2d) {
  const Tensor x = seq({2, 3, 6, 5}, 0.21, 0.1), w = seq({4, 3, 3, 2}, 0.33, 0.2);
  for (ScalarType dt : {kFloat64, kFloat32}) {
    const double tol = dt == kFloat64 ? 1e-13 : 1e-5;
    expect_close(conv3d(x.to(dt).unsqueeze(2), w.to(dt).unsqueeze(2), {}, {1, 2, 1}, {0, 1, 1}).squeeze(2),
                 values(conv2d(x.to(dt), w.to(dt), {}, {2, 1}, {1, 1})), tol, tol);
  }
}

TEST(NNConv, TransposedIsTheAdjointOfConv) {
  // <conv_transpose(x, w), y> = <x, conv(y, w)> for every stride, padding, dilation and groups.
  const Tensor w = seq({4, 3, 3, 2}, 0.37, 0.2);
  const Tensor x = seq({2, 4, 3, 4}, 0.23, 0.1);
  const Tensor y = conv_transpose2d(x, w, {}, {2, 1}, {1, 0}, {1, 0}, 2, {1, 2});
  const Tensor r = seq(std::vector<int64_t>(y.sizes().begin(), y.sizes().end()), 0.17, 0.4);
  const Tensor lhs = (y * r).sum(), rhs = (x * conv2d(r, w, {}, {2, 1}, {1, 0}, {1, 2}, 2)).sum();
  EXPECT_NEAR(lhs.item<double>(), rhs.item<double>(), 1e-11);
}

TEST(NNConv, OutputPaddingBeyondStrideWithDilation) {
  // output_padding may reach the dilation when it exceeds the stride (PyTorch): the float32
  // (oneDNN) and float64 paths agree.
  const Tensor x = seq({1, 2, 4, 3}, 0.3, 0.1), w = seq({2, 3, 2, 2}, 0.5, 0.2);
  const Tensor y64 = conv_transpose2d(x, w, {}, 1, 0, 1, 1, 2);
  const Tensor y32 = conv_transpose2d(x.to(kFloat32), w.to(kFloat32), {}, 1, 0, 1, 1, 2);
  EXPECT_EQ(y64.sizes(), IntArrayRef({1, 3, 7, 6}));
  expect_close(y32, values(y64), 1e-5, 1e-5);
  EXPECT_TRUE(autograd::gradcheck([](const VL& t) { return conv_transpose2d(t[0], t[1], {}, 1, 0, 1, 1, 2); },
                                  {req(x), req(w)}));
}

TEST(NNConv, Gradcheck) {
  EXPECT_TRUE(
      autograd::gradcheck([](const VL& t) { return conv1d(t[0], t[1], t[2], 2, 1, 2, 2); },
                          {req(seq({2, 4, 7}, 0.37, 0.1)), req(seq({6, 2, 3}, 0.71, 0.2)), req(seq({6}, 0.5, 0.3))}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const VL& t) {
        return conv3d(t[0], t[1], t[2], {1, 2, 1}, {1, 0, 1}, {1, 1, 2}, 2);
      },
      {req(seq({1, 4, 3, 4, 3}, 0.13, 0.1)), req(seq({2, 2, 2, 2, 2}, 0.29, 0.4)), req(seq({2}, 0.9, 0.3))}));
  EXPECT_TRUE(
      autograd::gradcheck([](const VL& t) { return conv_transpose1d(t[0], t[1], t[2], 2, 1, 1, 2, 2); },
                          {req(seq({2, 4, 5}, 0.41, 0.1)), req(seq({4, 3, 3}, 0.57, 0.2)), req(seq({6}, 0.8, 0.3))}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const VL& t) {
        return conv_transpose3d(t[0], t[1], t[2], {2, 1, 2}, {0, 1, 0}, {1, 0, 0}, 1, 1);
      },
      {req(seq({1, 2, 2, 3, 2}, 0.31, 0.1)), req(seq({2, 3, 2, 2, 2}, 0.47, 0.2)), req(seq({3}, 0.8, 0.3))}));
  // Double backward through the transposed convolution.
  EXPECT_TRUE(autograd::gradgradcheck([](const VL& t) { return conv_transpose2d(t[0], t[1], {}, 2, 1, 1, 1, 1); },
                                      {req(seq({1, 2, 3, 3}, 0.23, 0.1)), req(seq({2, 2, 3, 3}, 0.37, 0.2))}));
}

TEST(NNConv, Errors) {
  const Tensor x = ones({1, 4, 5}), w = ones({2, 4, 3});
  EXPECT_EQ(error_of([&] {
              conv1d(ones({1, 4, 5, 5}), w);
            }),
            "[conv1d] argument 'input': expected a 2-D (unbatched) or 3-D (batched) input, got shape [1, 4, 5, 5]");
  EXPECT_EQ(error_of([&] {
              conv1d(x, ones({2, 4, 3, 3}));
            }),
            "[conv1d] argument 'weight': expected a 3-D weight (out_channels, in_channels / groups, kernel...), got "
            "shape [2, 4, 3, 3]");
  EXPECT_EQ(error_of([&] {
              conv1d(x, w, {}, {1, 1});
            }),
            "[conv1d] argument 'stride': expected a single int, got [1, 1]");
  EXPECT_EQ(error_of([&] {
              conv3d(ones({1, 4, 5, 5, 5}), ones({2, 4, 3, 3, 3}), {}, {1, 1});
            }),
            "[conv3d] argument 'stride': expected a single int or a tuple of three ints, got [1, 1]");
  EXPECT_EQ(error_of([&] {
              conv1d(x, ones({2, 4, 7}));
            }),
            "[convolution] kernel size (dilated) 7 can't be greater than the padded input size 5 (input [1, 4, 5], "
            "padding [0])");
  EXPECT_EQ(error_of([&] {
              conv_transpose2d(ones({1, 4, 3, 3}), ones({3, 2, 3, 3}));
            }),
            "[convolution] expected input [1, 4, 3, 3] to have 3 channels (weight [3, 2, 3, 3]'s in_channels, "
            "transposed), but got 4 channels");
  EXPECT_EQ(error_of([&] {
              conv_transpose2d(ones({1, 4, 3, 3}), ones({4, 2, 3, 3}), {}, 1, 0, 1);
            }),
            "[convolution] argument 'output_padding': expected non-negative values smaller than either stride or "
            "dilation, got output_padding [1, 1] with stride [1, 1] and dilation [1, 1]");
  EXPECT_EQ(error_of([&] {
              conv_transpose2d(ones({1, 3, 3, 3}), ones({3, 2, 3, 3}), {}, 1, 0, 0, 2);
            }),
            "[convolution] expected in_channels (3, weight shape [3, 2, 3, 3]) to be divisible by groups (2)");
  EXPECT_EQ(error_of([&] {
              conv_transpose2d(ones({1, 4, 1, 1}), ones({4, 2, 1, 1}), {}, 1, 1);
            }),
            "[convolution] the output size -1x-1 of the transposed convolution is too small (input [1, 4, 1, 1], "
            "weight [4, 2, 1, 1], stride [1, 1], padding [1, 1])");
  EXPECT_EQ(error_of([&] {
              conv_transpose1d(x, ones({4, 2, 3}), ones({3}));
            }),
            "[convolution] argument 'bias': expected a 1-D tensor of out_channels=2 elements, got shape [3]");
}

// ---- normalization ------------------------------------------------------------------------------

const Tensor& norm_input() {
  static const Tensor x = seq({2, 4, 3, 2}, 0.53, 0.2) * 2 + 0.5;
  return x;
}

TEST(NNNorm, InstanceNormMatchesLibTorch) {
  const Tensor& x = norm_input();
  const Tensor w = seq({4}, 0.9, 1.0) + 1, b = seq({4}, 0.4, 0.3);
  expect_close(instance_norm(x, w, b, {}, {}, true, 0.1, 1e-5, false), ref::instance_norm);
  Tensor rm = zeros({4}, kFloat64) + 0.1, rv = ones({4}, kFloat64) * 2;
  expect_close(instance_norm(x, w, b, rm, rv, true, 0.3, 1e-5, false), ref::instance_norm_rs);
  expect_close(rm, ref::instance_norm_rm);
  expect_close(rv, ref::instance_norm_rv);
  expect_close(instance_norm(x, w, b, rm, rv, false, 0.3, 1e-5, false), ref::instance_norm_eval);
  EXPECT_EQ(error_of([&] { instance_norm(x, w, b, {}, {}, false, 0.1, 1e-5, false); }),
            "[instance_norm] expected running_mean and running_var to be defined when use_input_stats is false");
  EXPECT_EQ(error_of([&] { instance_norm(x, ones({3}, kFloat64), b, {}, {}, true, 0.1, 1e-5, false); }),
            "[instance_norm] argument 'weight': expected a 1-D tensor of 4 elements (the input's channels), got "
            "shape [3] for input [2, 4, 3, 2]");
}

TEST(NNNorm, GroupNormMatchesLibTorch) {
  const Tensor& x = norm_input();
  const Tensor w = seq({4}, 0.9, 1.0) + 1, b = seq({4}, 0.4, 0.3);
  expect_close(group_norm(x, 2, w, b), ref::group_norm);
  expect_close(group_norm(x.view({2, 4, 6}), 4, {}, {}, 1e-3), ref::group_norm_noaffine);
  EXPECT_EQ(error_of([&] { group_norm(x, 3, w, b); }),
            "[group_norm] expected the number of channels of input [2, 4, 3, 2] to be divisible by num_groups, got "
            "num_groups=3");
  EXPECT_EQ(error_of([&] { group_norm(x, 2, ones({3}, kFloat64), b); }),
            "[group_norm] argument 'weight': expected a 1-D tensor of 4 elements (the input's channels), got shape [3] "
            "for input [2, 4, 3, 2]");
}

TEST(NNNorm, InstanceNormEqualsGroupNormWithAGroupPerChannel) {
  // instance_norm runs the batch_norm kernel; group_norm is composed of reductions: one group per
  // channel makes them the same function.
  const Tensor& x = norm_input();
  const Tensor w = seq({4}, 0.9, 1.0) + 1, b = seq({4}, 0.4, 0.3), v = seq({2, 4, 3, 2}, 0.77, 0.3);
  auto inst = [](const VL& t) { return instance_norm(t[0], t[1], t[2], {}, {}, true, 0.1, 1e-5, false); };
  auto grp = [](const VL& t) { return group_norm(t[0], 4, t[1], t[2]); };
  for (ScalarType dt : {kFloat64, kFloat32}) {
    const double tol = dt == kFloat64 ? 1e-12 : 1e-5;
    const VL in{x.to(dt), w.to(dt), b.to(dt)};
    expect_close(inst(in), values(grp(in)), tol, tol, "values");
    const auto ga = grads(inst, in, v.to(dt)), gb = grads(grp, in, v.to(dt));
    for (size_t i = 0; i < 3; ++i) expect_close(ga[i], values(gb[i]), tol, tol, "gradient " + std::to_string(i));
  }
}

TEST(NNNorm, GroupNormWithOneGroupEqualsLayerNorm) {
  // One group: layer_norm (its CPU kernel) over every dimension but the batch.
  const Tensor& x = norm_input();
  const Tensor v = seq({2, 4, 3, 2}, 0.77, 0.3);
  auto grp = [](const VL& t) { return group_norm(t[0], 1); };
  auto ln = [](const VL& t) { return layer_norm(t[0], {4, 3, 2}); };
  expect_close(grp({x}), values(ln({x})), 1e-12, 1e-12);
  expect_close(grads(grp, {x}, v)[0], values(grads(ln, {x}, v)[0]), 1e-12, 1e-12);
}

TEST(NNNorm, Gradcheck) {
  const Tensor x = norm_input().slice(1, 0, 4).slice(2, 0, 2);
  const Tensor w = seq({4}, 0.9, 1.0) + 1, b = seq({4}, 0.4, 0.3);
  EXPECT_TRUE(
      autograd::gradcheck([](const VL& t) { return instance_norm(t[0], t[1], t[2], {}, {}, true, 0.1, 1e-5, false); },
                          {req(x), req(w), req(b)}));
  EXPECT_TRUE(
      autograd::gradcheck([](const VL& t) { return group_norm(t[0], 2, t[1], t[2]); }, {req(x), req(w), req(b)}));
  EXPECT_TRUE(
      autograd::gradgradcheck([](const VL& t) { return group_norm(t[0], 2, t[1], t[2]); }, {req(x), req(w), req(b)}));
}

// ---- embedding_bag ------------------------------------------------------------------------------

struct Bags {
  Tensor w = seq({10, 3}, 0.61, 0.2);
  Tensor idx = tensor({1, 2, 4, 5, 4, 3, 2, 9});
  Tensor off = tensor({0, 3, 3, 5});  // bags [1 2 4], [], [5 4], [3 2 9]
  Tensor psw = seq({8}, 0.9, 0.4);
};

TEST(NNEmbeddingBag, MatchesLibTorch) {
  const Bags b;
  const std::vector<double>* outs[] = {&ref::eb_out_mode0, &ref::eb_out_mode1, &ref::eb_out_mode2};
  const std::vector<double>* last_pad[] = {&ref::eb_last_pad4_mode0, &ref::eb_last_pad4_mode1,
                                           &ref::eb_last_pad4_mode2};
  for (int64_t mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE("mode " + std::to_string(mode));
    const auto [out, offset2bag, bag_size, max_indices] =
        embedding_bag(b.w, b.idx, b.off, false, mode, false, mode == 0 ? std::optional<Tensor>(b.psw) : std::nullopt);
    expect_close(out, *outs[mode]);
    expect_close(offset2bag, ref::eb_offset2bag_mode0);
    EXPECT_EQ(offset2bag.scalar_type(), kInt64);
    if (mode > 0) expect_close(bag_size, ref::eb_bag_size_mode1);
    if (mode == 2) expect_close(max_indices, ref::eb_max_indices_mode2);
    // include_last_offset and padding_idx 4 (left out of every bag).
    const auto r = embedding_bag(b.w, b.idx, tensor({0, 3, 3, 5, 8}), false, mode, false, std::nullopt, true, 4);
    expect_close(std::get<0>(r), *last_pad[mode]);
  }
  // padding left out of the counts (mean mode); sum mode does not count at all, as LibTorch.
  expect_close(std::get<2>(embedding_bag(b.w, b.idx, b.off, false, 1, false, std::nullopt, false, 4)), {2, 0, 1, 3});
  expect_close(std::get<2>(embedding_bag(b.w, b.idx, b.off, false, 0, false, std::nullopt, false, 4)), {0, 0, 0, 0});
}

TEST(NNEmbeddingBag, GradientsMatchLibTorch) {
  const Bags b;
  const Tensor v = seq({4, 3}, 0.3, 0.2);
  auto sum_mode = [&](const VL& t) { return std::get<0>(embedding_bag(t[0], b.idx, b.off, false, 0, false, t[1])); };
  expect_close(grads(sum_mode, {b.w, b.psw}, v)[0], ref::eb_gw);
  auto max_mode = [&](const VL& t) { return std::get<0>(embedding_bag(t[0], b.idx, b.off, false, 2, false)); };
  expect_close(grads(max_mode, {b.w}, v)[0], ref::eb_max_gw);
  for (int64_t mode = 0; mode < 3; ++mode) {
    EXPECT_TRUE(autograd::gradcheck(
        [&](const VL& t) { return std::get<0>(embedding_bag(t[0], b.idx, b.off, false, mode, false)); }, {req(b.w)}));
  }
  EXPECT_TRUE(autograd::gradcheck(sum_mode, {req(b.w), req(b.psw)}));
}

TEST(NNEmbeddingBag, ScaleGradByFreqDividesByTheCount) {
  const Bags b;  // index 4 appears twice, 2 twice
  Tensor w = req(b.w);
  std::get<0>(embedding_bag(w, b.idx, b.off, true, 0, false)).sum().backward();
  Tensor want = zeros({10, 3}, kFloat64);
  for (int64_t i : {1, 2, 4, 5, 3, 9}) want.select(0, i).fill_(1.0);
  expect_close(w.grad(), values(want));
  // Values are unchanged.
  expect_close(std::get<0>(embedding_bag(b.w, b.idx, b.off, true, 1, false)), ref::eb_out_mode1);
}

TEST(NNEmbeddingBag, Errors) {
  const Bags b;
  EXPECT_EQ(error_of([&] { embedding_bag(b.w, b.idx, b.off, false, 1, false, b.psw); }),
            "[embedding_bag] per_sample_weights is only supported with mode 0 (sum), got mode 1");
  EXPECT_EQ(error_of([&] {
              embedding_bag(b.w, b.idx, tensor({1, 3}), false, 0, false);
            }),
            "[embedding_bag] offsets[0] has to be 0, i.e. the first bag has to start at position 0 of indices, got 1");
  EXPECT_EQ(error_of([&] {
              embedding_bag(b.w, b.idx, tensor({0, 9}), false, 0, false);
            }),
            "[embedding_bag] offsets[-1] can not be greater than the length of indices (8), got 9");
  EXPECT_EQ(error_of([&] {
              embedding_bag(b.w, b.idx, tensor({0, 5, 3}), false, 0, false);
            }),
            "[embedding_bag] argument 'offsets': expected non-decreasing values");
  EXPECT_EQ(error_of([&] {
              embedding_bag(b.w, b.idx.view({2, 4}), b.off, false, 0, false);
            }),
            "[embedding_bag] argument 'indices': expected a 1-D tensor, got shape [2, 4]");
  EXPECT_EQ(error_of([&] { embedding_bag(b.w, b.idx, b.off, false, 3, false); }),
            "[embedding_bag] argument 'mode': expected 0 (sum), 1 (mean) or 2 (max), got 3");
  EXPECT_EQ(error_of([&] {
              embedding_bag(b.w, tensor({1, 10}), tensor({0}), false, 0, false);
            }),
            "[embedding_bag] index 10 is out of range for a weight of 10 rows");
  EXPECT_EQ(error_of([&] { embedding_bag(b.w, b.idx, b.off, true, 2, false); }),
            "[embedding_bag] max mode does not support scaling the gradient by the frequency (scale_grad_by_freq)");
  EXPECT_EQ(error_of([&] { embedding_bag(b.w, b.idx, b.off, false, 0, true); }),
            "[embedding_bag] sparse=True (a sparse weight gradient) is not implemented: Ember's autograd produces "
            "dense gradients");
  EXPECT_EQ(error_of([&] { embedding_bag(b.w, b.idx, b.off, false, 0, false, std::nullopt, false, 10); }),
            "[embedding_bag] argument 'padding_idx': expected a value in [-10, 10) (weight's rows), got 10");
}

// ---- distances ---------------------------------------------------------------------------------

TEST(NNDistance, MatchLibTorch) {
  const Tensor d1 = seq({3, 5}, 0.7, 0.1), d2 = seq({3, 5}, 0.31, 0.9), d3 = seq({3, 5}, 0.9, 1.3);
  expect_close(cosine_similarity(d1, d2), ref::cos);
  expect_close(cosine_similarity(d1, d2.select(0, 1), 0), ref::cos_dim0_bcast);
  expect_close(cosine_similarity(zeros({2, 3}, kFloat64), d1.slice(0, 0, 2).slice(1, 0, 3)), ref::cos_zero);
  expect_close(pairwise_distance(d1, d2), ref::pdist);
  const Tensor keep = pairwise_distance(d1, d2, 1, 1e-6, true);
  EXPECT_EQ(keep.sizes(), IntArrayRef({3, 1}));
  expect_close(keep, ref::pdist_p1_keep);
  expect_close(pairwise_distance(d1, d2.select(0, 2), 3), ref::pdist_p3);
  expect_close(pairwise_distance(d1, d2, std::numeric_limits<double>::infinity()), ref::pdist_inf);
  const std::vector<double>* plain[] = {&ref::triplet_r0, &ref::triplet_r1, &ref::triplet_r2};
  const std::vector<double>* swapped[] = {&ref::triplet_swap_r0, &ref::triplet_swap_r1, &ref::triplet_swap_r2};
  for (int64_t r = 0; r < 3; ++r) {
    expect_close(triplet_margin_loss(d1, d2, d3, 1.0, 2, 1e-6, false, r), *plain[r]);
    expect_close(triplet_margin_loss(d1, d2, d3, 0.5, 1, 1e-6, true, r), *swapped[r]);
  }
  EXPECT_EQ(error_of([&] { triplet_margin_loss(d1, d2, d3.select(0, 0)); }),
            "[triplet_margin_loss] expected anchor, positive and negative to have the same number of dimensions, got "
            "2-D, 2-D and 1-D");
  EXPECT_EQ(error_of([&] { cosine_similarity(d1, d2, 2); }),
            "[cosine_similarity] argument 'dim': expected a value in [-2, 2), got 2");
}

TEST(NNDistance, Gradcheck) {
  const Tensor d1 = seq({3, 5}, 0.7, 0.1), d2 = seq({3, 5}, 0.31, 0.9), d3 = seq({3, 5}, 0.9, 1.3);
  EXPECT_TRUE(autograd::gradcheck([](const VL& t) { return cosine_similarity(t[0], t[1]); }, {req(d1), req(d2)}));
  EXPECT_TRUE(autograd::gradcheck([](const VL& t) { return cosine_similarity(t[0], t[1], 0); },
                                  {req(d1), req(d2.select(0, 1))}));
  EXPECT_TRUE(autograd::gradcheck([](const VL& t) { return pairwise_distance(t[0], t[1], 3); }, {req(d1), req(d2)}));
  for (int64_t r : {0, 1, 2})
    EXPECT_TRUE(
        autograd::gradcheck([r](const VL& t) { return triplet_margin_loss(t[0], t[1], t[2], 1.0, 2, 1e-6, true, r); },
                            {req(d1), req(d2), req(d3)}));
}

}  // namespace
}  // namespace ember::nntest
