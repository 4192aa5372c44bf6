// COO and CSR tensors: construction with LibTorch 1.13's checks and messages (the texts after
// the [op] prefix are LibTorch's), accessors, coalesce, and the conversions to and from dense
// tensors checked against the dense tensor for random sparsity patterns over dtypes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "SparseTestUtil.h"
#include "ember/ember.h"
#include "ember/sparse/SparseTensorImpl.h"

using namespace ember;

namespace {

using ember::test::error_of;

Tensor i64(std::initializer_list<TensorLiteral> v) { return ember::tensor(v, kInt64); }

// A dense tensor of `dt` with about `density` of its entries nonzero (values in [1, 5]).
Tensor random_sparse_dense(std::vector<int64_t> shape, ScalarType dt, double density) {
  Tensor mask = ember::rand(shape).lt(density);
  Tensor vals = ember::randint(4, shape).add(1);
  return vals.mul(mask).to(dt);
}

const std::vector<ScalarType> kDtypes = {kFloat32, kFloat64, kInt64, kInt32, kInt16, kInt8, kUInt8};

}  // namespace

TEST(SparseCoo, ConstructsWithSizeAndAccessors) {
  Tensor i = i64({{0, 1, 1}, {2, 0, 2}});
  Tensor v = ember::tensor({3.f, 4.f, 5.f});
  Tensor s = sparse_coo_tensor(i, v, {2, 3});
  EXPECT_EQ(s.layout(), kSparse);
  EXPECT_EQ(s.key_set(), DispatchKeySet(DispatchKey::SparseCPU));
  EXPECT_FALSE(s.has_storage());
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(s.scalar_type(), kFloat32);
  EXPECT_EQ(s._nnz(), 3);
  EXPECT_EQ(s.sparse_dim(), 2);
  EXPECT_EQ(s.dense_dim(), 0);
  EXPECT_FALSE(s.is_coalesced());
  EXPECT_TRUE(s._indices().equal(i));
  EXPECT_TRUE(s._values().equal(v));
  EXPECT_TRUE(s.to_dense().equal(ember::tensor({{0.f, 0.f, 3.f}, {4.f, 0.f, 5.f}})));
  EXPECT_ERROR(s.indices(), ValueError,
               "[indices] Cannot get indices on an uncoalesced tensor, please call .coalesce() first");
  EXPECT_ERROR(s.values(), ValueError,
               "[values] Cannot get values on an uncoalesced tensor, please call .coalesce() first");
  EXPECT_ERROR(s.crow_indices(), Error, "crow_indices");
  // The subclass survives detach (a shallow copy sharing the members).
  Tensor d = s.detach();
  EXPECT_EQ(d.layout(), kSparse);
  EXPECT_TRUE(d._values().equal(v));
}

TEST(SparseCoo, InfersSizeAndConvertsDtype) {
  Tensor i = i64({{0, 1, 1}, {2, 0, 2}});
  Tensor s = sparse_coo_tensor(i, ember::ones({3, 2}));
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 3, 2}));
  EXPECT_EQ(s.sparse_dim(), 2);
  EXPECT_EQ(s.dense_dim(), 1);
  Tensor d = sparse_coo_tensor(i, ember::tensor({1.f, 2.f, 3.f}), {4, 5}, kFloat64);
  EXPECT_EQ(d.scalar_type(), kFloat64);
  EXPECT_EQ(d._values().scalar_type(), kFloat64);
  Tensor e = sparse_coo_tensor({2, 3}, TensorOptions().layout(kSparse));
  EXPECT_EQ(e._nnz(), 0);
  EXPECT_EQ(e.sparse_dim(), 2);
  EXPECT_TRUE(e.to_dense().equal(ember::zeros({2, 3})));
  // One element: coalesced by construction, as LibTorch.
  EXPECT_TRUE(sparse_coo_tensor(i64({{1}, {2}}), ember::tensor({1.f}), {2, 3}).is_coalesced());
}

