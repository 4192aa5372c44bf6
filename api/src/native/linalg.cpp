// matmul: the product of any two tensors of at least one dimension, folded onto mm and bmm; then
// the torch.linalg composites over the LAPACK kernels.
#include <limits>
#include <tuple>

#include "Composite.h"
#include "ember/core/LocalState.h"
#include "ember/native/LinalgRules.h"

namespace ember::native {

Tensor matmul(const Tensor& self, const Tensor& other) {
  check_defined("matmul", self, "self");
  check_defined("matmul", other, "other");
  const int64_t d1 = self.dim(), d2 = other.dim();
  EMBER_CHECK(d1 >= 1 && d2 >= 1, "[matmul] both arguments need to be at least 1-D, but got shapes {} and {}",
              self.sizes(), other.sizes());
  const int64_t k1 = self.size(-1), k2 = d2 == 1 ? other.size(0) : other.size(-2);
  EMBER_CHECK(k1 == k2, "[matmul] shapes cannot be multiplied ({} and {})", self.sizes(), other.sizes());
  if (d1 == 1 && d2 == 1) return ember::mm(self.unsqueeze(0), other.unsqueeze(1)).reshape(IntArrayRef{});
  if (d1 == 2 && d2 == 1) return ember::mm(self, other.unsqueeze(1)).reshape({self.size(0)});
  if (d1 == 1 && d2 == 2) return ember::mm(self.unsqueeze(0), other).reshape({other.size(1)});
  if (d1 == 2 && d2 == 2) return ember::mm(self, other);
  if (d1 >= 3 && d2 <= 2) {
    // Fold self's batch into its rows: one mm.
    std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
    const Tensor folded = self.reshape({-1, k1});
    if (d2 == 1) return ember::mm(folded, other.unsqueeze(1)).reshape(shape);
    shape.push_back(other.size(1));
    return ember::mm(folded, other).reshape(shape);
  }
  // Batched: broadcast the batch dimensions, then one bmm.
  const int64_t n = d1 > 1 ? self.size(-2) : 1;
  const int64_t p = d2 > 1 ? other.size(-1) : 1;
  const Tensor a = d1 == 1 ? self.unsqueeze(0) : self;
  const Tensor b = d2 == 1 ? other.unsqueeze(1) : other;
  const IntArrayRef ab(a.sizes().data(), a.sizes().size() - 2);
  const IntArrayRef bb(b.sizes().data(), b.sizes().size() - 2);
  const DimVector batch = broadcast_shapes(ab, bb, "matmul");
  int64_t nb = 1;
  for (int64_t x : batch) nb *= x;
  std::vector<int64_t> ea(batch.begin(), batch.end()), eb(batch.begin(), batch.end());
  ea.push_back(n), ea.push_back(k1);
  eb.push_back(k1), eb.push_back(p);
  const Tensor a3 = a.expand(ea).reshape({nb, n, k1});
  const Tensor b3 = b.expand(eb).reshape({nb, k1, p});
  std::vector<int64_t> shape(batch.begin(), batch.end());
  if (d1 > 1) shape.push_back(n);
  if (d2 > 1) shape.push_back(p);
  return ember::bmm(a3, b3).reshape(shape);
}

}  // namespace ember::native

// ---- torch.linalg over the LAPACK kernels (Note [Linear algebra kernels] in LinalgRules.h) -------------
// The raising spellings run the `_ex` kernel, then _linalg_check_errors under the API name LibTorch
// reports; the spellings that only select outputs are LibTorch's decompositions.

namespace ember::native {

namespace {
// The values-only spellings keep the vectors when the input will be differentiated: their
// derivatives need them (LibTorch's _may_require_fw_or_bw_grad).
bool may_require_grad(const Tensor& A) { return GradMode::is_enabled() && A.requires_grad(); }
}  // namespace

Tensor linalg_inv(const Tensor& A) {
  auto [result, info] = ember::linalg_inv_ex(A);
  ember::_linalg_check_errors(info, "linalg.inv", A.dim() == 2);
  return result;
}

Tensor inverse(const Tensor& self) { return ember::linalg_inv(self); }

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  auto [result, info] = ember::linalg_solve_ex(A, B, left);
  ember::_linalg_check_errors(info, "torch.linalg.solve", A.dim() == 2);
  return result;
}

Tensor linalg_cholesky(const Tensor& self, bool upper) {
  auto [L, info] = ember::linalg_cholesky_ex(self, upper);
  ember::_linalg_check_errors(info, "linalg.cholesky", self.dim() == 2);
  return L;
}

// The older spelling: its own name in its errors.
Tensor cholesky(const Tensor& self, bool upper) {
  check_square_floating("cholesky", self);
  auto [L, info] = ember::linalg_cholesky_ex(self, upper);
  ember::_linalg_check_errors(info, "cholesky", self.dim() == 2);
  return L;
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices,
                                              std::optional<std::string_view> driver) {
  return ember::_linalg_svd(A, full_matrices, true, driver);
}

Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(ember::_linalg_svd(A, false, may_require_grad(A), driver));
}

// U, S, V (not V^H); without compute_uv, U and V are zeros of the full shapes, as LibTorch's.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  check_is_matrix("linalg.svd", self, "A");
  Tensor U, S, Vh;
  if (compute_uv) {
    std::tie(U, S, Vh) = ember::linalg_svd(self, !some);
  } else {
    S = ember::linalg_svdvals(self);
    const DimVector batch = batch_shape(self);
    const int64_t m = self.size(-2), n = self.size(-1);
    U = ember::zeros(with_matrix(batch, m, m), self.options());
    Vh = ember::zeros(with_matrix(batch, n, n), self.options());
  }
  return {std::move(U), std::move(S), Vh.transpose(-2, -1)};
}

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& self, std::string_view UPLO) {
  return ember::_linalg_eigh(self, UPLO, true);
}

Tensor linalg_eigvalsh(const Tensor& self, std::string_view UPLO) {
  return std::get<0>(ember::_linalg_eigh(self, UPLO, may_require_grad(self)));
}

Tensor linalg_det(const Tensor& A) { return std::get<0>(ember::_linalg_det(A)); }

Tensor det(const Tensor& self) { return ember::linalg_det(self); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  auto [sign, logabsdet, LU, pivots] = ember::_linalg_slogdet(A);
  return {std::move(sign), std::move(logabsdet)};
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return ember::linalg_slogdet(self); }

// log(det): NaN where the determinant is negative, -inf where it is zero.
Tensor logdet(const Tensor& self) {
  check_square_floating("logdet", self);
  auto [sign, logabsdet] = ember::linalg_slogdet(self);
  return ember::where(sign.eq(-1),
                      ember::full(IntArrayRef{}, std::numeric_limits<double>::quiet_NaN(),
                                  TensorOptions().dtype(logabsdet.dtype()).device(logabsdet.device())),
                      logabsdet);
}

}  // namespace ember::native
