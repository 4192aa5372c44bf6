#pragma once
// 16-bit floating types: storage plus round-to-nearest-even conversions to and from float.
#include <bit>
#include <cstdint>
#include <cstring>
#include <ostream>

namespace ember {

struct Half {
  uint16_t x = 0;
  Half() = default;
  struct from_bits_t {};
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float f) : x(from_float(f)) {}  // NOLINT: implicit like c10::Half
  operator float() const { return to_float(x); }  // NOLINT

  static uint16_t from_float(float f) {
    uint32_t u = std::bit_cast<uint32_t>(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return static_cast<uint16_t>(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (a < 0x38800000u) {  // subnormal or zero in half
      float v = std::bit_cast<float>(a) + 0.5f;  // align to 2^-24 ulp, rounding to nearest even
      return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (a >> 13) & 1u;
    a += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
    return static_cast<uint16_t>(sign | (a >> 13));
  }
  static float to_float(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t em = h & 0x7fffu;
    if (em >= 0x7c00u) return std::bit_cast<float>(sign | 0x7f800000u | ((em & 0x3ffu) << 13));
    if (em < 0x0400u) {  // subnormal
      float v = static_cast<float>(em) * 5.9604644775390625e-08f;  // 2^-24
      return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(v));
    }
    return std::bit_cast<float>(sign | ((em << 13) + 0x38000000u));
  }
};

struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  struct from_bits_t {};
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float f) : x(from_float(f)) {}  // NOLINT
  operator float() const { return std::bit_cast<float>(static_cast<uint32_t>(x) << 16); }  // NOLINT

  static uint16_t from_float(float f) {
    uint32_t u = std::bit_cast<uint32_t>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
    return static_cast<uint16_t>(u >> 16);
  }
};

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << static_cast<float>(h); }
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << static_cast<float>(h); }

}  // namespace ember
