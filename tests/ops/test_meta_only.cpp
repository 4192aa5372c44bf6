// A process with only the meta plugin loaded (EMBER_DEFAULT_PLUGINS=meta): views, reshape,
// matmul, conv2d and the other device-generic composites run on meta tensors, because they live
// in libember, not in a backend plugin.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {

TensorOptions meta(ScalarType t = kFloat32) { return TensorOptions(t).device(kMeta); }

TEST(MetaOnly, NoBackendPluginIsLoaded) {
  ensure_initialized();
  std::vector<std::string> names;
  for (const auto& p : plugins::loaded()) names.push_back(p.name);
  EXPECT_EQ(names, std::vector<std::string>{"meta"});
}

TEST(MetaOnly, ViewsAndReshape) {
  Tensor a = ember::empty({2, 3, 4}, meta());
  Tensor v = a.view({6, 4});
  EXPECT_TRUE(v.is_meta());
  EXPECT_EQ(v.sizes(), IntArrayRef({6, 4}));
  Tensor t = a.transpose(0, 2);
  EXPECT_EQ(t.sizes(), IntArrayRef({4, 3, 2}));
  EXPECT_EQ(t.strides(), IntArrayRef({1, 4, 12}));
  // reshape of a non-viewable layout copies: contiguous strides, same numel.
  Tensor r = t.reshape({24});
  EXPECT_EQ(r.sizes(), IntArrayRef({24}));
  EXPECT_EQ(r.strides(), IntArrayRef({1}));
  EXPECT_EQ(a.select(1, 2).sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(a.unsqueeze(0).sizes(), IntArrayRef({1, 2, 3, 4}));
  EXPECT_EQ(a.flatten(1).sizes(), IntArrayRef({2, 12}));
  EXPECT_EQ(ember::zeros({5}, meta(kInt64)).dtype(), kInt64);
  EXPECT_TRUE(ember::zeros_like(a).is_meta());
}

TEST(MetaOnly, MatmulAndConv2d) {
  Tensor x = ember::empty({7, 5, 3}, meta());
  Tensor w = ember::empty({3, 4}, meta());
  Tensor y = ember::matmul(x, w);
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes(), IntArrayRef({7, 5, 4}));
  Tensor img = ember::empty({2, 3, 16, 16}, meta());
  Tensor k = ember::empty({8, 3, 3, 3}, meta());
  Tensor c = ember::conv2d(img, k, std::nullopt, {2}, {1});
  EXPECT_TRUE(c.is_meta());
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 8, 8, 8}));
  Tensor p = ember::max_pool2d(c, {2});
  EXPECT_EQ(p.sizes(), IntArrayRef({2, 8, 4, 4}));
}

TEST(MetaOnly, CpuTensorsNeedTheCpuPlugin) {
  try {
    (void)ember::empty({2});
    FAIL() << "expected NotImplementedError";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("load the plugin for device 'cpu'"), std::string::npos) << e.what();
  }
}

}  // namespace
