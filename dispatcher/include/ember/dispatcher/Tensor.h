#pragma once
// The user-facing tensor handle: TensorBase (core: the handle and its metadata) plus the operator
// methods. Every operator method (add, sum, to, ...) is generated from schemas/ops.yaml into
// ember/generated/TensorMethods.h and included in the class body below (tests/unit/test_codegen
// checks that no operator method is hand-written); the few hand-written members here are the ones
// that return a Tensor or go through AutogradHooks.
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/core/Generator.h"
#include "ember/core/OptionalArrayRef.h"
#include "ember/core/QScheme.h"
#include "ember/core/Scalar.h"
#include "ember/core/TensorBase.h"

namespace ember {

namespace autograd {
class Node;  // ember/core/AutogradHooks.h
}  // namespace autograd

namespace indexing {
class TensorIndex;  // ember/api/Indexing.h, which defines the indexing members below
}  // namespace indexing

class EMBER_API Tensor : public TensorBase {
 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : TensorBase(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  // As TensorBase's: assignment rebinds the handle; assignment to an rvalue is deleted.
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor&) && = delete;

  // The root base this tensor views (undefined when not a view; Note [View records]).
  Tensor _base() const;

  // The value of a one-element tensor, converted to T (the generated item() returns a Scalar).
  template <class T>
  T item() const {
    return item().template to<T>();
  }

  // Autograd (through AutogradHooks; a clear error when the autograd plugin is absent).
  Tensor& requires_grad_(bool on = true);
  const Tensor& requires_grad_(bool on = true) const;
  Tensor& set_requires_grad(bool on) { return requires_grad_(on); }
  bool requires_grad() const;
  bool is_leaf() const;
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = {}, bool create_graph = false) const;
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
  // Self loses its history in place: a leaf that does not require grad (not for views).
  const Tensor& detach_() const;
  // The node that made self (null for a leaf or a tensor without history).
  std::shared_ptr<autograd::Node> grad_fn() const;
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
};

EMBER_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

// A fresh contiguous tensor with the device's registered allocator (used by kernels).
EMBER_API Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device = kCPU);
// A tensor viewing `base`'s data with new geometry, of base's TensorImpl subclass (see Note
// [TensorImpl subclasses and storage-less tensors]); it records its root base (Note [View
// records]). Every view kernel makes its result with it.
EMBER_API Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);

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
