// See Note [DataLoader batches] in ember/data/DataLoader.h.
#include "ember/data/DataLoader.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>

#include "Random.h"
#include "ember/core/Exception.h"
#include "ember/core/Generator.h"

namespace ember::data {
namespace detail {

namespace {
size_t batches_per_epoch(size_t samples, size_t batch_size, bool drop_last) {
  return drop_last ? samples / batch_size : (samples + batch_size - 1) / batch_size;
}
}  // namespace

// What makes the batches of one epoch; immutable once built, so workers share it unlocked.
struct EpochPlan {
  std::shared_ptr<Dataset> dataset;
  CollateFn collate;
  transforms::Transform transform;
  uint64_t seed = 0;
  uint64_t epoch = 0;
  bool pin_memory = false;
  size_t batch_size = 1;
  size_t num_samples = 0;
  size_t num_batches = 0;
  std::vector<int64_t> order;  // the shuffled order; empty for dataset order

  EpochPlan(const std::shared_ptr<Dataset>& ds, const DataLoaderOptions& o, uint64_t seed_in, uint64_t epoch_in)
      : dataset(ds),
        collate(o.collate()),
        transform(o.transform()),
        seed(seed_in),
        epoch(epoch_in),
        pin_memory(o.pin_memory()),
        batch_size(o.batch_size()),
        num_samples(ds->size()) {
    num_batches = batches_per_epoch(num_samples, batch_size, o.drop_last());
    if (o.shuffle()) {
      // Fisher-Yates; step k draws from the block at (seed, epoch, k) on stream 0.
      order.resize(num_samples);
      std::iota(order.begin(), order.end(), int64_t{0});
      for (size_t k = num_samples; k-- > 1;) {
        const auto b = random_block(seed, /*stream=*/0, epoch, k);
        std::swap(order[k], order[uniform_below(b[1], b[0], k + 1)]);
      }
    }
  }

  std::vector<int64_t> indices(size_t i) const {
    EMBER_CHECK_INDEX(i < num_batches, "[DataLoader] batch {} is out of range for an epoch of {} batches", i,
                      num_batches);
    const size_t begin = i * batch_size, end = std::min(begin + batch_size, num_samples);
    std::vector<int64_t> idx(end - begin);
    for (size_t k = begin; k < end; ++k) idx[k - begin] = order.empty() ? static_cast<int64_t>(k) : order[k];
    return idx;
  }

  Example make(size_t i) const {
    std::vector<int64_t> idx = indices(i);
    std::optional<Example> batch;
    if (!collate) batch = dataset->get_stacked(idx);
    if (!batch) {
      std::vector<Example> samples;
      samples.reserve(idx.size());
      for (int64_t k : idx) samples.push_back(dataset->get(static_cast<size_t>(k)));
      batch = collate ? collate(std::move(samples)) : default_collate(std::move(samples));
    }
    if (transform.defined()) {
      transforms::TransformContext ctx;
      ctx.seed = seed;
      ctx.epoch = epoch;
      ctx.indices = std::move(idx);
      batch->data = transform(batch->data, ctx);
    }
    if (pin_memory) {
      batch->data = batch->data.pin_memory();
      if (batch->target.defined()) batch->target = batch->target.pin_memory();
    }
    return std::move(*batch);
  }
};

// One iteration: the plan, the worker threads, and the ring of batches made ahead.
class EpochRun {
 public:
  EpochRun(EpochPlan plan, size_t workers, size_t prefetch)
      : plan_(std::move(plan)), prefetch_(workers > 0 ? prefetch : 0), slots_(prefetch_) {
    try {
      for (size_t w = 0; w < workers; ++w) threads_.emplace_back([this] { work(); });
    } catch (...) {
      stop();
      throw;
    }
  }
  ~EpochRun() { stop(); }
  EpochRun(const EpochRun&) = delete;
  EpochRun& operator=(const EpochRun&) = delete;

