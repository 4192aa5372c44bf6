// The Core ATen nn kernels on the CPU: _softmax/_log_softmax (+out, backward_data),
// native_dropout (+backward), embedding_dense_backward, _embedding_bag (+backwards),
// _cdist_forward/_cdist_backward and _pdist_forward/_pdist_backward. Checks and shapes are shared
// with the meta plugin (ember/native/NNCoreRules.h).
//
// Values are computed in double (inputs of any float dtype are converted once), except the
// float32 softmax along a contiguous last dimension (reduction.cpp's vector path) and the
// euclidean cdist of the matrix-product path, which runs on BLAS in the input's precision as
// LibTorch's.
#include <cblas.h>

#include <cmath>
#include <limits>
#include <vector>

#include "CPUKernels.h"
#include "Loops.h"
#include "NN.h"
#include "Reduce.h"
#include "VecMath.h"
#include "ember/native/NNCoreRules.h"

namespace ember::cpu {
namespace {

namespace rules = native::nn;

// t as a contiguous float64 tensor (t itself when it is one).
Tensor as_double(const Tensor& t) { return nn::compute_input(t, kFloat64); }

// A fresh float64 result converted to dtype dt.
Tensor to_dt(const Tensor& r, ScalarType dt) { return nn::to_dtype_of(r, dt); }

// t with dimension w moved last, as a contiguous float64 tensor: its lines along w are rows.
Tensor rows_along(const Tensor& t, int64_t w) { return as_double(dim_last_view(t, w)); }

// A float64 tensor of rows (self's shape with dimension w last) written into a new tensor of
// self's shape and dtype dt.
Tensor from_rows(const Tensor& rows, IntArrayRef sizes, int64_t w, ScalarType dt) {
  Tensor out = empty_cpu(sizes, dt);
  Tensor ov = dim_last_view(out, w);
  cpu::copy_(ov, rows, false);
  return out;
}

template <class F>
void for_rows(int64_t rows, int64_t len, const F& f) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

template <bool Log>
Tensor softmax_backward_impl(const char* op, const Tensor& grad_output, const Tensor& output, int64_t dim,
                             ScalarType input_dtype) {
  const int64_t w = rules::check_softmax_backward(op, kCPU, grad_output, output, dim, input_dtype);
  if (grad_output.dim() == 0 || grad_output.numel() == 0) {
    Tensor r = empty_cpu(grad_output.sizes(), grad_output.dtype());
    if (r.numel() == 0) return r;
    // 0-d: one element along the dim.
    const double g = as_double(grad_output).data_ptr<double>()[0], y = as_double(output).data_ptr<double>()[0];
    Tensor d = empty_cpu({}, kFloat64);
    d.data_ptr<double>()[0] = Log ? g - std::exp(y) * g : (g - g * y) * y;
    return to_dt(d, grad_output.dtype());
  }
  const int64_t len = grad_output.size(w), rows = grad_output.numel() / len;
  if (grad_output.dtype() == kFloat32 && w == grad_output.dim() - 1 && grad_output.is_contiguous() &&
      output.is_contiguous()) {
    // Rows along a contiguous last dim in float, the row sum in double.
    Tensor r = empty_cpu(grad_output.sizes(), kFloat32);
    const float* gp = grad_output.data_ptr<float>();
    const float* yp = output.data_ptr<float>();
    float* rp = r.data_ptr<float>();
    for_rows(rows, len, [&](int64_t i) {
      const float* gi = gp + i * len;
      const float* yi = yp + i * len;
      float* ri = rp + i * len;
      // 16 float partial sums (independent lanes, so the loop vectorises), added up in double.
      float part[16] = {};
      int64_t k = 0;
      for (; k + 16 <= len; k += 16)
        for (int j = 0; j < 16; ++j) part[j] += Log ? gi[k + j] : gi[k + j] * yi[k + j];
      double acc = 0;
      for (float p : part) acc += p;
      for (; k < len; ++k) acc += Log ? gi[k] : static_cast<double>(gi[k]) * yi[k];
      const float s = static_cast<float>(acc);
      if (Log) {
        // exp(y) in vector form where the CPU has it.
        if (!vec_unary_f32(VecOp::Exp, yi, ri, len))
          for (int64_t q = 0; q < len; ++q) ri[q] = std::exp(yi[q]);
        for (int64_t q = 0; q < len; ++q) ri[q] = gi[q] - ri[q] * s;
      } else {
        for (int64_t q = 0; q < len; ++q) ri[q] = (gi[q] - s) * yi[q];
      }
    });
    return r;
  }
  const Tensor g = rows_along(grad_output, w), y = rows_along(output, w);
  Tensor r = empty_cpu(g.sizes(), kFloat64);
  const double* gp = g.data_ptr<double>();
  const double* yp = y.data_ptr<double>();
  double* rp = r.data_ptr<double>();
  for_rows(rows, len, [&](int64_t i) {
    const double* gi = gp + i * len;
    const double* yi = yp + i * len;
    double* ri = rp + i * len;
    double s = 0;
    if (Log) {
      for (int64_t k = 0; k < len; ++k) s += gi[k];
      for (int64_t k = 0; k < len; ++k) ri[k] = gi[k] - std::exp(yi[k]) * s;
    } else {
      for (int64_t k = 0; k < len; ++k) s += gi[k] * yi[k];
      for (int64_t k = 0; k < len; ++k) ri[k] = (gi[k] - s) * yi[k];
    }
  });
  return from_rows(r, grad_output.sizes(), w, grad_output.dtype());
}

template <bool Log>
Tensor& softmax_out_impl(const char* op, const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  rules::check_softmax(op, kCPU, self, dim, half_to_float);
  check_out(op, out, self.dtype());
  return write_out(out, Log ? cpu::log_softmax_int(self, dim, std::nullopt) : cpu::softmax_int(self, dim, std::nullopt),
                   op);
}

}  // namespace

// ---- softmax ---------------------------------------------------------------------------------

// The kernels of softmax.int/log_softmax.int (reduction.cpp) compute these; _softmax adds
// LibTorch's dtype rules (no dtype argument, no float16, no half-to-float).
Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  rules::check_softmax("_softmax", kCPU, self, dim, half_to_float);
  return cpu::softmax_int(self, dim, std::nullopt);
}
Tensor& _softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  return softmax_out_impl<false>("_softmax", self, dim, half_to_float, out);
}
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  rules::check_softmax("_log_softmax", kCPU, self, dim, half_to_float);
  return cpu::log_softmax_int(self, dim, std::nullopt);
}
Tensor& _log_softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  return softmax_out_impl<true>("_log_softmax", self, dim, half_to_float, out);
}
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward_impl<false>("_softmax_backward_data", grad_output, output, dim, input_dtype);
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return softmax_backward_impl<true>("_log_softmax_backward_data", grad_output, output, dim, input_dtype);
}

