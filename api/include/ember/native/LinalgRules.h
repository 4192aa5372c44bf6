#pragma once
// Argument checks, result shapes and strides of the LAPACK-backed linear algebra operators
// (linalg_inv_ex, linalg_solve_ex, linalg_cholesky_ex, linalg_qr, _linalg_svd, _linalg_eigh,
// linalg_lu_factor_ex, _linalg_det, _linalg_slogdet), shared by the cpu kernels
// (plugins/cpu/lapack.cpp), the meta kernels and the composites of api/src/native/linalg.cpp.
//
// Note [Linear algebra kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// - Matrix results are batches of column-major matrices, as LibTorch's (its
//   batched_matrix_contiguous_strides): LAPACK factors each matrix in place in the result's own
//   memory, so any input layout is copied once, into the result.
// - The `_ex` operators report a failed factorization in `info` (kInt32, the batch's shape, 0 for
//   success) instead of raising; the public spellings are composites that raise through
//   _linalg_check_errors with LibTorch's texts (raise_linalg_info below). _linalg_svd and
//   _linalg_eigh have no info output, so their kernels raise themselves, as LibTorch's do.
// - Messages are LibTorch's, led by its API name in brackets ("[linalg.inv] ..."), so the name is
//   the one the user called (inverse reports linalg.inv, as in LibTorch).
// - float32 and float64 only: LibTorch rejects integer and low-precision inputs with the texts
//   below; complex inputs are not implemented yet.
#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>

#include "ember/native/TensorHelpers.h"

namespace ember::native {

// LibTorch's checkIsMatrix: at least two dimensions.
inline void check_is_matrix(const char* api, const Tensor& A, const char* arg = "A") {
  check_defined(api, A, arg);
  EMBER_CHECK(A.dim() >= 2, "[{}] The input tensor {} must have at least 2 dimensions.", api, arg);
}

// LibTorch's squareCheckInputs.
inline void check_square(const char* api, const Tensor& A, const char* arg = "A") {
  check_is_matrix(api, A, arg);
  EMBER_CHECK(A.size(-1) == A.size(-2), "[{}] {} must be batches of square matrices, but they are {} by {} matrices",
              api, arg, A.size(-2), A.size(-1));
}

// LibTorch's checkFloatingOrComplex (low precision not allowed), plus complex not implemented.
inline void check_linalg_dtype(const char* api, const Tensor& A) {
  const ScalarType t = A.dtype();
  EMBER_CHECK_TYPE(is_floating_type(t) || is_complex_type(t),
                   "[{}] Expected a floating point or complex tensor as input. Got {}", api, scalar_type_name(t));
  EMBER_CHECK_TYPE(t != kFloat16 && t != kBFloat16, "[{}] Low precision dtypes not supported. Got {}", api,
                   scalar_type_name(t));
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(t), "[{}] complex inputs are not implemented yet (got {})", api,
                              scalar_type_name(t));
}

// A square float32/float64 batch: the checks of inv, cholesky, eigh, det and slogdet, in LibTorch's order.
inline void check_square_floating(const char* api, const Tensor& A, const char* arg = "A") {
  check_square(api, A, arg);
  check_linalg_dtype(api, A);
}

// The batch dimensions of a batch of matrices (all but the last two).
inline DimVector batch_shape(const Tensor& A) { return DimVector(IntArrayRef(A.sizes().data(), A.dim() - 2)); }

