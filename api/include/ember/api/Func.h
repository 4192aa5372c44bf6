#pragma once
// Functional transforms (PyTorch's torch.func) over C++ callables of tensors: grad,
// grad_and_value, vjp, jvp, jacrev, jacfwd, hessian. They compose:
//   auto d2 = func::grad(func::grad([](const Tensor& x) { return x.sin(); }));  // d2(x) == -sin(x)
//   auto h = func::hessian(loss);                                                 // jacfwd(jacrev(loss))
//
// Note [Functional transforms]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every transform is built on autograd::grad (no separate machinery). A call of a transformed
// function prepares each differentiated argument x and runs f on it under grad mode:
//  - if x already requires grad and grad mode is on (we are inside an outer transform, or the
//    caller differentiates the result with ordinary autograd), f sees a differentiable alias of
//    x (x.view(x.sizes())), not a detached copy, so the outer level still sees the dependence on
//    x; the gradients are taken with respect to the alias, so each level gets its own derivative;
//  - otherwise f sees x.detach(), made to require grad.
// Gradients are then taken with create_graph = true whenever the result must stay
// differentiable ("tracked"): grad mode was on at the call and the call is nested inside another
// transform's f (a thread-local depth), or one of the arguments requires grad. That is what lets
// transforms nest: grad(grad(f)), jacfwd(jacrev(f)), and closures: a tensor captured by an inner
// f that an outer transform differentiates. An untracked (outermost) call returns detached
// results. At the outermost level a captured tensor that requires grad is a constant: pass it as
// an argument to differentiate with respect to it.
//
// jvp uses the double-vjp construction (no forward-mode AD): with a dummy cotangent u (zeros,
// requiring grad), g = autograd::grad(y, x, u, create_graph = true) is J^T u, linear in u, and
// autograd::grad(g, u, tangent) is J tangent. jacrev takes one vjp per output element (rows of
// the Jacobian), jacfwd one jvp per input element (columns) reusing one g; both run f once per
// call. A Jacobian has shape out.shape + in.shape; unused arguments get zero gradients.
//
// Differentiated arguments must be floating-point tensors (complex is not implemented) and f
// must return one floating-point tensor; grad needs a 0-dim result. argnums may be negative
// (counted from the end) and must be unique. Each transform runs under grad mode whatever the
// caller's mode (a NoGradGuard around a transform only stops the result from being tracked);
// grad mode changes inside f are f's own.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "ember/api/Autograd.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::func {

using autograd::variable_list;

// One tensor in, one tensor out.
using Fn = std::function<Tensor(const Tensor&)>;
// Several tensors in (f(args)), one tensor out; argnums pick the differentiated arguments.
using FnN = std::function<Tensor(const variable_list&)>;
// Several tensors in, one result per differentiated argument out.
using FnList = std::function<variable_list(const variable_list&)>;

// The gradient of a function with a 0-dim result: grad(f)(x) has x's shape.
EMBER_API Fn grad(Fn f);
EMBER_API FnN grad(FnN f, int64_t argnums = 0);
EMBER_API FnList grad(FnN f, std::vector<int64_t> argnums);

// The gradient and f's value, from one evaluation of f: (grad, value).
EMBER_API std::function<std::pair<Tensor, Tensor>(const Tensor&)> grad_and_value(Fn f);
EMBER_API std::function<std::pair<Tensor, Tensor>(const variable_list&)> grad_and_value(FnN f, int64_t argnums = 0);
EMBER_API std::function<std::pair<variable_list, Tensor>(const variable_list&)> grad_and_value(
    FnN f, std::vector<int64_t> argnums);

// (f(primals), vjp_fn): vjp_fn(cotangent) is cotangent^T J, one tensor per primal (every primal
// is differentiated, as in torch.func.vjp). The cotangent has f's output shape; vjp_fn may be
// called several times.
EMBER_API std::pair<Tensor, std::function<Tensor(const Tensor&)>> vjp(Fn f, const Tensor& primal);
EMBER_API std::pair<Tensor, std::function<variable_list(const Tensor&)>> vjp(FnN f, variable_list primals);

// (f(primals), J tangents): the directional derivative; one tangent per primal, of its shape
// and dtype.
EMBER_API std::pair<Tensor, Tensor> jvp(Fn f, const Tensor& primal, const Tensor& tangent);
EMBER_API std::pair<Tensor, Tensor> jvp(FnN f, variable_list primals, variable_list tangents);

// The Jacobian by reverse mode (a vjp per output element): shape f(x).shape + x.shape.
EMBER_API Fn jacrev(Fn f);
EMBER_API FnN jacrev(FnN f, int64_t argnums = 0);
EMBER_API FnList jacrev(FnN f, std::vector<int64_t> argnums);

// The Jacobian by forward mode (a jvp per input element): the same shape and values as jacrev.
EMBER_API Fn jacfwd(Fn f);
EMBER_API FnN jacfwd(FnN f, int64_t argnums = 0);
EMBER_API FnList jacfwd(FnN f, std::vector<int64_t> argnums);

// jacfwd(jacrev(f)): for f with a 0-dim result, shape x.shape + x.shape.
EMBER_API Fn hessian(Fn f);
EMBER_API FnN hessian(FnN f, int64_t argnums = 0);

}  // namespace ember::func
