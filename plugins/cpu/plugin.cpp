// The cpu plugin's descriptor. Its kernels are declared and registered by generated code
// (ember/generated/CPUFunctions.h, RegisterCPU.cpp) from the `dispatch:` lines of
// schemas/ops.yaml; the device-generic composites they used to sit beside live in libember.
#include "ember/plugin/Plugin.h"
#include "Loops.h"

EMBER_PLUGIN("cpu", EMBER_VERSION_STRING)

// Not a kernel registration: picks the vector ISA (and reads EMBER_CPU_ISA) once, when the
// plugin registers, before any kernel can run.
EMBER_LIBRARY_IMPL(aten, CPU, m) {
  (void)m;
  ember::cpu::init_cpu_isa();
}
