#pragma once
// parallel_for for plugin kernels, on the one intra-op pool (Note [One intra-op pool] in
// ember/api/Threads.h). A plugin that includes this compiles with OpenMP (ember_add_plugin's
// OPENMP flag, or -fopenmp); without it, parallel_for runs the whole range on the caller.
#include <algorithm>
#include <cstdint>
#include <exception>

#include "ember/api/Threads.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace ember {

// Elements of a cheap elementwise loop (one load, one store) worth waking a worker for: with
// passive workers a parallel region costs a few microseconds, about 30K such elements.
inline constexpr int64_t kGrainSize = 32768;

// True inside a parallel_for body (nested calls run serially on their thread).
inline bool in_parallel_region() {
#if defined(_OPENMP)
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

// Calls f(b, e) on disjoint subranges covering [begin, end), each at least `grain` long (the last
// may be shorter), in parallel when the range is long enough and get_num_threads() > 1. The
// split depends only on the range, grain and thread count. The first exception a body throws is
// rethrown on the caller after every thread has finished.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
#if defined(_OPENMP)
  if (n > grain && !in_parallel_region()) {
    const int64_t max_chunks = (n + grain - 1) / grain;
    const int nt = static_cast<int>(std::min<int64_t>(get_num_threads(), max_chunks));
    if (nt > 1) {
      std::exception_ptr error;
#pragma omp parallel num_threads(nt)
      {
        const int64_t t = omp_get_thread_num(), nthr = omp_get_num_threads();
        const int64_t chunk = (n + nthr - 1) / nthr;
        const int64_t b = begin + t * chunk, e = std::min(end, b + chunk);
        if (b < e) {
          try {
            f(b, e);
          } catch (...) {
#pragma omp critical(ember_parallel_for_error)
            if (!error) error = std::current_exception();
          }
        }
      }
      if (error) std::rethrow_exception(error);
      return;
    }
  }
#endif
  f(begin, end);
}

// Before calling an OpenMP library (oneDNN) on this thread: makes its thread count Ember's.
inline void sync_omp_threads() {
#if defined(_OPENMP)
  const int n = get_num_threads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
#endif
}

}  // namespace ember
