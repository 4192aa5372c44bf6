// Factories and copies of the cuda plugin: empty, empty_strided, arange, linspace, eye, resize_,
// fill_, zero_, copy_ (within a device, between devices and with the host) and _local_scalar_dense.
#include <cstring>

#include "CUDAPlugin.h"
#include "ember/core/Event.h"
#include "ember/native/Rules.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/generated/Functions.h"

namespace ember::EMBER_GPU_NS {
namespace {

const char* layout_name(Layout l) { return l == kStrided ? "strided" : l == kSparse ? "sparse" : "sparse_csr"; }

// The device a factory allocates on (the current one for "cuda" with no index); checks that
// there is one.
Device factory_device(const char* op, OptLayout layout, OptDevice device, OptBool pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == kStrided,
                              "[{}] layout {} is not supported by the {} plugin (only strided)", op, gpu::kGpuLabel,
                              layout_name(*layout));
  EMBER_CHECK(!device || device->type() == gpu::kGpuDevice, "[{}] the {} kernel was asked for a tensor on {}", op,
              gpu::kGpuLabel, *device);
  EMBER_CHECK(!pin_memory.value_or(false), "[{}] only dense CPU tensors can be pinned; this one is on {}", op,
              gpu::kGpuLabel);
  const DeviceIndex index = device ? device->index() : -1;
  impl::check_device(op, index);
  return Device(gpu::kGpuDevice, index);
}

std::optional<Device> indexed(Device d) { return d.index() >= 0 ? std::optional<Device>(d) : std::nullopt; }

void memcpy_sync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, bool sync) {
  if (n == 0) return;
  const cudaStream_t s = stream();
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, kind, s));
  if (sync) EMBER_CUDA_CHECK(cudaStreamSynchronize(s));
}

// Whether `host` is in this plugin's pinned memory; if so its block is recorded on the current
// stream (Note [Copies between devices]).
bool record_pinned(const Tensor& host) {
  HostAllocator* a = find_host_allocator(gpu::kGpuDevice);
  return a != nullptr && host.has_storage() &&
         a->record_stream(host.unsafeGetTensorImpl()->storage()->data_ptr(), impl::current_stream(-1));
}

// Within one device: a memcpy when the bytes line up, else the conversion kernel.
void copy_same_device(Tensor& self, const Tensor& src) {
  if (self.dtype() == src.dtype() && self.sizes() == src.sizes() && self.is_contiguous() && src.is_contiguous() &&
      !native::partially_overlaps(self, src)) {
    if (self.data_ptr() != src.data_ptr())
      memcpy_sync(self.data_ptr(), src.data_ptr(), self.nbytes(), cudaMemcpyDeviceToDevice, false);
    return;
  }
  if (is_complex_type(self.dtype()) || is_complex_type(src.dtype())) {
    // Complex tensors are copied as their real views (the kernels have no complex types): real
    // into complex fills the real parts and zeroes the imaginary ones, complex into real keeps
    // the real parts, as PyTorch.
    if (is_complex_type(self.dtype()) && is_complex_type(src.dtype())) {
      Tensor d = ember::view_as_real(self);
      return copy_same_device(d, ember::view_as_real(src));
    }
    if (is_complex_type(self.dtype())) {
      EMBER_GPU_NS::zero_(self);
      Tensor d = ember::view_as_real(self).select(-1, 0);
      return copy_same_device(d, src);
    }
    return copy_same_device(self, ember::view_as_real(src).select(-1, 0));
  }
  TensorIter it("copy_");
  it.add_output(&self, self.dtype()).add_input(src).build();
  check_launch(gpu::launch_copy(kernel_iter(it), stream()), "copy_", self.dtype());
}

}  // namespace

Tensor empty(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory,
             std::optional<MemoryFormat> memory_format) {
  const Device d = factory_device("empty", layout, device, pin_memory);
  OptionalDeviceGuard guard(indexed(d));
  const ScalarType dt = dtype ? *dtype : get_default_dtype();
  if (memory_format && *memory_format != MemoryFormat::Contiguous)
    return empty_strided_cuda(size, memory_format_strides(size, *memory_format, "empty"), dt);
  return empty_cuda(size, dt);
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout layout, OptDevice device,
                     OptBool pin_memory) {
  const Device d = factory_device("empty_strided", layout, device, pin_memory);
  OptionalDeviceGuard guard(indexed(d));
  return empty_strided_cuda(size, stride, dtype ? *dtype : get_default_dtype());
}

