#pragma once
// The tensor object: storage, sizes, strides, offset, dtype, device, dispatch keys, and an opaque
// autograd slot. See Note [DispatchKeySet layout] for the key set.
//
// Note [TensorImpl subclasses and storage-less tensors]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Quantized and sparse tensors are TensorImpl subclasses (LibTorch's QTensorImpl,
// SparseTensorImpl). Two things make that work:
// - A storage-less constructor (sparse tensors keep their data in member tensors). The caller
//   gives the key set and the device: a tensor's device is device_, taken from the storage once
//   at construction when there is one and never read from it again. has_storage() is false,
//   data() throws ValueError, and the version counter, which normally lives in the storage (Note
//   [Version counter lives in the storage]), is a VersionCounter of the impl's own, shared by its
//   shallow copies, so in-place bumps stay visible to every alias.
// - A virtual shallow copy: shallow_copy_and_detach() returns a new impl of the same subclass
//   sharing the data (storage or members) and the version counter, with the same metadata and
//   no autograd meta (its key set loses Autograd). A subclass overrides it, builds its copy with
//   the protected ShallowCopy constructor (or copy_tensor_metadata) and copies its own fields.
//   make_view builds every view this way and then sets the view's geometry (a plain TensorImpl
//   directly, with no virtual call), so a view of a quantized tensor is a quantized tensor;
//   detach does the same. shallow_copy_from() is the
//   reverse (LibTorch's, for set_data): this impl takes the metadata and data of another and
//   keeps its autograd meta.
//   The base implementation refuses a subclass that does not override it, rather than
//   silently returning a plain TensorImpl.
#include <atomic>
#include <memory>

#include "ember/core/Allocator.h"
#include "ember/core/ArrayRef.h"
#include "ember/core/DispatchKey.h"
#include "ember/core/ScalarType.h"
#include "ember/core/SmallVector.h"

namespace ember {

class Tensor;
class TensorImpl;
class ViewStep;  // Tensor.h

// Owned by the autograd plugin; core only stores and destroys it. See AutogradHooks.h.
class EMBER_API AutogradMetaInterface {
 public:
  virtual ~AutogradMetaInterface();
  virtual bool requires_grad() const = 0;
  virtual void set_requires_grad(bool on, TensorImpl* self) = 0;
  virtual const Tensor& grad() const = 0;
  virtual Tensor& mutable_grad() = 0;
  virtual bool is_leaf() const = 0;
};

// The version counter of a tensor without storage (see Note [TensorImpl subclasses and
// storage-less tensors]).
class EMBER_API VersionCounter : public IntrusiveTarget {
 public:
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> version_{0};
};

class EMBER_API TensorImpl : public IntrusiveTarget {
 public:
  // A contiguous tensor of `sizes` over `storage` at offset 0.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, Layout layout = kStrided);
  // A view: the given geometry over `storage`.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
             Layout layout = kStrided);
  // A tensor with no storage (sparse and other subclasses): contiguous strides for `sizes`, a
  // version counter of its own. `key_set` must include device's backend bit.
  TensorImpl(DispatchKeySet key_set, ScalarType dtype, Device device, Layout layout, IntArrayRef sizes = {});
  ~TensorImpl() override;

  // A new impl of this one's subclass sharing its data and version counter, without autograd
  // meta. See Note [TensorImpl subclasses and storage-less tensors].
  virtual IntrusivePtr<TensorImpl> shallow_copy_and_detach() const;
  // Takes `impl`'s metadata, storage and version counter, keeping its own autograd meta. `impl`
  // must be of this impl's subclass; subclasses that add fields override this and copy them too.
  virtual void shallow_copy_from(const IntrusivePtr<TensorImpl>& impl);
  // shallow_copy_and_detach() with the given geometry: what make_view builds (a plain TensorImpl
  // takes a direct path, without the virtual call and the copy of the old geometry).
  IntrusivePtr<TensorImpl> make_view(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) const;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  bool is_contiguous() const { return is_contiguous_; }
  ScalarType dtype() const { return dtype_; }
  size_t itemsize() const { return element_size(dtype_); }
  Device device() const { return device_; }
  Layout layout() const { return layout_; }
  DispatchKeySet key_set() const { return key_set_; }
  // Null for a storage-less tensor.
  const Storage& storage() const { return storage_; }
  bool has_storage() const { return storage_.get() != nullptr; }
  // First element (storage data + offset). Throws ValueError for a storage-less tensor. Always
  // inlined: every kernel calls it, and with the throw GCC would otherwise emit a call.
  EMBER_ALWAYS_INLINE void* data() const {
    if (EMBER_UNLIKELY(!storage_)) throw_no_storage();
    return static_cast<char*>(storage_->data()) + storage_offset_ * static_cast<int64_t>(itemsize());
  }

