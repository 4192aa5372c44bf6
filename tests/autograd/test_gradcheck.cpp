// gradcheck and gradgradcheck (ember/api/Gradcheck.h, Note [gradcheck]) through the autograd
// plugin and the cpu kernels: they pass on correct functions (several inputs and outputs,
// non-contiguous and expanded inputs) and fail, with PyTorch's messages, on custom Functions whose
// backward is wrong in each of the ways they check.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "AutogradTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using autograd::AutogradContext;
using autograd::GradcheckError;
using autograd::GradcheckOptions;
using autograd::variable_list;

namespace {

using agtest::error_of_type;
using agtest::values;

Tensor rnd(std::vector<int64_t> shape, uint64_t seed, bool requires_grad = true) {
  Tensor t = randn(shape, ember::detail::createCPUGenerator(seed), kFloat64);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

struct Cube : autograd::Function<Cube> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * 3 * x * x};
  }
};

// Cube with a wrong derivative: 2x^2 instead of 3x^2.
struct WrongCube : autograd::Function<WrongCube> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * 2 * x * x};
  }
};

// The right first derivative, but nothing of it is differentiable in x: the second is wrong.
struct FlatCube : autograd::Function<FlatCube> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const Tensor x = ctx->get_saved_variables()[0].detach();
    return {g[0] * 3 * x * x};
  }
};

// Ignores the incoming gradient.
struct DropsGrad : autograd::Function<DropsGrad> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {3 * x * x};
  }
};

// Each backward differs from the last by `step`.
double g_drift = 0;
Tensor drifts(const Tensor& x, double step) {
  struct WithStep : autograd::Function<WithStep> {
    static Tensor forward(AutogradContext* ctx, Tensor t, double s) {
      ctx->saved_data["step"] = s;
      return t * 2;
    }
    static variable_list backward(AutogradContext* ctx, variable_list g) {
      g_drift += ctx->saved_data["step"].toDouble();
      return {g[0] * (2 + g_drift), Tensor()};
    }
  };
  return WithStep::apply(x, step);
}

// Undefined output gradients reach backward as they are (materialize_grads off).
template <bool kHandlesUndefined>
struct Twice : autograd::Function<Twice<kHandlesUndefined>> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->set_materialize_grads(false);
    return x * 2;
  }
  static variable_list backward(AutogradContext*, variable_list g) {
    if (kHandlesUndefined && !g[0].defined()) return {Tensor()};
    EMBER_CHECK(g[0].defined(), "[Twice] backward got an undefined gradient");
    return {g[0] * 2};
  }
};

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const GradcheckError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a GradcheckError: ") + e.what();
  }
  return "no error";
}

// ---- passing ------------------------------------------------------------------------------

TEST(AutogradGradcheck, PassesOnCorrectFunctions) {
  const Tensor a = rnd({2, 3}, 1), b = rnd({3, 4}, 2);
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return x.sin() * x.exp(); }, {a}));
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& v) { return v[0].matmul(v[1]).tanh(); }, {a, b}));
  // Several outputs, an input that does not require grad, a broadcast.
  const Tensor c = rnd({1, 3}, 3, /*requires_grad=*/false);
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& v) {
        return variable_list{v[0] * v[1], (v[0] + v[1]).pow(2).sum(), v[2].softmax(0)};
      },
      {a, c, rnd({4}, 4)}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return Cube::apply(x); }, {rnd({5}, 5)}));
  // The identity, a 0-dim input, an empty one, an integer output beside a floating one.
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return x; }, {a}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return x.exp(); }, {rnd({}, 6)}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return x.exp(); }, {rnd({0, 3}, 7)}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& x) { return variable_list{x.argmax(), x.sin()}; }, {a}));
}

TEST(AutogradGradcheck, NonContiguousInputsKeepTheirLayout) {
  const Tensor t = rnd({4, 3}, 6).detach().t();  // [3, 4], transposed
  t.requires_grad_(true);
  ASSERT_FALSE(t.is_contiguous());
  int calls = 0, contiguous_calls = 0;
  EXPECT_TRUE(autograd::gradcheck(
      [&](const Tensor& x) {
        ++calls;
        contiguous_calls += x.is_contiguous();
        return x.exp().sum({0});
      },
      {t}));
  EXPECT_GT(calls, 2 * 12) << "two evaluations per element at least";
  EXPECT_EQ(contiguous_calls, 0) << "the perturbed copies keep the input's strides";
}

TEST(AutogradGradcheck, ExpandedInputsPerturbEachElementAlone) {
  // x has stride 0 in dim 0: perturbing its memory would move 3 logical elements at once.
  Tensor x = rnd({1, 4}, 7, false).expand({3, 4});
  x.requires_grad_(true);
  ASSERT_EQ(x.stride(0), 0);
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& t) { return (t * t).sum(); }, {x}));
}

