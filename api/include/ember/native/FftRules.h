#pragma once
// Argument checks and result geometry of _fft_r2c, _fft_c2r and _fft_c2c, shared by the cpu
// and meta plugins (Note [Kernel metadata helpers] in Geometry.h).
#include "ember/native/Rules.h"

namespace ember::native {

struct FftGeometry {
  DimVector dims;       // wrapped, in the caller's order
  DimVector out_sizes;  // contiguous result
  ScalarType out_dtype;
};

inline void check_fft_normalization(const char* op, int64_t normalization) {
  EMBER_CHECK(normalization >= 0 && normalization <= 2,
              "[{}] normalization must be 0 (none), 1 (by sqrt(n)) or 2 (by n), got {}", op, normalization);
}

// The complex dtype of a real one.
constexpr ScalarType real_to_complex(ScalarType t) { return t == kFloat64 ? kComplex128 : kComplex64; }

inline FftGeometry fft_r2c_geometry(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  const char* op = "_fft_r2c";
  check_defined(op, self, "self");
  EMBER_CHECK_TYPE(self.dtype() == kFloat32 || self.dtype() == kFloat64,
                   "[{}] expects a float32 or float64 input tensor, got {}", op, self.dtype());
  check_fft_normalization(op, normalization);
  EMBER_CHECK(!dim.empty(), "[{}] expects at least one dim to transform", op);
  FftGeometry g{wrap_dims(dim, self.dim(), op), DimVector(self.sizes()), real_to_complex(self.dtype())};
  if (onesided) g.out_sizes[g.dims.back()] = self.size(g.dims.back()) / 2 + 1;
  return g;
}

inline FftGeometry fft_c2r_geometry(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  const char* op = "_fft_c2r";
  check_defined(op, self, "self");
  EMBER_CHECK_TYPE(is_complex_type(self.dtype()), "[{}] expects a complex input tensor, got {}", op, self.dtype());
  check_fft_normalization(op, normalization);
  EMBER_CHECK(!dim.empty(), "[{}] expects at least one dim to transform", op);
  EMBER_CHECK(last_dim_size >= 1, "[{}] Invalid number of data points ({}) specified", op, last_dim_size);
  FftGeometry g{wrap_dims(dim, self.dim(), op), DimVector(self.sizes()), complex_to_real(self.dtype())};
  g.out_sizes[g.dims.back()] = last_dim_size;
  return g;
}

inline FftGeometry fft_c2c_geometry(const Tensor& self, IntArrayRef dim, int64_t normalization) {
  const char* op = "_fft_c2c";
  check_defined(op, self, "self");
  EMBER_CHECK_TYPE(is_complex_type(self.dtype()), "[{}] expects a complex input tensor, got {}", op, self.dtype());
  check_fft_normalization(op, normalization);
  return {wrap_dims(dim, self.dim(), op), DimVector(self.sizes()), self.dtype()};
}

}  // namespace ember::native
