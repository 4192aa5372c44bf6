#pragma once
// Helpers shared by the autograd suites.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"

namespace ember::agtest {

// The values of a tensor, row-major, as doubles.
inline std::vector<double> values(const Tensor& t) {
  NoGradGuard no_grad;
  const Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

using ember::test::error_of;  // the message of the exception f() throws, or "<no error>"

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

}  // namespace ember::agtest

// EXPECT_HAS(text, part): text contains part.
#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << std::string(text)

// EXPECT_ERROR(ErrType, stmt, "part", ...): stmt throws ErrType whose message contains every part.
#define EXPECT_ERROR(ErrType, stmt, ...)                                                               \
  do {                                                                                                 \
    const std::string msg_ = ::ember::agtest::error_of_type<ErrType>([&] { (void)(stmt); });           \
    for (const char* part_ : {__VA_ARGS__})                                                            \
      EXPECT_NE(msg_.find(part_), std::string::npos) << "message: " << msg_ << "\nmissing: " << part_; \
  } while (0)
