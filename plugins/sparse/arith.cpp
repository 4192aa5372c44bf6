// Elementwise add/mul with sparse and dense operands, and sum by dim, as LibTorch: dense + sparse
// is dense, sparse + sparse and sparse * (sparse or dense) are sparse, sparse + dense is refused,
// and operand sizes must match (no broadcasting). Values move through dense operators, so dtypes
// and promotion are the dense kernels'. The in-place and out= forms compute the functional result
// and write it into self/out (assign_sparse_result); multiplication by a scalar, sum and zero_ are
// there too (ember/native/SparseRules.h: the same on every backend).
#include "SparseUtil.h"
#include "ember/core/TypePromotion.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

namespace {

// `dense` viewed as [rows of the sparse dims, dense dims...].
Tensor rows_view(const Tensor& dense, int64_t sparse_dim) {
  std::vector<int64_t> flat{-1};
  flat.insert(flat.end(), dense.sizes().begin() + sparse_dim, dense.sizes().end());
  return dense.reshape(flat);
}

// self (dense) += alpha * other (COO), in place: self's dtype must hold the promoted result.
void add_sparse_into_dense(const char* op, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const auto& b = sparse_coo_impl(other, op);
  EMBER_CHECK(self.sizes() == other.sizes(),
              "[{}] expected 'self' and 'other' to have same size, but self has size {} while other has size {} "
              "(FYI: dense-sparse addition does not currently support broadcasting)",
              op, self.sizes(), other.sizes());
  const ScalarType rt = promote_types(self.scalar_type(), other.scalar_type());
  EMBER_CHECK_TYPE(can_cast(rt, self.scalar_type()), "[{}] result type {} can't be cast to the desired output type {}",
                   op, rt, self.scalar_type());
  if (b.nnz() == 0) return;
  // A contiguous self is written through a view; otherwise through a copy written back.
  Tensor target = self.is_contiguous() ? self : self.contiguous();
  Tensor rows = rows_view(target, b.sparse_dim());
  index_put_(rows, {linear_index(b.indices(), other.sizes())}, b.values().mul(alpha).to(self.scalar_type()),
             /*accumulate=*/true);
  if (!self.is_contiguous()) self.copy_(target);
}

}  // namespace

void add_out_sparse(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) {
  const char* op = "add";
  if (kind == OutKind::InPlace && self.layout() == kStrided && other.layout() == kSparse) {
    add_sparse_into_dense(op, self, other, alpha);
    return;
  }
  if (kind != OutKind::Functional) {
    Tensor r;
    add_out_sparse(self, other, alpha, r, OutKind::Functional);
    native::assign_sparse_result(op, r, out, kind);
    return;
  }
  EMBER_CHECK(self.layout() != kSparse || other.layout() != kStrided,
              "[{}] add(sparse, dense) is not supported. Use add(dense, sparse) instead.", op);
  EMBER_CHECK_NOT_IMPLEMENTED(self.layout() != kSparseCsr && other.layout() != kSparseCsr,
                              "[{}] mixing COO and CSR operands is not supported", op);
  const ScalarType rt = promote_types(self.scalar_type(), other.scalar_type());
  const auto& b = sparse_coo_impl(other, op);
  if (self.layout() == kStrided) {
    EMBER_CHECK(self.sizes() == other.sizes(),
                "[{}] expected 'self' and 'other' to have same size, but self has size {} while other has size {} "
                "(FYI: dense-sparse addition does not currently support broadcasting)",
                op, self.sizes(), other.sizes());
    out = empty(self.sizes(), self.options().dtype(rt));
    out.copy_(self);
    if (b.nnz() > 0) {
      Tensor rows = rows_view(out, b.sparse_dim());  // a view: writes land in out
      index_put_(rows, {linear_index(b.indices(), other.sizes())}, b.values().mul(alpha).to(rt), /*accumulate=*/true);
    }
    return;
  }
  const auto& a = sparse_coo_impl(self, op);
  EMBER_CHECK(self.sizes() == other.sizes(), "[{}] expected sizes of 'self' and 'other' to match, but {} != {}", op,
              self.sizes(), other.sizes());
  EMBER_CHECK(a.sparse_dim() == b.sparse_dim(),
              "[{}] expected 'self' and 'other' to have the same sparse_dim, but got {} and {}", op, a.sparse_dim(),
              b.sparse_dim());
  const Tensor va = a.values().to(rt), vb = b.values().mul(alpha).to(rt);
  if (!a.coalesced() || !b.coalesced()) {
    Tensor indices = cat({a.indices(), b.indices()}, 1).contiguous();
    out = coalesce_sparse(make_sparse_coo(self.sizes(), std::move(indices), cat({va, vb}, 0), false));
    return;
  }
  // Two sorted patterns merge without a sort: an entry's place is its rank in its own operand plus
  // the number of the other's entries before it (self's first on a tie).
  const int64_t na = a.nnz(), nb = b.nnz();
  const Tensor la = linear_index(a.indices(), self.sizes()), lb = linear_index(b.indices(), self.sizes());
  const Tensor pa = arange(na, index_options(la)).add(searchsorted(lb, la));
  const Tensor pb = arange(nb, index_options(lb)).add(searchsorted(la, lb, false, /*right=*/true));
  Tensor lin = empty({na + nb}, index_options(la));
  std::vector<int64_t> vs(va.sizes().begin(), va.sizes().end());
  vs[0] = na + nb;
  Tensor values = empty(vs, va.options());
  index_put_(lin, {pa}, la);
  index_put_(lin, {pb}, lb);
  index_put_(values, {pa}, va);
  index_put_(values, {pb}, vb);
  out = coalesce_sorted(self.sizes(), a.sparse_dim(), lin, values);
}

