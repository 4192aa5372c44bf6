// The LAPACK-backed linear algebra operators (plugins/cpu/lapack.cpp): values against LibTorch 1.13
// (printed by a LibTorch program on fixed matrices), identities on random batches in float32 and
// float64 laid out transposed, sliced and expanded (A inv(A) = I, Q^T Q = I with R upper,
// U diag(S) Vh = A, V diag(L) V^T = A, L L^T = A, det = prod of eigenvalues), LibTorch's strides,
// empty batches and 0x0 matrices, the `_ex` info codes and the error texts.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using ember::optest::from_values;
using ember::optest::values;

namespace {

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

Tensor f64(std::vector<int64_t> shape, std::vector<double> v) { return from_values(shape, kFloat64, v); }

// The fixed matrices of the LibTorch reference program.
Tensor spd3() { return f64({3, 3}, {4, 1, 2, 1, 5, 3, 2, 3, 6}); }
Tensor b3() { return f64({3, 3}, {2, -1, 0, 1, 3, 1, 0, 2, 4}); }
Tensor w43() { return f64({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 0}); }

void expect_near(const Tensor& t, const std::vector<double>& ref, double tol, const std::string& what) {
  const std::vector<double> v = values(t.to(kFloat64));
  ASSERT_EQ(v.size(), ref.size()) << what;
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], ref[i], tol) << what << " element " << i;
}

void expect_close(const Tensor& a, const Tensor& b, double tol, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  expect_near(a, values(b.to(kFloat64)), tol, what);
}

Tensor eye_like(const Tensor& a) { return ember::eye(a.size(-1), a.dtype()).expand(a.sizes()); }

// A random batch laid out as a test of strides: contiguous, transposed in memory, every other
// column of a wider matrix, or one matrix expanded (stride 0) over the batch.
enum class Layout { Contiguous, Transposed, Sliced, Expanded };
const Layout kLayouts[] = {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded};
const char* layout_name(Layout l) {
  return l == Layout::Contiguous   ? "contiguous"
         : l == Layout::Transposed ? "transposed"
         : l == Layout::Sliced     ? "sliced"
                                   : "expanded";
}

Tensor laid_out(const Tensor& a, Layout l) {
  switch (l) {
    case Layout::Transposed:
      return mT(mT(a).contiguous());
    case Layout::Sliced: {
      std::vector<int64_t> s(a.sizes().begin(), a.sizes().end());
      s.back() *= 2;
      Tensor wide = ember::ones(s, a.dtype()).slice(-1, 0, std::nullopt, 2);
      wide.copy_(a);
      return wide;
    }
    case Layout::Expanded:
      return a.slice(0, 0, 1).clone().expand(a.sizes());
    default:
      return a;
  }
}

Tensor random(std::vector<int64_t> shape, ScalarType dt, uint64_t seed) {
  return randn(shape, ember::detail::createCPUGenerator(seed), dt);
}

Tensor well_conditioned(std::vector<int64_t> shape, ScalarType dt, uint64_t seed) {
  return random(shape, dt, seed) + ember::eye(shape.back(), dt) * (2.0 * static_cast<double>(shape.back()));
}

Tensor spd(std::vector<int64_t> shape, ScalarType dt, uint64_t seed) {
  const Tensor x = random(shape, dt, seed);
  return ember::matmul(x, mT(x)) + ember::eye(shape.back(), dt) * static_cast<double>(shape.back());
}

double tol(ScalarType dt) { return dt == kFloat32 ? 2e-4 : 1e-10; }

// ---- values against LibTorch ---------------------------------------------------------------------

