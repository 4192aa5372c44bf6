#include "ember/api/Autograd.h"

#include "ember/dispatcher/Dispatcher.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace ember::autograd {

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  auto fn = require_autograd_hook("autograd::grad", &AutogradHooks::grad, "grad");
  return fn(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
}

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph) {
  auto fn = require_autograd_hook("autograd::backward", &AutogradHooks::backward, "backward");
  fn(tensors, grad_tensors, retain_graph, create_graph);
}

std::string grad_fn_name(const Tensor& t) {
  EMBER_CHECK(t.defined(), "[grad_fn_name] called on an undefined tensor");
  if (!t.unsafeGetTensorImpl()->autograd_meta()) return "";
  return require_autograd_hook("grad_fn_name", &AutogradHooks::grad_fn_name, "grad_fn_name")(t);
}

const variable_list& AutogradContext::get_saved_variables() const {
  EMBER_CHECK(in_backward_, "[get_saved_variables] the saved tensors are available in backward only");
  return saved_;
}

bool AutogradContext::needs_input_grad(size_t index) const {
  EMBER_CHECK_INDEX(index < needs_input_grad_.size(),
                    "[needs_input_grad] index {} out of range: forward has {} tensor inputs", index,
                    needs_input_grad_.size());
  return needs_input_grad_[index];
}

namespace detail {

std::string function_name(const std::type_info& t) {
  int status = 0;
  char* d = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && d ? d : t.name();
  std::free(d);
  // Unqualified, as PyTorch names a custom function's node: ns::Cube -> CubeBackward.
  const size_t sep = name.rfind("::", name.find('<'));
  if (sep != std::string::npos) name.erase(0, sep + 2);
  return name + "Backward";
}

void NodeState::begin_forward(const variable_list& inputs) {
  const bool grad_on = GradMode::is_enabled();
  ctx.needs_input_grad_.clear();
  for (const Tensor& t : inputs) ctx.needs_input_grad_.push_back(grad_on && t.defined() && t.requires_grad());
}

void NodeState::set_saved(const Tensor* saved, size_t n) {
  ctx.saved_.assign(saved, saved + n);
  ctx.in_backward_ = true;
}

void NodeState::scatter(const variable_list& grads, Tensor* grad_inputs, size_t num_inputs) const {
  EMBER_CHECK(grads.size() == arg_is_input.size(),
              "[{}] backward returned {} gradients, expected {} (one per forward argument, undefined for the "
              "arguments that are not tensors)",
              name, grads.size(), arg_is_input.size());
  size_t k = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!arg_is_input[i]) {
      EMBER_CHECK(!grads[i].defined(),
                  "[{}] backward returned a defined gradient at position {}, but forward argument {} is not a "
                  "tensor",
                  name, i, i);
      continue;
    }
    EMBER_INTERNAL_ASSERT(k < num_inputs, "{} tensor inputs recorded, more in the arguments", num_inputs);
    grad_inputs[k++] = grads[i];
  }
}

namespace {
void release_state(void* s) { delete static_cast<NodeState*>(s); }

bool contains(const variable_list& v, const Tensor& t) {
  return std::any_of(v.begin(), v.end(), [&](const Tensor& x) { return x.is_same(t); });
}
}  // namespace

