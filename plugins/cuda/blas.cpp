// The matrix products of the cuda plugin through cuBLAS: mm, mm.out, bmm, addmm, for float32
// (TF32 tensor cores when ember::cuda::setAllowTF32CuBLAS(true)), float64, float16 and
// bfloat16 (both accumulating in float32, as PyTorch); through the native tiled GEMM with
// EMBER_CUDA_NATIVE_GEMM=1, and for the integer dtypes.
//
// Note [cuBLAS layouts]
// ~~~~~~~~~~~~~~~~~~~~~
// cuBLAS is column-major; a row-major C = A B is the column-major C^T = B^T A^T, so the operands
// go in swapped. A matrix whose last stride is 1 is row-major with ld = its first stride
// (op N in the swapped call); one whose first stride is 1 is column-major (op T); any other is
// made contiguous first. The result is always a fresh contiguous matrix (ld = n), copied into an
// out= of another layout or dtype.
#include <array>
#include <cstdlib>
#include <string_view>

#include "CUDAPlugin.h"
#include "ember/native/OrderRules.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/native/LinalgRules.h"
#include "ember/native/Rules.h"

#if EMBER_GPU_VENDOR_BLAS
#include <cublas_v2.h>

#include "ember/cuda.h"  // allowTF32CuBLAS
#endif

