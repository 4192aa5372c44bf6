// Host half of the GPU nn kernels beside the softmax family: cdist and pdist (kernels/distance.cu)
// and _embedding_bag (kernels/embedding.cu) with the cpu's checks (ember/native/NNCoreRules.h),
// computed in float64 as the cpu's, except cdist's euclidean matrix-product path, which runs in the
// input's dtype through the device's matmul as LibTorch's. The embedding bag backwards are
// gathers and atomic adds of existing kernels.
#include <limits>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/api/Operators.h"
#include "ember/native/NNCoreRules.h"

namespace ember::EMBER_GPU_NS {
namespace {

namespace rules = native::nn;

// t as a contiguous float64 device tensor.
Tensor as_double(const Tensor& t) { return t.to(kFloat64).contiguous(); }

// t (..., rows, M) expanded to batch + [rows, M].
Tensor expand_to(const Tensor& t, IntArrayRef batch) {
  std::vector<int64_t> s(batch.begin(), batch.end());
  s.push_back(t.size(-2));
  s.push_back(t.size(-1));
  return t.expand(s);
}

// A gradient of shape batch + [rows, M] summed over the batch dimensions `like` was broadcast
// along, to like's shape.
Tensor sum_to_shape_of(const Tensor& g, const Tensor& like) {
  const int64_t lead = g.dim() - like.dim();
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < g.dim() - 2; ++d)
    if (d < lead || (like.size(d - lead) == 1 && g.size(d) != 1)) dims.push_back(d);
  const Tensor r = dims.empty() ? g : ember::sum(g, dims, true, std::nullopt);
  return r.reshape(like.sizes());
}

gpu::DistArgs dist_args(double p, int64_t M) {
  gpu::DistArgs a;
  a.p = p, a.M = M;
  return a;
}

double* data_f64(Tensor& t) { return static_cast<double*>(t.data_ptr()); }
const double* data_f64(const Tensor& t) { return static_cast<const double*>(t.data_ptr()); }

void run_distance(const char* op, gpu::DistMode mode, const gpu::DistArgs& a) {
  check_launch(gpu::launch_distance(mode, a, stream()), op, kFloat64);
}

}  // namespace

Tensor _cdist_forward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  const char* op = "_cdist_forward";
  const std::vector<int64_t> shape = rules::check_cdist(op, gpu::kGpuDevice, x1, x2, p, compute_mode);
  OptionalDeviceGuard guard(device_of(x1));
  const IntArrayRef batch = IntArrayRef(shape).slice(0, shape.size() - 2);
  const int64_t P = x1.size(-2), R = x2.size(-2), M = x1.size(-1);
  if (rules::cdist_uses_mm(p, compute_mode, P, R)) {
    // sqrt(max(-2 a.b + |a|^2 + |b|^2, 0)), summed in that order as the cpu's.
    const Tensor a = expand_to(x1, batch), b = expand_to(x2, batch);
    const Tensor na = ember::sum(a * a, {-1}, true, std::nullopt);
    const Tensor nb = ember::sum(b * b, {-1}, true, std::nullopt).transpose(-2, -1);
    return ember::sqrt(ember::clamp_min(ember::matmul(a, b.transpose(-2, -1)).mul(-2) + na + nb, 0));
  }
  const Tensor a = as_double(expand_to(x1, batch)), b = as_double(expand_to(x2, batch));
  Tensor out = empty_cuda(shape, kFloat64);
  gpu::DistArgs args = dist_args(p, M);
  args.batch = P * R == 0 ? 0 : out.numel() / (P * R);
  args.P = P, args.R = R;
  args.a = data_f64(a), args.b = data_f64(b), args.out = data_f64(out);
  run_distance(op, gpu::DistMode::CdistForward, args);
  return out.to(x1.dtype());
}

Tensor _cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  const char* op = "_cdist_backward";
  const std::vector<int64_t> shape = rules::check_cdist_backward(op, gpu::kGpuDevice, grad, x1, x2, p, cdist);
  OptionalDeviceGuard guard(device_of(x1));
  const IntArrayRef batch = IntArrayRef(shape).slice(0, shape.size() - 2);
  const int64_t P = x1.size(-2), R = x2.size(-2), M = x1.size(-1);
  const Tensor a = as_double(expand_to(x1, batch)), b = as_double(expand_to(x2, batch));
  const Tensor g = as_double(grad), d = as_double(cdist);
  Tensor out = empty_cuda(a.sizes(), kFloat64);
  gpu::DistArgs args = dist_args(p, M);
  args.batch = P * M == 0 ? 0 : out.numel() / (P * M);
  args.P = P, args.R = R;
  args.a = data_f64(a), args.b = data_f64(b), args.grad = data_f64(g), args.dist = data_f64(d);
  args.out = data_f64(out);
  if (R == 0) out.zero_();
  run_distance(op, gpu::DistMode::CdistBackward, args);
  return sum_to_shape_of(out, x1).to(x1.dtype());
}

