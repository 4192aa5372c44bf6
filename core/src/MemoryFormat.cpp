// Channels-last geometry (Note [Memory formats]): LibTorch's get_channels_last_strides_2d/3d,
// is_channels_last_strides_2d/3d and compute_channels_last_contiguous_2d/3d, same rules.
#include "ember/core/MemoryFormat.h"

#include <initializer_list>

#include "ember/core/Exception.h"
#include "ember/core/TensorImpl.h"

namespace ember {

namespace {

// The dimension order of a channels-last layout, innermost first: C, then the spatial dims from
// the last, then N.
SmallVector<int64_t, 5> channels_last_order(size_t rank) {
  SmallVector<int64_t, 5> order;
  order.push_back(1);
  for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  return order;
}

size_t rank_of(MemoryFormat format) { return format == MemoryFormat::ChannelsLast ? 4 : 5; }

}  // namespace

SmallVector<int64_t, 5> memory_format_strides(IntArrayRef sizes, MemoryFormat format, const char* op) {
  switch (format) {
    case MemoryFormat::Contiguous:
      return contiguous_strides(sizes);
    case MemoryFormat::ChannelsLast:
      EMBER_CHECK(sizes.size() == 4, "[{}] required rank 4 tensor to use channels_last format", op);
      break;
    case MemoryFormat::ChannelsLast3d:
      EMBER_CHECK(sizes.size() == 5, "[{}] required rank 5 tensor to use channels_last_3d format", op);
      break;
    case MemoryFormat::Preserve:
      EMBER_THROW(ValueError, "[{}] unsupported memory format Preserve", op);
  }
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, "[{}] negative dimension {} in size {}", op, s, sizes);
  // LibTorch multiplies the sizes as they are (a 0 size gives 0 strides outside it).
  SmallVector<int64_t, 5> strides(sizes.size(), 1);
  int64_t acc = 1;
  for (int64_t d : channels_last_order(sizes.size())) {
    strides[d] = acc;
    acc *= sizes[d];
  }
  return strides;
}

bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  if ((format != MemoryFormat::ChannelsLast && format != MemoryFormat::ChannelsLast3d) ||
      sizes.size() != rank_of(format))
    return false;
  int64_t expected = 1;
  for (int64_t d : channels_last_order(sizes.size())) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool is_channels_last_strides(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  if ((format != MemoryFormat::ChannelsLast && format != MemoryFormat::ChannelsLast3d) ||
      sizes.size() != rank_of(format))
    return false;
  if (strides[1] == 0) return false;  // a trivial C dimension: NCHW by default
  int64_t min = 0;
  for (int64_t d : channels_last_order(sizes.size())) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    // N111-like ambiguity falls back to NCHW (LibTorch's rule).
    if (d == 0 && min == strides[1]) return false;
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

}  // namespace ember
