#pragma once
// The special functions of the cpu kernels: the shared ones (ember/native/SpecialMath.h) and
// lgamma in its reentrant form.
#include <cmath>

#include "ember/native/SpecialMath.h"

namespace ember::cpu::special {

using ember::special::digamma;
using ember::special::erfinv;

// The reentrant forms: glibc's lgamma writes the global signgam (a data race between threads).
inline float lgamma(float x) {
  int sign;
  return ::lgammaf_r(x, &sign);
}
inline double lgamma(double x) {
  int sign;
  return ::lgamma_r(x, &sign);
}

}  // namespace ember::cpu::special
