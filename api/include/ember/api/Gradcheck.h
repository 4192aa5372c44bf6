#pragma once
// Finite-difference checks of autograd's gradients (PyTorch's torch.autograd.gradcheck and
// gradgradcheck, slow mode).
//
// Note [gradcheck]
// ~~~~~~~~~~~~~~~~
// gradcheck(fn, inputs) compares two Jacobians per (output, input) pair, both laid out as
// PyTorch lays them out: one row per element of the input, one column per element of the output.
//  - numerical: central differences, (fn(x + eps e_k) - fn(x - eps e_k)) / (2 eps), perturbing
//    each element of each input that requires grad in turn. The perturbed input is a copy (with
//    the input's strides when its elements do not overlap, contiguous otherwise), so expanded
//    inputs work: each logical element is its own variable, as autograd sees it. fn runs in the
//    caller's grad mode with the copy requiring grad (gradgradcheck's function differentiates it).
//  - analytical: autograd::grad of the output with a one-hot grad_output per output element,
//    done twice: the two must agree within nondet_tol ("not reentrant" otherwise).
// They must satisfy allclose(analytical, numerical, rtol, atol). Then, as PyTorch does: a zero
// grad_output must give zero gradients of the inputs' dtype and shape, and (check_undefined_grad)
// backward must accept undefined output gradients (each output in turn, then all at once, made
// undefined by an identity Function whose backward returns an undefined gradient) and give
// undefined or zero input gradients. Outputs that do not require grad are not differentiated;
// if none does, the numerical Jacobians must be zero.
//
// Only real floating-point inputs and outputs are checked (complex is not implemented). Inputs
// should be float64: float32 differences at eps = 1e-6 are mostly rounding error.
//
// A failure throws GradcheckError (or returns false with raise_exception = false). Indices in
// messages are positions in `inputs` and in fn's outputs (PyTorch counts only the tensors that
// require grad); the Jacobians are printed in full.
#include <functional>
#include <type_traits>
#include <utility>

#include "ember/api/Autograd.h"
#include "ember/core/Exception.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::autograd {

// A gradient check that failed (PyTorch's GradcheckError). Bad arguments to gradcheck itself
// (no input requiring grad, a complex input) are plain ValueError / NotImplementedError and are
// raised even with raise_exception = false.
class EMBER_API GradcheckError : public ValueError {
 public:
  using ValueError::ValueError;
};

// PyTorch's keyword arguments, with its defaults; C++20 designated initializers name them:
//   gradcheck(fn, {x}, GradcheckOptions{.atol = 1e-4, .raise_exception = false});
struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytical - numerical| <= atol + rtol * |numerical|
  double rtol = 1e-3;
  bool raise_exception = true;       // false: return false instead of throwing GradcheckError
  double nondet_tol = 0.0;           // allowed difference between two backward passes
  bool check_undefined_grad = true;  // backward accepts undefined output gradients
  bool check_grad_dtypes = false;    // each Jacobian row has the input's dtype
};

// The function under check: all inputs in, all outputs out.
using GradcheckFn = std::function<variable_list(const variable_list&)>;

namespace detail {
EMBER_API bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& options);
EMBER_API bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs, const variable_list& grad_outputs,
                             const GradcheckOptions& options);

// Accepts callables of (const variable_list&) or, for one input, of (const Tensor&), returning a
// variable_list or a Tensor.
template <class R>
variable_list as_outputs(R&& r) {
  if constexpr (std::is_convertible_v<R, variable_list>) {
    return std::forward<R>(r);
  } else {
    static_assert(std::is_convertible_v<R, Tensor>, "gradcheck: fn must return a Tensor or a variable_list");
    return variable_list{Tensor(std::forward<R>(r))};
  }
}

template <class F>
GradcheckFn to_gradcheck_fn(F&& f) {
  using D = std::decay_t<F>;
  if constexpr (std::is_invocable_v<D&, const variable_list&>) {
    return [f = std::forward<F>(f)](const variable_list& in) mutable { return as_outputs(f(in)); };
  } else {
    static_assert(std::is_invocable_v<D&, const Tensor&>,
                  "gradcheck: fn must take (const variable_list&) or (const Tensor&)");
    return [f = std::forward<F>(f)](const variable_list& in) mutable {
      EMBER_CHECK(in.size() == 1, "[gradcheck] fn takes one tensor, but {} inputs were given", in.size());
      return as_outputs(f(in[0]));
    };
  }
}
}  // namespace detail

// True when fn's gradients match finite differences at `inputs` (see Note [gradcheck]).
//   gradcheck([](const variable_list& x) { return x[0].sin() * x[1]; }, {a, b});
template <class F>
bool gradcheck(F&& fn, const variable_list& inputs, const GradcheckOptions& options) {
  return detail::gradcheck(detail::to_gradcheck_fn(std::forward<F>(fn)), inputs, options);
}
template <class F>
bool gradcheck(F&& fn, const variable_list& inputs, double eps = 1e-6, double atol = 1e-5, double rtol = 1e-3,
               bool raise_exception = true) {
  GradcheckOptions o;
  o.eps = eps;
  o.atol = atol;
  o.rtol = rtol;
  o.raise_exception = raise_exception;
  return gradcheck(std::forward<F>(fn), inputs, o);
}

// gradcheck of the function (inputs..., grad_outputs...) -> autograd::grad(fn(inputs),
// inputs that require grad, grad_outputs, create_graph = true): second derivatives. grad_outputs
// holds one tensor per output of fn that requires grad; given ones are differentiated if they
// require grad. Without them, each is random normal in its output's dtype, requiring grad, drawn
// from a generator with a fixed seed (reproducible; the global generator is not touched).
template <class F>
bool gradgradcheck(F&& fn, const variable_list& inputs, const variable_list& grad_outputs,
                   const GradcheckOptions& options) {
  return detail::gradgradcheck(detail::to_gradcheck_fn(std::forward<F>(fn)), inputs, grad_outputs, options);
}
template <class F>
bool gradgradcheck(F&& fn, const variable_list& inputs, const variable_list& grad_outputs = {}, double eps = 1e-6,
                   double atol = 1e-5, double rtol = 1e-3, bool raise_exception = true) {
  GradcheckOptions o;
  o.eps = eps;
  o.atol = atol;
  o.rtol = rtol;
  o.raise_exception = raise_exception;
  return gradgradcheck(std::forward<F>(fn), inputs, grad_outputs, o);
}

}  // namespace ember::autograd
