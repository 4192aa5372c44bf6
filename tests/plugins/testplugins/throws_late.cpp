// Defines an operator and a kernel whose functor counts its live copies in EMBER_TEST_PROBES,
// pauses, then throws: no thread may ever see the operator, and the functor must be gone
// before the loader unloads this file.
#include <ember/plugin/Plugin.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace {
int g_probes = 0;
struct Probe {
  Probe() { count(+1); }
  Probe(const Probe&) { count(+1); }
  ~Probe() { count(-1); }
  static void count(int d) {
    g_probes += d;
    setenv("EMBER_TEST_PROBES", std::to_string(g_probes).c_str(), 1);
  }
};
}  // namespace

EMBER_LIBRARY(tlate, m) { m.def("a(Tensor x) -> Tensor"); }

EMBER_LIBRARY_IMPL(tlate, CPU, m) {
  m.impl("a", [p = Probe()](const ember::Tensor& x) { return x; });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  throw std::runtime_error("late boom");
}