// ---- dropout ---------------------------------------------------------------------------------

// The mask is a Bernoulli(1 - p) draw per element from the default generator (bernoulli_'s
// counter-based stream, so manual_seed fixes it); output = input * mask / (1 - p), zeros for p = 1.
// Evaluation returns a copy of input and an all-true mask, as LibTorch.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  const char* op = "native_dropout";
  const bool active = rules::check_native_dropout(op, kCPU, input, p, train);
  Tensor mask = empty_cpu(input.sizes(), kBool);
  if (!active) {
    Tensor out = empty_cpu(input.sizes(), input.dtype());
    cpu::copy_(out, input, false);
    cpu::fill_(mask, Scalar(true));
    return {out, mask};
  }
  if (mask.numel() > 0) cpu::bernoulli_float(mask, 1 - p, std::nullopt);
  const double scale = p == 1 ? 0.0 : 1.0 / (1 - p);
  return {cpu::native_dropout_backward(input, mask, scale), mask};
}

Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  const char* op = "native_dropout_backward";
  rules::check_native_dropout_backward(op, kCPU, grad_output, mask);
  const ScalarType dt = grad_output.dtype(), ct = compute_dtype(dt);
  const Tensor g = nn::compute_input(grad_output, ct), m = nn::compute_input(mask, kBool);
  Tensor r = empty_cpu(grad_output.sizes(), ct);
  const bool* mp = m.data_ptr<bool>();
  const int64_t n = r.numel();
  visit_compute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* gp = g.data_ptr<T>();
      T* rp = r.data_ptr<T>();
      const T s = static_cast<T>(scale);
      parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) rp[i] = mp[i] ? gp[i] * s : T(0);
      });
    }
  });
  return to_dt(r, dt);
}

// ---- embeddings ------------------------------------------------------------------------------

