#pragma once
// Datasets: Example (a sample or a batch), the Dataset interface, TensorDataset, and the default
// collate function (stack).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/dispatcher/Tensor.h"

namespace ember::data {

// One sample, or a batch of them (LibTorch's Example<>). `target` may be undefined (no target).
struct Example {
  Tensor data;
  Tensor target;
};

// A map-style dataset: samples 0 .. size()-1 (LibTorch's Dataset<>). A DataLoader with worker
// threads calls get() and get_stacked() from several threads at once, so they must be safe to
// call concurrently (reading immutable tensors, as TensorDataset does, is).
class EMBER_API Dataset {
 public:
  virtual ~Dataset();
  virtual Example get(size_t index) = 0;
  virtual size_t size() const = 0;
  // The samples at `indices` already collated by default_collate, when the dataset can make the
  // batch faster than get() per index and a stack; nullopt (the default) when it cannot.
  virtual std::optional<Example> get_stacked(const std::vector<int64_t>& indices);
};

// Samples are rows of tensors held in memory: sample i is {data[i], target[i]}, and a batch is
// one index_select per tensor (no per-sample get and stack).
class EMBER_API TensorDataset : public Dataset {
 public:
  // `target` may be undefined; when defined, its size(0) must equal data's.
  explicit TensorDataset(Tensor data, Tensor target = {});
  Example get(size_t index) override;
  size_t size() const override;
  std::optional<Example> get_stacked(const std::vector<int64_t>& indices) override;
  const Tensor& data() const { return data_; }
  const Tensor& target() const { return target_; }

 private:
  Tensor data_;
  Tensor target_;
};

// The default collate function: Example{stack(datas), stack(targets)}; targets stay undefined
// when every sample's is. Throws ValueError for an empty batch, mixed defined and undefined
// targets, or samples whose shapes differ.
EMBER_API Example default_collate(std::vector<Example> samples);

}  // namespace ember::data
