#pragma once
// The tensor handle without operator methods: one intrusive pointer to a TensorImpl and the
// metadata read from it (ATen's TensorBase). Core code uses only this; `Tensor` (ember/dispatcher/
// Tensor.h) derives from it and adds the operator methods generated from schemas/ops.yaml, so core
// builds without generated code and editing ops.yaml rebuilds nothing in core.
#include <functional>
#include <optional>

#include "ember/core/MemoryFormat.h"
#include "ember/core/TensorImpl.h"
#include "ember/core/TensorOptions.h"

namespace ember {

class Tensor;

template <class T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <class T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[i * strides_[0]]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

class EMBER_API TensorBase {
 public:
  TensorBase() = default;
  explicit TensorBase(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}
  TensorBase(const TensorBase&) = default;
  TensorBase(TensorBase&&) noexcept = default;
  // Assignment rebinds the handle (as LibTorch's `Tensor& operator=(const Tensor&) &`).
  TensorBase& operator=(const TensorBase&) & = default;
  TensorBase& operator=(TensorBase&&) & noexcept = default;
  // `a[0] = b` and `t = 3` on a temporary would copy data in LibTorch; Ember writes the same
  // with copy_/fill_, so assignment to an rvalue is deleted to avoid a silent no-op.
  TensorBase& operator=(const TensorBase&) && = delete;

  bool defined() const { return impl_.get() != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& impl() const { return impl_; }
  void reset() { impl_.reset(); }
  int64_t use_count() const { return impl_.use_count(); }
  bool is_same(const TensorBase& o) const { return impl_.get() == o.impl_.get(); }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const { return impl_->sizes()[wrap(dim)]; }
  int64_t stride(int64_t dim) const { return impl_->strides()[wrap(dim)]; }
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  size_t element_size() const { return impl_->itemsize(); }
  size_t itemsize() const { return impl_->itemsize(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  Layout layout() const { return impl_->layout(); }
  // Contiguous in `format`'s layout (Note [Memory formats]); Preserve asks the plain question.
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const {
    return format == MemoryFormat::Contiguous || format == MemoryFormat::Preserve ? impl_->is_contiguous()
                                                                                  : is_contiguous_slow(format);
  }
  // The layout self's strides follow: ChannelsLast(3d) when they are ordered as one (exactly its
  // strides, size-1 dims included, with `channels_last_strides_exact_match`), else Contiguous.
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  bool is_cpu() const { return device().type() == kCPU; }
  bool is_cuda() const { return device().type() == kCUDA; }
  bool is_meta() const { return device().type() == kMeta; }
  bool is_floating_point() const { return is_floating_type(dtype()); }
  bool is_quantized() const { return is_quantized_type(dtype()); }
  bool is_sparse() const { return layout() == kSparse; }  // COO only, as LibTorch
  bool is_sparse_csr() const { return layout() == kSparseCsr; }
  DispatchKeySet key_set() const { return impl_->key_set(); }
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()).layout(layout()); }
  uint64_t _version() const { return impl_->version(); }
  // Made in InferenceMode: never records autograd history (LibTorch's is_inference()).
  bool is_inference() const { return impl_->is_inference(); }
  // Note [View records]: whether this tensor views another (LibTorch's is_view(); _is_view() is
  // PyTorch's Python spelling).
  bool is_view() const { return impl_->is_view(); }
  bool _is_view() const { return impl_->is_view(); }
  bool has_storage() const { return impl_->has_storage(); }

  // Never dispatches: the address of the first element.
  EMBER_ALWAYS_INLINE void* data_ptr() const { return impl_->data(); }
  template <class T>
  T* data_ptr() const {
    check_dtype(scalar_type_of<T>, "data_ptr");
    return static_cast<T*>(impl_->data());
  }
  template <class T>
  T* mutable_data_ptr() const {
    return data_ptr<T>();
  }
  template <class T>
  const T* const_data_ptr() const {
    return data_ptr<T>();
  }

  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    EMBER_CHECK(dim() == static_cast<int64_t>(N), "[accessor] expected a {}-dim tensor, got {} dims", N, dim());
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

 protected:
  IntrusivePtr<TensorImpl> impl_;

 private:
  int64_t wrap(int64_t d) const {
    int64_t n = dim();
    EMBER_CHECK_INDEX(d >= -n && d < n, "[size] dimension {} out of range for a {}-dim tensor", d, n);
    return d < 0 ? d + n : d;
  }
  void check_dtype(ScalarType want, const char* what) const;
  bool is_contiguous_slow(MemoryFormat format) const;
};

// Wraps `dim` into [0, ndim) or throws IndexError naming `op`.
EMBER_API int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op);

// Sizes, strides and storage offset (in elements of the storage) of a tensor.
struct ViewGeometry {
  SmallVector<int64_t, 5> sizes;
  SmallVector<int64_t, 5> strides;
  int64_t storage_offset = 0;
  static ViewGeometry of(const TensorBase& t) { return {t.sizes(), t.strides(), t.storage_offset()}; }
  bool operator==(const ViewGeometry&) const = default;
};

// A view step that as_strided cannot express: how to redo it on its input (Note [View records]).
// Steps chain towards the root: replaying one first replays `prev` (or takes the root), then
// redoes `in` from that with as_strided, then calls `fn`.
class EMBER_API ViewStep : public IntrusiveTarget {
 public:
  using Fn = std::function<Tensor(const Tensor& input)>;
  ViewStep(IntrusivePtr<const ViewStep> prev, ViewGeometry in, ViewGeometry out, Fn fn)
      : prev(std::move(prev)), in(std::move(in)), out(std::move(out)), fn(std::move(fn)) {}
  const IntrusivePtr<const ViewStep> prev;  // the step nearer the root, or null
  const ViewGeometry in;                    // fn's input when the view was made
  const ViewGeometry out;                   // fn's result when the view was made
  const Fn fn;
};

}  // namespace ember
