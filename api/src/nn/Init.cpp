// ember::nn::init, with PyTorch's formulas (torch/nn/init.py).
#include "ember/nn/Init.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/api/Operators.h"
#include "ember/core/LocalState.h"
#include "ember/generated/Functions.h"

namespace ember::nn::init {

namespace {

void check_defined(const Tensor& t, const char* fn) {
  EMBER_CHECK(t.defined(), "[{}] tensor: expected a defined tensor, got an undefined one", fn);
}

void check_floating(const Tensor& t, const char* fn) {
  check_defined(t, fn);
  EMBER_CHECK_TYPE(t.is_floating_point(), "[{}] tensor: expected a floating-point tensor, got {}", fn, t.dtype());
}

int64_t correct_fan(const Tensor& tensor, FanModeType mode) {
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out;
}

// Horner's rule: c[0] * w^(n-1) + ... + c[n-1].
Tensor polynomial(const Tensor& w, std::initializer_list<double> c) {
  auto it = c.begin();
  Tensor p = full_like(w, *it++);
  for (; it != c.end(); ++it) p = p * w + *it;
  return p;
}

// erfinv of a float64 tensor with values in (-1, 1), from the operators Ember has (there is no
// erfinv operator yet): Giles' single-precision approximation ("Approximating the erfinv
// function", GPU Computing Gems, 2011), then two Newton steps on erf(y) = x, which bring it to
// double precision.
Tensor erfinv_f64(const Tensor& x) {
  const Tensor w = ((1 - x) * (1 + x)).log().neg();
  const Tensor central = polynomial(w - 2.5, {2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                                              0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941});
  const Tensor tail = polynomial(w.sqrt() - 3, {-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                                                0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682});
  Tensor y = where(w < 5, central, tail) * x;
  const double two_over_sqrt_pi = 2.0 / std::sqrt(M_PI);
  for (int step = 0; step < 2; ++step) y = y - (y.erf() - x) / ((y * y).neg().exp() * two_over_sqrt_pi);
  return y;
}

double norm_cdf(double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; }

// Householder QR of the row-major m x n matrix `a` (m >= n); returns the m x n Q whose R has a
// non-negative diagonal (PyTorch's orthogonal_ multiplies Q by sign(diag(R))). Written here
// because Ember has no QR (LAPACK) operator yet; n and m are a weight's sizes, so O(m n^2) on
// the host is cheap next to training.
std::vector<double> orthonormal_q(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> vs(static_cast<size_t>(n));
  std::vector<double> r_diag(static_cast<size_t>(n));
  auto at = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
  for (int64_t k = 0; k < n; ++k) {
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += at(i, k) * at(i, k);
    norm = std::sqrt(norm);
    const double alpha = at(k, k) > 0 ? -norm : norm;
    std::vector<double> v(static_cast<size_t>(m - k));
    for (int64_t i = k; i < m; ++i) v[static_cast<size_t>(i - k)] = at(i, k);
    v[0] -= alpha;
    double vnorm = 0;
    for (double e : v) vnorm += e * e;
    vnorm = std::sqrt(vnorm);
    if (vnorm > 0) {
      for (double& e : v) e /= vnorm;
      for (int64_t j = k; j < n; ++j) {  // A[k:, k:] -= 2 v (v^T A[k:, k:])
        double dot = 0;
        for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * at(i, j);
        for (int64_t i = k; i < m; ++i) at(i, j) -= 2 * v[static_cast<size_t>(i - k)] * dot;
      }
    }
    r_diag[static_cast<size_t>(k)] = at(k, k);
    vs[static_cast<size_t>(k)] = vnorm > 0 ? std::move(v) : std::vector<double>();
  }
  // Q = H_0 ... H_{n-1} times the first n columns of the identity.
  std::vector<double> q(static_cast<size_t>(m * n), 0.0);
  auto qa = [&](int64_t i, int64_t j) -> double& { return q[static_cast<size_t>(i * n + j)]; };
  for (int64_t j = 0; j < n; ++j) qa(j, j) = 1;
  for (int64_t k = n - 1; k >= 0; --k) {
    const auto& v = vs[static_cast<size_t>(k)];
    if (v.empty()) continue;
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * qa(i, j);
      for (int64_t i = k; i < m; ++i) qa(i, j) -= 2 * v[static_cast<size_t>(i - k)] * dot;
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const double d = r_diag[static_cast<size_t>(j)];
    const double sign = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
    for (int64_t i = 0; i < m; ++i) qa(i, j) *= sign;
  }
  return q;
}

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  return std::visit(
      [&](const auto& kind) -> double {
        using K = std::decay_t<decltype(kind)>;
        if constexpr (std::is_same_v<K, enumtype::kTanh>) {
          return 5.0 / 3;
        } else if constexpr (std::is_same_v<K, enumtype::kReLU>) {
          return std::sqrt(2.0);
        } else if constexpr (std::is_same_v<K, enumtype::kLeakyReLU>) {
          return std::sqrt(2.0 / (1 + param * param));
        } else if constexpr (std::is_same_v<K, enumtype::kSELU>) {
          return 3.0 / 4;
        } else {
          return 1.0;  // linear, convolutions, sigmoid
        }
      },
      nonlinearity);
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  check_defined(tensor, "_calculate_fan_in_and_fan_out");
  EMBER_CHECK(tensor.dim() >= 2,
              "[_calculate_fan_in_and_fan_out] Fan in and fan out can not be computed for tensor with fewer than 2 "
              "dimensions (got {})",
              tensor.dim());
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor constant_(Tensor tensor, Scalar value) {
  check_defined(tensor, "constant_");
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }

Tensor zeros_(Tensor tensor) {
  check_defined(tensor, "zeros_");
  NoGradGuard no_grad;
  tensor.zero_();
  return tensor;
}

Tensor eye_(Tensor matrix) {
  check_defined(matrix, "eye_");
  EMBER_CHECK(matrix.dim() == 2, "[eye_] Only tensors with 2 dimensions are supported (got {})", matrix.dim());
  NoGradGuard no_grad;
  matrix.zero_();
  matrix.diagonal().fill_(1);
  return matrix;
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  check_defined(tensor, "dirac_");
  const int64_t dims = tensor.dim();
  EMBER_CHECK(dims >= 3 && dims <= 5, "[dirac_] Only tensors with 3, 4, or 5 dimensions are supported (got {})", dims);
  EMBER_CHECK(groups > 0 && tensor.size(0) % groups == 0,
              "[dirac_] groups: dim 0 ({}) must be divisible by groups, got groups={}", tensor.size(0), groups);
  NoGradGuard no_grad;
  const int64_t out_chans_per_grp = tensor.size(0) / groups;
  const int64_t min_dim = std::min(out_chans_per_grp, tensor.size(1));
  tensor.zero_();
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < min_dim; ++d) {
      Tensor t = tensor.select(0, g * out_chans_per_grp + d).select(0, d);
      while (t.dim() > 0) t = t.select(0, t.size(0) / 2);
      t.fill_(1);
    }
  }
  return tensor;
}

