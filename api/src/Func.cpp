// See Note [Functional transforms] in ember/api/Func.h.
#include "ember/api/Func.h"

#include <algorithm>
#include <memory>

#include "ember/generated/Functions.h"

namespace ember::func {
namespace {

// How many transformed functions' f are running on this thread (Note [Functional transforms]).
thread_local int transform_depth = 0;

struct DepthGuard {
  DepthGuard() { ++transform_depth; }
  ~DepthGuard() { --transform_depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};

bool requires_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

// Whether this call's results must stay differentiable.
bool tracked(const variable_list& a, const variable_list& b = {}) {
  if (!GradMode::is_enabled()) return false;
  if (transform_depth > 0) return true;
  return std::any_of(a.begin(), a.end(), requires_grad) || std::any_of(b.begin(), b.end(), requires_grad);
}

std::vector<int64_t> wrap_argnums(const char* name, std::vector<int64_t> argnums, size_t num_args) {
  EMBER_CHECK(!argnums.empty(), "[{}] argnums must be non-empty", name);
  const auto n = static_cast<int64_t>(num_args);
  const std::vector<int64_t> given = argnums;
  for (int64_t& a : argnums) {
    EMBER_CHECK_INDEX(a >= -n && a < n, "[{}] Got argnums={}, but only {} positional inputs", name, a, n);
    if (a < 0) a += n;
  }
  std::vector<int64_t> sorted = argnums;
  std::sort(sorted.begin(), sorted.end());
  EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
              "[{}] argnums elements must be unique, got {}", name, fmt::join(given, ", "));
  return argnums;
}

void check_differentiable(const char* name, const Tensor& x, const char* what, int64_t index) {
  EMBER_CHECK(x.defined(), "[{}] {} {} is undefined", name, what, index);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(x.dtype()),
                              "[{}] {} {} is complex ({}): complex differentiation is not implemented", name, what,
                              index, x.dtype());
  EMBER_CHECK_TYPE(x.is_floating_point(), "[{}] {} {} has dtype {}; only floating-point tensors can be differentiated",
                   name, what, index, x.dtype());
}

// f's argument for a differentiated primal (Note [Functional transforms]).
Tensor prepare(const Tensor& x, bool track) {
  if (track && x.requires_grad()) return x.view(x.sizes());
  Tensor leaf = x.detach();
  leaf.requires_grad_(true);
  return leaf;
}

Tensor zeros_of(const Tensor& t) { return zeros(t.sizes(), t.options()); }

// A Jacobian's shape: y.shape + x.shape.
std::vector<int64_t> jac_shape(const Tensor& y, const Tensor& x) {
  std::vector<int64_t> shape(y.sizes().begin(), y.sizes().end());
  shape.insert(shape.end(), x.sizes().begin(), x.sizes().end());
  return shape;
}

// The k-th basis tensor of t's shape (a fresh tensor: autograd::grad may hand a grad_output back
// as a gradient, so none is reused).
Tensor basis_tensor(const Tensor& t, int64_t k) {
  NoGradGuard no_grad;
  Tensor e = zeros(t.sizes(), t.options());
  e.view({-1}).select(0, k).fill_(1);
  return e;
}

// f evaluated at prepared arguments: what every transform differentiates.
struct Linear {
  bool track = false;
  variable_list args;  // f's arguments
  variable_list xs;    // the differentiated ones, in argnums order
  Tensor y;            // f(args)
};

Linear linearize(const char* name, const FnN& f, const variable_list& primals, const std::vector<int64_t>& argnums,
                 bool track) {
  Linear l;
  l.track = track;
  l.args = primals;
  AutoGradMode grad_on(true);
  for (int64_t a : argnums) {
    check_differentiable(name, primals[a], "argument", a);
    l.args[a] = prepare(primals[a], track);
    l.xs.push_back(l.args[a]);
  }
  {
    DepthGuard nested;
    l.y = f(l.args);
  }
  EMBER_CHECK(l.y.defined(), "[{}] f returned an undefined tensor", name);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(l.y.dtype()),
                              "[{}] f returned a complex tensor ({}): complex differentiation is not implemented", name,
                              l.y.dtype());
  EMBER_CHECK_TYPE(l.y.is_floating_point(),
                   "[{}] f returned a tensor of dtype {}; only floating-point outputs can be differentiated", name,
                   l.y.dtype());
  return l;
}

