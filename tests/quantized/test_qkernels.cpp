// QuantizedCPU kernels: relu, cat, the pools and flatten, against the float kernels on the
// dequantized input (within one quantization step) and LibTorch's values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"
#include "ember/quantized.h"

using namespace ember;

namespace {

using ember::test::error_of;

// |a - b| <= tol elementwise (both float32 after dequantize).
void expect_close(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.sizes(), b.sizes());
  Tensor x = a.contiguous(), y = b.contiguous();
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_LE(std::abs(x.data_ptr<float>()[i] - y.data_ptr<float>()[i]), tol) << "at " << i;
}

Tensor qinput(std::vector<int64_t> sizes, double scale = 0.05, int64_t zp = 64) {
  manual_seed(7);
  return quantize_per_tensor(randn(sizes), scale, zp, kQUInt8);
}

}  // namespace

TEST(QuantizedKernels, ReluClampsAtTheZeroPoint) {
  Tensor q = quantize_per_tensor(ember::tensor({-1.0f, 0.0f, 0.05f, 1.0f}), 0.1, 10, kQUInt8);
  Tensor r = relu(q);
  EXPECT_TRUE(r.is_quantized());
  EXPECT_EQ(r.q_zero_point(), 10);
  Tensor ir = r.int_repr();
  EXPECT_EQ(ir.data_ptr<uint8_t>()[0], 10);
  EXPECT_EQ(ir.data_ptr<uint8_t>()[3], 20);
  EXPECT_EQ(q.int_repr().data_ptr<uint8_t>()[0], 0);  // the input is unchanged
  relu_(q);
  EXPECT_EQ(q.int_repr().data_ptr<uint8_t>()[0], 10);
  Tensor big = qinput({4, 5});
  expect_close(relu(big).dequantize(), relu(big.dequantize()), 1e-6);
  // A channels-last input (a quantized conv's output) stays channels-last, in place or not.
  Tensor cl = qinput({2, 3, 4, 5}).permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  Tensor rc = relu(cl);
  EXPECT_EQ(rc.strides(), cl.strides());
  expect_close(rc.dequantize(), relu(cl.dequantize()), 1e-6);
  relu_(cl);
  expect_close(cl.dequantize(), rc.dequantize(), 0);
}

TEST(QuantizedKernels, CatSharesTheQuantizer) {
  Tensor a = qinput({2, 3}), b = quantize_per_tensor(ones({1, 3}), 0.05, 64, kQUInt8);
  Tensor c = cat({a, b}, 0);
  EXPECT_TRUE(c.is_quantized());
  EXPECT_EQ(c.sizes(), IntArrayRef({3, 3}));
  EXPECT_DOUBLE_EQ(c.q_scale(), 0.05);
  expect_close(c.dequantize(), cat({a.dequantize(), b.dequantize()}, 0), 0);
  Tensor other = quantize_per_tensor(ones({1, 3}), 0.1, 64, kQUInt8);
  const std::string e = error_of([&] { cat({a, other}, 0); });
  EXPECT_NE(e.find("[cat] all inputs should share the same quantization parameters; tensor 1 differs"),
            std::string::npos)
      << e;
}

TEST(QuantizedKernels, PoolsMatchTheFloatReferenceWithinOneStep) {
  Tensor x = qinput({2, 3, 8, 8});
  const Tensor xf = x.dequantize();
  Tensor mp = max_pool2d(x, {2, 2});
  EXPECT_TRUE(mp.is_quantized());
  EXPECT_EQ(mp.sizes(), IntArrayRef({2, 3, 4, 4}));
  expect_close(mp.dequantize(), max_pool2d(xf, {2, 2}), 1e-6);  // exact: max commutes with dequantize
  Tensor ap = avg_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  EXPECT_EQ(ap.q_zero_point(), 64);
  expect_close(ap.dequantize(), avg_pool2d(xf, {3, 3}, {2, 2}, {1, 1}), 0.05 / 2 + 1e-6);
  Tensor aap = adaptive_avg_pool2d(x, {3, 3});
  expect_close(aap.dequantize(), adaptive_avg_pool2d(xf, {3, 3}), 0.05 / 2 + 1e-6);
  Tensor f = x.flatten(1);
  EXPECT_TRUE(f.is_quantized());
  EXPECT_EQ(f.sizes(), IntArrayRef({2, 192}));
  expect_close(f.dequantize(), xf.flatten(1), 0);
}

