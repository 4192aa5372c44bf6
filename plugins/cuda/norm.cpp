// Host half of the GPU batch, layer and group norm, forward and backward: the shared checks
// (ember/native/NNRules.h, NNCoreRules.h), the operands as contiguous float32 or float64 (the
// cpu's compute dtypes), the row kernel and the elementwise kernel of Note [GPU normalization]
// (kernels/norm.cu), and the per-row coefficients in between as float64 device tensors.
#include <cmath>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"
#include "ember/native/NNCoreRules.h"
#include "ember/native/NNRules.h"

namespace ember::EMBER_GPU_NS {
namespace {

// t as a contiguous device tensor of dtype ct.
Tensor compute_input(const Tensor& t, ScalarType ct) { return t.to(ct).contiguous(); }

// An optional per-channel or per-element parameter as a contiguous float64 tensor, or undefined.
Tensor param64(const std::optional<Tensor>& t) { return t && t->defined() ? compute_input(*t, kFloat64) : Tensor(); }

const double* ptr64(const Tensor& t) { return t.defined() ? t.data_ptr<double>() : nullptr; }

Tensor as_dtype(const Tensor& t, ScalarType dt) { return t.defined() ? t.to(dt) : t; }

gpu::NormArgs norm_args(const Tensor& x, int64_t A, int64_t R, int64_t B) {
  gpu::NormArgs a;
  a.A = A, a.R = R, a.B = B;
  a.x = static_cast<const char*>(x.data_ptr());
  a.dtype = static_cast<int8_t>(x.dtype());
  return a;
}

void run_norm(const char* op, gpu::NormMode mode, const gpu::NormArgs& a, ScalarType ct) {
  check_launch(gpu::launch_norm(mode, a, stream()), op, ct);
}

// Mean and biased variance per row of x seen as [A, R, B] (float64, R each).
std::pair<Tensor, Tensor> moments(const char* op, const Tensor& x, int64_t A, int64_t R, int64_t B) {
  Tensor mean = empty_cuda({R}, kFloat64), var = empty_cuda({R}, kFloat64);
  gpu::NormArgs a = norm_args(x, A, R, B);
  a.s1 = mean.data_ptr<double>();
  a.s2 = var.data_ptr<double>();
  run_norm(op, gpu::NormMode::Moments, a, x.dtype());
  return {mean, var};
}

// Per row of [A, R, B]: the sums of dy w and of dy w x (w by the args' weight index, if any).
std::pair<Tensor, Tensor> grad_sums(const char* op, gpu::NormArgs a, const Tensor& dy, const Tensor& w) {
  Tensor s1 = empty_cuda({a.R}, kFloat64), s2 = empty_cuda({a.R}, kFloat64);
  a.dy = static_cast<const char*>(dy.data_ptr());
  a.w = ptr64(w);
  a.s1 = s1.data_ptr<double>();
  a.s2 = s2.data_ptr<double>();
  run_norm(op, gpu::NormMode::GradSums, a, dy.dtype());
  return {s1, s2};
}

// out = dy w k1 + x k2 + k3 (per-row k, float64), a new tensor of x's sizes and dtype.
Tensor backward_apply(const char* op, gpu::NormArgs a, const Tensor& x, const Tensor& dy, const Tensor& w,
                      const Tensor& k1, const Tensor& k2, const Tensor& k3) {
  Tensor out = empty_cuda(x.sizes(), x.dtype());
  const Tensor c1 = k1.contiguous(), c2 = k2.contiguous(), c3 = k3.contiguous();
  a.dy = static_cast<const char*>(dy.data_ptr());
  a.w = ptr64(w);
  a.out = static_cast<char*>(out.data_ptr());
  a.k1 = ptr64(c1), a.k2 = ptr64(c2), a.k3 = ptr64(c3);
  run_norm(op, gpu::NormMode::Backward, a, x.dtype());
  return out;
}

// y = (x - mean) rstd w + bias in the mode's rounding, a new tensor of x's sizes and dtype.
Tensor forward_apply(const char* op, gpu::NormMode mode, gpu::NormArgs a, const Tensor& x, const Tensor& mean,
                     const Tensor& rstd, const Tensor& w, const Tensor& b) {
  Tensor y = empty_cuda(x.sizes(), x.dtype());
  a.w = ptr64(w), a.bias = ptr64(b);
  a.mean = ptr64(mean), a.rstd = ptr64(rstd);
  a.out = static_cast<char*>(y.data_ptr());
  run_norm(op, mode, a, x.dtype());
  return y;
}

// running = (1 - momentum) running + momentum v, rounded once into the caller's tensor, with no
// version bump (as the cpu's: Note [Version counters]). An expanded (stride 0) statistic takes
// the channels' updates in order on its one element, as LibTorch's.
void update_running(Tensor& running, const Tensor& v, double momentum) {
  if (running.numel() > 1 && running.stride(0) == 0) {
    Tensor r = running.select(0, 0).to(kFloat64);
    for (int64_t c = 0; c < v.numel(); ++c) r = r * (1 - momentum) + v.select(0, c) * momentum;
    Tensor e = running.select(0, 0);
    EMBER_GPU_NS::copy_(e, r, false);
    return;
  }
  const Tensor r = running.to(kFloat64) * (1 - momentum) + v * momentum;
  EMBER_GPU_NS::copy_(running, r, false);
}

}  // namespace

// ---- batch norm: input viewed as [N, C, L] ----------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  const char* op = "native_batch_norm";
  OptionalDeviceGuard guard(device_of(input));
  const native::nn::BnShape s =
      native::nn::check_batch_norm(op, gpu::kGpuDevice, input, weight, bias, running_mean, running_var, training);
  const ScalarType dt = input.dtype(), ct = native::nn::compute_float(input, op, "input");
  const Tensor x = compute_input(input, ct), w = param64(weight), b = param64(bias);
  Tensor mean, var;
  if (training) {
    std::tie(mean, var) = moments(op, x, s.N, s.C, s.L);
    const int64_t M = s.N * s.L;
    if (running_mean && running_mean->defined()) {
      Tensor rm = *running_mean;
      update_running(rm, mean, momentum);
    }
    if (running_var && running_var->defined()) {
      Tensor rv = *running_var;
      update_running(rv, var * (static_cast<double>(M) / static_cast<double>(M - 1)), momentum);
    }
  } else {
    mean = compute_input(*running_mean, kFloat64);
    var = compute_input(*running_var, kFloat64);
  }
  const Tensor invstd = ember::rsqrt(var + eps);
  gpu::NormArgs a = norm_args(x, s.N, s.C, s.L);
  a.w_rmod = std::max<int64_t>(s.C, 1), a.w_rmul = 1;
  const Tensor y = forward_apply(op, gpu::NormMode::Forward, a, x, mean, invstd, w, b);
  if (!training) return {as_dtype(y, dt), empty_cuda({0}, dt), empty_cuda({0}, dt)};
  return {as_dtype(y, dt), mean.to(dt), invstd.to(dt)};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& running_mean,
                                                              const std::optional<Tensor>& running_var,
                                                              const std::optional<Tensor>& save_mean,
                                                              const std::optional<Tensor>& save_invstd, bool train,
                                                              double eps, std::array<bool, 3> output_mask) {
  const char* op = "native_batch_norm_backward";
  OptionalDeviceGuard guard(device_of(input));
  const native::nn::BnShape s = native::nn::check_batch_norm_backward(
      op, gpu::kGpuDevice, grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train);
  const ScalarType dt = input.dtype(), ct = native::nn::compute_float(input, op, "input");
  const Tensor mean = compute_input(train ? *save_mean : *running_mean, kFloat64);
  const Tensor invstd =
      train ? compute_input(*save_invstd, kFloat64) : ember::rsqrt(compute_input(*running_var, kFloat64) + eps);
  const Tensor x = compute_input(input, ct), dy = compute_input(grad_out, ct);
  const Tensor w = param64(weight);
  const gpu::NormArgs a = norm_args(x, s.N, s.C, s.L);
  const auto [sdy, sdyx_raw] = grad_sums(op, a, dy, Tensor());
  const Tensor sdyx = sdyx_raw - mean * sdy;  // sum of dy (x - mean)
  const ScalarType pdt = weight && weight->defined() ? weight->dtype() : dt;
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const Tensor k1 = w.defined() ? invstd * w : invstd;
    const double M = static_cast<double>(s.N * s.L);
    Tensor k2 = ember::zeros_like(mean), k3 = ember::zeros_like(mean);
    if (train) {
      k2 = -(k1 * invstd * invstd * sdyx) / M;
      k3 = k1 * (mean * invstd * invstd * sdyx - sdy) / M;
    }
    gi = as_dtype(backward_apply(op, a, x, dy, Tensor(), k1, k2, k3), dt);
  }
  if (output_mask[1]) gw = (sdyx * invstd).to(pdt);
  if (output_mask[2]) gb = sdy.to(pdt);
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(const Tensor& input, const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias, Tensor& running_mean,
                                                            Tensor& running_var, bool training, double momentum,
                                                            double eps) {
  return EMBER_GPU_NS::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_stats(const Tensor& input,
                                                                     const std::optional<Tensor>& weight,
                                                                     const std::optional<Tensor>& bias, bool training,
                                                                     double momentum, double eps) {
  return EMBER_GPU_NS::native_batch_norm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps) {
  return EMBER_GPU_NS::native_batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps);
}

