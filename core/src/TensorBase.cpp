#include "ember/core/TensorBase.h"

#include <atomic>

namespace ember {

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat32};
}  // namespace

ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(is_floating_type(t), "[set_default_dtype] expected a floating dtype, got {}", t);
  g_default_dtype.store(t, std::memory_order_relaxed);
}

int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-dim tensor accepts dim 0 and -1, as in PyTorch
  EMBER_CHECK_INDEX(dim >= -n && dim < n,
                    "[{}] dimension out of range (expected to be in range of [{}, {}], but got {})", op, -n, n - 1,
                    dim);
  return dim < 0 ? dim + n : dim;
}

void TensorBase::check_dtype(ScalarType want, const char* what) const {
  EMBER_CHECK(defined(), "[{}] called on an undefined tensor", what);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_meta(), "[{}] a meta tensor has no data (only sizes, strides and dtype)", what);
  EMBER_CHECK_TYPE(dtype() == want, "[{}] expected a tensor of dtype {} but it is {}", what, want, dtype());
}

bool TensorBase::is_contiguous_slow(MemoryFormat format) const {
  return layout() == kStrided && is_channels_last_contiguous(sizes(), strides(), format);
}

MemoryFormat TensorBase::suggest_memory_format(bool channels_last_strides_exact_match) const {
  if (layout() != kStrided) return MemoryFormat::Contiguous;
  for (MemoryFormat f : {MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d}) {
    if (!is_channels_last_strides(sizes(), strides(), f)) continue;
    if (!channels_last_strides_exact_match || IntArrayRef(memory_format_strides(sizes(), f)) == strides()) return f;
    break;
  }
  return MemoryFormat::Contiguous;
}

}  // namespace ember