void NodeState::record(std::unique_ptr<NodeState> st, const variable_list& inputs, variable_list& outputs,
                       BackwardFn backward) {
  const AutogradContext& ctx = st->ctx;
  const std::string& name = st->name;
  for (const Tensor& t : ctx.dirty_)
    EMBER_CHECK(contains(inputs, t), "[{}] mark_dirty was given a tensor that is not an input of forward", name);
  for (const Tensor& t : ctx.non_differentiable_)
    EMBER_CHECK(contains(outputs, t),
                "[{}] mark_non_differentiable was given a tensor that is not an output of forward", name);
  for (const Tensor& t : outputs) EMBER_CHECK(t.defined(), "[{}] forward returned an undefined tensor", name);
  const bool record = GradMode::is_enabled() && std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) {
                        return t.defined() && t.requires_grad();
                      });
  if (!record) return;  // no graph: plain outputs, the state dies here
  auto fn = require_autograd_hook(name.c_str(), &AutogradHooks::record_function_node, "record_function_node");
  FunctionNodeArgs a;
  a.name = name.c_str();
  a.inputs = inputs.data();
  a.num_inputs = inputs.size();
  a.outputs = outputs.data();
  a.num_outputs = outputs.size();
  a.saved = ctx.to_save_.data();
  a.num_saved = ctx.to_save_.size();
  a.dirty = ctx.dirty_.data();
  a.num_dirty = ctx.dirty_.size();
  a.non_differentiable = ctx.non_differentiable_.data();
  a.num_non_differentiable = ctx.non_differentiable_.size();
  a.materialize_grads = ctx.materialize_grads_;
  a.state = st.get();
  a.release = &release_state;
  a.backward = backward;
  a.once_differentiable = st->once_differentiable;
  fn(a);  // throws: nothing was recorded and the state is still ours
  // The plugin keeps what it needs; the context must not hold the outputs (they hold the node,
  // which owns the context: a cycle).
  st->ctx.to_save_.clear();
  st->ctx.dirty_.clear();
  st->ctx.non_differentiable_.clear();
  st.release();  // the node owns it now
}

}  // namespace detail
namespace {

struct FormulaState final : detail::NodeState {
  BackwardFormula formula;
};

void call_formula(void* s, const Tensor* saved, size_t num_saved, const Tensor* grad_outputs, size_t num_outputs,
                  Tensor* grad_inputs, size_t num_inputs) {
  auto* st = static_cast<FormulaState*>(s);
  st->set_saved(saved, num_saved);
  variable_list grads = st->formula(&st->ctx, variable_list(grad_outputs, grad_outputs + num_outputs));
  st->scatter(grads, grad_inputs, num_inputs);
}

// "mylib::square.out" -> "SquareBackward" (as a custom Function's node is named).
std::string formula_node_name(const std::string& op) {
  std::string base = op.substr(op.rfind("::") == std::string::npos ? 0 : op.rfind("::") + 2);
  base = base.substr(0, base.find('.'));
  std::string r;
  bool up = true;
  for (char c : base) {
    if (c == '_') {
      up = true;
      continue;
    }
    r += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return r + "Backward";
}

}  // namespace

void register_autograd(Library& m, std::string_view name, BackwardFormula backward, SetupContext setup_context) {
  EMBER_CHECK(static_cast<bool>(backward), "[register_autograd] '{}': the backward formula is empty", name);
  auto kernel = [backward = std::move(backward), setup = std::move(setup_context)](const OperatorHandle& op,
                                                                                   DispatchKeySet ks, Stack* stack) {
    const auto& schema = op.schema();
    const size_t n = schema.arguments().size();
    const size_t first = stack->size() - n;
    std::vector<IValue> args(stack->begin() + static_cast<std::ptrdiff_t>(first), stack->end());
    auto st = std::make_unique<FormulaState>();
    st->name = formula_node_name(op.operator_name());
    st->formula = backward;
    variable_list inputs;
    for (const IValue& a : args) {
      const bool t = a.isTensor();
      st->arg_is_input.push_back(t);
      if (t) inputs.push_back(a.toTensor());
    }
    st->begin_forward(inputs);
    {
      ExcludeDispatchKeyGuard below(DispatchKeySet::of(Functionality::Autograd));
      op.redispatchBoxed(ks, stack);
    }
    const size_t n_out = schema.returns().size();
    const size_t out_first = stack->size() - n_out;
    variable_list outputs;
    for (size_t i = out_first; i < stack->size(); ++i) {
      EMBER_CHECK_NOT_IMPLEMENTED((*stack)[i].isTensor(),
                                  "[register_autograd] {}: output {} is not a tensor; a registered formula "
                                  "supports tensor outputs only",
                                  op.operator_name(), i - out_first);
      outputs.push_back((*stack)[i].toTensor());
    }
    if (setup) setup(&st->ctx, args, outputs);
    detail::NodeState::record(std::move(st), inputs, outputs, &call_formula);
    for (size_t i = 0; i < outputs.size(); ++i) (*stack)[out_first + i] = IValue(outputs[i]);
  };
  m.impl(name, DispatchKey::Autograd, CppFunction(std::move(kernel)));
}

}  // namespace ember::autograd
