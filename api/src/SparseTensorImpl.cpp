// Note [Sparse tensors] in ember/sparse/SparseTensorImpl.h.
#include "ember/sparse/SparseTensorImpl.h"

namespace ember {

SparseTensorImpl::SparseTensorImpl(Device device, ScalarType dtype, IntArrayRef sizes, Tensor indices, Tensor values,
                                   bool coalesced)
    : TensorImpl(backend_key_set(device.type(), kSparse, false), dtype, device, kSparse, sizes),
      indices_(std::move(indices)),
      values_(std::move(values)),
      coalesced_(coalesced) {}

SparseTensorImpl::SparseTensorImpl(ShallowCopy t, const SparseTensorImpl& src)
    : TensorImpl(t, src), indices_(src.indices_), values_(src.values_), coalesced_(src.coalesced_) {}

IntrusivePtr<TensorImpl> SparseTensorImpl::shallow_copy_and_detach() const {
  return IntrusivePtr<TensorImpl>(new SparseTensorImpl(SHALLOW_COPY, *this));
}

void SparseTensorImpl::shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) {
  auto* src = dynamic_cast<const SparseTensorImpl*>(impl.get());
  EMBER_CHECK(src != nullptr, "[shallow_copy_from] expected a sparse COO tensor, got layout {}", impl->layout());
  copy_tensor_metadata(*src, *this);
  indices_ = src->indices_;
  values_ = src->values_;
  coalesced_ = src->coalesced_;
}

SparseCsrTensorImpl::SparseCsrTensorImpl(Device device, ScalarType dtype, IntArrayRef sizes, Tensor crow_indices,
                                         Tensor col_indices, Tensor values)
    : TensorImpl(backend_key_set(device.type(), kSparseCsr, false), dtype, device, kSparseCsr, sizes),
      crow_indices_(std::move(crow_indices)),
      col_indices_(std::move(col_indices)),
      values_(std::move(values)) {}

SparseCsrTensorImpl::SparseCsrTensorImpl(ShallowCopy t, const SparseCsrTensorImpl& src)
    : TensorImpl(t, src), crow_indices_(src.crow_indices_), col_indices_(src.col_indices_), values_(src.values_) {}

IntrusivePtr<TensorImpl> SparseCsrTensorImpl::shallow_copy_and_detach() const {
  return IntrusivePtr<TensorImpl>(new SparseCsrTensorImpl(SHALLOW_COPY, *this));
}

void SparseCsrTensorImpl::shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) {
  auto* src = dynamic_cast<const SparseCsrTensorImpl*>(impl.get());
  EMBER_CHECK(src != nullptr, "[shallow_copy_from] expected a sparse CSR tensor, got layout {}", impl->layout());
  copy_tensor_metadata(*src, *this);
  crow_indices_ = src->crow_indices_;
  col_indices_ = src->col_indices_;
  values_ = src->values_;
}

SparseTensorImpl& sparse_coo_impl(const Tensor& t, const char* fn) {
  EMBER_CHECK(t.defined(), "[{}] expected a sparse COO tensor, got an undefined tensor", fn);
  auto* impl = dynamic_cast<SparseTensorImpl*>(t.unsafeGetTensorImpl());
  EMBER_CHECK(impl != nullptr, "[{}] expected a sparse COO tensor (layout Sparse), got layout {}", fn, t.layout());
  return *impl;
}

SparseCsrTensorImpl& sparse_csr_impl(const Tensor& t, const char* fn) {
  EMBER_CHECK(t.defined(), "[{}] expected a sparse CSR tensor, got an undefined tensor", fn);
  auto* impl = dynamic_cast<SparseCsrTensorImpl*>(t.unsafeGetTensorImpl());
  EMBER_CHECK(impl != nullptr, "[{}] expected a sparse CSR tensor (layout SparseCsr), got layout {}", fn, t.layout());
  return *impl;
}

Tensor make_sparse_coo(IntArrayRef sizes, Tensor indices, Tensor values, bool coalesced) {
  const Device device = values.device();
  const ScalarType dtype = values.scalar_type();
  return Tensor(
      make_intrusive<SparseTensorImpl>(device, dtype, sizes, std::move(indices), std::move(values), coalesced));
}

Tensor make_sparse_csr(IntArrayRef sizes, Tensor crow_indices, Tensor col_indices, Tensor values) {
  const Device device = values.device();
  const ScalarType dtype = values.scalar_type();
  return Tensor(make_intrusive<SparseCsrTensorImpl>(device, dtype, sizes, std::move(crow_indices),
                                                    std::move(col_indices), std::move(values)));
}

}  // namespace ember