namespace {

// The range fills (Note [GPU range fills] in kernels/Kernels.h): the cpu's lengths, checks and
// arithmetic, on the device. `second` is arange's step or linspace's end.
void check_range_dtype(const char* op, ScalarType dt) {
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool && !is_complex_type(dt), "[{}] not implemented for dtype {} on {}", op, dt,
                              gpu::kGpuLabel);
}

Tensor range_fill(const char* op, gpu::RangeKind kind, Device d, ScalarType dt, int64_t n, const Scalar& start,
                  const Scalar& second) {
  OptionalDeviceGuard guard(indexed(d));
  Tensor out = empty_cuda({n}, dt);
  gpu::RangeArgs a;
  a.kind = kind;
  a.out = static_cast<char*>(out.data_ptr());
  a.n = n;
  a.dtype = static_cast<int8_t>(dt);
  a.start = to_value(start, dt);
  (kind == gpu::RangeKind::Arange ? a.step : a.end) = to_value(second, dt);
  check_launch(gpu::launch_range(a, stream()), op, dt);
  return out;
}

}  // namespace

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype, OptLayout layout,
              OptDevice device, OptBool pin_memory) {
  const Device d = factory_device("arange", layout, device, pin_memory);
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const ScalarType dt = dtype.value_or(integral ? kInt64 : get_default_dtype());
  check_range_dtype("arange", dt);
  const int64_t n = native::arange_length(start, end, step, dt);  // checks the range
  return range_fill("arange", gpu::RangeKind::Arange, d, dt, n, start, step);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype, OptLayout layout,
                OptDevice device, OptBool pin_memory) {
  const Device d = factory_device("linspace", layout, device, pin_memory);
  EMBER_CHECK(steps >= 0, "[linspace] number of steps must be non-negative, got {}", steps);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  check_range_dtype("linspace", dt);
  return range_fill("linspace", gpu::RangeKind::Linspace, d, dt, steps, start, end);
}

Tensor eye_m(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  const Device d = factory_device("eye", layout, device, pin_memory);
  native::check_eye(n, m);
  OptionalDeviceGuard guard(indexed(d));
  Tensor out = empty_cuda({n, m}, dtype.value_or(get_default_dtype()));
  EMBER_GPU_NS::zero_(out);
  Tensor diag = ember::diagonal(out, 0, 0, 1);
  if (diag.numel() > 0) EMBER_GPU_NS::fill_(diag, Scalar(int64_t{1}));
  return out;
}

Tensor eye(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return EMBER_GPU_NS::eye_m(n, n, dtype, layout, device, pin_memory);
}

Tensor& resize_(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  OptionalDeviceGuard guard(indexed(self.device()));
  native::resize_tensor(self, size, memory_format);
  return self;
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  native::check_defined("fill_", self, "self");
  native::check_scalar_fits(value, self.dtype(), "fill_");
  OptionalDeviceGuard guard(indexed(self.device()));
  TensorIter it("fill_");
  it.add_output(&self, self.dtype()).check_mem_overlap(false).build();
  const ScalarType c = compute_dtype(self.dtype());
  check_launch(gpu::launch_fill(to_dt(c), kernel_iter(it), to_value(value, c), stream()), "fill_", c);
  return self;
}

Tensor& zero_(Tensor& self) {
  native::check_defined("zero_", self, "self");
  OptionalDeviceGuard guard(indexed(self.device()));
  if (self.is_contiguous()) {  // all-zero bits is 0 in every dtype
    if (self.nbytes() > 0) EMBER_CUDA_CHECK(cudaMemsetAsync(self.data_ptr(), 0, self.nbytes(), stream()));
    return self;
  }
  return EMBER_GPU_NS::fill_(self, Scalar(int64_t{0}));
}

