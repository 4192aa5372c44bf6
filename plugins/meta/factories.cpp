// Meta factories and fills (plugins/cpu/factories.cpp): empty, empty_strided, arange, fill_ and
// zero_. The device-generic zeros, ones, full and *_like are composites in libember.
#include "MetaHelpers.h"

namespace ember::meta {

Tensor empty(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
             std::optional<MemoryFormat> memory_format) {
  check_factory("empty", layout, device, pin_memory);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  if (memory_format && *memory_format != MemoryFormat::Contiguous)
    return native::empty_strided_on(kMeta, size, memory_format_strides(size, *memory_format, "empty"), dt);
  return empty_meta(size, dt);
}

Tensor& resize_(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  native::resize_tensor(self, size, memory_format);
  return self;
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout layout, OptDevice device,
                     OptBool pin_memory) {
  check_factory("empty_strided", layout, device, pin_memory);
  return native::empty_strided_on(kMeta, size, stride, dtype.value_or(get_default_dtype()));
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype, OptLayout layout,
              OptDevice device, OptBool pin_memory) {
  check_factory("arange", layout, device, pin_memory);
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const ScalarType dt = dtype.value_or(integral ? kInt64 : get_default_dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool && !is_complex_type(dt), "[arange] not implemented for dtype {} on the CPU",
                              dt);
  return empty_meta({native::arange_length(start, end, step, dt)}, dt);
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  native::check_defined("fill_", self, "self");
  native::check_scalar_fits(value, self.dtype(), "fill_");
  return self;
}

Tensor& zero_(Tensor& self) {
  native::check_defined("zero_", self, "self");
  return self;
}

}  // namespace ember::meta