TEST(QuantizedKernels, AddAndMulRequantizeAsLibTorch) {
  Tensor a = quantize_per_tensor(ember::tensor({-1.0f, 0.3f, 0.55f, 2.0f, 5.0f, -0.2f}), 0.05, 64, kQUInt8);
  Tensor b = quantize_per_tensor(ember::tensor({0.5f, -0.35f, 0.05f, 1.0f, 4.0f, -0.3f}), 0.1, 3, kQUInt8);
  auto ints = [](const Tensor& q) {
    Tensor r = q.int_repr();
    return std::vector<int64_t>(r.data_ptr<uint8_t>(), r.data_ptr<uint8_t>() + r.numel());
  };
  Tensor s = quantized::add(a, b, 0.1, 20);
  EXPECT_DOUBLE_EQ(s.q_scale(), 0.1);
  EXPECT_EQ(s.q_zero_point(), 20);
  EXPECT_EQ(ints(s), (std::vector<int64_t>{15, 20, 26, 50, 110, 15}));
  EXPECT_EQ(ints(quantized::add_relu(a, b, 0.1, 20)), (std::vector<int64_t>{20, 20, 26, 50, 110, 20}));
  // -0.5 * 5 rounds to -3 here: LibTorch multiplies the integers and rescales by sa * sb / s.
  EXPECT_EQ(ints(quantized::mul(a, b, 0.2, 10)), (std::vector<int64_t>{7, 10, 10, 20, 110, 10}));
  Tensor x = qinput({3, 4}), y = qinput({3, 4}, 0.02, 100);
  expect_close(quantized::add(x, y, 0.1, 50).dequantize(), x.dequantize() + y.dequantize(), 0.05 + 1e-6);
  expect_close(quantized::mul(x, y, 0.1, 50).dequantize(), x.dequantize() * y.dequantize(), 0.05 + 1e-6);
  const std::string e = error_of([&] { quantized::add(a, quantize_per_tensor(ones({6}), 0.1, 3, kQInt8), 0.1, 0); });
  EXPECT_NE(e.find("[quantized::add] both inputs must have the same dtype, got quint8 and qint8"), std::string::npos)
      << e;
}

TEST(QuantizedKernels, LinearMatchesTheFloatReferenceWithinOneStep) {
  manual_seed(3);
  Tensor xf = randn({5, 7, 33});
  Tensor wf = randn({17, 33}) * 0.2;
  Tensor b = randn({17});
  Tensor x = quantize_per_tensor(xf, 0.03, 120, kQUInt8);
  Tensor w = quantize_per_tensor(wf, 0.01, 0, kQInt8);
  const double ys = 0.08;
  Tensor ref = ember::linear(x.dequantize(), w.dequantize(), b);
  Tensor y = quantized::linear(x, w, b, ys, 100);
  EXPECT_EQ(y.sizes(), IntArrayRef({5, 7, 17}));
  EXPECT_EQ(y.dtype(), kQUInt8);
  EXPECT_DOUBLE_EQ(y.q_scale(), ys);
  expect_close(y.dequantize(), ref.clamp(-100 * ys, 155 * ys), ys / 2 + 1e-4);
  // Per-channel weights, no bias, fused relu; the second call reuses the packed weight.
  Tensor wc = quantize_per_channel(wf, ember::linspace(0.005, 0.02, 17).to(kFloat64), zeros({17}, kInt64), 0, kQInt8);
  Tensor refc = relu(ember::linear(x.dequantize(), wc.dequantize(), std::nullopt));
  for (int i = 0; i < 2; ++i)
    expect_close(quantized::linear_relu(x, wc, std::nullopt, ys, 100).dequantize(), refc.clamp(std::nullopt, 155 * ys),
                 ys / 2 + 1e-4);
  const std::string e = error_of([&] { quantized::linear(x, quantize_per_tensor(wf, 0.01, 3, kQInt8), b, ys, 100); });
  EXPECT_NE(e.find("[quantized::linear] weights with a nonzero zero point"), std::string::npos) << e;
  const std::string e2 = error_of([&] { quantized::linear(x, w.t(), b, ys, 100); });
  EXPECT_NE(e2.find("[quantized::linear] expected W of shape (N, 33)"), std::string::npos) << e2;
  // A square weight and its transpose share storage and offset: each gets its own packed copy.
  Tensor sq = quantize_per_tensor(randn({33, 33}) * 0.2, 0.01, 0, kQInt8);
  for (const Tensor& ws : {sq, sq.t(), sq})
    expect_close(quantized::linear(x, ws, std::nullopt, ys, 100).dequantize(),
                 ember::linear(x.dequantize(), ws.dequantize()).clamp(-100 * ys, 155 * ys), ys / 2 + 1e-4);
  // K = 0: an empty sum, so Y is the quantized bias (relu-clamped for linear_relu).
  Tensor x0 = quantize_per_tensor(zeros({2, 0}), 0.03, 120, kQUInt8);
  Tensor w0 = quantize_per_tensor(zeros({17, 0}), 0.01, 0, kQInt8);
  expect_close(quantized::linear(x0, w0, b, ys, 100).dequantize(), b.expand({2, 17}).clamp(-100 * ys, 155 * ys),
               ys / 2 + 1e-4);
  expect_close(quantized::linear_relu(x0, w0, b, ys, 100).dequantize(), relu(b).expand({2, 17}).clamp(0, 155 * ys),
               ys / 2 + 1e-4);
}

