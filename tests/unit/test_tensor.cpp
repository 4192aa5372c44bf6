// Tensor (the dispatcher layer's handle over core's TensorBase) and IValue: make_empty/make_view,
// boxed values, and the autograd entry points with no autograd plugin.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

// Scalar itself is core's (tests/core); here, IValue's conversions.
TEST(IValues, ConversionsAndTypeErrors) {
  Scalar b = 2.5;
  IValue iv(std::vector<int64_t>{1, 2, 3});
  IValue copy = iv;
  EXPECT_EQ(copy.toIntList(), IntArrayRef({1, 2, 3}));
  EXPECT_EQ(IValue(b).toScalar().toDouble(), 2.5);
  EXPECT_EQ(IValue(Device(kCUDA, 1)).toDevice(), Device(kCUDA, 1));
  EXPECT_EQ(IValue(kFloat64).toScalarType(), kFloat64);
  EXPECT_EQ(IValue(std::string_view("mean")).toStringView(), "mean");
  try {
    IValue(1.5).toTensor();
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "[IValue] expected Tensor but got float");
  }
  Tensor t = make_empty({2, 3}, kFloat32);
  IValue tv(t);
  EXPECT_EQ(t.use_count(), 2);
  IValue moved(std::move(tv));
  EXPECT_EQ(t.use_count(), 2);
  EXPECT_TRUE(tv.isNone());
  EXPECT_TRUE(moved.toTensor().is_same(t));
  EXPECT_EQ(sizeof(IValue), 16u);
}

// The metadata accessors are TensorBase's (tests/core); here, what the dispatcher layer adds.
TEST(Tensors, MakeEmptyAndMakeView) {
  Tensor t = make_empty({2, 3, 4}, kFloat64);
  EXPECT_EQ(t.strides(), IntArrayRef({12, 4, 1}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  Tensor v = make_view(t, {3, 2}, {4, 12}, 1);
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_TRUE(v.is_view());
  EXPECT_TRUE(v._base().is_same(t));
  EXPECT_EQ(v.unsafeGetTensorImpl()->storage().get(), t.unsafeGetTensorImpl()->storage().get());
  EXPECT_EQ(static_cast<double*>(v.data_ptr()), t.data_ptr<double>() + 1);
  EXPECT_THROW(make_empty({2, -1}, kFloat32), ValueError);
  EXPECT_EQ(make_empty({1}, kQInt8).key_set(), DispatchKeySet(DispatchKey::QuantizedCPU));
}

TEST(Tensors, AutogradEntryPointsNameThePluginWhenAbsent) {
  Tensor t = make_empty({2}, kFloat32);
  EXPECT_FALSE(t.requires_grad());
  EXPECT_TRUE(t.is_leaf());
  EXPECT_FALSE(t.grad().defined());
  try {
    t.requires_grad_();
    FAIL();
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("[requires_grad_] needs the autograd plugin"), std::string::npos);
  }
  EXPECT_THROW(make_empty({2}, kInt64).requires_grad_(), TypeError);
  EXPECT_THROW(t.backward(), NotImplementedError);
}
