// The resampling kernels (plugins/cpu/resample.cpp) against LibTorch 1.13's values
// (resample_ref.inc): every upsample mode forward and backward with and without align_corners and
// scales, grid_sampler_2d forward and backward over every mode and padding, im2col, col2im and
// affine_grid_generator; then dtypes, non-contiguous inputs, thread invariance, and the
// functional and module API (F::interpolate, grid_sample, affine_grid, fold, unfold; Upsample,
// Fold, Unfold).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using ember::optest::expect_thread_invariant;
using ember::optest::values;
namespace F = ember::nn::functional;

namespace {

struct RefCase {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> v;
};
#include "resample_ref.inc"

const TensorOptions kF64 = TensorOptions().dtype(kFloat64);

// The inputs of the reference program, built the same way.
Tensor x1() { return arange(5, kF64).view({1, 1, 5}).pow(2) / 3; }
Tensor x2() { return arange(12, kF64).view({1, 1, 3, 4}).pow(2) / 7; }
Tensor x3() { return arange(12, kF64).view({1, 1, 2, 2, 3}).pow(2) / 5; }
Tensor g(std::vector<int64_t> s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return (arange(n, kF64).view(s) * 0.37).sin();
}
Tensor gs_input() { return (arange(24, kF64).view({1, 2, 3, 4}) * 0.7).cos(); }
Tensor gs_grid() {
  return tensor({-1.3, -0.9, -0.4, 0.2, 0.05, 1.1, 0.95, -0.35, 1.4, 0.6, 0.3, -1.05}, kF64).view({1, 2, 3, 2});
}
const char* const kModes[] = {"bilinear", "nearest", "bicubic"};
const char* const kPads[] = {"zeros", "border", "reflection"};

// The Ember call behind each reference.
std::map<std::string, std::function<Tensor()>> ref_calls() {
  std::map<std::string, std::function<Tensor()>> m = {
      {"nearest1d_8", [] { return upsample_nearest1d(x1(), {8}); }},
      {"nearest1d_8_s17", [] { return upsample_nearest1d(x1(), IntArrayRef{8}, 1.7); }},
      {"nearest1d_3", [] { return upsample_nearest1d(x1(), {3}); }},
      {"nearest2d_5x7",
       [] {
         return upsample_nearest2d(x2(), {5, 7});
       }},
      {"nearest2d_6x8",
       [] {
         return upsample_nearest2d(x2(), {6, 8});
       }},
      {"nearest2d_7x6_s",
       [] {
         return upsample_nearest2d(x2(), {7, 6}, 2.5, 1.5);
       }},
      {"nearest3d_3x3x5",
       [] {
         return upsample_nearest3d(x3(), {3, 3, 5});
       }},
      {"linear1d_8", [] { return upsample_linear1d(x1(), {8}, false); }},
      {"linear1d_8_ac", [] { return upsample_linear1d(x1(), {8}, true); }},
      {"linear1d_8_s17", [] { return upsample_linear1d(x1(), IntArrayRef{8}, false, 1.7); }},
      {"linear1d_3", [] { return upsample_linear1d(x1(), {3}, false); }},
      {"bilinear2d_5x7",
       [] {
         return upsample_bilinear2d(x2(), {5, 7}, false);
       }},
      {"bilinear2d_2x3_ac",
       [] {
         return upsample_bilinear2d(x2(), {2, 3}, true);
       }},
      {"bilinear2d_7x6_s",
       [] {
         return upsample_bilinear2d(x2(), {7, 6}, false, 2.5, 1.5);
       }},
      {"bicubic2d_5x7",
       [] {
         return upsample_bicubic2d(x2(), {5, 7}, false);
       }},
      {"bicubic2d_2x3_ac",
       [] {
         return upsample_bicubic2d(x2(), {2, 3}, true);
       }},
      {"bicubic2d_7x6_s",
       [] {
         return upsample_bicubic2d(x2(), {7, 6}, false, 2.5, 1.5);
       }},
      {"trilinear3d_3x3x5",
       [] {
         return upsample_trilinear3d(x3(), {3, 3, 5}, false);
       }},
      {"trilinear3d_3x3x5_ac",
       [] {
         return upsample_trilinear3d(x3(), {3, 3, 5}, true);
       }},
      {"nearest1d_bw",
       [] {
         return upsample_nearest1d_backward(g({1, 1, 8}), IntArrayRef{8}, IntArrayRef{1, 1, 5}, 1.7);
       }},
      {"nearest2d_bw",
       [] {
         return upsample_nearest2d_backward(g({1, 1, 5, 7}), {5, 7}, {1, 1, 3, 4});
       }},
      {"nearest3d_bw",
       [] {
         return upsample_nearest3d_backward(g({1, 1, 3, 3, 5}), {3, 3, 5}, {1, 1, 2, 2, 3});
       }},
      {"linear1d_bw",
       [] {
         return upsample_linear1d_backward(g({1, 1, 8}), {8}, {1, 1, 5}, false);
       }},
      {"bilinear2d_bw",
       [] {
         return upsample_bilinear2d_backward(g({1, 1, 5, 7}), {5, 7}, {1, 1, 3, 4}, false);
       }},
      {"bilinear2d_bw_ac",
       [] {
         return upsample_bilinear2d_backward(g({1, 1, 2, 3}), {2, 3}, {1, 1, 3, 4}, true);
       }},
      {"bicubic2d_bw",
       [] {
         return upsample_bicubic2d_backward(g({1, 1, 5, 7}), {5, 7}, {1, 1, 3, 4}, false);
       }},
      {"bicubic2d_bw_s",
       [] {
         return upsample_bicubic2d_backward(g({1, 1, 7, 6}), {7, 6}, {1, 1, 3, 4}, false, 2.5, 1.5);
       }},
      {"trilinear3d_bw",
       [] {
         return upsample_trilinear3d_backward(g({1, 1, 3, 3, 5}), {3, 3, 5}, {1, 1, 2, 2, 3}, false);
       }},
      {"im2col_k23",
       [] {
         return im2col(arange(40, kF64).view({1, 2, 4, 5}), {2, 3}, {1, 1}, {0, 0}, {1, 1});
       }},
      {"im2col_all",
       [] {
         return im2col(arange(40, kF64).view({1, 2, 4, 5}), {2, 2}, {2, 1}, {1, 1}, {2, 3});
       }},
      {"col2im_k22",
       [] {
         return col2im(g({1, 8, 4}), {4, 5}, {2, 2}, {2, 1}, {1, 1}, {2, 3});
       }},
      {"affine_2d",
       [] {
         return affine_grid_generator(tensor({0.8, -0.3, 0.1, 0.25, 1.1, -0.2}, kF64).view({1, 2, 3}), {1, 1, 2, 3},
                                      false);
       }},
      {"affine_2d_ac",
       [] {
         return affine_grid_generator(tensor({0.8, -0.3, 0.1, 0.25, 1.1, -0.2}, kF64).view({1, 2, 3}), {1, 1, 2, 3},
                                      true);
       }},
      {"affine_3d",
       [] {
         return affine_grid_generator(
             tensor({0.8, -0.3, 0.1, 0.2, 0.25, 1.1, -0.2, 0.1, 0.3, 0.2, 0.9, -0.1}, kF64).view({1, 3, 4}),
             {1, 1, 2, 2, 3}, false);
       }},
      {"interp_s17",
       [] {
         return F::interpolate(
             x1(),
             F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.7}).mode(kLinear).align_corners(false));
       }},
      {"interp_s17_re",
       [] {
         return F::interpolate(x1(), F::InterpolateFuncOptions()
                                         .scale_factor(std::vector<double>{1.7})
                                         .mode(kLinear)
                                         .align_corners(false)
                                         .recompute_scale_factor(true));
       }},
      {"interp_area",
       [] {
         return F::interpolate(x2(), F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 3}).mode(kArea));
       }},
      {"nearest2d_u8",
       [] {
         return upsample_nearest2d(arange(12, kUInt8).view({1, 1, 3, 4}), {5, 7});
       }},
      {"bilinear2d_bf16",
       [] {
         return upsample_bilinear2d(x2().to(kBFloat16), {5, 7}, false);
       }},
      {"bilinear2d_f32",
       [] {
         return upsample_bilinear2d(x2().to(kFloat32), {5, 7}, false);
       }},
  };
  for (int64_t mode = 0; mode < 3; ++mode)
    for (int64_t pad = 0; pad < 3; ++pad)
      for (bool align : {false, true}) {
        const std::string suffix = std::string(kModes[mode]) + "_" + kPads[pad] + "_" + (align ? "1" : "0");
        m["gs_" + suffix] = [=] { return grid_sampler_2d(gs_input(), gs_grid(), mode, pad, align); };
        auto bw = [=](int k) {
          auto r = grid_sampler_2d_backward(g({1, 2, 2, 3}), gs_input(), gs_grid(), mode, pad, align, {true, true});
          return k == 0 ? std::get<0>(r) : std::get<1>(r);
        };
        m["gsbi_" + suffix] = [=] { return bw(0); };
        m["gsbg_" + suffix] = [=] { return bw(1); };
      }
  return m;
}

