// The intra-op thread count and the OpenMP environment (Note [One intra-op pool]).
#include "ember/api/Threads.h"

#include <dlfcn.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>

#include "ember/core/Exception.h"

namespace ember {
namespace {

int affinity_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

// OMP_NUM_THREADS's first entry ("4" or "4,2"), or 0 when unset or not a positive number.
int omp_env_threads() {
  const char* s = std::getenv("OMP_NUM_THREADS");
  if (!s) return 0;
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (end == s || (*end != '\0' && *end != ',') || v <= 0 || v > 4096) return 0;
  return static_cast<int>(v);
}

int default_threads() {
  static const int n = [] {
    int e = omp_env_threads();
    return e > 0 ? e : affinity_cpus();
  }();
  return n;
}

std::atomic<int> g_threads{0};

// Runs when libember is loaded, before any plugin (and so, usually, before libgomp).
__attribute__((constructor)) void set_omp_wait_policy() { setenv("OMP_WAIT_POLICY", "PASSIVE", 0); }

}  // namespace

int get_num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : default_threads();
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "[set_num_threads] expected a positive number of threads, got {}", n);
  g_threads.store(n, std::memory_order_relaxed);
  // OpenMP libraries (oneDNN) read the calling thread's count; libgomp may not be loaded yet.
  using SetFn = void (*)(int);
  if (auto f = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(n);
}

}  // namespace ember
