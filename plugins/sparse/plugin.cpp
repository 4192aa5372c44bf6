// The sparse plugin's descriptor. Its kernels are declared and registered by generated code
// (ember/generated/SparseCPUFunctions.h and SparseCsrCPUFunctions.h, RegisterSparseCPU.cpp and
// RegisterSparseCsrCPU.cpp) from the `dispatch:` lines of schemas/ops.yaml.
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("sparse", EMBER_VERSION_STRING)