// The tolerance of a reference by the dtype its name says it was computed in.
double tolerance_of(const std::string& name) {
  if (name.find("bf16") != std::string::npos) return 2e-2;
  if (name.find("f32") != std::string::npos) return 1e-6;
  return 1e-12;
}

TEST(CpuResample, LibTorchValues) {
  const auto calls = ref_calls();
  for (const RefCase& r : kRefs) {
    SCOPED_TRACE(r.name);
    ASSERT_TRUE(calls.count(r.name)) << "no Ember call for the reference " << r.name;
    const Tensor t = calls.at(r.name)();
    ASSERT_EQ(t.sizes(), IntArrayRef(r.shape));
    const std::vector<double> v = values(t);
    const double tol = tolerance_of(r.name);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], r.v[i], tol * (1 + std::fabs(r.v[i]))) << "element " << i;
  }
  EXPECT_EQ(calls.size(), kRefs.size()) << "a call without a reference";
}

TEST(CpuResample, DtypesFollowTheInput) {
  // Nearest is a gather in the input's own dtype, uint8 included; the interpolating modes compute
  // float16/bfloat16 in float32 and return the input's dtype.
  for (ScalarType dt : {kUInt8, kFloat16, kBFloat16, kFloat32, kFloat64}) {
    const Tensor x = arange(24, kF64).view({1, 2, 3, 4}).to(dt);
    const Tensor n = upsample_nearest2d(x, {5, 7});
    EXPECT_EQ(n.dtype(), dt);
    EXPECT_TRUE(n.to(kFloat64).equal(upsample_nearest2d(x.to(kFloat64), {5, 7}))) << dt;
    if (dt == kUInt8) continue;
    for (const Tensor& y : {upsample_bilinear2d(x, {5, 7}, false), upsample_bicubic2d(x, {5, 7}, true),
                            upsample_nearest2d_backward(ones({1, 2, 5, 7}, dt), {5, 7}, {1, 2, 3, 4})})
      EXPECT_EQ(y.dtype(), dt);
  }
  EXPECT_THROW(upsample_bilinear2d(arange(12, kUInt8).view({1, 1, 3, 4}), {5, 7}, false), TypeError);
  EXPECT_THROW(upsample_nearest2d(arange(12, kInt32).view({1, 1, 3, 4}), {5, 7}), TypeError);
}

