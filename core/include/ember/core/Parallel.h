#pragma once
// Intra-op threads, shared by every plugin: the thread count and parallel_for.
//
// Note [One intra-op pool]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Debian's oneDNN runs on libgomp, so Ember's intra-op pool is libgomp's too: one set of worker
// threads serves oneDNN, OpenBLAS's OpenMP build and every kernel's parallel_for, never two
// pools competing for the same cores.
// libember does not link libgomp, and no header includes omp.h: parallel_for splits the range in
// libember (core/src/Parallel.cpp), which enters libgomp through its documented ABI
// (GOMP_parallel, omp_get_thread_num, ...) resolved with dlopen when first needed. So a plugin
// for another device compiles its kernels without OpenMP, and libember's constructor can set
// OMP_WAIT_POLICY=PASSIVE (unless the user set it) before libgomp reads its environment: idle
// workers sleep instead of spinning, which on a machine with more runnable threads than cores
// (CI, a second process) is what keeps two threads from being slower than one. The price is a
// wake-up per parallel region, so kernels only go parallel above a grain of work.
// The thread count is libember's: get_num_threads() defaults to OMP_NUM_THREADS when set, else
// to the CPUs this process may run on (sched_getaffinity, not the core count cpuinfo reports).
// Each parallel region is given it; set_num_threads() also sets OpenMP's count for the calling
// thread (what oneDNN reads) when libgomp is loaded, and kernels call sync_omp_threads() before
// entering an OpenMP library from another thread. Without an OpenMP runtime (libgomp.so.1 not
// found), parallel_for runs the whole range on the caller.
#include <algorithm>
#include <cstdint>

#include "ember/core/Macros.h"

namespace ember {

EMBER_API int get_num_threads();
EMBER_API void set_num_threads(int n);

// Elements of a cheap elementwise loop (one load, one store) worth waking a worker for: with
// passive workers a parallel region costs a few microseconds, about 30K such elements.
inline constexpr int64_t kGrainSize = 32768;

// True inside a parallel region (parallel_for's or an OpenMP library's); a parallel_for there
// runs serially on its thread.
EMBER_API bool in_parallel_region();

// Before calling an OpenMP library (oneDNN, OpenBLAS) on this thread: makes its thread count
// Ember's.
EMBER_API void sync_omp_threads();
// The same, capped at `max_threads`: for a library call too small to repay waking workers.
EMBER_API void sync_omp_threads(int max_threads);

namespace detail {
using ParallelBody = void (*)(const void* fn, int64_t begin, int64_t end);
// parallel_for's out-of-line part: splits [begin, end) over up to get_num_threads() threads.
EMBER_API void parallel_run(int64_t begin, int64_t end, int64_t grain, ParallelBody body, const void* fn);
}  // namespace detail

// Calls f(b, e) on disjoint subranges covering [begin, end), each at least `grain` long (the last
// may be shorter), in parallel when the range is longer than `grain` and get_num_threads() > 1.
// The split depends only on the range, grain and thread count. The first exception a body throws
// is rethrown on the caller after every thread has finished.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end - begin <= std::max<int64_t>(grain, 1)) {
    if (begin < end) f(begin, end);
    return;
  }
  detail::parallel_run(
      begin, end, grain, [](const void* fn, int64_t b, int64_t e) { (*static_cast<const F*>(fn))(b, e); }, &f);
}

}  // namespace ember
