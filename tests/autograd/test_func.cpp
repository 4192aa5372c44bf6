// Functional transforms (ember/api/Func.h, Note [Functional transforms]) through the autograd
// plugin and the cpu kernels, in float64: closed forms, Jacobians against central differences
// computed without autograd, jacrev against jacfwd, vjp/jvp against explicit Jacobian products,
// nesting (grad of grad, hessian, closures, a custom Function), and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "AutogradTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using autograd::variable_list;

namespace {

using agtest::error_of_type;
using agtest::values;

Tensor rnd(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, ember::detail::createCPUGenerator(seed), kFloat64);
}

Tensor scalar(double v) { return full({}, v, kFloat64); }

// The square matrix with v on its diagonal.
Tensor diag_matrix(const Tensor& v) {
  Tensor d = zeros({v.numel(), v.numel()}, kFloat64);
  for (int64_t i = 0; i < v.numel(); ++i) d.select(0, i).select(0, i).fill_(v[i].item<double>());
  return d;
}

std::vector<int64_t> cat_shape(const Tensor& a, const Tensor& b) {
  std::vector<int64_t> s(a.sizes().begin(), a.sizes().end());
  s.insert(s.end(), b.sizes().begin(), b.sizes().end());
  return s;
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_EQ(got.dtype(), want.dtype()) << what;
  const std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << what << " at flat index " << i;
}

// d f(args)/d args[argnum] by central differences without autograd: f(x).shape + x.shape.
Tensor fd_jacobian(const func::FnN& f, variable_list args, size_t argnum, double eps = 1e-6) {
  NoGradGuard no_grad;
  Tensor x = args[argnum].detach().clone();
  args[argnum] = x;
  const Tensor y = f(args);
  std::vector<Tensor> cols;
  for (int64_t k = 0; k < x.numel(); ++k) {
    Tensor xp = x.clone(), xm = x.clone();
    xp.view({-1}).select(0, k).add_(eps);
    xm.view({-1}).select(0, k).sub_(eps);
    args[argnum] = xp;
    Tensor yp = f(args);
    args[argnum] = xm;
    Tensor ym = f(args);
    cols.push_back((yp - ym) / (2 * eps));
  }
  return stack(cols, y.dim()).reshape(cat_shape(y, x));
}
Tensor fd_jacobian(const func::Fn& f, const Tensor& x, double eps = 1e-6) {
  return fd_jacobian([&](const variable_list& a) { return f(a[0]); }, {x}, 0, eps);
}

// ---- grad ---------------------------------------------------------------------------------

TEST(AutogradFunc, GradOfGradOfSinIsMinusSin) {
  const func::Fn sin = [](const Tensor& x) { return x.sin(); };
  for (double v : {-1.3, 0.0, 0.4, 2.5}) {
    const Tensor x = scalar(v);
    expect_close(func::grad(sin)(x), scalar(std::cos(v)), 1e-12, "sin'");
    expect_close(func::grad(func::grad(sin))(x), scalar(-std::sin(v)), 1e-12, "sin''");
    expect_close(func::grad(func::grad(func::grad(sin)))(x), scalar(-std::cos(v)), 1e-12, "sin'''");
  }
}

TEST(AutogradFunc, GradOfAReductionHasTheInputsShape) {
  const Tensor x = rnd({2, 3}, 1);
  const Tensor g = func::grad([](const Tensor& t) { return (t * t * t).sum(); })(x);
  expect_close(g, 3 * x * x, 1e-12, "d sum(x^3)");
  EXPECT_FALSE(g.requires_grad()) << "outermost results are detached";
  EXPECT_FALSE(x.requires_grad()) << "the argument is not changed";
}

TEST(AutogradFunc, GradAndValueGivesBoth) {
  const Tensor x = rnd({4}, 2);
  auto [g, v] = func::grad_and_value([](const Tensor& t) { return (t.exp() * t).sum(); })(x);
  expect_close(g, x.exp() * (x + 1), 1e-12, "grad");
  expect_close(v, (x.exp() * x).sum(), 1e-12, "value");
  EXPECT_FALSE(v.requires_grad());
}

