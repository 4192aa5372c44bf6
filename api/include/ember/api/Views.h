#pragma once
// Replaying a recorded view on another tensor (Note [View records] in ember/core/TensorImpl.h):
// what autograd's CopySlices does with the base's gradient when an in-place op hits a view.
#include "ember/dispatcher/Tensor.h"

namespace ember::detail {

// The view `info` describes, redone on `new_base` (a tensor with the root base's sizes and
// strides, e.g. a fresh one of the base's shape when the base is contiguous). The as_strided
// steps and the recorded replay functions dispatch, so autograd can record them.
EMBER_API Tensor replay_view(const ViewInfo& info, const Tensor& new_base);

}  // namespace ember::detail