Tensor uniform_(Tensor tensor, double low, double high, std::optional<Generator> generator) {
  check_floating(tensor, "uniform_");
  NoGradGuard no_grad;
  tensor.uniform_(low, high, std::move(generator));
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std, std::optional<Generator> generator) {
  check_floating(tensor, "normal_");
  NoGradGuard no_grad;
  tensor.normal_(mean, std, std::move(generator));
  return tensor;
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b, std::optional<Generator> generator) {
  check_floating(tensor, "trunc_normal_");
  EMBER_CHECK(std > 0, "[trunc_normal_] std: expected a positive value, got {}", std);
  EMBER_CHECK(a < b, "[trunc_normal_] a, b: expected a < b, got a={} and b={}", a, b);
  NoGradGuard no_grad;
  // Inverse transform: u ~ U(2 cdf(a) - 1, 2 cdf(b) - 1), then mean + std sqrt(2) erfinv(u).
  const double l = norm_cdf((a - mean) / std), u = norm_cdf((b - mean) / std);
  tensor.uniform_(2 * l - 1, 2 * u - 1, std::move(generator));
  Tensor x = tensor.to(kFloat64).clamp(std::nextafter(-1.0, 0.0), std::nextafter(1.0, 0.0));
  Tensor y = erfinv_f64(x) * (std * std::sqrt(2.0)) + mean;
  tensor.copy_(y.clamp(a, b));
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain, std::optional<Generator> generator) {
  check_floating(tensor, "xavier_uniform_");
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound, std::move(generator));
}

Tensor xavier_normal_(Tensor tensor, double gain, std::optional<Generator> generator) {
  check_floating(tensor, "xavier_normal_");
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(tensor), 0, std, std::move(generator));
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity,
                        std::optional<Generator> generator) {
  check_floating(tensor, "kaiming_uniform_");
  if (tensor.numel() == 0) return tensor;  // PyTorch: initializing a zero-element tensor is a no-op
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound, std::move(generator));
}

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity,
                       std::optional<Generator> generator) {
  check_floating(tensor, "kaiming_normal_");
  if (tensor.numel() == 0) return tensor;
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  return normal_(std::move(tensor), 0, std, std::move(generator));
}

Tensor orthogonal_(Tensor tensor, double gain, std::optional<Generator> generator) {
  check_floating(tensor, "orthogonal_");
  EMBER_CHECK(tensor.dim() >= 2, "[orthogonal_] Only tensors with 2 or more dimensions are supported (got {})",
              tensor.dim());
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  Tensor sample = ember::empty({rows, cols}, tensor.options()).normal_(0, 1, std::move(generator));
  // QR of the taller orientation: the transpose when rows < cols.
  const bool wide = rows < cols;
  Tensor host = (wide ? sample.t() : sample).to(Device(kCPU), kFloat64).contiguous();
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  const double* p = host.data_ptr<double>();
  std::vector<double> q = orthonormal_q(std::vector<double>(p, p + m * n), m, n);
  Tensor qt = from_blob(q.data(), {m, n}, kFloat64);
  if (wide) qt = qt.t();
  tensor.copy_(qt.reshape(tensor.sizes()));
  tensor.mul_(gain);
  return tensor;
}

Tensor sparse_(Tensor tensor, double sparsity, double std, std::optional<Generator> generator) {
  check_floating(tensor, "sparse_");
  EMBER_CHECK(tensor.dim() == 2, "[sparse_] Only tensors with 2 dimensions are supported (got {})", tensor.dim());
  EMBER_CHECK(sparsity >= 0 && sparsity <= 1, "[sparse_] sparsity: expected a fraction in [0, 1], got {}", sparsity);
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  tensor.normal_(0, std, generator);
  for (int64_t col = 0; col < cols; ++col) {
    Tensor order = argsort(rand({rows}, generator, TensorOptions().device(tensor.device())));
    tensor.select(1, col).index_fill_(0, order.narrow(0, 0, num_zeros), 0);
  }
  return tensor;
}

}  // namespace ember::nn::init
