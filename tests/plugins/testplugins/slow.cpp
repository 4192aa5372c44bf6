// Registers two operators across three blocks, pausing between its kernels: a thread watching
// the registry while it loads must see all of it or none of it.
#include <ember/plugin/Plugin.h>

#include <chrono>
#include <thread>

namespace {
ember::Tensor same(const ember::Tensor& x) { return x; }
}  // namespace

EMBER_LIBRARY(tslow, m) {
  m.def("a(Tensor x) -> Tensor");
  m.def("b(Tensor x) -> Tensor");
}

EMBER_LIBRARY_IMPL(tslow, CPU, m) {
  m.impl("a", &same);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  m.impl("b", &same);
}

EMBER_LIBRARY_IMPL(tslow, Meta, m) {
  m.impl("a", &same);
  m.impl("b", &same);
}
