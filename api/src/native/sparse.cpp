// The sparse constructors and the conversions from a dense tensor (Note [Sparse tensors] in
// ember/sparse/SparseTensorImpl.h): argument checks as LibTorch's, then device-generic operators.
// Checks that read index values run on CPU tensors only (a meta tensor has none to read).
#include <numeric>

#include "Composite.h"
#include "ember/sparse/SparseTensorImpl.h"

namespace ember::native {

namespace {

constexpr const char* kCoo = "sparse_coo_tensor";
constexpr const char* kCsr = "sparse_csr_tensor";

void check_sparse_options(const char* op, OptLayout layout, Layout want, OptBool pin_memory) {
  check_no_pin_memory(op, pin_memory);
  EMBER_CHECK(!layout || *layout == want, "[{}] expected layout {}, got {}", op, want, *layout);
}

// Values in the requested dtype and on the requested device; indices on the same device.
Tensor options_values(const Tensor& values, OptDtype dtype, OptDevice device) {
  Tensor v = values;
  if (dtype && *dtype != v.scalar_type()) v = v.to(*dtype);
  if (device && *device != v.device()) v = v.to(*device);
  return v.contiguous();
}

void check_coo_indices(const char* op, const Tensor& indices, const Tensor& values) {
  EMBER_CHECK_TYPE(indices.scalar_type() == kInt64, "[{}] expected indices of scalar type Int64 but found {}", op,
                   indices.scalar_type());
  EMBER_CHECK(indices.dim() == 2, "[{}] indices must be sparse_dim x nnz, but got: {}", op, indices.sizes());
  EMBER_CHECK(values.dim() >= 1, "[{}] values must be nnz x dense sizes..., but got a 0-dim tensor", op);
  EMBER_CHECK(indices.size(1) == values.size(0),
              "[{}] indices and values must have same nnz, but got nnz from indices: {}, nnz from values: {}", op,
              indices.size(1), values.size(0));
  EMBER_CHECK(indices.device() == values.device(), "[{}] indices and values must be on one device, got {} and {}", op,
              indices.device(), values.device());
}

// Per sparse dimension, the largest index + 1 (0 when nnz is 0); checks that none is negative.
std::vector<int64_t> coo_index_bounds(const char* op, const Tensor& indices) {
  const int64_t sd = indices.size(0), nnz = indices.size(1);
  std::vector<int64_t> bound(static_cast<size_t>(sd), 0);
  if (indices.is_meta()) return bound;  // no values to check
  const Tensor ix = indices.cpu().contiguous();
  const int64_t* p = ix.data_ptr<int64_t>();
  for (int64_t d = 0; d < sd; ++d) {
    for (int64_t k = 0; k < nnz; ++k) {
      const int64_t i = p[d * nnz + k];
      EMBER_CHECK(i >= 0, "[{}] found negative index {} for dim {}", op, i, d);
      bound[static_cast<size_t>(d)] = std::max(bound[static_cast<size_t>(d)], i + 1);
    }
  }
  return bound;
}

Tensor make_coo(const char* op, const Tensor& indices, const Tensor& values, IntArrayRef size, OptDtype dtype,
                OptDevice device) {
  const int64_t sd = indices.size(0), dd = values.dim() - 1;
  EMBER_CHECK(static_cast<int64_t>(size.size()) == sd + dd,
              "[{}] number of dimensions must be sparse_dim ({}) + dense_dim ({}), but got {}", op, sd, dd,
              size.size());
  for (int64_t s : size) EMBER_CHECK(s >= 0, "[{}] negative dimension {} in size {}", op, s, size);
  std::vector<int64_t> want{values.size(0)};
  want.insert(want.end(), size.begin() + sd, size.end());
  EMBER_CHECK(values.sizes() == IntArrayRef(want), "[{}] values has incorrect size, expected {}, got {}", op,
              IntArrayRef(want), values.sizes());
  const std::vector<int64_t> bound = coo_index_bounds(op, indices);
  for (int64_t d = 0; d < sd; ++d)
    EMBER_CHECK(bound[static_cast<size_t>(d)] <= size[static_cast<size_t>(d)],
                "[{}] size is inconsistent with indices: for dim {}, size is {} but found index {}", op, d,
                size[static_cast<size_t>(d)], bound[static_cast<size_t>(d)] - 1);
  Tensor v = options_values(values, dtype, device);
  Tensor ix = indices.to(v.device()).contiguous();
  // As LibTorch: a new COO tensor is uncoalesced unless it has at most one element.
  const bool coalesced = values.size(0) <= 1;
  return make_sparse_coo(size, std::move(ix), std::move(v), coalesced);
}

void check_csr_members(const char* op, const Tensor& crow, const Tensor& col, const Tensor& values) {
  EMBER_CHECK_TYPE(crow.scalar_type() == col.scalar_type(),
                   "[{}] crow_indices and col_indices must have the same dtype, but got {} and {}, respectively", op,
                   crow.scalar_type(), col.scalar_type());
  EMBER_CHECK_TYPE(crow.scalar_type() == kInt32 || crow.scalar_type() == kInt64,
                   "[{}] crow_indices and col_indices must be Int32 or Int64, but got {}", op, crow.scalar_type());
  EMBER_CHECK(crow.dim() == 1 && col.dim() == 1,
              "[{}] crow_indices and col_indices must be 1-D (batched CSR is not supported), but got {} and {} dims",
              op, crow.dim(), col.dim());
  EMBER_CHECK_NOT_IMPLEMENTED(values.dim() == 1,
                              "[{}] values must be 1-D: CSR with dense dimensions is not supported, got {} dims", op,
                              values.dim());
  EMBER_CHECK(crow.device() == values.device() && col.device() == values.device(),
              "[{}] crow_indices, col_indices and values must be on one device", op);
}

// Largest column index + 1 (0 for nnz 0), as int64 values of a CPU index tensor.
// A size inferred from the indices is their values: a meta tensor has none.
void check_size_inferable(const char* op, const Tensor& indices) {
  EMBER_CHECK_NOT_IMPLEMENTED(!indices.is_meta(),
                              "[{}] the size inferred from the indices depends on their values, and a meta tensor "
                              "has none (pass the size)",
                              op);
}

int64_t max_plus_one(const Tensor& t) {
  if (t.numel() == 0) return 0;
  const Tensor c = t.cpu().to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return *std::max_element(p, p + c.numel()) + 1;
}

Tensor make_csr(const char* op, const Tensor& crow, const Tensor& col, const Tensor& values, IntArrayRef size,
                OptDtype dtype, OptDevice device) {
  EMBER_CHECK(size.size() >= 2, "[{}] size must have 2 dimensions (rows, columns), but got {}", op, size);
  EMBER_CHECK_NOT_IMPLEMENTED(size.size() == 2, "[{}] batched CSR (size {}) is not supported", op, size);
  for (int64_t s : size) EMBER_CHECK(s >= 0, "[{}] negative dimension {} in size {}", op, s, size);
  const int64_t rows = size[0], cols = size[1], nnz = values.size(0);
  EMBER_CHECK(crow.size(0) == rows + 1,
              "[{}] crow_indices.shape[-1] must be equal to the number of rows + 1 (={}), but got {}", op, rows + 1,
              crow.size(0));
  EMBER_CHECK(col.size(0) == nnz,
              "[{}] col_indices.shape[-1] must be equal to nnz (={}) as defined by values.shape[0], but got {}", op,
              nnz, col.size(0));
  if (!crow.is_meta()) {  // the checks read the indices: a meta tensor has none
    const Tensor cr = crow.cpu().to(kInt64).contiguous(), co = col.cpu().to(kInt64).contiguous();
    const int64_t* r = cr.data_ptr<int64_t>();
    const int64_t* c = co.data_ptr<int64_t>();
    EMBER_CHECK(r[0] == 0, "[{}] `crow_indices[..., 0] == 0` is not satisfied.", op);
    EMBER_CHECK(r[rows] == nnz, "[{}] `crow_indices[..., -1] == nnz` is not satisfied.", op);
    for (int64_t i = 0; i < rows; ++i)
      EMBER_CHECK(r[i + 1] - r[i] >= 0 && r[i + 1] - r[i] <= cols,
                  "[{}] `0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.", op);
    for (int64_t k = 0; k < nnz; ++k)
      EMBER_CHECK(c[k] >= 0 && c[k] < cols, "[{}] `0 <= col_indices < ncols` is not satisfied.", op);
  }
  Tensor v = options_values(values, dtype, device);
  Tensor cr = crow.to(v.device()).contiguous(), co = col.to(v.device()).contiguous();
  return make_sparse_csr(size, std::move(cr), std::move(co), std::move(v));
}

// COO (coalesced) -> CSR of a 2-D tensor: crow counts each row's entries, then a prefix sum.
Tensor coo_to_csr(const Tensor& coo) {
  const Tensor c = coo.coalesce();
  const Tensor ix = c._indices();
  const int64_t rows = c.size(0);
  Tensor crow = zeros({rows + 1}, TensorOptions().dtype(kInt64).device(c.device()));
  if (c._nnz() > 0) {
    crow.scatter_add_(0, ix.select(0, 0).add(1), ones({c._nnz()}, TensorOptions().dtype(kInt64).device(c.device())));
    crow = crow.cumsum(0);
  }
  return make_sparse_csr(c.sizes(), std::move(crow), ix.select(0, 1).contiguous(), c._values());
}

}  // namespace

Tensor sparse_to_copy(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_no_pin_memory("_to_copy", pin_memory);
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == self.layout(),
                              "[_to_copy] converting layout {} to {} is not supported", self.layout(), *layout);
  const Device dev = device.value_or(self.device());
  auto copy = [&](const Tensor& t, OptDtype dt) {
    return ember::_to_copy(t, dt, std::nullopt, dev, std::nullopt, false, std::nullopt);
  };
  if (self.layout() == kSparse) {
    const auto& s = sparse_coo_impl(self, "_to_copy");
    return make_sparse_coo(self.sizes(), copy(s.indices(), std::nullopt), copy(s.values(), dtype), s.coalesced());
  }
  const auto& c = sparse_csr_impl(self, "_to_copy");
  return make_sparse_csr(self.sizes(), copy(c.crow_indices(), std::nullopt), copy(c.col_indices(), std::nullopt),
                         copy(c.values(), dtype));
}

