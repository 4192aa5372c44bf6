#pragma once
// Helpers shared by the Module API suites.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"

namespace ember::nntest {

// The values of a tensor, row-major, as doubles.
inline std::vector<double> values(const Tensor& t) {
  NoGradGuard no_grad;
  const Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// The message of the ErrType that f() throws, or a note saying what happened instead.
template <class ErrType, class F>
std::string error_of_type(F&& f) {
  try {
    f();
  } catch (const ErrType& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

// What `x` prints.
template <class T>
std::string printed(const T& x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// Every element of got is within tol of want's (and the shapes match).
inline void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what = "") {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const auto g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], tol) << what << " at flat index " << i;
}

}  // namespace ember::nntest
