// Host half of the GPU softmax family: checks, the [outer, dim, inner] view of a contiguous
// copy, one launch (Note [GPU softmax] in kernels/softmax.cu).
#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/native/NNRules.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {
namespace {

void check_dtype(const char* op, ScalarType dt) {
  EMBER_CHECK_NOT_IMPLEMENTED(dt == kFloat32 || dt == kFloat64 || dt == kFloat16 || dt == kBFloat16,
                              "[{}] not implemented for dtype {} on {}", op, dt, gpu::kGpuLabel);
}

void check_device(const char* op, const Tensor& t, const char* name) {
  native::check_defined(op, t, name);
  native::nn::check_on(op, gpu::kGpuDevice, t);
}

// [outer, dim, inner] of `t` along the wrapped `dim` (a 0-dim tensor is one row of one).
gpu::SoftmaxArgs shape_args(const Tensor& t, int64_t dim) {
  gpu::SoftmaxArgs s;
  if (t.dim() == 0) return s;
  for (int64_t d = 0; d < dim; ++d) s.outer *= t.size(d);
  s.dim = t.size(dim);
  for (int64_t d = dim + 1; d < t.dim(); ++d) s.inner *= t.size(d);
  return s;
}

Tensor softmax_forward(const char* op, bool log, const Tensor& self, int64_t dim, bool half_to_float) {
  check_device(op, self, "self");
  check_dtype(op, self.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(!half_to_float || self.dtype() == kFloat16,
                              "[{}] conversion from {} to float is only supported for float16 inputs", op,
                              self.dtype());
  const int64_t w = maybe_wrap_dim(dim, self.dim(), op);
  OptionalDeviceGuard guard(self.device());
  const Tensor in = self.contiguous();
  Tensor out = empty_cuda(self.sizes(), half_to_float ? kFloat32 : self.dtype());
  gpu::SoftmaxArgs s = shape_args(in, w);
  s.in = static_cast<const char*>(in.data_ptr());
  s.out = static_cast<char*>(out.data_ptr());
  s.in_dtype = static_cast<int8_t>(in.dtype());
  s.out_dtype = static_cast<int8_t>(out.dtype());
  s.log = log;
  check_launch(gpu::launch_softmax(s, stream()), op, self.dtype());
  return out;
}

Tensor softmax_backward(const char* op, bool log, const Tensor& grad_output, const Tensor& output, int64_t dim,
                        ScalarType input_dtype) {
  check_device(op, grad_output, "grad_output");
  check_device(op, output, "output");
  EMBER_CHECK(grad_output.sizes() == output.sizes(),
              "[{}] expected grad_output and output of the same shape, got {} and {}", op, grad_output.sizes(),
              output.sizes());
  EMBER_CHECK_TYPE(grad_output.dtype() == output.dtype(),
                   "[{}] expected grad_output and output of the same dtype, got {} and {}", op, grad_output.dtype(),
                   output.dtype());
  check_dtype(op, grad_output.dtype());
  check_dtype(op, input_dtype);
  const int64_t w = maybe_wrap_dim(dim, grad_output.dim(), op);
  OptionalDeviceGuard guard(output.device());
  const Tensor y = output.contiguous(), g = grad_output.contiguous();
  // A float16 input whose forward gave float (half_to_float) gets its gradient in float16.
  Tensor out = empty_cuda(output.sizes(), input_dtype == kFloat16 ? kFloat16 : output.dtype());
  gpu::SoftmaxArgs s = shape_args(y, w);
  s.in = static_cast<const char*>(y.data_ptr());
  s.grad = static_cast<const char*>(g.data_ptr());
  s.out = static_cast<char*>(out.data_ptr());
  s.in_dtype = static_cast<int8_t>(y.dtype());
  s.out_dtype = static_cast<int8_t>(out.dtype());
  s.log = log;
  check_launch(gpu::launch_softmax_backward(s, stream()), op, y.dtype());
  return out;
}

}  // namespace

Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward("_softmax", false, self, dim, half_to_float);
}
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward("_log_softmax", true, self, dim, half_to_float);
}
// softmax.int / log_softmax.int: PyTorch's dtype rule (a dtype converts the input first), then
// the kernel in the result's dtype (float16 and bfloat16 included, as PyTorch's CUDA).
Tensor softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  native::check_defined("softmax", self, "self");
  const ScalarType out_dt = native::softmax_dtype("softmax", self, dtype);
  return softmax_forward("softmax", false, self.dtype() == out_dt ? self : self.to(out_dt), dim, false);
}
Tensor log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  native::check_defined("log_softmax", self, "self");
  const ScalarType out_dt = native::softmax_dtype("log_softmax", self, dtype);
  return softmax_forward("log_softmax", true, self.dtype() == out_dt ? self : self.to(out_dt), dim, false);
}
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward("_softmax_backward_data", false, grad_output, output, dim, input_dtype);
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return softmax_backward("_log_softmax_backward_data", true, grad_output, output, dim, input_dtype);
}

// The out= forms: the functional result (its checks first), then out checked, resized, written.
Tensor& _softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  const Tensor r = softmax_forward("_softmax", false, self, dim, half_to_float);
  check_out("_softmax", out, r.dtype());
  return write_out(out, r, "_softmax");
}
Tensor& _log_softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  const Tensor r = softmax_forward("_log_softmax", true, self, dim, half_to_float);
  check_out("_log_softmax", out, r.dtype());
  return write_out(out, r, "_log_softmax");
}

}  // namespace ember::EMBER_GPU_NS
