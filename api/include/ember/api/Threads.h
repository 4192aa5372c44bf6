#pragma once
// Intra-op threads, shared by every plugin.
#include "ember/core/Macros.h"

namespace ember {
// Number of threads kernels may use; defaults to the CPUs this process may run on
// (sched_getaffinity, not the core count cpuinfo reports).
EMBER_API int get_num_threads();
EMBER_API void set_num_threads(int n);
}  // namespace ember
