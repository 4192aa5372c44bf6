// See Note [gradcheck] in ember/api/Gradcheck.h.
#include "ember/api/Gradcheck.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "ember/api/Operators.h"
#include "ember/core/Generator.h"
#include "ember/core/TypePromotion.h"

namespace ember::autograd {
namespace {

constexpr uint64_t kGradOutputSeed = 0;  // gradgradcheck's random grad_outputs

std::string str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

std::string shape_str(const Tensor& t) { return fmt::format("{}", t.sizes()); }

[[noreturn]] void fail(const char* name, const std::string& msg) {
  throw GradcheckError(fmt::format("[{}] {}", name, msg));
}

bool requires_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

// Whether two elements of `t` share memory (an expanded tensor, or one made by as_strided).
bool overlapping(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims of size > 1
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1) dims.emplace_back(t.stride(d), t.size(d));
  std::sort(dims.begin(), dims.end());
  int64_t next = 1;  // the smallest stride the next dim may have
  for (auto [stride, size] : dims) {
    if (stride < next) return true;
    next = stride * size;
  }
  return false;
}

// The copy gradcheck perturbs: x's strides where its elements are distinct memory, so fn sees
// the same layout; contiguous where they overlap, so each element moves alone.
Tensor perturbable_copy(const Tensor& x) {
  NoGradGuard no_grad;
  Tensor c = overlapping(x) ? empty(x.sizes(), x.options()) : empty_strided(x.sizes(), x.strides(), x.options());
  c.copy_(x.detach());
  return c;
}

// The 0-dim view of the k-th element (row-major) of t.
Tensor element(const Tensor& t, int64_t k) {
  Tensor e = t;
  int64_t rest = t.numel();
  for (int64_t d = 0; d < t.dim(); ++d) {
    rest /= t.size(d);
    e = e.select(0, k / rest);
    k %= rest;
  }
  return e;
}

// Identity whose backward sends an undefined gradient (PyTorch's UndefinedGrad).
struct UndefinedGrad : Function<UndefinedGrad> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x.clone(); }
  static variable_list backward(AutogradContext*, const variable_list&) { return {Tensor()}; }
};

struct Checker {
  const char* name;
  const GradcheckFn& fn;
  const variable_list& inputs;
  const GradcheckOptions& opt;
  std::vector<size_t> diff_in;   // positions in inputs that require grad
  variable_list diff_inputs;     // those inputs
  variable_list outputs;         // fn(inputs), as returned
  std::vector<size_t> diff_out;  // positions in outputs that require grad

  // fn's outputs as fresh tensors with no history (fn may return views of its inputs, which are
  // then perturbed).
  variable_list eval(const variable_list& args) const {
    variable_list out = fn(args);
    EMBER_CHECK(out.size() == outputs.size(), "[{}] fn returned {} outputs, then {} when an input was perturbed", name,
                outputs.size(), out.size());
    NoGradGuard no_grad;
    for (Tensor& o : out)
      if (o.defined()) o = o.detach().clone();
    return out;
  }

  bool checked_output(size_t j) const { return outputs[j].defined() && outputs[j].is_floating_point(); }

