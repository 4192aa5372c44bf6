// Needs a plugin that exists nowhere.
#include <ember/plugin/Plugin.h>

#include <cstdlib>

EMBER_PLUGIN("missing_dep", "1.0", "no_such_plugin")

__attribute__((constructor)) static void missing_dep_ctor() {
  setenv("EMBER_TEST_CTOR_RAN", "missing_dep", 1);
}

EMBER_LIBRARY(tmissing, m) { m.def("f(Tensor x) -> Tensor"); }
