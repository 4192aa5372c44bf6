// In-place and out= forms with a sparse self (add_, mul_, zero_, out=), sparse_mask, is_sparse,
// float16/bfloat16 mm and softmax, and the meta kernels whose result nnz is data-dependent.
#include <gtest/gtest.h>

#include <vector>

#include "SparseTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using ember::test::error_of;

namespace {

const Device kMetaDev(kMeta);

// Values in [1, 4], about `density` of them nonzero.
Tensor random_sparse_dense(std::vector<int64_t> shape, ScalarType dt, double density) {
  Tensor mask = ember::rand(shape).lt(density);
  return ember::randint(4, shape).add(1).mul(mask).to(dt);
}

// An uncoalesced COO tensor of `dense` (each entry split in two halves, listed twice in reverse).
Tensor uncoalesced(const Tensor& dense) {
  const Tensor c = dense.to_sparse();
  const Tensor ix = cat({c.indices().flip({1}), c.indices()}, 1);
  const Tensor half = c.values().div(2).to(dense.scalar_type());
  const Tensor v = cat({half.flip({0}), c.values().sub(half)}, 0);
  return sparse_coo_tensor(ix, v, dense.sizes());
}

}  // namespace

TEST(SparseInPlace, IsSparseAndIsSparseCsr) {
  const Tensor d = ember::ones({2, 3});
  EXPECT_FALSE(d.is_sparse());
  EXPECT_FALSE(d.is_sparse_csr());
  EXPECT_TRUE(d.to_sparse().is_sparse());
  EXPECT_FALSE(d.to_sparse().is_sparse_csr());
  EXPECT_TRUE(d.to_sparse_csr().is_sparse_csr());
  EXPECT_FALSE(d.to_sparse_csr().is_sparse());  // COO only, as LibTorch
}

TEST(SparseInPlace, AddAndMulInPlaceOfASparseSelf) {
  manual_seed(5);
  for (ScalarType dt : {kFloat32, kFloat64, kInt64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor a = random_sparse_dense({6, 5}, dt, 0.4), b = random_sparse_dense({6, 5}, dt, 0.4);
    Tensor s = uncoalesced(a);
    const uint64_t v0 = s._version();
    Tensor& r = s.add_(b.to_sparse(), 2);
    EXPECT_TRUE(r.is_same(s));
    EXPECT_GT(s._version(), v0);
    EXPECT_EQ(s.layout(), kSparse);
    EXPECT_EQ(s.scalar_type(), dt);
    EXPECT_TRUE(s.to_dense().equal(a.add(b, 2)));
    s.mul_(b.to_sparse());
    EXPECT_TRUE(s.to_dense().equal(a.add(b, 2).mul(b)));
    s.mul_(3);
    EXPECT_TRUE(s.to_dense().equal(a.add(b, 2).mul(b).mul(3)));
    // CSR the same.
    Tensor c = a.to_sparse_csr();
    c.add_(b.to_sparse_csr());
    EXPECT_EQ(c.layout(), kSparseCsr);
    EXPECT_TRUE(c.to_dense().equal(a.add(b)));
    c.mul_(2);
    EXPECT_TRUE(c.to_dense().equal(a.add(b).mul(2)));
  }
}

TEST(SparseInPlace, InPlaceKeepsSelfOnError) {
  const Tensor a = ember::tensor({{0, 2}, {3, 0}}, kInt64);
  Tensor s = a.to_sparse();
  // float into int64: the dense rule, and self unchanged.
  EXPECT_ERROR(s.add_(ember::tensor({{0.5, 0.0}, {0.0, 0.0}}).to_sparse()), TypeError,
               "[add] result type float32 can't be cast to the desired output type int64");
  EXPECT_TRUE(s.to_dense().equal(a));
  EXPECT_ERROR(s.add_(ember::ones({2, 2}, kInt64)), ValueError,
               "[add] add(sparse, dense) is not supported. Use add(dense, sparse) instead.");
  EXPECT_TRUE(s.to_dense().equal(a));
  EXPECT_ERROR(s.mul_(2.5), TypeError, "int64");
  EXPECT_TRUE(s.to_dense().equal(a));
  // A sparse result cannot land in a strided self.
  Tensor d = ember::ones({2, 2});
  EXPECT_ERROR(d.mul_(s), NotImplementedError,
               "[mul] writing a result of layout Sparse into self of layout Strided is not supported");
  EXPECT_TRUE(d.equal(ember::ones({2, 2})));
}

TEST(SparseInPlace, ZeroLeavesNoSpecifiedElements) {
  const Tensor a = ember::tensor({{0.f, 2.f, 0.f}, {3.f, 0.f, 4.f}});
  Tensor s = a.to_sparse(1);  // one sparse dim, one dense
  s.zero_();
  EXPECT_EQ(s._nnz(), 0);
  EXPECT_EQ(s.sparse_dim(), 1);
  EXPECT_EQ(s.dense_dim(), 1);
  EXPECT_TRUE(s.is_coalesced());
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 3}));
  EXPECT_TRUE(s.to_dense().equal(ember::zeros({2, 3})));
  Tensor c = a.to_sparse_csr();
  c.zero_();
  EXPECT_EQ(c._nnz(), 0);
  EXPECT_EQ(c.crow_indices().sizes(), IntArrayRef({3}));
  EXPECT_TRUE(c.to_dense().equal(ember::zeros({2, 3})));
}