  // numerical[i][j]: d outputs[j] / d inputs[diff_in[i]], (input numel, output numel), in the
  // output's dtype; undefined for outputs that are not floating point.
  std::vector<variable_list> numerical_jacobians() const {
    std::vector<variable_list> jac;
    for (size_t p : diff_in) {
      const Tensor& x = inputs[p];
      Tensor c = perturbable_copy(x);
      c.requires_grad_(true);
      variable_list args = inputs;
      args[p] = c;
      Tensor data = c.detach();
      const int64_t n = c.numel();
      variable_list per_out(outputs.size());
      for (size_t j = 0; j < outputs.size(); ++j)
        if (checked_output(j)) per_out[j] = zeros({n, outputs[j].numel()}, outputs[j].options());
      for (int64_t k = 0; k < n; ++k) {
        Tensor e = element(data, k);
        const double orig = e.item<double>();
        e.fill_(orig - opt.eps);
        variable_list a = eval(args);
        e.fill_(orig + opt.eps);
        variable_list b = eval(args);
        e.fill_(orig);
        NoGradGuard no_grad;
        for (size_t j = 0; j < outputs.size(); ++j) {
          if (!per_out[j].defined()) continue;
          EMBER_CHECK(a[j].defined() && b[j].defined() && a[j].sizes() == outputs[j].sizes() &&
                          b[j].sizes() == outputs[j].sizes(),
                      "[{}] expected fn to return outputs of the same shape when inputs are perturbed on index {} of "
                      "input {} by {}, but output {} has shape {}, then {} and {}",
                      name, k, p, opt.eps, j, shape_str(outputs[j]), a[j].defined() ? shape_str(a[j]) : "undefined",
                      b[j].defined() ? shape_str(b[j]) : "undefined");
          EMBER_CHECK(a[j].dtype() == outputs[j].dtype() && b[j].dtype() == outputs[j].dtype(),
                      "[{}] expected fn to return outputs of the same dtype when inputs are perturbed on index {} of "
                      "input {} by {}, but output {} has dtype {}, then {} and {}",
                      name, k, p, opt.eps, j, outputs[j].dtype(), a[j].dtype(), b[j].dtype());
          per_out[j].select(0, k).copy_(((b[j] - a[j]) / (2 * opt.eps)).reshape({-1}));
        }
      }
      jac.push_back(std::move(per_out));
    }
    return jac;
  }

  // One Jacobian per differentiable input for output `out`, (input numel, output numel), built
  // one column at a time from autograd::grad with a one-hot grad_output.
  struct Analytical {
    variable_list jac;
    bool types_ok = true, sizes_ok = true;
  };
  Analytical analytical_jacobians(const Tensor& out) const {
    Analytical r;
    const int64_t m = out.numel();
    for (const Tensor& x : diff_inputs) r.jac.push_back(zeros({x.numel(), m}, x.options()));
    Tensor go = zeros(out.sizes(), out.options());
    Tensor flat = go.view({-1});
    for (int64_t col = 0; col < m; ++col) {
      {
        NoGradGuard no_grad;
        flat.zero_();
        flat.select(0, col).fill_(1);
      }
      variable_list g = grad({out}, diff_inputs, {go}, /*retain_graph=*/true, /*create_graph=*/false,
                             /*allow_unused=*/true);
      NoGradGuard no_grad;
      for (size_t i = 0; i < g.size(); ++i) {
        if (!g[i].defined()) continue;
        if (g[i].sizes() != diff_inputs[i].sizes())
          r.sizes_ok = false;
        else if (g[i].dtype() != diff_inputs[i].dtype())
          r.types_ok = false;
        if (g[i].numel() == diff_inputs[i].numel()) r.jac[i].select(1, col).copy_(g[i].reshape({-1}));
      }
    }
    return r;
  }

  void check_analytical(size_t jo, const std::vector<variable_list>& numerical) const {
    const Tensor& out = outputs[jo];
    Analytical a1 = analytical_jacobians(out);
    Analytical a2 = analytical_jacobians(out);
    bool reentrant = true;
    {
      NoGradGuard no_grad;
      for (size_t i = 0; i < a1.jac.size(); ++i)
        if (a1.jac[i].numel() != 0 && (a1.jac[i] - a2.jac[i]).abs().max().item<double>() > opt.nondet_tol)
          reentrant = false;
    }
    if (!a1.types_ok && opt.check_grad_dtypes) fail(name, "Gradient has dtype mismatch");
    if (!a1.sizes_ok) fail(name, "Analytical gradient has incorrect size");
    if (!reentrant)
      fail(name, fmt::format("Backward is not reentrant, i.e., running backward with same input and grad_output "
                             "multiple times gives different values, although analytical gradient matches "
                             "numerical gradient. The tolerance for nondeterminism was {}.",
                             opt.nondet_tol));
    NoGradGuard no_grad;
    for (size_t i = 0; i < diff_in.size(); ++i) {
      const Tensor& a = a1.jac[i];
      const Tensor& n = numerical[i][jo];
      const ScalarType t = promote_types(a.dtype(), n.dtype());
      if (!allclose(a.to(t), n.to(a.device(), t), opt.rtol, opt.atol))
        fail(name, fmt::format("Jacobian mismatch for output {} with respect to input {},\nnumerical:\n{}\n"
                               "analytical:\n{}\n",
                               jo, diff_in[i], str(n), str(a)));
    }
  }