TEST(AutogradFunc, GradWithArgnums) {
  const func::FnN f = [](const variable_list& a) { return (a[0] * a[1] * a[1]).sum(); };
  const Tensor x = rnd({3}, 3), y = rnd({3}, 4);
  expect_close(func::grad(f)({x, y}), y * y, 1e-12, "argnums 0");
  expect_close(func::grad(f, 1)({x, y}), 2 * x * y, 1e-12, "argnums 1");
  expect_close(func::grad(f, -1)({x, y}), 2 * x * y, 1e-12, "argnums -1");
  const variable_list both = func::grad(f, std::vector<int64_t>{1, 0})({x, y});
  ASSERT_EQ(both.size(), 2u);
  expect_close(both[0], 2 * x * y, 1e-12, "argnums {1, 0}: first");
  expect_close(both[1], y * y, 1e-12, "argnums {1, 0}: second");
  auto [gs, value] = func::grad_and_value(f, std::vector<int64_t>{0, 1})({x, y});
  ASSERT_EQ(gs.size(), 2u);
  expect_close(value, (x * y * y).sum(), 1e-12, "value");
}

TEST(AutogradFunc, GradOfAnUnusedArgumentOrAConstantIsZero) {
  const Tensor x = rnd({2, 2}, 5), y = rnd({3}, 6);
  const Tensor gy = func::grad([](const variable_list& a) { return a[0].sum(); }, 1)({x, y});
  expect_close(gy, zeros({3}, kFloat64), 0, "unused argument");
  const Tensor c = func::grad([](const Tensor&) { return scalar(2.0); })(x);
  expect_close(c, zeros({2, 2}, kFloat64), 0, "constant function");
}

TEST(AutogradFunc, GradOfAnArgumentThatRequiresGradStaysDifferentiable) {
  // grad(f)(x) with x requiring grad is tracked by ordinary autograd: d/dx sum(3x^2) = 6x.
  Tensor x = rnd({3}, 7);
  x.requires_grad_(true);
  const Tensor g = func::grad([](const Tensor& t) { return (t * t * t).sum(); })(x);
  ASSERT_TRUE(g.requires_grad());
  g.sum().backward();
  expect_close(x.grad(), 6 * x.detach(), 1e-12, "x.grad");
  {
    NoGradGuard no_grad;  // the transform still works; its result is not tracked
    const Tensor h = func::grad([](const Tensor& t) { return (t * t).sum(); })(x);
    EXPECT_FALSE(h.requires_grad());
    expect_close(h, 2 * x.detach(), 1e-12, "under NoGradGuard");
  }
}

TEST(AutogradFunc, NestedGradsDoNotConfuseTheirVariables) {
  // d/dx [x * d/dy (x + y)] = 1 (not 2: the inner derivative is with respect to y alone).
  const Tensor one = scalar(1.0);
  const func::Fn outer = [&](const Tensor& x) {
    const Tensor inner = func::grad([&](const Tensor& y) { return x + y; })(one);
    return x * inner;
  };
  expect_close(func::grad(outer)(scalar(3.0)), scalar(1.0), 1e-12, "perturbation confusion");
  // d/dx [x * d/dz (z x)|z=x] = d/dx x^2 = 2x: the inner level differentiates an alias of x.
  const func::Fn same = [](const Tensor& x) {
    const Tensor inner = func::grad([&](const Tensor& z) { return z * x; })(x);
    return x * inner;
  };
  expect_close(func::grad(same)(scalar(1.5)), scalar(3.0), 1e-12, "same variable at two levels");
}

TEST(AutogradFunc, ClosuresOverAnOuterVariableAreDifferentiated) {
  // outer(x) = sum(d/dy sum(x * y^2) at c) = sum(2 x c): its gradient is 2c.
  const Tensor c = rnd({4}, 8);
  const func::Fn outer = [&](const Tensor& x) {
    return func::grad([&](const Tensor& y) { return (x * y * y).sum(); })(c).sum();
  };
  expect_close(func::grad(outer)(rnd({4}, 9)), 2 * c, 1e-12, "closure");
}

// ---- Jacobians ----------------------------------------------------------------------------

struct Case {
  const char* what;
  func::FnN f;
  variable_list args;
};

