// Note [Autograd engine]
// ~~~~~~~~~~~~~~~~~~~~~~
// One backward is a GraphTask: from a GraphRoot holding the root edges, an iterative walk counts
// each node's incoming edges; a node is ready when all of them delivered (its gradients are
// summed in an input buffer meanwhile) and ready nodes run highest sequence number first
// (creation order reversed, AccumulateGrad first: PyTorch's order). Nothing recurses, so a chain
// of any length works, and a node's saved tensors are freed right after it runs unless
// retain_graph. autograd::grad captures the gradients arriving at its inputs' edges instead of
// accumulating, and runs only the nodes on a path to one of them.
//
// Every node runs on the calling thread, with grad mode set to create_graph; independent
// backwards run concurrently on their own threads (the task is per call, leaves' grads are
// accumulated under their slot's lock). Accelerator work also runs on the calling thread, queued
// on streams (Note [Streams in backward]); per-device worker threads are left to the accelerator
// backends (see the decision log).
//
// Note [Streams in backward]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// PyTorch's stream semantics: the backward of a forward call on a device with streams runs on
// the stream that was current when the forward ran (recorded in its InputMetadata), whatever
// stream is current when backward() is called. A gradient made on one stream and consumed on
// another is synchronised: an event recorded on the producer's stream is waited for by the
// consumer's, the gradient's memory is recorded on the consumer's stream (record_stream), and
// gradients summed for one input are summed on the consumer's stream. When the backward returns,
// the caller's current streams wait for every stream it used, so the caller may read the grads
// on its stream without synchronising (the host does not wait).
//
// Checks on each node's outputs: their count, a shape the next node can take (a broadcast
// gradient is summed down, anything else is an error naming the node), the dtype (cast), and in
// anomaly mode NaNs. An error thrown inside a node names the node and, in anomaly mode, carries
// the forward call's C++ backtrace.
#include "Engine.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "BasicNodes.h"
#include "FunctionsManual.h"
#include "Variable.h"
#include "VariableTypeUtils.h"
#include "ember/core/DeviceGuard.h"
#include "ember/core/Event.h"
#include "ember/ember.h"

namespace ember::autograd {

namespace {

struct ReadyItem {
  uint64_t seq;
  uint64_t order;  // FIFO among equal sequence numbers
  std::shared_ptr<NodeImpl> node;
  bool operator<(const ReadyItem& o) const { return seq != o.seq ? seq < o.seq : order > o.order; }
};

// The same exception type with more context.
[[noreturn]] void rethrow_with(const std::exception& e, const std::string& extra) {
  const std::string msg = std::string(e.what()) + extra;
  if (dynamic_cast<const NotImplementedError*>(&e)) throw NotImplementedError(msg);
  if (dynamic_cast<const TypeError*>(&e)) throw TypeError(msg);
  if (dynamic_cast<const IndexError*>(&e)) throw IndexError(msg);
  if (dynamic_cast<const ValueError*>(&e)) throw ValueError(msg);
  throw Error(msg);
}

class GraphTask {
 public:
  GraphTask(bool keep_graph, bool create_graph) : keep_graph_(keep_graph), create_graph_(create_graph) {}

  // Capture the gradient arriving at each edge (autograd::grad) instead of running AccumulateGrad.
  void set_captures(const edge_list& edges) {
    capture_mode_ = true;
    captured_.resize(edges.size());
    for (size_t i = 0; i < edges.size(); ++i) captures_[edges[i].function.get()].emplace_back(edges[i].input_nr, i);
  }

  variable_list run(std::shared_ptr<NodeImpl> root) {
    compute_dependencies(root.get());
    if (capture_mode_) compute_needed(root.get());
    ready_.push({root->sequence_nr(), order_++, std::move(root)});
    while (!ready_.empty()) {
      std::shared_ptr<NodeImpl> node = ready_.top().node;
      ready_.pop();
      variable_list inputs;
      if (auto it = nodes_.find(node.get()); it != nodes_.end()) inputs = std::move(it->second.buffer);
      inputs.resize(node->num_inputs());
      evaluate(node, std::move(inputs));
    }
    // The caller's streams wait for the backward's (Note [Streams in backward]).
    for (const Stream& s : used_streams_) stream_wait(current_stream(s.device()), s);
    return std::move(captured_);
  }

 private:
  void compute_dependencies(NodeImpl* root) {
    std::vector<NodeImpl*> stack{root};
    while (!stack.empty()) {
      NodeImpl* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next_edges()) {
        NodeImpl* c = e.function.get();
        if (!c) continue;
        auto [it, first] = nodes_.try_emplace(c);
        ++it->second.deps;
        if (first) stack.push_back(c);
      }
    }
  }

