// torch::linalg through LAPACK: inv, solve, cholesky, qr, svd, eigh, det, slogdet and their at::
// spellings, in float32 and float64, batched, non-contiguous, empty, with LibTorch's strides and
// errors. Singular vectors are recorded as absolute values and through gauge-invariant products
// (each vector's sign is LAPACK's choice).
#include <string>

#include "vs_record.h"

namespace {
// Deterministic full-rank values: a sine of a quadratic ramp (a linear one gives rank 2).
vs::Tensor ramp(int64_t b, int64_t m, int64_t n) {
  vs::Tensor k = vs::arange(b * m * n, vs::kFloat64).reshape({b, m, n});
  return (k * 0.71).sin() + (k * k * 0.013).cos();
}
// Well-conditioned square matrices (a dominant diagonal).
vs::Tensor square(int64_t b, int64_t n, vs::ScalarType t) {
  return (ramp(b, n, n) + vs::eye(n, vs::kFloat64) * (2.0 * static_cast<double>(n))).to(t);
}
// Symmetric positive-definite, with distinct eigenvalues: X X^T + nI.
vs::Tensor spd(int64_t b, int64_t n, vs::ScalarType t) {
  vs::Tensor x = ramp(b, n, n);
  return (vs::matmul(x, x.transpose(-2, -1)) + vs::eye(n, vs::kFloat64) * static_cast<double>(n)).to(t);
}
vs::Tensor rect(int64_t b, int64_t m, int64_t n, vs::ScalarType t) { return ramp(b, m, n).to(t); }
vs::Tensor singular3() {
  vs::Tensor s = vs::zeros({3, 3}, vs::kFloat64);
  s.select(0, 0).select(0, 0).fill_(1);
  s.select(0, 1).select(0, 1).fill_(1);
  return s;
}
const vs::ScalarType kFloats[] = {vs::kFloat32, vs::kFloat64};
}  // namespace

VS_CASE("linalg.inv") {
  for (vs::ScalarType t : kFloats) {
    const std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor a = square(2, 4, t);
    r.tensor(n + ".batched", vs::linalg::inv(a));
    r.tensor(n + ".matrix", vs::linalg::inv(a.select(0, 1)));
    r.tensor(n + ".transposed", vs::linalg::inv(a.transpose(-2, -1)));
    r.tensor(n + ".inverse", vs::inverse(a));
    r.tensor(n + ".method", a.inverse());
    auto [inv, info] = vs::linalg_inv_ex(a);
    r.tensor(n + ".ex", inv);
    r.tensor(n + ".ex_info", info);
  }
  r.tensor("empty_batch", vs::linalg::inv(vs::ones({0, 3, 3}, vs::kFloat64)));
  r.tensor("0x0", vs::linalg::inv(vs::ones({0, 0}, vs::kFloat64)));
  r.tensor("singular_info", std::get<1>(vs::linalg_inv_ex(vs::stack({vs::eye(3, vs::kFloat64), singular3()}))));
  r.raises("singular", [] { vs::linalg::inv(singular3()); });
  r.raises("singular_batch", [] { vs::inverse(vs::stack({vs::eye(3, vs::kFloat64), singular3()})); });
  r.raises("int", [] { vs::linalg::inv(vs::ones({3, 3}, vs::kInt64)); });
  r.raises("half", [] { vs::linalg::inv(vs::ones({3, 3}, vs::kFloat16)); });
  r.raises("non_square", [] { vs::linalg::inv(vs::ones({3, 4}, vs::kFloat64)); });
  r.raises("1d", [] { vs::linalg::inv(vs::ones({3}, vs::kFloat64)); });
}

