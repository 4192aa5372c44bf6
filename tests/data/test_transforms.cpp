// Transforms against hand-computed values; per-batch application equals per-sample application;
// draws are a pure function of (seed, epoch, sample index, stream).
#include <set>

#include "DataTestUtil.h"

namespace {

using namespace ember::datatest;
using ember::Tensor;
namespace T = ember::data::transforms;

T::TransformContext context(std::vector<int64_t> indices, uint64_t seed = 3, uint64_t epoch = 0) {
  T::TransformContext ctx;
  ctx.seed = seed;
  ctx.epoch = epoch;
  ctx.indices = std::move(indices);
  return ctx;
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// Applying `t` to the whole batch equals applying it to each row alone (same sample index).
void expect_per_batch_equals_per_sample(const T::Transform& t, const Tensor& batch, const T::TransformContext& ctx) {
  const Tensor whole = t(batch, ctx);
  for (int64_t r = 0; r < batch.size(0); ++r) {
    T::TransformContext one = ctx;
    one.indices = {ctx.indices[static_cast<size_t>(r)]};
    EXPECT_TRUE(ember::equal(t(batch.narrow(0, r, 1), one), whole.narrow(0, r, 1))) << "row " << r;
  }
}

TEST(Transforms, NormalizeOneValue) {
  const Tensor x = ember::tensor({{{0.0, 0.5}, {1.0, 0.25}}});  // [1, 2, 2]
  const Tensor y = T::Normalize(0.5, 0.25)(x, context({0}));
  EXPECT_EQ(values<float>(y), (std::vector<float>{-2.0f, 0.0f, 2.0f, -1.0f}));
  EXPECT_EQ(y.scalar_type(), ember::kFloat32);
}

TEST(Transforms, NormalizePerChannel) {
  // [B=2, C=2, H=1, W=2]: channel 0 uses (1, 2), channel 1 uses (-1, 0.5).
  const Tensor x = ember::tensor({{{{1.0, 3.0}}, {{-1.0, 0.0}}}, {{{5.0, 2.0}}, {{1.0, -2.0}}}}, ember::kFloat64);
  const Tensor y = T::Normalize({1.0, -1.0}, {2.0, 0.5})(x, context({0, 1}));
  EXPECT_EQ(y.scalar_type(), ember::kFloat64);
  EXPECT_EQ(values<double>(y), (std::vector<double>{0.0, 1.0, 0.0, 2.0, 2.0, 0.5, 4.0, -2.0}));

  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              T::Normalize({0.5, 0.5}, {1.0, 0.0});
            }),
            "[Normalize] std: expected finite non-zero values, got 0 for channel 1");
  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              T::Normalize({0.5, 0.5}, {1.0});
            }),
            "[Normalize] std: expected 2 values (one per mean), got 1");
  EXPECT_EQ(error_of_type<ember::ValueError>([] { T::Normalize(std::vector<double>{}, {}); }),
            "[Normalize] mean: expected at least one value, got none");
  EXPECT_EQ(error_of_type<ember::ValueError>([&] {
              T::Normalize({0, 0, 0}, {1, 1, 1})(x, context({0, 1}));
            }),
            "[Normalize] batch: expected shape [B, ..., C, H, W] with C = 3 channels, got [2, 2, 1, 2]");
  EXPECT_EQ(error_of_type<ember::TypeError>([] {
              T::Normalize(0.5, 0.5)(ember::zeros({2, 3}, ember::kUInt8), context({0, 1}));
            }),
            "[Normalize] batch: expected a floating dtype, got uint8");
}