void mul_out_sparse(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  const char* op = "mul";
  if (kind != OutKind::Functional) {
    Tensor r;
    mul_out_sparse(self, other, r, OutKind::Functional);
    native::assign_sparse_result(op, r, out, kind);
    return;
  }
  EMBER_CHECK_NOT_IMPLEMENTED(self.layout() != kSparseCsr && other.layout() != kSparseCsr,
                              "[{}] mixing COO and CSR operands is not supported", op);
  EMBER_CHECK(self.sizes() == other.sizes(), "[{}] expected sizes of 'self' and 'other' to match, but {} != {}", op,
              self.sizes(), other.sizes());
  if (self.layout() == kStrided || other.layout() == kStrided) {
    // sparse * dense: the dense entries at the sparse positions; the pattern is the sparse one's.
    const Tensor& s = self.layout() == kSparse ? self : other;
    const Tensor& d = self.layout() == kSparse ? other : self;
    const auto& a = sparse_coo_impl(s, op);
    const Tensor picked = index_select(rows_view(d, a.sparse_dim()), 0, linear_index(a.indices(), s.sizes()));
    out = make_sparse_coo(s.sizes(), a.indices(), a.values().mul(picked).contiguous(), a.coalesced());
    return;
  }
  // sparse * sparse: the intersection of the two coalesced patterns.
  const Tensor ca = coalesce_sparse(self), cb = coalesce_sparse(other);
  const auto& a = sparse_coo_impl(ca, op);
  const auto& b = sparse_coo_impl(cb, op);
  EMBER_CHECK(a.sparse_dim() == b.sparse_dim(),
              "[{}] expected 'self' and 'other' to have the same sparse_dim, but got {} and {}", op, a.sparse_dim(),
              b.sparse_dim());
  // Both patterns are sorted: each of a's entries looks itself up in b's.
  const Tensor la = linear_index(a.indices(), self.sizes()), lb = linear_index(b.indices(), self.sizes());
  Tensor ta, tb;
  if (b.nnz() == 0) {
    ta = tb = empty({0}, index_options(la));
  } else {
    const Tensor pos = searchsorted(lb, la).clamp_max(b.nnz() - 1);
    ta = nonzero(lb.index_select(0, pos).eq(la)).reshape({-1});
    tb = pos.index_select(0, ta);
  }
  Tensor values = index_select(a.values(), 0, ta).mul(index_select(b.values(), 0, tb)).contiguous();
  out = make_sparse_coo(self.sizes(), index_select(a.indices(), 1, ta).contiguous(), std::move(values), true);
}

