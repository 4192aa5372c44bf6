// cycle_b -> cycle_a -> cycle_b.
#include <ember/plugin/Plugin.h>

EMBER_PLUGIN("cycle_b", "1.0", "cycle_a")

EMBER_LIBRARY(tcycleb, m) { m.def("f(Tensor x) -> Tensor"); }