namespace {

// Index values as int64 (indices are int32 or int64), checked to lie in [0, rows).
std::vector<int64_t> index_values(const char* op, const Tensor& indices, int64_t rows, const char* what) {
  const Tensor i = nn::compute_input(indices, kInt64);
  const int64_t* p = i.data_ptr<int64_t>();
  std::vector<int64_t> v(p, p + i.numel());
  for (int64_t x : v)
    if (x < 0 || x >= rows) EMBER_THROW(IndexError, "[{}] index {} is out of range for {} {}", op, x, rows, what);
  return v;
}

// How often each row is indexed (scale_grad_by_freq).
std::vector<int64_t> counts_of(const std::vector<int64_t>& idx, int64_t rows) {
  std::vector<int64_t> c(static_cast<size_t>(rows), 0);
  for (int64_t x : idx) ++c[static_cast<size_t>(x)];
  return c;
}

Tensor int_tensor(const std::vector<int64_t>& v, IntArrayRef sizes, ScalarType dt) {
  Tensor t = empty_cpu(sizes, kInt64);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return to_dt(t, dt);
}

}  // namespace

// grad_weight[indices[i]] += grad_output[i] (divided by the index's count with
// scale_grad_by_freq), rows equal to padding_idx left out; accumulated in order, in double.
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  const int64_t D = rules::check_embedding_dense_backward(op, kCPU, grad_output, indices, num_weights);
  const std::vector<int64_t> idx = index_values(op, indices, num_weights, "rows (num_weights)");
  const std::vector<int64_t> counts = scale_grad_by_freq ? counts_of(idx, num_weights) : std::vector<int64_t>();
  const Tensor g = as_double(grad_output);
  Tensor r = empty_cpu({num_weights, D}, kFloat64);
  double* rp = r.data_ptr<double>();
  std::fill(rp, rp + r.numel(), 0.0);
  const double* gp = g.data_ptr<double>();
  // Columns split over threads: each thread owns its columns of every row.
  parallel_for(0, D, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, static_cast<int64_t>(idx.size()))),
               [&](int64_t c0, int64_t c1) {
                 for (size_t i = 0; i < idx.size(); ++i) {
                   const int64_t row = idx[i];
                   if (row == padding_idx) continue;
                   const double s =
                       scale_grad_by_freq ? 1.0 / static_cast<double>(counts[static_cast<size_t>(row)]) : 1.0;
                   const double* gi = gp + static_cast<int64_t>(i) * D;
                   double* ri = rp + row * D;
                   for (int64_t c = c0; c < c1; ++c) ri[c] += gi[c] * s;
                 }
               });
  return to_dt(r, grad_output.dtype());
}

