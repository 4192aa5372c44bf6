// Autograd through sparse operators: mm (the dense operand's gradient, and the sparse values'
// through sparse_coo_tensor), sum and to_dense, against gradients computed with dense operators.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

struct Case {
  Tensor indices, values, dense;  // a coalesced pattern, its values, and the dense matrix
};

Case random_case(int64_t n, int64_t k, double density) {
  Tensor mask = ember::rand({n, k}).lt(density);
  Tensor dense = ember::randn({n, k}, kFloat64).mul(mask);
  Tensor s = dense.to_sparse();
  return {s.indices(), s.values(), dense};
}

}  // namespace

TEST(SparseAutograd, MmGradientOfTheDenseOperand) {
  manual_seed(31);
  for (double density : {0.0, 0.2, 1.0}) {
    for (bool csr : {false, true}) {
      SCOPED_TRACE("density " + std::to_string(density) + (csr ? " csr" : " coo"));
      Case c = random_case(7, 5, density);
      Tensor w = ember::randn({7, 3}, kFloat64);
      Tensor d = ember::randn({5, 3}, kFloat64).requires_grad_();
      Tensor s = csr ? c.dense.to_sparse_csr() : c.dense.to_sparse();
      ember::mm(s, d).mul(w).sum().backward();
      // d(sum(W * (A @ D)))/dD = A^T @ W.
      EXPECT_TRUE(d.grad().allclose(ember::mm(c.dense.t(), w)));
    }
  }
}

TEST(SparseAutograd, MmGradientOfTheSparseValues) {
  manual_seed(37);
  for (double density : {0.1, 0.5, 1.0}) {
    SCOPED_TRACE("density " + std::to_string(density));
    Case c = random_case(6, 8, density);
    Tensor v = c.values.clone().requires_grad_();
    Tensor d = ember::randn({8, 4}, kFloat64).requires_grad_();
    Tensor w = ember::randn({6, 4}, kFloat64);
    Tensor s = sparse_coo_tensor(c.indices, v, {6, 8});
    ember::mm(s, d).mul(w).sum().backward();
    // d/dA = W @ D^T, read at the pattern's entries.
    Tensor full = ember::mm(w, d.detach().t());
    Tensor want = full.index({c.indices.select(0, 0), c.indices.select(0, 1)});
    ASSERT_TRUE(v.grad().defined());
    EXPECT_TRUE(v.grad().allclose(want));
    EXPECT_TRUE(d.grad().allclose(ember::mm(c.dense.t(), w)));
  }
}

TEST(SparseAutograd, SumAndToDenseGradientsOfTheValues) {
  manual_seed(41);
  Case c = random_case(5, 6, 0.4);
  Tensor v = c.values.clone().requires_grad_();
  sparse_coo_tensor(c.indices, v, {5, 6}).sum().backward();
  EXPECT_TRUE(v.grad().equal(ember::ones_like(v)));
  Tensor v2 = c.values.clone().requires_grad_();
  Tensor w = ember::randn({5, 6}, kFloat64);
  sparse_coo_tensor(c.indices, v2, {5, 6}).to_dense().mul(w).sum().backward();
  EXPECT_TRUE(v2.grad().allclose(w.index({c.indices.select(0, 0), c.indices.select(0, 1)})));
}
