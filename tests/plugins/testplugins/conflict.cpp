// Defines tgood::twice, which plugin 'good' already defines.
#include <ember/plugin/Plugin.h>

EMBER_LIBRARY_FRAGMENT(tgood, m) {
  m.def("conflict_only(Tensor x) -> Tensor");
  m.def("twice(Tensor x) -> Tensor");
}
