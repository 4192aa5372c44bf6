// Meta FFT kernels (plugins/cpu/fft.cpp): the cpu kernels' checks and contiguous results
// (ember/native/FftRules.h).
#include "MetaHelpers.h"
#include "ember/native/FftRules.h"

namespace ember::meta {

Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  const auto g = native::fft_r2c_geometry(self, dim, normalization, onesided);
  return empty_meta(g.out_sizes, g.out_dtype);
}

Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  const auto g = native::fft_c2r_geometry(self, dim, normalization, last_dim_size);
  return empty_meta(g.out_sizes, g.out_dtype);
}

Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  (void)forward;
  const auto g = native::fft_c2c_geometry(self, dim, normalization);
  return empty_meta(g.out_sizes, g.out_dtype);
}

}  // namespace ember::meta
