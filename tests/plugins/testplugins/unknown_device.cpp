// Registers kernels for a device type nobody registers: its load must fail and undo everything.
#include <ember/plugin/Plugin.h>

EMBER_LIBRARY(tunkdev, m) { m.def("f(Tensor x) -> Tensor"); }

EMBER_LIBRARY_IMPL_DEVICE(tunkdev, "nosuchdev", m) {
  m.impl("f", [](const ember::Tensor& x) { return x; });
}