Tensor _pdist_forward(const Tensor& self, double p) {
  const char* op = "_pdist_forward";
  const int64_t K = rules::check_pdist(op, gpu::kGpuDevice, self, p);
  OptionalDeviceGuard guard(device_of(self));
  const Tensor x = as_double(self);
  Tensor out = empty_cuda({K}, kFloat64);
  gpu::DistArgs args = dist_args(p, self.size(1));
  args.P = self.size(0);
  args.a = data_f64(x), args.out = data_f64(out);
  run_distance(op, gpu::DistMode::PdistForward, args);
  return out.to(self.dtype());
}

Tensor _pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  const char* op = "_pdist_backward";
  rules::check_pdist_backward(op, gpu::kGpuDevice, grad, self, p, pdist);
  OptionalDeviceGuard guard(device_of(self));
  const Tensor x = as_double(self), g = as_double(grad), d = as_double(pdist);
  Tensor out = empty_cuda(self.sizes(), kFloat64);
  gpu::DistArgs args = dist_args(p, self.size(1));
  args.P = self.size(0);
  args.a = data_f64(x), args.grad = data_f64(g), args.dist = data_f64(d), args.out = data_f64(out);
  run_distance(op, gpu::DistMode::PdistBackward, args);
  return out.to(self.dtype());
}

// ---- embedding bags --------------------------------------------------------------------------------

// Note [Embedding bag outputs] in the cpu plugin: the same four tensors.
std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag(const Tensor& weight, const Tensor& indices,
                                                          const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                                                          bool sparse, const std::optional<Tensor>& per_sample_weights,
                                                          bool include_last_offset, int64_t padding_idx) {
  (void)sparse;  // the layout of the weight's gradient only
  const char* op = "_embedding_bag";
  const auto s = rules::check_embedding_bag(op, gpu::kGpuDevice, weight, indices, offsets, scale_grad_by_freq, mode,
                                            per_sample_weights, include_last_offset);
  OptionalDeviceGuard guard(device_of(weight));
  const int64_t B = s.bags, D = s.dim, n = indices.numel();
  check_rows(op, indices, weight.size(0), "rows of weight");
  // The offsets' rules need their values: one copy to the host (bags, not indices).
  const Tensor off = offsets.to(kInt64).contiguous();
  rules::check_bag_offsets(op, off.cpu().data_ptr<int64_t>(), off.numel(), n);
  const Tensor idx = indices.to(kInt64).contiguous(), w = as_double(weight);
  const bool has_psw = per_sample_weights && per_sample_weights->defined();
  const Tensor psw = has_psw ? as_double(*per_sample_weights) : Tensor();
  Tensor out = empty_cuda({B, D}, kFloat64), bag_size = empty_cuda({B}, kInt64), o2b = empty_cuda({n}, kInt64);
  Tensor maxi = mode == rules::kBagMax ? empty_cuda({B, D}, kInt64) : Tensor();
  gpu::BagArgs a;
  a.B = B, a.n = n, a.D = D, a.n_offsets = off.numel(), a.padding_idx = padding_idx, a.mode = mode;
  a.idx = static_cast<const int64_t*>(idx.data_ptr());
  a.offsets = static_cast<const int64_t*>(off.data_ptr());
  a.weight = data_f64(w);
  a.psw = has_psw ? data_f64(psw) : nullptr;
  a.out = data_f64(out);
  a.max_index = maxi.defined() ? static_cast<int64_t*>(maxi.data_ptr()) : nullptr;
  a.bag_size = static_cast<int64_t*>(bag_size.data_ptr());
  a.offset2bag = static_cast<int64_t*>(o2b.data_ptr());
  check_launch(gpu::launch_embedding_bag(a, stream()), op, kFloat64);
  const ScalarType it = indices.dtype();
  // Four tensors of their own, as the cpu's (mean mode's max_indices is a copy of bag_size).
  auto zeros_b = [&] { return ember::zeros({B}, TensorOptions().dtype(it).device(weight.device())); };
  const Tensor size_out = mode == rules::kBagSum ? zeros_b() : bag_size.to(it);
  const Tensor max_out = mode == rules::kBagMax ? maxi.to(it) : mode == rules::kBagMean ? size_out.clone() : zeros_b();
  return {out.to(weight.dtype()), o2b.to(it), size_out, max_out};
}

