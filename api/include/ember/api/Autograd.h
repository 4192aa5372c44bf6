#pragma once
// Autograd for users: autograd::grad and backward, custom functions (Function<T>), grad-mode
// guards. Everything that needs the graph goes through the autograd plugin's table
// (Note [AutogradHooks] in ember/core/AutogradHooks.h).
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/AutogradHooks.h"
#include "ember/core/LocalState.h"
#include "ember/dispatcher/IValue.h"
#include "ember/dispatcher/Library.h"

namespace ember::autograd {

using variable_list = std::vector<Tensor>;
using ember::AnomalyMode;
using ember::AutoGradMode;
using ember::GradMode;
using ember::InferenceMode;
using ember::NoGradGuard;

// Anomaly detection on in a scope (LibTorch's DetectAnomalyGuard).
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true)
      : prev_(AnomalyMode::is_enabled()), prev_nan_(AnomalyMode::should_check_nan()) {
    AnomalyMode::set_enabled(true, check_nan);
  }
  ~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_, prev_nan_); }
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_, prev_nan_;
};

// The gradients of `inputs`, accumulating nothing into their grad.
EMBER_API variable_list grad(const variable_list& outputs, const variable_list& inputs,
                             const variable_list& grad_outputs = {}, std::optional<bool> retain_graph = {},
                             bool create_graph = false, bool allow_unused = false);
// Accumulates the gradients of `tensors` into the leaves' grad.
EMBER_API void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
                        std::optional<bool> retain_graph = {}, bool create_graph = false);
// The name of the node that made `t` ("" for a leaf, or a tensor with no history).
EMBER_API std::string grad_fn_name(const Tensor& t);

namespace detail {
struct NodeState;
}  // namespace detail

// What a custom function's forward leaves for its backward (LibTorch's AutogradContext).
class EMBER_API AutogradContext {
 public:
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  // In backward: the saved tensors, as the autograd plugin kept them (it checks that none was
  // modified in place since).
  const variable_list& get_saved_variables() const;
  // Inputs forward changed in place.
  void mark_dirty(const variable_list& inputs) { dirty_ = inputs; }
  // Outputs that get no gradient.
  void mark_non_differentiable(const variable_list& outputs) { non_differentiable_ = outputs; }
  // Undefined output gradients reach backward as zeros (the default) or stay undefined.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // Whether forward's `index`-th tensor input needs a gradient.
  bool needs_input_grad(size_t index) const;

  std::unordered_map<std::string, IValue> saved_data;

 private:
  friend struct detail::NodeState;
  template <class T>
  friend struct Function;
  variable_list to_save_, saved_, dirty_, non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
  bool in_backward_ = false;
};

namespace detail {

using BackwardFn = void (*)(void* state, const Tensor* saved, size_t num_saved, const Tensor* grad_outputs,
                            size_t num_outputs, Tensor* grad_inputs, size_t num_inputs);

// A node's state, owned by the plugin's node once recorded: the context and which forward
// arguments were tensor inputs (T::backward returns one gradient per argument).
struct EMBER_API NodeState {
  virtual ~NodeState() = default;
  std::string name;
  AutogradContext ctx;
  std::vector<bool> arg_is_input;  // per forward argument, a variable_list counting per element
  bool once_differentiable = false;  // T::is_once_differentiable

  // Before forward: which inputs need a gradient.
  void begin_forward(const variable_list& inputs);
  // After forward: records the node through AutogradHooks::record_function_node when grad mode
  // is on and an input requires grad (else the state is dropped). The plugin may replace
  // entries of `outputs`.
  static void record(std::unique_ptr<NodeState> st, const variable_list& inputs, variable_list& outputs,
                     BackwardFn backward);
  // In backward: the saved tensors the plugin unpacked.
  void set_saved(const Tensor* saved, size_t n);
  // T::backward's gradients into the plugin's per-input array; checks their count.
  void scatter(const variable_list& grads, Tensor* grad_inputs, size_t num_inputs) const;
};

// "CubeBackward" for struct Cube.
EMBER_API std::string function_name(const std::type_info& t);

template <class A>
void collect_input(NodeState& st, variable_list& inputs, const A& a) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor>) {
    st.arg_is_input.push_back(true);
    inputs.push_back(a);
  } else if constexpr (std::is_same_v<D, variable_list>) {
    for (const Tensor& t : a) {
      st.arg_is_input.push_back(true);
      inputs.push_back(t);
    }
  } else {
    st.arg_is_input.push_back(false);
  }
}

