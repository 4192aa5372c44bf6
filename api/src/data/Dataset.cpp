#include "ember/data/Dataset.h"

#include <utility>

#include "ember/api/Operators.h"
#include "ember/core/Exception.h"

namespace ember::data {

Dataset::~Dataset() = default;

std::optional<Example> Dataset::get_stacked(const std::vector<int64_t>& /*indices*/) { return std::nullopt; }

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  EMBER_CHECK(data_.defined(), "[TensorDataset] data: expected a defined tensor");
  EMBER_CHECK(data_.dim() >= 1,
              "[TensorDataset] data: expected at least one dimension (the samples), got a 0-dim tensor");
  if (target_.defined()) {
    EMBER_CHECK(target_.dim() >= 1,
                "[TensorDataset] target: expected at least one dimension (the samples), got a 0-dim tensor");
    EMBER_CHECK(target_.size(0) == data_.size(0),
                "[TensorDataset] target: expected {} samples (data.size(0)), got target.size(0) = {}", data_.size(0),
                target_.size(0));
  }
}

size_t TensorDataset::size() const { return static_cast<size_t>(data_.size(0)); }

Example TensorDataset::get(size_t index) {
  EMBER_CHECK_INDEX(index < size(), "[TensorDataset::get] index {} is out of range for a dataset of size {}", index,
                    size());
  const auto i = static_cast<int64_t>(index);
  return {data_.select(0, i), target_.defined() ? target_.select(0, i) : Tensor()};
}

std::optional<Example> TensorDataset::get_stacked(const std::vector<int64_t>& indices) {
  const auto n = static_cast<int64_t>(size());
  for (int64_t i : indices)
    EMBER_CHECK_INDEX(i >= 0 && i < n, "[TensorDataset::get_stacked] index {} is out of range for a dataset of size {}",
                      i, n);
  // The indices outlive the call, so wrapping them costs no copy.
  Tensor idx = from_blob(const_cast<int64_t*>(indices.data()), {static_cast<int64_t>(indices.size())}, kInt64);
  auto select = [&](const Tensor& t) {
    return t.device() == idx.device() ? t.index_select(0, idx) : t.index_select(0, idx.to(t.device()));
  };
  return Example{select(data_), target_.defined() ? select(target_) : Tensor()};
}

Example default_collate(std::vector<Example> samples) {
  EMBER_CHECK(!samples.empty(), "[default_collate] samples: expected at least one sample, got none");
  const bool has_target = samples.front().target.defined();
  EMBER_CHECK(samples.front().data.defined(), "[default_collate] sample 0: expected defined data");
  const std::vector<int64_t> shape(samples.front().data.sizes().begin(), samples.front().data.sizes().end());
  std::vector<Tensor> datas, targets;
  datas.reserve(samples.size());
  if (has_target) targets.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    auto& s = samples[i];
    EMBER_CHECK(s.data.defined(), "[default_collate] sample {}: expected defined data", i);
    EMBER_CHECK(s.target.defined() == has_target,
                "[default_collate] sample {}: expected {} target (as sample 0), got {}", i,
                has_target ? "a defined" : "an undefined", s.target.defined() ? "a defined one" : "an undefined one");
    EMBER_CHECK(s.data.sizes() == IntArrayRef(shape),
                "[default_collate] sample {}: expected data of shape {} (as sample 0), got {}", i, IntArrayRef(shape),
                s.data.sizes());
    datas.push_back(std::move(s.data));
    if (has_target) targets.push_back(std::move(s.target));
  }
  return {stack(datas), has_target ? stack(targets) : Tensor()};
}

}  // namespace ember::data
