// Upsampling, grid sampling and im2col/col2im (Ember: plugins/cpu/resample.cpp), through the
// operators and through F::interpolate, F::grid_sample, F::affine_grid, F::fold and F::unfold:
// every dtype LibTorch's cpu kernels take, non-contiguous inputs, and bad inputs.
#include <string>
#include <utility>
#include <vector>

#include "vs_record.h"

namespace {
namespace F = vs::nn::functional;

// Deterministic values in [-1, 1] without ties.
vs::Tensor data(vs::IntArrayRef shape, double phase = 0.0, vs::ScalarType dt = vs::kFloat32) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (vs::arange(n, vs::kFloat64) * 0.7 + phase).sin().reshape(shape).to(dt);
}
// Values of `shape` laid out with dimensions 0 and 1 swapped (a non-contiguous input).
vs::Tensor transposed(vs::IntArrayRef shape, vs::ScalarType dt = vs::kFloat32) {
  std::vector<int64_t> s(shape.begin(), shape.end());
  std::swap(s[0], s[1]);
  return data(s, 0.3, dt).transpose(0, 1);
}
std::string name_of(vs::ScalarType dt) {
  return dt == vs::kFloat32 ? "f32" : dt == vs::kFloat64 ? "f64" : dt == vs::kBFloat16 ? "bf16" : "u8";
}
}  // namespace

VS_CASE("resample.upsample_nearest") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64, vs::kBFloat16, vs::kUInt8}) {
    const std::string d = name_of(dt);
    auto in = [&](vs::Tensor t) { return (t * 10).abs().to(dt); };
    vs::Tensor x1 = in(data({2, 3, 5})), x2 = in(data({2, 3, 4, 5})), x3 = in(data({2, 2, 3, 4, 3}));
    r.tensor("1d_up_" + d, vs::upsample_nearest1d(x1, vs::IntArrayRef{8}));
    r.tensor("1d_scale_" + d, vs::upsample_nearest1d(x1, vs::IntArrayRef{8}, 1.7));
    r.tensor("2d_up_" + d, vs::upsample_nearest2d(x2, {7, 9}));
    r.tensor("2d_down_" + d, vs::upsample_nearest2d(x2, {3, 2}));
    r.tensor("2d_2x_" + d, vs::upsample_nearest2d(x2, {8, 10}));
    r.tensor("2d_scales_" + d, vs::upsample_nearest2d(x2, {10, 3}, 2.5, 0.7));
    r.tensor("2d_nc_" + d, vs::upsample_nearest2d(in(transposed({2, 3, 4, 5}, vs::kFloat64)), {7, 9}));
    r.tensor("3d_up_" + d, vs::upsample_nearest3d(x3, {5, 6, 4}));
    r.tensor("3d_scales_" + d, vs::upsample_nearest3d(x3, {4, 5, 7}, 1.5, 1.3, 2.5));
    r.tensor("2d_vec_" + d, vs::upsample_nearest2d(x2, {}, std::vector<double>{1.5, 2.5}));
  }
}

