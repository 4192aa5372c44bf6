// Quantized tensors: quantize_per_tensor/per_channel, dequantize, int_repr, the quantizer
// accessors, the quantizer through views, clone, detach and contiguous, printing, and errors.
// Expected values come from LibTorch 1.13.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"

using namespace ember;

namespace {

using ember::test::error_of;

template <class T>
std::vector<int64_t> ints(const Tensor& t) {
  Tensor c = t.contiguous();
  std::vector<int64_t> r;
  for (int64_t i = 0; i < c.numel(); ++i) r.push_back(c.data_ptr<T>()[i]);
  return r;
}

Tensor sample() {
  return ember::tensor({-1.0f, 0.0f, 0.05f, 0.15f, 0.25f, 0.35f, 1.0f, 12.7f, 30.f, -0.05f, 0.049999f, 2.5f});
}

}  // namespace

TEST(QuantizedTensor, QuantizePerTensorRoundsHalfToEvenThenClamps) {
  Tensor q = quantize_per_tensor(sample(), 0.1, 10, kQUInt8);
  EXPECT_EQ(q.dtype(), kQUInt8);
  EXPECT_TRUE(q.is_quantized());
  EXPECT_EQ(q.key_set().highest_priority_key(), DispatchKey::QuantizedCPU);
  EXPECT_EQ(q.qscheme(), kPerTensorAffine);
  EXPECT_DOUBLE_EQ(q.q_scale(), 0.1);
  EXPECT_EQ(q.q_zero_point(), 10);
  Tensor r = q.int_repr();
  EXPECT_EQ(r.dtype(), kUInt8);
  EXPECT_EQ(ints<uint8_t>(r), (std::vector<int64_t>{0, 10, 10, 12, 12, 14, 20, 137, 255, 10, 10, 35}));
  Tensor q8 = quantize_per_tensor(sample(), 0.1, 0, kQInt8);
  EXPECT_EQ(q8.int_repr().dtype(), kInt8);
  EXPECT_EQ(ints<int8_t>(q8.int_repr()), (std::vector<int64_t>{-10, 0, 0, 2, 2, 4, 10, 127, 127, 0, 0, 25}));
  Tensor q32 = quantize_per_tensor(sample(), 0.5, 3, kQInt32);
  EXPECT_EQ(q32.int_repr().dtype(), kInt32);
  EXPECT_EQ(ints<int32_t>(q32.int_repr()), (std::vector<int64_t>{1, 3, 3, 3, 3, 4, 5, 28, 63, 3, 3, 8}));
}

