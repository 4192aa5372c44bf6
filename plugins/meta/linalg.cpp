// Meta matrix products (plugins/cpu/linalg.cpp): mm, mm.out, bmm, addmm, with the cpu kernels'
// checks (ember/native/Rules.h); results are contiguous, in the inputs' dtype. Then the LAPACK
// factorizations (plugins/cpu/lapack.cpp), whose checks and outputs are ember/native/LinalgRules.h.
#include "MetaHelpers.h"
#include "ember/native/LinalgRules.h"

namespace ember::meta {

Tensor mm(const Tensor& self, const Tensor& mat2) {
  native::check_defined("mm", self, "self");
  native::check_defined("mm", mat2, "mat2");
  native::check_same_device("mm", kMeta, self, mat2);
  native::check_matmul_pair("mm", self, mat2, 2, "self", "mat2");
  native::check_matmul_dtype("mm", self.dtype());
  return empty_meta({self.size(0), mat2.size(1)}, self.dtype());
}

// The cpu kernel's order: the operands, out's dtype, the dtype's support, out's resize and overlap.
Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  native::check_defined("mm", self, "self");
  native::check_defined("mm", mat2, "mat2");
  native::check_same_device("mm", kMeta, self, mat2);
  native::check_matmul_pair("mm", self, mat2, 2, "self", "mat2");
  native::check_defined("mm", out, "out");
  native::check_same_device("mm", kMeta, self, out);
  native::prepare_mm_out(self, mat2, out);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  native::check_defined("bmm", self, "self");
  native::check_defined("bmm", mat2, "mat2");
  native::check_same_device("bmm", kMeta, self, mat2);
  native::check_matmul_pair("bmm", self, mat2, 3, "self", "mat2");
  EMBER_CHECK(self.size(0) == mat2.size(0), "[bmm] batch sizes differ: shapes {} and {}", self.sizes(), mat2.sizes());
  native::check_matmul_dtype("bmm", self.dtype());
  return empty_meta({self.size(0), self.size(1), mat2.size(2)}, self.dtype());
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& /*beta*/,
             const Scalar& /*alpha*/) {
  native::check_defined("addmm", mat1, "mat1");
  native::check_defined("addmm", mat2, "mat2");
  native::check_same_device("addmm", kMeta, mat1, mat2);
  native::check_matmul_pair("addmm", mat1, mat2, 2, "mat1", "mat2");
  native::check_defined("addmm", self, "self");
  native::check_same_device("addmm", kMeta, mat1, self);
  native::check_addmm_self(self, mat1, mat2);
  native::check_matmul_dtype("addmm", mat1.dtype());
  return empty_meta({mat1.size(0), mat2.size(1)}, mat1.dtype());
}

}  // namespace ember::meta

// ---- LAPACK-backed factorizations: the cpu kernels' checks and outputs (ember/native/LinalgRules.h) ----

namespace ember::meta {

void _linalg_check_errors(const Tensor& info, std::string_view /*api_name*/, bool /*is_matrix*/) {
  native::check_info_tensor(info);  // a meta info has no codes to raise for
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool /*check_errors*/) {
  return native::inv_outputs(kMeta, A);
}

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool /*check_errors*/) {
  native::check_same_device("linalg.solve", kMeta, A, B);
  const native::SolveShape s = native::solve_shape("linalg.solve", A, B, left);
  return {native::empty_strided_on(kMeta, s.result, s.result_strides, A.dtype()), native::empty_info(kMeta, s.batch)};
}

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& self, bool /*upper*/, bool /*check_errors*/) {
  return native::cholesky_outputs(kMeta, self);
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  return native::qr_outputs(kMeta, A, mode);
}

std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv,
                                               std::optional<std::string_view> /*driver*/) {
  return native::svd_outputs(kMeta, A, full_matrices, compute_uv);
}

std::tuple<Tensor, Tensor> _linalg_eigh(const Tensor& A, std::string_view UPLO, bool compute_v) {
  return native::eigh_outputs(kMeta, A, UPLO, compute_v);
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool /*check_errors*/) {
  return native::lu_factor_outputs(kMeta, A, pivot);
}

std::tuple<Tensor, Tensor, Tensor> _linalg_det(const Tensor& A) { return native::det_outputs(kMeta, A); }

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_slogdet(const Tensor& A) {
  return native::slogdet_outputs(kMeta, A);
}

}  // namespace ember::meta
