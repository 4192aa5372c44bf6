#pragma once
// The seam between core and the autograd plugin.
//
// Note [AutogradHooks]
// ~~~~~~~~~~~~~~~~~~~~
// libember never links autograd. The autograd plugin installs one AutogradHooks table when it
// registers (set_autograd_hooks); the Tensor members (requires_grad_, grad, backward,
// retain_grad, register_hook, set_data, ...) and ember/api/Autograd.h (autograd::grad,
// autograd::backward, autograd::Function<T>::apply) call through it. State every layer reads
// stays in core, and the plugin reads it directly: grad and inference mode (thread-local,
// LocalState.h), anomaly mode (below), the per-tensor AutogradMetaInterface slot, view records
// (Note [View records]) and version counters (Note [Version counters]).
//
// The table is plain data: its version, its size and the plugin's name, then function pointers,
// appended to and never reordered. A plugin built against an older header installs a shorter
// table: a field past its struct_size is absent, as is a null one, and require_autograd_hook()
// turns an absent field into NotImplementedError naming the capability and the plugin. With no
// table installed, every entry point throws NotImplementedError naming the plugin to load.
//
// Custom functions: Function<T>::apply (a template in api/) runs T::forward, then hands the
// plugin one C-like FunctionNodeArgs: the tensor inputs and outputs, the tensors to save, the
// inputs changed in place, and a type-erased backward callback with its state. The plugin
// builds the node, owns the state, and keeps the saved tensors as it keeps its own (version
// checked, no reference cycle through an output).
//
// There is no separate "rebase" entry: an in-place op on a view rebases its base's graph
// (PyTorch's CopySlices) inside the plugin, in its Autograd kernels and in
// record_function_node for dirty inputs, from core's view records; api/ changes no tensor in
// place outside the dispatcher. detach() needs nothing from the plugin (core makes an alias
// with no autograd meta); set_data() tells the plugin, which may reset what it keeps per tensor.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/TensorBase.h"