Tensor& sum_intlist_out_sparse(const Tensor& self, IntArrayRef, bool, std::optional<ScalarType>, Tensor& out) {
  EMBER_THROW(NotImplementedError, "[sum] the out= form is not supported with sparse tensors (self: {}, out: {})",
              self.layout(), out.layout());
}

// As torch.sparse.sum: dense when every sparse dimension is reduced, else a coalesced COO tensor.
Tensor sum_dim_sparse(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "sum";
  const auto& a = sparse_coo_impl(self, op);
  EMBER_CHECK_NOT_IMPLEMENTED(!keepdim, "[{}] keepdim=true with a sparse input is not supported", op);
  if (dim.empty()) return a.values().sum(dtype);
  const int64_t sd = a.sparse_dim(), nd = self.dim();
  std::vector<bool> reduce(static_cast<size_t>(nd), false);
  for (int64_t d : dim) {
    const int64_t w = maybe_wrap_dim(d, nd, op);
    EMBER_CHECK(!reduce[static_cast<size_t>(w)], "[{}] dim {} appears multiple times in the list of dims", op, w);
    reduce[static_cast<size_t>(w)] = true;
  }
  // The dense sum's dtype: integers (and bool) accumulate in int64 unless a dtype is given.
  const ScalarType st = self.scalar_type();
  const ScalarType rt = dtype ? *dtype : (is_integral_type(st, /*include_bool=*/true) ? kInt64 : st);
  Tensor values = a.values().to(rt);
  std::vector<int64_t> dense_dims;  // in the values' numbering (dimension 0 is nnz)
  for (int64_t d = sd; d < nd; ++d)
    if (reduce[static_cast<size_t>(d)]) dense_dims.push_back(d - sd + 1);
  if (!dense_dims.empty()) values = values.sum(dense_dims);
  std::vector<int64_t> kept_sparse, sizes;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduce[static_cast<size_t>(d)]) continue;
    sizes.push_back(self.size(d));
    if (d < sd) kept_sparse.push_back(d);
  }
  if (kept_sparse.empty()) return values.sum(0);
  std::vector<Tensor> rows;
  for (int64_t d : kept_sparse) rows.push_back(a.indices().select(0, d));
  Tensor indices = stack(rows, 0).contiguous();
  return coalesce_sparse(make_sparse_coo(sizes, std::move(indices), values.contiguous(), false));
}

namespace {

// CSR operands go through COO (the one implementation); a sparse 2-D result comes back as CSR.
Tensor as_coo(const Tensor& t) { return t.layout() == kSparseCsr ? t.to_sparse() : t; }
Tensor as_csr(const Tensor& t) { return t.layout() == kSparse ? t.to_sparse_csr() : t; }

void check_no_coo(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_NOT_IMPLEMENTED(a.layout() != kSparse && b.layout() != kSparse,
                              "[{}] mixing COO and CSR operands is not supported", op);
}

}  // namespace

void add_out_sparse_csr(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) {
  check_no_coo("add", self, other);
  Tensor r;
  add_out_sparse(as_coo(self), as_coo(other), alpha, r, OutKind::Functional);
  if (kind == OutKind::Functional)
    out = as_csr(r);
  else
    native::assign_sparse_result("add", as_csr(r), out, kind);
}

void mul_out_sparse_csr(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  check_no_coo("mul", self, other);
  Tensor r;
  mul_out_sparse(as_coo(self), as_coo(other), r, OutKind::Functional);
  if (kind == OutKind::Functional)
    out = as_csr(r);
  else
    native::assign_sparse_result("mul", as_csr(r), out, kind);
}

// Through COO: a 1-D COO tensor when one dimension is kept, dense when both are reduced.
Tensor sum_dim_sparse_csr(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_dim_sparse(self.to_sparse(), dim, keepdim, dtype);
}

}  // namespace ember::sparse