TEST(CpuLapack, LibTorchValues) {
  expect_near(
      linalg::inv(b3()),
      {0.41666666666666669, 0.16666666666666666, -0.041666666666666657, -0.16666666666666666, 0.33333333333333331,
       -0.083333333333333315, 0.083333333333333315, -0.16666666666666663, 0.29166666666666663},
      1e-14, "inv");
  expect_near(linalg::solve(b3(), f64({3}, {1, 2, 3}), true), {0.625, 0.25, 0.62499999999999989}, 1e-14, "solve");
  expect_near(linalg::solve(b3(), f64({2, 3}, {1, 2, 3, 4, 5, 6}), false),
              {0.33333333333333326, 0.33333333333333343, 0.66666666666666652, 1.3333333333333335, 1.3333333333333333,
               1.1666666666666665},
              1e-14, "solve, left=false");
  expect_near(linalg::cholesky(spd3()), {2, 0, 0, 0.5, 2.179449471770337, 0, 1, 1.1470786693528088, 1.9194297398747862},
              1e-14, "cholesky");
  expect_near(ember::linalg_cholesky(spd3(), true),
              {2, 0.5, 1, 0, 2.179449471770337, 1.1470786693528088, 0, 0, 1.9194297398747862}, 1e-14, "cholesky upper");
  auto [Q, R] = linalg::qr(w43());
  expect_near(Q,
              {-0.073127242412713178, -0.81040290167182838, 0.3900289040736386, -0.29250896965085232,
               -0.46944070523672776, -0.11903479539909932, -0.51189069688899158, -0.12847850880162992,
               -0.76676136823567886, -0.80439966653984385, 0.32613775311183135, 0.49576725956113754},
              1e-13, "Q");
  expect_near(R,
              {-13.674794331177342, -15.356720906669747, -7.0933425140331696, 0, -1.0821843625983578,
               -6.5326380244521509, 0, 0, -7.2117357425304709},
              1e-12, "R");
  expect_near(linalg::svdvals(w43(), std::nullopt), {22.130402972562457, 8.8854202970655649, 0.5427434168134484}, 1e-12,
              "S");
  expect_near(linalg::eigvalsh(spd3(), "L"), {2.1943971674224096, 3.3867701566075494, 9.4188326759700374}, 1e-13,
              "eigvalsh");
  // A non-symmetric input: only the named triangle is read.
  expect_near(linalg::eigvalsh(b3(), "U"), {1.2679491924311228, 3.0000000000000009, 4.7320508075688767}, 1e-13,
              "eigvalsh U");
  expect_near(linalg::eigvalsh(b3(), "L"), {0.85489730879957726, 2.4760236029181337, 5.669079088282289}, 1e-13,
              "eigvalsh L");
  expect_near(linalg::det(b3()), {24}, 1e-12, "det");
  auto [sign, logabsdet] = linalg::slogdet(b3().neg());
  expect_near(sign, {-1}, 0, "slogdet sign");
  expect_near(logabsdet, {3.1780538303479458}, 1e-14, "logabsdet");
  EXPECT_TRUE(std::isnan(ember::logdet(b3().neg()).item().toDouble()));
  expect_near(ember::det(w43().narrow(0, 0, 3)), {-3}, 1e-12, "det of a singular-looking matrix");
  auto [LU, piv, info] = ember::linalg_lu_factor_ex(b3());
  expect_near(LU, {2, -1, 0, 0.5, 3.5, 1, 0, 0.5714285714285714, 3.4285714285714288}, 1e-14, "LU");
  expect_near(piv, {1, 2, 3}, 0, "pivots");
  EXPECT_EQ(piv.dtype(), kInt32);
}

// Singular vectors up to each one's sign (LAPACK's choice, the same as LibTorch's here).
TEST(CpuLapack, LibTorchSingularVectors) {
  auto [U, S, Vh] = linalg::svd(w43(), false, std::nullopt);
  const std::vector<double> u = {-0.14389754171031699, -0.21468241536078617, 0.86453916085882332,  -0.37355680553577003,
                                 -0.33074058270772433, 0.26677956361597532,  -0.62136116205894976, -0.5497198063350669,
                                 -0.42211402418271504, -0.67354221605805142, 0.73643075846134376,  0.0567490472754002};
  const std::vector<double> got = values(U);
  for (size_t i = 0; i < u.size(); ++i) EXPECT_NEAR(std::abs(got[i]), std::abs(u[i]), 1e-12) << i;
  auto [L, V] = linalg::eigh(spd3(), "L");
  const std::vector<double> v = {-0.44122469687346427, -0.81558341928950018,  -0.37435872241603613,
                                 -0.57735026918962562, 0.57735026918962595,   -0.57735026918962551,
                                 0.68701341583377118,  -0.038605088352622774, -0.72561850418639384};
  const std::vector<double> gv = values(V);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(std::abs(gv[i]), std::abs(v[i]), 1e-12) << i;
}

