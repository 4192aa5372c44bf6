#pragma once
// Helpers shared by the CNN kernels (conv.cpp, pool.cpp, norm.cpp).
//
// Note [CPU CNN kernel dtypes]
// The convolution, pooling and normalization kernels compute in float32 or float64 on contiguous
// (NCHW, row-major) buffers: an input of another layout is made contiguous first (compute_input),
// float16 and bfloat16 are converted to float32 and the results converted back, and integer or
// bool inputs raise a TypeError naming the operator. The float32 convolution runs on oneDNN
// (conv.cpp); everything else is our own code.
#include <optional>

#include "Loops.h"
#include "Ops.h"

namespace ember::cpu::nn {

struct Pair {
  int64_t h = 0, w = 0;
};

// An int[2] argument given as one value (both dimensions) or two.
inline Pair pair_arg(IntArrayRef v, const char* op, const char* name) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2,
              "[{}] argument '{}': expected a single int or a tuple of two ints, got {}", op, name, v);
  return v.size() == 1 ? Pair{v[0], v[0]} : Pair{v[0], v[1]};
}

// The dtype a kernel computes t's dtype in (float16/bfloat16 -> float32); TypeError otherwise.
inline ScalarType compute_float(const Tensor& t, const char* op, const char* name) {
  const ScalarType dt = t.dtype();
  EMBER_CHECK_TYPE(is_floating_type(dt), "[{}] argument '{}': expected a floating point tensor, got {}", op, name, dt);
  return dt == kFloat64 ? kFloat64 : kFloat32;
}

// t as a contiguous tensor of dtype ct (t itself when it already is one).
inline Tensor compute_input(const Tensor& t, ScalarType ct) {
  if (t.dtype() == ct) return t.is_contiguous() ? t : materialize(t);
  Tensor r = empty_cpu(t.sizes(), ct);
  cpu::copy_(r, t, false);
  return r;
}

// An optional per-channel tensor (weight, bias, running stats) as a contiguous ct tensor, or an
// undefined one; checked to have `n` elements in one dimension.
inline Tensor optional_vector(const std::optional<Tensor>& t, int64_t n, ScalarType ct, const char* op,
                              const char* name) {
  if (!t || !t->defined()) return Tensor();
  check_cpu(op, *t);
  EMBER_CHECK(t->dim() == 1 && t->size(0) == n,
              "[{}] argument '{}': expected a 1-D tensor of {} elements, got shape {}", op, name, n, t->sizes());
  compute_float(*t, op, name);
  return compute_input(*t, ct);
}

// r converted to dtype dt (r itself when it has it).
inline Tensor to_dtype_of(const Tensor& r, ScalarType dt) {
  if (!r.defined() || r.dtype() == dt) return r;
  Tensor o = empty_cpu(r.sizes(), dt);
  cpu::copy_(o, r, false);
  return o;
}

}  // namespace ember::cpu::nn
