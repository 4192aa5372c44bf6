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
