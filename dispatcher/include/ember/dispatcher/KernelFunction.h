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
#include <cstdint>

#include "ember/core/DispatchKey.h"
#include "ember/core/IValue.h"

namespace ember {

class OperatorHandle;

// Base of stateful kernels (lambdas with captures). Owned by the registration.
class EMBER_API OperatorKernel {
 public:
  virtual ~OperatorKernel() = default;
};

// `ks` is the computed key set (fallthrough keys removed) whose highest key selected this
// kernel.
using BoxedKernelFn = void (*)(OperatorKernel* functor, const OperatorHandle& op,
                               DispatchKeySet ks, Stack* stack);

struct KernelFunction {
  // Ret (*)(OperatorKernel*, DispatchKeySet, Args...) for the schema's C++ signature.
  void* unboxed = nullptr;
  BoxedKernelFn boxed = nullptr;
  OperatorKernel* functor = nullptr;
};

}  // namespace ember
