// No EMBER_PLUGIN note: named after its file ("plain"), version "0", no dependencies.
#include <ember/plugin/Plugin.h>

#include <cstdlib>

// Shows that constructors do run once a plugin passes the checks (the mismatch tests assert
// theirs did not).
__attribute__((constructor)) static void plain_ctor() {
  setenv("EMBER_TEST_PLAIN_CTOR_RAN", "1", 1);
}

EMBER_LIBRARY(tplain, m) { m.def("p(Tensor x) -> Tensor"); }

EMBER_LIBRARY_IMPL(tplain, CPU, m) {
  m.impl("p", [](const ember::Tensor& x) { return x; });
}