TEST(SparseCoo, RejectsBadArgumentsWithLibTorchMessages) {
  Tensor i = i64({{0, 1, 1}, {2, 0, 2}});
  Tensor v = ember::tensor({3.f, 4.f, 5.f});
  EXPECT_ERROR(sparse_coo_tensor(i, v, {2, 2}), ValueError,
               "[sparse_coo_tensor] size is inconsistent with indices: for dim 1, size is 2 but found index 2");
  EXPECT_ERROR(sparse_coo_tensor(i.to(kInt32), v, {2, 3}), TypeError,
               "[sparse_coo_tensor] expected indices of scalar type Int64 but found int32");
  EXPECT_ERROR(sparse_coo_tensor(i, ember::tensor({1.f, 2.f}), {2, 3}), ValueError,
               "[sparse_coo_tensor] indices and values must have same nnz, but got nnz from indices: 3, nnz from "
               "values: 2");
  EXPECT_ERROR(sparse_coo_tensor(i.select(0, 0), v, {2, 3}), ValueError,
               "[sparse_coo_tensor] indices must be sparse_dim x nnz, but got: [3]");
  EXPECT_ERROR(sparse_coo_tensor(i.neg(), v, {2, 3}), ValueError,
               "[sparse_coo_tensor] found negative index -1 for dim 0");
  EXPECT_ERROR(sparse_coo_tensor(i, v, {2, 3, 4}), ValueError,
               "[sparse_coo_tensor] number of dimensions must be sparse_dim (2) + dense_dim (0), but got 3");
  EXPECT_ERROR(sparse_coo_tensor(i, ember::ones({3, 2}), {2, 3, 3}), ValueError,
               "[sparse_coo_tensor] values has incorrect size, expected [3, 3], got [3, 2]");
}

TEST(SparseCoo, CoalesceSumsDuplicatesAndSortsIndices) {
  Tensor i = i64({{1, 0, 1, 0}, {2, 0, 2, 1}});
  Tensor s = sparse_coo_tensor(i, ember::tensor({3.f, 4.f, 5.f, 6.f}), {2, 3});
  Tensor c = s.coalesce();
  EXPECT_TRUE(c.is_coalesced());
  EXPECT_EQ(c._nnz(), 3);
  EXPECT_TRUE(c.indices().equal(i64({{0, 0, 1}, {0, 1, 2}})));
  EXPECT_TRUE(c.values().equal(ember::tensor({4.f, 6.f, 8.f})));
  EXPECT_TRUE(s.to_dense().equal(c.to_dense()));
  EXPECT_TRUE(s.to_dense().equal(ember::tensor({{4.f, 6.f, 0.f}, {0.f, 0.f, 8.f}})));
  // Already coalesced: the same tensor back.
  EXPECT_EQ(c.coalesce().unsafeGetTensorImpl(), c.unsafeGetTensorImpl());
  EXPECT_ERROR(s.to_dense(kFloat64), ValueError, "[to_dense] dtype argument is not supported by sparse_to_dense");
}

TEST(SparseCoo, DenseRoundTripOverDtypesAndPatterns) {
  manual_seed(7);
  for (ScalarType dt : kDtypes) {
    for (double density : {0.0, 0.1, 0.5, 1.0}) {
      Tensor d = random_sparse_dense({5, 4, 3}, dt, density);
      for (int64_t sd : {0, 1, 2, 3}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " density " + std::to_string(density) + " sparse_dim " +
                     std::to_string(sd));
        Tensor s = d.to_sparse(sd);
        EXPECT_EQ(s.sparse_dim(), sd);
        EXPECT_EQ(s.dense_dim(), 3 - sd);
        EXPECT_TRUE(s.is_coalesced());
        EXPECT_EQ(s.scalar_type(), dt);
        EXPECT_TRUE(s.to_dense().equal(d));
      }
      Tensor s = d.to_sparse();
      EXPECT_EQ(s._nnz(), d.ne(0).sum().item<int64_t>());
    }
  }
  EXPECT_ERROR(ember::ones({2, 2}).to_sparse(3), ValueError,
               "[to_sparse] sparse_dim must be less than or equal to self.dim()");
}