static void interp_of(vs_test::Recorder& r, vs::ScalarType dt) {
  const std::string d = name_of(dt);
  vs::Tensor x1 = data({2, 3, 5}, 0, dt), x2 = data({2, 3, 4, 5}, 0, dt), x3 = data({2, 2, 3, 4, 3}, 0, dt);
  for (bool ac : {false, true}) {
    const std::string a = d + (ac ? "_ac" : "");
    r.tensor("linear1d_up_" + a, vs::upsample_linear1d(x1, vs::IntArrayRef{8}, ac));
    r.tensor("linear1d_down_" + a, vs::upsample_linear1d(x1, vs::IntArrayRef{3}, ac));
    r.tensor("bilinear2d_up_" + a, vs::upsample_bilinear2d(x2, {7, 9}, ac));
    r.tensor("bilinear2d_down_" + a, vs::upsample_bilinear2d(x2, {3, 2}, ac));
    r.tensor("bilinear2d_nc_" + a, vs::upsample_bilinear2d(transposed({2, 3, 4, 5}, dt), {7, 9}, ac));
    r.tensor("bicubic2d_up_" + a, vs::upsample_bicubic2d(x2, {7, 9}, ac));
    r.tensor("bicubic2d_down_" + a, vs::upsample_bicubic2d(x2, {3, 2}, ac));
    r.tensor("bicubic2d_nc_" + a, vs::upsample_bicubic2d(transposed({2, 3, 4, 5}, dt), {5, 8}, ac));
    r.tensor("trilinear3d_up_" + a, vs::upsample_trilinear3d(x3, {5, 6, 4}, ac));
    r.tensor("trilinear3d_down_" + a, vs::upsample_trilinear3d(x3, {2, 3, 2}, ac));
  }
  r.tensor("linear1d_scale_" + d, vs::upsample_linear1d(x1, vs::IntArrayRef{8}, false, 1.7));
  r.tensor("bilinear2d_scales_" + d, vs::upsample_bilinear2d(x2, {10, 3}, false, 2.5, 0.7));
  r.tensor("bicubic2d_scales_" + d, vs::upsample_bicubic2d(x2, {10, 3}, false, 2.5, 0.7));
  r.tensor("trilinear3d_scales_" + d, vs::upsample_trilinear3d(x3, {4, 5, 7}, false, 1.5, 1.3, 2.5));
  r.tensor("bilinear2d_vec_" + d, vs::upsample_bilinear2d(x2, {}, false, std::vector<double>{1.5, 2.5}));
  r.tensor("bicubic2d_vec_" + d, vs::upsample_bicubic2d(x2, {}, true, std::vector<double>{0.6, 1.4}));
}

VS_CASE("resample.upsample_interp") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) interp_of(r, dt);
}

// Ember accumulates in float, LibTorch 1.13 in bfloat16 (compare both with the float64 records).
VS_CASE("resample.upsample_interp_bf16") {
  r.expect_diff("bfloat16 accumulated in float (LibTorch 1.13: in bfloat16)");
  interp_of(r, vs::kBFloat16);
}

static void backward_of(vs_test::Recorder& r, vs::ScalarType dt) {
  const std::string d = name_of(dt);
  r.tensor("nearest1d_" + d,
           vs::upsample_nearest1d_backward(data({2, 3, 8}, 1, dt), vs::IntArrayRef{8}, vs::IntArrayRef{2, 3, 5}, 1.7));
  r.tensor("nearest2d_" + d, vs::upsample_nearest2d_backward(data({2, 3, 7, 9}, 1, dt), {7, 9}, {2, 3, 4, 5}));
  r.tensor("nearest3d_" + d, vs::upsample_nearest3d_backward(data({2, 2, 5, 6, 4}, 1, dt), {5, 6, 4}, {2, 2, 3, 4, 3}));
  r.tensor("linear1d_" + d,
           vs::upsample_linear1d_backward(data({2, 3, 8}, 1, dt), vs::IntArrayRef{8}, vs::IntArrayRef{2, 3, 5}, true));
  r.tensor("bilinear2d_" + d, vs::upsample_bilinear2d_backward(data({2, 3, 7, 9}, 1, dt), {7, 9}, {2, 3, 4, 5}, false));
  r.tensor("bilinear2d_nc_" + d,
           vs::upsample_bilinear2d_backward(transposed({2, 3, 3, 2}, dt), {3, 2}, {2, 3, 4, 5}, true));
  r.tensor("bicubic2d_" + d,
           vs::upsample_bicubic2d_backward(data({2, 3, 7, 9}, 1, dt), {7, 9}, {2, 3, 4, 5}, false, 1.9, 2.1));
  r.tensor("trilinear3d_" + d,
           vs::upsample_trilinear3d_backward(data({2, 2, 5, 6, 4}, 1, dt), {5, 6, 4}, {2, 2, 3, 4, 3}, false));
}

VS_CASE("resample.upsample_backward") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) backward_of(r, dt);
}

// Ember accumulates in float, LibTorch 1.13 in bfloat16 (compare both with the float64 records).
VS_CASE("resample.upsample_backward_bf16") {
  r.expect_diff("bfloat16 accumulated in float (LibTorch 1.13: in bfloat16)");
  backward_of(r, vs::kBFloat16);
}

