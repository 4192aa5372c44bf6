#include "ember/core/TensorImpl.h"

#include "ember/core/Tensor.h"

namespace ember {

AutogradMetaInterface::~AutogradMetaInterface() = default;

SmallVector<int64_t, 5> contiguous_strides(IntArrayRef sizes) {
  SmallVector<int64_t, 5> st(sizes.size(), 1);
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    acc *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return st;
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  int64_t n = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "[{}] negative size {} at dimension {} of {}", op, sizes[i], i, sizes);
    EMBER_CHECK(!__builtin_mul_overflow(n, sizes[i], &n), "[{}] size {} overflows int64", op, sizes);
  }
  return n;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, Layout layout)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(contiguous_strides(sizes)),
      dtype_(dtype),
      device_(storage_ ? storage_->device() : Device(kCPU)),
      layout_(layout) {
  key_set_ = backend_key_set(device_.type(), layout, is_quantized_type(dtype));
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset, Layout layout)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype),
      device_(storage_ ? storage_->device() : Device(kCPU)),
      layout_(layout) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes {} vs strides {}", sizes, strides);
  key_set_ = backend_key_set(device_.type(), layout, is_quantized_type(dtype));
  refresh();
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  sizes_ = sizes;
  strides_ = contiguous_strides(sizes);
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  is_contiguous_ = true;
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes {} vs strides {}", sizes, strides);
  sizes_ = sizes;
  strides_ = strides;
  refresh();
}

void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  // PyTorch's rule: dims of size 1 may have any stride; an empty tensor is contiguous.
  bool c = true;
  if (numel_ != 0) {
    int64_t expected = 1;
    for (size_t i = sizes_.size(); i-- > 0;) {
      if (sizes_[i] == 1) continue;
      if (strides_[i] != expected) {
        c = false;
        break;
      }
      expected *= sizes_[i];
    }
  }
  is_contiguous_ = c;
}

void TensorImpl::set_view_record(IntrusivePtr<TensorImpl> base, IntrusivePtr<const ViewStep> step) {
  EMBER_INTERNAL_ASSERT(!base || !base->is_view(), "a view's base must be the root base");
  view_base_ = std::move(base);
  view_step_ = std::move(step);
}

void TensorImpl::shallow_copy_from(const TensorImpl& o) {
  if (&o == this) return;
  storage_ = o.storage_;
  sizes_ = o.sizes_;
  strides_ = o.strides_;
  storage_offset_ = o.storage_offset_;
  numel_ = o.numel_;
  dtype_ = o.dtype_;
  device_ = o.device_;
  layout_ = o.layout_;
  is_contiguous_ = o.is_contiguous_;
  const DispatchKeySet autograd = DispatchKeySet::of(Functionality::Autograd);
  key_set_ = (o.key_set_ - autograd) | (key_set_ & autograd);
  view_base_.reset();
  view_step_.reset();
}

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) {
  autograd_meta_ = std::move(m);
  if (autograd_meta_ && autograd_meta_->requires_grad())
    add_keys(DispatchKeySet::of(Functionality::Autograd));
}

}  // namespace ember