// Note [Embedding bag outputs]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// _embedding_bag returns LibTorch's four tensors: the bags (B, D); offset2bag, the bag of each
// index; bag_size, the indices each bag reduces (padding_idx left out; zeros in sum mode, which
// does not need it, as LibTorch); and max_indices: the weight row each maximum came from (B, D) in
// max mode (0 for an empty bag), bag_size again in mean mode and zeros (B) in sum mode. The three
// index outputs take the indices' dtype. Empty bags give zeros. The backwards read offset2bag,
// bag_size and max_indices from these outputs.
std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag(const Tensor& weight, const Tensor& indices,
                                                          const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                                                          bool sparse, const std::optional<Tensor>& per_sample_weights,
                                                          bool include_last_offset, int64_t padding_idx) {
  (void)sparse;  // the layout of the weight's gradient only
  const char* op = "_embedding_bag";
  const auto s = rules::check_embedding_bag(op, kCPU, weight, indices, offsets, scale_grad_by_freq, mode,
                                            per_sample_weights, include_last_offset);
  const int64_t B = s.bags, D = s.dim, rows = weight.size(0);
  const std::vector<int64_t> idx = index_values(op, indices, rows, "rows of weight");
  const int64_t n = static_cast<int64_t>(idx.size());
  const Tensor off_t = nn::compute_input(offsets, kInt64);
  const int64_t* off = off_t.data_ptr<int64_t>();
  rules::check_bag_offsets(op, off, offsets.numel(), n);
  auto bag_end = [&](int64_t b) { return b + 1 < offsets.numel() ? off[b + 1] : n; };
  std::vector<int64_t> offset2bag(static_cast<size_t>(n), 0), bag_size(static_cast<size_t>(B), 0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = off[b]; i < bag_end(b); ++i) {
      offset2bag[static_cast<size_t>(i)] = b;
      if (idx[static_cast<size_t>(i)] != padding_idx) ++bag_size[static_cast<size_t>(b)];
    }
  // Indices past the last bag (include_last_offset with offsets[-1] < n) belong to no bag.
  if (B > 0)
    for (int64_t i = bag_end(B - 1); i < n; ++i) offset2bag[static_cast<size_t>(i)] = B - 1;
  const Tensor w = as_double(weight);
  const Tensor psw = per_sample_weights && per_sample_weights->defined() ? as_double(*per_sample_weights) : Tensor();
  const double* wp = w.data_ptr<double>();
  const double* pp = psw.defined() ? psw.data_ptr<double>() : nullptr;
  Tensor out = empty_cpu({B, D}, kFloat64);
  double* op_ = out.data_ptr<double>();
  std::vector<int64_t> maxi(mode == rules::kBagMax ? static_cast<size_t>(B * D) : 0, 0);
  parallel_for(
      0, B,
      std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D * std::max<int64_t>(1, n / std::max<int64_t>(B, 1)))),
      [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          double* o = op_ + b * D;
          const bool is_max = mode == rules::kBagMax;
          std::fill(o, o + D, is_max ? -std::numeric_limits<double>::infinity() : 0.0);
          bool any = false;
          for (int64_t i = off[b]; i < bag_end(b); ++i) {
            const int64_t row = idx[static_cast<size_t>(i)];
            if (row == padding_idx) continue;
            const double* wr = wp + row * D;
            if (is_max) {
              for (int64_t c = 0; c < D; ++c)
                if (!any || wr[c] > o[c] || std::isnan(wr[c])) {
                  if (any && std::isnan(o[c])) continue;
                  o[c] = wr[c];
                  maxi[static_cast<size_t>(b * D + c)] = row;
                }
            } else {
              const double f = pp ? pp[i] : 1.0;
              for (int64_t c = 0; c < D; ++c) o[c] += wr[c] * f;
            }
            any = true;
          }
          if (!any) std::fill(o, o + D, 0.0);
          if (mode == rules::kBagMean && any) {
            const double inv = 1.0 / static_cast<double>(bag_size[static_cast<size_t>(b)]);
            for (int64_t c = 0; c < D; ++c) o[c] *= inv;
          }
        }
      });
  const ScalarType it = indices.dtype();
  const std::vector<int64_t> zeros_b(static_cast<size_t>(B), 0);
  const Tensor bag_size_t = int_tensor(mode == rules::kBagSum ? zeros_b : bag_size, {B}, it);
  Tensor max_indices;
  if (mode == rules::kBagMax)
    max_indices = int_tensor(maxi, {B, D}, it);
  else
    max_indices = int_tensor(mode == rules::kBagMean ? bag_size : zeros_b, {B}, it);
  return {to_dt(out, weight.dtype()), int_tensor(offset2bag, {n}, it), bag_size_t, max_indices};
}