VS_CASE("linalg.solve") {
  for (vs::ScalarType t : kFloats) {
    const std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor a = square(2, 3, t);
    r.tensor(n + ".matrix_b", vs::linalg::solve(a, rect(2, 3, 2, t), true));
    r.tensor(n + ".vector_b", vs::linalg::solve(a, rect(1, 2, 3, t).squeeze(0), true));
    r.tensor(n + ".1d_b", vs::linalg::solve(a, rect(1, 1, 3, t).reshape({3}), true));
    r.tensor(n + ".broadcast_a", vs::linalg::solve(a.select(0, 0), rect(4, 3, 2, t).reshape({2, 2, 3, 2}), true));
    r.tensor(n + ".left_false", vs::linalg::solve(a, rect(2, 4, 3, t), false));
    r.tensor(n + ".transposed", vs::linalg::solve(a.transpose(-2, -1), rect(2, 2, 3, t).transpose(-2, -1), true));
    auto [x, info] = vs::linalg::solve_ex(a, rect(2, 3, 2, t), true, false);
    r.tensor(n + ".ex", x);
    r.tensor(n + ".ex_info", info);
  }
  r.tensor("0x0", vs::linalg::solve(vs::ones({0, 0}, vs::kFloat64), vs::ones({0, 2}, vs::kFloat64), true));
  r.tensor("singular_info", std::get<1>(vs::linalg::solve_ex(singular3(), vs::ones({3}, vs::kFloat64), true, false)));
  r.raises("singular", [] { vs::linalg::solve(singular3(), vs::ones({3}, vs::kFloat64), true); });
  r.raises("dtypes", [] { vs::linalg::solve(vs::eye(3, vs::kFloat64), vs::ones({3}, vs::kFloat32), true); });
  r.raises("shapes", [] { vs::linalg::solve(vs::eye(3, vs::kFloat64), vs::ones({4, 2}, vs::kFloat64), true); });
  r.raises("int", [] { vs::linalg::solve(vs::ones({3, 3}, vs::kInt64), vs::ones({3}, vs::kInt64), true); });
}

VS_CASE("linalg.cholesky") {
  for (vs::ScalarType t : kFloats) {
    const std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor p = spd(2, 4, t);
    r.tensor(n + ".lower", vs::linalg::cholesky(p));
    r.tensor(n + ".upper", vs::linalg_cholesky(p, true));
    r.tensor(n + ".at_upper", vs::cholesky(p, true));
    r.tensor(n + ".method", p.cholesky());
    r.tensor(n + ".transposed", vs::linalg::cholesky(p.transpose(-2, -1)));
    auto [l, info] = vs::linalg_cholesky_ex(p);
    r.tensor(n + ".ex_info", info);
  }
  vs::Tensor npd = vs::stack({vs::eye(3, vs::kFloat64), vs::eye(3, vs::kFloat64).neg()});
  r.tensor("not_pd_info", std::get<1>(vs::linalg_cholesky_ex(npd)));
  r.tensor("empty", vs::linalg::cholesky(vs::ones({2, 0, 0}, vs::kFloat64)));
  r.raises("not_pd", [&] { vs::linalg::cholesky(npd); });
  r.raises("at_not_pd", [] { vs::cholesky(vs::eye(3, vs::kFloat64).neg()); });
  r.raises("non_square", [] { vs::linalg::cholesky(vs::ones({3, 4}, vs::kFloat64)); });
}

VS_CASE("linalg.qr") {
  for (vs::ScalarType t : kFloats) {
    const std::string n = vs_test::vs_dtype_name(t);
    for (auto [m, k] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}, {4, 4}}) {
      const std::string s = n + "." + std::to_string(m) + "x" + std::to_string(k);
      vs::Tensor a = rect(2, m, k, t);
      for (const char* mode : {"reduced", "complete", "r"}) {
        auto [q, rr] = vs::linalg::qr(a, mode);
        r.tensor(s + "." + mode + ".Q", q);
        r.tensor(s + "." + mode + ".R", rr);
      }
    }
    auto [q, rr] = vs::linalg::qr(rect(1, 4, 3, t).select(0, 0).transpose(0, 1));
    r.tensor(n + ".transposed.Q", q);
    r.tensor(n + ".transposed.R", rr);
  }
  auto [q0, r0] = vs::linalg::qr(vs::ones({3, 0}, vs::kFloat64), "complete");
  r.tensor("no_columns.Q", q0);
  r.tensor("no_columns.R", r0);
  r.raises("mode", [] { vs::linalg::qr(vs::ones({3, 3}, vs::kFloat64), "bad"); });
  r.raises("int", [] { vs::linalg::qr(vs::ones({3, 3}, vs::kInt64)); });
}

