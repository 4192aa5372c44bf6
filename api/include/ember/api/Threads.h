#pragma once
// Intra-op threads, shared by every plugin.
//
// Note [One intra-op pool]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Debian's oneDNN runs on libgomp, so Ember's intra-op pool is OpenMP too: one set of worker
// threads serves oneDNN and every plugin kernel (ember/plugin/Parallel.h), never two pools
// competing for the same cores. libember does not link libgomp (it is loaded with the first
// plugin that uses it), so that, before it loads, libember can set OMP_WAIT_POLICY=PASSIVE
// unless the user set it: idle workers sleep instead of spinning, which on a machine with
// more runnable threads than cores (CI, a second process) is what keeps two threads from being
// slower than one. The price is a wake-up per parallel region, so kernels only go parallel
// above a grain of work (parallel_for's `grain`).
// The thread count is libember's: get_num_threads() defaults to OMP_NUM_THREADS when set, else
// to the CPUs this process may run on (sched_getaffinity, not the core count cpuinfo reports).
// Kernels pass it to each parallel region; set_num_threads() also sets OpenMP's count for the
// calling thread (what oneDNN reads) when libgomp is loaded, and plugins call
// sync_omp_threads() before entering an OpenMP library from another thread.
#include "ember/core/Macros.h"

namespace ember {
EMBER_API int get_num_threads();
EMBER_API void set_num_threads(int n);
}  // namespace ember