// The weight's gradient (num_weights, D) of _embedding_bag, from its offset2bag, bag_size and
// max_indices outputs (Note [Embedding bag outputs]).
Tensor _embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& offsets,
                               const Tensor& offset2bag, const Tensor& bag_size, const Tensor& maximum_indices,
                               int64_t num_weights, bool scale_grad_by_freq, int64_t mode, bool sparse,
                               const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  const char* op = "_embedding_bag_backward";
  (void)offsets;
  rules::check_embedding_bag_backward(op, kCPU, grad, mode, sparse);
  const int64_t B = grad.size(0), D = grad.size(1);
  const Tensor g = as_double(grad);
  const double* gp = g.data_ptr<double>();
  Tensor r = empty_cpu({num_weights, D}, kFloat64);
  double* rp = r.data_ptr<double>();
  std::fill(rp, rp + r.numel(), 0.0);
  if (mode == rules::kBagMax) {
    EMBER_CHECK(maximum_indices.numel() == B * D,
                "[{}] argument 'maximum_indices': expected {} elements (bags x dim), got shape {}", op, B * D,
                maximum_indices.sizes());
    const std::vector<int64_t> mi = index_values(op, maximum_indices, std::max<int64_t>(num_weights, 1), "rows");
    const std::vector<int64_t> bs = index_values(op, bag_size, std::numeric_limits<int64_t>::max(), "indices");
    for (int64_t b = 0; b < B; ++b) {
      if (bs[static_cast<size_t>(b)] == 0) continue;
      for (int64_t c = 0; c < D; ++c) rp[mi[static_cast<size_t>(b * D + c)] * D + c] += gp[b * D + c];
    }
    return to_dt(r, grad.dtype());
  }
  const std::vector<int64_t> idx = index_values(op, indices, num_weights, "rows (num_weights)");
  const std::vector<int64_t> o2b = index_values(op, offset2bag, std::max<int64_t>(B, 1), "bags");
  EMBER_CHECK(o2b.size() == idx.size(), "[{}] argument 'offset2bag': expected {} elements (indices'), got {}", op,
              idx.size(), o2b.size());
  std::vector<int64_t> bs;
  if (mode == rules::kBagMean) bs = index_values(op, bag_size, std::numeric_limits<int64_t>::max(), "indices");
  const std::vector<int64_t> counts = scale_grad_by_freq ? counts_of(idx, num_weights) : std::vector<int64_t>();
  const Tensor psw = per_sample_weights && per_sample_weights->defined() ? as_double(*per_sample_weights) : Tensor();
  const double* pp = psw.defined() ? psw.data_ptr<double>() : nullptr;
  for (size_t i = 0; i < idx.size(); ++i) {
    const int64_t row = idx[i], b = o2b[i];
    if (row == padding_idx) continue;
    double f = pp ? pp[i] : 1.0;
    if (mode == rules::kBagMean) f /= static_cast<double>(std::max<int64_t>(bs[static_cast<size_t>(b)], 1));
    if (scale_grad_by_freq) f /= static_cast<double>(counts[static_cast<size_t>(row)]);
    for (int64_t c = 0; c < D; ++c) rp[row * D + c] += gp[b * D + c] * f;
  }
  return to_dt(r, grad.dtype());
}

// d out[bag(i)] / d per_sample_weights[i] = weight[indices[i]]: the dot with the bag's gradient.
Tensor _embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                  const Tensor& offsets, const Tensor& offset2bag, int64_t mode,
                                                  int64_t padding_idx) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  (void)offsets;
  rules::check_embedding_bag_psw_backward(op, kCPU, grad, weight, mode);
  const int64_t B = grad.size(0), D = grad.size(1);
  const std::vector<int64_t> idx = index_values(op, indices, weight.size(0), "rows of weight");
  const std::vector<int64_t> o2b = index_values(op, offset2bag, std::max<int64_t>(B, 1), "bags");
  EMBER_CHECK(o2b.size() == idx.size(), "[{}] argument 'offset2bag': expected {} elements (indices'), got {}", op,
              idx.size(), o2b.size());
  const Tensor g = as_double(grad), w = as_double(weight);
  const double* gp = g.data_ptr<double>();
  const double* wp = w.data_ptr<double>();
  Tensor r = empty_cpu({static_cast<int64_t>(idx.size())}, kFloat64);
  double* rp = r.data_ptr<double>();
  for (size_t i = 0; i < idx.size(); ++i) {
    double s = 0;
    if (idx[i] != padding_idx)
      for (int64_t c = 0; c < D; ++c) s += gp[o2b[i] * D + c] * wp[idx[i] * D + c];
    rp[i] = s;
  }
  return to_dt(r, grad.dtype());
}

// ---- distances -------------------------------------------------------------------------------

