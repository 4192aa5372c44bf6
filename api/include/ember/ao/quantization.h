#pragma once
// Post-training quantization: observers, QConfig, fuse_modules / prepare / convert, and the
// quantized modules they produce (PyTorch's torch.ao.quantization and torch.ao.nn.quantized).
#include "ember/ao/quantization/observer.h"
#include "ember/ao/quantization/qconfig.h"
#include "ember/ao/quantization/quantize.h"
#include "ember/nn/quantized/modules.h"
