// The at::linalg_* spellings and their underscore forms against LibTorch 1.13: det/slogdet/inv/solve/
// solve_ex, and for the factorizations only gauge-invariant quantities (the values, U S Vh, Q R,
// V diag(w) V^T, |Q| columns' signs fixed by R's diagonal), over batches, non-contiguous inputs,
// float32/float64, singular inputs and the errors.
#include <string>
#include <tuple>

#include "vs_record.h"

namespace {

// Well-conditioned [n, n] matrices: a ramp's sin plus n on the diagonal; batched as [b, n, n].
vs::Tensor mat(int64_t n, double k = 1.1, vs::ScalarType dt = vs::kFloat64) {
  return ((vs::arange(n * n, vs::kFloat64) * k).sin().reshape({n, n}) + vs::eye(n, vs::kFloat64) * n).to(dt);
}
vs::Tensor batch(vs::ScalarType dt = vs::kFloat64) {
  return vs::stack({mat(3, 1.1, dt), mat(3, 0.7, dt) * -1, mat(3, 2.3, dt)});
}
vs::Tensor sym(vs::ScalarType dt = vs::kFloat64) {
  vs::Tensor a = batch(dt);
  return a + a.transpose(-2, -1);
}
vs::Tensor singular3() {
  return vs::tensor({1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 1.0}, vs::kFloat64).reshape({3, 3});
}

}  // namespace

VS_CASE("linalg_extra.det_inv_solve") {
  for (auto dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string p = dt == vs::kFloat32 ? "f32_" : "f64_";
    vs::Tensor a = batch(dt), at = a.transpose(-2, -1);
    r.tensor(p + "linalg_det", vs::linalg_det(a));
    r.tensor(p + "linalg_det_transposed", vs::linalg_det(at));
    r.tensor(p + "linalg_inv", vs::linalg_inv(a));
    r.tensor(p + "linalg_inv_transposed", vs::linalg_inv(at));
    auto sl = vs::linalg_slogdet(a);
    r.tensor(p + "linalg_slogdet_sign", std::get<0>(sl));
    r.tensor(p + "linalg_slogdet_logabsdet", std::get<1>(sl));
    vs::Tensor bvec = (vs::arange(9, vs::kFloat64) - 4).reshape({3, 3}).to(dt);
    r.tensor(p + "linalg_solve_vec", vs::linalg_solve(a, bvec));
    r.tensor(p + "linalg_solve_mat", vs::linalg_solve(a, bvec.unsqueeze(-1).expand({3, 3, 2}) * 1.5));
    r.tensor(p + "linalg_solve_right", vs::linalg_solve(a, bvec.unsqueeze(-2), false));
    auto se = vs::linalg_solve_ex(at, bvec.unsqueeze(-1));
    r.tensor(p + "linalg_solve_ex_result", std::get<0>(se));
    r.tensor(p + "linalg_solve_ex_info", std::get<1>(se));
  }
  r.tensor("det_singular", vs::linalg_det(singular3()));
  r.tensor("det_empty", vs::linalg_det(vs::zeros({2, 0, 0}, vs::kFloat64)));
  auto sls = vs::linalg_slogdet(singular3());
  r.tensor("slogdet_singular_sign", std::get<0>(sls));
  r.tensor("slogdet_singular_logabsdet", std::get<1>(sls));
  r.tensor("solve_ex_singular_info_transposed",
           std::get<1>(vs::linalg_solve_ex(singular3().t(), vs::ones({3}, vs::kFloat64))));
  // The underscore forms: their first outputs (the LU/pivots/info outputs are implementation detail).
  auto d = vs::_linalg_det(batch());
  r.tensor("_linalg_det", std::get<0>(d));
  r.tensor("_linalg_det_info", std::get<2>(d));
  auto s = vs::_linalg_slogdet(batch());
  r.tensor("_linalg_slogdet_sign", std::get<0>(s));
  r.tensor("_linalg_slogdet_logabsdet", std::get<1>(s));
  r.tensor("_linalg_slogdet_info", std::get<3>(s));
  r.raises("det_not_square", [&] { vs::linalg_det(vs::ones({2, 3}, vs::kFloat64)); });
  r.raises("det_int", [&] { vs::linalg_det(vs::ones({2, 2}, vs::kInt64)); });
  r.raises("inv_singular", [&] { vs::linalg_inv(singular3()); });
  r.raises("solve_singular", [&] { vs::linalg_solve(singular3(), vs::ones({3}, vs::kFloat64)); });
  r.raises("solve_shape", [&] { vs::linalg_solve(batch(), vs::ones({4}, vs::kFloat64)); });
  r.raises("solve_dtype", [&] { vs::linalg_solve(batch(), vs::ones({3}, vs::kFloat32)); });
  r.raises("solve_ex_check_errors", [&] { vs::linalg_solve_ex(singular3(), vs::ones({3}, vs::kFloat64), true, true); });
}