  // A zero grad_output gives zero input gradients of the inputs' dtype, device and shape.
  void check_backward_mul_by_grad_output() const {
    variable_list outs, gos;
    for (size_t j : diff_out) {
      outs.push_back(outputs[j]);
      gos.push_back(zeros(outputs[j].sizes(), outputs[j].options()));
    }
    variable_list g = grad(outs, diff_inputs, gos, /*retain_graph=*/true, /*create_graph=*/false,
                           /*allow_unused=*/true);
    NoGradGuard no_grad;
    for (size_t i = 0; i < g.size(); ++i) {
      if (!g[i].defined()) continue;
      if (!g[i].eq(0).all().item<bool>()) fail(name, "backward not multiplied by grad_output");
      if (g[i].dtype() != diff_inputs[i].dtype() || g[i].device() != diff_inputs[i].device())
        fail(name,
             fmt::format("grad is incorrect type: the gradient of input {} is {} on {}, the input is {} on {}",
                         diff_in[i], g[i].dtype(), g[i].device(), diff_inputs[i].dtype(), diff_inputs[i].device()));
      if (g[i].sizes() != diff_inputs[i].sizes())
        fail(name, fmt::format("grad is incorrect size: the gradient of input {} has shape {}, the input {}",
                               diff_in[i], shape_str(g[i]), shape_str(diff_inputs[i])));
    }
  }

  // Backward accepts undefined output gradients: all at once, then (with several outputs) each
  // in turn, and gives undefined or zero input gradients.
  void check_undefined_grad() const {
    auto fresh = [&](std::optional<size_t> only) {
      variable_list out = fn(inputs), checked;
      for (size_t j : diff_out) {
        EMBER_CHECK(j < out.size() && requires_grad(out[j]),
                    "[{}] fn's output {} required grad in the first call and not in a later one", name, j);
        const bool undef = !only || *only == checked.size();
        checked.push_back(undef ? UndefinedGrad::apply(out[j]) : out[j]);
      }
      return checked;
    };
    std::vector<variable_list> cases{fresh(std::nullopt)};
    if (diff_out.size() > 1)
      for (size_t k = 0; k < diff_out.size(); ++k) cases.push_back(fresh(k));
    for (const variable_list& outs : cases) {
      variable_list gos;
      for (const Tensor& o : outs) gos.push_back(zeros(o.sizes(), o.options()));
      variable_list g;
      try {
        g = grad(outs, diff_inputs, gos, /*retain_graph=*/{}, /*create_graph=*/false, /*allow_unused=*/true);
      } catch (const Error& e) {
        fail(name,
             fmt::format("Expected backward function to handle undefined output grads; it raised:\n{}", e.what()));
      }
      NoGradGuard no_grad;
      for (const Tensor& gi : g)
        if (gi.defined() && !gi.eq(0).all().item<bool>())
          fail(name, "Expected all input grads to be undefined or zero when all output grads are undefined or zero");
    }
  }

