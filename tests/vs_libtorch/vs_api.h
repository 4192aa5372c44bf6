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
}  // namespace vs
#define VS_SIDE "libtorch"
#define VS_EMBER_MISSING(what) ((void)0)
#define VS_NULLOPT c10::nullopt  // 1.13's c10::optional is not std::optional
#else
#include <ember/ember.h>
namespace vs {
using namespace ember;
using Tensor = ember::Tensor;
using ScalarType = ember::ScalarType;
}  // namespace vs
#define VS_SIDE "ember"
#define VS_NULLOPT std::nullopt
   // Ember has no such operator yet: record it and leave the case.
#define VS_EMBER_MISSING(what) \
  do {                         \
    r.missing(what);           \
    return;                    \
  } while (0)
#endif