TEST(QuantizedKernels, Conv2dMatchesTheFloatReferenceWithinOneStep) {
  manual_seed(5);
  Tensor xf = randn({2, 5, 9, 11});
  Tensor wf = randn({6, 5, 3, 3}) * 0.2;
  Tensor b = randn({6});
  Tensor x = quantize_per_tensor(xf, 0.03, 120, kQUInt8);  // zero point far from 0: padding must use it
  Tensor w = quantize_per_tensor(wf, 0.01, 0, kQInt8);
  const double ys = 0.1;
  Tensor ref = ember::conv2d(x.dequantize(), w.dequantize(), b, {2, 1}, {1, 2});
  Tensor y = quantized::conv2d(x, w, b, {2, 1}, {1, 2}, {1, 1}, 1, ys, 100);
  EXPECT_EQ(y.sizes(), ref.sizes());
  EXPECT_EQ(y.q_zero_point(), 100);
  expect_close(y.dequantize(), ref.clamp(-100 * ys, 155 * ys), ys / 2 + 1e-4);
  Tensor wc = quantize_per_channel(wf, ember::linspace(0.005, 0.02, 6).to(kFloat64), zeros({6}, kInt64), 0, kQInt8);
  Tensor refc = relu(ember::conv2d(x.dequantize(), wc.dequantize(), std::nullopt, 1, 1, 2));
  expect_close(quantized::conv2d_relu(x, wc, std::nullopt, {1, 1}, {1, 1}, {2, 2}, 1, ys, 100).dequantize(),
               refc.clamp(std::nullopt, 155 * ys), ys / 2 + 1e-4);
  const std::string e = error_of([&] { quantized::conv2d(x, w, b, {1, 1}, {1, 1}, {1, 1}, 2, ys, 100); });
  EXPECT_NE(e.find("[quantized::conv2d] expected groups to be positive and divide X's 5 channels, got 2"),
            std::string::npos)
      << e;
}

