#pragma once
// What the generated Autograd kernels (RegisterAutograd.cpp) and nodes (Functions.cpp) use.
#include <array>
#include <optional>
#include <vector>

#include "BasicNodes.h"
#include "SavedVariable.h"
#include "Variable.h"
#include "ember/core/LocalState.h"

namespace ember::autograd {

// Runs the kernels below Autograd for a nested call too (Note [Kernels that redispatch]).
class AutoDispatchBelowAutograd : public ExcludeDispatchKeyGuard {
 public:
  AutoDispatchBelowAutograd() : ExcludeDispatchKeyGuard(DispatchKeySet::of(Functionality::Autograd)) {}
};

inline bool any_requires_grad_one(const Tensor& t) { return requires_grad(t); }
inline bool any_requires_grad_one(const std::optional<Tensor>& t) { return t && requires_grad(*t); }
inline bool any_requires_grad_one(const std::vector<Tensor>& v) {
  for (const Tensor& t : v)
    if (requires_grad(t)) return true;
  return false;
}

// Grad mode on and some differentiable input requires grad.
template <class... A>
inline bool compute_requires_grad(const A&... a) {
  return GradMode::is_enabled() && (any_requires_grad_one(a) || ...);
}

inline void collect_edge(edge_list& e, const Tensor& t) { e.push_back(gradient_edge(t)); }
inline void collect_edge(edge_list& e, const std::optional<Tensor>& t) { e.push_back(t ? gradient_edge(*t) : Edge{}); }
inline void collect_edge(edge_list& e, const std::vector<Tensor>& v) {
  for (const Tensor& t : v) e.push_back(gradient_edge(t));
}

// One edge per differentiable input (one per element of a list), in order.
template <class... A>
inline edge_list collect_next_edges(const A&... a) {
  edge_list e;
  (collect_edge(e, a), ...);
  return e;
}

// Records anomaly mode's forward trace when it is on.
inline void maybe_record_trace(NodeImpl& n, const char* op) {
  if (AnomalyMode::is_enabled()) n.record_forward_trace(op);
}

inline void set_history_list(const std::vector<Tensor>& ts, const std::shared_ptr<NodeImpl>& fn) {
  for (const Tensor& t : ts) set_history(t, fn);
}

inline std::vector<SavedVariable> save_list(const std::vector<Tensor>& ts, bool is_output) {
  std::vector<SavedVariable> r;
  r.reserve(ts.size());
  for (const Tensor& t : ts) r.emplace_back(t, is_output);
  return r;
}
inline std::vector<SavedVariable> save_list(const std::vector<std::optional<Tensor>>& ts) {
  std::vector<SavedVariable> r;
  r.reserve(ts.size());
  for (const auto& t : ts) r.emplace_back(t ? *t : Tensor(), false);
  return r;
}
inline std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& v, const std::shared_ptr<NodeImpl>& fn) {
  std::vector<Tensor> r;
  r.reserve(v.size());
  for (const SavedVariable& s : v) r.push_back(s.unpack(fn));
  return r;
}
inline std::vector<std::optional<Tensor>> unpack_opt_list(const std::vector<SavedVariable>& v) {
  std::vector<std::optional<Tensor>> r;
  r.reserve(v.size());
  for (const SavedVariable& s : v) {
    Tensor t = s.unpack();
    r.push_back(t.defined() ? std::optional<Tensor>(std::move(t)) : std::nullopt);
  }
  return r;
}
inline void release_list(std::vector<SavedVariable>& v) {
  for (SavedVariable& s : v) s.reset_data();
}

// out= variants record nothing (PyTorch's rule).
[[noreturn]] void throw_out_requires_grad(const char* op);
// An operator whose derivative is declared not implemented, called on an input that requires grad.
[[noreturn]] void throw_not_implemented(const char* op, const char* what);

}  // namespace ember::autograd