TEST(Transforms, RandomCropCoveringThePaddedImageIsThePaddedImage) {
  // With the crop as large as the padded sample there is one position: the zero-padded sample.
  const Tensor x = ember::tensor({{{1.0, 2.0}, {3.0, 4.0}}});  // [1, 2, 2]
  const Tensor y = T::RandomCrop(4, 1)(x, context({5}));
  EXPECT_EQ(y.sizes(), ember::IntArrayRef({1, 4, 4}));
  EXPECT_EQ(values<float>(y), (std::vector<float>{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(ember::equal(T::RandomCrop(2)(x, context({5})), x));  // no padding, full size: the sample
}

TEST(Transforms, RandomCropTakesEveryWindowOfThePaddedSample) {
  // 4x4 samples holding 1..16, padding 1, crop 3x3: 9 possible windows of the 6x6 padded sample.
  const int64_t n = 400;
  const Tensor one = (ember::arange(16, ember::kFloat32) + 1).view({1, 1, 4, 4});
  const Tensor batch = one.expand({n, 2, 4, 4}).contiguous();  // two channels share each crop
  const auto ctx = context(iota(n));
  const Tensor out = T::RandomCrop({3, 3}, 1)(batch, ctx);
  EXPECT_EQ(out.sizes(), ember::IntArrayRef({n, 2, 3, 3}));
  auto padded = [](int64_t r, int64_t c) -> float {  // the padded sample at (r, c)
    return (r < 1 || r > 4 || c < 1 || c > 4) ? 0.0f : static_cast<float>((r - 1) * 4 + (c - 1) + 1);
  };
  std::set<std::pair<int64_t, int64_t>> corners;
  for (int64_t b = 0; b < n; ++b) {
    const auto got = values<float>(out[b][0]);
    EXPECT_EQ(values<float>(out[b][1]), got);
    int matches = 0;
    for (int64_t i = 0; i <= 3; ++i)
      for (int64_t j = 0; j <= 3; ++j) {
        std::vector<float> want;
        for (int64_t r = 0; r < 3; ++r)
          for (int64_t c = 0; c < 3; ++c) want.push_back(padded(i + r, j + c));
        if (want == got) {
          ++matches;
          corners.insert({i, j});
        }
      }
    EXPECT_EQ(matches, 1) << "sample " << b;
  }
  EXPECT_EQ(corners.size(), 16u);  // every top-left corner in [0, 3] x [0, 3] occurs
  expect_per_batch_equals_per_sample(T::RandomCrop({3, 3}, 1), batch.narrow(0, 0, 20), context(iota(20)));
  // A strided (non-contiguous) batch crops the same as its contiguous copy.
  const Tensor strided = batch.transpose(2, 3).contiguous().transpose(2, 3);
  ASSERT_FALSE(strided.is_contiguous());
  EXPECT_TRUE(ember::equal(T::RandomCrop({3, 3}, 1)(strided, ctx), out));
  // The window lies wholly in the padding for a large padding; then the crop is zeros.
  const Tensor far = T::RandomCrop(2, 5)(batch, ctx);
  EXPECT_EQ(far.sizes(), ember::IntArrayRef({n, 2, 2, 2}));
}

TEST(Transforms, RandomCropErrors) {
  EXPECT_EQ(error_of_type<ember::ValueError>([] { T::RandomCrop(0); }),
            "[RandomCrop] size: expected positive sizes, got [0, 0]");
  EXPECT_EQ(error_of_type<ember::ValueError>([] { T::RandomCrop(3, -1); }),
            "[RandomCrop] padding: expected a non-negative value, got -1");
  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              T::RandomCrop(7, 1)(ember::zeros({2, 4, 4}), context({0, 1}));
            }),
            "[RandomCrop] batch: crop size [7, 7] is larger than the padded sample [6, 6] (padding 1)");
  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              T::RandomCrop(2)(ember::zeros({2, 4}), context({0, 1}));
            }),
            "[RandomCrop] batch: expected shape [B, ..., H, W], got [2, 4]");
  EXPECT_EQ(error_of_type<ember::ValueError>([] {
              T::RandomCrop(2)(ember::zeros({3, 4, 4}), context({0, 1}));
            }),
            "[Transform] batch: expected 2 rows (one per sample index in the context), got shape [3, 4, 4]");
}

TEST(Transforms, RandomHorizontalFlip) {
  const Tensor x = ember::tensor({{{1.0, 2.0, 3.0}}, {{4.0, 5.0, 6.0}}});  // [2, 1, 3]
  EXPECT_TRUE(ember::equal(T::RandomHorizontalFlip(0.0)(x, context({0, 1})), x));
  EXPECT_EQ(values<float>(T::RandomHorizontalFlip(1.0)(x, context({0, 1}))), (std::vector<float>{3, 2, 1, 6, 5, 4}));

  const int64_t n = 2000;
  const Tensor rows = ember::arange(3, ember::kFloat32).view({1, 3}).expand({n, 3}).contiguous();
  const auto ctx = context(iota(n));
  const Tensor out = T::RandomHorizontalFlip(0.5)(rows, ctx);
  int64_t flipped = 0;
  for (int64_t b = 0; b < n; ++b) {
    const auto v = values<float>(out[b]);
    const bool is_flipped = v == std::vector<float>({2, 1, 0});
    EXPECT_TRUE(is_flipped || v == std::vector<float>({0, 1, 2})) << b;
    EXPECT_EQ(is_flipped, ctx.uniform(static_cast<size_t>(b)) < 0.5) << b;
    flipped += is_flipped;
  }
  EXPECT_NEAR(static_cast<double>(flipped) / n, 0.5, 0.05);
  expect_per_batch_equals_per_sample(T::RandomHorizontalFlip(0.5), rows.narrow(0, 0, 16), context(iota(16)));
  EXPECT_EQ(error_of_type<ember::ValueError>([] { T::RandomHorizontalFlip(1.5); }),
            "[RandomHorizontalFlip] p: expected a probability in [0, 1], got 1.5");
}

