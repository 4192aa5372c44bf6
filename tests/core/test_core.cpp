// Core alone (no dispatcher, no generated code, no plugin): dtypes, 16-bit floats, devices,
// dispatch keys, Scalar, type promotion, TensorImpl and TensorBase, the CPU allocator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "ember/core/Allocator.h"
#include "ember/core/Exception.h"
#include "ember/core/Half.h"
#include "ember/core/MemoryFormat.h"
#include "ember/core/OptionalArrayRef.h"
#include "ember/core/Parallel.h"
#include "ember/core/TensorBase.h"
#include "ember/core/TypePromotion.h"

using namespace ember;

TEST(ScalarTypes, SizesNamesAndParsingForEveryDtype) {
  const std::pair<ScalarType, size_t> sizes[] = {{kBool, 1},    {kUInt8, 1},   {kInt8, 1},      {kInt16, 2},
                                                 {kInt32, 4},   {kInt64, 8},   {kFloat16, 2},   {kBFloat16, 2},
                                                 {kFloat32, 4}, {kFloat64, 8}, {kComplex64, 8}, {kComplex128, 16},
                                                 {kQUInt8, 1},  {kQInt8, 1},   {kQInt32, 4}};
  for (auto [t, n] : sizes) {
    EXPECT_EQ(element_size(t), n) << t;
    EXPECT_EQ(parse_scalar_type(dtype_name(t)), t);
    EXPECT_EQ(parse_scalar_type(scalar_type_name(t)), t);
  }
  EXPECT_EQ(dtype_name(kFloat32), "float32");
  EXPECT_EQ(scalar_type_name(kInt64), "Long");
  EXPECT_EQ(parse_scalar_type("float"), kFloat32);
  EXPECT_FALSE(parse_scalar_type("float128").has_value());
  EXPECT_TRUE(is_floating_type(kBFloat16));
  EXPECT_FALSE(is_integral_type(kBool, false));
  EXPECT_TRUE(is_integral_type(kBool, true));
}

TEST(ScalarTypes, HalfAndBFloat16RoundToNearestEven) {
  // Every half value round-trips through float exactly.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    Half h(static_cast<uint16_t>(b), Half::from_bits_t{});
    float f = h;
    if (std::isnan(f)) continue;
    EXPECT_EQ(Half(f).x, b) << b;
  }
  EXPECT_EQ(Half(1.0f).x, 0x3c00);
  EXPECT_EQ(Half(65504.0f).x, 0x7bff);
  EXPECT_EQ(Half(65520.0f).x, 0x7c00);            // rounds to inf
  EXPECT_EQ(Half(5.9604645e-08f).x, 0x0001);      // smallest subnormal
  EXPECT_EQ(Half(1.0f + 1.0f / 2048).x, 0x3c00);  // tie goes to even
  EXPECT_EQ(BFloat16(1.0f).x, 0x3f80);
  EXPECT_EQ(BFloat16(1.0f + 1.0f / 256).x, 0x3f80);  // tie to even
  EXPECT_EQ(static_cast<float>(BFloat16(3.140625f)), 3.140625f);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
}

TEST(Devices, ParsePrintAndErrors) {
  EXPECT_EQ(Device("cuda:1"), Device(kCUDA, 1));
  EXPECT_EQ(Device("cuda:1").str(), "cuda:1");
  EXPECT_EQ(Device("cpu").str(), "cpu");
  EXPECT_FALSE(Device("meta").has_index());
  try {
    Device("gpu:0");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown device type 'gpu': expected one of cpu, cuda, hip, meta"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Device("cuda:x"), ValueError);
  EXPECT_THROW(Device("cuda:-1"), ValueError);
  EXPECT_THROW(register_device_type("Bad Name"), ValueError);
}

TEST(DispatchKeys, EveryRuntimeKeyMapsToItsSlotAndName) {
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    auto k = static_cast<DispatchKey>(i);
    if (auto b = backend_of(k); b && !is_valid_device_type(*b)) continue;
    EXPECT_EQ(parse_dispatch_key(to_string(k)), k) << to_string(k);
    if (i == 0) continue;
    DispatchKeySet ks(k);
    EXPECT_EQ(ks.highest_priority_index(), i) << to_string(k);
    EXPECT_TRUE(ks.has(k));
  }
  EXPECT_EQ(to_string(DispatchKey::AutogradCUDA), "AutogradCUDA");
  EXPECT_EQ(make_dispatch_key(Functionality::Sparse, kCPU), DispatchKey::SparseCPU);
  EXPECT_EQ(parse_dispatch_key("CompositeImplicitAutograd"), DispatchKey::CompositeImplicitAutograd);
}

