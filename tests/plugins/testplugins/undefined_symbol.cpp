// Refers to a function no library defines: dlopen (RTLD_NOW) refuses it.
#include <ember/plugin/Plugin.h>

extern "C" void ember_symbol_that_is_nowhere();

extern "C" void undefined_symbol_caller() { ember_symbol_that_is_nowhere(); }

EMBER_LIBRARY(tundef, m) { m.def("f(Tensor x) -> Tensor"); }
