#include "ember/core/Tensor.h"

#include <atomic>

#include "ember/core/AutogradHooks.h"

namespace ember {

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat32};
}  // namespace

ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(is_floating_type(t), "[set_default_dtype] expected a floating dtype, got {}", t);
  g_default_dtype.store(t, std::memory_order_relaxed);
}

int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-dim tensor accepts dim 0 and -1, as in PyTorch
  EMBER_CHECK_INDEX(dim >= -n && dim < n,
                    "[{}] dimension out of range (expected to be in range of [{}, {}], but got {})",
                    op, -n, n - 1, dim);
  return dim < 0 ? dim + n : dim;
}

void Tensor::check_dtype(ScalarType want, const char* what) const {
  EMBER_CHECK(defined(), "[{}] called on an undefined tensor", what);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_meta(), "[{}] a meta tensor has no data (only sizes, strides and dtype)", what);
  EMBER_CHECK_TYPE(dtype() == want, "[{}] expected a tensor of dtype {} but it is {}", what, want, dtype());
}

Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  int64_t n = checked_numel(sizes, "empty");
  EMBER_CHECK_TYPE(dtype != ScalarType::Undefined, "[empty] dtype is undefined");
  Storage s = make_storage(static_cast<size_t>(n) * element_size(dtype), device);
  return Tensor(make_intrusive<TensorImpl>(std::move(s), dtype, sizes));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  // The base's subclass and data (see Note [TensorImpl subclasses and storage-less tensors]);
  // Autograd is re-added by the autograd plugin as needed.
  return Tensor(base.impl()->make_view(sizes, strides, storage_offset));
}

Tensor Tensor::operator[](int64_t i) const { return select(0, i); }

// ---- autograd members: through AutogradHooks (Note [AutogradHooks]) ----

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
    const AutogradHooks& h = require_autograd_hooks("requires_grad_");
    impl->set_autograd_meta(h.make_meta(impl));
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
  auto* m = defined() ? impl_->autograd_meta() : nullptr;
  return m && m->requires_grad();
}

bool Tensor::is_leaf() const {
  auto* m = defined() ? impl_->autograd_meta() : nullptr;
  return !m || m->is_leaf();
}

namespace {
const Tensor& undefined_tensor() {
  static const Tensor t;
  return t;
}
}  // namespace

const Tensor& Tensor::grad() const {
  auto* m = defined() ? impl_->autograd_meta() : nullptr;
  return m ? m->grad() : undefined_tensor();
}

Tensor& Tensor::mutable_grad() const {
  EMBER_CHECK(defined(), "[mutable_grad] called on an undefined tensor");
  if (!impl_->autograd_meta()) {
    const AutogradHooks& h = require_autograd_hooks("mutable_grad");
    impl_->set_autograd_meta(h.make_meta(impl_.get()));
  }
  return impl_->autograd_meta()->mutable_grad();
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  const AutogradHooks& h = require_autograd_hooks("backward");
  std::vector<Tensor> grads;
  if (gradient.defined()) grads.push_back(gradient);
  h.backward({*this}, grads, retain_graph, create_graph);
}

}  // namespace ember