VS_CASE("linalg.svd") {
  for (vs::ScalarType t : kFloats) {
    const std::string n = vs_test::vs_dtype_name(t);
    for (auto [m, k] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}}) {
      const std::string s = n + "." + std::to_string(m) + "x" + std::to_string(k);
      vs::Tensor a = rect(2, m, k, t);
      for (bool full : {false, true}) {
        const std::string f = s + (full ? ".full" : ".reduced");
        auto [u, sv, vh] = vs::linalg::svd(a, full, vs::none);
        r.tensor(f + ".S", sv);
        r.tensor(f + ".absU", u.abs());
        r.tensor(f + ".absVh", vh.abs());
        const int64_t kk = sv.size(-1);
        r.tensor(f + ".USVh", vs::matmul(u.narrow(-1, 0, kk) * sv.unsqueeze(-2), vh.narrow(-2, 0, kk)));
      }
      r.tensor(s + ".svdvals", vs::linalg::svdvals(a, vs::none));
      auto [u, sv, v] = vs::svd(a);
      r.tensor(s + ".at_absV", v.abs());
      auto [un, sn, vn] = vs::svd(a, true, false);
      r.tensor(s + ".at_no_uv.U", un);
      r.tensor(s + ".at_no_uv.V", vn);
    }
  }
  auto [u0, s0, v0] = vs::linalg::svd(vs::ones({0, 3}, vs::kFloat64), true, vs::none);
  r.tensor("no_rows.U", u0);
  r.tensor("no_rows.Vh", v0);
  r.raises("nan", [] { vs::linalg::svd(vs::full({3, 3}, NAN, vs::kFloat64), true, vs::none); });
  r.raises("1d", [] { vs::linalg::svd(vs::ones({3}, vs::kFloat64), true, vs::none); });
}

VS_CASE("linalg.eigh") {
  for (vs::ScalarType t : kFloats) {
    const std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor p = spd(2, 4, t);
    for (const char* uplo : {"L", "U"}) {
      auto [w, v] = vs::linalg::eigh(p, uplo);
      r.tensor(n + "." + uplo + ".values", w);
      r.tensor(n + "." + uplo + ".absV", v.abs());
      r.tensor(n + "." + uplo + ".VLVt", vs::matmul(v * w.unsqueeze(-2), v.transpose(-2, -1)));
    }
    // Not symmetric: only the named triangle is read.
    r.tensor(n + ".eigvalsh_U", vs::linalg::eigvalsh(square(2, 3, t), "U"));
    r.tensor(n + ".eigvalsh_L", vs::linalg::eigvalsh(square(2, 3, t), "L"));
  }
  r.raises("uplo", [] { vs::linalg::eigh(vs::ones({3, 3}, vs::kFloat64), "X"); });
  r.raises("non_square", [] { vs::linalg::eigh(vs::ones({3, 4}, vs::kFloat64), "L"); });
}

VS_CASE("linalg.det") {
  for (vs::ScalarType t : kFloats) {
    const std::string n = vs_test::vs_dtype_name(t);
    // Positive determinants, then negative ones (the first row negated).
    vs::Tensor flip = vs::eye(4, vs::kFloat64);
    flip.select(0, 0).select(0, 0).fill_(-1);
    vs::Tensor a = vs::cat({square(2, 4, t), vs::matmul(flip.to(t), square(2, 4, t))}, 0);
    r.tensor(n + ".det", vs::linalg::det(a));
    r.tensor(n + ".at_det", vs::det(a.transpose(-2, -1)));
    r.tensor(n + ".method", a.det());
    auto [sign, lad] = vs::linalg::slogdet(a);
    r.tensor(n + ".sign", sign);
    r.tensor(n + ".logabsdet", lad);
    auto [sign2, lad2] = a.slogdet();
    r.tensor(n + ".method_logabsdet", lad2);
    r.tensor(n + ".logdet", vs::logdet(a));
    auto [lu, piv, info] = vs::linalg_lu_factor_ex(a);
    r.tensor(n + ".LU", lu);
    r.tensor(n + ".pivots", piv);
  }
  r.tensor("singular", vs::linalg::det(singular3()));
  auto [s0, l0] = vs::linalg::slogdet(singular3());
  r.tensor("singular.sign", s0);
  r.tensor("singular.logabsdet", l0);
  r.tensor("singular.logdet", vs::logdet(singular3()));
  r.tensor("0x0", vs::linalg::det(vs::ones({0, 0}, vs::kFloat64)));
  r.tensor("empty_batch", vs::linalg::det(vs::ones({0, 2, 2}, vs::kFloat32)));
  r.raises("int", [] { vs::linalg::det(vs::ones({3, 3}, vs::kInt64)); });
  r.raises("logdet_int", [] { vs::logdet(vs::ones({3, 3}, vs::kInt64)); });
  r.raises("1d", [] { vs::det(vs::ones({3}, vs::kFloat64)); });
}