TEST(CpuResample, NonContiguousInputs) {
  // A transposed (N, C swapped), a sliced and an expanded input give the contiguous copy's values.
  const Tensor base = (arange(2 * 3 * 5 * 6, kF64).view({3, 2, 5, 6}) * 0.3).sin();
  const Tensor t = base.transpose(0, 1);
  const Tensor sliced = (arange(2 * 3 * 10 * 6, kF64).view({2, 3, 10, 6}) * 0.1).cos().slice(2, 0, 10, 2);
  const Tensor expanded = arange(5 * 6, kF64).view({1, 1, 5, 6}).expand({2, 3, 5, 6});
  for (const Tensor& x : {t, sliced, expanded}) {
    const Tensor c = x.contiguous();
    EXPECT_TRUE(upsample_nearest2d(x, {7, 9}).equal(upsample_nearest2d(c, {7, 9})));
    EXPECT_TRUE(upsample_bilinear2d(x, {7, 9}, false).equal(upsample_bilinear2d(c, {7, 9}, false)));
    EXPECT_TRUE(upsample_bicubic2d(x, {3, 4}, true).equal(upsample_bicubic2d(c, {3, 4}, true)));
    EXPECT_TRUE(im2col(x, {2, 3}, {1, 1}, {1, 0}, {1, 2}).equal(im2col(c, {2, 3}, {1, 1}, {1, 0}, {1, 2})));
    const Tensor grid = (arange(2 * 4 * 3 * 2, kF64).view({2, 4, 3, 2}) * 0.77).sin() * 1.2;
    EXPECT_TRUE(grid_sampler_2d(x, grid.transpose(1, 2), 2, 2, false)
                    .equal(grid_sampler_2d(c, grid.transpose(1, 2).contiguous(), 2, 2, false)));
  }
}

