// The intra-op thread count and parallel_for on libgomp (Note [One intra-op pool]).
#include "ember/core/Parallel.h"

#include <dlfcn.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>

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

// libgomp's entry points: the ABI `#pragma omp parallel` compiles to, and the runtime library
// routines, from the one libgomp.so.1 of the process (oneDNN's and OpenBLAS's too).
struct Omp {
  void (*parallel)(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
  int (*thread_num)();
  int (*num_threads)();
  int (*in_parallel)();
  int (*max_threads)();
  void (*set_num_threads)(int);
};

std::atomic<const Omp*> g_omp{nullptr};
std::atomic<bool> g_omp_missing{false};
std::mutex g_omp_mutex;

template <class Fn>
bool resolve(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

// libgomp if the process has it loaded; with `load`, loads it first when it is not (null when it
// cannot be found: parallel_for is then serial).
const Omp* omp(bool load) {
  if (const Omp* o = g_omp.load(std::memory_order_acquire)) return o;
  if (g_omp_missing.load(std::memory_order_relaxed)) return nullptr;
  std::lock_guard<std::mutex> lock(g_omp_mutex);
  if (const Omp* o = g_omp.load(std::memory_order_relaxed)) return o;
  void* lib = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib && !load) return nullptr;
  if (!lib) lib = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL);
  static Omp o;
  if (!lib || !resolve(lib, "GOMP_parallel", o.parallel) || !resolve(lib, "omp_get_thread_num", o.thread_num) ||
      !resolve(lib, "omp_get_num_threads", o.num_threads) || !resolve(lib, "omp_in_parallel", o.in_parallel) ||
      !resolve(lib, "omp_get_max_threads", o.max_threads) || !resolve(lib, "omp_set_num_threads", o.set_num_threads)) {
    g_omp_missing.store(true, std::memory_order_relaxed);
    return nullptr;
  }
  g_omp.store(&o, std::memory_order_release);
  return &o;
}

// One parallel region: each thread of the team takes one contiguous chunk.
struct Region {
  const Omp* omp;
  int64_t begin, end;
  detail::ParallelBody body;
  const void* fn;
  std::mutex error_mutex;
  std::exception_ptr error;
};

void run_chunk(void* data) {
  auto* r = static_cast<Region*>(data);
  const int64_t t = r->omp->thread_num(), nthr = r->omp->num_threads();
  const int64_t chunk = (r->end - r->begin + nthr - 1) / nthr;
  const int64_t b = r->begin + t * chunk, e = std::min(r->end, b + chunk);
  if (b >= e) return;
  try {
    r->body(r->fn, b, e);
  } catch (...) {  // an exception must not unwind through libgomp's frames
    std::lock_guard<std::mutex> lock(r->error_mutex);
    if (!r->error) r->error = std::current_exception();
  }
}

}  // namespace

int get_num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : default_threads();
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "[set_num_threads] expected a positive number of threads, got {}", n);
  g_threads.store(n, std::memory_order_relaxed);
  // OpenMP libraries (oneDNN) read the calling thread's count; libgomp may not be loaded yet.
  if (const Omp* o = omp(false)) o->set_num_threads(n);
}

bool in_parallel_region() {
  const Omp* o = omp(false);
  return o && o->in_parallel() != 0;
}

void sync_omp_threads() { sync_omp_threads(get_num_threads()); }

void sync_omp_threads(int max_threads) {
  if (const Omp* o = omp(false)) {
    const int n = std::max(1, std::min(max_threads, get_num_threads()));
    if (o->max_threads() != n) o->set_num_threads(n);
  }
}

namespace detail {
void parallel_run(int64_t begin, int64_t end, int64_t grain, ParallelBody body, const void* fn) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t max_chunks = (n + grain - 1) / grain;
  const int nt = static_cast<int>(std::min<int64_t>(get_num_threads(), max_chunks));
  const Omp* o = nt > 1 ? omp(true) : nullptr;
  if (!o || o->in_parallel()) {
    body(fn, begin, end);
    return;
  }
  Region r{o, begin, end, body, fn, {}, {}};
  o->parallel(&run_chunk, &r, static_cast<unsigned>(nt), 0);
  if (r.error) std::rethrow_exception(r.error);
}
}  // namespace detail

}  // namespace ember
