#pragma once
// DataLoader: batches of a Dataset, shuffled from a seed, made by worker threads and delivered in
// order (LibTorch's DataLoader and DataLoaderOptions spellings).
//
// Note [DataLoader batches]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Batch i of epoch e is a pure function of (seed, e, i): the epoch's order is a seeded shuffle
// (or 0..N-1), batch i takes positions [i*B, (i+1)*B) of it, its samples are collated (the
// dataset's get_stacked fast path when the collate function is the default, else get() per
// sample and the collate function), then the transform runs on the collated data (see Note [Data
// randomness] in ember/data/Transforms.h). Workers claim batch numbers in order, at most
// `prefetch` ahead of the consumer, and the consumer takes them strictly in order, so every
// worker count and prefetch depth gives the same batches in the same order. An iteration's
// workers belong to its iterator: they stop (finishing the batch in hand) when the loop ends or
// breaks, or when the loader is destroyed. An exception thrown while making a batch is rethrown
// unchanged (type and message) by the ++ (or begin()) that reaches that batch. With workers, the
// dataset's get()/get_stacked(), the collate function and the transform run on several threads at
// once.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/Dataset.h"
#include "ember/data/Transforms.h"

namespace ember::data {

using CollateFn = std::function<Example(std::vector<Example>)>;

struct EMBER_API DataLoaderOptions {
  DataLoaderOptions() = default;
  explicit DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

  // Samples per batch (default 1).
  DataLoaderOptions& batch_size(size_t v) { return batch_size_ = v, *this; }
  size_t batch_size() const { return batch_size_; }
  // Worker threads making batches; 0 (the default) makes them on the consumer's thread.
  DataLoaderOptions& workers(size_t v) { return workers_ = v, *this; }
  size_t workers() const { return workers_; }
  // Drop a last batch smaller than batch_size (default false).
  DataLoaderOptions& drop_last(bool v) { return drop_last_ = v, *this; }
  bool drop_last() const { return drop_last_; }
  // Reshuffle the samples every epoch (default false: dataset order).
  DataLoaderOptions& shuffle(bool v) { return shuffle_ = v, *this; }
  bool shuffle() const { return shuffle_; }
  // The seed of the shuffle and the transforms; unset, the default CPU generator's current seed
  // when the loader is made (so ember::manual_seed decides it).
  DataLoaderOptions& seed(uint64_t v) { return seed_ = v, *this; }
  const std::optional<uint64_t>& seed() const { return seed_; }
  // Batches made ahead of the consumer at most, being made or ready (LibTorch's max_jobs);
  // unset, 2 x workers. Ignored without workers.
  DataLoaderOptions& prefetch(size_t v) { return prefetch_ = v, *this; }
  const std::optional<size_t>& prefetch() const { return prefetch_; }
  // Turns a batch's samples into the batch; unset, default_collate (stack).
  DataLoaderOptions& collate(CollateFn v) { return collate_ = std::move(v), *this; }
  const CollateFn& collate() const { return collate_; }
  // Applied to each collated batch's data (rows = samples); see Note [Data randomness].
  DataLoaderOptions& transform(transforms::Transform v) { return transform_ = std::move(v), *this; }
  const transforms::Transform& transform() const { return transform_; }
  // Batches' tensors copied into pinned host memory as they are made (by the workers), so that
  // their copies to a GPU can be non_blocking (torch.utils.data.DataLoader's pin_memory; Note
  // [Pinned host memory]). Needs a GPU plugin (default false).
  DataLoaderOptions& pin_memory(bool v) { return pin_memory_ = v, *this; }
  bool pin_memory() const { return pin_memory_; }

 private:
  size_t batch_size_ = 1;
  size_t workers_ = 0;
  bool drop_last_ = false;
  bool shuffle_ = false;
  bool pin_memory_ = false;
  std::optional<uint64_t> seed_;
  std::optional<size_t> prefetch_;
  CollateFn collate_;
  transforms::Transform transform_;
};

namespace detail {
class EpochRun;
}

class EMBER_API DataLoader {
 public:
  struct Sentinel {};

  // One pass over an epoch's batches; move-only. Destroying it stops its workers.
  class EMBER_API Iterator {
   public:
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    Iterator(Iterator&&) noexcept;
    Iterator& operator=(Iterator&&) noexcept;
    ~Iterator();
    Example& operator*();
    Example* operator->() { return &**this; }
    // The next batch; rethrows a worker's exception for it.
    Iterator& operator++();
    bool operator==(Sentinel) const;
    // The current batch's number in the epoch.
    size_t index() const;

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<detail::EpochRun> run);
    std::shared_ptr<detail::EpochRun> run_;
  };

  // Throws ValueError for a null dataset or batch_size 0.
  explicit DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {});
  // Takes the dataset by value: DataLoader(datasets::MNIST(root), options).
  template <class D, std::enable_if_t<std::is_base_of_v<Dataset, D>, int> = 0>
  explicit DataLoader(D dataset, DataLoaderOptions options = {})
      : DataLoader(std::make_shared<D>(std::move(dataset)), std::move(options)) {}
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // Starts epoch `epoch()` (its workers start here) and advances the epoch counter.
  Iterator begin();
  Sentinel end() const { return {}; }

  // The epoch the next begin() runs (0 at first); each begin() then adds one.
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }
  uint64_t epoch() const { return epoch_; }

  // Batches per epoch.
  size_t size() const;
  // The dataset indices of batch i of `epoch`, and the batch itself, made on this thread: what
  // an iteration of that epoch delivers as its i-th batch.
  std::vector<int64_t> batch_indices(uint64_t epoch, size_t i) const;
  Example batch(uint64_t epoch, size_t i) const;

  const DataLoaderOptions& options() const { return options_; }
  uint64_t seed() const { return seed_; }
  const std::shared_ptr<Dataset>& dataset() const { return dataset_; }

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  uint64_t seed_;
  uint64_t epoch_ = 0;
  std::vector<std::weak_ptr<detail::EpochRun>> runs_;
};

// LibTorch's spelling: for (auto& batch : *make_data_loader(std::move(dataset), options)).
template <class D>
std::unique_ptr<DataLoader> make_data_loader(D dataset, DataLoaderOptions options = {}) {
  return std::make_unique<DataLoader>(std::make_shared<D>(std::move(dataset)), std::move(options));
}

}  // namespace ember::data