TEST(SparseCsr, ConstructsAndConverts) {
  Tensor cr = i64({0, 1, 3}), co = i64({1, 0, 2});
  Tensor v = ember::tensor({1.f, 2.f, 3.f});
  Tensor s = sparse_csr_tensor(cr, co, v, {2, 3});
  EXPECT_EQ(s.layout(), kSparseCsr);
  EXPECT_EQ(s.key_set(), DispatchKeySet(DispatchKey::SparseCsrCPU));
  EXPECT_EQ(s._nnz(), 3);
  EXPECT_EQ(s.sparse_dim(), 2);
  EXPECT_EQ(s.dense_dim(), 0);
  EXPECT_TRUE(s.crow_indices().equal(cr));
  EXPECT_TRUE(s.col_indices().equal(co));
  EXPECT_TRUE(s.values().equal(v));
  const Tensor dense = ember::tensor({{0.f, 1.f, 0.f}, {2.f, 0.f, 3.f}});
  EXPECT_TRUE(s.to_dense().equal(dense));
  EXPECT_EQ(sparse_csr_tensor(cr, co, v).sizes(), IntArrayRef({2, 3}));
  EXPECT_TRUE(sparse_csr_tensor(cr.to(kInt32), co.to(kInt32), v, {2, 3}).to_dense().equal(dense));
  Tensor coo = s.to_sparse();
  EXPECT_EQ(coo.layout(), kSparse);
  EXPECT_TRUE(coo.indices().equal(i64({{0, 1, 1}, {1, 0, 2}})));
  EXPECT_TRUE(coo.to_dense().equal(dense));
  Tensor back = coo.to_sparse_csr();
  EXPECT_TRUE(back.crow_indices().equal(cr));
  EXPECT_TRUE(back.col_indices().equal(co));
  EXPECT_TRUE(dense.to_sparse_csr().values().equal(v));
  EXPECT_ERROR(s.indices(), Error, "indices");
}

TEST(SparseCsr, RejectsBadArgumentsWithLibTorchMessages) {
  Tensor cr = i64({0, 1, 3}), co = i64({1, 0, 2});
  Tensor v = ember::tensor({1.f, 2.f, 3.f});
  EXPECT_ERROR(sparse_csr_tensor(cr, co, v, {2, 2}), ValueError,
               "[sparse_csr_tensor] `0 <= col_indices < ncols` is not satisfied.");
  EXPECT_ERROR(sparse_csr_tensor(cr, co, v, {3, 3}), ValueError,
               "[sparse_csr_tensor] crow_indices.shape[-1] must be equal to the number of rows + 1 (=4), but got 3");
  EXPECT_ERROR(sparse_csr_tensor(i64({1, 1, 3}), co, v, {2, 3}), ValueError,
               "[sparse_csr_tensor] `crow_indices[..., 0] == 0` is not satisfied.");
  EXPECT_ERROR(sparse_csr_tensor(i64({0, 2, 1}), co, v, {2, 3}), ValueError,
               "[sparse_csr_tensor] `crow_indices[..., -1] == nnz` is not satisfied.");
  EXPECT_ERROR(sparse_csr_tensor(i64({0, 2, 3}).mul(1), co, v, {2, 1}), ValueError,
               "[sparse_csr_tensor] `0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.");
  EXPECT_ERROR(sparse_csr_tensor(cr, i64({1, 0}), v, {2, 3}), ValueError,
               "[sparse_csr_tensor] col_indices.shape[-1] must be equal to nnz (=3) as defined by values.shape[0], "
               "but got 2");
  EXPECT_ERROR(sparse_csr_tensor(cr, co.to(kInt32), v, {2, 3}), TypeError,
               "[sparse_csr_tensor] crow_indices and col_indices must have the same dtype, but got int64 and int32, "
               "respectively");
  EXPECT_ERROR(sparse_csr_tensor(cr, i64({1, 0, -1}), v, {2, 3}), ValueError,
               "[sparse_csr_tensor] `0 <= col_indices < ncols` is not satisfied.");
  EXPECT_ERROR(sparse_csr_tensor(cr, co, v, {2, 3, 4}), NotImplementedError,
               "[sparse_csr_tensor] batched CSR (size [2, 3, 4]) is not supported");
}

TEST(SparseCsr, DenseRoundTripOverDtypesAndPatterns) {
  manual_seed(11);
  for (ScalarType dt : kDtypes) {
    for (double density : {0.0, 0.05, 0.3, 1.0}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " density " + std::to_string(density));
      Tensor d = random_sparse_dense({7, 9}, dt, density);
      Tensor s = d.to_sparse_csr();
      EXPECT_EQ(s.scalar_type(), dt);
      EXPECT_EQ(s._nnz(), d.ne(0).sum().item<int64_t>());
      EXPECT_TRUE(s.to_dense().equal(d));
      EXPECT_TRUE(s.to_sparse().to_dense().equal(d));
      EXPECT_TRUE(d.to_sparse().to_sparse_csr().to_dense().equal(d));
    }
  }
}

