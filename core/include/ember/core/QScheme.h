#pragma once
// How a quantized tensor maps its integers to real values (LibTorch's c10::QScheme, same names
// and values). The quantizer that carries the parameters lives in the quantized plugin.
#include <cstdint>
#include <ostream>
#include <string_view>

namespace ember {

enum class QScheme : uint8_t {
  PER_TENSOR_AFFINE = 0,
  PER_CHANNEL_AFFINE = 1,
  PER_TENSOR_SYMMETRIC = 2,
  PER_CHANNEL_SYMMETRIC = 3,
  PER_CHANNEL_AFFINE_FLOAT_QPARAMS = 4,
};
constexpr QScheme kPerTensorAffine = QScheme::PER_TENSOR_AFFINE;
constexpr QScheme kPerChannelAffine = QScheme::PER_CHANNEL_AFFINE;
constexpr QScheme kPerTensorSymmetric = QScheme::PER_TENSOR_SYMMETRIC;
constexpr QScheme kPerChannelSymmetric = QScheme::PER_CHANNEL_SYMMETRIC;
constexpr QScheme kPerChannelAffineFloatQParams = QScheme::PER_CHANNEL_AFFINE_FLOAT_QPARAMS;

// "per_tensor_affine", ... (LibTorch's toString).
constexpr std::string_view to_string(QScheme q) {
  switch (q) {
    case QScheme::PER_TENSOR_AFFINE:
      return "per_tensor_affine";
    case QScheme::PER_CHANNEL_AFFINE:
      return "per_channel_affine";
    case QScheme::PER_TENSOR_SYMMETRIC:
      return "per_tensor_symmetric";
    case QScheme::PER_CHANNEL_SYMMETRIC:
      return "per_channel_symmetric";
    case QScheme::PER_CHANNEL_AFFINE_FLOAT_QPARAMS:
      return "per_channel_affine_float_qparams";
  }
  return "unknown_qscheme";
}
inline std::ostream& operator<<(std::ostream& os, QScheme q) { return os << to_string(q); }

}  // namespace ember
