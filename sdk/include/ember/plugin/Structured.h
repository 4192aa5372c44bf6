#pragma once
// The kernel contract of structured operator families.
//
// Note [Structured kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// An operator family with functional, in-place and out= variants (add.Tensor, add_.Tensor,
// add.out) is declared in schemas/ops.yaml as one `structured: True` out= entry whose variants
// name it in `structured_delegate:`. Each backend writes one kernel for the family, with the out=
// schema's C++ signature plus a trailing `OutKind kind`; tools/codegen/gen.py generates the three
// variants as wrappers that call it (RegisterCPU.cpp, ...):
//   functional: `Tensor out; k(args..., out, OutKind::Functional); return out;`
//   in-place:   `k(self, args..., self, OutKind::InPlace); return self;`
//   out=:       `k(args..., out, OutKind::Out); return out;`
// The family's shared meta function, `ember::native::meta_<name>` (ember/generated/
// StructuredMeta.h, defined once beside the dtype rules in the kernel metadata library), has
// the same signature: it checks the arguments, computes the output dtype and size, and
// allocates the output (Functional, on the inputs' device), checks it (InPlace: the result must
// have self's shape and be castable to its dtype) or resizes it (Out, as PyTorch's out= does).
// A backend kernel runs it first (or the parts of it it can reuse, such as an elementwise
// family's TensorIter build), then computes; it may take a fast path before it only where that
// path can raise no error. The generated Meta registration calls the meta function itself, so
// a structured family never needs a hand-written Meta kernel, and every backend gives the same
// sizes, dtypes and errors.
//
// Unlike PyTorch, the wrapper does not run the meta function before the kernel: a kernel's
// small-tensor fast path (same-shape contiguous operands) then costs no second pass over the
// geometry, which is most of an elementwise call's time at 1-1000 elements.
#include <cstdint>

namespace ember {

// Which variant of a structured family a kernel is running.
enum class OutKind : uint8_t {
  Functional,  // the outs are undefined: allocate them
  InPlace,     // the out is self: its shape and dtype must hold the result
  Out,         // out=: resized to the result's shape when it differs; dtype must be castable
};

}  // namespace ember
