#pragma once
// Internal to the CPU plugin: the kernels it defines are declared by the code generator
// (ember/generated/CPUFunctions.h, from the `dispatch:` lines of schemas/ops.yaml) and registered
// by the generated RegisterCPU.cpp. Kernels are called qualified (cpu::add_tensor), never
// unqualified, so argument-dependent lookup cannot pick the generated ember:: function.
#include <optional>

#include "ember/generated/CPUFunctions.h"

namespace ember::cpu {

using OptDtype = std::optional<ScalarType>;
using OptLayout = std::optional<Layout>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;

// The checks of every cpu factory (factories.cpp). pin_memory=true needs a GPU plugin's pinned
// allocator, returned (else null): empty and empty_strided allocate from it, the others pin
// their result (pinned_result).
HostAllocator* check_factory(const char* op, OptLayout layout, OptDevice device, OptBool pin_memory);
// `r` itself, or a pinned copy when pin_memory is true (Note [Pinned host memory]).
Tensor pinned_result(Tensor r, OptBool pin_memory);

}  // namespace ember::cpu
