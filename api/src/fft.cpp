// ember::fft: LibTorch's torch::fft functions as composites over _fft_c2c, _fft_r2c and
// _fft_c2r, following PyTorch's SpectralOps.cpp (argument handling, dtype promotion, errors).
#include "ember/fft.h"

#include <string>

#include "ember/generated/Functions.h"
#include "ember/native/Rules.h"

namespace ember::fft {
namespace {

using native::DimVector;

enum Norm : int64_t { kNone = 0, kByRootN = 1, kByN = 2 };

// PyTorch's fft_norm_mode: the scaling of a transform in direction `forward`.
int64_t norm_mode(const char* op, OptionalNorm norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? kNone : kByN;
  if (*norm == "forward") return forward ? kByN : kNone;
  if (*norm == "ortho") return kByRootN;
  EMBER_THROW(ValueError, "[{}] Invalid normalization mode: \"{}\"", op, std::string(*norm));
}

// Integers compute in the default dtype; with require_complex a real input becomes complex.
Tensor promote(const char* op, const Tensor& t, bool require_complex) {
  native::check_defined(op, t, "self");
  ScalarType dt = t.dtype();
  if (is_complex_type(dt)) return t;
  if (!is_floating_type(dt)) dt = get_default_dtype();
  EMBER_CHECK_TYPE(dt == kFloat32 || dt == kFloat64, "[{}] Unsupported dtype {}", op, dt);
  if (require_complex) dt = dt == kFloat64 ? kComplex128 : kComplex64;
  return dt == t.dtype() ? t : t.to(dt);
}

void check_points(const char* op, int64_t n) {
  EMBER_CHECK(n >= 1, "[{}] Invalid number of data points ({}) specified", op, n);
}

// x trimmed or zero-padded to n along dim (PyTorch's resize_fft_input).
Tensor resize_dim(const Tensor& x, int64_t dim, int64_t n) {
  const int64_t have = x.size(dim);
  if (have == n) return x;
  if (have > n) return x.slice(dim, 0, n);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape[dim] = n - have;
  return ember::cat({x, ember::zeros(shape, x.options())}, dim);
}

// The one-dimensional transforms (PyTorch's fft_c2c, fft_r2c, fft_c2r).
Tensor c2c_1d(const char* op, const Tensor& self, std::optional<int64_t> n_opt, int64_t dim, OptionalNorm norm,
              bool forward) {
  Tensor x = promote(op, self, true);
  const int64_t d = maybe_wrap_dim(dim, x.dim(), op);
  const int64_t n = n_opt.value_or(x.size(d));
  check_points(op, n);
  if (n_opt) x = resize_dim(x, d, n);
  return ember::_fft_c2c(x, {d}, norm_mode(op, norm, forward), forward);
}

Tensor r2c_1d(const char* op, const Tensor& self, std::optional<int64_t> n_opt, int64_t dim, OptionalNorm norm,
              bool forward, bool onesided) {
  native::check_defined(op, self, "self");
  EMBER_CHECK_TYPE(!is_complex_type(self.dtype()), "[{}] expects a real input tensor, but got {}", op, self.dtype());
  Tensor x = promote(op, self, false);
  const int64_t d = maybe_wrap_dim(dim, x.dim(), op);
  const int64_t n = n_opt.value_or(x.size(d));
  check_points(op, n);
  if (n_opt) x = resize_dim(x, d, n);
  Tensor r = ember::_fft_r2c(x, {d}, norm_mode(op, norm, forward), onesided);
  return forward ? r : r.conj();
}

Tensor c2r_1d(const char* op, const Tensor& self, std::optional<int64_t> n_opt, int64_t dim, OptionalNorm norm,
              bool forward) {
  Tensor x = promote(op, self, true);
  const int64_t d = maybe_wrap_dim(dim, x.dim(), op);
  const int64_t n = n_opt.value_or(2 * (x.size(d) - 1));
  check_points(op, n);
  if (n_opt) x = resize_dim(x, d, n / 2 + 1);
  if (forward) x = x.conj();  // hfft: the forward transform of a Hermitian signal
  return ember::_fft_c2r(x, {d}, norm_mode(op, norm, forward), n);
}

// PyTorch's canonicalize_fft_shape_and_dim_args: the dims (wrapped) and signal sizes (-1 means
// the input's size).
struct ShapeAndDims {
  DimVector shape, dims;
};
ShapeAndDims shape_and_dims(const char* op, const Tensor& x, const OptionalIntArrayRef& s,
                            const OptionalIntArrayRef& dim) {
  const int64_t nd = x.dim();
  ShapeAndDims r;
  if (dim.has_value()) {
    r.dims = native::wrap_dims(dim.value(), nd, op);
    if (s.has_value())
      EMBER_CHECK(s.value().size() == dim.value().size(),
                  "[{}] When given, dim and shape arguments must have the same length", op);
  } else if (s.has_value()) {
    const auto ns = static_cast<int64_t>(s.value().size());
    EMBER_CHECK(ns <= nd, "[{}] Got shape with {} values but input tensor only has {} dimensions.", op, ns, nd);
    for (int64_t i = nd - ns; i < nd; ++i) r.dims.push_back(i);
  } else {
    for (int64_t i = 0; i < nd; ++i) r.dims.push_back(i);
  }
  for (size_t i = 0; i < r.dims.size(); ++i) {
    const int64_t v = s.has_value() && s.value()[i] != -1 ? s.value()[i] : x.size(r.dims[i]);
    check_points(op, v);
    r.shape.push_back(v);
  }
  return r;
}

Tensor resize_dims(Tensor x, IntArrayRef dims, IntArrayRef shape) {
  for (size_t i = 0; i < dims.size(); ++i) x = resize_dim(x, dims[i], shape[i]);
  return x;
}

Tensor c2c_nd(const char* op, const Tensor& self, const OptionalIntArrayRef& s, const OptionalIntArrayRef& dim,
              OptionalNorm norm, bool forward) {
  Tensor x = promote(op, self, true);
  const ShapeAndDims sd = shape_and_dims(op, x, s, dim);
  x = resize_dims(x, sd.dims, sd.shape);
  return ember::_fft_c2c(x, sd.dims, norm_mode(op, norm, forward), forward);
}

Tensor r2c_nd(const char* op, const Tensor& self, const OptionalIntArrayRef& s, const OptionalIntArrayRef& dim,
              OptionalNorm norm) {
  native::check_defined(op, self, "self");
  EMBER_CHECK_TYPE(!is_complex_type(self.dtype()), "[{}] expects a real-valued input tensor, but got {}", op,
                   self.dtype());
  Tensor x = promote(op, self, false);
  const ShapeAndDims sd = shape_and_dims(op, x, s, dim);
  EMBER_CHECK(!sd.dims.empty(), "[{}] must transform at least one axis", op);
  x = resize_dims(x, sd.dims, sd.shape);
  return ember::_fft_r2c(x, sd.dims, norm_mode(op, norm, true), true);
}

Tensor c2r_nd(const char* op, const Tensor& self, const OptionalIntArrayRef& s, const OptionalIntArrayRef& dim,
              OptionalNorm norm) {
  Tensor x = promote(op, self, true);
  ShapeAndDims sd = shape_and_dims(op, x, s, dim);
  EMBER_CHECK(!sd.dims.empty(), "[{}] must transform at least one axis", op);
  const bool last_given = s.has_value() && s.value().back() != -1;
  const int64_t last = last_given ? sd.shape.back() : 2 * (x.size(sd.dims.back()) - 1);
  check_points(op, last);
  sd.shape.back() = last / 2 + 1;
  x = resize_dims(x, sd.dims, sd.shape);
  return ember::_fft_c2r(x, sd.dims, norm_mode(op, norm, false), last);
}

Tensor shift(const char* op, const Tensor& x, const OptionalIntArrayRef& dim, bool inverse) {
  native::check_defined(op, x, "x");
  DimVector dims;
  if (dim.has_value()) {
    dims = native::wrap_dims(dim.value(), x.dim(), op);
  } else {
    for (int64_t i = 0; i < x.dim(); ++i) dims.push_back(i);
  }
  Tensor r = x;
  for (int64_t d : dims) {
    // A roll by n/2 (fftshift) or (n+1)/2 (ifftshift) along d.
    const int64_t n = x.size(d), k = inverse ? (n + 1) / 2 : n / 2;
    if (n <= 1 || k == 0) continue;
    r = ember::cat({r.slice(d, n - k, n), r.slice(d, 0, n - k)}, d);
  }
  return r.is_same(x) ? x.clone() : r;
}

}  // namespace

Tensor fft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  native::check_defined("fft", self, "self");
  return is_complex_type(self.dtype()) ? c2c_1d("fft", self, n, dim, norm, true)
                                       : r2c_1d("fft", self, n, dim, norm, true, false);
}

