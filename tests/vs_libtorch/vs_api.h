// Note [Differential cases against LibTorch]
// The cases in tests/vs_libtorch are written once in the subset of the API that Ember and LibTorch
// spell the same, and compiled twice: with -DVS_LIBTORCH against LibTorch 1.13 and without it
// against Ember. `vs::` names the library under test. Each case records its outputs through one
// Recorder (vs_record.h) into a JSON-lines file keyed by case name; compare.py reads the two files
// and compares dtype, shape, strides, values (dtype-aware tolerances) and that both sides raise.
// A spelling that differs gets one macro or alias here, never an #ifdef in a case. An operator
// Ember lacks is recorded as missing (VS_EMBER_MISSING), so it shows up as a difference until it
// lands instead of breaking the Ember build of the cases.
//
// A case is `VS_CASE("family.name") { r.tensor("label", ...); }` in cases_<family>.cpp (a new family
// also goes in CMakeLists.txt's list: one ctest each). Tags a case may set: r.expect_diff(reason)
// for a known Ember difference (reported XFAIL; XPASS fails, so the tag goes with the fix) and
// r.follows_pytorch2(reason) where Ember follows PyTorch 2.x on purpose (reported, never fails).
// Error messages are recorded (compare.py -v prints both sides) but not compared.
#pragma once

#include <cmath>

#ifdef VS_LIBTORCH
#include <torch/torch.h>
namespace vs {
using namespace torch;
using Tensor = at::Tensor;
using ScalarType = c10::ScalarType;
inline constexpr auto none = c10::nullopt;  // an absent optional argument
inline constexpr ScalarType kC64 = kComplexFloat, kC128 = kComplexDouble;
}  // namespace vs
#define VS_SIDE "libtorch"
#define VS_EMBER_MISSING(what) ((void)0)
#else
#include <ember/ember.h>
namespace vs {
using namespace ember;
using Tensor = ember::Tensor;
using ScalarType = ember::ScalarType;
inline constexpr auto none = std::nullopt;  // an absent optional argument
inline constexpr ScalarType kC64 = kComplex64, kC128 = kComplex128;
}  // namespace vs
#define VS_SIDE "ember"
// Ember has no such operator yet: record it and leave the case.
#define VS_EMBER_MISSING(what) \
  do {                         \
    r.missing(what);           \
    return;                    \
  } while (0)
#endif

// _native_batch_norm_legit is PyTorch 2.x's; LibTorch 1.13 spells it native_batch_norm with the
// running statistics passed the same way.
namespace vs {
#ifdef VS_LIBTORCH
inline std::tuple<Tensor, Tensor, Tensor> bn_legit(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& rm,
                                                   Tensor& rv, bool training, double momentum, double eps) {
  return at::native_batch_norm(x, w, b, rm, rv, training, momentum, eps);
}
#else
inline std::tuple<Tensor, Tensor, Tensor> bn_legit(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& rm,
                                                   Tensor& rv, bool training, double momentum, double eps) {
  return ember::_native_batch_norm_legit(x, w, b, rm, rv, training, momentum, eps);
}
#endif
}  // namespace vs

// An int? argument where a plain int would be ambiguous with an int[] overload (count_nonzero).
namespace vs {
#ifdef VS_LIBTORCH
inline c10::optional<int64_t> opt_int(int64_t v) { return v; }
#else
inline std::optional<int64_t> opt_int(int64_t v) { return v; }
#endif
}  // namespace vs

// A Tensor?[] argument (index_put): LibTorch takes a c10::List, Ember a std::vector.
namespace vs {
#ifdef VS_LIBTORCH
inline c10::List<c10::optional<Tensor>> opt_tensors(std::initializer_list<c10::optional<Tensor>> ts) {
  return c10::List<c10::optional<Tensor>>(ts);
}
#else
inline std::vector<std::optional<Tensor>> opt_tensors(std::initializer_list<std::optional<Tensor>> ts) { return ts; }
#endif
}  // namespace vs

// PyTorch 2.x operators LibTorch 1.13 lacks (or has only in torch::nn::functional::detail): on the
// LibTorch side they are composed from 1.13 operators, the reference Ember's own is compared with.
// And a seeded CPU generator, which the two spell in different namespaces.
namespace vs {
#ifdef VS_LIBTORCH
inline std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(const Tensor& x, const c10::optional<Tensor>& w,
                                                                   const c10::optional<Tensor>& b, Tensor& rm,
                                                                   Tensor& rv, bool training, double momentum,
                                                                   double eps) {
  return at::native_batch_norm(x, w, b, rm, rv, training, momentum, eps);
}
inline std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(const Tensor& x, const c10::optional<Tensor>& w,
                                                                   const c10::optional<Tensor>& b, bool training,
                                                                   double momentum, double eps) {
  return at::native_batch_norm(x, w, b, {}, {}, training, momentum, eps);
}
inline std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(const Tensor& x,
                                                                               const c10::optional<Tensor>& w,
                                                                               const c10::optional<Tensor>& b,
                                                                               const Tensor& rm, const Tensor& rv,
                                                                               double momentum, double eps) {
  return at::native_batch_norm(x, w, b, rm, rv, false, momentum, eps);
}
// softmax(q k^T * scale (+ mask, causal)) v, as PyTorch 2.x documents it; no dropout.
inline Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                           const c10::optional<Tensor>& mask = {}, double dropout_p = 0.0,
                                           bool is_causal = false, c10::optional<double> scale = c10::nullopt) {
  TORCH_CHECK(dropout_p == 0.0, "the reference scaled_dot_product_attention has no dropout");
  double s = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  Tensor attn = at::matmul(q, k.transpose(-2, -1)) * s;
  if (is_causal) attn = attn.masked_fill(at::ones({q.size(-2), k.size(-2)}, at::kBool).triu(1), -INFINITY);
  if (mask.has_value() && mask->defined())
    attn = mask->scalar_type() == at::kBool ? attn.masked_fill(mask->logical_not(), -INFINITY) : attn + *mask;
  return at::matmul(at::softmax(attn, -1), v);
}
inline std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& q, const Tensor& k, const Tensor& v, int64_t embed_dim, int64_t num_heads,
    const c10::optional<Tensor>& in_proj_weight, const c10::optional<Tensor>& in_proj_bias,
    const c10::optional<Tensor>& bias_k, const c10::optional<Tensor>& bias_v, bool add_zero_attn, double dropout_p,
    const Tensor& out_proj_weight, const c10::optional<Tensor>& out_proj_bias, bool training = true,
    const c10::optional<Tensor>& key_padding_mask = {}, bool need_weights = true,
    const c10::optional<Tensor>& attn_mask = {}) {
  auto u = [](const c10::optional<Tensor>& t) { return t.value_or(Tensor()); };
  return torch::nn::functional::detail::multi_head_attention_forward(
      q, k, v, embed_dim, num_heads, u(in_proj_weight), u(in_proj_bias), u(bias_k), u(bias_v), add_zero_attn, dropout_p,
      out_proj_weight, u(out_proj_bias), training, u(key_padding_mask), need_weights, u(attn_mask));
}
inline Generator cpu_generator(uint64_t seed) { return at::detail::createCPUGenerator(seed); }
#else
inline Generator cpu_generator(uint64_t seed) { return ember::detail::createCPUGenerator(seed); }
#endif
}  // namespace vs
