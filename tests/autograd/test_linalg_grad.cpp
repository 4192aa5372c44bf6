// gradcheck and gradgradcheck of the linear algebra derivatives (Note [Linear algebra derivatives]
// in autograd/src/FunctionsManual.h) on well-conditioned float64 inputs: cholesky and eigh through a
// symmetric A = X X^T + nI, svd and eigh through gauge-invariant functions of their vectors, qr in
// its differentiable modes, and the errors where there is no derivative.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;
using autograd::variable_list;

namespace {

Tensor rnd(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, ember::detail::createCPUGenerator(seed), kFloat64).requires_grad_(true);
}

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

// A well-conditioned square batch: random plus 4n on the diagonal (a leaf).
Tensor well_conditioned(std::vector<int64_t> shape, uint64_t seed) {
  const int64_t n = shape.back();
  Tensor x = randn(shape, ember::detail::createCPUGenerator(seed), kFloat64);
  return (x + ember::eye(n, kFloat64) * (4.0 * static_cast<double>(n))).detach().requires_grad_(true);
}

// X -> X X^T + nI: symmetric positive-definite, and differentiable in X.
Tensor spd_of(const Tensor& x) {
  return ember::matmul(x, mT(x)) + ember::eye(x.size(-1), kFloat64) * static_cast<double>(x.size(-1));
}

// Both checks, first and second order.
template <class F>
void check(F fn, const variable_list& inputs) {
  EXPECT_TRUE(autograd::gradcheck(fn, inputs));
  EXPECT_TRUE(autograd::gradgradcheck(fn, inputs));
}

TEST(LinalgGrad, Inverse) {
  check([](const variable_list& x) { return variable_list{linalg::inv(x[0])}; }, {well_conditioned({3, 3}, 1)});
  check([](const variable_list& x) { return variable_list{ember::inverse(x[0])}; }, {well_conditioned({2, 3, 3}, 2)});
  // Non-contiguous input, and the _ex variant's first output.
  check([](const variable_list& x) { return variable_list{std::get<0>(ember::linalg_inv_ex(mT(x[0])))}; },
        {well_conditioned({2, 3, 3}, 3)});
}

TEST(LinalgGrad, Solve) {
  const Tensor A = well_conditioned({3, 3}, 4), Ab = well_conditioned({2, 3, 3}, 5);
  auto solve = [](bool left) {
    return [left](const variable_list& x) { return variable_list{linalg::solve(x[0], x[1], left)}; };
  };
  check(solve(true), {A, rnd({3, 2}, 6)});
  check(solve(true), {Ab, rnd({2, 3}, 7)});    // a batch of vectors
  check(solve(true), {Ab, rnd({3}, 8)});       // one vector, broadcast over A's batch
  check(solve(true), {A, rnd({2, 3, 4}, 9)});  // A broadcast over B's batch
  check(solve(false), {Ab, rnd({4, 3}, 10)});  // XA = B
}

TEST(LinalgGrad, CholeskyOfSymmetricInput) {
  for (bool upper : {false, true}) {
    check([upper](const variable_list& x) { return variable_list{ember::linalg_cholesky(spd_of(x[0]), upper)}; },
          {rnd({3, 3}, 11)});
  }
  check([](const variable_list& x) { return variable_list{linalg::cholesky(spd_of(x[0]))}; }, {rnd({2, 4, 4}, 12)});
  check([](const variable_list& x) { return variable_list{ember::cholesky(spd_of(x[0]), true)}; }, {rnd({3, 3}, 13)});
}

TEST(LinalgGrad, Qr) {
  auto qr = [](std::string mode) {
    return [mode](const variable_list& x) {
      auto [Q, R] = linalg::qr(x[0], mode);
      return variable_list{Q, R};
    };
  };
  check(qr("reduced"), {rnd({4, 3}, 14)});     // tall
  check(qr("reduced"), {rnd({2, 3, 5}, 15)});  // wide
  check(qr("complete"), {rnd({3, 4}, 16)});    // complete with m <= n: the reduced factorization
  check(qr("reduced"), {rnd({3, 3}, 17)});
}

