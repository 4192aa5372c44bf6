// Autograd semantics, PyTorch's (checked against LibTorch 1.13 where LibTorch has them).
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {

Tensor t64(std::vector<double> v, std::vector<int64_t> shape) {
  return from_blob(v.data(), {static_cast<int64_t>(v.size())}, kFloat64).clone().reshape(shape);
}

std::vector<double> vals(const Tensor& t) {
  Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST(Autograd, MulSumBackward) {
  Tensor x = t64({1, 2, 3}, {3}).requires_grad_();
  Tensor y = t64({4, 5, 6}, {3}).requires_grad_();
  Tensor z = mul(x, y).sum();
  EXPECT_EQ(autograd::grad_fn_name(z), "SumBackward0");
  z.backward();
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{1, 2, 3}));
}