inline DimVector with_matrix(IntArrayRef batch, int64_t rows, int64_t cols) {
  DimVector s(batch);
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

inline DimVector with_vector(IntArrayRef batch, int64_t n) {
  DimVector s(batch);
  s.push_back(n);
  return s;
}

// LibTorch's batched_matrix_contiguous_strides: row-major strides (sizes of 0 counted as 1), with
// the last two dimensions swapped to column-major when `column_major`.
inline DimVector matrix_strides(IntArrayRef sizes, bool column_major = true) {
  const size_t d = sizes.size();
  DimVector st(d, 1);
  for (size_t i = d; i-- > 1;) st[i - 1] = st[i] * std::max<int64_t>(sizes[i], 1);
  if (column_major && d >= 2) {
    st[d - 2] = 1;
    st[d - 1] = std::max<int64_t>(sizes[d - 2], 1);
  }
  return st;
}

// A fresh batch of column-major matrices on `dev`.
inline Tensor empty_matrices(DeviceType dev, IntArrayRef sizes, ScalarType dtype, bool column_major = true) {
  return empty_strided_on(dev, sizes, matrix_strides(sizes, column_major), dtype);
}

// ---- linalg.solve ---------------------------------------------------------------------------------

struct SolveShape {
  bool vector_case = false;  // B is a (batch of) vector(s): solved as one column
  DimVector batch;           // A's and B's batch dimensions broadcast
  DimVector result;          // X's shape
  DimVector result_strides;  // LibTorch's (column-major when left, row-major when not)
  int64_t nrhs = 0;          // right-hand sides per matrix
};

// LibTorch's _linalg_solve_ex meta function: B is a vector when it is 1-D or A's shape less one
// dimension; the batch dimensions broadcast.
inline SolveShape solve_shape(const char* api, const Tensor& A, const Tensor& B, bool left) {
  check_is_matrix(api, A);
  check_defined(api, B, "B");
  check_linalg_dtype(api, A);
  EMBER_CHECK_TYPE(A.dtype() == B.dtype(),
                   "[{}] Expected A and B to have the same dtype, but found A of type {} and B of type {} instead", api,
                   scalar_type_name(A.dtype()), scalar_type_name(B.dtype()));
  SolveShape s;
  const IntArrayRef as = A.sizes(), bs = B.sizes();
  s.vector_case = B.dim() == 1 || (A.dim() - 1 == B.dim() && IntArrayRef(as.data(), as.size() - 1) == bs);
  check_square(api, A);
  EMBER_CHECK(B.dim() >= 1, "[{}] The input tensor B must have at least 1 dimension.", api);
  const int64_t n = A.size(-1);
  const int64_t brows = s.vector_case ? B.size(-1) : (B.dim() >= 2 ? B.size(-2) : 1);
  const int64_t bcols = s.vector_case ? 1 : B.size(-1);
  EMBER_CHECK(s.vector_case || B.dim() >= 2, "[{}] The input tensor B must have at least 2 dimensions.", api);
  EMBER_CHECK(left ? n == brows : n == bcols,
              "[{}] Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})", api,
              left ? "AX = B" : "XA = B", n, n, brows, bcols);
  EMBER_CHECK(left || !s.vector_case,
              "[{}] Vector broadcasting of the left hand side is not supported for left=False. In this case "
              "linalg.solve is equivalent to B / A.squeeze(-1)",
              api);
  const IntArrayRef ab(as.data(), as.size() - 2);
  const IntArrayRef bb(bs.data(), bs.size() - (s.vector_case ? 1 : 2));
  s.batch = broadcast_shapes(ab, bb, api);
  s.nrhs = left ? bcols : brows;
  const DimVector full = with_matrix(s.batch, brows, bcols);
  s.result = s.vector_case ? DimVector(IntArrayRef(full.data(), full.size() - 1)) : full;
  s.result_strides = matrix_strides(s.result, left);
  return s;
}

// ---- linalg.qr -------------------------------------------------------------------------------------

struct QrMode {
  bool compute_q = true;
  bool reduced = true;
};

inline QrMode qr_mode(std::string_view mode) {
  if (mode == "reduced") return {true, true};
  if (mode == "complete") return {true, false};
  if (mode == "r") return {false, true};
  EMBER_THROW(ValueError,
              "[linalg.qr] qr received unrecognized mode '{}' but expected one of 'reduced' (default), 'r', or "
              "'complete'",
              mode);
}

// ---- linalg.eigh ----------------------------------------------------------------------------------

// LibTorch's checkUplo: "L" or "U", either case; true for the upper triangle.
inline bool eigh_upper(const char* api, std::string_view uplo) {
  const bool ok = uplo.size() == 1 && (uplo[0] == 'L' || uplo[0] == 'l' || uplo[0] == 'U' || uplo[0] == 'u');
  EMBER_CHECK(ok, "[{}] Expected UPLO argument to be 'L' or 'U', but got {}", api, uplo);
  return uplo[0] == 'U' || uplo[0] == 'u';
}

// ---- the outputs of each kernel, checked and allocated (uninitialised) on `dev` -------------------------

inline Tensor empty_info(DeviceType dev, IntArrayRef batch) { return empty_on(dev, batch, kInt32); }

// linalg_inv_ex: (inverse, info).
inline std::tuple<Tensor, Tensor> inv_outputs(DeviceType dev, const Tensor& A) {
  check_square_floating("linalg.inv", A);
  return {empty_matrices(dev, A.sizes(), A.dtype()), empty_info(dev, batch_shape(A))};
}

// linalg_cholesky_ex: (L, info).
inline std::tuple<Tensor, Tensor> cholesky_outputs(DeviceType dev, const Tensor& A) {
  check_square_floating("linalg.cholesky", A);
  return {empty_matrices(dev, A.sizes(), A.dtype()), empty_info(dev, batch_shape(A))};
}

// linalg_qr: Q ([m, k] reduced, [m, m] complete, empty for 'r') and R ([k, n], or [m, n] complete).
inline std::tuple<Tensor, Tensor> qr_outputs(DeviceType dev, const Tensor& A, std::string_view mode) {
  check_is_matrix("linalg.qr", A);
  check_linalg_dtype("linalg.qr", A);
  const QrMode md = qr_mode(mode);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  Tensor Q = md.compute_q ? empty_matrices(dev, with_matrix(batch, m, md.reduced ? k : m), A.dtype())
                          : empty_on(dev, {0}, A.dtype());
  Tensor R = empty_matrices(dev, with_matrix(batch, md.reduced ? k : m, n), A.dtype());
  return {std::move(Q), std::move(R)};
}

// _linalg_svd: U [m, m or k], S [k] (contiguous), Vh [n or k, n]; U and Vh empty without compute_uv.
inline std::tuple<Tensor, Tensor, Tensor> svd_outputs(DeviceType dev, const Tensor& A, bool full_matrices,
                                                      bool compute_uv) {
  check_is_matrix("linalg.svd", A);
  check_linalg_dtype("linalg.svd", A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  Tensor S = empty_on(dev, with_vector(batch, k), A.dtype());
  if (!compute_uv) return {empty_on(dev, {0}, A.dtype()), std::move(S), empty_on(dev, {0}, A.dtype())};
  return {empty_matrices(dev, with_matrix(batch, m, full_matrices ? m : k), A.dtype()), std::move(S),
          empty_matrices(dev, with_matrix(batch, full_matrices ? n : k, n), A.dtype())};
}

// _linalg_eigh: eigenvalues [n] (contiguous, ascending) and eigenvectors (empty without compute_v).
inline std::tuple<Tensor, Tensor> eigh_outputs(DeviceType dev, const Tensor& A, std::string_view uplo, bool compute_v) {
  check_square("linalg.eigh", A);
  eigh_upper("linalg.eigh", uplo);
  check_linalg_dtype("linalg.eigh", A);
  Tensor w = empty_on(dev, with_vector(batch_shape(A), A.size(-1)), A.dtype());
  Tensor V = compute_v ? empty_matrices(dev, A.sizes(), A.dtype()) : empty_on(dev, {0}, A.dtype());
  return {std::move(w), std::move(V)};
}

// linalg_lu_factor_ex: LU (A's shape), pivots [k] and info, kInt32.
inline std::tuple<Tensor, Tensor, Tensor> lu_factor_outputs(DeviceType dev, const Tensor& A, bool pivot) {
  check_is_matrix("linalg.lu_factor_ex", A);
  check_linalg_dtype("linalg.lu_factor_ex", A);
  EMBER_CHECK_NOT_IMPLEMENTED(pivot, "[linalg.lu_factor_ex] LU without pivoting is not implemented on the CPU");
  const DimVector batch = batch_shape(A);
  return {empty_matrices(dev, A.sizes(), A.dtype()),
          empty_on(dev, with_vector(batch, std::min(A.size(-2), A.size(-1))), kInt32), empty_info(dev, batch)};
}

// _linalg_det: (det, LU, pivots).
inline std::tuple<Tensor, Tensor, Tensor> det_outputs(DeviceType dev, const Tensor& A) {
  check_square_floating("linalg.det", A);
  const DimVector batch = batch_shape(A);
  return {empty_on(dev, batch, A.dtype()), empty_matrices(dev, A.sizes(), A.dtype()),
          empty_on(dev, with_vector(batch, A.size(-1)), kInt32)};
}

// _linalg_slogdet: (sign, logabsdet, LU, pivots).
inline std::tuple<Tensor, Tensor, Tensor, Tensor> slogdet_outputs(DeviceType dev, const Tensor& A) {
  check_square_floating("linalg.slogdet", A);
  const DimVector batch = batch_shape(A);
  return {empty_on(dev, batch, A.dtype()), empty_on(dev, batch, A.dtype()), empty_matrices(dev, A.sizes(), A.dtype()),
          empty_on(dev, with_vector(batch, A.size(-1)), kInt32)};
}

// _linalg_check_errors: info must be LAPACK's kInt32 codes.
inline void check_info_tensor(const Tensor& info) {
  check_defined("_linalg_check_errors", info, "info");
  EMBER_CHECK_TYPE(info.dtype() == kInt32, "[_linalg_check_errors] expected info of dtype int32, got {}", info.dtype());
}

// ---- LAPACK's info codes ---------------------------------------------------------------------------

// LibTorch's _linalg_check_errors for the first nonzero code `info` (of batch element `at`, or of
// the only matrix when is_matrix): raises its error for the operator named `api`.
[[noreturn]] inline void raise_linalg_info(std::string_view api, int32_t info, int64_t at, bool is_matrix) {
  const std::string batch = is_matrix ? std::string() : fmt::format("(Batch element {}): ", at);
  const auto has = [&](std::string_view s) { return api.find(s) != std::string_view::npos; };
  if (info < 0) {
    EMBER_CHECK(!(has("svd") && info == -4),
                "[{}] {}The algorithm failed to converge because the input matrix contained non-finite values.", api,
                batch);
    EMBER_THROW(InternalError,
                "[{}] {}Argument {} has illegal value. Most certainly there is a bug in the implementation calling "
                "the backend library.",
                api, batch, -info);
  }
  if (has("inv"))
    EMBER_THROW(ValueError,
                "[{}] {}The diagonal element {} is zero, the inversion could not be completed because the input "
                "matrix is singular.",
                api, batch, info);
  if (has("solve"))
    EMBER_THROW(ValueError, "[{}] {}The solver failed because the input matrix is singular.", api, batch);
  if (has("cholesky"))
    EMBER_THROW(ValueError,
                "[{}] {}The factorization could not be completed because the input is not positive-definite (the "
                "leading minor of order {} is not positive-definite).",
                api, batch, info);
  if (has("svd"))
    EMBER_THROW(ValueError,
                "[{}] {}The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated singular values (error code: {}).",
                api, batch, info);
  if (has("eig"))
    EMBER_THROW(ValueError,
                "[{}] {}The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated eigenvalues (error code: {}).",
                api, batch, info);
  if (has("lu_factor"))
    EMBER_THROW(ValueError,
                "[{}] {}U[{},{}] is zero and using it on lu_solve would result in a division by zero. If you still "
                "want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
                "pivot)",
                api, batch, info, info);
  EMBER_THROW(InternalError, "[{}] Unknown error code: {}.", api, info);
}

// Raises for the first nonzero of `n` info codes; nothing when all are zero.
inline void check_linalg_infos(std::string_view api, const int32_t* infos, int64_t n, bool is_matrix) {
  for (int64_t i = 0; i < n; ++i)
    if (infos[i] != 0) raise_linalg_info(api, infos[i], i, is_matrix);
}

}  // namespace ember::native
