#pragma once
// QConfig (PyTorch's torch.ao.quantization.QConfig): how to observe a module's activations and
// its weight, as factories making a fresh observer for each module.
#include <functional>
#include <memory>
#include <string>

#include "ember/ao/quantization/observer.h"

namespace ember::ao::quantization {

using ObserverFactory = std::function<std::shared_ptr<ObserverBase>()>;

struct QConfig {
  ObserverFactory activation;
  ObserverFactory weight;
};

// PyTorch's get_default_qconfig: "x86" and "fbgemm" (the same here) observe activations with
// HistogramObserver(reduce_range=true) (quint8, per tensor affine) and weights with
// PerChannelMinMaxObserver(qint8, per_channel_symmetric); "onednn" the same without reduce_range
// (the 8-bit range that the VNNI kernels here need no headroom for); "qnnpack" with
// HistogramObserver without reduce_range and MinMaxObserver(qint8, per_tensor_symmetric). Other
// names: ValueError.
EMBER_API QConfig get_default_qconfig(const std::string& backend = "x86");

}  // namespace ember::ao::quantization