// ---- identities over dtypes, layouts and batches -----------------------------------------------

TEST(CpuLapack, Identities) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (Layout l : kLayouts) {
      const std::string where = std::string(dtype_name(dt)) + " " + layout_name(l);
      const Tensor A = laid_out(well_conditioned({3, 4, 4}, dt, 1), l);
      expect_close(ember::matmul(A, linalg::inv(A)), eye_like(A), tol(dt) * 10, "A inv(A) " + where);
      const Tensor B = laid_out(random({3, 4, 2}, dt, 2), l);
      expect_close(ember::matmul(A, linalg::solve(A, B, true)), B, tol(dt) * 10, "A solve(A, B) " + where);
      const Tensor Bt = laid_out(random({3, 2, 4}, dt, 3), l);
      expect_close(ember::matmul(linalg::solve(A, Bt, false), A), Bt, tol(dt) * 10, "solve(A, B) A " + where);

      const Tensor P = laid_out(spd({3, 4, 4}, dt, 4), l);
      const Tensor L = linalg::cholesky(P);
      expect_close(ember::matmul(L, mT(L)), P, tol(dt) * 20, "L L^T " + where);
      const std::vector<double> lv = values(L);
      for (int64_t b = 0; b < 3; ++b)
        for (int64_t i = 0; i < 4; ++i)
          for (int64_t j = i + 1; j < 4; ++j) EXPECT_EQ(lv[(b * 4 + i) * 4 + j], 0.0) << "L upper " << where;

      for (auto shape : {std::vector<int64_t>{3, 5, 3}, std::vector<int64_t>{3, 3, 5}}) {
        const Tensor M = laid_out(random(shape, dt, 5), l);
        auto [Q, R] = linalg::qr(M);
        const int64_t k = std::min(shape[1], shape[2]);
        expect_close(ember::matmul(mT(Q), Q), ember::eye(k, dt).expand({3, k, k}), tol(dt) * 10, "Q^T Q " + where);
        expect_close(ember::matmul(Q, R), M, tol(dt) * 20, "Q R " + where);
        const std::vector<double> rv = values(R);
        for (int64_t b = 0; b < 3; ++b)
          for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < i && j < shape[2]; ++j)
              EXPECT_EQ(rv[(b * k + i) * shape[2] + j], 0.0) << "R lower " << where;
        auto [Qc, Rc] = linalg::qr(M, "complete");
        expect_close(ember::matmul(Qc, Rc), M, tol(dt) * 20, "complete Q R " + where);
        EXPECT_EQ(Qc.size(-1), shape[1]);

        auto [U, S, Vh] = linalg::svd(M, false, std::nullopt);
        expect_close(ember::matmul(U * S.unsqueeze(-2), Vh), M, tol(dt) * 50, "U S Vh " + where);
        expect_close(linalg::svdvals(M, std::nullopt), S, tol(dt) * 10, "svdvals " + where);
        auto [Uf, Sf, Vhf] = linalg::svd(M, true, std::nullopt);
        expect_close(ember::matmul(mT(Uf), Uf), ember::eye(shape[1], dt).expand({3, shape[1], shape[1]}), tol(dt) * 10,
                     "full U " + where);
        expect_close(ember::matmul(Vhf, mT(Vhf)), ember::eye(shape[2], dt).expand({3, shape[2], shape[2]}),
                     tol(dt) * 10, "full Vh " + where);
      }

      auto [ev, V] = linalg::eigh(P, "L");
      expect_close(ember::matmul(V * ev.unsqueeze(-2), mT(V)), P, tol(dt) * 50, "V L V^T " + where);
      auto [evu, Vu] = linalg::eigh(P, "U");
      expect_close(evu, ev, tol(dt) * 20, "eigh U " + where);
      expect_close(linalg::eigvalsh(P, "L"), ev, tol(dt) * 10, "eigvalsh " + where);
      // det = prod of the eigenvalues; slogdet and logdet agree.
      expect_close(linalg::det(P), ember::prod(ev, -1), tol(dt) * 1e4, "det " + where);
      auto [sign, lad] = linalg::slogdet(P);
      expect_close(sign, ember::ones({3}, dt), 0, "sign " + where);
      expect_close(lad, ember::logdet(P), tol(dt) * 10, "logdet " + where);
    }
  }
}

