// Host half of the GPU shape kernels (Note [GPU index maps] in kernels/shape.cu): flip, roll,
// constant, reflection and replication padding with their backwards, tril/triu; and the device-
// generic compositions the cpu plugin also has: the view scatters, copy and fill with a tensor.
// Checks and result layouts are the cpu's (ember/native/IndexShapeRules.h, PadRules.h).
#include <complex>
#include <cstring>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/api/Operators.h"
#include "ember/core/Half.h"
#include "ember/generated/Functions.h"
#include "ember/native/IndexShapeRules.h"
#include "ember/native/NNRules.h"
#include "ember/native/PadRules.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {
namespace {

using native::DimVector;

// The identity map from `mapped` (the tensor iterated and written) to `source`, both of one
// dtype: every dimension Offset 0, which each op then changes.
gpu::RemapArgs remap_args(const char* op, const Tensor& mapped, const Tensor& source) {
  EMBER_CHECK_NOT_IMPLEMENTED(mapped.dim() <= gpu::kMaxDims, "[{}] the {} plugin takes at most {} dims", op,
                              gpu::kGpuLabel, gpu::kMaxDims);
  gpu::RemapArgs a;
  a.ndim = static_cast<int>(mapped.dim());
  a.numel = mapped.numel();
  for (int d = 0; d < a.ndim; ++d) {
    a.sizes[d] = mapped.size(d);
    a.mapped_strides[d] = mapped.stride(d);
    a.source_sizes[d] = source.size(d);
    a.source_strides[d] = source.stride(d);
  }
  a.mapped = static_cast<char*>(mapped.data_ptr());
  a.source = static_cast<char*>(source.data_ptr());
  a.itemsize = static_cast<int>(mapped.itemsize());
  a.dtype = static_cast<int8_t>(mapped.dtype());
  return a;
}

void launch_remap(const char* op, const gpu::RemapArgs& a, ScalarType dt) {
  check_launch(gpu::launch_remap(a, stream()), op, dt);
}

// value's bytes in dtype dt (the cpu's fill_ conversion: checked to fit).
void scalar_bytes(const Scalar& v, ScalarType dt, const char* op, uint64_t (&out)[2]) {
  native::check_scalar_fits(v, dt, op);
  auto put = [&](auto x) {
    static_assert(sizeof(x) <= sizeof(out));
    std::memcpy(out, &x, sizeof(x));
  };
  auto integral = [&](auto zero) {
    using T = decltype(zero);
    put(v.isFloatingPoint() ? static_cast<T>(static_cast<int64_t>(v.toDouble())) : static_cast<T>(v.toLong()));
  };
  switch (dt) {
    case kBool:
      return put(v.toBool());
    case kUInt8:
      return integral(uint8_t{});
    case kInt8:
      return integral(int8_t{});
    case kInt16:
      return integral(int16_t{});
    case kInt32:
      return integral(int32_t{});
    case kInt64:
      return integral(int64_t{});
    case kFloat16:
      return put(Half(static_cast<float>(v.toDouble())));
    case kBFloat16:
      return put(BFloat16(static_cast<float>(v.toDouble())));
    case kFloat32:
      return put(static_cast<float>(v.toDouble()));
    case kFloat64:
      return put(v.toDouble());
    case kComplex64: {
      const std::complex<double> c = v.toComplexDouble();
      return put(std::complex<float>(static_cast<float>(c.real()), static_cast<float>(c.imag())));
    }
    case kComplex128:
      return put(v.toComplexDouble());
    default:
      EMBER_THROW(NotImplementedError, "[{}] the {} plugin has no {} values", op, gpu::kGpuLabel, dt);
  }
}

// ---- padding -----------------------------------------------------------------------------------

// The [planes, D, H, W] map of a padding (native::pad::PadGeom) from the contiguous `padded` to
// the contiguous `unpadded`.
gpu::RemapArgs pad_args(const native::pad::PadGeom& g, bool reflect, const Tensor& padded, const Tensor& unpadded) {
  gpu::RemapArgs a;
  a.ndim = 4;
  a.numel = g.planes * g.out_plane();
  a.sizes[0] = a.source_sizes[0] = g.planes;
  a.mapped_strides[0] = g.out_plane();
  a.source_strides[0] = g.in_plane();
  for (int d = 0; d < 3; ++d) {
    a.sizes[d + 1] = g.out[d];
    a.source_sizes[d + 1] = g.in[d];
    a.shift[d + 1] = g.lo[d];
    a.mode[d + 1] = static_cast<int8_t>(reflect ? gpu::MapMode::Reflect : gpu::MapMode::Replicate);
  }
  for (int d = 3; d >= 1; --d) {  // contiguous
    a.mapped_strides[d] = d == 3 ? 1 : a.mapped_strides[d + 1] * a.sizes[d + 1];
    a.source_strides[d] = d == 3 ? 1 : a.source_strides[d + 1] * a.source_sizes[d + 1];
  }
  a.mapped = static_cast<char*>(padded.data_ptr());
  a.source = static_cast<char*>(unpadded.data_ptr());
  a.itemsize = static_cast<int>(padded.itemsize());
  a.dtype = static_cast<int8_t>(padded.dtype());
  return a;
}

Tensor pad_impl(const char* op, int64_t nd, bool reflect, const Tensor& self, IntArrayRef padding) {
  const native::pad::PadGeom g = native::pad::check_pad(op, gpu::kGpuDevice, self, nd, padding, reflect);
  OptionalDeviceGuard guard(device_of(self));
  const Tensor x = self.contiguous();
  Tensor out = empty_cuda(g.out_shape, self.dtype());
  if (out.numel() > 0) launch_remap(op, pad_args(g, reflect, out, x), self.dtype());
  return out;
}

// Each output gradient added into the input element it was read from, in float or double (complex
// as its real view: two more values per element).
Tensor pad_backward_impl(const char* op, int64_t nd, bool reflect, const Tensor& grad_output, const Tensor& self,
                         IntArrayRef padding) {
  const native::pad::PadGeom g =
      native::pad::check_pad_backward(op, gpu::kGpuDevice, grad_output, self, nd, padding, reflect);
  OptionalDeviceGuard guard(device_of(self));
  const bool complex = is_complex_type(self.dtype());
  const ScalarType ct = complex ? self.dtype() : native::nn::compute_float(self, op, "self");
  const Tensor go = grad_output.to(ct).contiguous();
  Tensor gi = ember::zeros(self.sizes(), TensorOptions().dtype(ct).device(self.device()));
  if (go.numel() > 0) {
    gpu::RemapArgs a = pad_args(g, reflect, go, gi);
    if (complex) {  // a trailing dimension of the two parts
      a.ndim = 5;
      a.sizes[4] = a.source_sizes[4] = 2;
      a.mapped_strides[4] = a.source_strides[4] = 1;
      for (int d = 0; d < 4; ++d) a.mapped_strides[d] *= 2, a.source_strides[d] *= 2;
      a.numel *= 2;
      a.dtype = ct == kComplex64 ? gpu::Float : gpu::Double;
    }
    check_launch(gpu::launch_remap_add(a, stream()), op, ct);
  }
  return gi.dtype() == self.dtype() ? gi : gi.to(self.dtype());
}

// ---- tril, triu ----------------------------------------------------------------------------------

void tri(const char* op, const Tensor& src, Tensor& dst, int64_t k, bool lower) {
  if (src.numel() == 0) return;
  gpu::RemapArgs a = remap_args(op, dst, src);
  a.band = lower ? gpu::Band::Lower : gpu::Band::Upper;
  a.diagonal = k;
  launch_remap(op, a, src.dtype());
}

Tensor tri_functional(const char* op, const Tensor& self, int64_t k, bool lower) {
  native::check_defined(op, self, "self");
  native::check_tri(op, self);
  OptionalDeviceGuard guard(device_of(self));
  Tensor r = empty_cuda(self.sizes(), self.dtype());
  tri(op, self, r, k, lower);
  return r;
}

Tensor& tri_inplace(const char* op, Tensor& self, int64_t k, bool lower) {
  native::check_defined(op, self, "self");
  native::check_tri(op, self);
  native::check_writable(op, self);
  OptionalDeviceGuard guard(device_of(self));
  tri(op, self, self, k, lower);  // each thread reads and writes its own element
  return self;
}

Tensor& tri_out(const char* op, const Tensor& self, int64_t k, bool lower, Tensor& out) {
  native::check_defined(op, self, "self");
  native::check_tri(op, self);
  native::prepare_same_out(op, gpu::kGpuDevice, self, out);
  OptionalDeviceGuard guard(device_of(self));
  if (native::same_storage(out, self)) return EMBER_GPU_NS::copy_(out, tri_functional(op, self, k, lower), false);
  tri(op, self, out, k, lower);
  return out;
}

// ---- the view scatters -----------------------------------------------------------------------------

// result = clone(self) with src copied into the view of result that `view_of` makes.
template <class ViewOf>
Tensor view_scatter(const char* op, const Tensor& self, const Tensor& src, ViewOf&& view_of) {
  native::check_defined(op, self, "self");
  native::check_defined(op, src, "src");
  Tensor view = view_of(self);
  native::check_view_scatter(op, gpu::kGpuDevice, self, src, view);
  OptionalDeviceGuard guard(device_of(self));
  Tensor r = ember::empty_like(self);
  EMBER_GPU_NS::copy_(r, self, false);
  view = view_of(r);
  EMBER_GPU_NS::copy_(view, src, false);
  return r;
}

Tensor& write_same_out(const char* op, const Tensor& self, const Tensor& result, Tensor& out) {
  native::prepare_same_out(op, gpu::kGpuDevice, self, out);
  return EMBER_GPU_NS::copy_(out, result, false);
}

}  // namespace

