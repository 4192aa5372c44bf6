// Pinned host memory (Note [Pinned host memory] in ember/core/Allocator.h) through a GPU plugin:
// pin_memory, is_pinned, the factories' pin_memory=true, non_blocking copies both ways, the
// cache's reuse and the controls in ember/cuda.h. EMBER_TEST_BACKEND_PLUGIN names the plugin
// (cuda by default, cuda-emulated in CI); skipped, with the reason, where it has no device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "UnitTestUtil.h"
#include "ember/cuda.h"
#include "ember/ember.h"

using namespace ember;
using testing::HasSubstr;

namespace {

using ember::test::error_of;

class PinnedMemory : public testing::Test {
 protected:
  void SetUp() override {
    const char* plugin = std::getenv("EMBER_TEST_BACKEND_PLUGIN");
    plugins::load(plugin && *plugin ? std::string(plugin) : "cuda");
    if (device_count(kCUDA) == 0) GTEST_SKIP() << "no CUDA device on this machine (the plugin reports none)";
  }
  static Tensor sample(std::vector<int64_t> shape) {
    return randn(shape, ember::detail::createCPUGenerator(5), kFloat32);
  }
};

TEST_F(PinnedMemory, PinMemoryCopiesIntoPinnedMemoryOnce) {
  const Tensor x = sample({4, 5});
  EXPECT_FALSE(x.is_pinned());
  const Tensor p = x.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.is_pinned(Device(kCUDA)));
  EXPECT_TRUE(p.is_cpu());
  EXPECT_FALSE(p.is_same(x));
  EXPECT_NE(p.data_ptr(), x.data_ptr());
  EXPECT_TRUE(equal(p, x));
  EXPECT_TRUE(p.pin_memory().is_same(p)) << "already pinned: itself";
  EXPECT_TRUE(p.slice(0, 1, 3).is_pinned()) << "a view of pinned memory is pinned";
  EXPECT_FALSE(x.is_pinned());
}

