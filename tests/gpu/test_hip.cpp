// The hip plugin, built from plugins/cuda's sources (Note [One source, two GPU plugins]): its
// file carries a code object for each target of EMBER_HIP_ARCHS, and with no AMD GPU it loads,
// reports no device and raises clear errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "ember/ember.h"

using namespace ember;
using testing::HasSubstr;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

TEST(HipPlugin, CarriesACodeObjectPerTarget) {
  const plugins::PluginInfo info = plugins::load("hip");
  EXPECT_EQ(info.name, "hip");
  EXPECT_THAT(info.path, HasSubstr("libember-hip.so"));
  std::ifstream f(info.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto archs = split(EMBER_HIP_ARCHS);
  ASSERT_FALSE(archs.empty());
  for (const auto& arch : archs)  // the offload bundle's entry names, as roc-obj-ls lists them
    EXPECT_NE(bytes.find("hipv4-amdgcn-amd-amdhsa--" + arch), std::string::npos) << arch;
  EXPECT_EQ(bytes.find("hipv4-amdgcn-amd-amdhsa--gfx803"), std::string::npos) << "no default target slipped in";
}

TEST(HipPlugin, WithoutAnAmdGpuReportsNoDevice) {
  plugins::load("hip");
  if (device_count(kHIP) > 0) GTEST_SKIP() << "this machine has a HIP device";
  std::string msg;
  try {
    ember::empty({2}, TensorOptions().device(kHIP));
  } catch (const std::exception& e) {
    msg = e.what();
  }
  EXPECT_THAT(msg, HasSubstr("[empty] no HIP device is available: hipGetDeviceCount failed"));
  try {
    ember::ones({2}).to(Device("hip"));
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("no HIP device is available"));
  }
  // Its pinned host allocator is registered (Note [Pinned host memory]) and needs a device too.
  EXPECT_FALSE(ember::ones({2}).is_pinned(Device(kHIP)));
  try {
    ember::ones({2}).pin_memory(Device(kHIP));
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("[pin_memory] no HIP device is available"));
  }
}

}  // namespace