TEST(CpuResample, ThreadInvariant) {
  const Tensor x = (arange(4 * 8 * 33 * 29, kF64).view({4, 8, 33, 29}) * 0.013).sin().to(kFloat32);
  expect_thread_invariant("nearest2d", [&] { return upsample_nearest2d(x, {70, 61}); });
  expect_thread_invariant("bilinear2d", [&] { return upsample_bilinear2d(x, {70, 61}, false); });
  expect_thread_invariant("bicubic2d", [&] { return upsample_bicubic2d(x, {50, 41}, true); });
  expect_thread_invariant("bilinear2d_backward", [&] {
    return upsample_bilinear2d_backward(x, {33, 29}, {4, 8, 17, 20}, false);
  });
  const Tensor grid = (arange(4 * 40 * 30 * 2, kF64).view({4, 40, 30, 2}) * 0.031).sin().to(kFloat32);
  expect_thread_invariant("grid_sampler_2d", [&] { return grid_sampler_2d(x, grid, 0, 2, false); });
  expect_thread_invariant("grid_sampler_2d_backward", [&] {
    return std::get<1>(grid_sampler_2d_backward(ones({4, 8, 40, 30}), x, grid, 2, 1, true, {true, true}));
  });
  expect_thread_invariant("im2col", [&] { return im2col(x, {3, 3}, {1, 1}, {1, 1}, {1, 1}); });
  expect_thread_invariant("col2im", [&] {
    return col2im(im2col(x, {3, 3}, {1, 1}, {1, 1}, {1, 1}), {33, 29}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  });
}

TEST(CpuResample, VecOverloads) {
  // .vec with scale factors passes them on: the source index is dst / scale, not dst * in / out.
  const Tensor x = x2();
  EXPECT_TRUE(upsample_bilinear2d(x, std::nullopt, false, std::vector<double>{2.5, 1.5})
                  .equal(upsample_bilinear2d(x, {7, 6}, false, 2.5, 1.5)));
  const std::vector<int64_t> size{3, 3, 5};
  EXPECT_TRUE(upsample_nearest3d(x3(), std::optional<IntArrayRef>(size), std::nullopt)
                  .equal(upsample_nearest3d(x3(), {3, 3, 5})));
  EXPECT_FALSE(upsample_bilinear2d(x, {7, 6}, false, 2.5, 1.5).equal(upsample_bilinear2d(x, {7, 6}, false)));
  EXPECT_ERROR(ValueError, upsample_linear1d(x1(), std::nullopt, false, std::nullopt),
               "[upsample_linear1d] expected exactly one of output_size and scale_factors, got neither");
}

TEST(CpuResample, OutVariants) {
  const Tensor x = x2();
  Tensor out = empty({0}, kF64);
  upsample_bilinear2d_out(out, x, {5, 7}, false);
  EXPECT_TRUE(out.equal(upsample_bilinear2d(x, {5, 7}, false)));
  Tensor wrong = empty({0}, kFloat32);
  EXPECT_ERROR(TypeError, upsample_nearest2d_out(wrong, x, {5, 7}),
               "[upsample_nearest2d] argument 'out': expected dtype float64 (the result's), got float32");
  EXPECT_EQ(wrong.numel(), 0);  // untouched
  Tensor col = empty({3}, kF64);
  im2col_out(col, x, {2, 2}, {1, 1}, {0, 0}, {1, 1});
  EXPECT_TRUE(col.equal(im2col(x, {2, 2}, {1, 1}, {0, 0}, {1, 1})));
}

TEST(CpuResample, FoldUnfoldAreAdjoint) {
  // fold(unfold(x)) multiplies each pixel by the number of blocks covering it; <unfold(x), y> =
  // <x, fold(y)>.
  const Tensor x = (arange(2 * 3 * 6 * 7, kF64).view({2, 3, 6, 7}) * 0.21).cos();
  const auto uo = F::UnfoldFuncOptions({2, 3}).dilation({2, 1}).padding(1).stride({1, 2});
  const auto fo = F::FoldFuncOptions({6, 7}, {2, 3}).dilation({2, 1}).padding(1).stride({1, 2});
  const Tensor u = F::unfold(x, uo);
  const Tensor cover = F::fold(F::unfold(ones_like(x), uo), fo);
  EXPECT_TRUE(allclose(F::fold(u, fo), x * cover, 1e-12, 1e-12));
  const Tensor y = (arange(u.numel(), kF64).view(u.sizes()) * 0.13).sin();
  EXPECT_NEAR((u * y).sum().item<double>(), (x * F::fold(y, fo)).sum().item<double>(), 1e-10);
  nn::Unfold unfold(nn::UnfoldOptions({2, 3}).dilation({2, 1}).padding(1).stride({1, 2}));
  nn::Fold fold(nn::FoldOptions({6, 7}, {2, 3}).dilation({2, 1}).padding(1).stride({1, 2}));
  EXPECT_TRUE(unfold->forward(x).equal(u));
  EXPECT_TRUE(fold->forward(u).equal(F::fold(u, fo)));
  std::ostringstream a, b;
  unfold->pretty_print(a);
  fold->pretty_print(b);
  EXPECT_EQ(a.str(), "ember::nn::Unfold(kernel_size=[2, 3], dilation=[2, 1], padding=[1, 1], stride=[1, 2])");
  EXPECT_EQ(b.str(),
            "ember::nn::Fold(output_size=[6, 7], kernel_size=[2, 3], dilation=[2, 1], padding=[1, 1], stride=[1, 2])");
  EXPECT_ERROR(ValueError, F::fold(ones({1, 2, 3, 4}), fo), "[fold] argument 'input': expected a 2-D");
}

TEST(CpuResample, InterpolateModes) {
  const Tensor x = x2();
  auto opts = [] { return F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 7}); };
  EXPECT_TRUE(F::interpolate(x, opts()).equal(upsample_nearest2d(x, {5, 7})));
  EXPECT_TRUE(F::interpolate(x, opts().mode(kBilinear)).equal(upsample_bilinear2d(x, {5, 7}, false)));
  EXPECT_TRUE(F::interpolate(x, opts().mode(kBicubic).align_corners(true)).equal(upsample_bicubic2d(x, {5, 7}, true)));
  EXPECT_TRUE(
      F::interpolate(x3(), F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 1.5, 2}).mode(kTrilinear))
          .equal(upsample_trilinear3d(x3(), {4, 3, 6}, false, 2.0, 1.5, 2.0)));
  EXPECT_ERROR(ValueError, F::interpolate(x, opts().align_corners(true)),
               "[interpolate] align_corners can only be set with the interpolating modes");
  EXPECT_ERROR(ValueError, F::interpolate(x, opts().mode(kTrilinear)),
               "[interpolate] got a 4-D input, but mode kTrilinear needs a 5-D input");
  EXPECT_ERROR(ValueError, F::interpolate(x, F::InterpolateFuncOptions()),
               "[interpolate] either size or scale_factor should be defined");
  EXPECT_ERROR(ValueError, F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2})),
               "[interpolate] scale_factor: expected 2 factors for a 4-D input");
  EXPECT_ERROR(ValueError, F::interpolate(ones({2, 3}), opts()), "[interpolate] only 3-D, 4-D and 5-D inputs");
  EXPECT_ERROR(NotImplementedError, F::interpolate(x, opts().mode(kNearestExact)), "_upsample_nearest_exact");
  // Upsample: every mode through interpolate.
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(kBicubic).align_corners(false));
  EXPECT_TRUE(up->forward(x).equal(upsample_bicubic2d(x, {6, 8}, false, 2.0, 2.0)));
  nn::Upsample lin(nn::UpsampleOptions().size(std::vector<int64_t>{9}).mode(kLinear).align_corners(true));
  EXPECT_TRUE(lin->forward(x1()).equal(upsample_linear1d(x1(), {9}, true)));
}