// The weight's gradient from the forward's offset2bag, bag_size and max_indices: each index's row
// gets its bag's gradient times its factor (per-sample weight, 1 / bag size in mean mode, 1 / the
// row's count with scale_grad_by_freq; 0 for padding_idx), added with atomics in float64.
Tensor _embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& offsets,
                               const Tensor& offset2bag, const Tensor& bag_size, const Tensor& maximum_indices,
                               int64_t num_weights, bool scale_grad_by_freq, int64_t mode, bool sparse,
                               const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  const char* op = "_embedding_bag_backward";
  (void)offsets;
  rules::check_embedding_bag_backward(op, gpu::kGpuDevice, grad, mode, sparse);
  OptionalDeviceGuard guard(device_of(grad));
  const int64_t B = grad.size(0), D = grad.size(1);
  const TensorOptions f64 = TensorOptions().dtype(kFloat64).device(grad.device());
  const Tensor g = as_double(grad);
  Tensor r = ember::zeros({num_weights, D}, f64);
  if (mode == rules::kBagMax) {
    EMBER_CHECK(maximum_indices.numel() == B * D,
                "[{}] argument 'maximum_indices': expected {} elements (bags x dim), got shape {}", op, B * D,
                maximum_indices.sizes());
    check_rows(op, maximum_indices, std::max<int64_t>(num_weights, 1), "rows");
    check_rows(op, bag_size, std::numeric_limits<int64_t>::max(), "indices");
    if (B * D == 0) return r.to(grad.dtype());
    // Empty bags (bag_size 0) send nothing: their gradient is masked to 0.
    const Tensor live = ember::gt(bag_size.to(kInt64).reshape({B, 1}), Scalar(int64_t{0}));
    r.scatter_add_(0, maximum_indices.to(kInt64).reshape({B, D}), ember::where(live, g, ember::zeros_like(g)));
    return r.to(grad.dtype());
  }
  check_rows(op, indices, num_weights, "rows (num_weights)");
  check_rows(op, offset2bag, std::max<int64_t>(B, 1), "bags");
  EMBER_CHECK(offset2bag.numel() == indices.numel(),
              "[{}] argument 'offset2bag': expected {} elements (indices'), got {}", op, indices.numel(),
              offset2bag.numel());
  if (mode == rules::kBagMean) check_rows(op, bag_size, std::numeric_limits<int64_t>::max(), "indices");
  const int64_t n = indices.numel();
  if (n == 0 || D == 0) return r.to(grad.dtype());
  const Tensor idx = indices.to(kInt64).reshape({n}), o2b = offset2bag.to(kInt64).reshape({n});
  Tensor f = per_sample_weights && per_sample_weights->defined() ? as_double(*per_sample_weights).reshape({n})
                                                                 : ember::ones({n}, f64);
  if (mode == rules::kBagMean)
    f = f / ember::clamp_min(ember::index_select(bag_size.to(kFloat64), 0, o2b), Scalar(1.0));
  if (scale_grad_by_freq) {
    Tensor counts = ember::zeros({num_weights}, f64);
    counts.scatter_add_(0, idx, ember::ones({n}, f64));
    f = f / ember::index_select(counts, 0, idx);
  }
  f = ember::masked_fill(f, ember::eq(idx, Scalar(padding_idx)), Scalar(0.0));
  r.index_add_(0, idx, ember::index_select(g, 0, o2b) * f.unsqueeze(1));
  return r.to(grad.dtype());
}

// d out[bag(i)] / d per_sample_weights[i] = weight[indices[i]]: the dot with the bag's gradient.
Tensor _embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                  const Tensor& offsets, const Tensor& offset2bag, int64_t mode,
                                                  int64_t padding_idx) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  (void)offsets;
  rules::check_embedding_bag_psw_backward(op, gpu::kGpuDevice, grad, weight, mode);
  OptionalDeviceGuard guard(device_of(grad));
  const int64_t B = grad.size(0), n = indices.numel();
  check_rows(op, indices, weight.size(0), "rows of weight");
  check_rows(op, offset2bag, std::max<int64_t>(B, 1), "bags");
  EMBER_CHECK(offset2bag.numel() == indices.numel(),
              "[{}] argument 'offset2bag': expected {} elements (indices'), got {}", op, indices.numel(),
              offset2bag.numel());
  const Tensor idx = indices.to(kInt64).reshape({n}), o2b = offset2bag.to(kInt64).reshape({n});
  const Tensor dots =
      ember::sum(ember::index_select(as_double(grad), 0, o2b) * ember::index_select(as_double(weight), 0, idx), {1},
                 false, std::nullopt);
  return ember::masked_fill(dots, ember::eq(idx, Scalar(padding_idx)), Scalar(0.0)).to(grad.dtype());
}

}  // namespace ember::EMBER_GPU_NS
