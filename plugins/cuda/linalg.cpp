// The factorizations (cholesky, LU, QR, eigh, SVD, inverse, solve, determinants) and the FFTs on
// GPU tensors.
//
// Note [GPU linear algebra on the host]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// These run the cpu plugin's kernels (LAPACK, the cpu's FFT engine) on host copies of the
// operands, reached through the dispatcher, and copy the results back to the operands' device:
// the cpu's checks, errors and results, bit for bit, at the cost of two transfers and a sync per
// call. Debian's ROCm has no rocSOLVER or hipFFT, so the hip plugin has no device library to call;
// the cuda plugin shares the path until its cuSOLVER and cuFFT ones exist (they need a device to
// be checked on). What reaches the device is always a fresh tensor: no result aliases an input.
#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/generated/Functions.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {
namespace {

// The operands on the device of `first` (a GPU tensor), checked as the kernels' same-device rule.
Tensor host(const char* op, const Tensor& t, const Tensor& first) {
  native::check_same_device(op, gpu::kGpuDevice, first, t);
  return t.cpu();
}

Tensor back(const Tensor& t, Device d) { return t.defined() ? t.to(d) : t; }

template <class... T>
std::tuple<T...> back(const std::tuple<T...>& r, Device d) {
  return std::apply([d](const auto&... t) { return std::tuple<T...>{back(t, d)...}; }, r);
}

// f(a host copy of t), its results copied to t's device.
template <class F>
auto on_host(const char* op, const Tensor& t, F&& f) {
  native::check_defined(op, t, "A");
  OptionalDeviceGuard guard(device_of(t));
  return back(f(t.cpu()), t.device());
}

}  // namespace

void _linalg_check_errors(const Tensor& info, std::string_view api_name, bool is_matrix) {
  native::check_defined("_linalg_check_errors", info, "info");
  ember::_linalg_check_errors(info.cpu(), api_name, is_matrix);
}

std::tuple<Tensor, Tensor, Tensor> _linalg_det(const Tensor& A) {
  return on_host("linalg.det", A, [&](const Tensor& h) { return ember::_linalg_det(h); });
}

std::tuple<Tensor, Tensor> _linalg_eigh(const Tensor& A, std::string_view UPLO, bool compute_v) {
  return on_host("linalg.eigh", A, [&](const Tensor& h) { return ember::_linalg_eigh(h, UPLO, compute_v); });
}

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_slogdet(const Tensor& A) {
  return on_host("linalg.slogdet", A, [&](const Tensor& h) { return ember::_linalg_slogdet(h); });
}

std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv,
                                               std::optional<std::string_view> driver) {
  return on_host("linalg.svd", A,
                 [&](const Tensor& h) { return ember::_linalg_svd(h, full_matrices, compute_uv, driver); });
}

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& self, bool upper, bool check_errors) {
  return on_host("linalg.cholesky", self,
                 [&](const Tensor& h) { return ember::linalg_cholesky_ex(h, upper, check_errors); });
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  return on_host("linalg.inv", A, [&](const Tensor& h) { return ember::linalg_inv_ex(h, check_errors); });
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  return on_host("linalg.lu_factor", A,
                 [&](const Tensor& h) { return ember::linalg_lu_factor_ex(h, pivot, check_errors); });
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  return on_host("linalg.qr", A, [&](const Tensor& h) { return ember::linalg_qr(h, mode); });
}

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  const char* op = "linalg.solve";
  native::check_defined(op, B, "B");
  return on_host(op, A, [&](const Tensor& h) { return ember::linalg_solve_ex(h, host(op, B, A), left, check_errors); });
}

Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  return on_host("_fft_c2c", self, [&](const Tensor& h) { return ember::_fft_c2c(h, dim, normalization, forward); });
}

Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  return on_host("_fft_c2r", self,
                 [&](const Tensor& h) { return ember::_fft_c2r(h, dim, normalization, last_dim_size); });
}

Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  return on_host("_fft_r2c", self, [&](const Tensor& h) { return ember::_fft_r2c(h, dim, normalization, onesided); });
}

}  // namespace ember::EMBER_GPU_NS