TEST(DispatchKeys, PriorityExclusionAndBelow) {
  DispatchKeySet ks = DispatchKeySet(DispatchKey::AutogradCPU) | DispatchKeySet(DispatchKey::CUDA);
  EXPECT_EQ(ks.highest_priority_key(), DispatchKey::AutogradCUDA);  // highest backend wins
  EXPECT_EQ(ks.str(), "{AutogradCUDA, AutogradCPU, CUDA, CPU}");
  DispatchKeySet no_ag = ks - DispatchKeySet(DispatchKey::AutogradCPU);
  EXPECT_EQ(no_ag.highest_priority_key(), DispatchKey::CUDA);  // backend bits survive exclusion
  EXPECT_EQ(ks.below_highest(), DispatchKeySet(DispatchKey::CPU) | DispatchKeySet(DispatchKey::CUDA));
  EXPECT_EQ((DispatchKeySet(DispatchKey::Profiler) | DispatchKeySet(DispatchKey::CPU)).highest_priority_key(),
            DispatchKey::Profiler);
  EXPECT_EQ(DispatchKeySet().highest_priority_index(), 0);
  EXPECT_EQ(DispatchKeySet::of(Functionality::Autograd).highest_priority_index(), 0);  // no backend: Undefined
}

namespace {
// A contiguous CPU tensor made from core alone (make_empty is the dispatcher layer's).
TensorBase empty_base(IntArrayRef sizes, ScalarType dtype) {
  Storage s = make_storage(static_cast<size_t>(checked_numel(sizes, "test")) * element_size(dtype), kCPU);
  return TensorBase(make_intrusive<TensorImpl>(std::move(s), dtype, sizes));
}
}  // namespace

TEST(Scalars, KindsAndConversions) {
  Scalar a = 3, b = 2.5, c = true;
  EXPECT_EQ(a.type(), kInt64);
  EXPECT_EQ(b.type(), kFloat64);
  EXPECT_EQ(c.type(), kBool);
  EXPECT_EQ((-a).toLong(), -3);
  EXPECT_EQ(a.to<float>(), 3.0f);
  EXPECT_TRUE(Scalar(2).equal(Scalar(2.0)));
}

TEST(TensorBase, GeometryDataAndErrorsWithoutTheDispatcher) {
  TensorBase t = empty_base({2, 3, 4}, kFloat64);
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(t.strides(), IntArrayRef({12, 4, 1}));
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 24u * 8);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_THROW(t.size(3), IndexError);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_FALSE(t.is_view());
  EXPECT_EQ(t._version(), 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  EXPECT_THROW(t.data_ptr<float>(), TypeError);
  EXPECT_EQ(t.key_set(), DispatchKeySet(DispatchKey::CPU));
  auto acc = t.accessor<double, 3>();
  acc[1][2][3] = 7.0;
  EXPECT_EQ(t.data_ptr<double>()[12 + 8 + 3], 7.0);
  TensorBase alias = t;
  EXPECT_TRUE(alias.is_same(t));
  EXPECT_EQ(t.use_count(), 2);
  EXPECT_EQ(empty_base({1}, kQInt8).key_set(), DispatchKeySet(DispatchKey::QuantizedCPU));
  EXPECT_EQ(maybe_wrap_dim(-1, 0, "op"), 0);  // a 0-dim tensor takes dim 0 and -1
  try {
    maybe_wrap_dim(3, 2, "sum");
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "[sum] dimension out of range (expected to be in range of [-2, 1], but got 3)");
  }
}

TEST(TypePromotion, TensorsAndScalarsPromoteByCategory) {
  EXPECT_EQ(promote_types(kInt32, kFloat16), kFloat16);
  EXPECT_EQ(promote_types(kUInt8, kInt8), kInt16);
  EXPECT_EQ(promote_types(kBFloat16, kFloat16), kFloat32);
  EXPECT_FALSE(can_cast(kFloat32, kInt64));
  EXPECT_TRUE(can_cast(kInt64, kFloat32));
  TensorBase i = empty_base({2}, kInt32), f0 = empty_base({}, kFloat64), h = empty_base({2}, kFloat16);
  EXPECT_EQ(result_type(i, Scalar(2.5)), kFloat32);  // a float Scalar lifts ints to the default dtype
  EXPECT_EQ(result_type(i, f0), kFloat64);           // a 0-dim tensor of a higher category: its dtype
  EXPECT_EQ(result_type(h, f0), kFloat16);           // same category: the dimensioned dtype wins
  EXPECT_EQ(result_type(i, Scalar(7)), kInt32);
}

TEST(Allocator, CachesAndAligns) {
  cpu_allocator_empty_cache();
  auto before = cpu_allocator_stats();
  for (int i = 0; i < 100; ++i) {
    TensorBase t = empty_base({1000}, kFloat32);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  }
  auto after = cpu_allocator_stats();
  EXPECT_EQ(after.allocations - before.allocations, 100u);
  EXPECT_GE(after.cache_hits - before.cache_hits, 99u);
  TensorBase big = empty_base({8 << 20}, kFloat32);  // 32 MiB: a large block
  void* p = big.data_ptr();
  big.reset();
  TensorBase again = empty_base({8 << 20}, kFloat32);
  EXPECT_EQ(again.data_ptr(), p);  // served from the cache, no new pages to fault in
}

