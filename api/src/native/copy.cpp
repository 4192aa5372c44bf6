// Device-generic copies and conversions: _to_copy, clone (empty + copy_), and to, cpu,
// contiguous (CompositeImplicitAutograd).
#include "Composite.h"

namespace ember::native {

Tensor _to_copy(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
                bool non_blocking) {
  check_defined("_to_copy", self, "self");
  if (self.layout() != kStrided) return sparse_to_copy(self, dtype, layout, device, pin_memory);
  Tensor r = ember::empty_like(self, dtype, layout, device, pin_memory);
  r.copy_(self, non_blocking);
  return r;
}

Tensor clone(const Tensor& self) {
  check_defined("clone", self, "self");
  if (self.layout() != kStrided) return sparse_to_copy(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  Tensor r = ember::empty_like(self);
  r.copy_(self);
  return r;
}

Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy) {
  check_defined("to", self, "self");
  if (self.dtype() == dtype && !copy) return self;
  return ember::_to_copy(self, dtype, std::nullopt, std::nullopt, std::nullopt, non_blocking);
}

Tensor to_device(const Tensor& self, Device device, OptDtype dtype, bool non_blocking, bool copy) {
  check_defined("to", self, "self");
  const ScalarType dt = dtype.value_or(self.dtype());
  const Device cur = self.device();
  // A device without an index matches any index of its type; the CPU has only one.
  const bool same_device =
      cur.type() == device.type() && (device.type() == kCPU || !device.has_index() || device.index() == cur.index());
  if (same_device && dt == self.dtype() && !copy) return self;
  return ember::_to_copy(self, dt, std::nullopt, device, std::nullopt, non_blocking);
}

Tensor to_cpu(const Tensor& self) { return native::to_device(self, Device(kCPU), std::nullopt, false, false); }

Tensor contiguous(const Tensor& self) {
  check_defined("contiguous", self, "self");
  if (self.is_contiguous()) return self;
  // A quantized copy keeps the quantizer (empty_like of a quantized tensor is contiguous).
  Tensor r = self.is_quantized() ? ember::empty_like(self) : ember::empty(self.sizes(), self.options());
  r.copy_(self);
  return r;
}

}  // namespace ember::native