TEST(QuantizedKernels, Conv2dGroupsAndDepthwiseMatchTheFloatReference) {
  manual_seed(11);
  Tensor xf = randn({2, 6, 8, 7});
  Tensor b = randn({9});
  Tensor x = quantize_per_tensor(xf, 0.04, 30, kQUInt8);
  const double ys = 0.07;
  // groups=3: 6 -> 9 channels, per-channel weights, padding that oneDNN fills with X's zero point.
  Tensor wf = randn({9, 2, 3, 2}) * 0.3;
  Tensor w = quantize_per_channel(wf, ember::linspace(0.004, 0.012, 9).to(kFloat64), zeros({9}, kInt64), 0, kQInt8);
  Tensor ref = ember::conv2d(x.dequantize(), w.dequantize(), b, {1, 2}, {2, 1}, {1, 1}, 3);
  Tensor y = quantized::conv2d(x, w, b, {1, 2}, {2, 1}, {1, 1}, 3, ys, 40);
  expect_close(y.dequantize(), ref.clamp(-40 * ys, 215 * ys), ys / 2 + 1e-4);
  // Depthwise with a channel multiplier of 1 and fused relu: relu clamps at the output zero point.
  Tensor wd = quantize_per_tensor(randn({6, 1, 3, 3}) * 0.3, 0.01, 0, kQInt8);
  Tensor refd = relu(ember::conv2d(x.dequantize(), wd.dequantize(), std::nullopt, 1, 1, 1, 6));
  Tensor yd = quantized::conv2d_relu(x, wd, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 6, ys, 40);
  EXPECT_EQ(yd.sizes(), IntArrayRef({2, 6, 8, 7}));
  expect_close(yd.dequantize(), refd.clamp(std::nullopt, 215 * ys), ys / 2 + 1e-4);
  EXPECT_EQ(yd.int_repr().min().item<int64_t>(), 40);  // some outputs are clamped by relu
  const std::string e = error_of([&] { quantized::conv2d(x, w, b, {1, 1}, {1, 1}, {1, 1}, 2, ys, 40); });
  EXPECT_NE(e.find("[quantized::conv2d] expected W of shape (OC, 3, KH, KW) with OC divisible by groups=2"),
            std::string::npos)
      << e;
  const std::string e3 = error_of([&] {
    quantized::conv2d(quantize_per_tensor(zeros({2, 6, 0, 7}), 0.04, 30, kQUInt8), w, b, {1, 1}, {1, 1}, {1, 1}, 3, ys,
                      40);
  });
  EXPECT_NE(e3.find("[quantized::conv2d] expected X with non-empty channels and spatial sizes, got [2, 6, 0, 7]"),
            std::string::npos)
      << e3;
  // A kernel one wider than the padded input, stride 2: (7 - 8) / 2 truncates to 0 in C++.
  const std::string e4 = error_of([&] {
    quantized::conv2d(x, quantize_per_tensor(randn({3, 6, 1, 8}), 0.01, 0, kQInt8), std::nullopt, {2, 2}, {0, 0},
                      {1, 1}, 1, ys, 40);
  });
  EXPECT_NE(e4.find("[quantized::conv2d] the output would be empty: the padded input 8x7 is smaller than the dilated "
                    "kernel"),
            std::string::npos)
      << e4;
  const std::string e2 = error_of([&] { quantized::conv2d(x, w, b, {1, 1}, {1, 1}, {1, 1}, 0, ys, 40); });
  EXPECT_NE(e2.find("[quantized::conv2d] expected groups to be positive and divide X's 6 channels, got 0"),
            std::string::npos)
      << e2;
}

TEST(QuantizedKernels, Conv2dTakesChannelsLastInputAndReturnsChannelsLast) {
  manual_seed(13);
  Tensor x = quantize_per_tensor(randn({3, 4, 6, 5}), 0.05, 200, kQUInt8);
  Tensor w1 = quantize_per_tensor(randn({8, 4, 3, 3}) * 0.2, 0.01, 0, kQInt8);
  Tensor w2 = quantize_per_tensor(randn({5, 8, 1, 1}) * 0.2, 0.02, 0, kQInt8);
  Tensor y1 = quantized::conv2d(x, w1, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 1, 0.1, 7);
  // NHWC memory with NCHW sizes.
  EXPECT_EQ(y1.sizes(), IntArrayRef({3, 8, 6, 5}));
  EXPECT_EQ(y1.strides(), IntArrayRef({240, 1, 40, 8}));
  // Chained: the channels-last input gives the same integers as its NCHW copy.
  Tensor y2 = quantized::conv2d(y1, w2, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1, 0.05, 120);
  Tensor y2c = quantized::conv2d(y1.contiguous(), w2, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1, 0.05, 120);
  EXPECT_TRUE(ember::equal(y2.int_repr(), y2c.int_repr()));
  Tensor ref = ember::conv2d(y1.dequantize(), w2.dequantize(), std::nullopt);
  expect_close(y2.dequantize(), ref.clamp(-120 * 0.05, 135 * 0.05), 0.05 / 2 + 1e-4);
  // Any other strides (here a non-contiguous slice) are copied, with the same result.
  Tensor xs = x.slice(3, 1, 5);
  expect_close(quantized::conv2d(xs, w1, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 1, 0.1, 7).dequantize(),
               ember::conv2d(xs.dequantize(), w1.dequantize(), std::nullopt, 1, 1).clamp(-0.7, 24.8), 0.05 + 1e-4);
}

