// Sparse kernels against the dense results for random sparsity patterns over dtypes: mm/addmm
// (CSR kernel; COO through CSR), add and mul with sparse and dense operands, multiplication by a
// scalar, sum (all and by dim); LibTorch 1.13's refusals and messages.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "SparseTestUtil.h"
#include "ember/ember.h"

using namespace ember;

namespace {

using ember::test::error_of;

// Values in [1, 4] (exact in every dtype, sums stay small), about `density` of them nonzero.
Tensor random_sparse_dense(std::vector<int64_t> shape, ScalarType dt, double density) {
  Tensor mask = ember::rand(shape).lt(density);
  return ember::randint(4, shape).add(1).mul(mask).to(dt);
}

Tensor random_dense(std::vector<int64_t> shape, ScalarType dt) { return ember::randint(5, shape).sub(2).to(dt); }

const std::vector<ScalarType> kDtypes = {kFloat32, kFloat64, kInt64, kInt32, kInt16};

std::string trace(ScalarType dt, double density) {
  return std::string(dtype_name(dt)) + " density " + std::to_string(density);
}

}  // namespace

TEST(SparseMm, CsrAndCooMatchDenseOverDtypesAndPatterns) {
  manual_seed(3);
  for (ScalarType dt : kDtypes) {
    for (double density : {0.0, 0.02, 0.2, 1.0}) {
      SCOPED_TRACE(trace(dt, density));
      Tensor a = random_sparse_dense({37, 23}, dt, density);
      Tensor b = random_dense({23, 9}, dt);
      const Tensor want = ember::mm(a, b);
      Tensor csr = ember::mm(a.to_sparse_csr(), b);
      EXPECT_EQ(csr.layout(), kStrided);
      EXPECT_EQ(csr.scalar_type(), dt);
      EXPECT_TRUE(csr.equal(want));
      EXPECT_TRUE(ember::mm(a.to_sparse(), b).equal(want));
      // A transposed (non-contiguous) dense operand.
      Tensor bt = random_dense({9, 23}, dt).t();
      EXPECT_TRUE(ember::mm(a.to_sparse(), bt).equal(ember::mm(a, bt)));
      // dense x sparse.
      Tensor c = random_dense({4, 37}, dt);
      EXPECT_TRUE(ember::mm(c, a.to_sparse()).equal(ember::mm(c, a)));
      EXPECT_TRUE(ember::mm(c, a.to_sparse_csr()).equal(ember::mm(c, a)));
    }
  }
}

TEST(SparseMm, UncoalescedCooSumsDuplicates) {
  Tensor s = sparse_coo_tensor(ember::tensor({{0, 0, 1}, {1, 1, 0}}, kInt64), ember::tensor({1.f, 2.f, 4.f}), {2, 2});
  Tensor b = ember::tensor({{1.f, 2.f}, {3.f, 4.f}});
  EXPECT_TRUE(ember::mm(s, b).equal(ember::tensor({{9.f, 12.f}, {4.f, 8.f}})));
}

TEST(SparseMm, AddmmScalesAndBroadcastsSelf) {
  manual_seed(5);
  Tensor a = random_sparse_dense({6, 5}, kFloat64, 0.3);
  Tensor b = random_dense({5, 4}, kFloat64);
  Tensor c = random_dense({6, 4}, kFloat64);
  Tensor row = random_dense({4}, kFloat64);
  EXPECT_TRUE(ember::addmm(c, a.to_sparse(), b, 0.5, 2).allclose(ember::addmm(c, a, b, 0.5, 2)));
  EXPECT_TRUE(ember::addmm(row, a.to_sparse_csr(), b, 0.5, 2).allclose(ember::addmm(row, a, b, 0.5, 2)));
  Tensor nan = ember::full({6, 4}, std::nan(""), kFloat64);
  EXPECT_TRUE(ember::addmm(nan, a.to_sparse(), b, 0, 1).equal(ember::mm(a, b)));
  Tensor e = random_dense({3, 6}, kFloat64), f = random_dense({3, 5}, kFloat64);
  EXPECT_TRUE(ember::addmm(f, e, a.to_sparse(), 0.5, 2).allclose(ember::addmm(f, e, a, 0.5, 2)));
}

