#pragma once
// LibTorch's torch::fft spellings (torch/fft.h), with its argument order and defaults: n or s
// (signal lengths: inputs are zero-padded or trimmed to them), dim, and norm ("backward", the
// default: no scaling forward and 1/n backward; "forward": the reverse; "ortho": 1/sqrt(n) both
// ways). They are composites over _fft_c2c, _fft_r2c and _fft_c2r (so autograd and every backend
// with those three kernels get them). Integer inputs compute in the default dtype.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/dispatcher/Tensor.h"

namespace ember::fft {

// An optional list of sizes or dims that also takes a braced list (`fft2(x, {8, 8})`) and keeps
// it alive for the call, as LibTorch's OptionalIntArrayRef does for a caller's temporary.
class OptionalIntArrayRef {
 public:
  OptionalIntArrayRef() = default;
  OptionalIntArrayRef(std::nullopt_t) {}                                                         // NOLINT
  OptionalIntArrayRef(IntArrayRef v) : has_(true), v_(v.begin(), v.end()) {}                     // NOLINT
  OptionalIntArrayRef(std::initializer_list<int64_t> v) : has_(true), v_(v.begin(), v.end()) {}  // NOLINT
  OptionalIntArrayRef(const std::vector<int64_t>& v) : has_(true), v_(v.begin(), v.end()) {}     // NOLINT
  OptionalIntArrayRef(const std::optional<IntArrayRef>& v) : has_(v.has_value()) {               // NOLINT
    if (v) v_.assign(v->begin(), v->end());
  }
  bool has_value() const { return has_; }
  IntArrayRef value() const { return v_; }

 private:
  bool has_ = false;
  std::vector<int64_t> v_;
};

using OptionalNorm = std::optional<std::string_view>;

EMBER_API Tensor fft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                     OptionalNorm norm = std::nullopt);
EMBER_API Tensor ifft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                      OptionalNorm norm = std::nullopt);
EMBER_API Tensor rfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                      OptionalNorm norm = std::nullopt);
EMBER_API Tensor irfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                       OptionalNorm norm = std::nullopt);
// The FFT of a Hermitian-symmetric signal given by its first half (a real result), and its inverse.
EMBER_API Tensor hfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                      OptionalNorm norm = std::nullopt);
EMBER_API Tensor ihfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                       OptionalNorm norm = std::nullopt);

EMBER_API Tensor fft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
                      OptionalNorm norm = std::nullopt);
EMBER_API Tensor ifft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
                       OptionalNorm norm = std::nullopt);
EMBER_API Tensor rfft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
                       OptionalNorm norm = std::nullopt);
EMBER_API Tensor irfft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
                        OptionalNorm norm = std::nullopt);

// Without s and dim: every dimension; with s only: the last s.size() dimensions.
EMBER_API Tensor fftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
                      OptionalNorm norm = std::nullopt);
EMBER_API Tensor ifftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
                       OptionalNorm norm = std::nullopt);
EMBER_API Tensor rfftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
                       OptionalNorm norm = std::nullopt);
EMBER_API Tensor irfftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt,
                        OptionalIntArrayRef dim = std::nullopt, OptionalNorm norm = std::nullopt);

// The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., -(n/2), ..., -1]
// / (d n), and the onesided [0, 1, ..., n/2] / (d n). The default dtype unless options say.
EMBER_API Tensor fftfreq(int64_t n, double d, const TensorOptions& options = {});
EMBER_API Tensor fftfreq(int64_t n, const TensorOptions& options = {});
EMBER_API Tensor rfftfreq(int64_t n, double d, const TensorOptions& options);
EMBER_API Tensor rfftfreq(int64_t n, const TensorOptions& options);

// Moves the zero frequency to the centre of each dim (all without dim), and back.
EMBER_API Tensor fftshift(const Tensor& x, OptionalIntArrayRef dim = std::nullopt);
EMBER_API Tensor ifftshift(const Tensor& x, OptionalIntArrayRef dim = std::nullopt);

}  // namespace ember::fft
