// A shared library linked into the unit tests: its registrations run on first dispatcher use.
#include "ember/dispatcher/Library.h"

static ember::Tensor linked_identity(const ember::Tensor& x) { return x; }

EMBER_LIBRARY(tlinked, m) { m.def("identity(Tensor x) -> Tensor"); }
EMBER_LIBRARY_IMPL(tlinked, CPU, m) { m.impl("identity", &linked_identity); }
