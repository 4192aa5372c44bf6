#include "BasicNodes.h"

#include "ember/api/Views.h"
#include "ember/ember.h"
#include "ember/native/TensorHelpers.h"

namespace ember::autograd {

// ---- AccumulateGrad ----

namespace {
// PyTorch's gradient layout contract: a dense variable's .grad has the variable's strides (sizes
// of 1 aside), any other's is contiguous.
bool obeys_layout_contract(const Tensor& grad, const Tensor& variable) {
  if (!native::is_non_overlapping_and_dense(variable)) return grad.is_contiguous();
  for (int64_t d = 0; d < variable.dim(); ++d)
    if (variable.size(d) != 1 && grad.stride(d) != variable.stride(d)) return false;
  return true;
}
Tensor clone_obey_contract(const Tensor& grad, const Tensor& variable) {
  if (!native::is_non_overlapping_and_dense(variable)) return grad.clone(MemoryFormat::Contiguous);
  Tensor r = empty_strided(variable.sizes(), variable.strides(), grad.options());
  r.copy_(grad);  // differentiable: a create_graph gradient keeps its history
  return r;
}
}  // namespace

AccumulateGrad::AccumulateGrad(Tensor variable) : NodeImpl(UINT64_MAX, {}), variable_(std::move(variable)) {
  add_input_metadata(variable_);
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta* m = meta_of(variable_);
  for (auto& [h, fn] : m->leaf_hooks) {
    Tensor r = fn(g);
    if (r.defined()) g = std::move(r);
  }
  GradSlot& slot = m->ensure_slot();
  std::lock_guard<std::mutex> lock(slot.mu);
  Tensor& grad = slot.grad;
  if (!grad.defined()) {
    // A fresh gradient is stolen when nothing else holds it and it obeys the layout contract;
    // else copied into the contract's layout (PyTorch's rule), so .grad never aliases a tensor
    // the user holds.
    if (!GradMode::is_enabled() && g.use_count() == 1 && !g._is_view() && g.sizes() == variable_.sizes() &&
        obeys_layout_contract(g, variable_))
      grad = std::move(g);
    else
      grad = clone_obey_contract(g.sizes() == variable_.sizes() ? g : g.expand(variable_.sizes()), variable_);
  } else if (!GradMode::is_enabled() && !(grad.layout() != kStrided && g.layout() == kStrided)) {
    grad.add_(g);
  } else {
    // create_graph: out of place, so the old grad's history stays intact. A dense g onto a
    // sparse grad also lands here: the sum is dense (LibTorch's rule).
    grad = add_grads(grad, g);
  }
  return {};
}

// ---- GraphRoot ----

GraphRoot::GraphRoot(edge_list roots, variable_list grads)
    : NodeImpl(UINT64_MAX, std::move(roots)), grads_(std::move(grads)) {}

// ---- CopySlices ----

BaseGeometry::BaseGeometry(const Tensor& base) : sizes(base.sizes()), strides(base.strides()) {}

Tensor BaseGeometry::empty_like_base(const Tensor& like) const {
  return empty_strided(sizes, strides, TensorOptions().dtype(like.scalar_type()).device(like.device()));
}

CopySlices::CopySlices(const Tensor& base, const Tensor& view, ember::detail::ViewInfo info,
                       std::shared_ptr<NodeImpl> fn)
    : NodeImpl({}), base_(base), view_(std::move(info)), fn_(std::move(fn)) {
  view_.base = Tensor();  // replayed on a base-like tensor; the base itself is not kept
  // Output 0: the base's old history; the rest: fn's other inputs.
  edge_list next;
  next.push_back(gradient_edge(base));
  for (size_t i = 1; i < fn_->num_outputs(); ++i) next.push_back(fn_->next_edge(i));
  set_next_edges(std::move(next));
  fn_->add_input_metadata(view);
}

namespace {
ember::detail::ViewInfo with_base(const ember::detail::ViewInfo& v, const Tensor& base) {
  ember::detail::ViewInfo r = v;
  r.base = base;
  return r;
}
}  // namespace

variable_list CopySlices::apply(variable_list&& grads) {
  const Tensor& grad = grads[0];
  variable_list out(num_outputs());
  if (!grad.defined()) return out;
  Tensor result = base_.empty_like_base(grad);
  result.copy_(grad);
  Tensor slice = ember::detail::replay_view(with_base(view_, result), result);
  variable_list res;
  {
    CurrentNodeGuard current(fn_);  // fn's saved outputs unpack with fn as their grad_fn
    res = fn_->apply({slice.clone()});
  }
  if (res[0].defined())
    slice.copy_(res[0]);
  else
    slice.zero_();
  out[0] = result;
  for (size_t i = 1; i < res.size() && i < out.size(); ++i) out[i] = std::move(res[i]);
  return out;
}

// ---- AsStridedViewBackward ----

AsStridedViewBackward::AsStridedViewBackward(ember::detail::ViewInfo view, Edge base_edge)
    : NodeImpl({std::move(base_edge)}), base_(view.base), view_(std::move(view)) {
  view_.base = Tensor();
}

variable_list AsStridedViewBackward::apply(variable_list&& grads) {
  if (!grads[0].defined()) return {Tensor()};
  Tensor result = base_.empty_like_base(grads[0]);
  result.zero_();
  Tensor slice = ember::detail::replay_view(with_base(view_, result), result);
  slice.add_(grads[0]);
  return {result};
}

// ---- DelayedError ----

variable_list DelayedError::apply(variable_list&&) { EMBER_THROW(ValueError, "{}", msg_); }

// ---- CppFunctionNode ----

CppFunctionNode::CppFunctionNode(const FunctionNodeArgs& a, edge_list next)
    : NodeImpl(std::move(next)),
      name_(a.name),
      state_(a.state),
      release_(a.release),
      backward_(a.backward),
      num_inputs_(a.num_inputs),
      materialize_grads_(a.materialize_grads),
      once_differentiable_(a.once_differentiable) {}

CppFunctionNode::~CppFunctionNode() {
  if (release_ && state_) release_(state_);
}

void CppFunctionNode::release_variables() {
  for (SavedVariable& s : saved_) s.reset_data();
}

variable_list CppFunctionNode::apply(variable_list&& grads) {
  // The saved tensors, checked and with their history.
  std::vector<Tensor> saved;
  saved.reserve(saved_.size());
  for (const SavedVariable& s : saved_) saved.push_back(s.unpack(current_node()));
  // Undefined gradients become zeros, or (set_materialize_grads(false)) reach backward undefined:
  // backward runs either way, as LibTorch's CppNode.
  if (materialize_grads_)
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) {
        const InputMetadata& m = input_metadata(i);
        grads[i] = zeros(m.shape, TensorOptions().dtype(m.dtype).device(m.device));
      }
  variable_list out(num_inputs_);
  backward_(state_, saved.data(), saved.size(), grads.data(), grads.size(), out.data(), out.size());
  // Inputs that need no gradient get none, whatever backward returned.
  for (size_t i = 0; i < out.size(); ++i)
    if (!next_edge(i).is_valid()) out[i] = Tensor();
  return out;
}