Tensor ifft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  native::check_defined("ifft", self, "self");
  return is_complex_type(self.dtype()) ? c2c_1d("ifft", self, n, dim, norm, false)
                                       : r2c_1d("ifft", self, n, dim, norm, false, false);
}

Tensor rfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return r2c_1d("rfft", self, n, dim, norm, true, true);
}

Tensor irfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return c2r_1d("irfft", self, n, dim, norm, false);
}

Tensor hfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return c2r_1d("hfft", self, n, dim, norm, true);
}

Tensor ihfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  return r2c_1d("ihfft", self, n, dim, norm, false, true);
}

Tensor fft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return fftn(self, std::move(s), dim, norm);
}
Tensor ifft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return ifftn(self, std::move(s), dim, norm);
}
Tensor rfft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return rfftn(self, std::move(s), dim, norm);
}
Tensor irfft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return irfftn(self, std::move(s), dim, norm);
}

Tensor fftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return c2c_nd("fftn", self, s, dim, norm, true);
}
Tensor ifftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return c2c_nd("ifftn", self, s, dim, norm, false);
}
Tensor rfftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return r2c_nd("rfftn", self, s, dim, norm);
}
Tensor irfftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  return c2r_nd("irfftn", self, s, dim, norm);
}

Tensor fftfreq(int64_t n, double d, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "[fftfreq] n must be non-negative, got {}", n);
  Tensor r = ember::arange(n, options.dtype(options.dtype_or(get_default_dtype())));
  // [0, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n)
  if (n > 1) r.slice(0, (n + 1) / 2, n).sub_(n);
  return r.mul_(1.0 / (static_cast<double>(n) * d));
}

Tensor fftfreq(int64_t n, const TensorOptions& options) { return fftfreq(n, 1.0, options); }

Tensor rfftfreq(int64_t n, double d, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "[rfftfreq] n must be non-negative, got {}", n);
  Tensor r = ember::arange(n / 2 + 1, options.dtype(options.dtype_or(get_default_dtype())));
  return r.mul_(1.0 / (static_cast<double>(n) * d));
}

Tensor rfftfreq(int64_t n, const TensorOptions& options) { return rfftfreq(n, 1.0, options); }

Tensor fftshift(const Tensor& x, OptionalIntArrayRef dim) { return shift("fftshift", x, dim, false); }
Tensor ifftshift(const Tensor& x, OptionalIntArrayRef dim) { return shift("ifftshift", x, dim, true); }

}  // namespace ember::fft