namespace {

// The distances and their gradients are ember/native/DistanceMath.h's (Note [Distance p cases]).
double dist_of(const double* a, const double* b, int64_t m, double p) { return native::dist_value(a, b, m, p); }

// grad_a += g * d dist(a, b) / d a.
void add_dist_grad(double* ga, const double* a, const double* b, int64_t m, double p, double dist, double g) {
  if (native::dist_grad_vanishes(p, dist, g)) return;
  // p = inf: the largest |a - b| gets the gradient. Recomputed here in double: `dist` is the forward's
  // result in the input's dtype, which a float32 difference need not equal once widened.
  const double dmax = std::isinf(p) ? native::max_abs_diff(a, b, m) : 0.0;
  for (int64_t k = 0; k < m; ++k) ga[k] += g * native::dist_grad_factor(a[k] - b[k], p, dist, dmax);
}

// Batch i of a tensor expanded to `batch` (its own batch dims broadcast): the offset of its matrix.
struct BatchIndex {
  std::vector<int64_t> batch;  // the broadcast batch shape
  int64_t count = 1;
  // A (..., r, c) tensor expanded to batch + [r, c], contiguous float64.
  Tensor expand(const Tensor& t) const {
    std::vector<int64_t> s(batch);
    s.push_back(t.size(-2));
    s.push_back(t.size(-1));
    return as_double(t.expand(s));
  }
};

BatchIndex batch_of(const std::vector<int64_t>& out_shape) {
  BatchIndex bi;
  bi.batch.assign(out_shape.begin(), out_shape.end() - 2);
  for (int64_t s : bi.batch) bi.count *= s;
  return bi;
}

// sqrt(max(|a|^2 + |b|^2 - 2 a.b, 0)) for every pair, with the product on BLAS in T.
template <class T>
void euclid_mm(const T* a, const T* b, T* out, int64_t P, int64_t R, int64_t M) {
  std::vector<T> na(static_cast<size_t>(P)), nb(static_cast<size_t>(R));
  for (int64_t i = 0; i < P; ++i) {
    T s = 0;
    for (int64_t k = 0; k < M; ++k) s += a[i * M + k] * a[i * M + k];
    na[static_cast<size_t>(i)] = s;
  }
  for (int64_t j = 0; j < R; ++j) {
    T s = 0;
    for (int64_t k = 0; k < M; ++k) s += b[j * M + k] * b[j * M + k];
    nb[static_cast<size_t>(j)] = s;
  }
  if (P > 0 && R > 0) {
    if (M == 0) {
      std::fill(out, out + P * R, T(0));
    } else if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(P), static_cast<int>(R),
                  static_cast<int>(M), -2.0f, a, static_cast<int>(M), b, static_cast<int>(M), 0.0f, out,
                  static_cast<int>(R));
    } else {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(P), static_cast<int>(R),
                  static_cast<int>(M), -2.0, a, static_cast<int>(M), b, static_cast<int>(M), 0.0, out,
                  static_cast<int>(R));
    }
  }
  for (int64_t i = 0; i < P; ++i)
    for (int64_t j = 0; j < R; ++j) {
      T& v = out[i * R + j];
      v = std::sqrt(std::max(v + na[static_cast<size_t>(i)] + nb[static_cast<size_t>(j)], T(0)));
    }
}

}  // namespace

Tensor _cdist_forward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  const char* op = "_cdist_forward";
  const std::vector<int64_t> shape = rules::check_cdist(op, kCPU, x1, x2, p, compute_mode);
  const BatchIndex bi = batch_of(shape);
  const int64_t P = x1.size(-2), R = x2.size(-2), M = x1.size(-1);
  const ScalarType dt = x1.dtype();
  if (rules::cdist_uses_mm(p, compute_mode, P, R)) {
    std::vector<int64_t> s1(bi.batch), s2(bi.batch);
    s1.insert(s1.end(), {P, M});
    s2.insert(s2.end(), {R, M});
    const Tensor a = nn::compute_input(x1.expand(s1), dt), b = nn::compute_input(x2.expand(s2), dt);
    Tensor out = empty_cpu(shape, dt);
    for (int64_t k = 0; k < bi.count; ++k) {
      if (dt == kFloat32)
        euclid_mm(a.data_ptr<float>() + k * P * M, b.data_ptr<float>() + k * R * M, out.data_ptr<float>() + k * P * R,
                  P, R, M);
      else
        euclid_mm(a.data_ptr<double>() + k * P * M, b.data_ptr<double>() + k * R * M,
                  out.data_ptr<double>() + k * P * R, P, R, M);
    }
    return out;
  }
  const Tensor a = bi.expand(x1), b = bi.expand(x2);
  Tensor out = empty_cpu(shape, kFloat64);
  const double* ap = a.data_ptr<double>();
  const double* bp = b.data_ptr<double>();
  double* op_ = out.data_ptr<double>();
  parallel_for(0, bi.count * P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, R * M)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const int64_t k = r / P;
                   for (int64_t j = 0; j < R; ++j) op_[r * R + j] = dist_of(ap + r * M, bp + (k * R + j) * M, M, p);
                 }
               });
  return to_dt(out, dt);
}