VS_CASE("linalg_extra.check_errors") {
  // No error: returns. A positive info on a matrix op raises; a batched one names the batch.
  vs::_linalg_check_errors(vs::zeros({3}, vs::kInt32), "linalg.inv", false);
  r.scalar("zero_info_ok", 1);
  r.raises("singular_single", [&] { vs::_linalg_check_errors(vs::scalar_tensor(2, vs::kInt32), "linalg.inv", true); });
  r.raises("singular_batched", [&] {
    vs::_linalg_check_errors(vs::tensor({0, 0, 3}, vs::kInt32), "linalg.solve", false);
  });
  r.raises("negative_info", [&] { vs::_linalg_check_errors(vs::scalar_tensor(-1, vs::kInt32), "linalg.inv", true); });
}

VS_CASE("linalg_extra.factorizations") {
  for (auto dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string p = dt == vs::kFloat32 ? "f32_" : "f64_";
    vs::Tensor a = batch(dt).transpose(-2, -1), s = sym(dt);
    // eigh: the eigenvalues, and V diag(w) V^T (which rebuilds s).
    auto eh = vs::linalg_eigh(s);
    r.tensor(p + "linalg_eigh_values", std::get<0>(eh));
    vs::Tensor V = std::get<1>(eh);
    r.tensor(p + "linalg_eigh_rebuilt", V.matmul(std::get<0>(eh).diag_embed()).matmul(V.transpose(-2, -1)));
    r.tensor(p + "linalg_eigh_V_abs_dot", V.abs().sum(-2));
    r.tensor(p + "linalg_eigh_U", std::get<0>(vs::linalg_eigh(s, "U")));
    r.tensor(p + "linalg_eigvalsh", vs::linalg_eigvalsh(s));
    r.tensor(p + "linalg_eigvalsh_U", vs::linalg_eigvalsh(s.triu(), "U"));
    auto e2 = vs::_linalg_eigh(s, "L", false);
    r.tensor(p + "_linalg_eigh_values", std::get<0>(e2));
    auto e3 = vs::_linalg_eigh(s);
    r.tensor(p + "_linalg_eigh_rebuilt",
             std::get<1>(e3).matmul(std::get<0>(e3).diag_embed()).matmul(std::get<1>(e3).transpose(-2, -1)));
    // svd: the singular values, U S Vh, and |U|'s column norms.
    auto sv = vs::linalg_svd(a, false);
    r.tensor(p + "linalg_svd_S", std::get<1>(sv));
    r.tensor(p + "linalg_svd_rebuilt", std::get<0>(sv).matmul(std::get<1>(sv).diag_embed()).matmul(std::get<2>(sv)));
    auto svf = vs::linalg_svd(a.narrow(-1, 0, 2));  // full_matrices: U is [3, 3]
    r.tensor(p + "linalg_svd_full_S", std::get<1>(svf));
    r.tensor(p + "linalg_svd_full_UUt", std::get<0>(svf).matmul(std::get<0>(svf).transpose(-2, -1)));
    r.tensor(p + "linalg_svdvals", vs::linalg_svdvals(a));
    r.tensor(p + "linalg_svdvals_wide", vs::linalg_svdvals(a.narrow(-2, 0, 2)));
    auto us = vs::_linalg_svd(a, false, false);
    r.tensor(p + "_linalg_svd_S_only", std::get<1>(us));
    auto uf = vs::_linalg_svd(a);
    r.tensor(p + "_linalg_svd_rebuilt", std::get<0>(uf).matmul(std::get<1>(uf).diag_embed()).matmul(std::get<2>(uf)));
    // qr: Q R, Q^T Q and |R|'s diagonal.
    auto qr = vs::linalg_qr(a);
    r.tensor(p + "linalg_qr_rebuilt", std::get<0>(qr).matmul(std::get<1>(qr)));
    r.tensor(p + "linalg_qr_QtQ", std::get<0>(qr).transpose(-2, -1).matmul(std::get<0>(qr)));
    r.tensor(p + "linalg_qr_R_diag_abs", std::get<1>(qr).diagonal(0, -2, -1).abs());
    r.tensor(p + "linalg_qr_R_lower", std::get<1>(qr).tril(-1));
    auto qrc = vs::linalg_qr(a.narrow(-1, 0, 2), "complete");
    r.scalar(p + "linalg_qr_complete_Q_cols", static_cast<double>(std::get<0>(qrc).size(-1)));
    r.tensor(p + "linalg_qr_complete_rebuilt", std::get<0>(qrc).matmul(std::get<1>(qrc)));
    auto qrr = vs::linalg_qr(a, "r");
    r.tensor(p + "linalg_qr_r_mode_Q_numel", vs::scalar_tensor(std::get<0>(qrr).numel(), vs::kInt64));
    r.tensor(p + "linalg_qr_r_mode_R_abs_diag", std::get<1>(qrr).diagonal(0, -2, -1).abs());
  }
  r.raises("eigh_not_square", [&] { vs::linalg_eigh(vs::ones({2, 3}, vs::kFloat64)); });
  r.raises("eigh_bad_uplo", [&] { vs::linalg_eigh(sym(), "X"); });
  r.raises("eigvalsh_int", [&] { vs::linalg_eigvalsh(vs::eye(3, vs::kInt64)); });
  r.raises("qr_bad_mode", [&] { vs::linalg_qr(batch(), "full"); });
  r.raises("svd_int", [&] { vs::linalg_svd(vs::eye(3, vs::kInt64)); });
  r.raises("svdvals_1d", [&] { vs::linalg_svdvals(vs::ones({3}, vs::kFloat64)); });
}