  void set_sizes_contiguous(IntArrayRef sizes);
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides);
  void set_storage_offset(int64_t off) { storage_offset_ = off; }
  // A storage-less impl that is given a storage counts its versions in the storage from then on.
  void set_storage(Storage s);
  // Adds keys such as Autograd (the autograd plugin does, for tensors that need a gradient).
  void add_keys(DispatchKeySet ks) { key_set_ = key_set_ | ks; }
  void remove_keys(DispatchKeySet ks) { key_set_ = key_set_ - ks; }

  // Made in InferenceMode (LibTorch's is_inference): such a tensor never records autograd
  // history and cannot be saved for backward.
  bool is_inference() const { return is_inference_; }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m);

  uint64_t version() const { return storage_ ? storage_->version() : version_counter_->version(); }
  void bump_version() {
    if (storage_)
      storage_->bump_version();
    else
      version_counter_->bump();
  }

  // Note [View records]
  // ~~~~~~~~~~~~~~~~~~~
  // An in-place op on a view must rebase the autograd graph of its base (PyTorch's CopySlices),
  // which needs the base and a way to redo the view on another tensor (the base's gradient).
  // Every view (what make_view returns: every view op, and views of views) records its *root*
  // base, as PyTorch does: a view of a view records the original base, never the intermediate.
  // The view's own sizes, strides and storage offset, taken relative to the base's offset, are
  // the default way to redo it (as_strided, PyTorch's default); a view that as_strided cannot
  // express (none today; e.g. a future view_as_real, which changes the dtype) also records a
  // ViewStep, its replay function, chained to the steps before it (Tensor.h). A non-view has
  // neither; contiguous() of a contiguous tensor returns it with its own record.
  // Cost: two pointers per tensor and one reference-count increment per view made; no
  // allocation unless a view has a replay step. The record is metadata the caller reads with
  // Tensor::_is_view(), _base(), detail::view_info() and detail::replay_view() (ember/api/Views.h).
  bool is_view() const { return view_base_.get() != nullptr; }
  // The root base (null when not a view).
  TensorImpl* view_base() const { return view_base_.get(); }
  // The last step on the way from the root that as_strided cannot express (null: none).
  const IntrusivePtr<const ViewStep>& view_step() const { return view_step_; }
  void set_view_record(IntrusivePtr<TensorImpl> base, IntrusivePtr<const ViewStep> step);

  // Recomputes numel and contiguity after sizes or strides change.
  void refresh();

 protected:
  enum ShallowCopy { SHALLOW_COPY };
  // The base part of shallow_copy_and_detach: `src`'s metadata and data, no autograd meta.
  TensorImpl(ShallowCopy, const TensorImpl& src);
  // The same with new geometry.
  TensorImpl(ShallowCopy, const TensorImpl& src, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  // Copies the base metadata, storage and version counter of `src` into `dest`; dest keeps its
  // autograd meta and with it its Autograd key.
  static void copy_tensor_metadata(const TensorImpl& src, TensorImpl& dest);

 private:
  [[noreturn]] void throw_no_storage() const;

  Storage storage_;
  IntrusivePtr<VersionCounter> version_counter_;  // only without storage
  SmallVector<int64_t, 5> sizes_;
  SmallVector<int64_t, 5> strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  DispatchKeySet key_set_;
  ScalarType dtype_;
  Device device_;
  Layout layout_;
  bool is_contiguous_ = true;
  bool is_inference_ = false;  // made in InferenceMode (views and shallow copies inherit it)
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  IntrusivePtr<TensorImpl> view_base_;  // Note [View records]
  IntrusivePtr<const ViewStep> view_step_;
};

// Contiguous strides for `sizes` (row-major; a size-0 or size-1 dim gets the stride it would
// have with size 1, as PyTorch does).
EMBER_API SmallVector<int64_t, 5> contiguous_strides(IntArrayRef sizes);
// numel of `sizes`; throws ValueError for a negative size, naming `op`.
EMBER_API int64_t checked_numel(IntArrayRef sizes, const char* op);

}  // namespace ember