Tensor sparse_transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const char* op = "transpose";
  EMBER_CHECK_NOT_IMPLEMENTED(self.layout() == kSparse,
                              "[{}] transposing a CSR tensor is not supported; convert it with to_sparse() first", op);
  if (dim0 == dim1) return self;
  const auto& s = sparse_coo_impl(self, op);
  const int64_t sd = s.sparse_dim();
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
  std::swap(sizes[static_cast<size_t>(dim0)], sizes[static_cast<size_t>(dim1)]);
  if (dim0 >= sd && dim1 >= sd)
    return make_sparse_coo(sizes, s.indices(), s.values().transpose(dim0 - sd + 1, dim1 - sd + 1).contiguous(),
                           s.coalesced());
  EMBER_CHECK_NOT_IMPLEMENTED(dim0 < sd && dim1 < sd,
                              "[{}] swapping a sparse dimension ({}) with a dense one ({}) is not supported", op,
                              std::min(dim0, dim1), std::max(dim0, dim1));
  std::vector<Tensor> rows;
  for (int64_t d = 0; d < sd; ++d) rows.push_back(s.indices().select(0, d == dim0 ? dim1 : d == dim1 ? dim0 : d));
  return make_sparse_coo(sizes, ember::stack(rows, 0), s.values(), s.nnz() <= 1);
}

