// Meta resampling (plugins/cpu/resample.cpp): the upsample family, grid_sampler_2d, im2col and
// col2im, with the cpu kernels' checks and output shapes (ember/native/ResampleRules.h); results
// are contiguous, in the cpu kernels' dtypes.
#include <tuple>

#include "MetaHelpers.h"
#include "ember/native/ResampleRules.h"

namespace ember::meta {

namespace {

namespace rs = native::resample;
using Scales = std::array<std::optional<double>, 3>;

Tensor upsample(const char* op, const Tensor& self, IntArrayRef output_size, int64_t nd, Scales scales, bool uint8_ok) {
  const rs::UpsampleGeom g = rs::check_upsample(op, kMeta, self, output_size, nd, scales, uint8_ok);
  return empty_meta(g.output_sizes(), self.dtype());
}

Tensor upsample_backward(const char* op, const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                         int64_t nd, Scales scales) {
  const rs::UpsampleGeom g = rs::check_upsample_backward(op, kMeta, grad_output, output_size, input_size, nd, scales);
  return empty_meta(g.input_sizes(), grad_output.dtype());
}

Tensor upsample_vec(const char* op, const Tensor& input, std::optional<IntArrayRef> output_size,
                    std::optional<ArrayRef<double>> scale_factors, int64_t nd, bool uint8_ok) {
  const auto a = rs::upsample_vec_args(op, input, output_size, scale_factors, nd);
  return upsample(op, input, a.output_size, nd, a.scales, uint8_ok);
}

// The cpu kernels' out= steps: out on the device, of the result's dtype, resized, writable.
Tensor& write_out(const char* op, const Tensor& result, Tensor& out) {
  native::nn::check_on(op, kMeta, out);
  rs::check_out_dtype(op, out, result.dtype());
  native::resize_output(out, result.sizes(), op);
  native::check_out_writable(op, out);
  return out;
}

}  // namespace

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales) {
  return upsample("upsample_nearest1d", self, output_size, 1, rs::scales3({}, {}, scales), true);
}
Tensor upsample_nearest1d_vec(const Tensor& input, std::optional<IntArrayRef> output_size,
                              std::optional<ArrayRef<double>> scale_factors) {
  return upsample_vec("upsample_nearest1d", input, output_size, scale_factors, 1, true);
}
Tensor upsample_nearest1d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   std::optional<double> scales) {
  return upsample_backward("upsample_nearest1d_backward", grad_output, output_size, input_size, 1,
                           rs::scales3({}, {}, scales));
}

Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return upsample("upsample_nearest2d", self, output_size, 2, rs::scales3({}, scales_h, scales_w), true);
}
Tensor upsample_nearest2d_vec(const Tensor& input, std::optional<IntArrayRef> output_size,
                              std::optional<ArrayRef<double>> scale_factors) {
  return upsample_vec("upsample_nearest2d", input, output_size, scale_factors, 2, true);
}
Tensor& upsample_nearest2d_out(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                               std::optional<double> scales_w, Tensor& out) {
  return write_out("upsample_nearest2d", meta::upsample_nearest2d(self, output_size, scales_h, scales_w), out);
}
Tensor upsample_nearest2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_backward("upsample_nearest2d_backward", grad_output, output_size, input_size, 2,
                           rs::scales3({}, scales_h, scales_w));
}

Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample("upsample_nearest3d", self, output_size, 3, rs::scales3(scales_d, scales_h, scales_w), true);
}
Tensor upsample_nearest3d_vec(const Tensor& input, std::optional<IntArrayRef> output_size,
                              std::optional<ArrayRef<double>> scale_factors) {
  return upsample_vec("upsample_nearest3d", input, output_size, scale_factors, 3, true);
}
Tensor upsample_nearest3d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   std::optional<double> scales_d, std::optional<double> scales_h,
                                   std::optional<double> scales_w) {
  return upsample_backward("upsample_nearest3d_backward", grad_output, output_size, input_size, 3,
                           rs::scales3(scales_d, scales_h, scales_w));
}

Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool /*align_corners*/,
                         std::optional<double> scales) {
  return upsample("upsample_linear1d", self, output_size, 1, rs::scales3({}, {}, scales), false);
}
Tensor upsample_linear1d_vec(const Tensor& input, std::optional<IntArrayRef> output_size, bool /*align_corners*/,
                             std::optional<ArrayRef<double>> scale_factors) {
  return upsample_vec("upsample_linear1d", input, output_size, scale_factors, 1, false);
}
Tensor upsample_linear1d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                  bool /*align_corners*/, std::optional<double> scales) {
  return upsample_backward("upsample_linear1d_backward", grad_output, output_size, input_size, 1,
                           rs::scales3({}, {}, scales));
}

Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool /*align_corners*/,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample("upsample_bilinear2d", self, output_size, 2, rs::scales3({}, scales_h, scales_w), false);
}
Tensor upsample_bilinear2d_vec(const Tensor& input, std::optional<IntArrayRef> output_size, bool /*align_corners*/,
                               std::optional<ArrayRef<double>> scale_factors) {
  return upsample_vec("upsample_bilinear2d", input, output_size, scale_factors, 2, false);
}
Tensor& upsample_bilinear2d_out(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                std::optional<double> scales_h, std::optional<double> scales_w, Tensor& out) {
  return write_out("upsample_bilinear2d",
                   meta::upsample_bilinear2d(self, output_size, align_corners, scales_h, scales_w), out);
}
Tensor upsample_bilinear2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                    bool /*align_corners*/, std::optional<double> scales_h,
                                    std::optional<double> scales_w) {
  return upsample_backward("upsample_bilinear2d_backward", grad_output, output_size, input_size, 2,
                           rs::scales3({}, scales_h, scales_w));
}

Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool /*align_corners*/,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample("upsample_bicubic2d", self, output_size, 2, rs::scales3({}, scales_h, scales_w), false);
}
Tensor upsample_bicubic2d_vec(const Tensor& input, std::optional<IntArrayRef> output_size, bool /*align_corners*/,
                              std::optional<ArrayRef<double>> scale_factors) {
  return upsample_vec("upsample_bicubic2d", input, output_size, scale_factors, 2, false);
}
Tensor upsample_bicubic2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   bool /*align_corners*/, std::optional<double> scales_h,
                                   std::optional<double> scales_w) {
  return upsample_backward("upsample_bicubic2d_backward", grad_output, output_size, input_size, 2,
                           rs::scales3({}, scales_h, scales_w));
}

Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool /*align_corners*/,
                            std::optional<double> scales_d, std::optional<double> scales_h,
                            std::optional<double> scales_w) {
  return upsample("upsample_trilinear3d", self, output_size, 3, rs::scales3(scales_d, scales_h, scales_w), false);
}
Tensor upsample_trilinear3d_vec(const Tensor& input, std::optional<IntArrayRef> output_size, bool /*align_corners*/,
                                std::optional<ArrayRef<double>> scale_factors) {
  return upsample_vec("upsample_trilinear3d", input, output_size, scale_factors, 3, false);
}
Tensor upsample_trilinear3d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                     bool /*align_corners*/, std::optional<double> scales_d,
                                     std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_backward("upsample_trilinear3d_backward", grad_output, output_size, input_size, 3,
                           rs::scales3(scales_d, scales_h, scales_w));
}

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                       bool /*align_corners*/) {
  rs::check_grid_sampler_2d("grid_sampler_2d", kMeta, input, grid, interpolation_mode, padding_mode);
  return empty_meta(rs::grid_sampler_2d_shape(input, grid), input.dtype());
}

