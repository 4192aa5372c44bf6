#include "ember/core/TensorImpl.h"

#include "ember/core/LocalState.h"

#include <typeinfo>

#include "ember/core/TensorBase.h"

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
  is_inference_ = detail::tls_local_state.inference_mode;
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
  is_inference_ = detail::tls_local_state.inference_mode;
  refresh();
}

TensorImpl::TensorImpl(DispatchKeySet key_set, ScalarType dtype, Device device, Layout layout, IntArrayRef sizes)
    : version_counter_(make_intrusive<VersionCounter>()),
      sizes_(sizes),
      strides_(contiguous_strides(sizes)),
      key_set_(key_set),
      dtype_(dtype),
      device_(device),
      layout_(layout),
      is_inference_(detail::tls_local_state.inference_mode) {
  EMBER_CHECK(is_valid_device_type(device.type()), "[TensorImpl] unknown device type id {}",
              static_cast<int>(device.type()));
  EMBER_CHECK(key_set.has_backend(device.type()),
              "[TensorImpl] the key set {} has no backend bit for the tensor's device {}", key_set, device);
  checked_numel(sizes, "TensorImpl");
  refresh();
}

TensorImpl::TensorImpl(ShallowCopy, const TensorImpl& src)
    : dtype_(src.dtype_), device_(src.device_), layout_(src.layout_) {
  copy_tensor_metadata(src, *this);
}

TensorImpl::TensorImpl(ShallowCopy, const TensorImpl& src, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(src.storage_),
      version_counter_(src.version_counter_),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      key_set_(src.key_set_ - DispatchKeySet::of(Functionality::Autograd)),
      dtype_(src.dtype_),
      device_(src.device_),
      layout_(src.layout_),
      is_inference_(src.is_inference_) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes {} vs strides {}", sizes, strides);
  refresh();
}

TensorImpl::~TensorImpl() = default;

IntrusivePtr<TensorImpl> TensorImpl::make_view(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) const {
  if (EMBER_LIKELY(typeid(*this) == typeid(TensorImpl)))
    return IntrusivePtr<TensorImpl>(new TensorImpl(SHALLOW_COPY, *this, sizes, strides, storage_offset));
  IntrusivePtr<TensorImpl> impl = shallow_copy_and_detach();
  impl->set_sizes_and_strides(sizes, strides);
  impl->set_storage_offset(storage_offset);
  return impl;
}

void TensorImpl::copy_tensor_metadata(const TensorImpl& src, TensorImpl& dest) {
  dest.storage_ = src.storage_;
  dest.version_counter_ = src.version_counter_;
  dest.sizes_ = src.sizes_;
  dest.strides_ = src.strides_;
  dest.storage_offset_ = src.storage_offset_;
  dest.numel_ = src.numel_;
  // Autograd meta does not travel, so neither does the Autograd key: dest keeps its own.
  const DispatchKeySet autograd = DispatchKeySet::of(Functionality::Autograd);
  dest.key_set_ = (src.key_set_ - autograd) | (dest.key_set_ & autograd);
  dest.dtype_ = src.dtype_;
  dest.device_ = src.device_;
  dest.is_inference_ = src.is_inference_;
  dest.layout_ = src.layout_;
  dest.is_contiguous_ = src.is_contiguous_;
  // dest now views what src views, not what it viewed before (Tensor::set_data).
  dest.view_base_ = src.view_base_;
  dest.view_step_ = src.view_step_;
}

IntrusivePtr<TensorImpl> TensorImpl::shallow_copy_and_detach() const {
  EMBER_CHECK_NOT_IMPLEMENTED(typeid(*this) == typeid(TensorImpl),
                              "[shallow_copy_and_detach] the TensorImpl subclass {} does not override "
                              "shallow_copy_and_detach, so a view or detach of it would lose the subclass",
                              typeid(*this).name());
  return IntrusivePtr<TensorImpl>(new TensorImpl(SHALLOW_COPY, *this));
}

void TensorImpl::shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) {
  EMBER_CHECK(impl != nullptr, "[shallow_copy_from] the source TensorImpl is null");
  if (impl.get() == this) return;
  EMBER_CHECK(typeid(*impl) == typeid(*this),
              "[shallow_copy_from] cannot copy a {} into a {}: the TensorImpl subclasses differ", typeid(*impl).name(),
              typeid(*this).name());
  EMBER_CHECK_NOT_IMPLEMENTED(typeid(*this) == typeid(TensorImpl),
                              "[shallow_copy_from] the TensorImpl subclass {} does not override "
                              "shallow_copy_from",
                              typeid(*this).name());
  copy_tensor_metadata(*impl, *this);
}

void TensorImpl::set_storage(Storage s) {
  if (!s && !version_counter_) version_counter_ = make_intrusive<VersionCounter>();  // keeps version() valid
  storage_ = std::move(s);
}

void TensorImpl::throw_no_storage() const {
  EMBER_THROW(ValueError, "[data_ptr] this {} tensor on {} has no storage: its data lives in its TensorImpl subclass",
              layout_, device_);
}

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

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) {
  autograd_meta_ = std::move(m);
  if (autograd_meta_ && autograd_meta_->requires_grad()) add_keys(DispatchKeySet::of(Functionality::Autograd));
}

}  // namespace ember