TEST(SparseInPlace, OutForms) {
  manual_seed(6);
  const Tensor a = random_sparse_dense({4, 5}, kFloat32, 0.5), b = random_sparse_dense({4, 5}, kFloat32, 0.5);
  // sparse + sparse into a sparse out of the same size; dense + sparse into a strided out (resized).
  Tensor out = ember::zeros({4, 5}).to_sparse();
  ember::add_out(out, a.to_sparse(), b.to_sparse());
  EXPECT_TRUE(out.to_dense().equal(a.add(b)));
  Tensor dout = ember::empty({0});
  ember::add_out(dout, a, b.to_sparse());
  EXPECT_TRUE(dout.equal(a.add(b)));
  Tensor mout = ember::zeros({4, 5}, kFloat64).to_sparse();
  ember::mul_out(mout, a.to_sparse(), b);
  EXPECT_EQ(mout.scalar_type(), kFloat64);
  EXPECT_TRUE(mout.to_dense().equal(a.mul(b).to(kFloat64)));
  Tensor wrong = ember::zeros({2, 2}).to_sparse();
  EXPECT_ERROR(ember::add_out(wrong, a.to_sparse(), b.to_sparse()), NotImplementedError,
               "[add] resizing a sparse out (size [2, 2]) to the result's size [4, 5] is not supported");
  Tensor sout = ember::empty({5});
  EXPECT_ERROR(ember::sum_out(sout, a.to_sparse(), {0}), NotImplementedError,
               "[sum] the out= form is not supported with sparse tensors (self: Sparse, out: Strided)");
}

TEST(SparseMask, MatchesTheDenseValuesAtTheMaskPattern) {
  manual_seed(7);
  for (ScalarType dt : {kFloat32, kInt32}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor pattern = random_sparse_dense({5, 6}, kFloat32, 0.4);
    const Tensor x = ember::randint(-5, 5, {5, 6}).to(dt);
    const Tensor keep = pattern.ne(0);
    for (const Tensor& mask : {pattern.to_sparse(), uncoalesced(pattern), pattern.to_sparse_csr()}) {
      SCOPED_TRACE(testing::Message() << mask.layout());
      // Strided self (LibTorch 1.13), and COO/CSR self (later LibTorch): zeros where self has none.
      for (const Tensor& self : {x, x.to_sparse(), uncoalesced(x), x.to_sparse_csr()}) {
        const Tensor r = self.sparse_mask(mask);
        EXPECT_EQ(r.layout(), mask.layout());
        EXPECT_EQ(r.scalar_type(), dt);
        EXPECT_EQ(r._nnz(), mask.layout() == kSparse ? mask.coalesce()._nnz() : mask._nnz());
        EXPECT_TRUE(r.to_dense().equal(x.mul(keep)));
      }
    }
  }
  EXPECT_ERROR(ember::ones({3, 3}).sparse_mask(ember::ones({2, 3}).to_sparse()), ValueError,
               "[sparse_mask] operands have incompatible sizes; self has size [3, 3] but mask has size [2, 3]");
}

TEST(SparseHalf, MmAndAddmmAccumulateInFloat) {
  manual_seed(8);
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    // 64 products of values in [1, 4] and [-2, 2] per output: exact in float, not in 16 bits.
    const Tensor a = random_sparse_dense({9, 200}, kFloat32, 0.5).to(dt);
    const Tensor b = ember::randint(-2, 3, {200, 7}).to(dt);
    const Tensor want = ember::mm(a.to(kFloat32), b.to(kFloat32));
    for (const Tensor& s : {a.to_sparse(), a.to_sparse_csr()}) {
      const Tensor got = ember::mm(s, b);
      EXPECT_EQ(got.scalar_type(), dt);
      // Rounded once at the end: within one unit in the last place of the exact result.
      EXPECT_TRUE(got.to(kFloat32).equal(want.to(dt).to(kFloat32)));
      const Tensor self = ember::ones({9, 7}, dt);
      EXPECT_TRUE(ember::addmm(self, s, b, 2, 3).to(kFloat32).equal(want.mul(3).add(2).to(dt).to(kFloat32)));
    }
  }
}