// LibTorch's layouts: column-major matrices (batched_matrix_contiguous_strides).
TEST(CpuLapack, LibTorchStrides) {
  const Tensor A = well_conditioned({2, 3, 3}, kFloat64, 6);
  EXPECT_EQ(linalg::inv(A).strides(), IntArrayRef({9, 1, 3}));
  EXPECT_EQ(std::get<1>(ember::linalg_inv_ex(A)).strides(), IntArrayRef({1}));
  EXPECT_EQ(linalg::solve(A, random({2, 3, 2}, kFloat64, 7), true).strides(), IntArrayRef({6, 1, 3}));
  EXPECT_EQ(linalg::solve(A, random({2, 3}, kFloat64, 8), true).strides(), IntArrayRef({1, 2}));
  EXPECT_EQ(linalg::solve(A, random({2, 4, 3}, kFloat64, 9), false).strides(), IntArrayRef({12, 3, 1}));
  const Tensor M = random({2, 4, 3}, kFloat64, 10);
  auto [Q, R] = linalg::qr(M);
  EXPECT_EQ(Q.strides(), IntArrayRef({12, 1, 4}));
  EXPECT_EQ(R.strides(), IntArrayRef({9, 1, 3}));
  auto [Qr, Rr] = linalg::qr(M, "r");
  EXPECT_EQ(Qr.sizes(), IntArrayRef({0}));
  auto [U, S, Vh] = linalg::svd(M, true, std::nullopt);
  EXPECT_EQ(U.strides(), IntArrayRef({16, 1, 4}));
  EXPECT_EQ(S.strides(), IntArrayRef({3, 1}));
  EXPECT_EQ(Vh.strides(), IntArrayRef({9, 1, 3}));
  auto [Us, Ss, V] = ember::svd(M);
  EXPECT_EQ(V.strides(), IntArrayRef({9, 3, 1}));  // Vh transposed
  auto [Un, Sn, Vn] = ember::svd(M, true, false);  // zeros of the full shapes
  EXPECT_EQ(Un.sizes(), IntArrayRef({2, 4, 4}));
  EXPECT_EQ(Vn.strides(), IntArrayRef({9, 1, 3}));
  EXPECT_TRUE(ember::equal(Un, ember::zeros({2, 4, 4}, kFloat64)));
  auto [w, V2] = linalg::eigh(spd({2, 3, 3}, kFloat64, 11), "L");
  EXPECT_EQ(V2.strides(), IntArrayRef({9, 1, 3}));
  EXPECT_EQ(w.strides(), IntArrayRef({3, 1}));
  auto [d, LU, piv] = ember::_linalg_det(A);
  EXPECT_EQ(LU.strides(), IntArrayRef({9, 1, 3}));
  EXPECT_EQ(piv.strides(), IntArrayRef({3, 1}));
}

