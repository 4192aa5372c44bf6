// The cuda plugin: where no GPU is, it loads, reports no device and raises clear errors (Note
// [No CUDA device] in plugins/cuda/CUDARuntime.h); where one is, its runtime, allocator,
// streams, events, copies and devices are checked against the CPU. EMBER_TEST_BACKEND_PLUGIN
// names another plugin serving cuda (cuda-emulated, with two emulated devices in CI). The
// operators are checked by the backend-generic harness (BackendOps.cuda).
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

std::string plugin_name() {
  const char* p = std::getenv("EMBER_TEST_BACKEND_PLUGIN");
  return p && *p ? p : "cuda";
}

bool gpu() {
  static const bool has = [] {
    plugins::load(plugin_name());
    return cuda::device_count() > 0;
  }();
  return has;
}

#define REQUIRE_THE_CUDA_PLUGIN() \
  if (plugin_name() != "cuda") GTEST_SKIP() << "checks the cuda plugin itself, not " << plugin_name()

#define REQUIRE_GPU() \
  if (!gpu()) GTEST_SKIP() << "no CUDA device on this machine (the plugin reports none)"

using ember::test::error_of;

TEST(CudaPlugin, LoadsUnderItsOwnFileNameWithThePluginNameCuda) {
  REQUIRE_THE_CUDA_PLUGIN();
  const plugins::PluginInfo info = plugins::load("cuda");
  EXPECT_EQ(info.name, "cuda");
  EXPECT_THAT(info.path, HasSubstr("libember-cuda.so"));
  EXPECT_TRUE(plugins::is_loaded("cuda"));
}

TEST(CudaPlugin, WithoutAGpuReportsNoDeviceAndRaisesClearErrors) {
  REQUIRE_THE_CUDA_PLUGIN();
  if (gpu()) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_EQ(device_count(kCUDA), 0);
  const std::string msg = error_of([] { ember::empty({2, 3}, TensorOptions().device(kCUDA)); });
  EXPECT_THAT(msg, HasSubstr("[empty] no CUDA device is available: cudaGetDeviceCount failed"));
  EXPECT_THAT(error_of([] { ember::ones({2}).to(Device("cuda:0")); }), HasSubstr("no CUDA device is available"));
  EXPECT_THAT(error_of([] { cuda::current_device(); }), HasSubstr("no CUDA device is available"));
  EXPECT_THAT(error_of([] { cuda::getStreamFromPool(); }), HasSubstr("no CUDA device is available"));
  EXPECT_THAT(error_of([] { cuda::CUDACachingAllocator::getDeviceStats(0); }), HasSubstr("no CUDA device"));
  cuda::CUDACachingAllocator::emptyCache();  // nothing to do, no error
  // Pinned memory (Note [Pinned host memory]) needs a device as well.
  EXPECT_FALSE(ember::ones({2}).is_pinned());
  EXPECT_THAT(error_of([] { ember::ones({2}).pin_memory(); }), HasSubstr("[pin_memory] no CUDA device is available"));
  cuda::CachingHostAllocator_emptyCache();
}

TEST(CudaPlugin, DeviceStringsParse) {
  EXPECT_EQ(Device("cuda:1").type(), kCUDA);
  EXPECT_EQ(Device("cuda:1").index(), 1);
  EXPECT_EQ(Device("cuda").index(), -1);
}

TEST(CudaPlugin, CopiesRoundTripInEveryDtype) {
  REQUIRE_GPU();
  for (ScalarType dt : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64}) {
    const Tensor h = ember::arange(0, 24, TensorOptions(kFloat32)).view({4, 6}).remainder(7).to(dt);
    const Tensor d = h.to(kCUDA);
    EXPECT_EQ(d.device().type(), kCUDA);
    EXPECT_EQ(d.device().index(), 0);
    EXPECT_TRUE(ember::equal(d.cpu(), h)) << dt;
    // Strided both ways, and converting on the device.
    EXPECT_TRUE(ember::equal(h.t().to(kCUDA).cpu(), h.t())) << dt;
    EXPECT_TRUE(ember::equal(d.t().cpu(), h.t())) << dt;
    EXPECT_TRUE(ember::equal(d.to(kFloat64).cpu(), h.to(kFloat64))) << dt;
  }
}

TEST(CudaPlugin, ElementwiseMatchesTheCpu) {
  REQUIRE_GPU();
  const Tensor a = ember::randn({33, 17}), b = ember::randn({17});
  const Tensor da = a.cuda(), db = b.cuda();
  EXPECT_TRUE(ember::allclose((da + db * 2).cpu(), a + b * 2));
  EXPECT_TRUE(ember::allclose(da.exp().cpu(), a.exp(), 1e-6, 1e-6));
  EXPECT_TRUE(ember::equal((da > 0).cpu(), a > 0));
  EXPECT_TRUE(ember::allclose(ember::where(da > 0, da, db).cpu(), ember::where(a > 0, a, b)));
  EXPECT_TRUE(ember::allclose((da.t() * 3).cpu(), a.t() * 3));
}

