#pragma once
// Internal to libember's composite kernels (ember::native, declared in the generated
// ember/generated/CompositeFunctions.h and registered by RegisterComposite.cpp): device-generic
// kernels built from other operators and metadata-only views, so every backend gets them.
#include <optional>

#include "ember/generated/CompositeFunctions.h"
#include "ember/generated/Functions.h"
#include "ember/native/Rules.h"

namespace ember::native {

using OptDtype = std::optional<ScalarType>;
using OptLayout = std::optional<Layout>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;
using OptMemoryFormat = std::optional<MemoryFormat>;

inline TensorOptions make_options(OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory = {}) {
  TensorOptions o;
  if (dtype) o = o.dtype(*dtype);
  if (layout) o = o.layout(*layout);
  if (device) o = o.device(*device);
  if (pin_memory) o = o.pinned_memory(*pin_memory);
  return o;
}

// pin_memory=true for a host tensor needs a GPU plugin's pinned allocator (Note [Pinned host
// memory]): checked before dispatching empty, so that the error names the factory.
inline void check_pin_memory(const char* op, OptBool pin_memory, OptDevice device) {
  if (pin_memory.value_or(false) && (!device || device->type() == kCPU)) (void)host_allocator_for(std::nullopt, op);
}
inline void check_no_pin_memory(const char* op, OptBool pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(!pin_memory.value_or(false), "[{}] pinned sparse tensors are not supported", op);
}

// _to_copy and clone of a COO or CSR tensor: its member tensors copied (sparse.cpp).
Tensor sparse_to_copy(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory);
// transpose of a COO tensor (dims wrapped): index rows or value dimensions swapped (sparse.cpp).
Tensor sparse_transpose(const Tensor& self, int64_t dim0, int64_t dim1);

// The Scalar of a 0-dim tensor `value` (LibTorch's Tensor-valued fills call item()); a meta value
// has none, so meta self and value give 0, enough for shapes (pointwise.cpp).
Scalar fill_value(const char* op, const Tensor& self, const Tensor& value);

}  // namespace ember::native
