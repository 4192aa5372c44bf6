#pragma once
// The autograd graph: nodes and the edges between them.
//
// Note [Autograd graph]
// ~~~~~~~~~~~~~~~~~~~~~
// A Node is the backward of one forward call: it receives the gradients of that call's outputs
// (its "inputs", one per forward output, described by input_metadata) and returns those of the
// call's inputs (its "outputs"), which flow along next_edges: an Edge is (node, which input of
// it). A tensor with history holds its grad_fn and output_nr in its AutogradMeta; a leaf that
// requires grad has no grad_fn, and its edge goes to its AccumulateGrad node, which the meta
// holds weakly (the graph holds it strongly). Nodes hold their next nodes strongly and nothing
// holds a node's consumers, so the graph is acyclic in ownership. A tensor saved for backward is
// a SavedVariable: an output of the node itself is kept without its grad_fn (no cycle).
//
// Destruction is iterative (~NodeImpl hands the next nodes it owns alone to a per-thread list
// that the outermost destructor drains): freeing the head of a 100,000-node chain would
// otherwise recurse once per node through shared_ptr destructors.
//
// Sequence numbers grow per thread as nodes are made; the engine runs ready nodes highest first
// (PyTorch's order), AccumulateGrad first of all.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/AutogradHooks.h"
#include "ember/core/Stream.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::autograd {

using variable_list = std::vector<Tensor>;
class NodeImpl;

struct Edge {
  std::shared_ptr<NodeImpl> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};
using edge_list = std::vector<Edge>;

// What a gradient flowing into a node must look like (one per forward output), and for a tensor
// of a device with streams the stream that was current when the forward made it (Note [Streams
// in backward] in Engine.cpp).
struct InputMetadata {
  SmallVector<int64_t, 5> shape;
  ScalarType dtype = kFloat32;
  Device device = kCPU;
  std::optional<Stream> stream;
  bool is_expandable_to(IntArrayRef grad_shape) const;
};

uint64_t next_sequence_nr();

class NodeImpl : public Node {
 public:
  explicit NodeImpl(edge_list next_edges = {});
  NodeImpl(uint64_t sequence_nr, edge_list next_edges);
  ~NodeImpl() override;
  NodeImpl(const NodeImpl&) = delete;
  NodeImpl& operator=(const NodeImpl&) = delete;

  // The backward itself: gradients of the forward's outputs in, of its inputs out (one per next
  // edge; undefined for none).
  virtual variable_list apply(variable_list&& grads) = 0;
  // Drops what was saved for backward (after a backward without retain_graph).
  virtual void release_variables() {}
  // False for nodes whose apply is not differentiable (a once_differentiable custom function).
  virtual bool is_differentiable() const { return true; }

  // Node interface
  uint64_t sequence_nr() const override { return sequence_nr_; }
  std::vector<std::pair<std::shared_ptr<Node>, uint32_t>> next_functions() const override;
  size_t num_inputs() const override { return input_metadata_.size(); }
  unsigned register_prehook(PreHook hook) override;
  unsigned register_hook(PostHook hook) override;
  bool remove_hook(unsigned handle) override;

  size_t num_outputs() const { return next_edges_.size(); }
  const edge_list& next_edges() const { return next_edges_; }
  edge_list& mutable_next_edges() { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  void set_next_edges(edge_list e) { next_edges_ = std::move(e); }
  // Records the metadata of one more forward output; returns its index (the output_nr).
  uint32_t add_input_metadata(const Tensor& t);
  uint32_t add_input_metadata_undefined();
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }
  // The stream the backward runs on: the forward's (its first output's on a device with streams);
  // none for a host-only node.
  std::optional<Stream> stream() const;

  // Tensor::register_hook on a non-leaf: hooks on the gradient arriving at input `input_nr`.
  unsigned add_tensor_hook(uint32_t input_nr, std::function<Tensor(const Tensor&)> hook);
  // retain_grad: runs after the tensor hooks of that input.
  void set_retain_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook);
  bool has_retain_grad_hook(uint32_t input_nr) const;

  // Runs the tensor hooks, then the pre-hooks (engine).
  void run_pre_hooks(variable_list& grads);
  // Runs the post-hooks (engine).
  void run_post_hooks(variable_list& grad_inputs, const variable_list& grad_outputs);
  bool has_post_hooks() const { return !post_hooks_.empty(); }

  // Anomaly mode: where the forward ran (set when the node is made).
  const std::string& forward_trace() const { return forward_trace_; }
  void record_forward_trace(const char* op);

  // A shared_ptr to a new node of type T (one allocation).
  template <class T, class... A>
  static std::shared_ptr<T> make(A&&... a) {
    return std::make_shared<T>(std::forward<A>(a)...);
  }

 private:
  uint64_t sequence_nr_;
  edge_list next_edges_;
  SmallVector<InputMetadata, 1> input_metadata_;
  struct TensorHook {
    unsigned handle;
    uint32_t input_nr;
    std::function<Tensor(const Tensor&)> fn;
  };
  std::vector<TensorHook> tensor_hooks_;
  std::vector<std::pair<uint32_t, std::function<void(const Tensor&)>>> retain_grad_hooks_;
  std::vector<std::pair<unsigned, PreHook>> pre_hooks_;
  std::vector<std::pair<unsigned, PostHook>> post_hooks_;
  std::string forward_trace_;
};

unsigned next_hook_handle();

// The node the engine is running on this thread (SavedVariable::unpack of an output needs it).
const std::shared_ptr<NodeImpl>& current_node();
class CurrentNodeGuard {
 public:
  explicit CurrentNodeGuard(std::shared_ptr<NodeImpl> n);
  ~CurrentNodeGuard();
  CurrentNodeGuard(const CurrentNodeGuard&) = delete;
  CurrentNodeGuard& operator=(const CurrentNodeGuard&) = delete;

 private:
  std::shared_ptr<NodeImpl> prev_;
};

// "[CPUFloatType [2, 3]]": how errors name a tensor (LibTorch's type string and sizes).
std::string describe_tensor(const TensorBase& t);

}  // namespace ember::autograd
