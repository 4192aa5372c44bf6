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

// ---- finite differences, and the layouts of the gradients -------------------------------------

namespace {

// A 2-D pattern with duplicates (uncoalesced) when `dup`: indices [2, nnz].
Tensor pattern_indices(bool dup) {
  Tensor ix = ember::tensor({{0, 1, 1, 3, 4}, {2, 0, 3, 1, 2}}, kInt64);
  return dup ? cat({ix, ix.narrow(1, 1, 2)}, 1) : ix;
}

}  // namespace

TEST(SparseAutograd, SumGivesASparseGradientOfThePattern) {
  manual_seed(43);
  for (bool csr : {false, true}) {
    SCOPED_TRACE(csr ? "csr" : "coo");
    const Tensor dense = ember::randn({5, 4}, kFloat64).mul(ember::rand({5, 4}).lt(0.5));
    Tensor x = (csr ? dense.to_sparse_csr() : dense.to_sparse()).requires_grad_();
    x.sum().backward();
    const Tensor g = x.grad();
    EXPECT_EQ(g.layout(), x.layout());
    EXPECT_EQ(g._nnz(), x._nnz());
    EXPECT_TRUE(g.to_dense().equal(dense.ne(0).to(kFloat64)));
    // By dim: keeping a sparse dim gives a sparse result; its gradient is read at each entry's row.
    Tensor y = (csr ? dense.to_sparse_csr() : dense.to_sparse()).requires_grad_();
    const Tensor w = ember::randn({5}, kFloat64);
    ember::sum(y, {1}).to_dense().mul(w).sum().backward();
    EXPECT_EQ(y.grad().layout(), y.layout());
    EXPECT_TRUE(y.grad().to_dense().allclose(w.unsqueeze(1).expand({5, 4}).mul(dense.ne(0))));
  }
}

TEST(SparseAutograd, SumByDimWithDenseDims) {
  // One sparse dim, two dense: reduce a sparse and a dense dim, or only dense dims.
  manual_seed(44);
  const Tensor dense = ember::randn({4, 3, 2}, kFloat64).mul(ember::rand({4, 1, 1}).lt(0.7));
  for (std::vector<int64_t> dims : {std::vector<int64_t>{0, 2}, {1}, {1, 2}, {0}}) {
    SCOPED_TRACE(testing::Message() << IntArrayRef(dims));
    Tensor x = dense.to_sparse(1).requires_grad_();
    Tensor r = ember::sum(x, dims);
    const Tensor rd = r.layout() == kStrided ? r : r.to_dense();
    const Tensor w = ember::randn(rd.sizes(), kFloat64);
    rd.mul(w).sum().backward();
    Tensor want_in = dense.clone().requires_grad_();
    ember::sum(want_in, dims).mul(w).sum().backward();
    const Tensor rows = dense.ne(0).any(2).any(1);  // the pattern's rows
    EXPECT_EQ(x.grad().layout(), kSparse);
    EXPECT_TRUE(x.grad().to_dense().allclose(want_in.grad().mul(rows.view({4, 1, 1}))));
  }
}

TEST(SparseAutograd, GradcheckThroughTheValues) {
  manual_seed(45);
  for (bool dup : {false, true}) {
    SCOPED_TRACE(dup ? "uncoalesced" : "coalesced");
    const Tensor ix = pattern_indices(dup);
    const Tensor v = ember::randn({ix.size(1)}, kFloat64).requires_grad_();
    const Tensor d = ember::randn({4, 3}, kFloat64).requires_grad_();
    auto coo = [&](const Tensor& vals) { return sparse_coo_tensor(ix, vals, {5, 4}); };
    // mm: both the sparse values and the dense operand.
    EXPECT_TRUE(
        autograd::gradcheck([&](const autograd::variable_list& in) { return ember::mm(coo(in[0]), in[1]); }, {v, d}));
    EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return coo(t).sum(); }, {v}));
    EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return ember::sum(coo(t), {0}).to_dense(); }, {v}));
    EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return ember::sum(coo(t), {1}).to_dense(); }, {v}));
    EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return coo(t).to_dense(); }, {v}));
    if (!dup) {  // each duplicate's gradient would be the sum of both (a sparse gradient is dense-like)
      EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return coo(t)._values().mul(2); }, {v}));
    }
    for (int64_t dim : {0, 1}) {
      EXPECT_TRUE(
          autograd::gradcheck([&](const Tensor& t) { return _sparse_softmax(coo(t), dim, false).to_dense(); }, {v}));
      EXPECT_TRUE(autograd::gradcheck(
          [&](const Tensor& t) { return _sparse_log_softmax(coo(t), dim, false).to_dense(); }, {v}));
    }
  }
}