std::vector<Case> jacobian_cases() {
  const Tensor a = rnd({3, 4}, 10), b = rnd({1, 4}, 11);
  return {
      {"elementwise", [](const variable_list& v) { return v[0].sin() * v[0].exp() + v[0].tanh(); }, {rnd({2, 3}, 12)}},
      {"matmul", [a](const variable_list& v) { return a.matmul(v[0]).sigmoid(); }, {rnd({4, 2}, 13)}},
      {"matmul of two arguments",
       [](const variable_list& v) { return v[0].matmul(v[1]); },
       {rnd({2, 3}, 14), rnd({3, 2}, 15)}},
      {"sum over a dim", [](const variable_list& v) { return (v[0] * v[0]).sum({1}); }, {rnd({3, 4}, 16)}},
      {"mean and logsumexp",
       [](const variable_list& v) { return v[0].mean({0}) + v[0].logsumexp({0}); },
       {rnd({3, 2}, 17)}},
      {"softmax", [](const variable_list& v) { return v[0].softmax(1); }, {rnd({2, 3}, 18)}},
      {"broadcasting", [b](const variable_list& v) { return v[0] * b + v[0].exp(); }, {rnd({3, 1}, 19)}},
      {"broadcasting two arguments",
       [](const variable_list& v) { return (v[0] - v[1]).pow(2); },
       {rnd({3, 1}, 20), rnd({1, 4}, 21)}},
      {"to a 0-dim result",
       [](const variable_list& v) { return (v[0] * v[1]).sum(); },
       {rnd({2, 2}, 22), rnd({2, 2}, 23)}},
      {"from a 0-dim argument", [](const variable_list& v) { return v[1] * v[0].cos(); }, {scalar(0.7), rnd({3}, 24)}},
      {"views", [](const variable_list& v) { return v[0].t().slice(0, 1, 3).select(1, 1) * 2; }, {rnd({2, 3}, 25)}},
  };
}

void check_jacobians(const Case& c) {
  {
    for (size_t i = 0; i < c.args.size(); ++i) {
      const std::string what = std::string(c.what) + ", argument " + std::to_string(i);
      const auto argnum = static_cast<int64_t>(i);
      const Tensor rev = func::jacrev(c.f, argnum)(c.args);
      const Tensor fwd = func::jacfwd(c.f, argnum)(c.args);
      const Tensor fd = fd_jacobian(c.f, c.args, i);
      EXPECT_EQ(rev.sizes(), IntArrayRef(cat_shape(c.f(c.args), c.args[i]))) << what;
      expect_close(rev, fd, 1e-6, what + ": jacrev vs finite differences");
      expect_close(fwd, rev, 1e-12, what + ": jacfwd vs jacrev");
      EXPECT_FALSE(rev.requires_grad() || fwd.requires_grad()) << what;
    }
  }
}

TEST(AutogradFunc, JacrevAndJacfwdMatchFiniteDifferences) {
  for (const Case& c : jacobian_cases()) check_jacobians(c);
}

// A reshape that copies (a non-contiguous input) is recorded with the result's shape.
TEST(AutogradFunc, JacobiansThroughAReshapeThatCopies) {
  check_jacobians({"reshape of a transpose",
                   [](const variable_list& v) { return v[0].t().reshape({-1}).slice(0, 1, 5) * 2; },
                   {rnd({2, 3}, 25)}});
}

TEST(AutogradFunc, JacobiansOfSeveralArgumentsAtOnce) {
  const func::FnN f = [](const variable_list& v) { return v[0].matmul(v[1]).tanh(); };
  const variable_list args{rnd({2, 3}, 26), rnd({3, 2}, 27)};
  const variable_list rev = func::jacrev(f, std::vector<int64_t>{0, 1})(args);
  const variable_list fwd = func::jacfwd(f, std::vector<int64_t>{0, 1})(args);
  ASSERT_EQ(rev.size(), 2u);
  ASSERT_EQ(fwd.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    expect_close(rev[i], fd_jacobian(f, args, i), 1e-6, "jacrev " + std::to_string(i));
    expect_close(fwd[i], rev[i], 1e-12, "jacfwd " + std::to_string(i));
  }
}

