#pragma once
// Enum tags for options and init (LibTorch's torch/enum.h): ember::kSame, ember::kReflect,
// ember::kFanIn, ember::kReLU, ember::kMean, ... Each is an empty struct type in
// ember::enumtype with one constant in ember; an option that takes a choice holds a
// std::variant of tags, and get_enum_name prints the chosen one as LibTorch does ("kReflect").
#include <string>
#include <variant>

#define EMBER_ENUM_DECLARE(name)                \
  namespace ember {                             \
  namespace enumtype {                          \
  struct k##name {                              \
    constexpr k##name() noexcept = default;     \
  };                                            \
  }                                             \
  inline constexpr enumtype::k##name k##name{}; \
  }

EMBER_ENUM_DECLARE(Linear)
EMBER_ENUM_DECLARE(Conv1D)
EMBER_ENUM_DECLARE(Conv2D)
EMBER_ENUM_DECLARE(Conv3D)
EMBER_ENUM_DECLARE(ConvTranspose1D)
EMBER_ENUM_DECLARE(ConvTranspose2D)
EMBER_ENUM_DECLARE(ConvTranspose3D)
EMBER_ENUM_DECLARE(Sigmoid)
EMBER_ENUM_DECLARE(Tanh)
EMBER_ENUM_DECLARE(ReLU)
EMBER_ENUM_DECLARE(GELU)
EMBER_ENUM_DECLARE(SiLU)
EMBER_ENUM_DECLARE(Mish)
EMBER_ENUM_DECLARE(LeakyReLU)
EMBER_ENUM_DECLARE(SELU)
EMBER_ENUM_DECLARE(FanIn)
EMBER_ENUM_DECLARE(FanOut)
EMBER_ENUM_DECLARE(Constant)
EMBER_ENUM_DECLARE(Reflect)
EMBER_ENUM_DECLARE(Replicate)
EMBER_ENUM_DECLARE(Circular)
EMBER_ENUM_DECLARE(Nearest)
EMBER_ENUM_DECLARE(Bilinear)
EMBER_ENUM_DECLARE(Bicubic)
EMBER_ENUM_DECLARE(Trilinear)
EMBER_ENUM_DECLARE(Area)
EMBER_ENUM_DECLARE(NearestExact)
EMBER_ENUM_DECLARE(Sum)
EMBER_ENUM_DECLARE(Mean)
EMBER_ENUM_DECLARE(Max)
EMBER_ENUM_DECLARE(None)
EMBER_ENUM_DECLARE(BatchMean)
EMBER_ENUM_DECLARE(Zeros)
EMBER_ENUM_DECLARE(Border)
EMBER_ENUM_DECLARE(Reflection)
EMBER_ENUM_DECLARE(RNN_TANH)
EMBER_ENUM_DECLARE(RNN_RELU)
EMBER_ENUM_DECLARE(LSTM)
EMBER_ENUM_DECLARE(GRU)
EMBER_ENUM_DECLARE(Valid)
EMBER_ENUM_DECLARE(Same)

namespace ember::enumtype {

#define EMBER_ENUM_NAME(name) \
  constexpr const char* operator()(const k##name&) const noexcept { return "k" #name; }
struct _compute_enum_name {
  EMBER_ENUM_NAME(Linear)
  EMBER_ENUM_NAME(Conv1D)
  EMBER_ENUM_NAME(Conv2D)
  EMBER_ENUM_NAME(Conv3D)
  EMBER_ENUM_NAME(ConvTranspose1D)
  EMBER_ENUM_NAME(ConvTranspose2D)
  EMBER_ENUM_NAME(ConvTranspose3D)
  EMBER_ENUM_NAME(Sigmoid)
  EMBER_ENUM_NAME(Tanh)
  EMBER_ENUM_NAME(ReLU)
  EMBER_ENUM_NAME(GELU)
  EMBER_ENUM_NAME(SiLU)
  EMBER_ENUM_NAME(Mish)
  EMBER_ENUM_NAME(LeakyReLU)
  EMBER_ENUM_NAME(SELU)
  EMBER_ENUM_NAME(FanIn)
  EMBER_ENUM_NAME(FanOut)
  EMBER_ENUM_NAME(Constant)
  EMBER_ENUM_NAME(Reflect)
  EMBER_ENUM_NAME(Replicate)
  EMBER_ENUM_NAME(Circular)
  EMBER_ENUM_NAME(Nearest)
  EMBER_ENUM_NAME(Bilinear)
  EMBER_ENUM_NAME(Bicubic)
  EMBER_ENUM_NAME(Trilinear)
  EMBER_ENUM_NAME(Area)
  EMBER_ENUM_NAME(NearestExact)
  EMBER_ENUM_NAME(Sum)
  EMBER_ENUM_NAME(Mean)
  EMBER_ENUM_NAME(Max)
  EMBER_ENUM_NAME(None)
  EMBER_ENUM_NAME(BatchMean)
  EMBER_ENUM_NAME(Zeros)
  EMBER_ENUM_NAME(Border)
  EMBER_ENUM_NAME(Reflection)
  EMBER_ENUM_NAME(RNN_TANH)
  EMBER_ENUM_NAME(RNN_RELU)
  EMBER_ENUM_NAME(LSTM)
  EMBER_ENUM_NAME(GRU)
  EMBER_ENUM_NAME(Valid)
  EMBER_ENUM_NAME(Same)
};
#undef EMBER_ENUM_NAME

// "kReflect" for a variant holding kReflect.
template <typename V>
std::string get_enum_name(const V& v) {
  return std::visit(_compute_enum_name{}, v);
}

}  // namespace ember::enumtype
