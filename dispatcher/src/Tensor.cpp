#include "ember/dispatcher/Tensor.h"

#include <fmt/ostream.h>

#include "ember/core/AutogradHooks.h"

namespace ember {

Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  int64_t n = checked_numel(sizes, "empty");
  EMBER_CHECK_TYPE(dtype != ScalarType::Undefined, "[empty] dtype is undefined");
  Storage s = make_storage(static_cast<size_t>(n) * element_size(dtype), device);
  return Tensor(make_intrusive<TensorImpl>(std::move(s), dtype, sizes));
}

namespace {
// The root base of a view of `base` (Note [View records]).
IntrusivePtr<TensorImpl> root_of(const Tensor& base) {
  TensorImpl* b = base.unsafeGetTensorImpl();
  return b->is_view() ? IntrusivePtr<TensorImpl>(b->view_base()) : base.impl();
}
}  // namespace

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  // The base's subclass and data (Note [TensorImpl subclasses and storage-less tensors]).
  IntrusivePtr<TensorImpl> impl = base.impl()->make_view(sizes, strides, storage_offset);
  // As_strided from the root, or from the output of the last step that as_strided cannot redo.
  impl->set_view_record(root_of(base), base.unsafeGetTensorImpl()->view_step());
  // Autograd is re-added by the autograd plugin as needed.
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
                 ViewStep::Fn replay) {
  EMBER_CHECK(static_cast<bool>(replay), "[make_view] the replay function is empty");
  auto impl =
      make_intrusive<TensorImpl>(base.impl()->storage(), base.dtype(), sizes, strides, storage_offset, base.layout());
  auto step = make_intrusive<const ViewStep>(base.unsafeGetTensorImpl()->view_step(), ViewGeometry::of(base),
                                             ViewGeometry{sizes, strides, storage_offset}, std::move(replay));
  impl->set_view_record(root_of(base), std::move(step));
  return Tensor(std::move(impl));
}

Tensor Tensor::_base() const {
  TensorImpl* b = impl_->view_base();
  return b ? Tensor(IntrusivePtr<TensorImpl>(b)) : Tensor();
}

namespace detail {
std::optional<ViewInfo> view_info(const Tensor& view) {
  EMBER_CHECK(view.defined(), "[view_info] called on an undefined tensor");
  TensorImpl* v = view.unsafeGetTensorImpl();
  if (!v->is_view()) return std::nullopt;
  Tensor base(IntrusivePtr<TensorImpl>(v->view_base()));
  const int64_t offset = view.storage_offset() - base.storage_offset();
  return ViewInfo{std::move(base), view.sizes(), view.strides(), offset, v->view_step()};
}
}  // namespace detail

Tensor Tensor::operator[](int64_t i) const { return select(0, i); }

// ---- autograd members: through AutogradHooks (Note [AutogradHooks]) ----

namespace {
AutogradMetaInterface* meta_of(const Tensor& t) {
  return t.defined() ? t.unsafeGetTensorImpl()->autograd_meta() : nullptr;
}
}  // namespace

Tensor& Tensor::requires_grad_(bool on) {
  std::as_const(*this).requires_grad_(on);
  return *this;
}

const Tensor& Tensor::requires_grad_(bool on) const {
  EMBER_CHECK(defined(), "[requires_grad_] called on an undefined tensor");
  TensorImpl* impl = impl_.get();
  if (AutogradMetaInterface* m = impl->autograd_meta()) {
    m->set_requires_grad(on, impl);
  } else if (on) {
    EMBER_CHECK_TYPE(is_floating_type(dtype()) || is_complex_type(dtype()),
                     "[requires_grad_] only tensors of floating point or complex dtype can require "
                     "gradients, got {}",
                     dtype());
    auto make_meta = require_autograd_hook("requires_grad_", &AutogradHooks::make_meta, "make_meta");
    impl->set_autograd_meta(make_meta(impl));
    impl->autograd_meta()->set_requires_grad(true, impl);
  } else {
    return *this;
  }
  if (impl->autograd_meta()->requires_grad())
    impl->add_keys(DispatchKeySet::of(Functionality::Autograd));
  else
    impl->remove_keys(DispatchKeySet::of(Functionality::Autograd));
  return *this;
}