TEST(SparseCoo, PrintsAsLibTorch) {
  Tensor s = sparse_coo_tensor(i64({{0, 1, 1}, {2, 0, 2}}), ember::tensor({3.f, 4.f, 5.f}), {2, 3});
  std::ostringstream os;
  os << s;
  // LibTorch 1.13's output for the same tensor.
  EXPECT_EQ(os.str(),
            "[ SparseCPUFloatType{}\nindices:\n 0  1  1\n 2  0  2\n[ CPULongType{2,3} ]\nvalues:\n 3\n 4\n 5\n"
            "[ CPUFloatType{3} ]\nsize:\n[2, 3]\n]");
}

TEST(SparseCoo, TransposeSwapsIndexRowsOrValueDims) {
  manual_seed(19);
  Tensor d = random_sparse_dense({4, 3, 2, 5}, kFloat32, 0.4);
  Tensor s = d.to_sparse(2);
  Tensor t = s.transpose(0, 1);
  EXPECT_EQ(t.layout(), kSparse);
  EXPECT_EQ(t.sizes(), IntArrayRef({3, 4, 2, 5}));
  EXPECT_TRUE(t._indices().select(0, 0).equal(s._indices().select(0, 1)));
  EXPECT_TRUE(t.to_dense().equal(d.transpose(0, 1)));
  EXPECT_TRUE(s.transpose(-1, 2).to_dense().equal(d.transpose(2, 3)));
  Tensor m = d.select(2, 0).select(2, 0).to_sparse();
  EXPECT_TRUE(m.t().to_dense().equal(m.to_dense().t()));
  EXPECT_ERROR(s.transpose(1, 2), NotImplementedError,
               "[transpose] swapping a sparse dimension (1) with a dense one (2) is not supported");
  EXPECT_ERROR(m.to_sparse_csr().t(), NotImplementedError, "[transpose] transposing a CSR tensor is not supported");
}

// The accessors return aliases of the members, as LibTorch's: the same data and version counter,
// but a fresh impl, so autograd metadata set on a result never lands on the member (which would
// tie the sparse tensor into a reference cycle through the result's grad_fn).
TEST(SparseCoo, AccessorsReturnAliasesOfTheMembers) {
  Tensor s = sparse_coo_tensor(i64({{0, 1}, {1, 0}}), ember::tensor({1.0f, 2.0f}), {2, 2});
  Tensor v1 = s._values(), v2 = s._values();
  EXPECT_NE(v1.unsafeGetTensorImpl(), v2.unsafeGetTensorImpl());
  EXPECT_EQ(v1.data_ptr(), v2.data_ptr());
  const auto before = v2._version();
  v1.add_(1);
  EXPECT_EQ(v2._version(), before + 1);
  EXPECT_EQ(s.to_dense()[0][1].item<float>(), 2.0f);
  EXPECT_NE(s._indices().unsafeGetTensorImpl(), s._indices().unsafeGetTensorImpl());

  Tensor c = s.to_dense().to_sparse_csr();
  for (auto get : {+[](const Tensor& t) { return t.values(); }, +[](const Tensor& t) { return t.crow_indices(); },
                   +[](const Tensor& t) { return t.col_indices(); }}) {
    Tensor a = get(c), b = get(c);
    EXPECT_NE(a.unsafeGetTensorImpl(), b.unsafeGetTensorImpl());
    EXPECT_EQ(a.data_ptr(), b.data_ptr());
  }
}

// An operator with no sparse kernel names the plugin that holds sparse kernels, not the device's.
EMBER_LIBRARY(tsparsehint, m) { m.def("noop(Tensor x) -> Tensor"); }
EMBER_LIBRARY_IMPL(tsparsehint, CPU, m) {
  m.impl("noop", [](const Tensor& x) { return x; });
}

TEST(SparseCoo, MissingKernelErrorNamesTheSparsePlugin) {
  auto op = Dispatcher::singleton().findSchemaOrThrow("tsparsehint::noop", "").typed<Tensor(const Tensor&)>();
  Tensor s = sparse_coo_tensor(i64({{0}, {1}}), ember::tensor({1.0f}), {2, 2});
  const std::string msg = error_of([&] { op.call(s); });
  EXPECT_NE(msg.find("no kernel for dispatch key SparseCPU"), std::string::npos) << msg;
  EXPECT_NE(msg.find("load plugin 'sparse' (ember::plugins::load(\"sparse\")) for SparseCPU kernels"),
            std::string::npos)
      << msg;
  EXPECT_NE(error_of([&] { op.call(s.to_dense().to_sparse_csr()); }).find("load plugin 'sparse'"), std::string::npos);
}
