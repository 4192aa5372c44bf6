// The meta copy_ (plugins/cpu/copy.cpp): the cpu kernel's checks and geometry, no data to write.
#include "MetaHelpers.h"

namespace ember::meta {

Tensor& copy_(Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  native::check_defined("copy_", self, "self");
  native::check_defined("copy_", src, "src");
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_meta(),
                              "[copy_] cannot copy out of a meta tensor into a tensor on {}: a meta tensor has no data",
                              self.device());
  if (self.is_same(src)) return self;
  // Any source may be copied into a meta tensor; its geometry is checked as the cpu kernel's.
  const Tensor s = src.is_meta() ? src : native::empty_strided_on(kMeta, src.sizes(), src.strides(), src.dtype());
  iterate("copy_", self, OutKind::InPlace, self.dtype(), {&s});
  return self;
}

}  // namespace ember::meta