TEST(AutogradGradcheck, AFunctionOfNoInputIsZero) {
  const Tensor x = rnd({3}, 8);
  EXPECT_TRUE(autograd::gradcheck([](const Tensor&) { return ones({2}, kFloat64); }, {x}));
  // No output requires grad, yet it depends on the input.
  EXPECT_EQ(error_text([&] { autograd::gradcheck([](const Tensor& t) { return t.detach() * 2; }, {x}); }),
            "[gradcheck] Numerical gradient for function expected to be zero");
}

// ---- failing ------------------------------------------------------------------------------

TEST(AutogradGradcheck, AWrongBackwardFailsWithBothJacobians) {
  const Tensor x = rnd({2}, 9);
  const std::string msg =
      error_text([&] { autograd::gradcheck([](const Tensor& t) { return WrongCube::apply(t); }, {x}); });
  EXPECT_HAS(msg, "[gradcheck] Jacobian mismatch for output 0 with respect to input 0,\nnumerical:\n");
  EXPECT_HAS(msg, "\nanalytical:\n");
  // Both Jacobians are printed: diag(3x^2) and diag(2x^2).
  const double x0 = x[0].item<double>();
  std::ostringstream num, ana;
  {
    NoGradGuard no_grad;
    num << (3 * x0 * x0);
    ana << (2 * x0 * x0);
  }
  EXPECT_HAS(msg, num.str().substr(0, 4));
  EXPECT_HAS(msg, ana.str().substr(0, 4));
  EXPECT_FALSE(autograd::gradcheck([](const Tensor& t) { return WrongCube::apply(t); }, {x}, 1e-6, 1e-5, 1e-3,
                                   /*raise_exception=*/false));
  EXPECT_FALSE(autograd::gradcheck([](const Tensor& t) { return WrongCube::apply(t); }, {x},
                                   GradcheckOptions{.raise_exception = false}));
}

TEST(AutogradGradcheck, TheMessageNamesTheOutputAndInputPositions) {
  const Tensor c = rnd({2}, 10, false), x = rnd({2}, 11);
  const std::string msg = error_text([&] {
    autograd::gradcheck(
        [](const variable_list& v) {
          return variable_list{v[0].sin() * v[1], WrongCube::apply(v[1])};
        },
        {c, x});
  });
  EXPECT_HAS(msg, "[gradcheck] Jacobian mismatch for output 1 with respect to input 1,");
}

TEST(AutogradGradcheck, TolerancesAreHonoured) {
  // Off by 1%: fails at rtol 1e-3, passes at rtol 0.05.
  struct Off : autograd::Function<Off> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
    static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2.02}; }
  };
  const Tensor x = rnd({3}, 12);
  auto f = [](const Tensor& t) { return Off::apply(t); };
  EXPECT_FALSE(autograd::gradcheck(f, {x}, GradcheckOptions{.raise_exception = false}));
  EXPECT_TRUE(autograd::gradcheck(f, {x}, 1e-6, 1e-5, 0.05));
  EXPECT_TRUE(autograd::gradcheck(f, {x}, 1e-6, 0.05, 0));
}

TEST(AutogradGradcheck, ABackwardThatIgnoresGradOutputFails) {
  // One element: the Jacobians agree, but a zero grad_output gives a nonzero gradient.
  const Tensor x = rnd({1}, 13);
  EXPECT_EQ(error_text([&] { autograd::gradcheck([](const Tensor& t) { return DropsGrad::apply(t); }, {x}); }),
            "[gradcheck] backward not multiplied by grad_output");
}

TEST(AutogradGradcheck, ANondeterministicBackwardIsNotReentrant) {
  const Tensor x = rnd({2}, 14);
  const std::string msg =
      error_text([&] { autograd::gradcheck([](const Tensor& t) { return drifts(t, 1e-7); }, {x}); });
  EXPECT_HAS(msg,
             "[gradcheck] Backward is not reentrant, i.e., running backward with same input and grad_output "
             "multiple times gives different values, although analytical gradient matches numerical gradient. "
             "The tolerance for nondeterminism was 0.");
  g_drift = 0;
  EXPECT_TRUE(
      autograd::gradcheck([](const Tensor& t) { return drifts(t, 1e-9); }, {x}, GradcheckOptions{.nondet_tol = 1e-6}));
}

TEST(AutogradGradcheck, UndefinedOutputGradientsAreAccepted) {
  const Tensor x = rnd({3}, 15);
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& t) { return Twice<true>::apply(t); }, {x}));
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& t) { return Twice<false>::apply(t); }, {x},
                                  GradcheckOptions{.check_undefined_grad = false}));
  // Several outputs: each made undefined in turn.
  EXPECT_TRUE(autograd::gradcheck([](const Tensor& t) { return variable_list{Twice<true>::apply(t), t.sin()}; }, {x}));
}