Tensor sparse_coo_tensor_size(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device,
                              OptBool pin_memory) {
  check_sparse_options(kCoo, layout, kSparse, pin_memory);
  for (int64_t s : size) EMBER_CHECK(s >= 0, "[{}] negative dimension {} in size {}", kCoo, s, size);
  const Device dev = device.value_or(Device(kCPU));
  Tensor indices = empty({static_cast<int64_t>(size.size()), 0}, TensorOptions().dtype(kInt64).device(dev));
  Tensor values = empty({0}, TensorOptions().dtype(dtype.value_or(get_default_dtype())).device(dev));
  return make_sparse_coo(size, std::move(indices), std::move(values), true);
}

Tensor sparse_coo_tensor_indices(const Tensor& indices, const Tensor& values, OptDtype dtype, OptLayout layout,
                                 OptDevice device, OptBool pin_memory) {
  check_sparse_options(kCoo, layout, kSparse, pin_memory);
  check_coo_indices(kCoo, indices, values);
  check_size_inferable(kCoo, indices);
  std::vector<int64_t> size = coo_index_bounds(kCoo, indices);
  for (int64_t d = 1; d < values.dim(); ++d) size.push_back(values.size(d));
  return make_coo(kCoo, indices, values, size, dtype, device);
}

Tensor sparse_coo_tensor_indices_size(const Tensor& indices, const Tensor& values, IntArrayRef size, OptDtype dtype,
                                      OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_sparse_options(kCoo, layout, kSparse, pin_memory);
  check_coo_indices(kCoo, indices, values);
  return make_coo(kCoo, indices, values, size, dtype, device);
}

Tensor sparse_csr_tensor_crow_col_value_size(const Tensor& crow_indices, const Tensor& col_indices,
                                             const Tensor& values, IntArrayRef size, OptDtype dtype, OptLayout layout,
                                             OptDevice device, OptBool pin_memory) {
  check_sparse_options(kCsr, layout, kSparseCsr, pin_memory);
  check_csr_members(kCsr, crow_indices, col_indices, values);
  return make_csr(kCsr, crow_indices, col_indices, values, size, dtype, device);
}