// Both factorize a contiguous A as A^T (the LU of the column-major view), so the info for a
// singular A is the first zero pivot of A^T's LU (2 here); a transposed A is factorized as itself.
VS_CASE("linalg_extra.solve_ex_singular_info") {
  r.tensor("solve_ex_singular_info", std::get<1>(vs::linalg_solve_ex(singular3(), vs::ones({3}, vs::kFloat64))));
  r.tensor("solve_ex_singular_info_right",
           std::get<1>(vs::linalg_solve_ex(singular3(), vs::ones({2, 3}, vs::kFloat64), false)));
  r.tensor("solve_ex_singular_info_transposed",
           std::get<1>(vs::linalg_solve_ex(singular3().t().contiguous().t(), vs::ones({3}, vs::kFloat64))));
}

// Edge shapes: empty matrices and batches, broadcast batches in solve, 1x1, and float32 results
// near singular (recorded through gauge-invariant quantities only).
VS_CASE("linalg_extra.edges") {
  r.result("det_1x1", [] { return vs::linalg_det(vs::full({2, 1, 1}, -3.5, vs::kFloat64)); });
  r.result("inv_empty_batch", [] { return vs::linalg_inv(vs::zeros({0, 3, 3}, vs::kFloat64)); });
  r.result("inv_0x0", [] { return vs::linalg_inv(vs::zeros({0, 0}, vs::kFloat64)); });
  r.result("slogdet_negative_det_sign", [] { return std::get<0>(vs::linalg_slogdet(mat(3) * -1)); });
  r.result("slogdet_0x0_logabsdet", [] { return std::get<1>(vs::linalg_slogdet(vs::zeros({0, 0}, vs::kFloat64))); });
  r.result("solve_broadcast_batch", [] {
    return vs::linalg_solve(mat(3), (vs::arange(18, vs::kFloat64) - 9).reshape({2, 3, 3}));
  });
  r.result("solve_batch_broadcast_A", [] {
    return vs::linalg_solve(batch().unsqueeze(0), vs::ones({2, 1, 3, 1}, vs::kFloat64));
  });
  r.result("solve_empty_rhs", [] { return vs::linalg_solve(mat(3), vs::zeros({3, 0}, vs::kFloat64)); });
  r.result("solve_ex_batch_info", [] {
    return std::get<1>(
        vs::linalg_solve_ex(vs::stack({mat(3), vs::zeros({3, 3}, vs::kFloat64)}), vs::ones({2, 3}, vs::kFloat64)));
  });
  r.result("solve_right_shape", [] { return vs::linalg_solve(mat(3), vs::ones({2, 3}, vs::kFloat64), false); });
  r.result("eigvalsh_1x1", [] { return vs::linalg_eigvalsh(vs::full({1, 1}, 2.0, vs::kFloat64)); });
  r.result("eigvalsh_empty", [] { return vs::linalg_eigvalsh(vs::zeros({2, 0, 0}, vs::kFloat64)); });
  r.result("eigvalsh_repeated", [] { return vs::linalg_eigvalsh(vs::eye(4, vs::kFloat64) * 2); });
  r.result("svdvals_zero_matrix", [] { return vs::linalg_svdvals(vs::zeros({3, 2}, vs::kFloat64)); });
  r.result("svdvals_empty", [] { return vs::linalg_svdvals(vs::zeros({3, 0}, vs::kFloat64)); });
  r.result("svdvals_rank1", [] { return vs::linalg_svdvals(vs::ones({4, 3}, vs::kFloat64)); });
  r.result("svd_reduced_wide_rebuilt", [] {
    auto [U, S, Vh] = vs::linalg_svd(mat(3).narrow(0, 0, 2), false);
    return U.matmul(S.diag_embed()).matmul(Vh);
  });
  r.result("qr_wide_reduced_R_shape_rebuilt", [] {
    auto [Q, R] = vs::linalg_qr(mat(4).narrow(0, 0, 2));
    return Q.matmul(R);
  });
  r.result("qr_empty", [] { return std::get<1>(vs::linalg_qr(vs::zeros({0, 3}, vs::kFloat64))); });
  r.result("det_f32_near_singular", [] {
    return vs::linalg_det(vs::tensor({1.0f, 2.0f, 2.0f, 4.0001f}).reshape({2, 2}));
  });
  r.result("inv_noncontig_batch",
           [] { return vs::linalg_inv(batch().transpose(0, 2).transpose(0, 1).contiguous().transpose(-2, -1)); });
}