// ---- flip, roll --------------------------------------------------------------------------------------

Tensor flip(const Tensor& self, IntArrayRef dims) {
  native::check_defined("flip", self, "self");
  const DimVector w = native::wrap_dims(dims, self.dim(), "flip");
  OptionalDeviceGuard guard(device_of(self));
  Tensor out = ember::empty_like(self);
  if (out.numel() == 0) return out;
  gpu::RemapArgs a = remap_args("flip", out, self);
  if (self.dim() > 0)  // a 0-dim tensor accepts dim 0 and -1; there is nothing to reverse
    for (int64_t d : w) a.mode[d] = static_cast<int8_t>(gpu::MapMode::Flip);
  launch_remap("flip", a, self.dtype());
  return out;
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  native::check_defined("roll", self, "self");
  const DimVector wrapped = native::check_roll(self, shifts, dims);
  if (dims.empty()) {  // the flattened tensor, shaped back
    const int64_t d0 = 0;
    return EMBER_GPU_NS::roll(ember::reshape(self, {self.numel()}), shifts, IntArrayRef(&d0, 1)).view(self.sizes());
  }
  OptionalDeviceGuard guard(device_of(self));
  Tensor out = empty_cuda(self.sizes(), self.dtype());
  if (out.numel() == 0) return out;
  gpu::RemapArgs a = remap_args("roll", out, self);
  DimVector shift(static_cast<size_t>(self.dim()), 0);
  for (size_t i = 0; i < wrapped.size(); ++i) shift[wrapped[i]] += shifts[i];
  for (int64_t d = 0; d < self.dim(); ++d) {
    a.shift[d] = ((shift[d] % self.size(d)) + self.size(d)) % self.size(d);
    a.mode[d] = static_cast<int8_t>(gpu::MapMode::Roll);
  }
  launch_remap("roll", a, self.dtype());
  return out;
}