  // needed_[n]: some captured edge is reachable from n's outputs (iterative post-order).
  void compute_needed(NodeImpl* root) {
    struct Frame {
      NodeImpl* n;
      size_t i;
    };
    std::vector<Frame> stack{{root, 0}};
    std::unordered_map<NodeImpl*, bool> done;
    done[root] = false;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const edge_list& edges = f.n->next_edges();
      if (f.i < edges.size()) {
        const Edge& e = edges[f.i++];
        NodeImpl* c = e.function.get();
        if (!c) continue;
        if (auto it = captures_.find(c); it != captures_.end())
          for (auto& [nr, idx] : it->second)
            if (nr == e.input_nr) needed_.insert(f.n);
        if (!done.count(c)) {
          done[c] = false;
          stack.push_back({c, 0});
        } else if (needed_.count(c)) {
          needed_.insert(f.n);
        }
        continue;
      }
      NodeImpl* n = f.n;
      stack.pop_back();
      done[n] = true;
      if (!stack.empty() && needed_.count(n)) needed_.insert(stack.back().n);
    }
  }

  void evaluate(const std::shared_ptr<NodeImpl>& node, variable_list inputs) {
    NodeImpl& fn = *node;
    AutoGradMode grad_mode(create_graph_);
    const std::optional<Stream> stream = fn.stream();
    std::optional<StreamGuard> on_stream;
    if (stream) {
      on_stream.emplace(*stream);
      if (std::find(used_streams_.begin(), used_streams_.end(), *stream) == used_streams_.end())
        used_streams_.push_back(*stream);
    }
    try {
      fn.run_pre_hooks(inputs);
    } catch (const std::exception& e) {
      rethrow_with(e, anomaly_context(fn));
    }
    if (capture_mode_) {
      if (auto it = captures_.find(&fn); it != captures_.end())
        for (auto& [nr, idx] : it->second) {
          Tensor& slot = captured_[idx];
          slot = slot.defined() && nr < inputs.size() && inputs[nr].defined() ? slot + inputs[nr] : inputs[nr];
        }
      if (!needed_.count(&fn)) return;
    }
    variable_list outputs;
    {
      CurrentNodeGuard current(node);
      try {
        if (!create_graph_ || fn.is_differentiable()) {
          outputs = fn.has_post_hooks() ? fn.apply(variable_list(inputs)) : fn.apply(std::move(inputs));
        } else {
          // A once-differentiable backward: run it without a graph, and make differentiating its
          // results an error (DelayedError) rather than silently wrong.
          variable_list in_copy = inputs;
          {
            AutoGradMode off(false);
            outputs = fn.apply(variable_list(inputs));
          }
          wrap_delayed_error(fn, in_copy, outputs);
        }
      } catch (const std::exception& e) {
        rethrow_with(e, fmt::format("\n  (raised in the backward of {}){}", fn.name(), anomaly_context(fn)));
      }
    }
    if (!keep_graph_) fn.release_variables();
    if (fn.has_post_hooks()) fn.run_post_hooks(outputs, inputs);
    validate_outputs(fn, outputs);
    const edge_list& edges = fn.next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.is_valid()) continue;
      NodeImpl* c = e.function.get();
      NodeTask& t = nodes_.find(c)->second;
      if (i < outputs.size() && outputs[i].defined()) {
        if (t.buffer.empty()) t.buffer.resize(c->num_inputs());
        deliver(t.buffer[e.input_nr], std::move(outputs[i]), c->input_metadata(e.input_nr).stream);
      }
      if (--t.deps == 0) ready_.push({c->sequence_nr(), order_++, e.function});
    }
  }

  // Adds gradient g, made on the current stream, into a consumer's slot; the consumer reads it on
  // its own stream (Note [Streams in backward]).
  static void deliver(Tensor& slot, Tensor g, const std::optional<Stream>& consumer) {
    std::optional<StreamGuard> on_consumer;
    if (consumer && g.device() == consumer->device()) {
      const Stream producer = current_stream(consumer->device());
      if (producer != *consumer) {
        stream_wait(*consumer, producer);
        if (g.has_storage())
          if (auto* a = dynamic_cast<DeviceAllocator*>(g.unsafeGetTensorImpl()->storage()->allocator()))
            a->record_stream(g.unsafeGetTensorImpl()->storage()->data_ptr(), *consumer);
        on_consumer.emplace(*consumer);
      }
    }
    slot = slot.defined() ? add_grads(slot, g) : std::move(g);
  }

  void wrap_delayed_error(NodeImpl& fn, const variable_list& grads, variable_list& outputs) {
    // Its results depend on the grads and on the forward's inputs (through what it saved): both
    // lead to the error, so a second differentiation cannot silently miss a term.
    edge_list next;
    for (const Tensor& g : grads)
      if (g.defined() && requires_grad(g)) next.push_back(gradient_edge(g));
    for (const Edge& e : fn.next_edges())
      if (e.is_valid()) next.push_back(e);
    if (next.empty()) return;
    auto err = NodeImpl::make<DelayedError>(
        fmt::format("[autograd] trying to differentiate twice a function that was marked as once differentiable "
                    "({}: is_once_differentiable)",
                    fn.name()),
        std::move(next));
    for (Tensor& o : outputs)
      if (o.defined()) {
        o = alias_without_history(o);
        set_history(o, err);
      }
  }

  void validate_outputs(NodeImpl& fn, variable_list& outputs) {
    EMBER_CHECK(outputs.size() == fn.num_outputs(),
                "[autograd] function {} returned an incorrect number of gradients (expected {}, got {})", fn.name(),
                fn.num_outputs(), outputs.size());
    const bool check_nan = AnomalyMode::is_enabled() && AnomalyMode::should_check_nan();
    for (size_t i = 0; i < outputs.size(); ++i) {
      Tensor& g = outputs[i];
      const Edge& e = fn.next_edge(i);
      if (!g.defined() || !e.is_valid()) continue;
      const InputMetadata& m = e.function->input_metadata(e.input_nr);
      if (g.sizes() != IntArrayRef(m.shape)) {
        EMBER_CHECK(m.is_expandable_to(g.sizes()),
                    "[autograd] Function {} returned an invalid gradient at index {} - got [{}] but expected shape "
                    "compatible with [{}]",
                    fn.name(), i, fmt::join(g.sizes(), ", "), fmt::join(m.shape, ", "));
        g = generated::details::sum_to(g, m.shape);
      }
      if (g.scalar_type() != m.dtype) g = g.to(m.dtype);
      if (check_nan) {
        bool nan;
        {
          AutoGradMode off(false);
          nan = ne(g, g).any().item<bool>();
        }
        EMBER_CHECK(!nan, "[autograd] Function '{}' returned nan values in its {}th output.{}", fn.name(), i,
                    anomaly_context(fn));
      }
    }
  }

  static std::string anomaly_context(const NodeImpl& fn) {
    if (!AnomalyMode::is_enabled() || fn.forward_trace().empty()) return "";
    return "\n" + fn.forward_trace();
  }

  bool keep_graph_, create_graph_;
  bool capture_mode_ = false;
  std::vector<Stream> used_streams_;  // the nodes' streams, for the final wait
  uint64_t order_ = 0;
  std::priority_queue<ReadyItem> ready_;
  struct NodeTask {
    int deps = 0;          // edges still to deliver
    variable_list buffer;  // the gradients delivered so far, summed per input
  };
  std::unordered_map<NodeImpl*, NodeTask> nodes_;
  std::unordered_map<NodeImpl*, std::vector<std::pair<uint32_t, size_t>>> captures_;
  std::unordered_set<NodeImpl*> needed_;
  variable_list captured_;
};