  // Stops the workers (each finishes the batch in hand) and joins them. `loader_gone`: the loader
  // was destroyed, so a later advance() throws.
  void stop(bool loader_gone = false) {
    {
      std::lock_guard<std::mutex> lk(mutex_);
      stopped_ = true;
      if (loader_gone) loader_gone_ = true;
    }
    work_cv_.notify_all();
    ready_cv_.notify_all();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  // Makes the next batch current (or ends the iteration); rethrows the exception that making it
  // threw.
  void advance() {
    current_ = {};
    EMBER_CHECK(!loader_gone_, "[DataLoader] the loader was destroyed during the iteration");
    if (taken_ == plan_.num_batches) {
      ended_ = true;
      return;
    }
    const size_t i = taken_++;
    if (prefetch_ == 0) {
      current_ = plan_.make(i);
      return;
    }
    Slot slot;
    {
      std::unique_lock<std::mutex> lk(mutex_);
      ready_cv_.wait(lk, [&] { return slots_[i % prefetch_].ready || loader_gone_; });
      EMBER_CHECK(!loader_gone_, "[DataLoader] the loader was destroyed during the iteration");
      slot = std::exchange(slots_[i % prefetch_], Slot{});
      consumed_ = taken_;
    }
    work_cv_.notify_all();
    if (slot.error) std::rethrow_exception(slot.error);
    current_ = std::move(slot.batch);
  }

  Example& current() {
    EMBER_CHECK_INDEX(!ended_ && taken_ > 0, "[DataLoader] cannot dereference an iterator past the last batch");
    return current_;
  }
  bool ended() const { return ended_; }
  size_t index() const { return taken_ - 1; }

 private:
  struct Slot {
    bool ready = false;
    Example batch;
    std::exception_ptr error;
  };

  void work() {
    std::unique_lock<std::mutex> lk(mutex_);
    for (;;) {
      work_cv_.wait(
          lk, [&] { return stopped_ || next_claim_ >= plan_.num_batches || next_claim_ < consumed_ + prefetch_; });
      if (stopped_ || next_claim_ >= plan_.num_batches) return;
      const size_t j = next_claim_++;
      lk.unlock();
      Slot made;
      try {
        made.batch = plan_.make(j);
      } catch (...) {
        made.error = std::current_exception();
      }
      made.ready = true;
      lk.lock();
      slots_[j % prefetch_] = std::move(made);
      ready_cv_.notify_one();
    }
  }

  const EpochPlan plan_;
  const size_t prefetch_;
  // Consumer-only state.
  size_t taken_ = 0;
  bool ended_ = false;
  Example current_;
  // Shared state, under mutex_.
  std::mutex mutex_;
  std::condition_variable work_cv_, ready_cv_;
  std::vector<Slot> slots_;  // batch j waits in slots_[j % prefetch_]
  size_t next_claim_ = 0;    // the next batch a worker may make
  size_t consumed_ = 0;      // batches the consumer has taken; workers stay below consumed_ + prefetch_
  bool stopped_ = false;
  std::atomic<bool> loader_gone_ = false;  // also read unlocked by the consumer
  std::vector<std::thread> threads_;
};

}  // namespace detail

DataLoader::Iterator::Iterator(std::shared_ptr<detail::EpochRun> run) : run_(std::move(run)) {}
DataLoader::Iterator::Iterator(Iterator&&) noexcept = default;
DataLoader::Iterator& DataLoader::Iterator::operator=(Iterator&&) noexcept = default;
DataLoader::Iterator::~Iterator() = default;

Example& DataLoader::Iterator::operator*() {
  EMBER_CHECK(run_ != nullptr, "[DataLoader] cannot dereference a moved-from iterator");
  return run_->current();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  EMBER_CHECK(run_ != nullptr, "[DataLoader] cannot advance a moved-from iterator");
  EMBER_CHECK_INDEX(!run_->ended(), "[DataLoader] cannot advance an iterator past the last batch");
  run_->advance();
  return *this;
}

bool DataLoader::Iterator::operator==(Sentinel) const { return run_ == nullptr || run_->ended(); }

size_t DataLoader::Iterator::index() const {
  EMBER_CHECK(run_ != nullptr, "[DataLoader] a moved-from iterator has no batch");
  return run_->index();
}

namespace {
uint64_t default_seed() {
  const Generator& gen = ember::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lk(gen.mutex());
  return gen.current_seed();
}
}  // namespace

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  EMBER_CHECK(dataset_ != nullptr, "[DataLoader] dataset: expected a dataset, got a null pointer");
  EMBER_CHECK(options_.batch_size() > 0, "[DataLoader] batch_size: expected at least 1, got 0");
  EMBER_CHECK(options_.workers() == 0 || options_.prefetch().value_or(1) > 0,
              "[DataLoader] prefetch: expected at least 1 batch when workers are used, got 0");
  seed_ = options_.seed() ? *options_.seed() : default_seed();
}

DataLoader::~DataLoader() {
  for (auto& weak : runs_)
    if (auto run = weak.lock()) run->stop(/*loader_gone=*/true);
}

DataLoader::Iterator DataLoader::begin() {
  std::erase_if(runs_, [](const auto& w) { return w.expired(); });
  const size_t workers = options_.workers();
  auto run = std::make_shared<detail::EpochRun>(detail::EpochPlan(dataset_, options_, seed_, epoch_), workers,
                                                options_.prefetch().value_or(2 * workers));
  ++epoch_;
  runs_.push_back(run);
  run->advance();
  return Iterator(std::move(run));
}

size_t DataLoader::size() const {
  return detail::batches_per_epoch(dataset_->size(), options_.batch_size(), options_.drop_last());
}

std::vector<int64_t> DataLoader::batch_indices(uint64_t epoch, size_t i) const {
  return detail::EpochPlan(dataset_, options_, seed_, epoch).indices(i);
}

Example DataLoader::batch(uint64_t epoch, size_t i) const {
  return detail::EpochPlan(dataset_, options_, seed_, epoch).make(i);
}

}  // namespace ember::data
