// A plugin with no dependencies that others depend on.
#include <ember/plugin/Plugin.h>

EMBER_PLUGIN("good_dep", "1.2.3")

EMBER_LIBRARY(tdep, m) { m.def("id(Tensor x) -> Tensor"); }

EMBER_LIBRARY_IMPL(tdep, CPU, m) {
  m.impl("id", [](const ember::Tensor& x) { return x; });
}
