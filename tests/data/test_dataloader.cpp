// DataLoader: batch contents and order, shuffling per epoch, workers and prefetch depths, early
// exits, worker exceptions, the tensor fast path and its speed.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "DataTestUtil.h"

namespace {

using namespace ember::datatest;
using ember::Tensor;
using ember::data::DataLoader;
using ember::data::DataLoaderOptions;
using ember::data::Example;
namespace T = ember::data::transforms;

// Row i is [2i, 2i+1], target i.
std::shared_ptr<ember::data::TensorDataset> rows(int64_t n) {
  return std::make_shared<ember::data::TensorDataset>(ember::arange(2 * n, ember::kFloat32).view({n, 2}),
                                                      ember::arange(n));
}

// A dataset without the fast path: sample i is {[i, -i], i}. Counts get() calls, can sleep (so
// that workers finish out of order) and can throw at one index.
class SlowDataset : public ember::data::Dataset {
 public:
  explicit SlowDataset(size_t n, bool sleepy = false, int64_t throw_at = -1)
      : n_(n), sleepy_(sleepy), throw_at_(throw_at) {}
  Example get(size_t index) override {
    ++gets;
    if (sleepy_) std::this_thread::sleep_for(std::chrono::microseconds((index * 7919 % 5) * 300));
    EMBER_CHECK(static_cast<int64_t>(index) != throw_at_, "[SlowDataset] sample {} is broken", index);
    const auto i = static_cast<double>(index);
    return {ember::tensor({i, -i}, ember::kFloat32), ember::scalar_tensor(static_cast<int64_t>(index), ember::kInt64)};
  }
  size_t size() const override { return n_; }
  std::atomic<int64_t> gets{0};