namespace {

// The integers (37 * i + 11) % 256 of shape (2, 3, 7, 6), scale 0.1, zero point 3: NCHW, or the
// same values channels-last.
Tensor pool_input(bool channels_last) {
  Tensor ints = ember::empty({2, 3, 7, 6}, TensorOptions(kUInt8));
  for (int i = 0; i < 252; ++i) ints.data_ptr<uint8_t>()[i] = static_cast<uint8_t>((37 * i + 11) % 256);
  Tensor q = _make_per_tensor_quantized_tensor(ints, 0.1, 3);
  return channels_last ? q.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}) : q;
}

void expect_ints(const Tensor& q, IntArrayRef sizes, const std::vector<int>& want, bool channels_last) {
  ASSERT_EQ(q.sizes(), sizes);
  EXPECT_EQ(q.q_scale(), 0.1);
  EXPECT_EQ(q.q_zero_point(), 3);
  EXPECT_EQ(q.permute({0, 2, 3, 1}).is_contiguous(), channels_last);
  const Tensor r = q.int_repr().contiguous();
  ASSERT_EQ(r.numel(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < r.numel(); ++i)
    EXPECT_EQ(r.data_ptr<uint8_t>()[i], want[static_cast<size_t>(i)]) << "at " << i;
}

}  // namespace

// LibTorch 1.13's values (its NCHW and channels-last kernels round ties differently: Note
// [Quantized pools]).
TEST(QuantizedKernels, AvgPoolsRoundAsLibTorchInBothLayouts) {
  expect_ints(avg_pool2d(pool_input(false), {2, 2}), {2, 3, 3, 3},
              {76, 86,  160, 200, 82, 92,  132, 206, 88, 94,  104, 178, 218, 36,  110, 150, 160, 42,
               48, 122, 196, 172, 54, 128, 168, 178, 60, 66,  140, 214, 126, 72,  146, 186, 68,  78,
               84, 158, 168, 80,  90, 164, 204, 86,  96, 102, 176, 186, 98,  108, 182, 158, 40,  114},
              false);
  expect_ints(avg_pool2d(pool_input(true), {2, 2}), {2, 3, 3, 3},
              {77, 87,  161, 201, 83, 93,  133, 207, 89, 95,  105, 179, 219, 37,  111, 151, 161, 43,
               49, 123, 197, 173, 55, 129, 169, 179, 61, 67,  141, 215, 127, 73,  147, 187, 69,  79,
               85, 159, 169, 81,  91, 165, 205, 87,  97, 103, 177, 187, 99,  109, 183, 159, 41,  115},
              true);
  // Padding not counted, ceil mode.
  const std::vector<int> nchw = {76,  68,  142, 179, 175, 102, 91,  128, 150, 177, 108, 60,  98,  154, 185, 137,
                                 94,  86,  160, 197, 193, 92,  109, 146, 168, 138, 69,  78,  116, 172, 118, 27,
                                 48,  104, 178, 215, 126, 81,  127, 164, 186, 156, 87,  96,  134, 190, 136, 45,
                                 66,  122, 196, 233, 101, 71,  145, 182, 161, 88,  77,  114, 152, 165, 69,  63,
                                 84,  140, 171, 123, 76,  89,  163, 200, 179, 106, 95,  132, 170, 183, 87,  81,
                                 102, 158, 189, 141, 94,  107, 181, 218, 154, 67,  113, 150, 188, 116, 62,  99};
  const std::vector<int> cl = {77,  68,  142, 179, 175, 102, 91,  128, 149, 177, 108, 60,  99,  154, 185, 137,
                               95,  86,  160, 197, 193, 92,  109, 146, 167, 138, 69,  78,  117, 172, 118, 27,
                               49,  104, 178, 215, 125, 81,  127, 164, 185, 156, 87,  96,  135, 190, 136, 45,
                               67,  122, 196, 233, 101, 71,  145, 182, 161, 88,  77,  114, 153, 165, 69,  63,
                               85,  140, 171, 123, 76,  89,  163, 200, 179, 106, 95,  132, 171, 183, 87,  81,
                               103, 158, 189, 141, 94,  107, 181, 218, 154, 67,  113, 150, 189, 116, 62,  99};
  expect_ints(avg_pool2d(pool_input(false), {3, 3}, {2, 2}, {1, 1}, true, false), {2, 3, 4, 4}, nchw, false);
  expect_ints(avg_pool2d(pool_input(true), {3, 3}, {2, 2}, {1, 1}, true, false), {2, 3, 4, 4}, cl, true);
  // 48 planes (the 6 above, 8 times over) take the transposed-block path, with the NCHW rounding.
  const Tensor x8 = cat(std::vector<Tensor>(8, pool_input(false)), 1);
  const Tensor y8 = avg_pool2d(x8, {3, 3}, {2, 2}, {1, 1}, true, false).int_repr();
  ASSERT_EQ(y8.sizes(), IntArrayRef({2, 24, 4, 4}));
  EXPECT_TRUE(y8.is_contiguous());
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 24; ++c)
      for (int64_t i = 0; i < 16; ++i)
        ASSERT_EQ(y8.data_ptr<uint8_t>()[(n * 24 + c) * 16 + i], nchw[static_cast<size_t>((n * 3 + c % 3) * 16 + i)])
            << n << " " << c << " " << i;
  const std::string e = error_of([&] { avg_pool2d(pool_input(false), {2, 2}, {1, 1}, {0, 0}, false, true, 0); });
  EXPECT_NE(e.find("[avg_pool2d] argument 'divisor_override': expected a non-zero value"), std::string::npos) << e;
}