TEST(SparseMm, RejectsBadOperands) {
  Tensor s = ember::ones({2, 3}).to_sparse();
  EXPECT_ERROR(ember::mm(s, ember::ones({4, 2})), ValueError, "[mm] Argument #3 (dense): Expected dim 0 size 3, got 4");
  EXPECT_ERROR(ember::mm(s, ember::ones({3, 2}, kFloat64)), TypeError,
               "[mm] expected the sparse and dense operands to have the same dtype, but got float32 and float64");
  EXPECT_TRUE(ember::mm(ember::ones({2, 2}), s).equal(ember::full({2, 3}, 2.f)));
  EXPECT_ERROR(ember::mm(ember::ones({2, 3}), s), ValueError,
               "[mm] mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
  EXPECT_ERROR(ember::mm(s, s.t()), NotImplementedError, "[mm] a product of two sparse matrices is not supported yet");
  EXPECT_ERROR(ember::mm(ember::ones({2, 3, 2}).to_sparse(2), ember::ones({3, 2})), ValueError,
               "[mm] matrices expected");
}

TEST(SparseArith, AddMatchesDense) {
  manual_seed(9);
  for (ScalarType dt : kDtypes) {
    for (double density : {0.0, 0.1, 0.6}) {
      SCOPED_TRACE(trace(dt, density));
      Tensor x = random_sparse_dense({4, 5, 3}, dt, density), y = random_sparse_dense({4, 5, 3}, dt, density);
      Tensor d = random_dense({4, 5, 3}, dt);
      Tensor dense_plus = ember::add(d, x.to_sparse(2), 3);
      EXPECT_EQ(dense_plus.layout(), kStrided);
      EXPECT_TRUE(dense_plus.equal(ember::add(d, x, 3)));
      Tensor ss = ember::add(x.to_sparse(2), y.to_sparse(2), 2);
      EXPECT_EQ(ss.layout(), kSparse);
      EXPECT_TRUE(ss.is_coalesced());
      EXPECT_TRUE(ss.to_dense().equal(ember::add(x, y, 2)));
    }
  }
  Tensor s = ember::ones({2, 3}).to_sparse();
  EXPECT_TRUE(ember::add(s, s.to(kFloat64)).to_dense().equal(ember::full({2, 3}, 2.0, kFloat64)));
  EXPECT_ERROR(ember::add(s, ember::ones({2, 3})), ValueError,
               "[add] add(sparse, dense) is not supported. Use add(dense, sparse) instead.");
  EXPECT_ERROR(ember::add(s, ember::ones({2, 4}).to_sparse()), ValueError,
               "[add] expected sizes of 'self' and 'other' to match, but [2, 3] != [2, 4]");
}

TEST(SparseArith, MulMatchesDense) {
  manual_seed(13);
  for (ScalarType dt : kDtypes) {
    for (double density : {0.0, 0.2, 0.7}) {
      SCOPED_TRACE(trace(dt, density));
      Tensor x = random_sparse_dense({6, 4}, dt, density), y = random_sparse_dense({6, 4}, dt, density);
      Tensor d = random_dense({6, 4}, dt);
      Tensor sd = ember::mul(x.to_sparse(), d);
      EXPECT_EQ(sd.layout(), kSparse);
      EXPECT_TRUE(sd.to_dense().equal(ember::mul(x, d)));
      EXPECT_TRUE(ember::mul(d, x.to_sparse()).to_dense().equal(ember::mul(x, d)));
      Tensor ss = ember::mul(x.to_sparse(), y.to_sparse());
      EXPECT_TRUE(ss.is_coalesced());
      EXPECT_TRUE(ss.to_dense().equal(ember::mul(x, y)));
      EXPECT_TRUE(x.to_sparse().mul(3).to_dense().equal(x.mul(3)));
      EXPECT_TRUE(x.to_sparse_csr().mul(3).to_dense().equal(x.mul(3)));
    }
  }
}

TEST(SparseReduce, SumAllAndByDimMatchDense) {
  manual_seed(17);
  for (ScalarType dt : kDtypes) {
    for (double density : {0.0, 0.3, 1.0}) {
      SCOPED_TRACE(trace(dt, density));
      Tensor x = random_sparse_dense({4, 3, 5}, dt, density);
      Tensor s = x.to_sparse(2);
      EXPECT_TRUE(s.sum().equal(x.sum()));
      EXPECT_TRUE(s.sum(kFloat64).equal(x.sum(kFloat64)));
      // A sparse dimension kept: COO; every sparse dimension reduced: dense.
      Tensor s0 = s.sum(std::vector<int64_t>{0});
      EXPECT_EQ(s0.layout(), kSparse);
      EXPECT_TRUE(s0.to_dense().equal(x.sum(std::vector<int64_t>{0})));
      Tensor s2 = s.sum(std::vector<int64_t>{2});
      EXPECT_EQ(s2.layout(), kSparse);
      EXPECT_TRUE(s2.to_dense().equal(x.sum(std::vector<int64_t>{2})));
      Tensor s01 = s.sum(std::vector<int64_t>{0, 1});
      EXPECT_EQ(s01.layout(), kStrided);
      EXPECT_TRUE(s01.equal(x.sum(std::vector<int64_t>{0, 1})));
      EXPECT_TRUE(s.sum(std::vector<int64_t>{-1, 0}).to_dense().equal(x.sum(std::vector<int64_t>{0, 2})));
    }
  }
  Tensor m = ember::tensor({{0.f, 1.f}, {2.f, 3.f}});
  EXPECT_EQ(m.to_sparse_csr().sum().item<float>(), 6.f);
}

TEST(SparseSoftmax, MatchesDenseSoftmaxOverSpecifiedEntries) {
  manual_seed(21);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (double density : {0.0, 0.3, 1.0}) {
      SCOPED_TRACE(trace(dt, density));
      Tensor mask = ember::rand({5, 4, 3}).lt(density);
      Tensor x = ember::randn({5, 4, 3}).to(dt).mul(mask);
      // The unspecified entries of the pattern (sparse dims 0, 1) act as -inf.
      Tensor pattern = mask.any(2);
      Tensor s = sparse_coo_tensor(nonzero(pattern).t(), x.index({pattern}), {5, 4, 3});
      Tensor hidden = pattern.logical_not().unsqueeze(2).expand({5, 4, 3});
      for (int64_t dim : {0, 1, 2}) {
        SCOPED_TRACE("dim " + std::to_string(dim));
        const Tensor xm = x.masked_fill(hidden, -INFINITY);
        Tensor want = xm.softmax(dim).masked_fill(hidden, 0);
        Tensor got = _sparse_softmax(s, dim, false);
        EXPECT_EQ(got.layout(), kSparse);
        EXPECT_TRUE(got.to_dense().allclose(want, 1e-5, 1e-6));
        Tensor want_log = xm.log_softmax(dim).masked_fill(hidden, 0);
        EXPECT_TRUE(_sparse_log_softmax(s, dim, false).to_dense().allclose(want_log, 1e-5, 1e-6));
      }
    }
  }
  EXPECT_ERROR(_sparse_softmax(ember::ones({2, 2}, kInt64).to_sparse(), 0, false), TypeError,
               "[_sparse_softmax] expected a floating point tensor, got int64");
  // As LibTorch's, the internal forms take no negative dim; an empty tensor is not checked.
  EXPECT_ERROR(_sparse_log_softmax(ember::ones({2, 3}).to_sparse(), -1, false), IndexError,
               "[_sparse_log_softmax] expected argument 'dim' to be non-negative and less than the input's 2 "
               "dimensions, got -1");
  EXPECT_ERROR(
      _sparse_softmax(ember::ones({2, 3}).to_sparse(), 2, false), IndexError,
      "[_sparse_softmax] expected argument 'dim' to be non-negative and less than the input's 2 dimensions, got 2");
  const Tensor empty_coo = ember::ones({0, 3}).to_sparse();
  EXPECT_EQ(empty_coo._nnz(), 0);
  EXPECT_EQ(empty_coo.sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(_sparse_softmax(empty_coo, 1, false).sizes(), IntArrayRef({0, 3}));
}

TEST(SparseArith, DenseAddInPlaceOfSparse) {
  manual_seed(23);
  Tensor x = random_sparse_dense({4, 6}, kFloat32, 0.4);
  Tensor d = random_dense({4, 6}, kFloat32);
  Tensor want = ember::add(d, x, 2);
  Tensor self = d.clone();
  Tensor& r = self.add_(x.to_sparse(), 2);
  EXPECT_EQ(&r, &self);
  EXPECT_TRUE(self.equal(want));
  // A non-contiguous self is written too.
  Tensor t = ember::empty({6, 4}, kFloat32).t();
  t.copy_(d);
  ASSERT_FALSE(t.is_contiguous());
  t.add_(x.to_sparse(), 2);
  EXPECT_TRUE(t.equal(want));
  Tensor i = ember::zeros({4, 6}, kInt64);
  EXPECT_ERROR(i.add_(x.to_sparse()), TypeError,
               "[add] result type float32 can't be cast to the desired output type int64");
  // Into a sparse self (test_sparse_inplace.cpp has the rest).
  Tensor s = x.to_sparse();
  s.add_(x.to_sparse());
  EXPECT_TRUE(s.to_dense().equal(x.mul(2)));
}

TEST(SparseArith, CsrAddMulSumThroughCoo) {
  manual_seed(29);
  for (ScalarType dt : kDtypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = random_sparse_dense({5, 7}, dt, 0.3), y = random_sparse_dense({5, 7}, dt, 0.3);
    Tensor d = random_dense({5, 7}, dt);
    Tensor cs = ember::add(x.to_sparse_csr(), y.to_sparse_csr(), 2);
    EXPECT_EQ(cs.layout(), kSparseCsr);
    EXPECT_TRUE(cs.to_dense().equal(ember::add(x, y, 2)));
    EXPECT_TRUE(ember::add(d, x.to_sparse_csr()).equal(ember::add(d, x)));
    Tensor m = ember::mul(x.to_sparse_csr(), d);
    EXPECT_EQ(m.layout(), kSparseCsr);
    EXPECT_TRUE(m.to_dense().equal(ember::mul(x, d)));
    EXPECT_TRUE(x.to_sparse_csr().sum(std::vector<int64_t>{1}).to_dense().equal(x.sum(std::vector<int64_t>{1})));
    EXPECT_TRUE(x.to_sparse_csr().sum(std::vector<int64_t>{0, 1}).equal(x.sum(std::vector<int64_t>{0, 1})));
  }
  Tensor c = ember::ones({2, 2}).to_sparse_csr();
  EXPECT_ERROR(ember::add(c, ember::ones({2, 2}).to_sparse()), NotImplementedError,
               "[add] mixing COO and CSR operands is not supported");
}