 private:
  size_t n_;
  bool sleepy_;
  int64_t throw_at_;
};

std::vector<Example> one_epoch(DataLoader& loader) {
  std::vector<Example> out;
  for (auto& batch : loader) out.push_back(batch);
  return out;
}

std::vector<int64_t> targets_of(const std::vector<Example>& batches) {
  std::vector<int64_t> all;
  for (const auto& b : batches) {
    const auto t = values<int64_t>(b.target);
    all.insert(all.end(), t.begin(), t.end());
  }
  return all;
}

void expect_same_batches(const std::vector<Example>& a, const std::vector<Example>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(ember::equal(a[i].data, b[i].data)) << "batch " << i;
    EXPECT_TRUE(ember::equal(a[i].target, b[i].target)) << "batch " << i;
  }
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

TEST(DataLoader, SequentialBatchesAndDropLast) {
  DataLoader loader(rows(10), DataLoaderOptions().batch_size(4));
  EXPECT_EQ(loader.size(), 3u);
  const auto batches = one_epoch(loader);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(values<int64_t>(batches[0].target), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(values<float>(batches[1].data), (std::vector<float>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(batches[1].data.sizes(), ember::IntArrayRef({4, 2}));
  EXPECT_EQ(values<int64_t>(batches[2].target), (std::vector<int64_t>{8, 9}));

  DataLoader dropping(rows(10), DataLoaderOptions(4).drop_last(true));
  EXPECT_EQ(dropping.size(), 2u);
  EXPECT_EQ(targets_of(one_epoch(dropping)), iota(8));
  DataLoader none(rows(3), DataLoaderOptions(4).drop_last(true).workers(2));
  EXPECT_EQ(none.size(), 0u);
  EXPECT_TRUE(one_epoch(none).empty());
  DataLoader exact(rows(8), DataLoaderOptions(4).drop_last(false));
  EXPECT_EQ(exact.size(), 2u);
}

TEST(DataLoader, ShuffleIsAPermutationThatChangesPerEpoch) {
  DataLoader loader(rows(100), DataLoaderOptions(7).shuffle(true).seed(42));
  EXPECT_EQ(loader.epoch(), 0u);
  const auto e0 = targets_of(one_epoch(loader));
  EXPECT_EQ(loader.epoch(), 1u);
  const auto e1 = targets_of(one_epoch(loader));
  for (const auto* e : {&e0, &e1}) {
    auto sorted = *e;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, iota(100));
    EXPECT_NE(*e, iota(100));
  }
  EXPECT_NE(e0, e1);

  // A pure function of (seed, epoch): a fresh loader repeats it, set_epoch jumps to an epoch.
  DataLoader again(rows(100), DataLoaderOptions(7).shuffle(true).seed(42));
  again.set_epoch(1);
  EXPECT_EQ(targets_of(one_epoch(again)), e1);
  again.set_epoch(0);
  EXPECT_EQ(targets_of(one_epoch(again)), e0);
  std::vector<int64_t> from_indices;
  for (size_t i = 0; i < again.size(); ++i) {
    const auto idx = again.batch_indices(0, i);
    from_indices.insert(from_indices.end(), idx.begin(), idx.end());
    EXPECT_EQ(values<int64_t>(again.batch(0, i).target), idx);
  }
  EXPECT_EQ(from_indices, e0);

  DataLoader other_seed(rows(100), DataLoaderOptions(7).shuffle(true).seed(43));
  EXPECT_NE(targets_of(one_epoch(other_seed)), e0);
}

TEST(DataLoader, DefaultSeedIsTheDefaultGeneratorsSeed) {
  ember::manual_seed(1234);
  DataLoader a(rows(50), DataLoaderOptions(5).shuffle(true));
  EXPECT_EQ(a.seed(), 1234u);
  DataLoader b(rows(50), DataLoaderOptions(5).shuffle(true).seed(1234));
  expect_same_batches(one_epoch(a), one_epoch(b));
  ember::manual_seed(ember::default_rng_seed_val);
}

TEST(DataLoader, SameBatchesOnAnyWorkerCountAndPrefetchDepth) {
  // A per-row seeded transform, so the batches depend on the seed, the epoch and the sample.
  const T::Lambda jitter([](const Tensor& x, const T::TransformContext& ctx) {
    std::vector<float> u;
    for (size_t r = 0; r < ctx.indices.size(); ++r) u.push_back(static_cast<float>(ctx.uniform(r)));
    return x + ember::from_blob(u.data(), {static_cast<int64_t>(u.size()), 1}, ember::kFloat32).clone();
  });
  auto slow = std::make_shared<SlowDataset>(53, /*sleepy=*/true);
  auto options = [&] { return DataLoaderOptions(4).shuffle(true).seed(5).transform(jitter); };
  DataLoader ref_loader(slow, options());
  const auto ref0 = one_epoch(ref_loader);
  const auto ref1 = one_epoch(ref_loader);
  ASSERT_EQ(ref0.size(), 14u);
  EXPECT_EQ(ref0.back().data.size(0), 1);
  for (size_t workers : {1, 2, 4}) {
    for (std::optional<size_t> prefetch :
         {std::optional<size_t>{}, std::optional<size_t>{1}, std::optional<size_t>{2}, std::optional<size_t>{8}}) {
      SCOPED_TRACE("workers " + std::to_string(workers) + ", prefetch " +
                   (prefetch ? std::to_string(*prefetch) : std::string("default")));
      auto o = options().workers(workers);
      if (prefetch) o.prefetch(*prefetch);
      DataLoader loader(slow, o);
      expect_same_batches(one_epoch(loader), ref0);
      expect_same_batches(one_epoch(loader), ref1);
    }
  }

  // The fast path with image transforms, likewise.
  const int64_t n = 37;
  auto images = std::make_shared<ember::data::TensorDataset>(ember::rand({n, 1, 6, 6}), ember::arange(n));
  const T::Compose augment{T::RandomCrop(6, 2), T::RandomHorizontalFlip(0.5), T::Normalize(0.5, 0.25)};
  DataLoader image_ref(images, DataLoaderOptions(5).shuffle(true).seed(9).transform(augment));
  const auto image0 = one_epoch(image_ref);
  for (size_t workers : {1, 2, 4}) {
    DataLoader loader(images, DataLoaderOptions(5).shuffle(true).seed(9).transform(augment).workers(workers));
    expect_same_batches(one_epoch(loader), image0);
  }
}

// A TensorDataset that counts get() calls.
class CountingTensorDataset : public ember::data::TensorDataset {
 public:
  using TensorDataset::TensorDataset;
  Example get(size_t index) override {
    ++gets;
    return TensorDataset::get(index);
  }
  std::atomic<int64_t> gets{0};
};

TEST(DataLoader, TensorDatasetBatchesWithoutPerSampleGets) {
  auto ds =
      std::make_shared<CountingTensorDataset>(ember::arange(20, ember::kFloat32).view({10, 2}), ember::arange(10));
  DataLoader fast(ds, DataLoaderOptions(3).shuffle(true).seed(1));
  const auto batches = one_epoch(fast);
  EXPECT_EQ(ds->gets, 0);
  EXPECT_EQ(values<float>(batches[0].data)[0], 2.0f * static_cast<float>(values<int64_t>(batches[0].target)[0]));

  // A user collate function gets the samples, in batch order, through get().
  std::vector<std::vector<int64_t>> seen;
  std::mutex m;
  auto collate = [&](std::vector<Example> samples) {
    std::vector<int64_t> idx;
    Tensor sum = ember::zeros({2});
    for (auto& s : samples) {
      idx.push_back(s.target.item<int64_t>());
      sum = sum + s.data;
    }
    std::lock_guard<std::mutex> lk(m);
    seen.push_back(idx);
    return Example{sum, ember::tensor({static_cast<int64_t>(samples.size())})};
  };
  DataLoader custom(ds, DataLoaderOptions(4).collate(collate).workers(2));
  const auto summed = one_epoch(custom);
  EXPECT_EQ(ds->gets, 10);
  ASSERT_EQ(summed.size(), 3u);
  EXPECT_EQ(values<float>(summed[0].data), (std::vector<float>{0 + 2 + 4 + 6, 1 + 3 + 5 + 7}));
  EXPECT_EQ(values<float>(summed[2].data), (std::vector<float>{16 + 18, 17 + 19}));
  EXPECT_EQ(values<int64_t>(summed[2].target), (std::vector<int64_t>{2}));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
}

TEST(DataLoader, DefaultCollateStacksAndChecks) {
  DataLoader loader(std::make_shared<SlowDataset>(5), DataLoaderOptions(2));
  const auto batches = one_epoch(loader);
  EXPECT_EQ(values<float>(batches[1].data), (std::vector<float>{2, -2, 3, -3}));
  EXPECT_EQ(batches[1].target.sizes(), ember::IntArrayRef({2}));
  EXPECT_EQ(error_of_type<ember::ValueError>([] { ember::data::default_collate({}); }),
            "[default_collate] samples: expected at least one sample, got none");
  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              ember::data::default_collate({{ember::zeros({2}), {}}, {ember::zeros({3}), {}}});
            }),
            "[default_collate] sample 1: expected data of shape [2] (as sample 0), got [3]");
  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              ember::data::default_collate({{ember::zeros({2}), {}}, {ember::zeros({2}), ember::zeros({})}});
            }),
            "[default_collate] sample 1: expected an undefined target (as sample 0), got a defined one");
  const auto no_target = ember::data::default_collate({{ember::zeros({2}), {}}, {ember::ones({2}), {}}});
  EXPECT_FALSE(no_target.target.defined());
  EXPECT_EQ(no_target.data.sizes(), ember::IntArrayRef({2, 2}));
}