TEST(Threads, ParallelForSplitsOverTheThreadsNestsSeriallyAndRethrows) {
  const int saved = get_num_threads();
  set_num_threads(2);
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::set<std::thread::id> threads;
  bool nested_serial = true;
  parallel_for(10, 100010, 1000, [&](int64_t b, int64_t e) {
    EXPECT_TRUE(in_parallel_region());
    int calls = 0;  // a nested parallel_for runs its whole range on this thread
    parallel_for(0, 1 << 20, 1, [&](int64_t nb, int64_t ne) { calls += nb == 0 && ne == (1 << 20); });
    std::lock_guard<std::mutex> lock(mu);
    ranges.emplace_back(b, e);
    threads.insert(std::this_thread::get_id());
    nested_serial = nested_serial && calls == 1;
  });
  std::sort(ranges.begin(), ranges.end());
  EXPECT_EQ(ranges, (std::vector<std::pair<int64_t, int64_t>>{{10, 50010}, {50010, 100010}}));
  EXPECT_EQ(threads.size(), 2u) << "libgomp.so.1 should be found on this machine";
  EXPECT_TRUE(nested_serial);
  EXPECT_FALSE(in_parallel_region());

  // Not longer than the grain: one call, on the caller.
  ranges.clear();
  const std::thread::id caller = std::this_thread::get_id();
  parallel_for(0, 1000, 1000, [&](int64_t b, int64_t e) {
    ranges.emplace_back(b, e);
    EXPECT_EQ(std::this_thread::get_id(), caller);
  });
  EXPECT_EQ(ranges, (std::vector<std::pair<int64_t, int64_t>>{{0, 1000}}));
  parallel_for(5, 5, 1, [&](int64_t, int64_t) { ADD_FAILURE() << "called on an empty range"; });

  // The first exception of a body reaches the caller once every thread is done.
  try {
    parallel_for(0, 100000, 1, [](int64_t b, int64_t) {
      if (b != 0) EMBER_THROW(ValueError, "[test] chunk at {}", b);
    });
    ADD_FAILURE() << "no exception";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "[test] chunk at 50000");
  }
  set_num_threads(saved);
}

namespace {
// Note [OptionalIntArrayRef]: what a braced list, an int or a temporary vector converts to lives
// until the caller's full-expression ends. Read through a call that is not inlined (under ASan,
// scripts/test.sh --asan, a dangling list is a stack-use-after-scope; std::optional<IntArrayRef>
// dangles this way at -O2).
[[gnu::noinline]] int64_t sum_of(OptionalIntArrayRef d, bool, bool) {
  int64_t s = 0;
  for (int64_t v : d.value()) s += v;
  return s;
}
}  // namespace

TEST(OptionalIntArrayRef, ArgumentsLiveForTheCall) {
  EXPECT_EQ(sum_of({1}, false, true), 1);
  EXPECT_EQ(sum_of({0, 2}, false, true), 2);
  EXPECT_EQ(sum_of(std::vector<int64_t>{3, 4}, false, true), 7);
  const int d = 5;
  EXPECT_EQ(sum_of(d, false, true), 5);
  EXPECT_EQ(sum_of(int64_t{6}, false, true), 6);
  EXPECT_FALSE(OptionalIntArrayRef(std::nullopt).has_value());
  EXPECT_FALSE(OptionalIntArrayRef().has_value());
}

TEST(MemoryFormats, ChannelsLastGeometry) {
  EXPECT_EQ(IntArrayRef(memory_format_strides({2, 3, 4, 5}, MemoryFormat::ChannelsLast)), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(IntArrayRef(memory_format_strides({2, 3, 4, 5, 6}, MemoryFormat::ChannelsLast3d)),
            IntArrayRef({360, 1, 90, 18, 3}));
  EXPECT_EQ(IntArrayRef(memory_format_strides({2, 3}, MemoryFormat::Contiguous)), IntArrayRef({3, 1}));
  EXPECT_TRUE(is_channels_last_contiguous({2, 3, 4, 5}, {60, 1, 15, 3}, MemoryFormat::ChannelsLast));
  EXPECT_FALSE(is_channels_last_contiguous({2, 3, 4, 5}, {60, 20, 5, 1}, MemoryFormat::ChannelsLast));
  EXPECT_TRUE(is_channels_last_contiguous({1, 3, 1, 1}, {3, 1, 1, 1}, MemoryFormat::ChannelsLast));
  EXPECT_FALSE(is_channels_last_strides({1, 3, 1, 1}, {3, 1, 1, 1}, MemoryFormat::ChannelsLast));  // N111: NCHW
  EXPECT_TRUE(is_channels_last_strides({2, 3, 4, 4}, {96, 1, 24, 6}, MemoryFormat::ChannelsLast));  // not dense
  EXPECT_FALSE(is_channels_last_strides({2, 3, 4, 5}, {60, 1, 15, 3}, MemoryFormat::ChannelsLast3d));
  EXPECT_THROW(memory_format_strides({2, 3}, MemoryFormat::ChannelsLast, "x"), ValueError);
  EXPECT_THROW(memory_format_strides({2, 3}, MemoryFormat::Preserve, "x"), ValueError);
}