Tensor& grid_sampler_2d_out(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                            bool align_corners, Tensor& out) {
  return write_out("grid_sampler_2d",
                   meta::grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners), out);
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t interpolation_mode, int64_t padding_mode,
                                                    bool /*align_corners*/, std::array<bool, 2> output_mask) {
  rs::check_grid_sampler_2d_backward("grid_sampler_2d_backward", kMeta, grad_output, input, grid, interpolation_mode,
                                     padding_mode);
  return {empty_if(output_mask[0], input.sizes(), input.dtype()), empty_if(output_mask[1], grid.sizes(), grid.dtype())};
}

Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  const rs::ColGeom g = rs::check_im2col("im2col", kMeta, self, kernel_size, dilation, padding, stride);
  return empty_meta(g.col_sizes(), self.dtype());
}

Tensor& im2col_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                   IntArrayRef stride, Tensor& out) {
  return write_out("im2col", meta::im2col(self, kernel_size, dilation, padding, stride), out);
}

Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  const rs::ColGeom g = rs::check_col2im("col2im", kMeta, self, output_size, kernel_size, dilation, padding, stride);
  return empty_meta(g.image_sizes(), self.dtype());
}

Tensor& col2im_out(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride, Tensor& out) {
  return write_out("col2im", meta::col2im(self, output_size, kernel_size, dilation, padding, stride), out);
}

}  // namespace ember::meta
