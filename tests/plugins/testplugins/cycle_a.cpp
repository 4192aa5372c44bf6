// cycle_a -> cycle_b -> cycle_a.
#include <ember/plugin/Plugin.h>

EMBER_PLUGIN("cycle_a", "1.0", "cycle_b")

EMBER_LIBRARY(tcyclea, m) { m.def("f(Tensor x) -> Tensor"); }