TEST(QuantizedKernels, AdaptiveAvgPoolRoundsAsLibTorchInBothLayouts) {
  expect_ints(adaptive_avg_pool2d(pool_input(false), {3, 4}), {2, 3, 3, 4},
              {124, 75,  106, 144, 184, 178, 81, 76,  116, 152, 184, 136, 142, 93,  124, 162, 202, 153,
               56,  94,  134, 170, 116, 68,  74, 68,  142, 180, 177, 128, 74,  112, 152, 188, 134, 86,
               92,  86,  160, 198, 152, 61,  92, 130, 170, 164, 67,  62,  68,  104, 178, 173, 128, 79,
               110, 148, 188, 182, 85,  80,  86, 122, 196, 191, 103, 54,  128, 166, 163, 114, 60,  98},
              false);
  expect_ints(adaptive_avg_pool2d(pool_input(true), {3, 4}), {2, 3, 3, 4},
              {123, 75,  107, 143, 183, 178, 81, 75,  115, 153, 184, 135, 141, 93,  125, 161, 201, 153,
               57,  93,  133, 171, 117, 68,  74, 69,  143, 179, 177, 129, 75,  111, 151, 189, 135, 86,
               92,  87,  161, 197, 152, 61,  93, 129, 169, 164, 67,  61,  67,  105, 179, 173, 127, 79,
               111, 147, 187, 182, 85,  79,  85, 123, 197, 191, 103, 55,  129, 165, 163, 115, 61,  97},
              true);
  // A 1x1 output is both layouts at once; the kernel follows the input's.
  expect_ints(adaptive_avg_pool2d(pool_input(false), {1, 1}), {2, 3, 1, 1}, {130, 123, 129, 123, 128, 128}, true);
  expect_ints(adaptive_avg_pool2d(pool_input(true), {1, 1}), {2, 3, 1, 1}, {129, 123, 129, 123, 128, 128}, true);
}

TEST(QuantizedKernels, MaxPoolIsExactInBothLayouts) {
  const std::vector<int> want = {202, 202, 162, 208, 208, 208, 208, 208, 208, 220, 220, 180, 226, 226,
                                 226, 226, 226, 226, 238, 238, 198, 244, 244, 244, 244, 244, 244, 142,
                                 216, 216, 188, 216, 216, 188, 188, 148, 160, 234, 234, 206, 234, 234,
                                 206, 206, 166, 178, 252, 252, 224, 252, 252, 224, 224, 184};
  for (bool cl : {false, true})
    expect_ints(max_pool2d(pool_input(cl), {3, 3}, {2, 2}, {1, 1}, {2, 2}, true), {2, 3, 3, 3}, want, cl);
  // 19 channels: a 16-channel SIMD block and a scalar tail; qint8 compares signed. NCHW with 76
  // small planes pools them channels-last in blocks of 64 planes (one partial).
  manual_seed(19);
  for (ScalarType qt : {kQUInt8, kQInt8}) {
    Tensor q = quantize_per_tensor(randn({4, 19, 9, 8}), 0.05, qt == kQUInt8 ? 128 : 0, qt);
    Tensor ql = q.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    const Tensor ref = max_pool2d(q.dequantize(), {3, 3}, {2, 2}, {1, 1});
    Tensor m = max_pool2d(ql, {3, 3}, {2, 2}, {1, 1});
    EXPECT_TRUE(m.permute({0, 2, 3, 1}).is_contiguous());
    expect_close(m.dequantize(), ref, 0);
    Tensor mn = max_pool2d(q, {3, 3}, {2, 2}, {1, 1});
    EXPECT_TRUE(mn.is_contiguous());
    expect_close(mn.dequantize(), ref, 0);
  }
  // qint8 with negative integers: max over the integers.
  Tensor s =
      _make_per_tensor_quantized_tensor(ember::tensor({-5, -3, -128, -7}).to(kInt8).reshape({1, 1, 2, 2}), 0.5, -4);
  Tensor m = max_pool2d(s, {2, 2});
  EXPECT_EQ(m.dtype(), kQInt8);
  EXPECT_EQ(m.int_repr().data_ptr<int8_t>()[0], -3);
  const std::string e = error_of([&] { max_pool2d(pool_input(false), {2, 2}, {1, 1}, {2, 2}, {1, 1}); });
  EXPECT_NE(e.find("[max_pool2d] argument 'padding': expected non-negative values at most half the kernel size"),
            std::string::npos)
      << e;
}

