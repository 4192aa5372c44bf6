// The autograd plugin: installs core's AutogradHooks table (Note [AutogradHooks]), the generated
// Autograd kernels of every built-in operator (RegisterAutograd.cpp, from
// schemas/derivatives.yaml), and a boxed fallback at the Autograd key for operators it has no
// kernel for (third-party operators): such a call runs below autograd, unless grad mode is on
// and an input requires grad, which is an error naming the operator rather than a silent zero
// gradient. The fallback covers every backend, ones registered after this plugin included.
#include <algorithm>

#include "BasicNodes.h"
#include "Engine.h"
#include "Variable.h"
#include "VariableTypeUtils.h"
#include "ember/ember.h"
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("autograd", EMBER_VERSION_STRING)

namespace ember::autograd {
namespace {

std::vector<Tensor> run_grad_hook(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                                  bool create_graph, bool allow_unused) {
  return run_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
}

void retain_grad(const Tensor& self) {
  AutogradMeta* m = meta_of(self);
  if (!m || !m->grad_fn) return;  // a leaf keeps its grad anyway
  if (m->retains_grad) return;
  m->retains_grad = true;
  m->ensure_slot();
  std::shared_ptr<GradSlot> slot = m->slot;
  grad_fn_of(self)->set_retain_grad_hook(m->output_nr, [slot](const Tensor& g) {
    std::lock_guard<std::mutex> lock(slot->mu);
    if (!slot->grad.defined())
      slot->grad = g.clone();
    else
      slot->grad = add_grads(slot->grad, g);
  });
}

bool retains_grad(const Tensor& self) {
  AutogradMeta* m = meta_of(self);
  return m && m->grad_fn && m->retains_grad;
}

std::string grad_fn_name(const Tensor& self) {
  auto fn = grad_fn_of(self);
  return fn ? fn->name() : "";
}

unsigned register_hook(const Tensor& self, std::function<Tensor(const Tensor&)> hook) {
  AutogradMeta* m = meta_of(self);
  if (auto fn = grad_fn_of(self)) return fn->add_tensor_hook(m->output_nr, std::move(hook));
  unsigned h = next_hook_handle();
  m->leaf_hooks.emplace_back(h, std::move(hook));
  return h;
}

void remove_hook(const Tensor& self, unsigned handle) {
  AutogradMeta* m = meta_of(self);
  auto& lh = m->leaf_hooks;
  auto it = std::find_if(lh.begin(), lh.end(), [&](const auto& x) { return x.first == handle; });
  if (it != lh.end()) {
    lh.erase(it);
    return;
  }
  auto fn = grad_fn_of(self);
  EMBER_CHECK(fn && fn->remove_hook(handle), "[remove_hook] the tensor has no hook with handle {}", handle);
}

void set_data(const Tensor& self, const Tensor&) {
  // The AccumulateGrad recorded the old shape: the next use makes a new one.
  AutogradMeta* m = meta_of(self);
  std::lock_guard<std::mutex> lock(m->accumulator_mu);
  m->grad_accumulator.reset();
}

std::shared_ptr<Node> grad_fn(const Tensor& self) { return grad_fn_of(self); }

void detach_(const Tensor& self) {
  EMBER_CHECK(!self.unsafeGetTensorImpl()->is_view() || !meta_of(self)->grad_fn,
              "[detach_] Can't detach views in-place. Use detach() instead.");
  AutogradMeta* m = meta_of(self);
  m->grad_fn = nullptr;
  m->output_nr = 0;
  m->requires_grad_ = false;
  self.unsafeGetTensorImpl()->remove_keys(DispatchKeySet::of(Functionality::Autograd));
}

const AutogradHooks kHooks = [] {
  AutogradHooks h;
  h.plugin = "autograd";
  h.make_meta = &make_meta;
  h.backward = &run_backward;
  h.grad = &run_grad_hook;
  h.retain_grad = &retain_grad;
  h.retains_grad = &retains_grad;
  h.grad_fn_name = &grad_fn_name;
  h.register_hook = &register_hook;
  h.remove_hook = &remove_hook;
  h.set_data = &set_data;
  h.record_function_node = &record_function_node;
  h.grad_fn = &grad_fn;
  h.detach_ = &detach_;
  return h;
}();

// Operators without an Autograd kernel of their own (Note at the top of this file).
void autograd_fallback(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  if (GradMode::is_enabled()) {
    const auto& args = op.schema().arguments();
    const size_t first = stack->size() - args.size();
    for (size_t i = 0; i < args.size(); ++i) {
      const IValue& v = (*stack)[first + i];
      bool req = false;
      if (v.isTensor()) {
        req = requires_grad(v.toTensor());
      } else if (v.isTensorList()) {
        for (const Tensor& t : v.toTensorVector()) req = req || requires_grad(t);
      } else if (v.isList()) {
        for (const IValue& e : v.toListRef()) req = req || (e.isTensor() && requires_grad(e.toTensor()));
      }
      EMBER_CHECK_NOT_IMPLEMENTED(
          !req,
          "[{}] has no derivative formula, and its argument '{}' requires grad: register one with "
          "ember::autograd::register_autograd (or write an autograd::Function), or call it under "
          "ember::NoGradGuard",
          op.operator_name(), args[i].name());
    }
  }
  AutoDispatchBelowAutograd below;
  op.redispatchBoxed(ks, stack);
}

}  // namespace
}  // namespace ember::autograd

EMBER_LIBRARY_IMPL(_, Autograd, m) {
  m.fallback(ember::CppFunction::makeFromBoxedFunction<&ember::autograd::autograd_fallback>());
  ember::set_autograd_hooks(&ember::autograd::kHooks);
}