// ---- layer norm: input viewed as [M, N] -------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const char* op = "native_layer_norm";
  OptionalDeviceGuard guard(device_of(input));
  const native::nn::LnShape s =
      native::nn::check_layer_norm(op, gpu::kGpuDevice, input, normalized_shape, weight, bias);
  const ScalarType dt = input.dtype(), ct = native::nn::compute_float(input, op, "input");
  const Tensor x = compute_input(input, ct), w = param64(weight), b = param64(bias);
  const auto [mean, var] = moments(op, x, 1, s.M, s.N);
  const Tensor rstd = ember::rsqrt(var + eps);
  gpu::NormArgs a = norm_args(x, 1, s.M, s.N);
  a.w_bdiv = 1;
  const Tensor y = forward_apply(op, gpu::NormMode::ForwardCentered, a, x, mean, rstd, w, b);
  const auto ss = native::nn::ln_stat_shape(input, static_cast<int64_t>(normalized_shape.size()));
  return {as_dtype(y, dt), mean.to(ct).to(dt).reshape(ss), rstd.to(ct).to(dt).reshape(ss)};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias,
                                                              std::array<bool, 3> output_mask) {
  const char* op = "native_layer_norm_backward";
  OptionalDeviceGuard guard(device_of(input));
  const native::nn::LnShape s = native::nn::check_layer_norm_backward(op, gpu::kGpuDevice, grad_out, input,
                                                                      normalized_shape, mean, rstd, weight, bias);
  const ScalarType dt = input.dtype(), ct = native::nn::compute_float(input, op, "input");
  const Tensor x = compute_input(input, ct), dy = compute_input(grad_out, ct), w = param64(weight);
  const Tensor m = compute_input(mean, kFloat64).reshape({s.M}), rs = compute_input(rstd, kFloat64).reshape({s.M});
  gpu::NormArgs a = norm_args(x, 1, s.M, s.N);
  a.w_bdiv = 1;
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const auto [db, sdwx] = grad_sums(op, a, dy, w);  // sums of dy w and dy w x per row
    const Tensor ds = rs * (sdwx - m * db);           // sum of dy w xhat
    const double n = static_cast<double>(s.N);
    gi = as_dtype(backward_apply(op, a, x, dy, w, rs, -(rs * rs * ds) / n, rs * (m * rs * ds - db) / n), dt);
  }
  if (output_mask[1] || output_mask[2]) {
    const Tensor dy2 = dy.to(kFloat64).reshape({s.M, s.N});
    if (output_mask[1]) {
      const Tensor xhat = (x.to(kFloat64).reshape({s.M, s.N}) - m.reshape({s.M, 1})) * rs.reshape({s.M, 1});
      gw = ember::sum(dy2 * xhat, std::vector<int64_t>{0}, false, std::nullopt).to(ct).to(dt).reshape(normalized_shape);
    }
    if (output_mask[2])
      gb = ember::sum(dy2, std::vector<int64_t>{0}, false, std::nullopt).to(ct).to(dt).reshape(normalized_shape);
  }
  return {gi, gw, gb};
}

