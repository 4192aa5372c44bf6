// SparseMeta/SparseCsrMeta: the shape rules of the sparse kernels on meta tensors give the CPU
// kernels' layouts, sizes, dtypes and errors.
#include <gtest/gtest.h>

#include <string>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"

using namespace ember;

namespace {

using ember::test::error_of;

const Device kMetaDev(kMeta);

}  // namespace

TEST(SparseMeta, CooShapesMatchCpu) {
  Tensor cpu = sparse_coo_tensor(ember::tensor({{1, 0, 1}, {2, 0, 2}}, kInt64), ember::tensor({3.f, 4.f, 5.f}), {2, 3});
  Tensor m = cpu.to(kMetaDev);
  EXPECT_EQ(m.layout(), kSparse);
  EXPECT_EQ(m.key_set(), DispatchKeySet(DispatchKey::SparseMeta));
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(m._nnz(), 3);
  EXPECT_EQ(m.sparse_dim(), 2);
  EXPECT_EQ(m.dense_dim(), 0);
  EXPECT_FALSE(m.is_coalesced());
  EXPECT_TRUE(m._indices().is_meta());
  Tensor d = m.to_dense();
  EXPECT_TRUE(d.is_meta());
  EXPECT_EQ(d.sizes(), IntArrayRef({2, 3}));
  Tensor c = m.coalesce();
  EXPECT_TRUE(c.is_coalesced());
  EXPECT_EQ(c._nnz(), 3);  // an upper bound: the values decide
  EXPECT_EQ(m.mul(2.5).scalar_type(), kFloat32);
  EXPECT_EQ(m.sum(kFloat64).scalar_type(), kFloat64);
  EXPECT_EQ(m.sum().dim(), 0);
  Tensor r = ember::mm(m, ember::empty({3, 5}, TensorOptions().device(kMetaDev)));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 5}));
  EXPECT_EQ(ember::mm(ember::empty({4, 2}, TensorOptions().device(kMetaDev)), m).sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(_sparse_softmax(m, 1, false).layout(), kSparse);
  // The same errors as the CPU kernels.
  for (const Tensor& s : {cpu, m}) {
    const Device dev = s.device();
    EXPECT_EQ(error_of([&] {
                (void)ember::mm(s, ember::empty({4, 5}, TensorOptions().device(dev)));
              }),
              "[mm] Argument #3 (dense): Expected dim 0 size 3, got 4");
    EXPECT_EQ(error_of([&] { (void)s.indices(); }),
              "[indices] Cannot get indices on an uncoalesced tensor, please call .coalesce() first");
    EXPECT_EQ(error_of([&] {
                (void)ember::addmm(ember::empty({3, 5}, TensorOptions().device(dev)), s,
                                   ember::empty({3, 5}, TensorOptions().device(dev)));
              }),
              error_of([&] {
                (void)ember::empty({3, 5}).expand({2, 5});
              }));
  }
}

TEST(SparseMeta, CsrShapesMatchCpu) {
  Tensor cpu = ember::tensor({{0.f, 1.f, 0.f}, {2.f, 0.f, 3.f}}).to_sparse_csr();
  Tensor m = cpu.to(kMetaDev);
  EXPECT_EQ(m.layout(), kSparseCsr);
  EXPECT_EQ(m.key_set(), DispatchKeySet(DispatchKey::SparseCsrMeta));
  EXPECT_EQ(m._nnz(), 3);
  EXPECT_TRUE(m.crow_indices().is_meta());
  EXPECT_EQ(m.to_dense().sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(ember::mm(m, ember::empty({3, 4}, TensorOptions().device(kMetaDev))).sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(m.mul(2).layout(), kSparseCsr);
}