// cotangent^T J for each x (zeros for an x that f does not use).
variable_list pullback(const Linear& l, const Tensor& cotangent, bool create_graph) {
  variable_list g(l.xs.size());
  if (l.y.requires_grad())
    g = autograd::grad({l.y}, l.xs, {cotangent}, /*retain_graph=*/true, create_graph, /*allow_unused=*/true);
  for (size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = zeros_of(l.xs[i]);
  return g;
}

// What jvps need once per linearization: g = J^T u for a dummy cotangent u.
struct DualVjp {
  Tensor u;
  variable_list g;  // per x; undefined where J^T u has no graph back to u (J is zero)
};

DualVjp dual_vjp(const Linear& l) {
  DualVjp d;
  d.g.resize(l.xs.size());
  if (!l.y.requires_grad()) return d;
  AutoGradMode grad_on(true);
  d.u = zeros_of(l.y);
  d.u.requires_grad_(true);
  variable_list g = autograd::grad({l.y}, l.xs, {d.u}, /*retain_graph=*/true, /*create_graph=*/true,
                                   /*allow_unused=*/true);
  for (size_t i = 0; i < g.size(); ++i)
    if (requires_grad(g[i])) d.g[i] = g[i];
  return d;
}

// sum_i J_i tangents[i] (an undefined tangent counts as zero).
Tensor pushforward(const Linear& l, const DualVjp& d, const variable_list& tangents, bool create_graph) {
  variable_list gs, ts;
  for (size_t i = 0; i < d.g.size(); ++i) {
    if (!d.g[i].defined() || !tangents[i].defined()) continue;
    gs.push_back(d.g[i]);
    ts.push_back(tangents[i]);
  }
  if (gs.empty()) return zeros_of(l.y);
  Tensor r = autograd::grad(gs, {d.u}, ts, /*retain_graph=*/true, create_graph, /*allow_unused=*/true)[0];
  return r.defined() ? r : zeros_of(l.y);
}

Tensor finish(const Tensor& t, bool track) { return track ? t : t.detach(); }
variable_list finish(variable_list v, bool track) {
  if (!track)
    for (Tensor& t : v) t = t.detach();
  return v;
}

std::pair<variable_list, Tensor> grad_and_value_impl(const char* name, const FnN& f, const variable_list& args,
                                                     const std::vector<int64_t>& argnums) {
  const std::vector<int64_t> an = wrap_argnums(name, argnums, args.size());
  const bool track = tracked(args);
  Linear l = linearize(name, f, args, an, track);
  EMBER_CHECK(l.y.dim() == 0,
              "[{}] Expected f(*args) to return a scalar Tensor, got tensor with {} dims. Maybe you wanted to use "
              "the vjp or jacrev APIs instead?",
              name, l.y.dim());
  AutoGradMode grad_on(true);
  variable_list g = pullback(l, ones_like(l.y), track);
  return {finish(std::move(g), track), finish(l.y, track)};
}

// Rows: one vjp per element of y.
variable_list jacrev_impl(const char* name, const FnN& f, const variable_list& args,
                          const std::vector<int64_t>& argnums) {
  const std::vector<int64_t> an = wrap_argnums(name, argnums, args.size());
  const bool track = tracked(args);
  Linear l = linearize(name, f, args, an, track);
  AutoGradMode grad_on(true);
  const int64_t m = l.y.numel();
  std::vector<variable_list> rows(l.xs.size());
  for (int64_t j = 0; j < m; ++j) {
    variable_list g = pullback(l, basis_tensor(l.y, j), track);
    for (size_t i = 0; i < g.size(); ++i) rows[i].push_back(g[i]);
  }
  variable_list jac;
  for (size_t i = 0; i < l.xs.size(); ++i) {
    const Tensor& x = l.xs[i];
    if (m == 0 || x.numel() == 0)
      jac.push_back(zeros(jac_shape(l.y, x), l.y.options()));
    else
      jac.push_back(stack(rows[i], 0).reshape(jac_shape(l.y, x)));
  }
  return finish(std::move(jac), track);
}

// Columns: one jvp per element of x, all from one g = J^T u.
variable_list jacfwd_impl(const char* name, const FnN& f, const variable_list& args,
                          const std::vector<int64_t>& argnums) {
  const std::vector<int64_t> an = wrap_argnums(name, argnums, args.size());
  const bool track = tracked(args);
  Linear l = linearize(name, f, args, an, track);
  const DualVjp d = dual_vjp(l);
  AutoGradMode grad_on(true);
  variable_list jac;
  for (size_t i = 0; i < l.xs.size(); ++i) {
    const Tensor& x = l.xs[i];
    const int64_t n = x.numel();
    if (n == 0 || l.y.numel() == 0 || !d.g[i].defined()) {
      jac.push_back(zeros(jac_shape(l.y, x), l.y.options()));
      continue;
    }
    variable_list cols, tangents(l.xs.size());
    for (int64_t k = 0; k < n; ++k) {
      tangents[i] = basis_tensor(x, k);
      cols.push_back(pushforward(l, d, tangents, track));
    }
    jac.push_back(stack(cols, l.y.dim()).reshape(jac_shape(l.y, x)));
  }
  return finish(std::move(jac), track);
}

std::vector<int64_t> all_argnums(size_t n) {
  std::vector<int64_t> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<int64_t>(i);
  return a;
}

FnN lift(Fn f) {
  return [f = std::move(f)](const variable_list& a) { return f(a[0]); };
}

void check_fn(const char* name, bool present) { EMBER_CHECK(present, "[{}] f is empty", name); }

}  // namespace

