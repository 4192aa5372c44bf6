#pragma once
// The training job's per-epoch metrics and their plot.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::train {

struct EpochMetrics {
  int64_t epoch = 0;  // from 1
  double train_loss = 0, train_acc = 0, test_loss = 0, test_acc = 0, images_per_s = 0, seconds = 0;
};

// Writes a PNG with the loss and accuracy curves per epoch (PLplot, cairo driver).
void plot_training(const std::vector<EpochMetrics>& rows, const std::string& path);

}  // namespace ember::train
