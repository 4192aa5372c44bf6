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

#include "CPUKernels.h"
#include "Loops.h"
#include "ember/native/DistanceMath.h"
#include "ember/native/NNRules.h"

namespace ember::cpu::nn {

// The argument checks and output shapes are shared with the meta plugin (ember/native/NNRules.h).
using native::nn::compute_float;
using native::nn::Pair;
using native::nn::pair_arg;

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
  if (!native::nn::check_vector(op, kCPU, t, n, name)) return Tensor();
  return compute_input(*t, ct);
}

// f(T{}) with T the compute dtype ct of Note [CPU CNN kernel dtypes]: float or double.
template <class F>
void visit_float(ScalarType ct, F&& f) {
  if (ct == kFloat32)
    f(float{});
  else
    f(double{});
}

// The sum of term(k) over k in [0, n) in a fixed order of double lanes (shared with the GPU).
using native::lane_sum;

// r converted to dtype dt (r itself when it has it).
inline Tensor to_dtype_of(const Tensor& r, ScalarType dt) {
  if (!r.defined() || r.dtype() == dt) return r;
  Tensor o = empty_cpu(r.sizes(), dt);
  cpu::copy_(o, r, false);
  return o;
}

}  // namespace ember::cpu::nn