TEST(CpuResample, GridSampleAndAffineGrid) {
  // An identity affine grid with align_corners samples every pixel at its centre.
  const Tensor x = (arange(2 * 3 * 4 * 5, kF64).view({2, 3, 4, 5}) * 0.4).sin();
  const Tensor eye = tensor({1., 0., 0., 0., 1., 0.}, kF64).view({1, 2, 3}).expand({2, 2, 3});
  for (bool align : {false, true}) {
    const Tensor grid = F::affine_grid(eye, {2, 3, 4, 5}, align);
    for (auto mode : {F::GridSampleFuncOptions::mode_t(kBilinear), F::GridSampleFuncOptions::mode_t(kNearest),
                      F::GridSampleFuncOptions::mode_t(kBicubic)})
      EXPECT_TRUE(allclose(F::grid_sample(x, grid, F::GridSampleFuncOptions().mode(mode).align_corners(align)), x,
                           1e-12, 1e-12));
  }
  // Gradients with respect to input and grid flow through grid_sample.
  const Tensor xi = x.clone().requires_grad_();
  const Tensor gr = (F::affine_grid(eye, {2, 3, 3, 3}, false) * 0.9).detach().requires_grad_();
  F::grid_sample(xi, gr, F::GridSampleFuncOptions().padding_mode(kBorder)).sum().backward();
  ASSERT_TRUE(xi.grad().defined());
  ASSERT_TRUE(gr.grad().defined());
  EXPECT_EQ(gr.grad().sizes(), gr.sizes());
}

}  // namespace