// The gradient with respect to x1 (x1's shape: summed over the batch dimensions it was
// broadcast along); cdist is the forward's result, grad its gradient.
Tensor _cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  const char* op = "_cdist_backward";
  const std::vector<int64_t> shape = rules::check_cdist_backward(op, kCPU, grad, x1, x2, p, cdist);
  const BatchIndex bi = batch_of(shape);
  const int64_t P = x1.size(-2), R = x2.size(-2), M = x1.size(-1);
  const Tensor a = bi.expand(x1), b = bi.expand(x2), g = as_double(grad), d = as_double(cdist);
  // Output batch k reads x1's batch home[k] (x1's batch dimensions broadcast to the output's).
  std::vector<int64_t> home(static_cast<size_t>(bi.count));
  {
    std::vector<int64_t> x1b(x1.sizes().begin(), x1.sizes().end() - 2);
    for (int64_t k = 0; k < bi.count; ++k) {
      int64_t rem = k, h = 0, stride = 1;
      for (int64_t dd = static_cast<int64_t>(bi.batch.size()) - 1; dd >= 0; --dd) {
        const int64_t c = rem % bi.batch[static_cast<size_t>(dd)];
        rem /= bi.batch[static_cast<size_t>(dd)];
        const int64_t xd = dd - (static_cast<int64_t>(bi.batch.size()) - static_cast<int64_t>(x1b.size()));
        if (xd >= 0) {
          const int64_t xs = x1b[static_cast<size_t>(xd)];
          h += (xs == 1 ? 0 : c) * stride;
          stride *= xs;
        }
      }
      home[static_cast<size_t>(k)] = h;
    }
  }
  Tensor ga = empty_cpu(x1.sizes(), kFloat64);
  double* gap = ga.data_ptr<double>();
  std::fill(gap, gap + ga.numel(), 0.0);
  const double* ap = a.data_ptr<double>();
  const double* bp = b.data_ptr<double>();
  const double* gp = g.data_ptr<double>();
  const double* dp = d.data_ptr<double>();
  // Rows i split over threads; the batches that share x1's batch add into it in turn.
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, bi.count * R * M)),
               [&](int64_t i0, int64_t i1) {
                 for (int64_t k = 0; k < bi.count; ++k)
                   for (int64_t i = i0; i < i1; ++i) {
                     const int64_t r = k * P + i;
                     double* gr = gap + (home[static_cast<size_t>(k)] * P + i) * M;
                     for (int64_t j = 0; j < R; ++j)
                       add_dist_grad(gr, ap + r * M, bp + (k * R + j) * M, M, p, dp[r * R + j], gp[r * R + j]);
                   }
               });
  return to_dt(ga, x1.dtype());
}

Tensor _pdist_forward(const Tensor& self, double p) {
  const char* op = "_pdist_forward";
  const int64_t K = rules::check_pdist(op, kCPU, self, p);
  const int64_t N = self.size(0), M = self.size(1);
  const Tensor x = as_double(self);
  const double* xp = x.data_ptr<double>();
  Tensor out = empty_cpu({K}, kFloat64);
  double* op_ = out.data_ptr<double>();
  // Row i's pairs (i, j > i) start at i * N - i (i + 1) / 2.
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * M)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t base = i * N - i * (i + 1) / 2;
      for (int64_t j = i + 1; j < N; ++j) op_[base + (j - i - 1)] = dist_of(xp + i * M, xp + j * M, M, p);
    }
  });
  return to_dt(out, self.dtype());
}

Tensor _pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  const char* op = "_pdist_backward";
  rules::check_pdist_backward(op, kCPU, grad, self, p, pdist);
  const int64_t N = self.size(0), M = self.size(1);
  const Tensor x = as_double(self), g = as_double(grad), d = as_double(pdist);
  const double* xp = x.data_ptr<double>();
  const double* gp = g.data_ptr<double>();
  const double* dp = d.data_ptr<double>();
  Tensor r = empty_cpu({N, M}, kFloat64);
  double* rp = r.data_ptr<double>();
  std::fill(rp, rp + r.numel(), 0.0);
  // Row i gathers its pairs with every other row j (the pair's index is that of (min, max)).
  parallel_for(0, N, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * M)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < N; ++j) {
        if (j == i) continue;
        const int64_t lo = std::min(i, j), hi = std::max(i, j);
        const int64_t k = lo * N - lo * (lo + 1) / 2 + (hi - lo - 1);
        add_dist_grad(rp + i * M, xp + i * M, xp + j * M, M, p, dp[k], gp[k]);
      }
  });
  return to_dt(r, self.dtype());
}

}  // namespace ember::cpu