// NCHW inputs are transposed to NHWC in 16x16 tiles with scalar edges, in parallel over blocks
// that cross image boundaries: the result must equal the channels-last input's.
TEST(QuantizedKernels, Conv2dNchwInputEqualsChannelsLast) {
  const int threads = get_num_threads();
  set_num_threads(2);
  manual_seed(17);
  for (const auto& shape : {std::vector<int64_t>{2, 35, 5, 7}, std::vector<int64_t>{3, 16, 40, 40}}) {
    Tensor x = quantize_per_tensor(randn(shape), 0.05, 100, kQUInt8);
    Tensor xl = x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    const int64_t c = shape[1];
    Tensor w = quantize_per_channel(randn({4, c, 1, 1}) * 0.2, ember::linspace(0.004, 0.01, 4).to(kFloat64),
                                    zeros({4}, kInt64), 0, kQInt8);
    Tensor y = quantized::conv2d(x, w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1, 0.1, 128);
    Tensor yl = quantized::conv2d(xl, w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1, 0.1, 128);
    EXPECT_TRUE(ember::equal(y.int_repr(), yl.int_repr()));
    expect_close(y.dequantize(), ember::conv2d(x.dequantize(), w.dequantize()).clamp(-12.8, 12.7), 0.05 + 1e-4);
  }
  set_num_threads(threads);
}

TEST(QuantizedKernels, QInt32PoolsSumWithoutWrapping) {
  // qint32: LibTorch gives 2, 4 and 2 (ties to even). Near INT32_MAX its int32 sums wrap (it gives
  // -14 and -2147483648); Ember sums in int64, then rounds in float as LibTorch does (2^31 - 16.5
  // is 2^31 in float), so the averages clamp at the top.
  Tensor i32 = _make_per_tensor_quantized_tensor(
      ember::tensor({1, 2, 3, 4, 2147483600, 2147483640, 2147483647, 2147483647}).to(kInt32).reshape({1, 2, 2, 2}), 0.5,
      1);
  Tensor a32 = avg_pool2d(i32, {2, 2}).int_repr(), m32 = max_pool2d(i32, {2, 2}).int_repr();
  Tensor d32 = adaptive_avg_pool2d(i32, {1, 1}).int_repr();
  EXPECT_EQ(a32.data_ptr<int32_t>()[0], 2);
  EXPECT_EQ(m32.data_ptr<int32_t>()[0], 4);
  EXPECT_EQ(d32.data_ptr<int32_t>()[0], 2);
  EXPECT_EQ(m32.data_ptr<int32_t>()[1], 2147483647);
  EXPECT_EQ(a32.data_ptr<int32_t>()[1], 2147483647);
  EXPECT_EQ(d32.data_ptr<int32_t>()[1], 2147483647);
}

namespace {

// Runs `f` with EMBER_QUANTIZED_DEPTHWISE set to `kernel` (which depthwise kernel conv2d uses).
template <class F>
Tensor with_depthwise_kernel(const char* kernel, F f) {
  struct Unset {
    ~Unset() { unsetenv("EMBER_QUANTIZED_DEPTHWISE"); }
  } unset;
  setenv("EMBER_QUANTIZED_DEPTHWISE", kernel, 1);
  return f();
}

}  // namespace

