#pragma once
// The index tensors of an advanced-indexing call (index, index_put_), one per dim of self, as
// every backend reads them before native::index_geometry (ember/native/Rules.h).
#include <optional>
#include <vector>

#include "ember/native/Rules.h"

namespace ember::native {

// `indices` checked (same device as self, int64 or a mask of self's sizes where it stands) and
// expanded: undefined where a dim is not indexed, a mask replaced by the columns of
// mask_columns(mask) (its nonzero(), as PyTorch does; a backend without values raises there).
template <class MaskColumns>
std::vector<Tensor> index_tensors(const char* op, DeviceType dev, const Tensor& self,
                                  const std::vector<std::optional<Tensor>>& indices, MaskColumns&& mask_columns) {
  std::vector<Tensor> idx;
  for (const auto& oi : indices) {
    if (!oi || !oi->defined()) {
      idx.emplace_back();
      continue;
    }
    const Tensor& t = *oi;
    check_same_device(op, dev, self, t);
    if (is_mask_index(t)) {
      check_index_mask(op, self, t, static_cast<int64_t>(idx.size()));
      const Tensor nz = mask_columns(t);
      for (int64_t j = 0; j < nz.size(1); ++j) idx.push_back(nz.select(1, j));
      continue;
    }
    check_long_index(op, t);
    idx.push_back(t);
  }
  return idx;
}

}  // namespace ember::native
