// The sparse plugin's descriptor. Its kernels are declared and registered by generated code
// (ember/generated/Sparse<Device>Functions.h and SparseCsr<Device>Functions.h, with their
// Register*.cpp) from the `dispatch:` lines of schemas/ops.yaml, for the cpu, cuda and hip devices.
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("sparse", EMBER_VERSION_STRING)