TEST(DataLoader, PinMemoryWithoutAGpuPluginRaisesAtTheBatch) {
  // Pinned batches need a GPU plugin's host allocator; the error reaches the consumer unchanged
  // (tests/gpu/test_pinned_memory.cpp checks the pinned batches themselves).
  DataLoader loader(rows(4), DataLoaderOptions(2).pin_memory(true).workers(2));
  EXPECT_TRUE(DataLoaderOptions().pin_memory(true).pin_memory());
  EXPECT_EQ(error_of_type<ember::ValueError>([&] { one_epoch(loader); }),
            "[pin_memory] pinned memory needs a GPU plugin's host allocator and none is registered: load the plugin "
            "of your GPU (ember::plugins::load(\"cuda\"))");
}

TEST(DataLoader, EarlyBreakStopsTheWorkers) {
  auto ds = std::make_shared<SlowDataset>(1000, /*sleepy=*/true);
  DataLoader loader(ds, DataLoaderOptions(2).workers(4).prefetch(4));
  int seen = 0;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.target.size(0), 2);
    if (++seen == 3) break;
  }
  const int64_t gets = ds->gets;
  // At most the 3 batches taken and the 4 allowed ahead were made.
  EXPECT_LE(gets, (3 + 4) * 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ds->gets, gets);
  // The loader runs a full epoch afterwards.
  EXPECT_EQ(targets_of(one_epoch(loader)), iota(1000));
}

TEST(DataLoader, DestroyingTheLoaderStopsItsIteration) {
  for (size_t workers : {0, 3}) {
    auto ds = std::make_shared<SlowDataset>(100, /*sleepy=*/true);
    auto loader = std::make_unique<DataLoader>(ds, DataLoaderOptions(2).workers(workers));
    auto it = loader->begin();
    EXPECT_EQ(values<int64_t>((*it).target), (std::vector<int64_t>{0, 1}));
    loader.reset();
    const int64_t gets = ds->gets;
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { ++it; }),
              "[DataLoader] the loader was destroyed during the iteration");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(ds->gets, gets);
  }
}

struct CustomError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