TEST(AutogradFunc, TheJacobianOfALinearMapIsItsMatrix) {
  const Tensor a = rnd({3, 4}, 28);
  const func::Fn f = [a](const Tensor& x) { return a.matmul(x); };
  const Tensor x = rnd({4}, 29);
  expect_close(func::jacrev(f)(x), a, 1e-15, "jacrev");
  expect_close(func::jacfwd(f)(x), a, 1e-15, "jacfwd");
  // An unused argument: a zero Jacobian of shape out.shape + in.shape.
  const func::FnN g = [a](const variable_list& v) { return a.matmul(v[0]); };
  expect_close(func::jacrev(g, 1)({x, rnd({2}, 30)}), zeros({3, 2}, kFloat64), 0, "jacrev, unused");
  expect_close(func::jacfwd(g, 1)({x, rnd({2}, 30)}), zeros({3, 2}, kFloat64), 0, "jacfwd, unused");
  // The identity's Jacobian is the identity; an empty argument gives an empty Jacobian.
  const Tensor m = rnd({2, 2}, 31);
  const Tensor eye4 = eye(4, kFloat64).reshape({2, 2, 2, 2});
  expect_close(func::jacrev([](const Tensor& t) { return t; })(m), eye4, 0, "jacrev of the identity");
  expect_close(func::jacfwd([](const Tensor& t) { return t; })(m), eye4, 0, "jacfwd of the identity");
  const Tensor empty = rnd({0, 3}, 32);
  expect_close(func::jacrev([](const Tensor& t) { return t.exp(); })(empty), zeros({0, 3, 0, 3}, kFloat64), 0,
               "jacrev, empty");
  expect_close(func::jacfwd([](const Tensor& t) { return t.exp(); })(empty), zeros({0, 3, 0, 3}, kFloat64), 0,
               "jacfwd, empty");
}

// ---- vjp / jvp ----------------------------------------------------------------------------

TEST(AutogradFunc, VjpAndJvpAreJacobianProducts) {
  const func::FnN f = [](const variable_list& v) { return (v[0].matmul(v[1]) + v[0].sum()).sin(); };
  const variable_list args{rnd({2, 3}, 31), rnd({3, 4}, 32)};
  const Tensor y = f(args);
  const variable_list jac = func::jacrev(f, std::vector<int64_t>{0, 1})(args);  // [2,4,2,3], [2,4,3,4]

  auto [out, vjp_fn] = func::vjp(f, args);
  expect_close(out, y, 1e-15, "vjp's output");
  const Tensor v = rnd({2, 4}, 33);
  const variable_list pulled = vjp_fn(v);
  ASSERT_EQ(pulled.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    // v^T J: contract v with J's output dims.
    const Tensor want = (v.reshape({8, 1}) * jac[i].reshape({8, -1})).sum({0}).reshape(args[i].sizes());
    expect_close(pulled[i], want, 1e-12, "vjp " + std::to_string(i));
  }
  const variable_list again = vjp_fn(v);  // callable more than once
  expect_close(again[0], pulled[0], 0, "vjp_fn called twice");

  const variable_list t{rnd({2, 3}, 34), rnd({3, 4}, 35)};
  auto [out2, tangent_out] = func::jvp(f, args, t);
  expect_close(out2, y, 1e-15, "jvp's output");
  Tensor want = zeros({2, 4}, kFloat64);
  for (size_t i = 0; i < 2; ++i) want = want + jac[i].reshape({8, -1}).matmul(t[i].reshape({-1})).reshape({2, 4});
  expect_close(tangent_out, want, 1e-12, "jvp");
  EXPECT_FALSE(tangent_out.requires_grad());
}

TEST(AutogradFunc, SingleTensorVjpAndJvp) {
  const Tensor x = rnd({3}, 36);
  const func::Fn f = [](const Tensor& t) { return t.exp() * t; };
  auto [y, pull] = func::vjp(f, x);
  expect_close(y, x.exp() * x, 1e-15, "value");
  const Tensor v = rnd({3}, 37);
  expect_close(pull(v), v * x.exp() * (x + 1), 1e-12, "vjp");
  auto [y2, jv] = func::jvp(f, x, v);
  expect_close(jv, v * x.exp() * (x + 1), 1e-12, "jvp");
  // An argument f ignores, and f itself as the identity.
  const func::FnN g = [](const variable_list& a) { return a[0].sin(); };
  auto [y3, jv3] = func::jvp(g, {x, rnd({2}, 38)}, {v, rnd({2}, 39)});
  expect_close(jv3, v * x.cos(), 1e-12, "jvp with an unused argument");
  auto [y4, jv4] = func::jvp([](const Tensor& t) { return t; }, x, v);
  expect_close(jv4, v, 0, "jvp of the identity");
}