namespace ember::EMBER_GPU_NS {
namespace {

#if EMBER_GPU_VENDOR_BLAS
const char* cublas_status(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
  }
}

#define EMBER_CUBLAS_CHECK(op, expr)                                                                    \
  do {                                                                                                  \
    const cublasStatus_t ember_st_ = (expr);                                                            \
    EMBER_CHECK_T(::ember::Error, ember_st_ == CUBLAS_STATUS_SUCCESS, "[{}] cuBLAS error {} in {}", op, \
                  cublas_status(ember_st_), #expr);                                                     \
  } while (0)

// One handle per thread and device (cuBLAS handles are not thread-safe), bound to the current
// stream at each call.
cublasHandle_t handle(const char* op) {
  thread_local std::array<cublasHandle_t, impl::kMaxDevices> handles{};
  const DeviceIndex d = impl::current_device();
  cublasHandle_t& h = handles[static_cast<size_t>(d)];
  if (h == nullptr) EMBER_CUBLAS_CHECK(op, cublasCreate(&h));
  EMBER_CUBLAS_CHECK(op, cublasSetStream(h, stream()));
  return h;
}

struct Operand {
  Tensor t;  // the memory cuBLAS reads (a contiguous copy when the layout needed one)
  cublasOperation_t op;
  int64_t ld;
  int64_t batch_stride;
};

// A (batch of) rows x cols matrices as cuBLAS takes it in the swapped call (Note [cuBLAS layouts]).
Operand operand(const Tensor& m) {
  const int64_t nd = m.dim();
  const int64_t rows = m.size(nd - 2), cols = m.size(nd - 1);
  const int64_t s0 = m.stride(nd - 2), s1 = m.stride(nd - 1);
  const int64_t bs = nd == 3 ? m.stride(0) : 0;
  if (s1 == 1 && s0 >= std::max<int64_t>(cols, 1)) return {m, CUBLAS_OP_N, s0, bs};
  if (s0 == 1 && s1 >= std::max<int64_t>(rows, 1)) return {m, CUBLAS_OP_T, s1, bs};
  Tensor c = materialize(m);
  return {c, CUBLAS_OP_N, std::max<int64_t>(cols, 1), nd == 3 ? rows * cols : 0};
}

cudaDataType_t data_type(ScalarType t) {
  switch (t) {
    case kFloat32:
      return CUDA_R_32F;
    case kFloat64:
      return CUDA_R_64F;
    case kFloat16:
      return CUDA_R_16F;
    default:
      return CUDA_R_16BF;
  }
}

#endif

// Floating matrices go through cuBLAS, integer ones through the native GEMM (accumulating in
// int64, wrapping as the cpu plugin; PyTorch's CUDA has no integer matmul).
void check_dtype(const char* op, ScalarType t) {
  EMBER_CHECK_NOT_IMPLEMENTED(t != kBool && !is_complex_type(t), "[{}] not implemented for dtype {} on {}", op, t,
                              gpu::kGpuLabel);
}

// EMBER_CUDA_NATIVE_GEMM=1: the tiled GEMM of our own (Note [Native GEMM] in kernels/gemm.cu)
// instead of cuBLAS, read once.
bool native_gemm() {
#if !EMBER_GPU_VENDOR_BLAS
  return true;  // no hipBLAS/rocBLAS, no cuBLAS on the host (Note [One source, two GPU plugins] in GpuConfig.h)
#else
  static const bool on = [] {
    const char* e = std::getenv("EMBER_CUDA_NATIVE_GEMM");
    return e != nullptr && std::string_view(e) == "1";
  }();
  return on;
#endif
}

void gemm_native(const char* op, const Tensor& a, const Tensor& b, Tensor& out, double alpha, double beta) {
  const int64_t nd = a.dim();
  gpu::GemmArgs g;
  g.batch = nd == 3 ? a.size(0) : 1;
  g.m = a.size(nd - 2);
  g.k = a.size(nd - 1);
  g.n = b.size(nd - 1);
  EMBER_CHECK_NOT_IMPLEMENTED(g.m <= int64_t{65535} * 64, "[{}] the native GEMM takes at most {} rows", op,
                              int64_t{65535} * 64);
  g.a = static_cast<const char*>(a.data_ptr());
  g.b = static_cast<const char*>(b.data_ptr());
  g.c = static_cast<char*>(out.data_ptr());
  g.sa_batch = nd == 3 ? a.stride(0) : 0, g.sa_row = a.stride(nd - 2), g.sa_col = a.stride(nd - 1);
  g.sb_batch = nd == 3 ? b.stride(0) : 0, g.sb_row = b.stride(nd - 2), g.sb_col = b.stride(nd - 1);
  g.sc_batch = g.m * g.n, g.sc_row = g.n;
  g.alpha = alpha;
  g.beta = beta;
  g.dtype = static_cast<int8_t>(a.dtype());
  check_launch(gpu::launch_gemm(g, stream()), op, a.dtype());
}

// out (contiguous, b x m x n) = alpha * a @ b + beta * out.
void gemm(const char* op, const Tensor& a, const Tensor& b, Tensor& out, double alpha, double beta) {
  if (out.numel() == 0) return;
  if (native_gemm() || !is_floating_type(a.dtype())) return gemm_native(op, a, b, out, alpha, beta);
#if EMBER_GPU_VENDOR_BLAS
  const int64_t nd = a.dim();
  const int64_t batch = nd == 3 ? a.size(0) : 1, m = a.size(nd - 2), k = a.size(nd - 1), n = b.size(nd - 1);
  const ScalarType dt = a.dtype();
  const Operand A = operand(a), B = operand(b);
  cublasHandle_t h = handle(op);
  const bool tf32 = dt == kFloat32 && allowTF32CuBLAS();
  EMBER_CUBLAS_CHECK(op, cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  const cublasComputeType_t compute = dt == kFloat64 ? CUBLAS_COMPUTE_64F
                                      : tf32         ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                     : CUBLAS_COMPUTE_32F;
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
  const void* pa = dt == kFloat64 ? static_cast<const void*>(&alpha) : &af;
  const void* pb = dt == kFloat64 ? static_cast<const void*>(&beta) : &bf;
  const cudaDataType_t t = data_type(dt);
  // C^T (n x m, ld n) = op(B) (n x k) op(A) (k x m).
  EMBER_CUBLAS_CHECK(
      op, cublasGemmStridedBatchedEx(h, B.op, A.op, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), pa,
                                     B.t.data_ptr(), t, static_cast<int>(B.ld), B.batch_stride, A.t.data_ptr(), t,
                                     static_cast<int>(A.ld), A.batch_stride, pb, out.data_ptr(), t, static_cast<int>(n),
                                     m * n, static_cast<int>(batch), compute, CUBLAS_GEMM_DEFAULT));
#endif
}

void check_pair(const char* op, const Tensor& a, const Tensor& b, int64_t dim, const char* an, const char* bn) {
  native::check_defined(op, a, an);
  native::check_defined(op, b, bn);
  native::check_same_device(op, gpu::kGpuDevice, a, b);
  native::check_matmul_pair(op, a, b, dim, an, bn);
}

}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_pair("mm", self, mat2, 2, "self", "mat2");
  check_dtype("mm", self.dtype());
  OptionalDeviceGuard guard(self.device());
  Tensor out = empty_cuda({self.size(0), mat2.size(1)}, self.dtype());
  if (self.size(1) == 0) return EMBER_GPU_NS::zero_(out);
  gemm("mm", self, mat2, out, 1.0, 0.0);
  return out;
}

Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  check_pair("mm", self, mat2, 2, "self", "mat2");
  native::check_defined("mm", out, "out");
  native::check_same_device("mm", gpu::kGpuDevice, self, out);
  native::prepare_mm_out(self, mat2, out);
  check_dtype("mm", self.dtype());
  OptionalDeviceGuard guard(self.device());
  Tensor r = EMBER_GPU_NS::mm(self, mat2);
  EMBER_GPU_NS::copy_(out, r, false);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_pair("bmm", self, mat2, 3, "self", "mat2");
  EMBER_CHECK(self.size(0) == mat2.size(0), "[bmm] batch sizes differ: shapes {} and {}", self.sizes(), mat2.sizes());
  check_dtype("bmm", self.dtype());
  OptionalDeviceGuard guard(self.device());
  Tensor out = empty_cuda({self.size(0), self.size(1), mat2.size(2)}, self.dtype());
  if (self.size(2) == 0) return EMBER_GPU_NS::zero_(out);
  gemm("bmm", self, mat2, out, 1.0, 0.0);
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  check_pair("addmm", mat1, mat2, 2, "mat1", "mat2");
  native::check_defined("addmm", self, "self");
  native::check_same_device("addmm", gpu::kGpuDevice, self, mat1);
  native::check_addmm_self(self, mat1, mat2);
  check_dtype("addmm", mat1.dtype());
  OptionalDeviceGuard guard(mat1.device());
  const bool beta_zero = !beta.toBool();
  Tensor out = empty_cuda({mat1.size(0), mat2.size(1)}, mat1.dtype());
  if (!beta_zero) EMBER_GPU_NS::copy_(out, self, false);  // self broadcast to (m, n), then out = beta out + alpha a b
  if (mat1.size(1) == 0) {
    if (beta_zero) return EMBER_GPU_NS::zero_(out);
    return EMBER_GPU_NS::mul__scalar(out, beta);
  }
  gemm("addmm", mat1, mat2, out, alpha.to<double>(), beta_zero ? 0.0 : beta.to<double>());
  return out;
}

