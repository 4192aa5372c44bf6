// The cuda plugin's descriptor. Its kernels are declared and registered by generated code
// (ember/generated/CUDAFunctions.h, RegisterCUDA.cpp) from the `dispatch:` lines of
// schemas/ops.yaml; this block registers the device's runtime (Note [No CUDA device] in
// CUDARuntime.h: it loads whether or not a GPU is present).
#include "ember/plugin/Plugin.h"
#include "CUDAPlugin.h"

#if defined(EMBER_GPU_HIP)
EMBER_PLUGIN("hip", EMBER_VERSION_STRING, "cpu")
EMBER_LIBRARY_IMPL(aten, HIP, m) {
#elif defined(EMBER_GPU_EMULATE)
// The CUDA key on the host, for tests (Note [The emulated cuda plugin] in EmulatedRuntime.h).
EMBER_PLUGIN("cuda-emulated", EMBER_VERSION_STRING, "cpu")
EMBER_LIBRARY_IMPL(aten, CUDA, m) {
#else
EMBER_PLUGIN("cuda", EMBER_VERSION_STRING, "cpu")
EMBER_LIBRARY_IMPL(aten, CUDA, m) {
#endif
  (void)m;
  ember::EMBER_GPU_NS::impl::register_runtime();
}