TEST(CpuLapack, EmptyBatchesAndZeroByZero) {
  EXPECT_EQ(linalg::inv(ember::ones({0, 3, 3}, kFloat64)).sizes(), IntArrayRef({0, 3, 3}));
  EXPECT_EQ(linalg::inv(ember::ones({0, 0}, kFloat64)).sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(linalg::det(ember::ones({0, 0}, kFloat64)).item().toDouble(), 1.0);
  auto [sign, lad] = linalg::slogdet(ember::ones({0, 0}, kFloat64));
  EXPECT_EQ(sign.item().toDouble(), 1.0);
  EXPECT_EQ(lad.item().toDouble(), 0.0);
  EXPECT_EQ(linalg::det(ember::ones({0, 2, 2}, kFloat32)).sizes(), IntArrayRef({0}));
  // No singular values: the full bases are identities (LibTorch's).
  auto [U, S, Vh] = linalg::svd(ember::ones({0, 3}, kFloat64), true, std::nullopt);
  EXPECT_EQ(U.sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(S.sizes(), IntArrayRef({0}));
  EXPECT_TRUE(ember::equal(Vh, ember::eye(3, kFloat64)));
  auto [Q, R] = linalg::qr(ember::ones({3, 0}, kFloat64), "complete");
  EXPECT_TRUE(ember::equal(Q, ember::eye(3, kFloat64)));
  EXPECT_EQ(R.sizes(), IntArrayRef({3, 0}));
  auto [w, V] = linalg::eigh(ember::ones({0, 0}, kFloat64), "L");
  EXPECT_EQ(w.sizes(), IntArrayRef({0}));
  EXPECT_EQ(linalg::cholesky(ember::ones({2, 0, 0}, kFloat64)).sizes(), IntArrayRef({2, 0, 0}));
  EXPECT_EQ(linalg::solve(ember::ones({0, 0}, kFloat64), ember::ones({0, 2}, kFloat64), true).sizes(),
            IntArrayRef({0, 2}));
}

// A batch large enough to run threaded over its matrices gives each matrix's own result.
TEST(CpuLapack, LargeBatchMatchesOneByOne) {
  const Tensor A = well_conditioned({600, 4, 4}, kFloat64, 12);
  const Tensor inv = linalg::inv(A);
  const Tensor det = linalg::det(A);
  for (int64_t b : {0, 299, 599}) {
    expect_close(inv.select(0, b), linalg::inv(A.select(0, b)), 0, "inv of item " + std::to_string(b));
    expect_close(det.select(0, b), linalg::det(A.select(0, b)), 0, "det of item " + std::to_string(b));
  }
  expect_close(ember::matmul(A, inv), eye_like(A), 1e-12, "A inv(A)");
}

// ---- info codes and errors (LibTorch's texts) ----------------------------------------------------

TEST(CpuLapack, InfoCodes) {
  Tensor S = ember::zeros({3, 3}, kFloat64);
  S.select(0, 0).select(0, 0).fill_(1);
  S.select(0, 1).select(0, 1).fill_(1);
  const Tensor batch = ember::stack({ember::eye(3, kFloat64), S});
  expect_near(std::get<1>(ember::linalg_inv_ex(batch)), {0, 3}, 0, "inv info");
  const Tensor npd = ember::stack({ember::eye(3, kFloat64), ember::eye(3, kFloat64).neg()});
  auto [L, info] = ember::linalg_cholesky_ex(npd);
  expect_near(info, {0, 1}, 0, "cholesky info");
  EXPECT_EQ(info.dtype(), kInt32);
  expect_near(std::get<1>(ember::linalg_solve_ex(S, ember::ones({3}, kFloat64))), {3}, 0, "solve info");
  // As LibTorch, a contiguous A is factorized as A^T: its info is A^T's first zero pivot (2 here),
  // a column-major A's is A's own (3); left = false solves with the same factorization.
  const Tensor R = ember::tensor({1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 1.0}, kFloat64).reshape({3, 3});
  expect_near(std::get<1>(ember::linalg_solve_ex(R, ember::ones({3}, kFloat64))), {2}, 0, "solve info of A^T");
  expect_near(std::get<1>(ember::linalg_solve_ex(R, ember::ones({2, 3}, kFloat64), false)), {2}, 0, "right info");
  expect_near(std::get<1>(ember::linalg_solve_ex(R.t().contiguous().t(), ember::ones({3}, kFloat64))), {3}, 0,
              "solve info of a column-major A");
  expect_near(std::get<2>(ember::linalg_lu_factor_ex(S)), {3}, 0, "lu info");
  expect_near(linalg::det(S), {0}, 0, "singular det");
  auto [sign, lad] = linalg::slogdet(S);
  expect_near(sign, {0}, 0, "singular sign");
  EXPECT_EQ(lad.item().toDouble(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ember::logdet(S).item().toDouble(), -std::numeric_limits<double>::infinity());
}

TEST(CpuLapack, Errors) {
  Tensor S = ember::zeros({3, 3}, kFloat64);
  S.select(0, 0).select(0, 0).fill_(1);
  S.select(0, 1).select(0, 1).fill_(1);
  EXPECT_ERROR(ValueError, linalg::inv(S),
               "[linalg.inv] The diagonal element 3 is zero, the inversion could not be completed because the input "
               "matrix is singular.");
  EXPECT_ERROR(ValueError, ember::inverse(ember::stack({ember::eye(3, kFloat64), S})),
               "[linalg.inv] (Batch element 1): The diagonal element 3 is zero");
  EXPECT_ERROR(ValueError, ember::linalg_inv_ex(S, true), "[linalg.inv_ex] The diagonal element 3 is zero");
  EXPECT_ERROR(TypeError, linalg::inv(ember::ones({3, 3}, kInt64)),
               "[linalg.inv] Expected a floating point or complex tensor as input. Got Long");
  EXPECT_ERROR(TypeError, linalg::inv(ember::ones({3, 3}, kFloat16)),
               "[linalg.inv] Low precision dtypes not supported. Got Half");
  EXPECT_ERROR(ValueError, linalg::inv(ember::ones({3, 4}, kFloat64)),
               "[linalg.inv] A must be batches of square matrices, but they are 3 by 4 matrices");
  EXPECT_ERROR(ValueError, linalg::inv(ember::ones({3}, kFloat64)),
               "[linalg.inv] The input tensor A must have at least 2 dimensions.");
  EXPECT_ERROR(ValueError, linalg::solve(S, ember::ones({3}, kFloat64), true),
               "[torch.linalg.solve] The solver failed because the input matrix is singular.");
  EXPECT_ERROR(TypeError, linalg::solve(ember::eye(3, kFloat64), ember::ones({3}, kFloat32), true),
               "[linalg.solve] Expected A and B to have the same dtype, but found A of type Double and B of type "
               "Float instead");
  EXPECT_ERROR(ValueError, linalg::solve(ember::eye(3, kFloat64), ember::ones({4, 2}, kFloat64), true),
               "[linalg.solve] Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)");
  EXPECT_ERROR(ValueError, linalg::cholesky(ember::eye(3, kFloat64).neg()),
               "[linalg.cholesky] The factorization could not be completed because the input is not "
               "positive-definite (the leading minor of order 1 is not positive-definite).");
  EXPECT_ERROR(ValueError, ember::cholesky(ember::eye(3, kFloat64).neg()),
               "[cholesky] The factorization could not be completed");
  EXPECT_ERROR(ValueError, linalg::qr(ember::ones({3, 3}, kFloat64), "bad"),
               "[linalg.qr] qr received unrecognized mode 'bad' but expected one of 'reduced' (default), 'r', or "
               "'complete'");
  EXPECT_ERROR(ValueError, linalg::eigh(ember::ones({3, 3}, kFloat64), "X"),
               "[linalg.eigh] Expected UPLO argument to be 'L' or 'U', but got X");
  const Tensor nan = ember::full({3, 3}, std::numeric_limits<double>::quiet_NaN(), kFloat64);
  EXPECT_ERROR(ValueError, linalg::svd(nan, true, std::nullopt),
               "[linalg.svd] The algorithm failed to converge because the input matrix contained non-finite values.");
  EXPECT_ERROR(ValueError, linalg::eigh(nan, "L"),
               "[linalg.eigh] The algorithm failed to converge because the input matrix is ill-conditioned or has too "
               "many repeated eigenvalues (error code: ");
  EXPECT_ERROR(ValueError, linalg::det(ember::ones({3, 4}, kFloat64)),
               "[linalg.det] A must be batches of square matrices, but they are 3 by 4 matrices");
  EXPECT_ERROR(TypeError, ember::logdet(ember::ones({3, 3}, kInt64)),
               "[logdet] Expected a floating point or complex tensor as input. Got Long");
  EXPECT_ERROR(ValueError, linalg::lu_factor(S), "[torch.linalg.lu_factor] U[3,3] is zero");
}

}  // namespace