// ---- higher order -------------------------------------------------------------------------

TEST(AutogradFunc, HessianOfAnMlpLossMatchesFiniteDifferencesOfItsGradient) {
  // Two tanh layers, 3 -> 4 -> 2, mean squared error; the Hessian with respect to each parameter.
  const Tensor input = rnd({5, 3}, 40), target = rnd({5, 2}, 41);
  const func::FnN loss = [&](const variable_list& p) {
    const Tensor h = (input.matmul(p[0]) + p[1]).tanh();
    const Tensor out = (h.matmul(p[2]) + p[3]).tanh();
    return ((out - target) * (out - target)).mean();
  };
  const variable_list params{rnd({3, 4}, 42) * 0.5, rnd({4}, 43) * 0.5, rnd({4, 2}, 44) * 0.5, rnd({2}, 45) * 0.5};
  for (int64_t a = 0; a < 4; ++a) {
    const std::string what = "parameter " + std::to_string(a);
    const Tensor h = func::hessian(loss, a)(params);
    ASSERT_EQ(h.sizes(), IntArrayRef(cat_shape(params[a], params[a]))) << what;
    expect_close(h, fd_jacobian(func::grad(loss, a), params, static_cast<size_t>(a)), 1e-6,
                 what + ": hessian vs finite differences of the gradient");
    const int64_t n = params[a].numel();
    expect_close(h.reshape({n, n}), h.reshape({n, n}).t().contiguous(), 1e-12, what + ": symmetric");
    expect_close(func::jacrev(func::jacrev(loss, a), a)(params), h, 1e-12, what + ": jacrev(jacrev)");
    expect_close(func::jacfwd(func::grad(loss, a), a)(params), h, 1e-12, what + ": jacfwd(grad)");
  }
}

// The double backward of `view` reshapes a non-contiguous gradient (a reshape that copies).
TEST(AutogradFunc, HessianOfAnMlpLossInOneParameterVector) {
  // Two tanh layers, 3 -> 4 -> 2, mean squared error; all 3*4 + 4 + 4*2 + 2 = 26 parameters in
  // one vector.
  const Tensor input = rnd({5, 3}, 40), target = rnd({5, 2}, 41);
  const func::Fn loss = [&](const Tensor& theta) {
    const Tensor w1 = theta.slice(0, 0, 12).view({3, 4}), b1 = theta.slice(0, 12, 16);
    const Tensor w2 = theta.slice(0, 16, 24).view({4, 2}), b2 = theta.slice(0, 24, 26);
    const Tensor h = (input.matmul(w1) + b1).tanh();
    const Tensor out = (h.matmul(w2) + b2).tanh();
    return ((out - target) * (out - target)).mean();
  };
  const Tensor theta = rnd({26}, 42) * 0.5;
  const Tensor h = func::hessian(loss)(theta);
  ASSERT_EQ(h.sizes(), IntArrayRef({26, 26}));
  expect_close(h, fd_jacobian(func::grad(loss), theta), 1e-6, "hessian vs finite differences of the gradient");
  expect_close(h, h.t().contiguous(), 1e-12, "symmetric");
  expect_close(func::jacrev(func::jacrev(loss))(theta), h, 1e-12, "jacrev(jacrev)");
  expect_close(func::jacfwd(func::grad(loss))(theta), h, 1e-12, "jacfwd(grad)");
}

TEST(AutogradFunc, HessianWithArgnums) {
  const func::FnN f = [](const variable_list& v) { return (v[0] * v[0] * v[1]).sum(); };
  const Tensor x = rnd({3}, 43), y = rnd({3}, 44);
  // d2/dx2 sum(x^2 y) = diag_matrix(2y); d2/dy2 = 0.
  expect_close(func::hessian(f)({x, y}), diag_matrix(2 * y), 1e-12, "d2/dx2");
  expect_close(func::hessian(f, 1)({x, y}), zeros({3, 3}, kFloat64), 0, "d2/dy2");
}

struct Cube : autograd::Function<Cube> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list g) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * 3 * x * x};
  }
};

