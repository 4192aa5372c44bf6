#pragma once
// The backward engine (Note [Autograd engine] in Engine.cpp).
#include <optional>

#include "Node.h"

namespace ember::autograd {

// Tensor::backward / autograd::backward: accumulates into the leaves' grad.
void run_backward(const variable_list& outputs, const variable_list& grad_outputs, std::optional<bool> retain_graph,
                  bool create_graph);
// autograd::grad: the gradients of `inputs`, accumulating nothing.
variable_list run_grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                       std::optional<bool> retain_graph, bool create_graph, bool allow_unused);

}  // namespace ember::autograd