TEST(SparseHalf, SoftmaxOfHalfValues) {
  manual_seed(9);
  const Tensor x = ember::randn({4, 5}).mul(ember::rand({4, 5}).lt(0.6));
  const Tensor ref = _sparse_softmax(x.to_sparse(), 1, false).to_dense();
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor s = x.to(dt).to_sparse();
    const Tensor got = _sparse_softmax(s, 1, false);
    EXPECT_EQ(got.scalar_type(), dt);
    EXPECT_TRUE(got.to_dense().to(kFloat32).allclose(ref, 1e-2, 1e-2));
    EXPECT_TRUE(_sparse_log_softmax(s, 0, false)
                    .to_dense()
                    .to(kFloat32)
                    .allclose(_sparse_log_softmax(x.to_sparse(), 0, false).to_dense(), 2e-2, 2e-2));
  }
  // Along a dense dimension of a hybrid tensor: the dense softmax of each specified row.
  const Tensor h = x.to_sparse(1);
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    const Tensor got = _sparse_softmax(x.to(dt).to_sparse(1), 1, false);
    EXPECT_EQ(got.scalar_type(), dt);
    EXPECT_TRUE(got.to_dense().to(kFloat32).allclose(_sparse_softmax(h, 1, false).to_dense(), 1e-2, 1e-2));
  }
  EXPECT_ERROR(_sparse_softmax(x.to(kFloat16).to_sparse(), 1, true), NotImplementedError,
               "[_sparse_softmax] softmax with half to float conversion is not supported on CPU");
}

TEST(SparseMeta, DataDependentNnzRaisesNotImplemented) {
  const Tensor cpu = ember::tensor({{0.f, 2.f}, {3.f, 0.f}}).to_sparse();
  const Tensor m = cpu.to(kMetaDev), dm = ember::empty({2, 2}, TensorOptions().device(kMetaDev));
  const std::string nnz = "the result's number of specified elements (nnz) depends on the values";
  EXPECT_ERROR((void)m.add(m), NotImplementedError, "[add] on meta sparse tensors: " + nnz);
  EXPECT_ERROR((void)m.mul(m), NotImplementedError, "[mul] on meta sparse tensors: " + nnz);
  EXPECT_ERROR((void)ember::sum(m, {0}), NotImplementedError, "[sum] on meta sparse tensors: " + nnz);
  EXPECT_ERROR((void)m.to_sparse_csr().add(m.to_sparse_csr()), NotImplementedError, "[add] on meta sparse tensors");
  // Results whose nnz is known: dense + sparse is dense, sparse * dense keeps the pattern.
  const Tensor sum = dm.add(m);
  EXPECT_TRUE(sum.is_meta());
  EXPECT_EQ(sum.layout(), kStrided);
  Tensor acc = dm.clone();
  EXPECT_TRUE(acc.add_(m).is_same(acc));  // dense += sparse: nnz does not matter
  Tensor iacc = ember::empty({2, 2}, TensorOptions().dtype(kInt64).device(kMetaDev));
  EXPECT_ERROR(iacc.add_(m), TypeError, "[add] result type float32 can't be cast to the desired output type int64");
  Tensor dout = ember::empty({0}, TensorOptions().device(kMetaDev));
  ember::add_out(dout, dm, m);
  EXPECT_EQ(dout.sizes(), IntArrayRef({2, 2}));
  const Tensor prod = m.mul(dm.to(kFloat64));
  EXPECT_EQ(prod.layout(), kSparse);
  EXPECT_EQ(prod.scalar_type(), kFloat64);
  EXPECT_EQ(prod._nnz(), 2);
  Tensor z = m.clone();
  z.zero_();
  EXPECT_EQ(z._nnz(), 0);
  EXPECT_EQ(dm.sparse_mask(m)._nnz(), 2);
  EXPECT_EQ(dm.sparse_mask(m.to_sparse_csr()).layout(), kSparseCsr);
  Tensor y = m.clone();
  y.mul_(2);
  EXPECT_EQ(y._nnz(), 2);
  y.mul_(dm);  // sparse *= dense keeps the pattern
  EXPECT_EQ(y._nnz(), 2);
  EXPECT_ERROR(y.mul_(dm.to(kFloat64).mul(m.to(kFloat64))), NotImplementedError, "[mul] on meta sparse tensors");
  // The softmax backward has the output's pattern; the same checks as on the CPU.
  for (const Tensor& s : {cpu, m}) {
    const Tensor out = _sparse_softmax(s, 1, false);
    const Tensor g = _sparse_softmax_backward_data(out, out, 1, s);
    EXPECT_EQ(g.layout(), kSparse);
    EXPECT_EQ(g._nnz(), 2);
    EXPECT_EQ(g.device(), s.device());
    EXPECT_ERROR((void)_sparse_softmax_backward_data(out, out, 2, s), IndexError, "dim");
    EXPECT_ERROR((void)_sparse_log_softmax_backward_data(out.to_dense(), out.to_dense(), 1, s), ValueError,
                 "[_sparse_log_softmax_backward_data] expected output to be a sparse COO tensor, got layout Strided");
  }
}