// The int8 depthwise kernels (AVX-512 VNNI where the CPU has it, the portable one, and oneDNN's):
// within one step of the float reference; ours agree bit for bit, oneDNN within one step.
TEST(QuantizedKernels, DepthwiseKernelsMatchFloatAndOneDnn) {
  struct Case {
    int64_t c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, zx, zy;
    bool relu, per_channel, channels_last;
    double ys;
  };
  const Case cases[] = {
      {19, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 64, 40, false, false, false, 0.05},
      {70, 8, 7, 3, 3, 2, 2, 1, 1, 1, 1, 128, 128, true, true, true, 0.04},
      {64, 10, 9, 5, 5, 1, 2, 2, 1, 1, 1, 0, 10, false, true, false, 0.06},
      {3, 12, 12, 5, 5, 2, 1, 3, 2, 2, 1, 200, 0, true, false, true, 0.05},
      {130, 6, 13, 3, 2, 1, 1, 0, 2, 2, 3, 17, 250, false, true, false, 0.02},  // saturates at 0 and 255
      {16, 7, 7, 1, 1, 1, 1, 0, 0, 1, 1, 5, 100, true, false, false, 0.03},
      {24, 9, 14, 3, 5, 1, 2, 1, 3, 1, 2, 90, 60, false, true, true, 0.05},      // 5 dilated columns: 2 groups of 4
      {20, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 100, 128, false, false, false, 1e-12},  // beyond int32: saturates
  };
  int64_t outputs = 0, onednn_off = 0;
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::Message() << "C=" << k.c << " k=" << k.kh << "x" << k.kw << " s=" << k.sh << "," << k.sw
                                      << " zx=" << k.zx << " relu=" << k.relu);
    manual_seed(static_cast<uint64_t>(k.c * 131 + k.kh));
    Tensor x = quantize_per_tensor(randn({2, k.c, k.h, k.w}), 0.03, k.zx, kQUInt8);
    if (k.channels_last) x = x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    Tensor wf = randn({k.c, 1, k.kh, k.kw}) * 0.4;
    Tensor w = k.per_channel ? quantize_per_channel(wf, ember::linspace(0.003, 0.009, k.c).to(kFloat64),
                                                    zeros({k.c}, kInt64), 0, kQInt8)
                             : quantize_per_tensor(wf, 0.004, 0, kQInt8);
    Tensor b = randn({k.c});
    auto run = [&] {
      auto f = k.relu ? quantized::conv2d_relu : quantized::conv2d;
      return f(x, w, b, {k.sh, k.sw}, {k.ph, k.pw}, {k.dh, k.dw}, k.c, k.ys, k.zy);
    };
    Tensor ours = with_depthwise_kernel("auto", run), portable = with_depthwise_kernel("portable", run),
           onednn = with_depthwise_kernel("onednn", run);
    Tensor ref = ember::conv2d(x.dequantize(), w.dequantize(), b, {k.sh, k.sw}, {k.ph, k.pw}, {k.dh, k.dw}, k.c);
    if (k.relu) ref = relu(ref);
    ref = ref.clamp(-k.zy * k.ys, (255 - k.zy) * k.ys);
    ASSERT_EQ(ours.sizes(), ref.sizes());
    expect_close(ours.dequantize(), ref, k.ys / 2 + 1e-4);
    expect_close(portable.dequantize(), ref, k.ys / 2 + 1e-4);
    Tensor io = ours.int_repr().to(kInt32).contiguous(), ip = portable.int_repr().to(kInt32).contiguous(),
           id = onednn.int_repr().to(kInt32).contiguous();
    EXPECT_TRUE(equal(io, ip));
    EXPECT_LE((io - id).abs().max().item<int64_t>(), 1);
    outputs += io.numel();
    onednn_off += (io != id).sum().item<int64_t>();
  }
  EXPECT_LT(onednn_off * 100, outputs);  // rounding-order differences only
}

TEST(QuantizedKernels, DepthwiseKernelSwitchRejectsUnknownValues) {
  Tensor x = qinput({1, 4, 5, 5});
  Tensor w = quantize_per_tensor(randn({4, 1, 3, 3}), 0.01, 0, kQInt8);
  const std::string e = error_of([&] {
    with_depthwise_kernel("avx9", [&] {
      return quantized::conv2d(x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 4, 0.1, 3);
    });
  });
  EXPECT_NE(e.find("[quantized::conv2d] expected EMBER_QUANTIZED_DEPTHWISE to be auto, portable or onednn, got 'avx9'"),
            std::string::npos)
      << e;
}