VS_CASE("resample.upsample_errors") {
  vs::Tensor x2 = data({2, 3, 4, 5});
  r.raises("nearest2d_3d_input", [&] { vs::upsample_nearest2d(data({3, 4, 5}), {7, 9}); });
  r.raises("nearest2d_one_size", [&] { vs::upsample_nearest2d(x2, {7}); });
  r.raises("nearest2d_zero_size", [&] { vs::upsample_nearest2d(x2, {0, 9}); });
  r.raises("nearest2d_no_channels", [&] { vs::upsample_nearest2d(data({2, 0, 4, 5}), {7, 9}); });
  r.raises("nearest2d_int", [&] { vs::upsample_nearest2d(vs::ones({1, 1, 2, 2}, vs::kInt32), {3, 3}); });
  r.raises("bilinear2d_u8", [&] { vs::upsample_bilinear2d(vs::ones({1, 1, 2, 2}, vs::kUInt8), {3, 3}, false); });
  r.raises("bilinear2d_vec_both", [&] {
    vs::upsample_bilinear2d(x2, std::vector<int64_t>{7, 9}, false, std::vector<double>{2, 2});
  });
  r.raises("bilinear2d_vec_tiny_scale", [&] { vs::upsample_bilinear2d(x2, {}, false, std::vector<double>{0.1, 1}); });
  r.raises("bilinear2d_backward_shape", [&] {
    vs::upsample_bilinear2d_backward(data({2, 3, 7, 8}), {7, 9}, {2, 3, 4, 5}, false);
  });
  r.raises("trilinear3d_4d_input", [&] { vs::upsample_trilinear3d(x2, {7, 9, 3}, false); });
  r.tensor("nearest2d_empty_batch", vs::upsample_nearest2d(data({0, 3, 4, 5}), {7, 9}));
}

VS_CASE("resample.grid_sampler") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string d = name_of(dt);
    vs::Tensor x = data({2, 3, 5, 4}, 0, dt);
    vs::Tensor grid = data({2, 3, 6, 2}, 0.4, dt) * 1.3;
    vs::Tensor go = data({2, 3, 3, 6}, 0.8, dt);
    for (int64_t mode : {0, 1, 2})
      for (int64_t pad : {0, 1, 2})
        for (bool ac : {false, true}) {
          const std::string n = d + "_m" + std::to_string(mode) + "_p" + std::to_string(pad) + (ac ? "_ac" : "");
          r.tensor("fwd_" + n, vs::grid_sampler_2d(x, grid, mode, pad, ac));
          auto g = vs::grid_sampler_2d_backward(go, x, grid, mode, pad, ac, {true, true});
          r.tensor("grad_input_" + n, std::get<0>(g));
          r.tensor("grad_grid_" + n, std::get<1>(g));
        }
    r.tensor("fwd_nc_" + d, vs::grid_sampler_2d(transposed({2, 3, 5, 4}, dt), grid.transpose(1, 2), 0, 2, false));
    r.tensor("grid_sampler_" + d, vs::grid_sampler(x, grid, 2, 1, true));
  }
  vs::Tensor x = data({2, 3, 5, 4}), grid = data({2, 3, 6, 2}, 0.4);
  r.raises("grid_3d", [&] { vs::grid_sampler_2d(x, data({2, 3, 2}), 0, 0, false); });
  r.raises("batch", [&] { vs::grid_sampler_2d(x, data({1, 3, 6, 2}), 0, 0, false); });
  r.raises("last_dim", [&] { vs::grid_sampler_2d(x, data({2, 3, 6, 3}), 0, 0, false); });
  r.raises("empty_image", [&] { vs::grid_sampler_2d(data({2, 3, 0, 4}), grid, 0, 0, false); });
  r.raises("dtypes", [&] { vs::grid_sampler_2d(x, grid.to(vs::kFloat64), 0, 0, false); });
  r.raises("bf16", [&] { vs::grid_sampler_2d(x.to(vs::kBFloat16), grid.to(vs::kBFloat16), 0, 0, false); });
  r.raises("bicubic_5d", [&] { vs::grid_sampler(data({1, 2, 3, 4, 4}), data({1, 3, 3, 3, 3}), 2, 0, false); });
}

