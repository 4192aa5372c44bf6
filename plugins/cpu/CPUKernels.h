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

}  // namespace ember::cpu