TEST(SparseAutograd, ValuesOfACoalescedSparseLeaf) {
  const Tensor dense = ember::tensor({{0.0, 2.0, 0.0}, {3.0, 0.0, 4.0}}, kFloat64);
  Tensor x = dense.to_sparse().requires_grad_();
  x.values().mul(ember::tensor({1.0, 2.0, 3.0}, kFloat64)).sum().backward();
  EXPECT_EQ(x.grad().layout(), kSparse);
  EXPECT_TRUE(x.grad().is_coalesced());
  EXPECT_TRUE(x.grad().to_dense().equal(ember::tensor({{0.0, 1.0, 0.0}, {2.0, 0.0, 3.0}}, kFloat64)));
}

TEST(SparseAutograd, DenseAndSparseGradientsAccumulate) {
  const Tensor dense = ember::tensor({{0.0, 2.0}, {3.0, 0.0}}, kFloat64);
  const Tensor ones = ember::ones({2, 2}, kFloat64);
  // Within one backward: a sparse (sum) and a dense (add's other) gradient of one input.
  Tensor x = dense.to_sparse().requires_grad_();
  x.sum().add(ember::zeros({2, 2}, kFloat64).add(x).sum()).backward();
  EXPECT_EQ(x.grad().layout(), kStrided);
  EXPECT_TRUE(x.grad().equal(ones.add(dense.ne(0).to(kFloat64))));
  // Across backward calls: sparse then dense (the sum is dense), sparse then sparse (stays sparse).
  Tensor y = dense.to_sparse().requires_grad_();
  y.sum().backward();
  ember::zeros({2, 2}, kFloat64).add(y).sum().backward();
  EXPECT_EQ(y.grad().layout(), kStrided);
  EXPECT_TRUE(y.grad().equal(ones.add(dense.ne(0).to(kFloat64))));
  Tensor z = dense.to_sparse().requires_grad_();
  z.sum().backward();
  z.sum().backward();
  EXPECT_EQ(z.grad().layout(), kSparse);
  EXPECT_TRUE(z.grad().to_dense().equal(dense.ne(0).to(kFloat64).mul(2)));
  // Dense then sparse: added into the dense grad.
  Tensor u = dense.to_sparse().requires_grad_();
  ember::zeros({2, 2}, kFloat64).add(u).sum().backward();
  u.sum().backward();
  EXPECT_EQ(u.grad().layout(), kStrided);
  EXPECT_TRUE(u.grad().equal(ones.add(dense.ne(0).to(kFloat64))));
}

TEST(SparseAutograd, GradcheckThroughCsrValues) {
  manual_seed(46);
  const Tensor crow = ember::tensor({0, 2, 2, 5}, kInt64), col = ember::tensor({1, 3, 0, 2, 3}, kInt64);
  const Tensor v = ember::randn({5}, kFloat64).requires_grad_();
  const Tensor d = ember::randn({4, 2}, kFloat64);
  auto csr = [&](const Tensor& vals) {
    return sparse_csr_tensor(crow, col, vals, {3, 4}, TensorOptions().dtype(kFloat64));
  };
  EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return csr(t).to_dense(); }, {v}));
  EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return ember::mm(csr(t), d); }, {v}));
  EXPECT_TRUE(autograd::gradcheck([&](const Tensor& t) { return ember::sum(csr(t), {1}).to_dense(); }, {v}));
}
