#include "ember/api/Views.h"

#include "ember/generated/Functions.h"

namespace ember::detail {
namespace {

// `to` (a recorded geometry) redone from `src`, whose recorded geometry was `from`: the same
// tensor when they match, else as_strided at the same offset relative to src.
Tensor redo(const Tensor& src, const ViewGeometry& from, const ViewGeometry& to) {
  if (from == to) return src;
  return as_strided(src, to.sizes, to.strides, src.storage_offset() + (to.storage_offset - from.storage_offset));
}

// The output of `step` redone from `new_root` (whose recorded geometry is `root`).
Tensor replay_step(const ViewStep& step, const Tensor& new_root, const ViewGeometry& root) {
  Tensor in = step.prev ? redo(replay_step(*step.prev, new_root, root), step.prev->out, step.in)
                        : redo(new_root, root, step.in);
  Tensor out = step.fn(in);
  EMBER_CHECK(out.defined(), "[replay_view] a view's replay function returned an undefined tensor");
  return out;
}

}  // namespace

Tensor replay_view(const ViewInfo& info, const Tensor& new_base) {
  EMBER_CHECK(info.base.defined(), "[replay_view] the view record has no base");
  EMBER_CHECK(new_base.defined(), "[replay_view] the new base is an undefined tensor");
  EMBER_CHECK(new_base.sizes() == info.base.sizes() && new_base.strides() == info.base.strides(),
              "[replay_view] the new base must have the base's sizes and strides (the view is redone in the "
              "base's storage layout): base sizes {} strides {}, new base sizes {} strides {}",
              info.base.sizes(), info.base.strides(), new_base.sizes(), new_base.strides());
  const ViewGeometry root = ViewGeometry::of(info.base);
  const ViewGeometry view{info.sizes, info.strides, info.base.storage_offset() + info.storage_offset};
  if (!info.step)
    return as_strided(new_base, info.sizes, info.strides, new_base.storage_offset() + info.storage_offset);
  return redo(replay_step(*info.step, new_base, root), info.step->out, view);
}

}  // namespace ember::detail
