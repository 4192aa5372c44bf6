#pragma once
// Note [Quantized tensors]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A quantized tensor is a QTensorImpl: a strided tensor over a plain storage of its integers
// (uint8 for kQUInt8, int8 for kQInt8, int32 for kQInt32), keyed QuantizedCPU by its dtype, plus
// an immutable Quantizer shared by its views and shallow copies (so views, detach and the
// view-based composites keep it with no work here; empty_like, contiguous and clone in libember
// build a fresh one through _empty_affine_quantized / _empty_per_channel_affine_quantized).
// The value of integer q is (q - zero_point) * scale. Quantizing follows PyTorch's quantize_val
// and FBGEMM exactly: q = clamp(zero_point + nearbyint(x * (1.0f / float(scale)))) with the
// float inverse scale, rounding half to even, clamped to the integer type's range.
// Kernels run on the integers (the pools: Note [Quantized pools] in pool.cpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "ember/core/Exception.h"
#include "ember/core/QScheme.h"
#include "ember/core/TensorImpl.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::qbackend {

struct Quantizer {
  virtual ~Quantizer() = default;
  virtual QScheme qscheme() const = 0;
  ScalarType dtype = kQUInt8;
};

struct PerTensorAffineQuantizer final : Quantizer {
  QScheme qscheme() const override { return kPerTensorAffine; }
  double scale = 1;
  int64_t zero_point = 0;
};

struct PerChannelAffineQuantizer final : Quantizer {
  QScheme qscheme() const override { return kPerChannelAffine; }
  Tensor scales;       // float64, contiguous, one per index along axis
  Tensor zero_points;  // int64, contiguous
  int64_t axis = 0;
};

using QuantizerPtr = std::shared_ptr<const Quantizer>;

class QTensorImpl final : public TensorImpl {
 public:
  QTensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, QuantizerPtr q)
      : TensorImpl(std::move(storage), dtype, sizes), quantizer_(std::move(q)) {}
  QTensorImpl(ShallowCopy t, const QTensorImpl& src) : TensorImpl(t, src), quantizer_(src.quantizer_) {}

  IntrusivePtr<TensorImpl> shallow_copy_and_detach() const override {
    return IntrusivePtr<TensorImpl>(new QTensorImpl(SHALLOW_COPY, *this));
  }
  void shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) override;

  const QuantizerPtr& quantizer() const { return quantizer_; }
  // copy_ between quantized tensors takes the source's quantizer (LibTorch's set_quantizer_).
  void set_quantizer(QuantizerPtr q) { quantizer_ = std::move(q); }

 private:
  QuantizerPtr quantizer_;
};

// The QTensorImpl of `t`; ValueError naming `op` when t is not a quantized tensor.
QTensorImpl& qimpl(const Tensor& t, const char* op);
// The per-tensor quantizer of `self`; NotImplementedError naming `op` for other qschemes (the
// kernels that only handle one scale and zero point).
const PerTensorAffineQuantizer& per_tensor_quantizer(const Tensor& self, const char* op);
// kUInt8 / kInt8 / kInt32 for kQUInt8 / kQInt8 / kQInt32.
ScalarType underlying_type(ScalarType qtype);
// A new contiguous quantized tensor of `sizes` (uninitialised integers).
Tensor new_qtensor(IntArrayRef sizes, ScalarType qtype, QuantizerPtr q);
// The integers of `q` as a plain integer tensor sharing its storage and geometry (a view: what
// the dense CPU kernels run on).
Tensor int_view(const Tensor& q);
// A per-tensor quantizer after the checks every caller shares (dtype quantized, zero point in
// range, scale positive and finite), errors naming `op`.
std::shared_ptr<PerTensorAffineQuantizer> make_per_tensor_quantizer(const char* op, double scale, int64_t zero_point,
                                                                    ScalarType dtype);

// A 4-D tensor whose memory is NHWC (channels-last; a quantized conv's output): LibTorch's
// is_contiguous(ChannelsLast), so a tensor may be both this and contiguous (C = 1).
inline bool is_channels_last(const Tensor& t) { return t.dim() == 4 && t.permute({0, 2, 3, 1}).is_contiguous(); }

// f(T{}) with T the integer type of quantized dtype `qtype`.
template <class F>
void dispatch_int(ScalarType qtype, F&& f) {
  switch (qtype) {
    case kQUInt8:
      return f(uint8_t{});
    case kQInt8:
      return f(int8_t{});
    case kQInt32:
      return f(int32_t{});
    default:
      EMBER_THROW(TypeError, "[quantized] expected a quantized dtype, got {}", qtype);
  }
}

template <class T>
inline T quantize_val(float inv_scale, int64_t zero_point, float x) {
  constexpr int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  float r = std::nearbyint(x * inv_scale);
  // Keeps the conversion defined for huge values, infinities and NaN (which goes to the low end).
  r = r >= -1e10f ? (r <= 1e10f ? r : 1e10f) : -1e10f;
  int64_t q = zero_point + static_cast<int64_t>(r);
  return static_cast<T>(q < lo ? lo : q > hi ? hi : q);
}

}  // namespace ember::qbackend
