#pragma once
// Helpers shared by the nn suites.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"

namespace ember::nntest {

using ember::test::error_of;

// The values of a tensor, row-major, as doubles.
inline std::vector<double> values(const Tensor& t) {
  NoGradGuard no_grad;
  const Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// sin(i * a + b) for i = 0, 1, ... laid out as `shape` (float64): deterministic inputs that the
// LibTorch programs producing the reference values build the same way.
inline Tensor seq(std::vector<int64_t> shape, double a, double b) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (arange(n, kFloat64) * a + b).sin().view(shape);
}

// Each value within rtol (relative) or atol of the reference; NaN matches NaN.
inline void expect_close(const Tensor& t, const std::vector<double>& want, double rtol = 1e-10, double atol = 1e-12,
                         const std::string& what = "") {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size()) << what << ": shape " << t.sizes();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]: " << got[i];
      continue;
    }
    EXPECT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << what << " [" << i << "]";
  }
}

}  // namespace ember::nntest
