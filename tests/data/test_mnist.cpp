// MNIST on Debian's Fashion-MNIST files (dataset-fashion-mnist), and on small raw fixtures.
#include <array>

#include "DataTestUtil.h"

namespace {

using namespace ember::datatest;
using ember::data::datasets::MNIST;

const std::string kFashion = EMBER_FASHION_MNIST_DIR;

// Labels per class.
std::array<int64_t, 10> class_counts(const ember::Tensor& targets) {
  std::array<int64_t, 10> counts{};
  for (int64_t t : values<int64_t>(targets)) {
    EXPECT_TRUE(t >= 0 && t < 10) << t;
    if (t >= 0 && t < 10) ++counts[static_cast<size_t>(t)];
  }
  return counts;
}

double pixel_sum(const ember::Tensor& images) {
  double s = 0;
  for (float v : values<float>(images)) s += v;
  return s;
}

#define REQUIRE_FASHION_MNIST()                                          \
  if (!std::filesystem::exists(kFashion + "/t10k-labels-idx1-ubyte.gz")) \
  GTEST_SKIP() << "Fashion-MNIST is not installed at " << kFashion << " (Debian's dataset-fashion-mnist)"

TEST(FashionMNIST, TrainSplit) {
  REQUIRE_FASHION_MNIST();
  MNIST train(kFashion, MNIST::Mode::kTrain);
  EXPECT_TRUE(train.is_train());
  EXPECT_EQ(train.size(), 60000u);
  const ember::Tensor& images = train.images();
  EXPECT_EQ(images.scalar_type(), ember::kFloat32);
  EXPECT_EQ(images.sizes(), ember::IntArrayRef({60000, 1, 28, 28}));
  EXPECT_EQ(train.targets().scalar_type(), ember::kInt64);
  EXPECT_EQ(train.targets().sizes(), ember::IntArrayRef({60000}));
  std::array<int64_t, 10> six_thousand;
  six_thousand.fill(6000);
  EXPECT_EQ(class_counts(train.targets()), six_thousand);
  // Values read from the files with Python's gzip module.
  EXPECT_EQ(std::vector<int64_t>(values<int64_t>(train.targets().narrow(0, 0, 10))),
            (std::vector<int64_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
  EXPECT_EQ(images[0][0][14][12].item<float>(), 237.0f / 255.0f);
  EXPECT_EQ(images[0][0][14][25].item<float>(), 1.0f);
  EXPECT_EQ(images[0][0][14][26].item<float>(), 77.0f / 255.0f);
  EXPECT_EQ(images[0][0][0][0].item<float>(), 0.0f);
  EXPECT_NEAR(pixel_sum(images[0]), 76247.0 / 255.0, 1e-3);
  EXPECT_NEAR(pixel_sum(images[59999]), 16684.0 / 255.0, 1e-3);
  EXPECT_NEAR(pixel_sum(images), 3431114169.0 / 255.0, 1.0);
  // The sample the dataset hands out is that row.
  const auto ex = train.get(0);
  EXPECT_TRUE(ember::equal(ex.data, images[0]));
  EXPECT_EQ(ex.target.item<int64_t>(), 9);
}

TEST(FashionMNIST, TestSplit) {
  REQUIRE_FASHION_MNIST();
  MNIST test(kFashion, MNIST::Mode::kTest);
  EXPECT_FALSE(test.is_train());
  EXPECT_EQ(test.size(), 10000u);
  EXPECT_EQ(test.images().sizes(), ember::IntArrayRef({10000, 1, 28, 28}));
  std::array<int64_t, 10> thousand;
  thousand.fill(1000);
  EXPECT_EQ(class_counts(test.targets()), thousand);
  EXPECT_EQ(std::vector<int64_t>(values<int64_t>(test.targets().narrow(0, 0, 10))),
            (std::vector<int64_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
  EXPECT_EQ(test.images()[0][0][14][13].item<float>(), 136.0f / 255.0f);
  EXPECT_EQ(test.images()[9999][0][13][13].item<float>(), 95.0f / 255.0f);
  EXPECT_NEAR(pixel_sum(test.images()), 573469082.0 / 255.0, 0.5);
}

class MNISTFiles : public ScratchDir {
 protected:
  // A 3-image split of 2 x 2 pictures, raw (no .gz).
  void write_split(const std::string& prefix, uint32_t n_labels = 3) {
    write(prefix + "-images-idx3-ubyte",
          concat(idx_header(0x08, {3, 2, 2}), {0, 255, 51, 102, 1, 2, 3, 4, 5, 6, 7, 8}));
    Bytes labels = idx_header(0x08, {n_labels});
    for (uint32_t i = 0; i < n_labels; ++i) labels.push_back(static_cast<unsigned char>(7 - i));
    write(prefix + "-labels-idx1-ubyte", labels);
  }
};

TEST_F(MNISTFiles, ReadsRawFilesAndScalesToUnitRange) {
  write_split("t10k");
  MNIST m(dir_.string(), MNIST::Mode::kTest);
  EXPECT_EQ(m.images().sizes(), ember::IntArrayRef({3, 1, 2, 2}));
  EXPECT_EQ(values<float>(m.images()[0]), (std::vector<float>{0.0f, 1.0f, 0.2f, 0.4f}));
  EXPECT_EQ(values<int64_t>(m.targets()), (std::vector<int64_t>{7, 6, 5}));
}

TEST_F(MNISTFiles, Errors) {
  const std::string root = dir_.string();
  EXPECT_EQ(error_of_type<ember::ValueError>([&] { MNIST m(root); }), "[MNIST] root '" + root + "': found neither '" +
                                                                          root + "/train-images-idx3-ubyte' nor '" +
                                                                          root + "/train-images-idx3-ubyte.gz'");
  write_split("train", 2);
  EXPECT_EQ(error_of_type<ember::ValueError>([&] { MNIST m(root); }),
            "[MNIST] '" + root + "/train-labels-idx1-ubyte': expected 3 labels (one per image in '" + root +
                "/train-images-idx3-ubyte'), got 2");
  write("train-labels-idx1-ubyte", concat(idx_header(0x0C, {3}), big_endian<int32_t>({1, 2, 3})));
  EXPECT_EQ(
      error_of_type<ember::ValueError>([&] { MNIST m(root); }),
      "[MNIST] '" + root + "/train-labels-idx1-ubyte': expected uint8 labels of shape [N], got int32 of shape [3]");
}

}  // namespace
