#pragma once
// A tensor saved for backward: checked against in-place modification (version counters) and
// kept without a reference cycle when it is an output of the node that saves it
// (Note [Autograd graph]).
#include <memory>

#include "Node.h"

namespace ember::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  // `is_output`: t is an output of the node that saves it.
  SavedVariable(const Tensor& t, bool is_output);
  // The saved tensor, with its history (for an output: `saved_for` as its grad_fn), or a clear
  // error when it was modified in place since, or freed by a backward without retain_graph.
  Tensor unpack(const std::shared_ptr<NodeImpl>& saved_for = nullptr) const;
  void reset_data();
  bool defined() const { return was_defined_; }

 private:
  Tensor data_;
  uint64_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

// "one of the variables needed for gradient computation has been modified by an inplace
// operation" (shared with the engine's checks).
[[noreturn]] void throw_saved_modified(const Tensor& t, const std::string& producer, uint32_t output_nr, uint64_t now,
                                       uint64_t expected);

}  // namespace ember::autograd
