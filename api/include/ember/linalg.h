#pragma once
// torch::linalg's spellings (LibTorch 1.13's torch/linalg.h, the same signatures and defaults):
// ember::linalg::inv, solve, cholesky, qr, svd, svdvals, eigh, eigvalsh, det, slogdet, ... over
// the generated operators (linalg_inv, ...; Note [Linear algebra kernels] in
// ember/native/LinalgRules.h). The at:: forms are the generated ember::inverse, ember::det, ...
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/generated/Functions.h"

namespace ember::linalg {

inline Tensor cholesky(const Tensor& self) { return ember::linalg_cholesky(self); }

inline Tensor det(const Tensor& self) { return ember::linalg_det(self); }

// Deprecated in LibTorch in favour of det; kept for code that still calls it.
inline Tensor linalg_det(const Tensor& self) { return ember::linalg_det(self); }

inline std::tuple<Tensor, Tensor> slogdet(const Tensor& input) { return ember::linalg_slogdet(input); }

inline std::tuple<Tensor, Tensor> eigh(const Tensor& self, std::string_view uplo) {
  return ember::linalg_eigh(self, uplo);
}

inline Tensor eigvalsh(const Tensor& self, std::string_view uplo) { return ember::linalg_eigvalsh(self, uplo); }

inline std::tuple<Tensor, Tensor> qr(const Tensor& input, std::string_view mode = "reduced") {
  return ember::linalg_qr(input, mode);
}

inline std::tuple<Tensor, Tensor> solve_ex(const Tensor& input, const Tensor& other, bool left, bool check_errors) {
  return ember::linalg_solve_ex(input, other, left, check_errors);
}

inline Tensor solve(const Tensor& input, const Tensor& other, bool left) {
  return ember::linalg_solve(input, other, left);
}

inline std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& input, bool full_matrices,
                                              std::optional<std::string_view> driver) {
  return ember::linalg_svd(input, full_matrices, driver);
}

inline Tensor svdvals(const Tensor& input, std::optional<std::string_view> driver) {
  return ember::linalg_svdvals(input, driver);
}

inline Tensor inv(const Tensor& input) { return ember::linalg_inv(input); }

// LU with partial pivoting, raising where U is singular (LibTorch's lu_factor over lu_factor_ex).
inline std::tuple<Tensor, Tensor> lu_factor(const Tensor& input, bool pivot = true) {
  auto [LU, pivots, info] = ember::linalg_lu_factor_ex(input, pivot);
  ember::_linalg_check_errors(info, "torch.linalg.lu_factor", input.dim() == 2);
  return {std::move(LU), std::move(pivots)};
}

}  // namespace ember::linalg