void record_function_node(const FunctionNodeArgs& a) {
  edge_list next;
  next.reserve(a.num_inputs);
  for (size_t i = 0; i < a.num_inputs; ++i) next.push_back(gradient_edge(a.inputs[i]));
  auto node = NodeImpl::make<CppFunctionNode>(a, std::move(next));
  if (AnomalyMode::is_enabled()) node->record_forward_trace(a.name);
  auto contains = [](const Tensor* v, size_t n, const Tensor& t) {
    for (size_t i = 0; i < n; ++i)
      if (v[i].is_same(t)) return true;
    return false;
  };
  // Outputs: dirty inputs are rebased, other inputs returned as is become fresh aliases (their
  // history must not change), non-differentiable outputs get none.
  for (size_t i = 0; i < a.num_outputs; ++i) {
    Tensor& out = a.outputs[i];
    const bool is_input = contains(a.inputs, a.num_inputs, out);
    const bool dirty = contains(a.dirty, a.num_dirty, out);
    if (contains(a.non_differentiable, a.num_non_differentiable, out)) {
      if (is_input && !dirty) out = alias_without_history(out);
      node->add_input_metadata_undefined();
      continue;
    }
    if (dirty) {
      check_inplace(out, a.name);
      // rebase needs fn without metadata; record it after, in this output's slot
      if (out.unsafeGetTensorImpl()->is_view()) {
        EMBER_CHECK(node->num_inputs() == 0 && a.num_outputs == 1,
                    "[{}] mark_dirty on a view is supported for a function with one output", a.name);
        rebase_history(out, node);
        continue;
      }
    } else if (is_input) {
      out = alias_without_history(out);
    }
    set_history(out, node);
  }
  for (size_t i = 0; i < a.num_saved; ++i) {
    const bool is_output = contains(a.outputs, a.num_outputs, a.saved[i]);
    node->saved().emplace_back(a.saved[i], is_output);
  }
}

}  // namespace ember::autograd