TEST_F(PinnedMemory, PinningKeepsDenseStridesAndDensifiesTheRest) {
  const Tensor t = sample({3, 4}).t();
  const Tensor p = t.pin_memory();
  EXPECT_EQ(p.strides(), t.strides()) << "a transposed tensor stays transposed, as empty_like";
  EXPECT_TRUE(equal(p, t));
  const Tensor e = sample({3}).unsqueeze(0).expand({2, 3});  // overlapping: dense strides
  const Tensor pe = e.pin_memory();
  EXPECT_EQ(pe.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_TRUE(equal(pe, e));
  const Tensor z = empty({0, 3}).pin_memory();
  EXPECT_EQ(z.sizes(), (std::vector<int64_t>{0, 3}));
}

TEST_F(PinnedMemory, FactoriesAllocatePinnedWhenAsked) {
  const auto pinned = TensorOptions().pinned_memory(true);
  const Tensor e = empty({2, 3}, pinned);
  EXPECT_TRUE(e.is_pinned());
  EXPECT_TRUE(e.is_cpu());
  const Tensor cl = empty({2, 3, 4, 5}, pinned, MemoryFormat::ChannelsLast);
  EXPECT_TRUE(cl.is_pinned());
  EXPECT_TRUE(cl.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(empty_strided({2, 3}, {1, 2}, pinned).is_pinned());
  const Tensor z = zeros({3}, pinned), o = ones({3}, pinned), f = full({3}, 2.5, pinned);
  for (const Tensor& t : {z, o, f}) EXPECT_TRUE(t.is_pinned());
  EXPECT_TRUE(equal(f, full({3}, 2.5)));
  const Tensor a = arange(5, pinned.dtype(kInt64)), l = linspace(0, 1, 5, pinned), i = eye(3, pinned);
  for (const Tensor& t : {a, l, i}) EXPECT_TRUE(t.is_pinned());
  EXPECT_TRUE(equal(a, arange(5)));
  EXPECT_TRUE(equal(l, linspace(0, 1, 5)));
  EXPECT_TRUE(equal(i, eye(3)));
  const Tensor r = randperm(7, pinned.dtype(kInt64));
  EXPECT_TRUE(r.is_pinned());
  EXPECT_TRUE(equal(std::get<0>(r.sort()), arange(7)));
  EXPECT_TRUE(empty_like(sample({2}), pinned).is_pinned());
  EXPECT_TRUE(rand({4}, pinned).is_pinned());
  EXPECT_FALSE(empty({2}).is_pinned());
}

TEST_F(PinnedMemory, NonBlockingCopiesRoundTrip) {
  const Tensor x = sample({64, 33});
  const Tensor p = x.pin_memory();
  const Tensor d = p.to(Device(kCUDA), /*non_blocking=*/true);
  EXPECT_EQ(d.device().type(), kCUDA);
  // Back to the host without blocking: the result is pinned (LibTorch's _to_copy), so the copy can
  // run asynchronously; it is complete once the stream is.
  const Tensor back = (d * 2).to(Device(kCPU), /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned());
  cuda::getCurrentCUDAStream().synchronize();
  EXPECT_TRUE(equal(back, x * 2));
  // A blocking copy into pinned memory and from it, in another dtype and through strides.
  Tensor host = empty({33, 64}, TensorOptions().dtype(kFloat64).pinned_memory(true)).t();
  host.copy_(d);
  EXPECT_TRUE(allclose(host, x.to(kFloat64)));
  Tensor dd = empty({64, 33}, TensorOptions().device(kCUDA).dtype(kFloat64));
  dd.copy_(host, /*non_blocking=*/true);
  cuda::synchronize();
  EXPECT_TRUE(allclose(dd.cpu(), x.to(kFloat64)));
  // Pageable memory with non_blocking: the copy waits instead (nothing may write it behind the caller's back).
  const Tensor pageable = d.to(Device(kCPU), kFloat32, /*non_blocking=*/false);
  EXPECT_FALSE(pageable.is_pinned());
  EXPECT_TRUE(equal(pageable, x));
}

TEST_F(PinnedMemory, TheCacheReusesBlocksAcrossSteps) {
  // A data loader's steady state: pin a batch, copy it without blocking, drop it.
  auto step = [](int64_t i) {
    const Tensor batch = full({256, 64}, static_cast<double>(i)).pin_memory();
    const Tensor d = batch.to(Device(kCUDA), /*non_blocking=*/true);
    return d.sum().item<double>();
  };
  EXPECT_EQ(step(0), 0.0);
  const int64_t warm = cuda::CachingHostAllocator_getStats().num_host_alloc;
  for (int64_t i = 1; i <= 20; ++i) EXPECT_EQ(step(i), static_cast<double>(i) * 256 * 64);
  const HostMemoryStats st = cuda::CachingHostAllocator_getStats();
  EXPECT_EQ(st.num_host_alloc, warm) << "no cudaHostAlloc after the first step";
  EXPECT_GE(st.reserved_bytes.current, 256 * 64 * 4);
  EXPECT_EQ(st.allocated_bytes.current, 0) << "no pinned tensor is alive";
  cuda::CachingHostAllocator_emptyCache();
  EXPECT_EQ(cuda::CachingHostAllocator_getStats().reserved_bytes.current, 0);
  EXPECT_GT(cuda::CachingHostAllocator_getStats().num_host_free, 0);
}

TEST_F(PinnedMemory, DataLoaderPinsItsBatches) {
  auto ds = std::make_shared<data::TensorDataset>(sample({10, 3}), arange(10));
  data::DataLoader plain(ds, data::DataLoaderOptions(4).shuffle(true).seed(3));
  data::DataLoader pinned(ds, data::DataLoaderOptions(4).shuffle(true).seed(3).workers(2).pin_memory(true));
  std::vector<data::Example> expected;
  for (auto& b : plain) expected.push_back(b);
  size_t i = 0;
  for (auto& b : pinned) {
    ASSERT_LT(i, expected.size());
    EXPECT_TRUE(b.data.is_pinned());
    EXPECT_TRUE(b.target.is_pinned());
    EXPECT_TRUE(equal(b.data, expected[i].data));
    EXPECT_TRUE(equal(b.target, expected[i].target));
    const Tensor d = b.data.to(Device(kCUDA), /*non_blocking=*/true);
    EXPECT_TRUE(equal(d.cpu(), expected[i].data));
    ++i;
  }
  EXPECT_EQ(i, 3u);
}

TEST_F(PinnedMemory, RecordEventTakesOnlyItsOwnBlocks) {
  const Tensor p = sample({8}).pin_memory();
  const Tensor q = sample({8});
  const cuda::CUDAStream s = cuda::getStreamFromPool();
  EXPECT_TRUE(cuda::CachingHostAllocator_recordEvent(p.unsafeGetTensorImpl()->storage()->data_ptr(), s));
  EXPECT_FALSE(cuda::CachingHostAllocator_recordEvent(q.unsafeGetTensorImpl()->storage()->data_ptr(), s))
      << "pageable memory: nothing to record";
  EXPECT_EQ(cuda::getPinnedMemoryAllocator(), cuda::getCachingHostAllocator());
}

TEST_F(PinnedMemory, GradientsFlowThroughPinMemory) {
  const Tensor x = sample({3, 2}).requires_grad_();
  const Tensor p = x.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.requires_grad());
  (p * p).sum().backward();
  EXPECT_TRUE(allclose(x.grad(), 2 * x.detach()));
}

TEST_F(PinnedMemory, OnlyDenseCpuTensorsCanBePinned) {
  const Tensor d = ones({2}, TensorOptions().device(kCUDA));
  EXPECT_FALSE(d.is_pinned()) << "not an error to ask";
  EXPECT_THAT(error_of([&] { d.pin_memory(); }),
              HasSubstr("[_pin_memory] cannot pin a strided tensor on cuda:0: only dense CPU tensors can be pinned"));
  EXPECT_THAT(error_of([] { ones({2}, TensorOptions().device(kMeta)).pin_memory(); }),
              HasSubstr("only dense CPU tensors can be pinned"));
  EXPECT_THAT(error_of([] { empty({2}, TensorOptions().device(kCUDA).pinned_memory(true)); }),
              HasSubstr("[empty] only dense CPU tensors can be pinned"));
  EXPECT_THAT(error_of([] { quantize_per_tensor(ones({2}), 0.1, 0, kQInt8).pin_memory(); }),
              HasSubstr("[_pin_memory] cannot pin a quantized tensor on cpu: only dense CPU tensors can be pinned"));
  EXPECT_THAT(error_of([] { ones({2}).to_sparse().pin_memory(); }),
              HasSubstr("[_pin_memory] cannot pin a sparse tensor on cpu: only dense CPU tensors can be pinned"));
  EXPECT_THAT(error_of([] { ones({2}).pin_memory(Device(kCPU)); }),
              HasSubstr("[pin_memory] expected the GPU device to pin memory for, got cpu"));
}

}  // namespace