Tensor sparse_csr_tensor_crow_col_value(const Tensor& crow_indices, const Tensor& col_indices, const Tensor& values,
                                        OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_sparse_options(kCsr, layout, kSparseCsr, pin_memory);
  check_csr_members(kCsr, crow_indices, col_indices, values);
  check_size_inferable(kCsr, col_indices);
  const int64_t size[2] = {std::max<int64_t>(crow_indices.size(0) - 1, 0), max_plus_one(col_indices)};
  return make_csr(kCsr, crow_indices, col_indices, values, size, dtype, device);
}

Tensor to_sparse_sparse_dim(const Tensor& self, int64_t sparse_dim) {
  const char* op = "to_sparse";
  if (self.layout() == kSparse) {
    EMBER_CHECK_NOT_IMPLEMENTED(sparse_dim == self.sparse_dim(),
                                "[{}] changing the sparse_dim of a COO tensor ({} -> {}) is not supported", op,
                                self.sparse_dim(), sparse_dim);
    return self;
  }
  if (self.layout() == kSparseCsr) {
    EMBER_CHECK_NOT_IMPLEMENTED(sparse_dim == 2, "[{}] a CSR matrix converts to sparse_dim 2 only, got {}", op,
                                sparse_dim);
    const auto& csr = sparse_csr_impl(self, op);
    const int64_t nnz = csr.nnz(), rows = self.size(0);
    const TensorOptions i64 = TensorOptions().dtype(kInt64).device(self.device());
    // Row of each entry: a 1 where each row's entries start, then a prefix sum.
    Tensor marks = zeros({nnz + 1}, i64);
    if (rows > 1) {
      const Tensor starts = csr.crow_indices().slice(0, 1, rows).to(kInt64);
      marks.scatter_add_(0, starts, ones({rows - 1}, i64));
    }
    Tensor row = marks.slice(0, 0, nnz).cumsum(0);
    Tensor indices = stack({row, csr.col_indices().to(kInt64)}, 0);
    return make_sparse_coo(self.sizes(), std::move(indices), csr.values(), true);
  }
  EMBER_CHECK(sparse_dim >= 0 && sparse_dim <= self.dim(),
              "[{}] sparse_dim must be less than or equal to self.dim() ({}) and non-negative, got {}", op, self.dim(),
              sparse_dim);
  const IntArrayRef sizes = self.sizes();
  const std::vector<int64_t> sparse_sizes(sizes.begin(), sizes.begin() + sparse_dim);
  const int64_t rows = std::accumulate(sparse_sizes.begin(), sparse_sizes.end(), int64_t{1}, std::multiplies<>());
  std::vector<int64_t> flat_sizes{rows};
  flat_sizes.insert(flat_sizes.end(), sizes.begin() + sparse_dim, sizes.end());
  const Tensor flat = self.reshape(flat_sizes);
  // An entry is specified where any of its dense values is nonzero.
  const int64_t width = std::accumulate(sizes.begin() + sparse_dim, sizes.end(), int64_t{1}, std::multiplies<>());
  Tensor mask = flat.ne(0).reshape({rows, width}).any(1);  // width, not -1: rows may be 0
  const Tensor rows_kept = nonzero(mask).reshape({-1});
  Tensor indices = sparse_dim == 0 ? empty({0, rows_kept.size(0)}, TensorOptions().dtype(kInt64).device(self.device()))
                                   : nonzero(mask.reshape(sparse_sizes)).t().contiguous();
  Tensor values = index_select(flat, 0, rows_kept).contiguous();
  return make_sparse_coo(sizes, std::move(indices), std::move(values), true);
}

Tensor to_sparse(const Tensor& self) {
  return to_sparse_sparse_dim(self, self.layout() == kSparse ? self.sparse_dim() : self.dim());
}

Tensor to_sparse_csr(const Tensor& self) {
  const char* op = "to_sparse_csr";
  if (self.layout() == kSparseCsr) return self;
  EMBER_CHECK(self.dim() >= 2, "[{}] expected a 2-D tensor, got {} dims", op, self.dim());
  EMBER_CHECK_NOT_IMPLEMENTED(self.dim() == 2, "[{}] batched CSR ({} dims) is not supported", op, self.dim());
  if (self.layout() == kSparse) {
    EMBER_CHECK_NOT_IMPLEMENTED(self.sparse_dim() == 2,
                                "[{}] a COO tensor with dense dimensions (sparse_dim {}) is not supported", op,
                                self.sparse_dim());
    return coo_to_csr(self);
  }
  return coo_to_csr(to_sparse_sparse_dim(self, 2));
}

}  // namespace ember::native
