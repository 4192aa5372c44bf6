// Device-generic copies and conversions: _to_copy, clone (empty_like + copy_), and to, cpu,
// contiguous (CompositeImplicitAutograd). Memory formats: Note [Memory formats].
#include "Composite.h"

namespace ember::native {

namespace {

void check_strided_format(const char* op, const Tensor& self, OptMemoryFormat memory_format) {
  EMBER_CHECK(self.layout() == kStrided || memory_format.value_or(MemoryFormat::Preserve) == MemoryFormat::Preserve,
              "[{}] memory format option is only supported by strided tensors", op);
}

// LibTorch's to_impl: self itself when nothing would change, else _to_copy.
Tensor to_impl(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
               bool non_blocking, bool copy, OptMemoryFormat memory_format) {
  check_defined("to", self, "self");
  const Device cur = self.device();
  // A device without an index matches any index of its type; the CPU has only one.
  const bool same_device =
      !device || (cur.type() == device->type() &&
                  (device->type() == kCPU || !device->has_index() || device->index() == cur.index()));
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  if (!copy && same_device && dtype.value_or(self.dtype()) == self.dtype() &&
      layout.value_or(self.layout()) == self.layout() &&
      (format == MemoryFormat::Preserve || self.suggest_memory_format() == format))
    return self;
  return ember::_to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format);
}

}  // namespace

Tensor _to_copy(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
                bool non_blocking, OptMemoryFormat memory_format) {
  check_defined("_to_copy", self, "self");
  check_strided_format("_to_copy", self, memory_format);
  if (self.layout() != kStrided) return sparse_to_copy(self, dtype, layout, device, pin_memory);
  // As LibTorch: a non_blocking copy from a GPU to the host lands in pinned memory, without
  // which it could not be asynchronous.
  if (non_blocking && device && device->type() == kCPU && layout.value_or(kStrided) == kStrided &&
      find_host_allocator(self.device().type()) != nullptr)
    pin_memory = true;
  Tensor r = ember::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  r.copy_(self, non_blocking);
  return r;
}

bool is_pinned(const Tensor& self, OptDevice device) {
  check_defined("is_pinned", self, "self");
  // Only dense CPU tensors can be pinned; asking about another device's tensor is not an error.
  if (!self.is_cpu() || self.layout() != kStrided || !self.has_storage() || self.data_ptr() == nullptr) return false;
  if (device) {
    const HostAllocator* a = host_allocator_for(device, "is_pinned");
    return a->is_pinned(self.data_ptr());
  }
  for (DeviceType t : {kCUDA, kHIP})
    if (const HostAllocator* a = find_host_allocator(t); a != nullptr && a->is_pinned(self.data_ptr())) return true;
  return false;
}

Tensor _pin_memory(const Tensor& self, OptDevice device) {
  check_defined("_pin_memory", self, "self");
  EMBER_CHECK(self.is_cpu() && self.layout() == kStrided && !self.is_quantized(),
              "[_pin_memory] cannot pin a {} tensor on {}: only dense CPU tensors can be pinned",
              self.is_quantized()         ? "quantized"
              : self.layout() == kStrided ? "strided"
                                          : "sparse",
              self.device());
  HostAllocator* a = host_allocator_for(device, "pin_memory");
  // Strides as empty_like's preserve_format: kept when dense, else dense in the same order.
  const DimVector dense = infer_dense_strides(self.sizes(), self.strides());
  Tensor r = empty_strided_with(a, kCPU, self.sizes(),
                                is_non_overlapping_and_dense(self) ? self.strides() : IntArrayRef(dense), self.dtype());
  r.copy_(self);
  return r;
}

Tensor pin_memory(const Tensor& self, OptDevice device) {
  check_defined("pin_memory", self, "self");
  if (self.is_cpu() && self.layout() == kStrided) {
    const HostAllocator* a = host_allocator_for(device, "pin_memory");
    if (self.has_storage() && self.data_ptr() != nullptr && a->is_pinned(self.data_ptr())) return self;
  }
  return ember::_pin_memory(self, device);
}

Tensor clone(const Tensor& self, OptMemoryFormat memory_format) {
  check_defined("clone", self, "self");
  check_strided_format("clone", self, memory_format);
  if (self.layout() != kStrided) return sparse_to_copy(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  Tensor r = ember::empty_like(self, {}, memory_format);
  r.copy_(self);
  return r;
}

Tensor to_dtype_layout(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
                       bool non_blocking, bool copy, OptMemoryFormat memory_format) {
  return to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format);
}

Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy, OptMemoryFormat memory_format) {
  return to_impl(self, dtype, std::nullopt, std::nullopt, std::nullopt, non_blocking, copy, memory_format);
}

Tensor to_device(const Tensor& self, Device device, ScalarType dtype, bool non_blocking, bool copy,
                 OptMemoryFormat memory_format) {
  return to_impl(self, dtype, std::nullopt, device, std::nullopt, non_blocking, copy, memory_format);
}

Tensor to_other(const Tensor& self, const Tensor& other, bool non_blocking, bool copy, OptMemoryFormat memory_format) {
  check_defined("to", other, "other");
  return to_impl(self, other.dtype(), other.layout(), other.device(), std::nullopt, non_blocking, copy, memory_format);
}

Tensor to_cpu(const Tensor& self) {
  return to_impl(self, std::nullopt, std::nullopt, Device(kCPU), std::nullopt, false, false, std::nullopt);
}

Tensor to_cuda(const Tensor& self) {
  return to_impl(self, std::nullopt, std::nullopt, Device(kCUDA), std::nullopt, false, false, std::nullopt);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  check_defined("contiguous", self, "self");
  if (self.is_contiguous(memory_format)) return self;
  EMBER_CHECK(memory_format != MemoryFormat::Preserve,
              "[contiguous] preserve memory format is unsupported by the contiguous operator");
  // A quantized copy keeps the quantizer (empty_like of a quantized tensor is contiguous).
  Tensor r = self.is_quantized() ? ember::empty_like(self, {}, memory_format)
                                 : ember::empty(self.sizes(), self.options(), memory_format);
  r.copy_(self);
  return r;
}

}  // namespace ember::native