// ---- grad ---------------------------------------------------------------------------------------

Fn grad(Fn f) {
  check_fn("func::grad", static_cast<bool>(f));
  FnN g = lift(std::move(f));
  return [g](const Tensor& x) { return grad_and_value_impl("func::grad", g, {x}, {0}).first[0]; };
}

FnN grad(FnN f, int64_t argnums) {
  check_fn("func::grad", static_cast<bool>(f));
  return [f = std::move(f), argnums](const variable_list& args) {
    return grad_and_value_impl("func::grad", f, args, {argnums}).first[0];
  };
}

FnList grad(FnN f, std::vector<int64_t> argnums) {
  check_fn("func::grad", static_cast<bool>(f));
  return [f = std::move(f), argnums = std::move(argnums)](const variable_list& args) {
    return grad_and_value_impl("func::grad", f, args, argnums).first;
  };
}

std::function<std::pair<Tensor, Tensor>(const Tensor&)> grad_and_value(Fn f) {
  check_fn("func::grad_and_value", static_cast<bool>(f));
  FnN g = lift(std::move(f));
  return [g](const Tensor& x) {
    auto [grads, value] = grad_and_value_impl("func::grad_and_value", g, {x}, {0});
    return std::pair<Tensor, Tensor>(grads[0], value);
  };
}

std::function<std::pair<Tensor, Tensor>(const variable_list&)> grad_and_value(FnN f, int64_t argnums) {
  check_fn("func::grad_and_value", static_cast<bool>(f));
  return [f = std::move(f), argnums](const variable_list& args) {
    auto [grads, value] = grad_and_value_impl("func::grad_and_value", f, args, {argnums});
    return std::pair<Tensor, Tensor>(grads[0], value);
  };
}

std::function<std::pair<variable_list, Tensor>(const variable_list&)> grad_and_value(FnN f,
                                                                                     std::vector<int64_t> argnums) {
  check_fn("func::grad_and_value", static_cast<bool>(f));
  return [f = std::move(f), argnums = std::move(argnums)](const variable_list& args) {
    return grad_and_value_impl("func::grad_and_value", f, args, argnums);
  };
}

// ---- vjp / jvp ----------------------------------------------------------------------------------

std::pair<Tensor, std::function<variable_list(const Tensor&)>> vjp(FnN f, variable_list primals) {
  constexpr const char* name = "func::vjp";
  check_fn(name, static_cast<bool>(f));
  EMBER_CHECK(!primals.empty(), "[{}] Expected primals to be a non-empty list of tensors", name);
  const bool track = tracked(primals);
  auto l = std::make_shared<const Linear>(linearize(name, f, primals, all_argnums(primals.size()), track));
  auto pull = [l](const Tensor& cotangent) {
    EMBER_CHECK(cotangent.defined(), "[func::vjp] the cotangent is undefined");
    EMBER_CHECK(cotangent.sizes() == l->y.sizes(),
                "[func::vjp] Expected the cotangent to have f's output shape {}, got shape {}", l->y.sizes(),
                cotangent.sizes());
    EMBER_CHECK_TYPE(cotangent.dtype() == l->y.dtype(),
                     "[func::vjp] Expected the cotangent to have f's output dtype {}, got {}", l->y.dtype(),
                     cotangent.dtype());
    const bool track_now = GradMode::is_enabled() && (l->track || transform_depth > 0 || cotangent.requires_grad());
    return finish(pullback(*l, cotangent, track_now), track_now);
  };
  return {finish(l->y, track), pull};
}