TEST(AutogradFunc, ACustomFunctionUnderGradOfGrad) {
  const func::Fn cube = [](const Tensor& x) { return Cube::apply(x); };
  for (double v : {-2.0, 0.5, 1.5}) {
    expect_close(func::grad(cube)(scalar(v)), scalar(3 * v * v), 1e-12, "Cube'");
    expect_close(func::grad(func::grad(cube))(scalar(v)), scalar(6 * v), 1e-12, "Cube''");
    expect_close(func::grad(func::grad(func::grad(cube)))(scalar(v)), scalar(6), 1e-12, "Cube'''");
  }
  const Tensor x = rnd({3}, 45);
  const Tensor h = func::hessian([](const Tensor& t) { return Cube::apply(t).sum(); })(x);
  expect_close(h, diag_matrix(6 * x), 1e-12, "hessian of sum(Cube(x))");
}

// ---- errors -------------------------------------------------------------------------------

TEST(AutogradFunc, Errors) {
  const Tensor x = rnd({3}, 46);
  EXPECT_ERROR(ValueError, func::grad([](const Tensor& t) { return t * 2; })(x), "[func::grad]",
               "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims",
               "Maybe you wanted to use the vjp or jacrev APIs instead?");
  EXPECT_ERROR(ValueError, func::grad([](const Tensor& t) { return t.sum().reshape({1}); })(x),
               "got tensor with 1 dims");
  const func::FnN f = [](const variable_list& a) { return (a[0] * a[1]).sum(); };
  EXPECT_ERROR(IndexError, func::grad(f, 2)({x, x}), "[func::grad] Got argnums=2, but only 2 positional inputs");
  EXPECT_ERROR(IndexError, func::jacrev(f, -3)({x, x}), "[func::jacrev] Got argnums=-3, but only 2 positional inputs");
  EXPECT_ERROR(ValueError, func::jacfwd(f, std::vector<int64_t>{0, -2})({x, x}),
               "[func::jacfwd] argnums elements must be unique, got 0, -2");
  EXPECT_ERROR(ValueError, func::grad(f, std::vector<int64_t>{})({x, x}), "[func::grad] argnums must be non-empty");
  EXPECT_ERROR(TypeError, func::grad(f, 1)({x, ones({3}, kInt64)}), "[func::grad] argument 1 has dtype",
               "only floating-point tensors can be differentiated");
  EXPECT_ERROR(TypeError, func::jacrev([](const Tensor& t) { return t.gt(0); })(x),
               "[func::jacrev] f returned a tensor of dtype bool", "only floating-point outputs");
  EXPECT_ERROR(ValueError, func::jacrev([](const Tensor&) { return Tensor(); })(x),
               "[func::jacrev] f returned an undefined tensor");
  EXPECT_ERROR(ValueError, func::vjp([](const Tensor& t) { return t * 2; }, x).second(ones({2}, kFloat64)),
               "[func::vjp] Expected the cotangent to have f's output shape [3], got shape [2]");
  EXPECT_ERROR(ValueError, func::jvp([](const Tensor& t) { return t * 2; }, x, ones({2}, kFloat64)),
               "[func::jvp] Expected tangent 0 to have the shape of primal 0, [3], got [2]");
  EXPECT_ERROR(TypeError, func::jvp([](const Tensor& t) { return t * 2; }, x, ones({3}, kFloat32)),
               "[func::jvp] Expected tangent 0 to have the dtype of primal 0");
  EXPECT_ERROR(ValueError, func::jvp(f, {x, x}, {x}),
               "[func::jvp] Expected primals and tangents to have the same length, got 2 primals and 1 tangents");
  EXPECT_ERROR(ValueError, func::vjp(f, {}), "[func::vjp] Expected primals to be a non-empty list of tensors");
  EXPECT_ERROR(ValueError, func::grad(func::Fn()), "[func::grad] f is empty");
  // An error inside f leaves no transform state behind: a later call is outermost again.
  EXPECT_ERROR(ValueError, func::grad([](const Tensor&) -> Tensor { throw ValueError("boom from f"); })(x),
               "boom from f");
  EXPECT_FALSE(func::grad([](const Tensor& t) { return t.sum(); })(x).requires_grad());
}

}  // namespace