// Note [Copies between devices]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Any copy with a cuda side lands here (the dispatch key set of copy_ is the union of both
// tensors'). Broadcasting, dtype conversion and strides are done by the conversion kernel on a
// device; the host and other devices only ever exchange contiguous bytes:
// - host to device: src made contiguous on the host, copied as it is, then converted into self;
// - device to host: src converted and broadcast into a contiguous tensor of self's dtype and
//   sizes on its device, copied, then (when self is not contiguous) copied into self on the host;
// - device to device: the same, with cudaMemcpyPeerAsync between the two, ordered by events.
// Without non_blocking a copy to or from the host waits for it, as LibTorch's: pageable memory
// (the driver stages it) and pinned memory alike, including memory pinned outside Ember
// (cudaHostRegister), which the device reads while the caller may already write it. With
// non_blocking, a copy between the device and pinned memory of this plugin's host allocator (Note
// [Pinned host memory]) returns at once, its block recorded on the stream so that it is not reused
// before the copy is done; from pageable memory it still returns once the driver has staged it.
Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  native::check_defined("copy_", self, "self");
  native::check_defined("copy_", src, "src");
  if (self.is_same(src)) return self;
  const bool dst_cuda = self.device().type() == gpu::kGpuDevice, src_cuda = src.device().type() == gpu::kGpuDevice;
  EMBER_CHECK((dst_cuda || self.is_cpu()) && (src_cuda || src.is_cpu()),
              "[copy_] the {} plugin copies between {} and cpu tensors, not from {} to {}", gpu::kGpuLabel,
              gpu::kGpuLabel, src.device(), self.device());
  native::broadcast_shapes(self.sizes(), src.sizes(), "copy_");  // checks src broadcasts to self
  if (self.numel() == 0) return self;

  if (dst_cuda && src_cuda && self.device() == src.device()) {
    OptionalDeviceGuard guard(indexed(self.device()));
    copy_same_device(self, src);
    return self;
  }
  if (dst_cuda && !src_cuda) {
    OptionalDeviceGuard guard(indexed(self.device()));
    const Tensor host = src.contiguous();
    Tensor staged = self.is_contiguous() && self.dtype() == src.dtype() && self.sizes() == src.sizes()
                        ? self
                        : empty_cuda(src.sizes(), src.dtype());
    if (non_blocking) (void)record_pinned(host);
    memcpy_sync(staged.data_ptr(), host.data_ptr(), host.nbytes(), cudaMemcpyHostToDevice, !non_blocking);
    if (!staged.is_same(self)) copy_same_device(self, staged);
    return self;
  }
  // From a device: src as self's dtype and sizes, contiguous, on src's device.
  Tensor packed;
  {
    OptionalDeviceGuard guard(indexed(src.device()));
    if (src.dtype() == self.dtype() && src.sizes() == self.sizes() && src.is_contiguous()) {
      packed = src;
    } else {
      packed = empty_cuda(self.sizes(), self.dtype());
      copy_same_device(packed, src);
    }
    if (!dst_cuda) {
      if (self.is_contiguous()) {
        const bool async = non_blocking && record_pinned(self);
        memcpy_sync(self.data_ptr(), packed.data_ptr(), packed.nbytes(), cudaMemcpyDeviceToHost, !async);
      } else {
        Tensor host = ember::empty(self.sizes(), TensorOptions().dtype(self.dtype()));
        memcpy_sync(host.data_ptr(), packed.data_ptr(), packed.nbytes(), cudaMemcpyDeviceToHost, true);
        self.copy_(host);
      }
      return self;
    }
  }
  // Across devices, without the host waiting (PyTorch's two-way barrier): the copy runs on src's
  // current stream once dst's current stream has reached this point, and dst's stream then waits
  // for the copy. Each buffer is freed in order on the stream that last used it.
  const DeviceIndex di = self.device().index(), si = src.device().index();
  Tensor staged;
  {
    OptionalDeviceGuard guard(indexed(self.device()));
    staged = self.is_contiguous() ? self : empty_cuda(self.sizes(), self.dtype());
  }
  const Stream dst_stream = impl::current_stream(di), src_stream = impl::current_stream(si);
  stream_wait(src_stream, dst_stream);
  {
    OptionalDeviceGuard guard(indexed(src.device()));
    EMBER_CUDA_CHECK(
        cudaMemcpyPeerAsync(staged.data_ptr(), di, packed.data_ptr(), si, packed.nbytes(), impl::native(src_stream)));
  }
  stream_wait(dst_stream, src_stream);
  if (!staged.is_same(self)) {
    OptionalDeviceGuard guard(indexed(self.device()));
    copy_same_device(self, staged);
  }
  return self;
}

Scalar item(const Tensor& self) {
  native::check_item(self);
  return EMBER_GPU_NS::_local_scalar_dense(self);
}

Scalar _local_scalar_dense(const Tensor& self) {
  native::check_defined("_local_scalar_dense", self, "self");
  EMBER_CHECK(self.numel() == 1, "[_local_scalar_dense] a Tensor with {} elements cannot be converted to Scalar",
              self.numel());
  Tensor host = ember::empty({}, TensorOptions().dtype(self.dtype()));
  {
    OptionalDeviceGuard guard(indexed(self.device()));
    memcpy_sync(host.data_ptr(), self.data_ptr(), self.itemsize(), cudaMemcpyDeviceToHost, true);
  }
  return host.item();
}

}  // namespace ember::EMBER_GPU_NS
