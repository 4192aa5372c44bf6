#pragma once
// The MNIST dataset (LibTorch's torch::data::datasets::MNIST), which also reads Fashion-MNIST:
// both ship the same four IDX files.
#include <string>

#include "ember/data/Dataset.h"

namespace ember::data::datasets {

class EMBER_API MNIST : public TensorDataset {
 public:
  enum class Mode { kTrain, kTest };

  // Reads root/{train,t10k}-{images-idx3,labels-idx1}-ubyte, each raw or, when the raw file is
  // absent, with a .gz suffix. Images become float32 in [0, 1] of shape [N, 1, H, W] (28 x 28
  // for MNIST), targets int64 of shape [N]. A missing or malformed file throws ValueError naming
  // it.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  bool is_train() const noexcept { return is_train_; }
  const Tensor& images() const { return data(); }
  const Tensor& targets() const { return target(); }

 private:
  MNIST(Example split, bool train);
  bool is_train_;
};

}  // namespace ember::data::datasets