// A backward that cannot take undefined output gradients fails the check (a custom Function's
// backward runs with undefined gradients when materialize_grads is off, as LibTorch's CppNode).
TEST(AutogradGradcheck, UndefinedOutputGradientsMustBeAccepted) {
  const Tensor x = rnd({3}, 15);
  const std::string msg =
      error_text([&] { autograd::gradcheck([](const Tensor& t) { return Twice<false>::apply(t); }, {x}); });
  EXPECT_HAS(msg, "[gradcheck] Expected backward function to handle undefined output grads");
  EXPECT_HAS(msg, "[Twice] backward got an undefined gradient");
  EXPECT_FALSE(autograd::gradcheck(
      [](const Tensor& t) {
        return variable_list{t.sin(), Twice<false>::apply(t)};
      },
      {x}, GradcheckOptions{.raise_exception = false}));
}

TEST(AutogradGradcheck, BadArguments) {
  const Tensor x = rnd({2}, 16, false);
  // Not a check failure: raised even with raise_exception = false.
  EXPECT_ERROR(
      ValueError,
      autograd::gradcheck([](const Tensor& t) { return t * 2; }, {x}, GradcheckOptions{.raise_exception = false}),
      "[gradcheck] expects at least one input tensor to require gradient, but none of them have "
      "requires_grad=True");
  EXPECT_ERROR(ValueError, autograd::gradgradcheck([](const Tensor& t) { return t * 2; }, {x}),
               "[gradgradcheck] expects at least one input tensor to require gradient");
  EXPECT_ERROR(ValueError, autograd::gradcheck([](const Tensor& t) { return t * 2; }, {rnd({2}, 17), rnd({2}, 18)}),
               "[gradcheck] fn takes one tensor, but 2 inputs were given");
}

// ---- gradgradcheck ------------------------------------------------------------------------

TEST(AutogradGradcheck, GradgradcheckPassesOnCorrectFunctions) {
  const Tensor a = rnd({2, 3}, 19), b = rnd({3, 2}, 20);
  EXPECT_TRUE(autograd::gradgradcheck([](const Tensor& x) { return x.sin() * x.exp(); }, {a}));
  EXPECT_TRUE(autograd::gradgradcheck([](const variable_list& v) { return v[0].matmul(v[1]).tanh(); }, {a, b}));
  EXPECT_TRUE(autograd::gradgradcheck([](const Tensor& x) { return Cube::apply(x); }, {rnd({4}, 21)}));
  // Given grad_outputs, one of which is not differentiated.
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const Tensor& x) {
        return variable_list{x.pow(3), x.tanh().sum()};
      },
      {rnd({3}, 22)}, {rnd({3}, 23), rnd({}, 24, false)}));
}

TEST(AutogradGradcheck, GradgradcheckCatchesAWrongSecondDerivative) {
  const Tensor x = rnd({3}, 25);
  auto f = [](const Tensor& t) { return FlatCube::apply(t); };
  EXPECT_TRUE(autograd::gradcheck(f, {x})) << "the first derivative is right";
  const std::string msg = error_text([&] { autograd::gradgradcheck(f, {x}); });
  EXPECT_HAS(msg, "[gradgradcheck] Jacobian mismatch for output 0 with respect to input 0,\nnumerical:\n");
  EXPECT_FALSE(autograd::gradgradcheck(f, {x}, {}, 1e-6, 1e-5, 1e-3, /*raise_exception=*/false));
  // gradgradcheck differentiates backward: a consistently wrong backward (2x^2 g, whose derivative
  // is 4x g) passes it, as in PyTorch; gradcheck is what catches it.
  EXPECT_TRUE(autograd::gradgradcheck([](const Tensor& t) { return WrongCube::apply(t); }, {x}));
}

TEST(AutogradGradcheck, GradgradcheckIsReproducibleAndLeavesTheGlobalGeneratorAlone) {
  manual_seed(5);
  const Tensor r1 = randn({4}, kFloat64);
  manual_seed(5);
  // The random grad_outputs show in the printed Jacobians (diag(6 x g)): equal on each run.
  const Tensor x = rnd({3}, 26);
  auto f = [](const Tensor& t) { return FlatCube::apply(t); };
  const std::string first = error_text([&] { autograd::gradgradcheck(f, {x}); });
  EXPECT_HAS(first, "Jacobian mismatch");
  EXPECT_EQ(error_text([&] { autograd::gradgradcheck(f, {x}); }), first);
  const Tensor r2 = randn({4}, kFloat64);
  EXPECT_EQ(values(r1), values(r2));
  EXPECT_EQ(error_text([&] {
              autograd::gradgradcheck(f, {x}, {rnd({3}, 27), rnd({3}, 28)});
            }),
            "not a GradcheckError: [gradgradcheck] fn has 1 outputs that require grad, but 2 grad_outputs were given");
}

}  // namespace
