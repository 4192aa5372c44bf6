// Registers a CPU kernel for tgood::twice, which plugin 'good' already has.
#include <ember/plugin/Plugin.h>

EMBER_LIBRARY_IMPL(tgood, CPU, m) {
  m.impl("twice", [](const ember::Tensor& x) { return x; });
}
