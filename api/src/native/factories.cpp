// Device-generic factories: zeros, ones, full, *_like (they dispatch empty and fill_), and
// rand, randn, randint (empty, then the backend's in-place random fill).
#include "Composite.h"

namespace ember::native {

namespace {
// The factory's own checks, before it dispatches empty (so errors name it, not empty).
void check_factory(const char* op, IntArrayRef size, OptBool pin_memory, OptDevice device) {
  check_pin_memory(op, pin_memory, device);
  for (int64_t s : size) EMBER_CHECK(s >= 0, "[{}] negative dimension {} in size {}", op, s, size);
}

// The uninitialised result of a floating random factory, after the factory's own checks.
Tensor empty_floating(const char* op, IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device,
                      OptBool pin_memory) {
  check_factory(op, size, pin_memory, device);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  check_floating_fill(op, dt);
  return ember::empty(size, make_options(dt, layout, device, pin_memory));
}
}  // namespace

Tensor zeros(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_pin_memory("zeros", pin_memory, device);
  Tensor t = ember::empty(size, make_options(dtype, layout, device, pin_memory));
  t.zero_();
  return t;
}

// LibTorch's default is the default dtype whatever the scalar (scalar_tensor(3) is float32).
Tensor scalar_tensor(const Scalar& s, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_pin_memory("scalar_tensor", pin_memory, device);
  Tensor t = ember::empty({}, make_options(dtype.value_or(get_default_dtype()), layout, device, pin_memory));
  t.fill_(s);
  return t;
}

Tensor ones(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_pin_memory("ones", pin_memory, device);
  Tensor t = ember::empty(size, make_options(dtype, layout, device, pin_memory));
  t.fill_(1);
  return t;
}

Tensor full(IntArrayRef size, const Scalar& fill_value, OptDtype dtype, OptLayout layout, OptDevice device,
            OptBool pin_memory) {
  check_pin_memory("full", pin_memory, device);
  // LibTorch infers the dtype from the value: bool, int64, or the default floating dtype.
  ScalarType dt = dtype                          ? *dtype
                  : fill_value.isBoolean()       ? kBool
                  : fill_value.isIntegral(false) ? kInt64
                  : fill_value.isComplex()       ? (get_default_dtype() == kFloat64 ? kComplex128 : kComplex64)
                                                 : get_default_dtype();
  Tensor t = ember::empty(size, make_options(dt, layout, device, pin_memory));
  t.fill_(fill_value);
  return t;
}

Tensor empty_like(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
                  OptMemoryFormat memory_format) {
  check_defined("empty_like", self, "self");
  check_pin_memory("empty_like", pin_memory, device ? device : std::optional<Device>(self.device()));
  const TensorOptions o = self.options().merged(make_options(dtype, layout, device, pin_memory));
  EMBER_CHECK(o.layout_opt().value_or(kStrided) == kStrided || !memory_format,
              "[empty_like] memory format option is only supported by strided tensors");
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  // A quantized result takes self's quantizer (LibTorch's empty_like): the quantized plugin's
  // factories make it.
  if (self.is_quantized() && is_quantized_type(o.dtype_or(self.dtype()))) {
    EMBER_CHECK(o.dtype_or(self.dtype()) == self.dtype(), "[empty_like] dtype {} differs from the quantized input's {}",
                o.dtype_or(self.dtype()), self.dtype());
    EMBER_CHECK_NOT_IMPLEMENTED(format == MemoryFormat::Preserve || format == MemoryFormat::Contiguous,
                                "[empty_like] memory format {} for a quantized tensor", format);
    if (self.qscheme() == kPerTensorAffine)
      return ember::_empty_affine_quantized(self.sizes(), o, self.q_scale(), self.q_zero_point());
    if (self.qscheme() == kPerChannelAffine)
      return ember::_empty_per_channel_affine_quantized(self.sizes(), self.q_per_channel_scales(),
                                                        self.q_per_channel_zero_points(), self.q_per_channel_axis(), o);
    EMBER_THROW(NotImplementedError, "[empty_like] quantized tensors of qscheme {}", to_string(self.qscheme()));
  }
  // LibTorch's preserve_format: a dense tensor's strides are kept (a transposed input gives a
  // transposed result), a non-dense strided one gets dense strides in the same order; anything
  // else the format suggest_memory_format() names.
  const bool strided = self.layout() == kStrided && o.layout_opt().value_or(kStrided) == kStrided;
  if (format == MemoryFormat::Preserve && strided) {
    if (is_non_overlapping_and_dense(self)) return ember::empty_strided(self.sizes(), self.strides(), o);
    return ember::empty_strided(self.sizes(), infer_dense_strides(self.sizes(), self.strides()), o);
  }
  if (format == MemoryFormat::Preserve) return ember::empty(self.sizes(), o, self.suggest_memory_format());
  return ember::empty(self.sizes(), o, format);
}

Tensor zeros_like(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
                  OptMemoryFormat memory_format) {
  Tensor t = native::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  t.zero_();
  return t;
}

Tensor ones_like(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
                 OptMemoryFormat memory_format) {
  Tensor t = native::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  t.fill_(1);
  return t;
}

Tensor full_like(const Tensor& self, const Scalar& fill_value, OptDtype dtype, OptLayout layout, OptDevice device,
                 OptBool pin_memory, OptMemoryFormat memory_format) {
  Tensor t = native::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  t.fill_(fill_value);
  return t;
}

Tensor rand_generator(IntArrayRef size, std::optional<Generator> generator, OptDtype dtype, OptLayout layout,
                      OptDevice device, OptBool pin_memory) {
  Tensor t = empty_floating("rand", size, dtype, layout, device, pin_memory);
  t.uniform_(0, 1, std::move(generator));
  return t;
}

Tensor rand(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return native::rand_generator(size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor randn_generator(IntArrayRef size, std::optional<Generator> generator, OptDtype dtype, OptLayout layout,
                       OptDevice device, OptBool pin_memory) {
  Tensor t = empty_floating("randn", size, dtype, layout, device, pin_memory);
  t.normal_(0, 1, std::move(generator));
  return t;
}

Tensor randn(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return native::randn_generator(size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor randint_low_generator(int64_t low, int64_t high, IntArrayRef size, std::optional<Generator> generator,
                             OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_factory("randint", size, pin_memory, device);
  EMBER_CHECK(low < high, "[randint] low >= high: expected low < high, got low={} and high={}", low, high);
  Tensor t = ember::empty(size, make_options(dtype.value_or(kInt64), layout, device, pin_memory));
  t.random_(low, high, std::move(generator));
  return t;
}

Tensor randint_low(int64_t low, int64_t high, IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device,
                   OptBool pin_memory) {
  return native::randint_low_generator(low, high, size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor randint_generator(int64_t high, IntArrayRef size, std::optional<Generator> generator, OptDtype dtype,
                         OptLayout layout, OptDevice device, OptBool pin_memory) {
  return native::randint_low_generator(0, high, size, std::move(generator), dtype, layout, device, pin_memory);
}

Tensor randint(int64_t high, IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return native::randint_low_generator(0, high, size, std::nullopt, dtype, layout, device, pin_memory);
}

}  // namespace ember::native