template <class T>
void call_backward(void* s, const Tensor* saved, size_t num_saved, const Tensor* grad_outputs, size_t num_outputs,
                   Tensor* grad_inputs, size_t num_inputs) {
  auto* st = static_cast<NodeState*>(s);
  st->set_saved(saved, num_saved);
  variable_list grads = T::backward(&st->ctx, variable_list(grad_outputs, grad_outputs + num_outputs));
  st->scatter(grads, grad_inputs, num_inputs);
}

}  // namespace detail

// A custom differentiable function (LibTorch's torch::autograd::Function):
//   struct Cube : Function<Cube> {
//     static Tensor forward(AutogradContext* ctx, Tensor x) { ctx->save_for_backward({x}); return x * x * x; }
//     static variable_list backward(AutogradContext* ctx, variable_list g) {
//       auto x = ctx->get_saved_variables()[0]; return {g[0] * 3 * x * x}; }
//   };
//   Tensor y = Cube::apply(x);
// forward runs with grad mode off and returns a Tensor or a variable_list; backward returns one
// gradient per forward argument (undefined for those that are not tensors). backward runs with
// grad mode on under create_graph, so a backward written with ember ops is differentiable; one
// that is not declares `static constexpr bool is_once_differentiable = true;` (Python's
// @once_differentiable) and differentiating it again is an error instead of a wrong result.
template <class T>
struct Function {
  template <class X = T, class... Args>
  static auto apply(Args&&... args) {
    using Out = decltype(X::forward(std::declval<AutogradContext*>(), std::forward<Args>(args)...));
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, variable_list>,
                  "Function<T>::forward must return a Tensor or a variable_list");
    auto st = std::make_unique<detail::NodeState>();
    st->name = detail::function_name(typeid(T));
    if constexpr (requires { X::is_once_differentiable; }) st->once_differentiable = X::is_once_differentiable;
    variable_list inputs;
    (detail::collect_input(*st, inputs, args), ...);
    st->begin_forward(inputs);
    variable_list outputs;
    {
      AutoGradMode off(false);
      if constexpr (std::is_same_v<Out, Tensor>)
        outputs.push_back(X::forward(&st->ctx, std::forward<Args>(args)...));
      else
        outputs = X::forward(&st->ctx, std::forward<Args>(args)...);
    }
    detail::NodeState::record(std::move(st), inputs, outputs, &detail::call_backward<X>);
    if constexpr (std::is_same_v<Out, Tensor>)
      return outputs[0];
    else
      return outputs;
  }
};

// A derivative formula for an operator of your own (Python's torch.library.register_autograd):
// registers in `m` the operator's Autograd kernel, which runs the operator below autograd and,
// when grad mode is on and an input requires grad, records a node whose backward is
// `backward(ctx, grad_outputs)` (one gradient per schema argument, undefined for the arguments
// that are not tensors or need none). `setup_context(ctx, args, outputs)` runs after the
// forward and saves what backward needs (ctx->save_for_backward, saved_data). Works from any
// library block (EMBER_LIBRARY_IMPL(ns, Autograd, m) or the operator's EMBER_LIBRARY), for
// operators whose arguments are tensors, scalars and the like and whose outputs are tensors.
//   EMBER_LIBRARY_IMPL(mylib, Autograd, m) {
//     ember::autograd::register_autograd(m, "square",
//         [](AutogradContext* ctx, const variable_list& g) {
//           return variable_list{g[0] * 2 * ctx->get_saved_variables()[0]}; },
//         [](AutogradContext* ctx, const std::vector<IValue>& args, const variable_list&) {
//           ctx->save_for_backward({args[0].toTensor()}); });
//   }
using BackwardFormula = std::function<variable_list(AutogradContext* ctx, const variable_list& grad_outputs)>;
using SetupContext =
    std::function<void(AutogradContext* ctx, const std::vector<IValue>& args, const variable_list& outputs)>;
EMBER_API void register_autograd(Library& m, std::string_view name, BackwardFormula backward,
                                 SetupContext setup_context = {});

}  // namespace ember::autograd