namespace ember {

namespace autograd {
// A node of the autograd graph as users see it (Tensor::grad_fn()): the autograd plugin's nodes
// implement it. A node receives the gradients of its forward's outputs ("grad_outputs") and
// produces those of its forward's inputs ("grad_inputs"), which flow along next_functions().
class EMBER_API Node {
 public:
  virtual ~Node();
  // PyTorch's name, e.g. "MulBackward0", "AccumulateGrad", "CubeBackward".
  virtual std::string name() const = 0;
  // Creation order within the thread; the engine runs ready nodes highest first.
  virtual uint64_t sequence_nr() const = 0;
  // Where each gradient this node produces goes: (node, which of its inputs); a null node for
  // an input that needs no gradient.
  virtual std::vector<std::pair<std::shared_ptr<Node>, uint32_t>> next_functions() const = 0;
  // How many gradients the node receives (its forward's outputs).
  virtual size_t num_inputs() const = 0;
  // hook(grad_outputs) runs before the node and may return replacements (empty: keep them).
  using PreHook = std::function<std::vector<Tensor>(const std::vector<Tensor>& grad_outputs)>;
  // hook(grad_inputs, grad_outputs) runs after it and may return replacement grad_inputs.
  using PostHook =
      std::function<std::vector<Tensor>(const std::vector<Tensor>& grad_inputs, const std::vector<Tensor>& grad_outputs)>;
  virtual unsigned register_prehook(PreHook hook) = 0;
  virtual unsigned register_hook(PostHook hook) = 0;
  // False when no hook of this node has the handle.
  virtual bool remove_hook(unsigned handle) = 0;
};
}  // namespace autograd

// What autograd::Function<T>::apply hands the plugin to record one node (Note [AutogradHooks]).
// Plain data with its own size, so it can grow like the table. Arrays are (pointer, count).
struct FunctionNodeArgs {
  uint32_t struct_size = sizeof(FunctionNodeArgs);
  const char* name = "";  // the node's name, e.g. "CubeBackward"
  // forward's tensor inputs, in order (undefined for an absent optional tensor)
  const Tensor* inputs = nullptr;
  size_t num_inputs = 0;
  // forward's outputs: the plugin makes them the node's outputs, and may replace an entry (e.g.
  // an input returned as is becomes a fresh alias); apply returns what is here afterwards
  Tensor* outputs = nullptr;
  size_t num_outputs = 0;
  const Tensor* saved = nullptr;  // ctx->save_for_backward
  size_t num_saved = 0;
  const Tensor* dirty = nullptr;  // ctx->mark_dirty: inputs changed in place (views rebase)
  size_t num_dirty = 0;
  const Tensor* non_differentiable = nullptr;  // ctx->mark_non_differentiable
  size_t num_non_differentiable = 0;
  bool materialize_grads = true;  // undefined output gradients become zeros before backward
  // The node's state (the context), owned by the node from now on: release(state) when it dies.
  void* state = nullptr;
  void (*release)(void* state) = nullptr;
  // Gradients of the inputs (one per input, undefined for none) from the gradients of the
  // outputs, with the saved tensors as the plugin unpacked them.
  void (*backward)(void* state, const Tensor* saved, size_t num_saved, const Tensor* grad_outputs, size_t num_outputs,
                   Tensor* grad_inputs, size_t num_inputs) = nullptr;
  // T::is_once_differentiable: differentiating the backward (create_graph) is an error.
  bool once_differentiable = false;
};

struct AutogradHooks {
  static constexpr uint32_t kVersion = 3;
  uint32_t version = kVersion;
  uint32_t struct_size = sizeof(AutogradHooks);
  const char* plugin = "autograd";  // named in errors
  // Creates the meta of a tensor that starts requiring grad (or gets a grad).
  std::unique_ptr<AutogradMetaInterface> (*make_meta)(TensorImpl* self) = nullptr;
  // autograd::backward / Tensor::backward: accumulates into the leaves' grad.
  void (*backward)(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph) = nullptr;
  // autograd::grad: returns the gradients of `inputs`, accumulating nothing.
  std::vector<Tensor> (*grad)(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                              const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                              bool create_graph, bool allow_unused) = nullptr;
  // Tensor::retain_grad / retains_grad: a non-leaf keeps its grad after backward.
  void (*retain_grad)(const Tensor& self) = nullptr;
  bool (*retains_grad)(const Tensor& self) = nullptr;
  // The name of the node that made `self` ("" for a leaf), e.g. "MulBackward0".
  std::string (*grad_fn_name)(const Tensor& self) = nullptr;
  // Tensor::register_hook: `hook` sees self's gradient and may return a replacement (undefined:
  // keep it). Returns a handle for remove_hook.
  unsigned (*register_hook)(const Tensor& self, std::function<Tensor(const Tensor& grad)> hook) = nullptr;
  void (*remove_hook)(const Tensor& self, unsigned handle) = nullptr;
  // Tensor::set_data, before core swaps self's data for new_data's (self has autograd meta).
  void (*set_data)(const Tensor& self, const Tensor& new_data) = nullptr;
  // autograd::Function<T>::apply: records one node (Note [AutogradHooks]).
  void (*record_function_node)(const FunctionNodeArgs& args) = nullptr;
  // --- version 3 ---
  // Tensor::grad_fn: the node that made `self` (null for a leaf).
  std::shared_ptr<autograd::Node> (*grad_fn)(const Tensor& self) = nullptr;
  // Tensor::detach_: self becomes a leaf that does not require grad.
  void (*detach_)(const Tensor& self) = nullptr;
};

// Installs the autograd plugin's table (null to remove); it must outlive its use. Throws
// ValueError for a table this libember cannot read (older than version 2, or too short to hold
// its header).
EMBER_API void set_autograd_hooks(const AutogradHooks* hooks);
// Null when no autograd plugin is loaded.
EMBER_API const AutogradHooks* autograd_hooks();
// The hooks, or NotImplementedError "[what] needs the autograd plugin ..." when absent. When
// none are installed yet it first runs the start-up function (below), which loads the default
// plugins: so requires_grad_() as a program's first Ember call finds the autograd plugin.
EMBER_API const AutogradHooks& require_autograd_hooks(const char* what);
// The start-up function require_autograd_hooks runs: libember's dispatcher sets it to its
// first-use initialisation (core cannot call the dispatcher).
EMBER_API void set_autograd_startup(void (*startup)());

namespace detail {
[[noreturn]] EMBER_API void throw_missing_autograd_hook(const char* what, const char* capability,
                                                        const AutogradHooks& h);
}  // namespace detail

// The field `field` of the installed table, checked to be present: NotImplementedError naming
// `what`, the capability and the plugin when there is no table, when the plugin's table is too
// old to have the field (struct_size), or when it leaves the field null.
//   auto fn = require_autograd_hook("retain_grad", &AutogradHooks::retain_grad, "retain_grad");
template <class Fn>
Fn require_autograd_hook(const char* what, Fn AutogradHooks::*field, const char* capability) {
  const AutogradHooks& h = require_autograd_hooks(what);
  const AutogradHooks probe;  // locates the field; folded to a constant by the compiler
  const auto end =
      static_cast<size_t>(reinterpret_cast<const char*>(&(probe.*field)) - reinterpret_cast<const char*>(&probe)) +
      sizeof(Fn);
  if (h.struct_size < end || !(h.*field)) detail::throw_missing_autograd_hook(what, capability, h);
  return h.*field;
}

// Anomaly detection (PyTorch's AnomalyMode): process-wide, read by the autograd engine, which
// then records where each node was made and checks gradients for NaN.
struct EMBER_API AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
};

}  // namespace ember