// The root edges and their gradients, checked.
std::shared_ptr<GraphRoot> make_root(const char* what, const variable_list& outputs,
                                     const variable_list& grad_outputs) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
              "[{}] got {} tensors and {} gradients: give one gradient per tensor (or none)", what, outputs.size(),
              grad_outputs.size());
  EMBER_CHECK(!outputs.empty(), "[{}] no tensors to differentiate", what);
  edge_list roots;
  variable_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined(), "[{}] tensor {} is undefined", what, i);
    EMBER_CHECK(requires_grad(out), "[{}] element {} of tensors does not require grad and does not have a grad_fn",
                what, i);
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK(out.numel() == 1,
                  "[{}] grad can be implicitly created only for scalar outputs (tensor {} has shape [{}])", what, i,
                  fmt::join(out.sizes(), ", "));
      AutoDispatchBelowAutograd below;
      g = ones_like(out);
    } else {
      EMBER_CHECK(g.sizes() == out.sizes(),
                  "[{}] Mismatch in shape: grad_output[{}] has a shape of [{}] and output[{}] has a shape of [{}].",
                  what, i, fmt::join(g.sizes(), ", "), i, fmt::join(out.sizes(), ", "));
      EMBER_CHECK_TYPE(is_floating_type(g.scalar_type()) == is_floating_type(out.scalar_type()),
                       "[{}] For complex/floating Tensors, grad_output[{}] must be of the output's kind: got {} for {}",
                       what, i, g.scalar_type(), out.scalar_type());
    }
    roots.push_back(gradient_edge(out));
    grads.push_back(std::move(g));
  }
  return NodeImpl::make<GraphRoot>(std::move(roots), std::move(grads));
}

}  // namespace

void run_backward(const variable_list& outputs, const variable_list& grad_outputs, std::optional<bool> retain_graph,
                  bool create_graph) {
  auto root = make_root("backward", outputs, grad_outputs);
  GraphTask task(retain_graph.value_or(create_graph), create_graph);
  task.run(std::move(root));
}

variable_list run_grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                       std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "[autograd::grad] no inputs given: grad requires non-empty inputs");
  auto root = make_root("autograd::grad", outputs, grad_outputs);
  edge_list captures;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), "[autograd::grad] input {} is undefined", i);
    EMBER_CHECK(requires_grad(inputs[i]),
                "[autograd::grad] One of the differentiated Tensors (input {}) does not require grad", i);
    captures.push_back(gradient_edge(inputs[i]));
  }
  GraphTask task(retain_graph.value_or(create_graph), create_graph);
  task.set_captures(captures);
  variable_list r = task.run(std::move(root));
  for (size_t i = 0; i < r.size(); ++i)
    EMBER_CHECK(r[i].defined() || allow_unused,
                "[autograd::grad] One of the differentiated Tensors (input {}) appears to not have been used in the "
                "graph. Set allow_unused=true if this is the desired behavior.",
                i);
  return r;
}

}  // namespace ember::autograd
