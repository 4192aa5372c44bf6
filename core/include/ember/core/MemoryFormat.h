#pragma once
// Note [Memory formats]
// The order in which a dense tensor lays out its dimensions (LibTorch's c10::MemoryFormat, same
// names and values): Contiguous (row-major), ChannelsLast (NCHW sizes with NHWC strides: C has
// stride 1), ChannelsLast3d (NCDHW sizes, NDHWC strides), and Preserve, which is no layout but an
// instruction to clone/empty_like/to: keep the input's strides when it is dense and
// non-overlapping, else take the format suggest_memory_format() names. A tensor is "contiguous in
// a format" when its strides are that format's strides for its sizes, with LibTorch's rules for
// size-1 dimensions (their stride is free) and for the C dimension of an ambiguous tensor.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include "ember/core/ArrayRef.h"
#include "ember/core/SmallVector.h"

namespace ember {

enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2, ChannelsLast3d = 3 };

// "Contiguous", "Preserve", "ChannelsLast", "ChannelsLast3d" (LibTorch's operator<<).
constexpr std::string_view to_string(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous:
      return "Contiguous";
    case MemoryFormat::Preserve:
      return "Preserve";
    case MemoryFormat::ChannelsLast:
      return "ChannelsLast";
    case MemoryFormat::ChannelsLast3d:
      return "ChannelsLast3d";
  }
  return "Unknown";
}
inline std::ostream& operator<<(std::ostream& os, MemoryFormat f) { return os << to_string(f); }

// The strides of a tensor of `sizes` laid out in `format` (Contiguous or a channels-last format of
// a 4-d / 5-d size; anything else throws, naming `op`).
EMBER_API SmallVector<int64_t, 5> memory_format_strides(IntArrayRef sizes, MemoryFormat format,
                                                        const char* op = "memory_format");
// Whether sizes/strides are exactly ChannelsLast's (4-d) or ChannelsLast3d's (5-d) layout, as
// LibTorch's is_channels_last_contiguous (size-1 dimensions take any stride).
EMBER_API bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);
// LibTorch's is_channels_last_strides_2d/3d: the stride order of a channels-last tensor (dense or
// not); what suggest_memory_format() reads.
EMBER_API bool is_channels_last_strides(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);

}  // namespace ember

template <>
struct fmt::formatter<ember::MemoryFormat> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(ember::MemoryFormat f, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(ember::to_string(f), ctx);
  }
};
