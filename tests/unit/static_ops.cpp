// Linked into the unit tests from a static archive, whole: its record must not vanish.
#include "ember/dispatcher/Library.h"

EMBER_LIBRARY(tstatic, m) {
  m.def("answer(Tensor x) -> int", [](const ember::Tensor&) -> int64_t { return 42; });
}