VS_CASE("resample.affine_grid") {
  vs::Tensor th = data({2, 2, 3}, 0.2), th3 = data({1, 3, 4}, 0.5);
  for (bool ac : {false, true}) {
    const std::string a = ac ? "_ac" : "";
    r.tensor("2d" + a, vs::affine_grid_generator(th, {2, 3, 4, 5}, ac));
    r.tensor("2d_unit" + a, vs::affine_grid_generator(th, {2, 1, 1, 5}, ac));
    r.tensor("3d" + a, vs::affine_grid_generator(th3, {1, 2, 3, 4, 2}, ac));
    r.tensor("F_2d_f64" + a, F::affine_grid(th.to(vs::kFloat64), {2, 3, 4, 5}, ac));
  }
  r.raises("theta_3x3", [&] { F::affine_grid(data({1, 3, 3}), {1, 1, 3, 3}); });
  r.raises("size_3", [&] { F::affine_grid(data({1, 2, 3}), {1, 1, 3}); });
  r.raises("size_0", [&] { F::affine_grid(data({1, 2, 3}), {1, 1, 0, 3}); });
}

static void col2im_of(vs_test::Recorder& r, vs::ScalarType dt, const std::string& d) {
  r.tensor("col2im_" + d, vs::col2im(data({2, 18, 15}, 0, dt), {6, 5}, {2, 3}, {1, 1}, {0, 0}, {1, 1}));
  r.tensor("col2im_all_" + d, vs::col2im(data({2, 18, 9}, 0, dt), {7, 6}, {3, 2}, {2, 1}, {1, 2}, {2, 3}));
  r.tensor("col2im_unbatched_" + d, vs::col2im(data({12, 30}, 0, dt), {5, 4}, {2, 2}, {1, 1}, {1, 1}, {1, 1}));
  r.tensor("col2im_nc_" + d, vs::col2im(transposed({2, 18, 15}, dt), {6, 5}, {2, 3}, {1, 1}, {0, 0}, {1, 1}));
}

VS_CASE("resample.im2col") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64, vs::kBFloat16, vs::kFloat16}) {
    const std::string d = dt == vs::kFloat16 ? "f16" : name_of(dt);
    vs::Tensor x = data({2, 3, 6, 5}, 0, dt);
    r.tensor("im2col_" + d, vs::im2col(x, {2, 3}, {1, 1}, {0, 0}, {1, 1}));
    r.tensor("im2col_all_" + d, vs::im2col(x, {3, 2}, {2, 1}, {1, 2}, {2, 3}));
    r.tensor("im2col_unbatched_" + d, vs::im2col(data({3, 5, 4}, 0, dt), {2, 2}, {1, 1}, {1, 1}, {1, 1}));
    r.tensor("im2col_nc_" + d, vs::im2col(transposed({2, 3, 6, 5}, dt), {2, 2}, {1, 1}, {0, 0}, {1, 1}));
    if (dt == vs::kFloat32 || dt == vs::kFloat64) col2im_of(r, dt, d);
  }
  vs::Tensor x = data({2, 3, 6, 5});
  r.tensor("F_unfold", F::unfold(x, F::UnfoldFuncOptions({2, 3}).dilation({2, 1}).padding(1).stride({1, 2})));
  r.tensor("F_fold", F::fold(data({2, 12, 20}), F::FoldFuncOptions({4, 5}, {2, 2}).padding({1, 0}).stride(1)));
  r.raises("im2col_kernel_0", [&] { vs::im2col(x, {0, 2}, {1, 1}, {0, 0}, {1, 1}); });
  r.raises("im2col_padding", [&] { vs::im2col(x, {2, 2}, {1, 1}, {-1, 0}, {1, 1}); });
  r.raises("im2col_too_big", [&] { vs::im2col(x, {7, 2}, {1, 1}, {0, 0}, {1, 1}); });
  r.raises("im2col_2d", [&] { vs::im2col(data({6, 5}), {2, 2}, {1, 1}, {0, 0}, {1, 1}); });
  r.raises("im2col_int", [&] { vs::im2col(vs::ones({1, 1, 3, 3}, vs::kInt32), {2, 2}, {1, 1}, {0, 0}, {1, 1}); });
  r.raises("col2im_channels", [&] { vs::col2im(data({1, 7, 9}), {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}); });
  r.raises("col2im_blocks", [&] { vs::col2im(data({1, 8, 8}), {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}); });
  r.raises("col2im_4d", [&] { vs::col2im(data({1, 8, 9, 1}), {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}); });
}

