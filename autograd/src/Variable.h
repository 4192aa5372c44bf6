#pragma once
// Per-tensor autograd state and the operations on it that kernels and the engine share.
//
// Note [Views and in-place under autograd]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Core records every view's root base (Note [View records]), so autograd keeps no view state of
// its own. An in-place op on a view whose base requires grad, or that makes it require grad,
// rebases the base's history: the base's grad_fn becomes a CopySlices wrapping the op's node
// (its gradient for the view's slice goes through the op's backward, the rest passes through),
// and the view's grad_fn is regenerated from the base's: a view remembers the version at which
// its grad_fn was set (attr_version), and gradient_edge() redoes it as AsStridedBackward0 of the
// base when the shared version counter has moved since and the base requires grad (PyTorch's
// lazy regeneration). In-place on a leaf that requires grad, or on a view of one, is an error.
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "Node.h"
#include "ember/core/LocalState.h"

namespace ember::autograd {

// The gradient slot, shared with retain_grad's hook (which must not keep the tensor alive).
struct GradSlot {
  std::mutex mu;
  Tensor grad;
};

class AutogradMeta final : public AutogradMetaInterface {
 public:
  bool requires_grad() const override { return requires_grad_ || grad_fn != nullptr; }
  void set_requires_grad(bool on, TensorImpl* self) override;
  const Tensor& grad() const override;
  Tensor& mutable_grad() override { return ensure_slot().grad; }
  // The grad slot, made on first use (most tensors with history never get a grad).
  GradSlot& ensure_slot();
  bool is_leaf() const override { return grad_fn == nullptr; }

  bool requires_grad_ = false;
  std::shared_ptr<NodeImpl> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<NodeImpl> grad_accumulator;
  std::mutex accumulator_mu;
  std::shared_ptr<GradSlot> slot;  // null until used
  bool retains_grad = false;
  // Tensor::register_hook on a leaf: run by its AccumulateGrad before accumulating.
  std::vector<std::pair<unsigned, std::function<Tensor(const Tensor&)>>> leaf_hooks;
  // Views: the version at which grad_fn was set (Note [Views and in-place under autograd]).
  uint64_t attr_version = 0;
};

std::unique_ptr<AutogradMetaInterface> make_meta(TensorImpl* self);

inline AutogradMeta* meta_of(const TensorBase& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta()) : nullptr;
}
AutogradMeta& materialize_meta(const TensorBase& t);

inline bool requires_grad(const TensorBase& t) {
  const AutogradMeta* m = meta_of(t);
  return m && m->requires_grad();
}

// The node that made t (regenerating a stale view's, Note [Views and in-place under autograd]).
std::shared_ptr<NodeImpl> grad_fn_of(const Tensor& t);
// Where t's gradient goes: (grad_fn, output_nr), or its AccumulateGrad for a leaf that requires
// grad, or nothing.
Edge gradient_edge(const Tensor& t);
std::shared_ptr<NodeImpl> grad_accumulator(const Tensor& t);

// Makes `t` (a fresh output of `fn`) an output of it.
void set_history(const Tensor& t, const std::shared_ptr<NodeImpl>& fn);
// For an in-place op's `self`: set_history, or CopySlices on its base when self is a view.
void rebase_history(const Tensor& self, std::shared_ptr<NodeImpl> fn);
// Errors for in-place on a leaf that requires grad, or a view of one; `op` names the call.
void check_inplace(const Tensor& self, const char* op);

// A tensor sharing t's data (and version counter), with no history and no view record (what
// SavedVariable keeps of an output).
Tensor alias_without_history(const Tensor& t);

}  // namespace ember::autograd
