#pragma once
// A kernel as the dispatch table holds it: an unboxed entry (typed calls), a boxed entry
// (boxed calls, fallbacks) and the functor both receive.
//
// Note [Kernels that redispatch]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A kernel whose first parameter is DispatchKeySet receives the keys *below* its own (the
// computed set minus the key being served and everything above it). Passing that set to
// `op.redispatch(ks, ...)` runs the next layer: this is how the autograd kernel calls the
// backend. The parameter is not part of the schema and is skipped by the signature check.
//
// Note [Version counters]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Every operator whose schema writes an argument (`Tensor(a!)`: in-place and out= ops) bumps
// that tensor's version (StorageImpl's counter, shared by its views) exactly once per call, on
// any backend, third-party kernels included; autograd compares versions to catch a saved tensor
// modified in place. The dispatcher owns the bump, not each kernel:
//   - each unboxed kernel is compiled twice (Boxing.h KernelMaker: fixed / lambda /
//     empty_lambda / fnptr and their *_bumping twins); the twin calls the kernel directly, then
//     bumps every defined `Tensor&` argument. Its boxed adapter runs the twin, so boxed calls
//     bump too;
//   - a boxed-only kernel is wrapped (Dispatcher.cpp) to bump, after the call, the arguments
//     the schema marks written (lists and optionals included);
//   - the table uses a twin only in slots served by a kernel registered at a backend key
//     (Dense, Quantized, Sparse, SparseCsr of any backend, run-time device types included) of
//     an operator whose schema writes. Autograd and composite kernels, fallbacks and
//     fallthroughs never bump: the backend kernels they reach do, once per op they call.
// So a call costs no extra indirect call: the twin is the table's entry. PyTorch instead puts
// an ADInplaceOrView functionality key on every tensor and bumps there; Ember's plain tensors
// carry no autograd bits (Note [DispatchKeySet layout]) and such a key would add a hop to
// every in-place call. One difference: PyTorch runs backend kernels below ADInplaceOrView, so
// an in-place op that a backend or CompositeExplicitAutograd kernel calls through the
// dispatcher does not bump; here it does (e.g. zeros = empty + zero_ gives version 1, where
// LibTorch gives 0). Autograd only compares versions, so extra bumps never hide a
// modification. Writes a schema does not declare (native_batch_norm's running statistics, as
// in LibTorch 1.13) bump nothing, as in LibTorch: autograd saves the running statistics for the
// evaluation-mode backward, and a bump would fail a training step's version check.
#include <cstdint>

#include "ember/core/DispatchKey.h"
#include "ember/dispatcher/IValue.h"

namespace ember {

class OperatorHandle;

// Base of stateful kernels (lambdas with captures). Owned by the registration.
class EMBER_API OperatorKernel {
 public:
  virtual ~OperatorKernel() = default;
};

// `ks` is the computed key set (fallthrough keys removed) whose highest key selected this
// kernel.
using BoxedKernelFn = void (*)(OperatorKernel* functor, const OperatorHandle& op, DispatchKeySet ks, Stack* stack);

struct KernelFunction {
  // Ret (*)(OperatorKernel*, DispatchKeySet, Args...) for the schema's C++ signature.
  void* unboxed = nullptr;
  BoxedKernelFn boxed = nullptr;
  OperatorKernel* functor = nullptr;
};

}  // namespace ember