// ---- group norm: input viewed as [N, G, D HxW] (D = C / G channels a group) -------------------------

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps) {
  const char* op = "native_group_norm";
  OptionalDeviceGuard guard(device_of(input));
  native::nn::check_group_norm(op, gpu::kGpuDevice, input, weight, bias, N, C, HxW, group);
  const ScalarType dt = input.dtype(), ct = native::nn::compute_float(input, op, "input");
  const Tensor x = compute_input(input, ct), w = param64(weight), b = param64(bias);
  const int64_t D = C / group;
  const auto [mean, var] = moments(op, x, 1, N * group, D * HxW);
  const Tensor rstd = ember::rsqrt(var + eps);
  gpu::NormArgs a = norm_args(x, 1, N * group, D * HxW);
  a.w_rmod = group, a.w_rmul = D, a.w_bdiv = std::max<int64_t>(HxW, 1);
  const Tensor y = forward_apply(op, gpu::NormMode::Forward, a, x, mean, rstd, w, b);
  return {as_dtype(y, dt), mean.to(ct).to(dt).reshape({N, group}), rstd.to(ct).to(dt).reshape({N, group})};
}

// PyTorch's GroupNormBackward, as the cpu's: per (n, c) the sums ds = sum(dy x) and db = sum(dy)
// over HxW, then dx = w rstd dy + b1 x + b2 per group, dgamma = sum_n (ds - db mean) rstd,
// dbeta = sum_n db.
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const std::optional<Tensor>& weight, int64_t N, int64_t C,
                                                              int64_t HxW, int64_t group,
                                                              std::array<bool, 3> output_mask) {
  const char* op = "native_group_norm_backward";
  OptionalDeviceGuard guard(device_of(input));
  native::nn::check_group_norm_backward(op, gpu::kGpuDevice, grad_out, input, mean, rstd, weight, N, C, HxW, group);
  const ScalarType dt = input.dtype(), ct = native::nn::compute_float(input, op, "input");
  const Tensor x = compute_input(input, ct), dy = compute_input(grad_out, ct);
  const Tensor w = weight && weight->defined()
                       ? param64(weight)
                       : ember::ones({C}, TensorOptions().dtype(kFloat64).device(input.device()));
  const int64_t G = group, D = C / G;
  const Tensor m = compute_input(mean, kFloat64).reshape({N, G, 1}),
               rs = compute_input(rstd, kFloat64).reshape({N, G, 1});
  const gpu::NormArgs a = norm_args(x, 1, N * C, HxW);
  const auto [db_flat, ds_flat] = grad_sums(op, a, dy, Tensor());
  const Tensor ds = ds_flat.reshape({N, G, D}), db = db_flat.reshape({N, G, D}), wg = w.reshape({1, G, D});
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const std::vector<int64_t> dim2{2};
    const Tensor s1 = ember::sum(ds * wg, dim2, true, std::nullopt), s2 = ember::sum(db * wg, dim2, true, std::nullopt);
    const double sc = 1.0 / static_cast<double>(D * HxW);
    const Tensor b1 = (s2 * m - s1) * rs * rs * rs * sc;
    const Tensor b2 = -b1 * m - s2 * rs * sc;
    const std::vector<int64_t> nc{N * C};
    gi = as_dtype(backward_apply(op, a, x, dy, Tensor(), (rs * wg).expand({N, G, D}).reshape(nc),
                                 b1.expand({N, G, D}).reshape(nc), b2.expand({N, G, D}).reshape(nc)),
                  dt);
  }
  const std::vector<int64_t> dim0{0};
  if (output_mask[1]) gw = ember::sum((ds - db * m) * rs, dim0, false, std::nullopt).reshape({C}).to(ct).to(dt);
  if (output_mask[2]) gb = ember::sum(db, dim0, false, std::nullopt).reshape({C}).to(ct).to(dt);
  return {gi, gw, gb};
}

}  // namespace ember::EMBER_GPU_NS
