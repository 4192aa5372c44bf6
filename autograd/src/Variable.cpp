#include "Variable.h"

#include "BasicNodes.h"
#include "ember/api/Views.h"

namespace ember::autograd {

namespace {
const DispatchKeySet kAutogradKeys = DispatchKeySet::of(Functionality::Autograd);
}  // namespace

void AutogradMeta::set_requires_grad(bool on, TensorImpl* self) {
  EMBER_CHECK(!grad_fn || on,
              "[requires_grad_] you can only change requires_grad flags of leaf variables. If you want to use a "
              "computed variable in a subgraph that doesn't require differentiation use var_no_grad = "
              "var.detach().");
  EMBER_CHECK(!on || !self->is_inference() || InferenceMode::is_enabled(),
              "[requires_grad_] setting requires_grad=True on an inference tensor outside InferenceMode is not "
              "allowed");
  requires_grad_ = on;
}

const Tensor& AutogradMeta::grad() const {
  static const Tensor undefined;
  return slot ? slot->grad : undefined;
}

GradSlot& AutogradMeta::ensure_slot() {
  std::lock_guard<std::mutex> lock(accumulator_mu);
  if (!slot) slot = std::make_shared<GradSlot>();
  return *slot;
}

std::unique_ptr<AutogradMetaInterface> make_meta(TensorImpl*) { return std::make_unique<AutogradMeta>(); }

AutogradMeta& materialize_meta(const TensorBase& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (!impl->autograd_meta()) impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  return *static_cast<AutogradMeta*>(impl->autograd_meta());
}

std::shared_ptr<NodeImpl> grad_fn_of(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  if (!m) return nullptr;
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->is_view() && m->grad_fn && m->attr_version != impl->version()) {
    Tensor base = t._base();
    if (requires_grad(base)) {
      // Note [Views and in-place under autograd]: the base's history moved; redo the view on it.
      set_history(t, NodeImpl::make<AsStridedViewBackward>(*ember::detail::view_info(t), gradient_edge(base)));
    } else {
      m->attr_version = impl->version();
    }
  }
  return m->grad_fn;
}

std::shared_ptr<NodeImpl> grad_accumulator(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  EMBER_INTERNAL_ASSERT(m && !m->grad_fn && m->requires_grad_, "grad_accumulator of a tensor that is no leaf");
  std::lock_guard<std::mutex> lock(m->accumulator_mu);
  std::shared_ptr<NodeImpl> acc = m->grad_accumulator.lock();
  if (acc) return acc;
  // The node keeps the leaf, not its own handle: an alias sharing the impl.
  acc = NodeImpl::make<AccumulateGrad>(t);
  m->grad_accumulator = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  if (!m) return {};
  if (auto fn = grad_fn_of(t)) return {std::move(fn), m->output_nr};
  if (m->requires_grad_) return {grad_accumulator(t), 0};
  return {};
}

void set_history(const Tensor& t, const std::shared_ptr<NodeImpl>& fn) {
  if (!t.defined()) {
    fn->add_input_metadata_undefined();
    return;
  }
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn = fn;
  m.output_nr = fn->add_input_metadata(t);
  TensorImpl* impl = t.unsafeGetTensorImpl();
  m.attr_version = impl->version();
  impl->add_keys(kAutogradKeys);
}

void check_inplace(const Tensor& self, const char* op) {
  const AutogradMeta* m = meta_of(self);
  if (m && m->requires_grad_ && !m->grad_fn && GradMode::is_enabled())
    EMBER_THROW(ValueError, "[{}] a leaf Variable that requires grad is being used in an in-place operation.", op);
  TensorImpl* impl = self.unsafeGetTensorImpl();
  if (impl->is_view() && GradMode::is_enabled()) {
    const AutogradMeta* bm = static_cast<const AutogradMeta*>(impl->view_base()->autograd_meta());
    if (bm && bm->requires_grad_ && !bm->grad_fn)
      EMBER_THROW(ValueError,
                  "[{}] a view of a leaf Variable that requires grad is being used in an in-place operation.", op);
  }
}

void rebase_history(const Tensor& self, std::shared_ptr<NodeImpl> fn) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  if (!impl->is_view()) {
    set_history(self, fn);
    return;
  }
  // Note [Views and in-place under autograd]: fn computed the view's new value from its old
  // one; the base's new history is CopySlices(base's old history, fn).
  EMBER_INTERNAL_ASSERT(fn->num_inputs() == 0, "rebase_history before set_history");
  Tensor base = self._base();
  auto info = ember::detail::view_info(self);
  auto copy_slices = NodeImpl::make<CopySlices>(base, self, *info, std::move(fn));
  set_history(base, copy_slices);
  // The view's grad_fn follows from the base's.
  set_history(self, NodeImpl::make<AsStridedViewBackward>(*info, Edge{copy_slices, 0}));
}

Tensor alias_without_history(const Tensor& t) {
  IntrusivePtr<TensorImpl> impl = t.unsafeGetTensorImpl()->shallow_copy_and_detach();
  // Nor its view record: a saved output that kept its base alive would close a cycle through the
  // base's CopySlices, which owns the node that saved it.
  impl->set_view_record({}, {});
  return Tensor(std::move(impl));
}

}  // namespace ember::autograd

namespace ember::autograd {

void throw_out_requires_grad(const char* op) {
  EMBER_THROW(ValueError,
              "[{}] functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.",
              op);
}

void throw_not_implemented(const char* op, const char* what) {
  EMBER_THROW(NotImplementedError,
              "[{}] the derivative of {} is not implemented ({}), and one of its inputs requires grad: call it "
              "under ember::NoGradGuard, or detach() the input",
              op, op, what);
}

}  // namespace ember::autograd