TEST(Transforms, DrawsArePureFunctionsOfSeedEpochIndexAndStream) {
  const auto a = context({7, 8}, /*seed=*/1, /*epoch=*/0);
  EXPECT_EQ(a.uniform(0), context({7}, 1, 0).uniform(0));  // the same sample in another batch
  EXPECT_EQ(a.uniform(1), context({3, 1, 8}, 1, 0).uniform(2));
  EXPECT_NE(a.uniform(0), a.uniform(1));
  EXPECT_NE(a.uniform(0), context({7}, 2, 0).uniform(0));  // seed
  EXPECT_NE(a.uniform(0), context({7}, 1, 1).uniform(0));  // epoch
  EXPECT_NE(a.uniform(0), a.child(0).uniform(0));          // stream
  EXPECT_NE(a.child(0).uniform(0), a.child(1).uniform(0));
  EXPECT_EQ(a.child(1).uniform(0), context({7}, 1, 0).child(1).uniform(0));
  double sum = 0;
  const auto many = context(iota(10000), 5, 2);
  for (size_t i = 0; i < 10000; ++i) {
    const double u = many.uniform(i);
    EXPECT_TRUE(u >= 0.0 && u < 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.01);
  EXPECT_EQ(error_of_type<ember::IndexError>([&] { a.uniform(2); }),
            "[TransformContext] row 2 is out of range for a batch of 2 samples");
}

TEST(Transforms, ComposeAndLambda) {
  const Tensor x = ember::tensor({{1.0, 2.0}, {3.0, 4.0}});
  const T::Compose pipeline{T::Normalize(1.0, 2.0), T::Lambda([](const Tensor& t) { return t * 10; })};
  EXPECT_EQ(values<float>(pipeline(x, context({0, 1}))), (std::vector<float>{0, 5, 10, 15}));

  // Each transform of a Compose draws from its own stream: two coin flips are independent, so
  // some samples are flipped exactly once.
  const int64_t n = 200;
  const Tensor rows = ember::arange(2, ember::kFloat32).view({1, 2}).expand({n, 2}).contiguous();
  const Tensor twice = T::Compose({T::RandomHorizontalFlip(0.5), T::RandomHorizontalFlip(0.5)})(rows, context(iota(n)));
  EXPECT_FALSE(ember::equal(twice, rows));

  // A Lambda sees the context.
  std::vector<int64_t> seen;
  const T::Lambda spy([&](const Tensor& t, const T::TransformContext& ctx) {
    seen = ctx.indices;
    seen.push_back(static_cast<int64_t>(ctx.seed));
    seen.push_back(static_cast<int64_t>(ctx.epoch));
    return t;
  });
  spy(x, context({4, 2}, 11, 6));
  EXPECT_EQ(seen, (std::vector<int64_t>{4, 2, 11, 6}));

  EXPECT_EQ(error_of_type<ember::ValueError>([] { T::Compose({T::Transform()}); }),
            "[Compose] transforms: expected defined transforms, got an empty one at 0");
  EXPECT_EQ(error_of_type<ember::ValueError>([&] {
              T::Transform()(x, context({0, 1}));
            }),
            "[Transform] cannot apply an empty transform handle");
  EXPECT_EQ(error_of_type<ember::ValueError>([] { T::Lambda(std::function<Tensor(const Tensor&)>()); }),
            "[Lambda] fn: expected a callable, got an empty function");
}

TEST(Transforms, DataLoaderAppliesThemPerEpoch) {
  // The same sample is flipped the same way within an epoch wherever it lands, and the flips
  // change between epochs.
  const int64_t n = 64;
  auto ds = std::make_shared<ember::data::TensorDataset>(
      ember::arange(3, ember::kFloat32).view({1, 1, 3}).expand({n, 1, 3}).contiguous(), ember::arange(n));
  ember::data::DataLoader loader(
      ds, ember::data::DataLoaderOptions(8).shuffle(true).seed(21).transform(T::RandomHorizontalFlip(0.5)));
  std::vector<std::vector<bool>> flips(2, std::vector<bool>(n));
  for (int epoch = 0; epoch < 2; ++epoch)
    for (auto& batch : loader)
      for (int64_t r = 0; r < batch.data.size(0); ++r) {
        const int64_t sample = batch.target[r].item<int64_t>();
        const bool flipped = batch.data[r][0][0].item<float>() == 2.0f;
        flips[epoch][sample] = flipped;
        EXPECT_EQ(flipped, context({sample}, 21, static_cast<uint64_t>(epoch)).uniform(0) < 0.5);
      }
  EXPECT_NE(flips[0], flips[1]);
}

}  // namespace
