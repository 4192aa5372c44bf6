// Complex tensors: is_complex, the dtype-changing views view_as_real/view_as_complex (metadata
// only, so every strided backend gets them), real/imag through them, conj/resolve_conj, and
// complex/polar built from other operators. See Note [Complex tensors] in ember/native/Rules.h.
#include "Composite.h"

namespace ember::native {
namespace {

// A view of base's storage with another dtype; `replay` redoes it (as_strided cannot, since it
// keeps the dtype; Note [View records]).
Tensor dtype_view(const Tensor& base, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                  ViewStep::Fn replay) {
  TensorImpl* b = base.unsafeGetTensorImpl();
  auto impl = make_intrusive<TensorImpl>(b->storage(), dtype, sizes, strides, offset, base.layout());
  auto step = make_intrusive<const ViewStep>(b->view_step(), ViewGeometry::of(base),
                                             ViewGeometry{sizes, strides, offset}, std::move(replay));
  impl->set_view_record(b->is_view() ? IntrusivePtr<TensorImpl>(b->view_base()) : base.impl(), std::move(step));
  return Tensor(std::move(impl));
}

void check_complex_parts(const char* op, const Tensor& a, const Tensor& b, const char* an, const char* bn) {
  check_defined(op, a, an);
  check_defined(op, b, bn);
  EMBER_CHECK_TYPE(a.dtype() == kFloat32 || a.dtype() == kFloat64,
                   "[{}] expected both inputs to be float32 or float64, got {} for argument '{}'", op, a.dtype(), an);
  EMBER_CHECK_TYPE(a.dtype() == b.dtype(),
                   "[{}] expected object of scalar type {} but got scalar type {} for argument '{}'", op, a.dtype(),
                   b.dtype(), bn);
}

}  // namespace

bool is_complex(const Tensor& self) {
  check_defined("is_complex", self, "self");
  return is_complex_type(self.dtype());
}

Tensor view_as_real(const Tensor& self) {
  check_defined("view_as_real", self, "self");
  EMBER_CHECK_TYPE(is_complex_type(self.dtype()), "[view_as_real] is only supported for complex tensors, got {}",
                   self.dtype());
  DimVector sizes(self.sizes()), strides;
  for (int64_t s : self.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  return dtype_view(self, complex_to_real(self.dtype()), sizes, strides, 2 * self.storage_offset(),
                    [](const Tensor& in) { return ember::view_as_real(in); });
}

Tensor view_as_complex(const Tensor& self) {
  check_defined("view_as_complex", self, "self");
  const ScalarType dt = self.dtype();
  EMBER_CHECK_TYPE(dt == kFloat32 || dt == kFloat64,
                   "[view_as_complex] is only supported for float32 and float64 tensors, but got a tensor of "
                   "scalar type: {}",
                   dt);
  EMBER_CHECK(self.dim() != 0, "[view_as_complex] Input tensor must have one or more dimensions");
  EMBER_CHECK(self.size(-1) == 2, "[view_as_complex] Tensor must have a last dimension of size 2");
  EMBER_CHECK(self.stride(-1) == 1, "[view_as_complex] Tensor must have a last dimension with stride 1");
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes.pop_back();
  strides.pop_back();
  for (int64_t s : strides)
    EMBER_CHECK(s % 2 == 0, "[view_as_complex] Tensor must have a stride divisible by 2 for all but last dimension");
  EMBER_CHECK(self.storage_offset() % 2 == 0, "[view_as_complex] Tensor must have a storage_offset divisible by 2");
  for (auto& s : strides) s /= 2;
  const ScalarType cdt = dt == kFloat32 ? kComplex64 : kComplex128;
  return dtype_view(self, cdt, sizes, strides, self.storage_offset() / 2,
                    [](const Tensor& in) { return ember::view_as_complex(in); });
}

Tensor real(const Tensor& self) {
  check_defined("real", self, "self");
  if (!is_complex_type(self.dtype())) return self;
  return ember::view_as_real(self).select(-1, 0);
}

Tensor imag(const Tensor& self) {
  check_defined("imag", self, "self");
  EMBER_CHECK_TYPE(is_complex_type(self.dtype()), "[imag] is not implemented for tensors with non-complex dtypes.");
  return ember::view_as_real(self).select(-1, 1);
}

Tensor conj(const Tensor& self) {
  check_defined("conj", self, "self");
  return is_complex_type(self.dtype()) ? ember::conj_physical(self) : self;
}

Tensor resolve_conj(const Tensor& self) {
  check_defined("resolve_conj", self, "self");
  return self;
}

Tensor complex(const Tensor& real, const Tensor& imag) {
  check_complex_parts("complex", real, imag, "real", "imag");
  const DimVector shape = broadcast_shapes(real.sizes(), imag.sizes(), "complex");
  const Tensor parts = ember::stack({real.expand(shape), imag.expand(shape)}, -1);
  return ember::view_as_complex(parts);
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  check_complex_parts("polar", abs, angle, "abs", "angle");
  return ember::complex(ember::mul(abs, ember::cos(angle)), ember::mul(abs, ember::sin(angle)));
}

}  // namespace ember::native