  bool run() {
    for (size_t p = 0; p < inputs.size(); ++p) {
      const Tensor& x = inputs[p];
      if (!requires_grad(x)) continue;
      EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(x.dtype()),
                                  "[{}] input {} is complex ({}): complex gradients are not checked yet", name, p,
                                  x.dtype());
      EMBER_CHECK_NOT_IMPLEMENTED(x.layout() == kStrided,
                                  "[{}] input {} has a non-strided layout: only strided inputs are checked", name, p);
      diff_in.push_back(p);
      diff_inputs.push_back(x);
    }
    EMBER_CHECK(!diff_in.empty(),
                "[{}] expects at least one input tensor to require gradient, but none of them have "
                "requires_grad=True",
                name);
    outputs = fn(inputs);
    for (size_t j = 0; j < outputs.size(); ++j) {
      const Tensor& o = outputs[j];
      if (!o.defined()) continue;
      EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(o.dtype()),
                                  "[{}] output {} is complex ({}): complex gradients are not checked yet", name, j,
                                  o.dtype());
      EMBER_CHECK_NOT_IMPLEMENTED(o.layout() == kStrided,
                                  "[{}] output {} has a non-strided layout: only strided outputs are checked", name, j);
      if (o.requires_grad()) diff_out.push_back(j);
    }

    const std::vector<variable_list> numerical = numerical_jacobians();
    if (diff_out.empty()) {
      // Nothing to differentiate: fn must not depend on its inputs.
      NoGradGuard no_grad;
      for (const variable_list& per_out : numerical)
        for (const Tensor& n : per_out)
          if (n.defined() && n.numel() != 0 && !n.eq(0).all().item<bool>())
            fail(name, "Numerical gradient for function expected to be zero");
      return true;
    }
    for (size_t j : diff_out) check_analytical(j, numerical);
    check_backward_mul_by_grad_output();
    if (opt.check_undefined_grad) check_undefined_grad();
    return true;
  }
};

bool run_checked(const char* name, const GradcheckFn& fn, const variable_list& inputs,
                 const GradcheckOptions& options) {
  Checker c{name, fn, inputs, options, {}, {}, {}, {}};
  if (options.raise_exception) return c.run();
  try {
    return c.run();
  } catch (const GradcheckError&) {
    return false;
  }
}

}  // namespace

namespace detail {

bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& options) {
  EMBER_CHECK(static_cast<bool>(fn), "[gradcheck] fn is empty");
  return run_checked("gradcheck", fn, inputs, options);
}

bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs, const variable_list& grad_outputs,
                   const GradcheckOptions& options) {
  constexpr const char* name = "gradgradcheck";
  EMBER_CHECK(static_cast<bool>(fn), "[{}] fn is empty", name);
  std::vector<size_t> diff_in;
  for (size_t p = 0; p < inputs.size(); ++p)
    if (requires_grad(inputs[p])) diff_in.push_back(p);
  EMBER_CHECK(!diff_in.empty(),
              "[{}] expects at least one input tensor to require gradient, but none of them have "
              "requires_grad=True",
              name);

  variable_list gos = grad_outputs;
  if (gos.empty()) {
    // One random grad_output per output that requires grad, reproducible.
    const variable_list outs = fn(inputs);
    Generator gen = ember::detail::createCPUGenerator(kGradOutputSeed);
    NoGradGuard no_grad;
    for (const Tensor& o : outs) {
      if (!requires_grad(o)) continue;
      const ScalarType t = o.is_floating_point() ? o.dtype() : kFloat64;
      gos.push_back(randn(o.sizes(), gen, TensorOptions().dtype(t)).to(o.device()).requires_grad_(true));
    }
  }
  const size_t n_in = inputs.size(), n_go = gos.size();

  // (inputs..., grad_outputs...) -> the gradients of the inputs that require grad, with a graph.
  GradcheckFn first_grads = [&fn, diff_in, n_in, n_go, name](const variable_list& args) {
    const variable_list in(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n_in));
    const variable_list go(args.begin() + static_cast<std::ptrdiff_t>(n_in), args.end());
    variable_list outs;
    for (Tensor& o : fn(in))
      if (requires_grad(o)) outs.push_back(std::move(o));
    EMBER_CHECK(outs.size() == n_go, "[{}] fn has {} outputs that require grad, but {} grad_outputs were given", name,
                outs.size(), n_go);
    variable_list xs;
    for (size_t p : diff_in) xs.push_back(in[p]);
    variable_list g = grad(outs, xs, go, /*retain_graph=*/{}, /*create_graph=*/true, /*allow_unused=*/true);
    variable_list defined;
    for (Tensor& t : g)
      if (t.defined()) defined.push_back(std::move(t));
    return defined;
  };
  variable_list all = inputs;
  all.insert(all.end(), gos.begin(), gos.end());
  return run_checked(name, first_grads, all, options);
}

}  // namespace detail
}  // namespace ember::autograd
