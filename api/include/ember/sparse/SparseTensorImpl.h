#pragma once
// Note [Sparse tensors]
// ~~~~~~~~~~~~~~~~~~~~~
// Two storage-less TensorImpl subclasses (Note [TensorImpl subclasses and storage-less
// tensors]), as LibTorch's SparseTensorImpl and SparseCsrTensorImpl:
// - COO (layout kSparse, key Sparse<device>): indices [sparse_dim, nnz] int64 and values
//   [nnz, sizes[sparse_dim:]...] of the tensor's dtype, plus a coalesced flag (indices sorted
//   lexicographically and unique). sparse_dim is indices.size(0), dense_dim values.dim() - 1.
// - CSR (layout kSparseCsr, key SparseCsr<device>): a 2-D matrix of crow_indices [rows + 1],
//   col_indices [nnz] (int32 or int64, one dtype) and values [nnz].
// The classes live in libember, not in the sparse plugin, so that the constructors and the
// conversions from a dense tensor (composites: their tensor arguments are dense, so dispatch
// cannot reach a sparse key) and any backend (meta included) build the same impl. They hold data
// only; every kernel that reads them is in plugins/sparse. Member tensors are shared by shallow
// copies (detach, autograd's saved variables) and never written in place: an in-place kernel
// replaces them (set_members_unsafe).
#include "ember/dispatcher/Tensor.h"

namespace ember {

class EMBER_API SparseTensorImpl final : public TensorImpl {
 public:
  // No checks: sparse_coo_tensor checks its arguments; kernels build only valid tensors.
  SparseTensorImpl(Device device, ScalarType dtype, IntArrayRef sizes, Tensor indices, Tensor values, bool coalesced);
  SparseTensorImpl(ShallowCopy t, const SparseTensorImpl& src);

  IntrusivePtr<TensorImpl> shallow_copy_and_detach() const override;
  void shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) override;

  const Tensor& indices() const { return indices_; }
  const Tensor& values() const { return values_; }
  int64_t sparse_dim() const { return indices_.size(0); }
  int64_t dense_dim() const { return values_.dim() - 1; }
  int64_t nnz() const { return values_.size(0); }
  bool coalesced() const { return coalesced_; }
  // For in-place kernels (zero_, mul_, add_): new members of the same sizes and dtype; the
  // version counter stays (the dispatcher bumps it).
  void set_members_unsafe(Tensor indices, Tensor values, bool coalesced) {
    indices_ = std::move(indices);
    values_ = std::move(values);
    coalesced_ = coalesced;
  }

 private:
  Tensor indices_;
  Tensor values_;
  bool coalesced_;
};

class EMBER_API SparseCsrTensorImpl final : public TensorImpl {
 public:
  // No checks: sparse_csr_tensor checks its arguments.
  SparseCsrTensorImpl(Device device, ScalarType dtype, IntArrayRef sizes, Tensor crow_indices, Tensor col_indices,
                      Tensor values);
  SparseCsrTensorImpl(ShallowCopy t, const SparseCsrTensorImpl& src);

  IntrusivePtr<TensorImpl> shallow_copy_and_detach() const override;
  void shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) override;

  const Tensor& crow_indices() const { return crow_indices_; }
  const Tensor& col_indices() const { return col_indices_; }
  const Tensor& values() const { return values_; }
  int64_t nnz() const { return values_.size(0); }
  // As SparseTensorImpl::set_members_unsafe.
  void set_members_unsafe(Tensor crow_indices, Tensor col_indices, Tensor values) {
    crow_indices_ = std::move(crow_indices);
    col_indices_ = std::move(col_indices);
    values_ = std::move(values);
  }

 private:
  Tensor crow_indices_;
  Tensor col_indices_;
  Tensor values_;
};

// The impl of a COO (CSR) tensor; ValueError naming `fn` for any other layout.
EMBER_API SparseTensorImpl& sparse_coo_impl(const Tensor& t, const char* fn);
EMBER_API SparseCsrTensorImpl& sparse_csr_impl(const Tensor& t, const char* fn);

// New tensors over the given members, without checks (see the constructors).
EMBER_API Tensor make_sparse_coo(IntArrayRef sizes, Tensor indices, Tensor values, bool coalesced);
EMBER_API Tensor make_sparse_csr(IntArrayRef sizes, Tensor crow_indices, Tensor col_indices, Tensor values);

}  // namespace ember