TEST(CudaPlugin, NoDeviceMallocAfterWarmUp) {
  REQUIRE_GPU();
  auto step = [] {
    Tensor x = ember::randn({256, 256}).cuda();
    for (int i = 0; i < 10; ++i) x = (x * 0.5 + 1).tanh();
    return x.sum().cpu();  // a host sync, as a training step's loss.item()
  };
  step();
  const auto before = cuda::CUDACachingAllocator::getDeviceStats(0).num_device_alloc;
  for (int i = 0; i < 5; ++i) step();
  EXPECT_EQ(cuda::CUDACachingAllocator::getDeviceStats(0).num_device_alloc, before);
  cuda::CUDACachingAllocator::emptyCache();
  EXPECT_EQ(cuda::memory_reserved(0), cuda::memory_allocated(0));
}

TEST(CudaPlugin, StreamsGuardsAndEvents) {
  REQUIRE_GPU();
  const cuda::CUDAStream def = cuda::getDefaultCUDAStream();
  EXPECT_EQ(cuda::getCurrentCUDAStream(), def);
  const cuda::CUDAStream s = cuda::getStreamFromPool();
  EXPECT_NE(s, def);
  EXPECT_NE(s.stream(), nullptr);
  {
    cuda::CUDAStreamGuard g(s);
    EXPECT_EQ(cuda::getCurrentCUDAStream(), s);
    cuda::CUDAEvent start(0), end(0);
    start.record();
    Tensor x = ember::ones({1 << 20}, TensorOptions().device(kCUDA)) * 2;
    end.record();
    end.synchronize();
    EXPECT_TRUE(end.query());
    EXPECT_GE(start.elapsed_time(end), 0.0f);
    EXPECT_EQ(x.sum().item<float>(), float(2 << 20));
  }
  EXPECT_EQ(cuda::getCurrentCUDAStream(), def);
  {
    cuda::CUDAMultiStreamGuard g({s});
    EXPECT_EQ(cuda::getCurrentCUDAStream(), s);
  }
  EXPECT_EQ(cuda::getCurrentCUDAStream(), def);
  cuda::CUDAGuard g(0);
  EXPECT_EQ(cuda::current_device(), 0);
  EXPECT_THROW(cuda::CUDAGuard(Device(kCPU)), ValueError);
}

// Two devices: a tensor keeps its device's index, kernels run on the device of their operands, a
// factory given "cuda" allocates on the current device, copies cross devices, and each device
// has its own allocator statistics.
TEST(CudaPlugin, TwoDevices) {
  REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "one CUDA device on this machine";
  const Tensor h = ember::randn({5, 7});
  const Tensor d1 = h.to(Device("cuda:1"));
  EXPECT_EQ(d1.device(), Device("cuda:1"));
  EXPECT_EQ(cuda::current_device(), 0) << "copying to cuda:1 leaves the current device alone";
  const Tensor r = (d1 * 2 + 1).exp();
  EXPECT_EQ(r.device(), Device("cuda:1"));
  EXPECT_TRUE(ember::allclose(r.cpu(), (h * 2 + 1).exp(), 1e-5, 1e-6));
  EXPECT_EQ(r.sum().device(), Device("cuda:1"));
  const Tensor d0 = d1.to(Device("cuda:0"));
  EXPECT_EQ(d0.device(), Device("cuda:0"));
  EXPECT_TRUE(ember::equal(d0.cpu(), h));
  Tensor into = ember::zeros({5, 7}, TensorOptions().device(Device("cuda:1")));
  into.copy_(d0.t().t());
  EXPECT_TRUE(ember::equal(into.cpu(), h));
  // Strided on either side, in another dtype: packed on the source device, staged on the destination.
  Tensor transposed = ember::zeros({7, 5}, TensorOptions().device(Device("cuda:1")).dtype(kFloat64)).t();
  transposed.copy_(d0);
  EXPECT_TRUE(ember::equal(transposed.cpu(), h.to(kFloat64)));
  const Tensor from_strided = d0.t().to(Device("cuda:1"));
  EXPECT_EQ(from_strided.device(), Device("cuda:1"));
  EXPECT_TRUE(ember::equal(from_strided.cpu(), h.t()));
  {
    cuda::CUDAGuard g(1);
    EXPECT_EQ(cuda::current_device(), 1);
    EXPECT_EQ(ember::ones({2}, TensorOptions().device(kCUDA)).device(), Device("cuda:1"));
    EXPECT_EQ(cuda::getCurrentCUDAStream().device_index(), 1);
  }
  EXPECT_EQ(cuda::current_device(), 0);
  EXPECT_EQ(ember::ones({2}, TensorOptions().device(kCUDA)).device(), Device("cuda:0"));
  EXPECT_GT(cuda::memory_allocated(1), 0) << "d1, r and into live on cuda:1";
  EXPECT_ANY_THROW(d0 + d1) << "operands on two devices";
}

}  // namespace