std::pair<Tensor, std::function<Tensor(const Tensor&)>> vjp(Fn f, const Tensor& primal) {
  check_fn("func::vjp", static_cast<bool>(f));
  auto [y, pull] = vjp(lift(std::move(f)), variable_list{primal});
  return {y, [pull = std::move(pull)](const Tensor& cotangent) { return pull(cotangent)[0]; }};
}

std::pair<Tensor, Tensor> jvp(FnN f, variable_list primals, variable_list tangents) {
  constexpr const char* name = "func::jvp";
  check_fn(name, static_cast<bool>(f));
  EMBER_CHECK(!primals.empty(), "[{}] Expected primals to be a non-empty list of tensors", name);
  EMBER_CHECK(primals.size() == tangents.size(),
              "[{}] Expected primals and tangents to have the same length, got {} primals and {} tangents", name,
              primals.size(), tangents.size());
  for (size_t i = 0; i < primals.size(); ++i) {
    const auto idx = static_cast<int64_t>(i);
    check_differentiable(name, primals[i], "primal", idx);
    EMBER_CHECK(tangents[i].defined(), "[{}] tangent {} is undefined", name, i);
    EMBER_CHECK(tangents[i].sizes() == primals[i].sizes(),
                "[{}] Expected tangent {} to have the shape of primal {}, {}, got {}", name, i, i, primals[i].sizes(),
                tangents[i].sizes());
    EMBER_CHECK_TYPE(tangents[i].dtype() == primals[i].dtype(),
                     "[{}] Expected tangent {} to have the dtype of primal {}, {}, got {}", name, i, i,
                     primals[i].dtype(), tangents[i].dtype());
  }
  const bool track = tracked(primals, tangents);
  Linear l = linearize(name, f, primals, all_argnums(primals.size()), track);
  const DualVjp d = dual_vjp(l);
  AutoGradMode grad_on(true);
  Tensor t = pushforward(l, d, tangents, track);
  return {finish(l.y, track), finish(t, track)};
}

std::pair<Tensor, Tensor> jvp(Fn f, const Tensor& primal, const Tensor& tangent) {
  check_fn("func::jvp", static_cast<bool>(f));
  return jvp(lift(std::move(f)), variable_list{primal}, variable_list{tangent});
}

// ---- jacrev / jacfwd / hessian ----------------------------------------------------------------

Fn jacrev(Fn f) {
  check_fn("func::jacrev", static_cast<bool>(f));
  FnN g = lift(std::move(f));
  return [g](const Tensor& x) { return jacrev_impl("func::jacrev", g, {x}, {0})[0]; };
}

FnN jacrev(FnN f, int64_t argnums) {
  check_fn("func::jacrev", static_cast<bool>(f));
  return [f = std::move(f), argnums](const variable_list& args) {
    return jacrev_impl("func::jacrev", f, args, {argnums})[0];
  };
}

FnList jacrev(FnN f, std::vector<int64_t> argnums) {
  check_fn("func::jacrev", static_cast<bool>(f));
  return [f = std::move(f), argnums = std::move(argnums)](const variable_list& args) {
    return jacrev_impl("func::jacrev", f, args, argnums);
  };
}

Fn jacfwd(Fn f) {
  check_fn("func::jacfwd", static_cast<bool>(f));
  FnN g = lift(std::move(f));
  return [g](const Tensor& x) { return jacfwd_impl("func::jacfwd", g, {x}, {0})[0]; };
}

FnN jacfwd(FnN f, int64_t argnums) {
  check_fn("func::jacfwd", static_cast<bool>(f));
  return [f = std::move(f), argnums](const variable_list& args) {
    return jacfwd_impl("func::jacfwd", f, args, {argnums})[0];
  };
}

FnList jacfwd(FnN f, std::vector<int64_t> argnums) {
  check_fn("func::jacfwd", static_cast<bool>(f));
  return [f = std::move(f), argnums = std::move(argnums)](const variable_list& args) {
    return jacfwd_impl("func::jacfwd", f, args, argnums);
  };
}

Fn hessian(Fn f) {
  check_fn("func::hessian", static_cast<bool>(f));
  return jacfwd(jacrev(std::move(f)));
}

FnN hessian(FnN f, int64_t argnums) {
  check_fn("func::hessian", static_cast<bool>(f));
  return jacfwd(jacrev(std::move(f), argnums), argnums);
}

}  // namespace ember::func
