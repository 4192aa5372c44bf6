#pragma once
// The user-facing tensor handle: one intrusive pointer to a TensorImpl.
//
// Metadata accessors are written here by hand; every operator method (add, sum, to, ...) is
// generated from schemas/ops.yaml into ember/generated/TensorMethods.h and included in the
// class body below (tests/unit/test_codegen checks that no operator method is hand-written).
#include <functional>
#include <optional>
#include <ostream>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/core/Generator.h"
#include "ember/core/Scalar.h"
#include "ember/core/TensorImpl.h"
#include "ember/core/TensorOptions.h"

namespace ember {

namespace indexing {
class TensorIndex;  // ember/api/Indexing.h, which defines the indexing members below
}  // namespace indexing

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

class EMBER_API Tensor {
 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  // Assignment rebinds the handle (as LibTorch's `Tensor& operator=(const Tensor&) &`).
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  // `a[0] = b` and `t = 3` on a temporary would copy data in LibTorch; Ember writes the same
  // with copy_/fill_, so assignment to an rvalue is deleted to avoid a silent no-op.
  Tensor& operator=(const Tensor&) && = delete;

  bool defined() const { return impl_.get() != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& impl() const { return impl_; }
  void reset() { impl_.reset(); }
  int64_t use_count() const { return impl_.use_count(); }
  bool is_same(const Tensor& o) const { return impl_.get() == o.impl_.get(); }

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
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_cpu() const { return device().type() == kCPU; }
  bool is_cuda() const { return device().type() == kCUDA; }
  bool is_meta() const { return device().type() == kMeta; }
  bool is_floating_point() const { return is_floating_type(dtype()); }
  DispatchKeySet key_set() const { return impl_->key_set(); }
  TensorOptions options() const {
    return TensorOptions().dtype(dtype()).device(device()).layout(layout());
  }
  uint64_t _version() const { return impl_->version(); }
  // Note [View records]: whether this tensor views another (LibTorch's is_view(); _is_view() is
  // PyTorch's Python spelling), and the root base it views (undefined when not a view).
  bool is_view() const { return impl_->is_view(); }
  bool _is_view() const { return impl_->is_view(); }
  Tensor _base() const;
  bool has_storage() const { return impl_->has_storage(); }

  // Never dispatches: the address of the first element.
  EMBER_ALWAYS_INLINE void* data_ptr() const { return impl_->data(); }
  template <class T>
  T* data_ptr() const {
    check_dtype(scalar_type_of<T>, "data_ptr");
    return static_cast<T*>(impl_->data());
  }
  template <class T>
  T* mutable_data_ptr() const { return data_ptr<T>(); }
  template <class T>
  const T* const_data_ptr() const { return data_ptr<T>(); }

  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    EMBER_CHECK(dim() == static_cast<int64_t>(N), "[accessor] expected a {}-dim tensor, got {} dims", N, dim());
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // The value of a one-element tensor, converted to T.
  // The value of a one-element tensor, converted to T (the generated item() returns a Scalar).
  template <class T>
  T item() const { return item().template to<T>(); }

  // Autograd (through AutogradHooks; a clear error when the autograd plugin is absent).
  Tensor& requires_grad_(bool on = true);
  const Tensor& requires_grad_(bool on = true) const;
  Tensor& set_requires_grad(bool on) { return requires_grad_(on); }
  bool requires_grad() const;
  bool is_leaf() const;
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = {},
                bool create_graph = false) const;
  // A non-leaf keeps its grad after backward.
  void retain_grad() const;
  bool retains_grad() const;
  // `hook(grad)` runs when self's gradient is computed; a hook returning a Tensor replaces the
  // gradient (undefined: keeps it), a void hook only sees it. Returns the handle remove_hook takes.
  template <class F>
  unsigned register_hook(F&& hook) const {
    using R = std::invoke_result_t<std::decay_t<F>&, const Tensor&>;
    if constexpr (std::is_void_v<R>) {
      return _register_hook([h = std::forward<F>(hook)](const Tensor& g) mutable {
        h(g);
        return Tensor();
      });
    } else {
      return _register_hook(std::function<Tensor(const Tensor&)>(std::forward<F>(hook)));
    }
  }
  unsigned _register_hook(std::function<Tensor(const Tensor&)> hook) const;
  void remove_hook(unsigned handle) const;
  // A tensor sharing self's data (and version counter) with no autograd history. Not a view:
  // it records no base (as PyTorch's non-differentiable views).
  Tensor detach() const;
  // Self takes new_data's data and metadata and keeps its autograd identity (Python's
  // `x.data = y`); self is no view afterwards.
  void set_data(const Tensor& new_data) const;

  // a[i]: select(0, i).
  Tensor operator[](int64_t i) const;
  // x[...] and x[...] = v with ember::indexing::TensorIndex (see Note [Indexing lowering] in
  // ember/api/Indexing.h, which must be included to call these; ember/ember.h does).
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;

  std::string toString() const;

#include "ember/generated/TensorMethods.h"

 private:
  int64_t wrap(int64_t d) const {
    int64_t n = dim();
    EMBER_CHECK_INDEX(d >= -n && d < n, "[size] dimension {} out of range for a {}-dim tensor", d, n);
    return d < 0 ? d + n : d;
  }
  void check_dtype(ScalarType want, const char* what) const;

  IntrusivePtr<TensorImpl> impl_;
};

EMBER_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

// Wraps `dim` into [0, ndim) or throws IndexError naming `op`.
EMBER_API int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op);

// A fresh contiguous tensor with the device's registered allocator (used by kernels).
EMBER_API Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device = kCPU);
// A tensor viewing `base`'s data with new geometry, of base's TensorImpl subclass (see Note
// [TensorImpl subclasses and storage-less tensors]); it records its root base (Note [View
// records]). Every view kernel makes its result with it.
EMBER_API Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides,
                           int64_t storage_offset);

// Sizes, strides and storage offset (in elements of the storage) of a tensor.
struct ViewGeometry {
  SmallVector<int64_t, 5> sizes;
  SmallVector<int64_t, 5> strides;
  int64_t storage_offset = 0;
  static ViewGeometry of(const Tensor& t) { return {t.sizes(), t.strides(), t.storage_offset()}; }
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

// As make_view, for a view that as_strided cannot redo: `replay(base)` redoes it on a tensor
// like `base`.
EMBER_API Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
                           ViewStep::Fn replay);

namespace detail {
// What a view records, read at one moment (PyTorch's ViewInfo; autograd's CopySlices takes it
// when an in-place op hits a view).
struct ViewInfo {
  Tensor base;                    // the root base
  SmallVector<int64_t, 5> sizes;  // the view's geometry, its offset relative to base's
  SmallVector<int64_t, 5> strides;
  int64_t storage_offset = 0;
  IntrusivePtr<const ViewStep> step;  // null: as_strided redoes the view
};
// The record of `view`; nullopt when it is not a view.
EMBER_API std::optional<ViewInfo> view_info(const Tensor& view);
}  // namespace detail

using TensorList = ArrayRef<Tensor>;

}  // namespace ember
