// Factories: empty, empty_strided, arange, fill_, zero_ (CPU), and the device-generic zeros,
// ones, full and *_like are composites in libember (api/src/native/factories.cpp).
#include <cmath>

#include "Loops.h"
#include "CPUKernels.h"
#include "ember/native/Rules.h"
#include "ember/generated/Functions.h"

namespace ember::cpu {
namespace {

const char* layout_name(Layout l) {
  return l == kStrided ? "strided" : l == kSparse ? "sparse" : "sparse_csr";
}

}  // namespace

HostAllocator* check_factory(const char* op, OptLayout layout, OptDevice device, OptBool pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == kStrided,
                              "[{}] layout {} is not supported by the cpu plugin (only strided)", op,
                              layout_name(*layout));
  EMBER_CHECK(!device || device->type() == kCPU, "[{}] the cpu kernel was asked for a tensor on {}", op,
              *device);
  return pin_memory.value_or(false) ? host_allocator_for(std::nullopt, op) : nullptr;  // the error names op
}

Tensor pinned_result(Tensor r, OptBool pin_memory) { return pin_memory.value_or(false) ? ember::_pin_memory(r) : r; }

Tensor empty(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
             std::optional<MemoryFormat> memory_format) {
  const ScalarType dt = dtype ? *dtype : get_default_dtype();
  if (EMBER_UNLIKELY(layout || pin_memory || (device && device->type() != kCPU)))
    if (HostAllocator* pinned = check_factory("empty", layout, device, pin_memory))
      return native::empty_strided_with(
          pinned, kCPU, size, memory_format_strides(size, memory_format.value_or(MemoryFormat::Contiguous), "empty"),
          dt);
  if (EMBER_UNLIKELY(memory_format && *memory_format != MemoryFormat::Contiguous))
    return empty_strided_cpu(size, memory_format_strides(size, *memory_format, "empty"), dt);
  return empty_cpu(size, dt);
}

Tensor& resize_(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  native::resize_tensor(self, size, memory_format);
  return self;
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout layout, OptDevice device,
                     OptBool pin_memory) {
  const ScalarType dt = dtype ? *dtype : get_default_dtype();
  if (HostAllocator* pinned = check_factory("empty_strided", layout, device, pin_memory))
    return native::empty_strided_with(pinned, kCPU, size, stride, dt);
  return empty_strided_cpu(size, stride, dt);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype,
              OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_factory("arange", layout, device, pin_memory);
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const ScalarType dt = dtype.value_or(integral ? kInt64 : get_default_dtype());
  if (dt == kBool) throw_unsupported_dtype("arange", dt);
  const Tensor result = visit_dtype(dt, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // LibTorch's accumulate types: int64 for integers, double for float and double, float for
    // float16 and bfloat16; the length is computed in double from the Scalars except for int64.
    using Acc =
        std::conditional_t<std::is_integral_v<T>, int64_t, std::conditional_t<is_reduced_float_v<T>, float, double>>;
    const int64_t n = native::arange_length(start, end, step, dt);  // checks the range
    const Acc xs = scalar_to<Acc>(start), xstep = scalar_to<Acc>(step);
    Tensor out = empty_cpu({n}, dt);
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(static_cast<Acc>(xs + xstep * static_cast<Acc>(i)));
    return out;
  });
  return pinned_result(result, pin_memory);
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  check_defined("fill_", self, "self");
  check_cpu("fill_", self);
  visit_dtype_c(self.dtype(), "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = checked_scalar_to<T>(value, "fill_");
    if (self.is_contiguous()) {
      T* p = static_cast<T*>(self.data_ptr());
      parallel_for(0, self.numel(), kGrainSize, [&](int64_t b, int64_t e) { std::fill_n(p + b, e - b, v); });
      return;
    }
    TensorIter it("fill_");
    it.add_output(&self, self.dtype()).check_mem_overlap(false).build();
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      if (s[0] == int64_t{sizeof(T)}) {
        std::fill_n(reinterpret_cast<T*>(d[0]), n, v);
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(d[0] + i * s[0]) = v;
      }
    });
  });
  return self;
}

Tensor& zero_(Tensor& self) {
  check_defined("zero_", self, "self");
  if (self.is_contiguous() && self.is_cpu() && !is_quantized_type(self.dtype())) {
    // All-zero bits is 0 in every dtype. Split so that each thread first-touches its own pages.
    char* p = static_cast<char*>(self.data_ptr());
    parallel_for(0, static_cast<int64_t>(self.nbytes()), 4 * kGrainSize,
                 [&](int64_t b, int64_t e) { std::memset(p + b, 0, static_cast<size_t>(e - b)); });
    return self;
  }
  return cpu::fill_(self, Scalar(int64_t{0}));
}








}  // namespace ember::cpu
