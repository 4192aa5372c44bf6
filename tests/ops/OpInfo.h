// Sample inputs for every built-in operator, for the backend-generic harness
// (test_backend_ops.cpp). See Note [Backend op harness].
//
// Note [Backend op harness]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Every operator of namespace aten with a CPU or a composite kernel (the list comes from the
// dispatch tables, so a new operator cannot be skipped silently) runs each of its samples, for
// every dtype, boxed on the CPU and on the backend under test (EMBER_TEST_BACKEND: meta by
// default; cuda, hip, ... later), and the two runs must agree: every output's dtype, sizes,
// strides, storage offset and aliasing (which argument it is, or shares storage with), the
// arguments after the call (out= and in-place writes; a Tensor(a!) argument is returned as itself
// and its version counter moves), and errors (kind and message, the device name aside; led by
// "[op]"). A backend that computes values is compared value by value at per-dtype tolerances
// (exact for integers and bool, NaN equal to NaN); meta compares the rest, and raises
// NotImplementedError where the result is the data (SampleInput::reads_data). A sparse output
// (the sparse constructors) is compared by its layout, sizes and dtype, then member by member.
// The kernels that take sparse or quantized inputs have their own harness, against the dense
// float operators (Note [Layout op harness] in test_layout_ops.cpp).
//
// Samples come from this table (PyTorch's OpInfo, ggml's test-backend-ops): per operator, a
// generator of SampleInputs per dtype (tensors made on the CPU) and of ErrorInputs (calls that
// must raise a given error, on the CPU and on the backend alike). The harness also reruns each
// sample with its tensors laid out transposed, sliced with step 2, expanded (stride 0) and
// channels-last, and sends every argument to the backend keeping its exact geometry. A dtype the
// CPU kernel rejects (TypeError) is a sample like any other: the backend must reject it too.
//
// Adding an operator: give it an entry in OpInfo.cpp (the schema-driven generic samples are
// often enough: `generic`), or list it in skipped_ops() with the reason.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::optest {

// One call of an operator: its arguments in schema order (CPU tensors; omitted trailing arguments
// take the schema's defaults).
struct SampleInput {
  std::vector<IValue> args;
  std::string desc;
  // The output's size or value is the data (nonzero, masked_select, a mask index, item): a
  // backend without values (meta) raises NotImplementedError where the CPU succeeds.
  bool reads_data = false;
  // Rerun with expanded (stride-0) tensors too; off where an index repeated by the expansion would
  // write one place twice (which write wins is the backend's, as in PyTorch).
  bool expand = true;
};

// A call that must raise, on the CPU and on the backend: the error's kind ("ValueError",
// "TypeError", "IndexError", "NotImplementedError") and a part of its message.
struct ErrorInput {
  SampleInput input;
  std::string kind;
  std::string message;
};

// What a generator builds its samples from: the operator's schema, the dtype under test and a
// seeded random source (the same samples every run).
class SampleCtx {
 public:
  SampleCtx(const FunctionSchema& schema, ScalarType dtype, uint64_t seed)
      : schema_(schema), dtype_(dtype), rng_(seed) {}
  const FunctionSchema& schema() const { return schema_; }
  ScalarType dtype() const { return dtype_; }

  // Random values of the dtype under test (or `dt`): small integers, or floats in [-3, 3).
  Tensor t(std::vector<int64_t> shape);
  Tensor t(std::vector<int64_t> shape, ScalarType dt);
  // Random values in [lo, hi) (floating dtypes) or their integers.
  Tensor uniform(std::vector<int64_t> shape, double lo, double hi, ScalarType dt);
  // Random indices in [0, bound).
  Tensor ix(std::vector<int64_t> shape, int64_t bound, ScalarType dt = kInt64);
  // A random bool mask.
  Tensor mask(std::vector<int64_t> shape, ScalarType dt = kBool);
  // Distinct indices in [0, bound) (n <= bound): an index_put_ or scatter_ then writes each place
  // once, and no backend's write order shows.
  Tensor ix_unique(int64_t n, int64_t bound);
  // Distinct values where the dtype has enough of them (not bool): a sort or an arg-reduction then
  // has no tie whose order a backend may break otherwise.
  Tensor distinct(std::vector<int64_t> shape);
  // `args` padded with the schema's defaults up to the first out= argument, then `outs`.
  std::vector<IValue> with_out(std::vector<IValue> args, std::vector<IValue> outs) const;

  // The schema-driven samples: every Tensor argument a random tensor of one shape ({3, 4}, then
  // {2, 3, 2, 3} and {}) in the dtype under test, out= arguments empty (resized by the call),
  // Scalars 2, dims 1, other arguments their defaults (or a plain value where there is none).
  std::vector<SampleInput> generic();

 private:
  std::vector<IValue> generic_args(const std::vector<int64_t>& shape);
  double value(ScalarType dt);
  const FunctionSchema& schema_;
  ScalarType dtype_;
  std::mt19937_64 rng_;
};

using Samples = std::vector<SampleInput>;
using Errors = std::vector<ErrorInput>;

// Whether a backend's output values must equal the CPU's.
enum class Values {
  Compared,
  Random,         // compared only on a backend that draws the CPU's random stream
  Uninitialized,  // empty, empty_like: never compared
};

struct OpInfo {
  std::string name{};  // "aten::add.Tensor"
  // Samples for one dtype (run for every dtype).
  std::function<Samples(SampleCtx&)> samples{};
  // Calls that must raise (run once, with a float32 context).
  std::function<Errors(SampleCtx&)> errors{};
  Values values = Values::Compared;
  // Float tolerances over the defaults (Note [Backend op harness]): relative and absolute.
  double rtol = 0, atol = 0;
};

// IValue spellings for the argument lists.
inline IValue ints(std::vector<int64_t> v) { return IValue(std::move(v)); }
inline IValue bools(std::vector<bool> v) { return IValue(std::move(v)); }
inline IValue tensors(std::vector<Tensor> v) { return IValue(std::move(v)); }
inline IValue opt_tensors(std::vector<IValue> v) { return IValue::make_list(std::move(v)); }
inline const IValue kNone{};

// Every OpInfo, by operator name.
const std::map<std::string, OpInfo>& op_db();

// Operators of namespace aten the harness does not run, each with its reason.
const std::map<std::string, std::string>& skipped_ops();

// Real disagreements between a backend and the CPU, found by the harness and not fixed yet:
// (backend, operator) -> the part of the sample description that fails and why. A listed case
// that passes fails the test, so the list cannot go stale.
struct KnownFailure {
  std::string backend;  // "": every backend (the cpu side fails)
  std::string op;
  std::string sample;  // a part of the failing sample's "dtype | layout | description" ("": all)
  std::string reason;
};
const std::vector<KnownFailure>& known_failures();

}  // namespace ember::optest