TEST(LinalgGrad, QrWithoutDerivative) {
  const Tensor a = rnd({4, 3}, 18);
  const Tensor r = std::get<1>(linalg::qr(a, "r"));
  try {
    autograd::grad({r.sum()}, {a});
    ADD_FAILURE() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[linalg.qr] The derivative of linalg.qr depends on Q, which is not "
                                         "computed when mode='r'"),
              std::string::npos)
        << e.what();
  }
  auto [Q, R] = linalg::qr(a, "complete");
  EXPECT_THROW(autograd::grad({Q.sum() + R.sum()}, {a}), ValueError);
}

// Gauge-invariant functions of the SVD: S, and U diag(sin S) Vh (each u_i v_i^T is invariant
// under the sign flip of both).
TEST(LinalgGrad, SvdGaugeInvariant) {
  auto fn = [](bool full) {
    return [full](const variable_list& x) {
      auto [U, S, Vh] = linalg::svd(x[0], full, std::nullopt);
      const int64_t k = S.size(-1);
      const Tensor Uk = U.narrow(-1, 0, k), Vhk = Vh.narrow(-2, 0, k);
      return variable_list{S, ember::matmul(Uk * S.sin().unsqueeze(-2), Vhk)};
    };
  };
  check(fn(false), {rnd({4, 3}, 19)});
  check(fn(false), {rnd({2, 3, 5}, 20)});
  check(fn(true), {rnd({3, 4}, 21)});
  check(fn(false), {rnd({3, 3}, 22)});
  check([](const variable_list& x) { return variable_list{linalg::svdvals(x[0], std::nullopt)}; },
        {rnd({2, 5, 3}, 23)});
  // at::svd returns V: U diag(S) V^T is A again.
  check(
      [](const variable_list& x) {
        auto [U, S, V] = ember::svd(x[0]);
        return variable_list{ember::matmul(U * S.unsqueeze(-2), mT(V))};
      },
      {rnd({4, 3}, 24)});
}

TEST(LinalgGrad, SvdvalsWithoutVectorsHasNoDerivative) {
  const Tensor a = rnd({3, 3}, 25);
  const Tensor S = std::get<1>(ember::_linalg_svd(a, false, false));
  EXPECT_THROW(autograd::grad({S.sum()}, {a}), ValueError);
}

// Eigenvalues, and V diag(sin L) V^T (invariant under each eigenvector's sign).
TEST(LinalgGrad, EighOfSymmetricInput) {
  for (const char* uplo : {"L", "U"}) {
    const std::string u = uplo;
    check(
        [u](const variable_list& x) {
          auto [L, V] = linalg::eigh(spd_of(x[0]), u);
          return variable_list{L, ember::matmul(V * L.sin().unsqueeze(-2), mT(V))};
        },
        {rnd({3, 3}, 26)});
  }
  check([](const variable_list& x) { return variable_list{linalg::eigvalsh(spd_of(x[0]), "L")}; },
        {rnd({2, 4, 4}, 27)});
}

TEST(LinalgGrad, Determinants) {
  const Tensor A = rnd({2, 3, 3}, 28);
  check([](const variable_list& x) { return variable_list{linalg::det(x[0])}; }, {A});
  check([](const variable_list& x) { return variable_list{ember::det(mT(x[0]))}; }, {rnd({4, 4}, 29)});
  check(
      [](const variable_list& x) {
        auto [sign, logabsdet] = linalg::slogdet(x[0]);
        return variable_list{logabsdet};
      },
      {A});
  check([](const variable_list& x) { return variable_list{ember::logdet(x[0])}; }, {well_conditioned({3, 3}, 30)});
}

// det is a polynomial: its derivative at a singular matrix is the (finite) cofactor matrix.
TEST(LinalgGrad, DetOfSingularMatrix) {
  const Tensor base = randn({3, 2}, ember::detail::createCPUGenerator(31), kFloat64);
  const Tensor singular = ember::matmul(base, mT(base)).detach().requires_grad_(true);  // rank 2
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& x) { return variable_list{linalg::det(x[0])}; }, {singular}));
  const Tensor zero = ember::zeros({2, 2}, kFloat64).requires_grad_(true);
  const Tensor g = autograd::grad({linalg::det(zero)}, {zero})[0];
  EXPECT_TRUE(ember::equal(g, ember::zeros({2, 2}, kFloat64)));
}

TEST(LinalgGrad, LuFactorHasNoDerivative) {
  const Tensor a = rnd({3, 3}, 32);
  EXPECT_THROW(ember::linalg_lu_factor_ex(a), NotImplementedError);
}

}  // namespace