// ---- padding -------------------------------------------------------------------------------------

namespace {

Tensor constant_pad_impl(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const char* op = "constant_pad_nd";
  const std::vector<int64_t> shape = native::pad::constant_pad_shape(op, self, pad);
  OptionalDeviceGuard guard(device_of(self));
  Tensor out = empty_cuda(shape, self.dtype());
  gpu::RemapArgs a = remap_args(op, out, self);
  scalar_bytes(value, self.dtype(), op, a.fill);
  const int64_t n = static_cast<int64_t>(pad.size()) / 2;
  for (int64_t i = 0; i < n; ++i) a.shift[self.dim() - 1 - i] = pad[2 * i];
  if (out.numel() > 0) launch_remap(op, a, self.dtype());
  return out;
}

}  // namespace

#include "ember/native/PadEntryPoints.inc"

// ---- tril, triu ----------------------------------------------------------------------------------

Tensor tril(const Tensor& self, int64_t diagonal) { return tri_functional("tril", self, diagonal, true); }
Tensor& tril_(Tensor& self, int64_t diagonal) { return tri_inplace("tril_", self, diagonal, true); }
Tensor& tril_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return tri_out("tril", self, diagonal, true, out);
}
Tensor triu(const Tensor& self, int64_t diagonal) { return tri_functional("triu", self, diagonal, false); }
Tensor& triu_(Tensor& self, int64_t diagonal) { return tri_inplace("triu_", self, diagonal, false); }
Tensor& triu_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return tri_out("triu", self, diagonal, false, out);
}

// ---- the view scatters, copy, fill -------------------------------------------------------------------

#include "ember/native/ViewScatterEntryPoints.inc"

Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking) {
  native::check_defined("copy", self, "self");
  native::check_defined("copy", src, "src");
  OptionalDeviceGuard guard(device_of(self));
  Tensor r = empty_cuda(self.sizes(), self.dtype());
  return EMBER_GPU_NS::copy_(r, src, non_blocking);
}
Tensor& copy_out(const Tensor& self, const Tensor& src, bool non_blocking, Tensor& out) {
  return write_same_out("copy", self, EMBER_GPU_NS::copy(self, src, non_blocking), out);
}

Tensor fill_scalar(const Tensor& self, const Scalar& value) {
  native::check_defined("fill", self, "self");
  OptionalDeviceGuard guard(device_of(self));
  Tensor r = ember::empty_like(self);
  return EMBER_GPU_NS::fill_(r, value);
}

// A host value is a Scalar (checked to fit, as the cpu's); a device value is converted in by the
// copy kernel with no sync (so not checked to fit, as PyTorch's CUDA fill_), from a clone when it
// is part of self, into any self fill_ takes (an expanded one too).
Tensor& fill__tensor(Tensor& self, const Tensor& value) {
  native::check_defined("fill_", self, "self");
  native::check_defined("fill_", value, "value");
  native::check_fill_value(value);
  if (value.is_cpu()) return EMBER_GPU_NS::fill_(self, value.item());
  native::check_same_device("fill_", gpu::kGpuDevice, self, value);
  OptionalDeviceGuard guard(device_of(self));
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(self.dtype()) && !is_complex_type(value.dtype()),
                              "[fill_] the {} plugin fills complex tensors from a host value only", gpu::kGpuLabel);
  const Tensor v = native::same_storage(self, value) ? value.clone() : value;
  TensorIter it("fill_");
  it.add_output(&self, self.dtype()).add_input(v).check_mem_overlap(false).build();
  check_launch(gpu::launch_copy(kernel_iter(it), stream()), "fill_", self.dtype());
  return self;
}

}  // namespace ember::EMBER_GPU_NS