// dot and mv as products of (1, n) x (n, 1) and (n, m) x (m, 1) matrices (the gemm's accumulation).
Tensor dot(const Tensor& self, const Tensor& tensor) {
  native::order::check_dot("dot", self, tensor);
  native::check_same_device("dot", gpu::kGpuDevice, self, tensor);
  OptionalDeviceGuard guard(self.device());
  return EMBER_GPU_NS::mm(self.unsqueeze(0), tensor.unsqueeze(1)).view({});
}
Tensor& dot_out(const Tensor& self, const Tensor& tensor, Tensor& out) {
  const Tensor r = EMBER_GPU_NS::dot(self, tensor);
  native::check_defined("dot", out, "out");
  EMBER_CHECK_TYPE(out.dtype() == r.dtype(), "[dot] result dtype {} does not match input dtype {}", out.dtype(),
                   r.dtype());
  native::check_same_device("dot", gpu::kGpuDevice, self, out);
  native::resize_output(out, r.sizes(), "dot");
  native::check_out_writable("dot", out);
  return EMBER_GPU_NS::copy_(out, r, false);
}
Tensor mv(const Tensor& self, const Tensor& vec) {
  native::order::check_mv("mv", self, vec);
  native::check_same_device("mv", gpu::kGpuDevice, self, vec);
  OptionalDeviceGuard guard(self.device());
  return EMBER_GPU_NS::mm(self, vec.unsqueeze(1)).view({self.size(0)});
}
Tensor& mv_out(const Tensor& self, const Tensor& vec, Tensor& out) {
  const Tensor r = EMBER_GPU_NS::mv(self, vec);
  check_out("mv", out, r.dtype());
  return write_out(out, r, "mv");
}

}  // namespace ember::EMBER_GPU_NS
