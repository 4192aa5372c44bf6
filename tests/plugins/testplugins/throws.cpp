// Registers two operators and a kernel, then throws: all of it must be undone.
#include <ember/plugin/Plugin.h>

#include <stdexcept>

EMBER_LIBRARY(tthrow, m) {
  m.def("a(Tensor x) -> Tensor");
  m.def("b(Tensor x) -> Tensor");
}

EMBER_LIBRARY_IMPL(tthrow, CPU, m) {
  m.impl("a", [](const ember::Tensor& x) { return x; });
  throw std::runtime_error("boom");
}