TEST(QuantizedTensor, DequantizeGivesTheRepresentedValues) {
  Tensor d = quantize_per_tensor(sample(), 0.1, 10, kQUInt8).dequantize();
  EXPECT_EQ(d.dtype(), kFloat32);
  const std::vector<float> want = {-1.0f, 0, 0, 0.2f, 0.2f, 0.4f, 1.0f, 12.7f, 24.5f, 0, 0, 2.5f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(d.data_ptr<float>()[i], want[i], 1e-5) << i;
  // A dense tensor converts to float32, as LibTorch.
  EXPECT_EQ(dequantize(ember::tensor({1, 2}, kInt64)).dtype(), kFloat32);
}

TEST(QuantizedTensor, QuantizePerChannel) {
  Tensor w = ember::tensor({-1.0f, 0.5f, 2.0f, 0.25f, 0.75f, 1.5f}).view({2, 3});
  Tensor q = quantize_per_channel(w, ember::tensor({0.1, 0.5}), ember::tensor({0, 2}, kInt64), 0, kQInt8);
  EXPECT_EQ(q.qscheme(), kPerChannelAffine);
  EXPECT_EQ(ints<int8_t>(q.int_repr()), (std::vector<int64_t>{-10, 5, 20, 2, 4, 5}));
  EXPECT_EQ(q.q_per_channel_axis(), 0);
  EXPECT_EQ(q.q_per_channel_scales().dtype(), kFloat64);
  EXPECT_EQ(q.q_per_channel_zero_points().dtype(), kInt64);
  EXPECT_EQ(ints<int64_t>(q.q_per_channel_zero_points()), (std::vector<int64_t>{0, 2}));
  Tensor d = q.dequantize();
  const std::vector<float> want = {-1.0f, 0.5f, 2.0f, 0.0f, 1.0f, 1.5f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(d.data_ptr<float>()[i], want[i], 1e-6) << i;
  // Along axis 1.
  Tensor q1 = quantize_per_channel(w, ember::tensor({0.1, 0.5, 1.0}), ember::tensor({0, 0, 1}, kInt64), 1, kQUInt8);
  EXPECT_EQ(ints<uint8_t>(q1.int_repr()), (std::vector<int64_t>{0, 1, 3, 2, 2, 3}));
}

TEST(QuantizedTensor, ViewsCloneDetachContiguousKeepTheQuantizer) {
  Tensor q = quantize_per_tensor(sample(), 0.1, 10, kQUInt8);
  Tensor t = q.reshape({3, 4}).t();
  EXPECT_TRUE(t.is_quantized());
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_DOUBLE_EQ(t.q_scale(), 0.1);
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.q_zero_point(), 10);
  EXPECT_EQ(ints<uint8_t>(c.int_repr()), (std::vector<int64_t>{0, 12, 255, 10, 14, 10, 10, 20, 10, 12, 137, 35}));
  Tensor k = q.clone();
  EXPECT_FALSE(k.is_same(q));
  EXPECT_EQ(k.q_scale(), 0.1);
  EXPECT_EQ(ints<uint8_t>(k.int_repr()), ints<uint8_t>(q.int_repr()));
  EXPECT_EQ(q.detach().q_zero_point(), 10);
  EXPECT_EQ(q.view({3, 4}).select(0, 1).q_zero_point(), 10);
  EXPECT_EQ(ints<uint8_t>(q.view({3, 4}).select(0, 1).int_repr()), (std::vector<int64_t>{12, 14, 20, 137}));
}

TEST(QuantizedTensor, MakeQuantizedTensorFromIntegersAndEmpty) {
  Tensor q = _make_per_tensor_quantized_tensor(ember::tensor({1, 2, 3}, kUInt8), 0.5, 1);
  EXPECT_EQ(q.dtype(), kQUInt8);
  EXPECT_EQ(ints<uint8_t>(q.int_repr()), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_FLOAT_EQ(q.dequantize().data_ptr<float>()[2], 1.0f);
  Tensor e = _empty_affine_quantized({2, 3}, TensorOptions(kQInt8), 0.5, 1);
  EXPECT_EQ(e.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(e.dtype(), kQInt8);
  EXPECT_DOUBLE_EQ(e.q_scale(), 0.5);
}

TEST(QuantizedTensor, CopyFromFloatQuantizesWithTheDestinationsQuantizer) {
  Tensor z = quantize_per_tensor(ember::tensor({1.f, 2.f}), 0.1, 10, kQUInt8);
  EXPECT_EQ(ints<uint8_t>(z.int_repr()), (std::vector<int64_t>{20, 30}));
  z.copy_(ember::tensor({0.5f, 0.7f}));
  EXPECT_EQ(ints<uint8_t>(z.int_repr()), (std::vector<int64_t>{15, 17}));
}

TEST(QuantizedTensor, PrintsAsLibTorch) {
  std::ostringstream os;
  os << quantize_per_tensor(ember::tensor({0.0f, 0.5f, 1.0f}), 0.5, 1, kQUInt8);
  EXPECT_EQ(os.str(),
            " 0.0000\n 0.5000\n 1.0000\n[ QuantizedCPUQUInt8Type{3}, qscheme: per_tensor_affine, scale: 0.5000, "
            "zero_point: 1 ]");
  std::ostringstream pc;
  Tensor w = ember::tensor({-1.0f, 0.5f, 2.0f, 0.25f, 0.75f, 1.5f}).view({2, 3});
  pc << quantize_per_channel(w, ember::tensor({0.1, 0.5}), ember::tensor({0, 2}, kInt64), 0, kQInt8);
  EXPECT_EQ(pc.str(),
            "-1.0000  0.5000  2.0000\n 0.0000  1.0000  1.5000\n[ QuantizedCPUQInt8Type{2,3}, qscheme: "
            "per_channel_affine, scales:  0.1000\n 0.5000\n[ CPUDoubleType{2} ], zero_points:  0\n 2\n[ "
            "CPULongType{2} ], axis: 0 ]");
}

TEST(QuantizedTensor, BadInputsNameTheFunctionAndArgument) {
  Tensor x = sample();
  auto has = [](const std::string& e, const std::string& want) { EXPECT_NE(e.find(want), std::string::npos) << e; };
  has(error_of([&] { quantize_per_tensor(x.to(kFloat64), 0.1, 10, kQUInt8); }),
      "[quantize_per_tensor] expected a float32 tensor for self, got float64");
  has(error_of([&] { quantize_per_tensor(x, 0.1, 300, kQUInt8); }),
      "[quantize_per_tensor] zero_point 300 is out of range [0, 255] of");
  has(error_of([&] { quantize_per_tensor(x, 0.1, -129, kQInt8); }), "zero_point -129 is out of range [-128, 127]");
  has(error_of([&] { quantize_per_tensor(x, 0.0, 1, kQUInt8); }),
      "[quantize_per_tensor] expected a positive finite scale, got 0");
  has(error_of([&] { quantize_per_tensor(x, 0.1, 1, kFloat32); }),
      "[quantize_per_tensor] expected a quantized dtype (QUInt8, QInt8, QInt32) for dtype, got");
  has(error_of([&] { (void)x.q_scale(); }), "q_scale");
  Tensor w = x.view({2, 6});
  Tensor pc = quantize_per_channel(w, ember::tensor({0.1, 0.5}), ember::tensor({0, 2}, kInt64), 0, kQInt8);
  has(error_of([&] { (void)pc.q_scale(); }),
      "[q_scale] expected a per_tensor_affine quantized tensor, got a per_channel_affine one");
  has(error_of([&] { (void)quantize_per_tensor(x, 0.1, 1, kQUInt8).q_per_channel_axis(); }),
      "[q_per_channel_axis] expected a per_channel_affine quantized tensor, got a per_tensor_affine one");
  has(error_of([&] {
        quantize_per_channel(w, ember::tensor({0.1, 0.5, 1.0}), ember::tensor({0, 2}, kInt64), 0, kQInt8);
      }),
      "[quantize_per_channel] number of elements in scales (3) and zero_points (2) must match");
  has(error_of([&] {
        quantize_per_channel(w, ember::tensor({0.1, 0.5}), ember::tensor({0, 2}, kInt64), 2, kQInt8);
      }),
      "[quantize_per_channel] channel axis 2 is out of range [0, 2)");
  has(error_of([&] {
        quantize_per_channel(w, ember::tensor({0.1, 0.5}), ember::tensor({0, 200}, kInt64), 0, kQInt8);
      }),
      "[quantize_per_channel] zero_point 200 is out of range [-128, 127]");
  has(error_of([&] { (void)quantize_per_tensor(x, 0.1, 10, kQUInt8).to(kFloat32); }),
      "copying from a quantized tensor to a non-quantized one is not allowed; use dequantize()");
}
