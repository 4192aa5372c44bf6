#pragma once
// The hand-written nodes: AccumulateGrad, GraphRoot, CopySlices, a view's regenerated
// AsStridedBackward0, DelayedError, and the node of a custom Function<T>. The nodes of built-in
// operators are generated (ember/generated/autograd/Functions.h).
#include "SavedVariable.h"
#include "Variable.h"

namespace ember::autograd {

// Two gradients of one tensor summed, as LibTorch's InputBuffer and AccumulateGrad: a sparse one
// goes on the right (dense + sparse is dense; sparse + dense is not an operator).
inline Tensor add_grads(const Tensor& a, const Tensor& b) {
  return a.layout() != kStrided && b.layout() == kStrided ? b.add(a) : a.add(b);
}

// Accumulates the gradient into a leaf's grad (runs the leaf's hooks first).
class AccumulateGrad final : public NodeImpl {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

// The start of a backward: hands the given gradients to the roots.
class GraphRoot final : public NodeImpl {
 public:
  GraphRoot(edge_list roots, variable_list grads);
  std::string name() const override { return "GraphRoot"; }
  variable_list apply(variable_list&&) override { return grads_; }

 private:
  variable_list grads_;
};

// A view's root base as CopySlices and AsStridedBackward0 redo it: its layout, not its data.
struct BaseGeometry {
  explicit BaseGeometry(const Tensor& base);
  // An uninitialised base-like tensor (the view is replayed in the base's layout).
  Tensor empty_like_base(const Tensor& like_dtype_device) const;
  SmallVector<int64_t, 5> sizes, strides;
};

// The base's grad_fn after an in-place op on one of its views (Note [Views and in-place under
// autograd]): the view's slice of the gradient goes through `fn`, the rest passes through.
class CopySlices final : public NodeImpl {
 public:
  // `view`: the view the op wrote, whose metadata fn receives (fn is also the grad_fn a saved
  // result of the op is unpacked with).
  CopySlices(const Tensor& base, const Tensor& view, ember::detail::ViewInfo info, std::shared_ptr<NodeImpl> fn);
  std::string name() const override { return "CopySlices"; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override { fn_->release_variables(); }

 private:
  BaseGeometry base_;
  ember::detail::ViewInfo view_;
  std::shared_ptr<NodeImpl> fn_;
};

// A view's grad_fn redone from its base's: the gradient of the view placed in a base-shaped
// zero gradient.
class AsStridedViewBackward final : public NodeImpl {
 public:
  AsStridedViewBackward(ember::detail::ViewInfo view, Edge base_edge);
  std::string name() const override { return "AsStridedBackward0"; }
  variable_list apply(variable_list&& grads) override;

 private:
  BaseGeometry base_;
  ember::detail::ViewInfo view_;
};

// Stands for a backward that must not be differentiated (a once-differentiable custom
// function's): its outputs carry this node, which raises when reached.
class DelayedError final : public NodeImpl {
 public:
  DelayedError(std::string msg, edge_list next) : NodeImpl(std::move(next)), msg_(std::move(msg)) {}
  std::string name() const override { return "DelayedError"; }
  variable_list apply(variable_list&&) override;

 private:
  std::string msg_;
};

// A custom autograd::Function<T> (Note [AutogradHooks]).
class CppFunctionNode final : public NodeImpl {
 public:
  CppFunctionNode(const FunctionNodeArgs& a, edge_list next);
  ~CppFunctionNode() override;
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;
  bool is_differentiable() const override { return !once_differentiable_; }
  std::vector<SavedVariable>& saved() { return saved_; }

 private:
  std::string name_;
  void* state_;
  void (*release_)(void*);
  decltype(FunctionNodeArgs::backward) backward_;
  std::vector<SavedVariable> saved_;
  size_t num_inputs_;
  bool materialize_grads_;
  bool once_differentiable_;
};

// Records a custom function's node (AutogradHooks::record_function_node).
void record_function_node(const FunctionNodeArgs& a);

}  // namespace ember::autograd