// col2im sums overlapping patches: in float in Ember, in the 16-bit dtype in LibTorch 1.13.
VS_CASE("resample.col2im_16bit") {
  r.expect_diff("16-bit col2im accumulated in float (LibTorch 1.13: in float16/bfloat16)");
  col2im_of(r, vs::kFloat16, "f16");
  col2im_of(r, vs::kBFloat16, "bf16");
}

VS_CASE("resample.interpolate") {
  vs::Tensor x1 = data({2, 3, 5}), x2 = data({2, 3, 4, 5}), x3 = data({1, 2, 3, 4, 3});
  auto o = [] { return F::InterpolateFuncOptions(); };
  r.tensor("nearest_size", F::interpolate(x2, o().size(std::vector<int64_t>{7, 3})));
  r.tensor("nearest_scale", F::interpolate(x2, o().scale_factor(std::vector<double>{1.7, 0.6})));
  r.tensor("nearest_recompute",
           F::interpolate(x2, o().scale_factor(std::vector<double>{1.7, 0.6}).recompute_scale_factor(true)));
  r.tensor("linear", F::interpolate(x1, o().size(std::vector<int64_t>{9}).mode(vs::kLinear).align_corners(true)));
  r.tensor(
      "bilinear_scale",
      F::interpolate(x2, o().scale_factor(std::vector<double>{1.7, 2.2}).mode(vs::kBilinear).align_corners(false)));
  r.tensor("bicubic", F::interpolate(x2, o().size(std::vector<int64_t>{6, 6}).mode(vs::kBicubic).align_corners(false)));
  r.tensor(
      "trilinear",
      F::interpolate(x3, o().scale_factor(std::vector<double>{2, 1.5, 0.7}).mode(vs::kTrilinear).align_corners(false)));
  r.tensor("area", F::interpolate(x2, o().size(std::vector<int64_t>{2, 3}).mode(vs::kArea)));
  r.raises("align_nearest", [&] { F::interpolate(x2, o().size(std::vector<int64_t>{7, 3}).align_corners(true)); });
  r.raises("bilinear_3d", [&] { F::interpolate(x1, o().size(std::vector<int64_t>{7}).mode(vs::kBilinear)); });
  r.raises("no_size", [&] { F::interpolate(x2, o()); });
  r.raises("scale_count", [&] { F::interpolate(x2, o().scale_factor(std::vector<double>{2})); });
  r.raises("2d_input", [&] { F::interpolate(data({4, 5}), o().size(std::vector<int64_t>{7})); });
}

VS_CASE("resample.grid_sample") {
  vs::Tensor x = data({2, 3, 5, 4});
  vs::Tensor grid = F::affine_grid(data({2, 2, 3}, 0.2), {2, 3, 4, 6}, false);
  r.tensor("bilinear", F::grid_sample(x, grid, F::GridSampleFuncOptions().align_corners(false)));
  r.tensor("nearest_border",
           F::grid_sample(x, grid,
                          F::GridSampleFuncOptions().mode(vs::kNearest).padding_mode(vs::kBorder).align_corners(true)));
  r.tensor("bilinear_reflection",
           F::grid_sample(x, grid, F::GridSampleFuncOptions().padding_mode(vs::kReflection).align_corners(false)));
}

VS_CASE("resample.out") {
  vs::Tensor x = data({2, 3, 4, 5});
  vs::Tensor a = vs::empty({0}), b = vs::empty({7}), c = vs::empty({0}), d = vs::empty({0}), e = vs::empty({0});
  r.tensor("upsample_nearest2d", vs::upsample_nearest2d_out(a, x, {7, 9}));
  r.tensor("upsample_bilinear2d", vs::upsample_bilinear2d_out(b, x, {7, 9}, true));
  r.tensor("grid_sampler_2d", vs::grid_sampler_2d_out(c, x, data({2, 3, 6, 2}, 0.4) * 1.3, 2, 2, false));
  r.tensor("im2col", vs::im2col_out(d, x, {2, 3}, {1, 1}, {1, 0}, {1, 2}));
  r.tensor("col2im", vs::col2im_out(e, data({2, 18, 15}), {6, 5}, {2, 3}, {1, 1}, {0, 0}, {1, 1}));
  vs::Tensor f64 = vs::empty({0}, vs::kFloat64);
  r.raises("upsample_nearest2d_dtype", [&] { vs::upsample_nearest2d_out(f64, x, {7, 9}); });
}