bool Tensor::requires_grad() const {
  auto* m = meta_of(*this);
  return m && m->requires_grad();
}

bool Tensor::is_leaf() const {
  auto* m = meta_of(*this);
  return !m || m->is_leaf();
}

namespace {
const Tensor& undefined_tensor() {
  static const Tensor t;
  return t;
}
}  // namespace

const Tensor& Tensor::grad() const {
  auto* m = meta_of(*this);
  return m ? m->grad() : undefined_tensor();
}

Tensor& Tensor::mutable_grad() const {
  EMBER_CHECK(defined(), "[mutable_grad] called on an undefined tensor");
  if (!impl_->autograd_meta()) {
    auto make_meta = require_autograd_hook("mutable_grad", &AutogradHooks::make_meta, "make_meta");
    impl_->set_autograd_meta(make_meta(impl_.get()));
  }
  return impl_->autograd_meta()->mutable_grad();
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  EMBER_CHECK(defined(), "[backward] called on an undefined tensor");
  auto backward = require_autograd_hook("backward", &AutogradHooks::backward, "backward");
  std::vector<Tensor> grads;
  if (gradient.defined()) grads.push_back(gradient);
  backward({*this}, grads, retain_graph, create_graph);
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "[retain_grad] can't retain_grad on a tensor that has requires_grad=False");
  require_autograd_hook("retain_grad", &AutogradHooks::retain_grad, "retain_grad")(*this);
}

bool Tensor::retains_grad() const {
  if (!meta_of(*this)) return false;
  return require_autograd_hook("retains_grad", &AutogradHooks::retains_grad, "retains_grad")(*this);
}

unsigned Tensor::_register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(), "[register_hook] cannot register a hook on a tensor that doesn't require gradient");
  EMBER_CHECK(static_cast<bool>(hook), "[register_hook] the hook is empty");
  return require_autograd_hook("register_hook", &AutogradHooks::register_hook, "register_hook")(*this, std::move(hook));
}

void Tensor::remove_hook(unsigned handle) const {
  EMBER_CHECK(meta_of(*this) != nullptr, "[remove_hook] the tensor has no hooks (it never required grad)");
  require_autograd_hook("remove_hook", &AutogradHooks::remove_hook, "remove_hook")(*this, handle);
}

Tensor Tensor::detach() const {
  EMBER_CHECK(defined(), "[detach] called on an undefined tensor");
  // Same data and subclass (Note [TensorImpl subclasses and storage-less tensors]); an alias, not a
  // view, and without autograd meta.
  IntrusivePtr<TensorImpl> impl = impl_->shallow_copy_and_detach();
  impl->set_view_record({}, {});
  return Tensor(std::move(impl));
}

const Tensor& Tensor::detach_() const {
  EMBER_CHECK(defined(), "[detach_] called on an undefined tensor");
  if (meta_of(*this)) require_autograd_hook("detach_", &AutogradHooks::detach_, "detach_")(*this);
  return *this;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  EMBER_CHECK(defined(), "[grad_fn] called on an undefined tensor");
  if (!meta_of(*this)) return nullptr;
  return require_autograd_hook("grad_fn", &AutogradHooks::grad_fn, "grad_fn")(*this);
}

void Tensor::set_data(const Tensor& new_data) const {
  EMBER_CHECK(defined(), "[set_data] called on an undefined tensor");
  EMBER_CHECK(new_data.defined(), "[set_data] new_data is an undefined tensor");
  EMBER_CHECK_TYPE(layout() == new_data.layout(), "[set_data] new_data must have self's layout ({}), got {}",
                   fmt::streamed(layout()), fmt::streamed(new_data.layout()));
  if (meta_of(*this)) require_autograd_hook("set_data", &AutogradHooks::set_data, "set_data")(*this, new_data);
  impl_->shallow_copy_from(new_data.impl());
}

}  // namespace ember
