// Needs abi_mismatch, which the loader refuses: nothing of either may load.
#include <ember/plugin/Plugin.h>

#include <cstdlib>

EMBER_PLUGIN("bad_dep_user", "1.0", "abi_mismatch")

__attribute__((constructor)) static void bad_dep_user_ctor() {
  setenv("EMBER_TEST_CTOR_RAN", "bad_dep_user", 1);
}

EMBER_LIBRARY(tbaddep, m) { m.def("f(Tensor x) -> Tensor"); }
