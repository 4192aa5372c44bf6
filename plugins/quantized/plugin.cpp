// The quantized plugin's descriptor. Its QuantizedCPU kernels are registered by the generated
// RegisterQuantizedCPU.cpp, its composites (quantize_per_tensor, dequantize, the quantized
// factories) by the generated quantized/RegisterComposite.cpp, both from schemas/ops.yaml. See
// Note [Quantized tensors] in QTensorImpl.h.
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("quantized", EMBER_VERSION_STRING, "cpu")