TEST(DataLoader, WorkerExceptionsReachTheConsumer) {
  for (size_t workers : {0, 1, 3}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    DataLoader loader(std::make_shared<SlowDataset>(60, /*sleepy=*/true, /*throw_at=*/37),
                      DataLoaderOptions(10).workers(workers));
    std::vector<int64_t> delivered;
    const std::string msg = error_of_type<ember::ValueError>([&] {
      for (auto& batch : loader) {
        const auto t = values<int64_t>(batch.target);
        delivered.insert(delivered.end(), t.begin(), t.end());
      }
    });
    EXPECT_EQ(msg, "[SlowDataset] sample 37 is broken");
    EXPECT_EQ(delivered, iota(30));

    // The iteration goes on past the broken batch when the caller catches.
    auto it = loader.begin();
    for (int i = 0; i < 2; ++i) ++it;
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { ++it; }), "[SlowDataset] sample 37 is broken");
    ++it;
    EXPECT_EQ(it.index(), 4u);
    EXPECT_EQ(values<int64_t>((*it).target)[0], 40);
  }
  // Any exception type, from a collate function too.
  DataLoader loader(rows(8), DataLoaderOptions(4).workers(2).collate([](std::vector<Example> s) -> Example {
    if (s.front().target.item<int64_t>() == 4) throw CustomError("collate failed on the second batch");
    return ember::data::default_collate(std::move(s));
  }));
  EXPECT_EQ(error_of_type<CustomError>([&] { one_epoch(loader); }), "collate failed on the second batch");
}

TEST(DataLoader, IteratorAndOptionErrors) {
  DataLoader loader(rows(2), DataLoaderOptions(2));
  auto it = loader.begin();
  ++it;
  EXPECT_TRUE(it == loader.end());
  EXPECT_EQ(error_of_type<ember::IndexError>([&] { *it; }),
            "[DataLoader] cannot dereference an iterator past the last batch");
  EXPECT_EQ(error_of_type<ember::IndexError>([&] { ++it; }),
            "[DataLoader] cannot advance an iterator past the last batch");
  EXPECT_EQ(error_of_type<ember::IndexError>([&] { loader.batch(0, 1); }),
            "[DataLoader] batch 1 is out of range for an epoch of 1 batches");
  EXPECT_EQ(error_of_type<ember::ValueError>([] { DataLoader l(nullptr); }),
            "[DataLoader] dataset: expected a dataset, got a null pointer");
  EXPECT_EQ(error_of_type<ember::ValueError>([] { DataLoader l(rows(2), DataLoaderOptions(0)); }),
            "[DataLoader] batch_size: expected at least 1, got 0");
  EXPECT_EQ(
      error_of_type<ember::ValueError>([] { DataLoader l(rows(2), DataLoaderOptions(1).workers(2).prefetch(0)); }),
      "[DataLoader] prefetch: expected at least 1 batch when workers are used, got 0");
  EXPECT_EQ(error_of_type<ember::IndexError>([] { rows(2)->get(2); }),
            "[TensorDataset::get] index 2 is out of range for a dataset of size 2");
  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              ember::data::TensorDataset(ember::zeros({3, 2}), ember::zeros({4}));
            }),
            "[TensorDataset] target: expected 3 samples (data.size(0)), got target.size(0) = 4");
}

TEST(DataLoader, MakeDataLoaderAsLibTorch) {
  auto loader = ember::data::make_data_loader(ember::data::TensorDataset(ember::ones({6, 3})),
                                              DataLoaderOptions().batch_size(4).workers(1));
  std::vector<int64_t> sizes;
  for (auto& batch : *loader) {
    EXPECT_FALSE(batch.target.defined());
    sizes.push_back(batch.data.size(0));
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 2}));
  DataLoader by_value(ember::data::TensorDataset(ember::ones({5, 3})), DataLoaderOptions(5));
  EXPECT_EQ(by_value.size(), 1u);
  EXPECT_EQ(by_value.dataset()->size(), 5u);
}

TEST(DataLoader, InMemoryBatchesAreFast) {
  // MNIST-sized rows: a batch is one index_select per tensor, so the loop is far from data-bound.
  const int64_t n = 20000;
  auto ds = std::make_shared<ember::data::TensorDataset>(ember::rand({n, 1, 28, 28}), ember::arange(n));
  DataLoader loader(ds, DataLoaderOptions(64).shuffle(true).seed(0));
  const auto start = std::chrono::steady_clock::now();
  int64_t images = 0;
  for (auto& batch : loader) images += batch.data.size(0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(images, n);
  const double rate = static_cast<double>(images) / seconds;
  std::printf("DataLoader: %.0f images/s (batch 64, shuffled, no workers)\n", rate);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "no speed bound under a sanitizer";
#endif
  EXPECT_GT(rate, 100000.0);
}

}  // namespace
