// The nn plugin's descriptor. Its kernels are composites (ember::native::f, declared in
// ember/generated/nn/CompositeFunctions.h): they call other operators only, so they run on every
// backend, and autograd differentiates through them unless a backend registers its own kernel.
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("nn", EMBER_VERSION_STRING)
