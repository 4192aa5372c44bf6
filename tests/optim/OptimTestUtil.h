#pragma once
// The fixed problem the optimizer tests run on, in float64: three parameter tensors
//   x [2, 3], y [2, 3], z [4]
//   f = sum (1 - x)^2 + 5 sum (y - x^2)^2 + sum w (z - c)^2 + 0.1 sum z^4
// (a coupled Rosenbrock valley plus a weighted quartic bowl). Ember evaluates f with tensor ops
// and autograd; the references use the closed-form gradient in plain double loops.
#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::optim_test {

using Vec = std::vector<double>;
using Params = std::vector<Vec>;

inline const Vec kX0 = {-1.2, 0.5, 0.8, -0.3, 1.5, 0.1};
inline const Vec kY0 = {1.0, -0.4, 0.2, 0.9, 2.0, -0.7};
inline const Vec kZ0 = {0.3, -1.1, 2.0, 0.6};
inline const Vec kW = {1.0, 2.0, 0.5, 1.5};
inline const Vec kC = {0.5, -0.5, 1.0, 0.0};

inline Params initial_params() { return {kX0, kY0, kZ0}; }

inline Tensor from_vec(const Vec& v, std::vector<int64_t> shape) {
  Tensor t = empty(shape, kFloat64);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t;
}

inline Vec to_vec(const Tensor& t) {
  Tensor c = t.detach().contiguous();
  return Vec(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// Fresh leaf parameters at the starting point.
inline std::vector<Tensor> make_params() {
  return {from_vec(kX0, {2, 3}).requires_grad_(), from_vec(kY0, {2, 3}).requires_grad_(),
          from_vec(kZ0, {4}).requires_grad_()};
}

inline Tensor loss_of(const std::vector<Tensor>& p) {
  const Tensor& x = p[0];
  const Tensor& y = p[1];
  const Tensor& z = p[2];
  Tensor a = 1.0 - x;
  Tensor b = y - x * x;
  Tensor c = z - from_vec(kC, {4});
  Tensor z2 = z * z;
  return (a * a).sum() + 5.0 * (b * b).sum() + (from_vec(kW, {4}) * c * c).sum() + 0.1 * (z2 * z2).sum();
}

inline double loss_ref(const Params& p) {
  double f = 0;
  for (size_t i = 0; i < 6; ++i) {
    const double a = 1 - p[0][i], b = p[1][i] - p[0][i] * p[0][i];
    f += a * a + 5 * b * b;
  }
  for (size_t i = 0; i < 4; ++i) {
    const double c = p[2][i] - kC[i];
    f += kW[i] * c * c + 0.1 * std::pow(p[2][i], 4);
  }
  return f;
}

inline Params grad_ref(const Params& p) {
  Params g = {Vec(6), Vec(6), Vec(4)};
  for (size_t i = 0; i < 6; ++i) {
    const double x = p[0][i], y = p[1][i];
    g[0][i] = -2 * (1 - x) - 20 * x * (y - x * x);
    g[1][i] = 10 * (y - x * x);
  }
  for (size_t i = 0; i < 4; ++i) g[2][i] = 2 * kW[i] * (p[2][i] - kC[i]) + 0.4 * std::pow(p[2][i], 3);
  return g;
}

// max over elements of |a - b| / max(|b|, 1e-6).
inline double max_rel_error(const Vec& a, const Vec& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), 1e-6));
  return m;
}

// The message of the exception f() throws, or "<no error>".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace ember::optim_test
