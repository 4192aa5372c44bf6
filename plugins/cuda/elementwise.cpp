// Host half of the cuda plugin's elementwise kernels: the families' metadata step (shared with
// cpu and meta, ember/native/ElementwiseMeta.h), then one launch of kernels/*.cu. See Note [GPU
// kernel interface] in kernels/Kernels.h.
#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/generated/Functions.h"
#include "ember/native/ElementwiseMeta.h"

namespace ember::EMBER_GPU_NS {

// ---- shared helpers ------------------------------------------------------------------------------

std::optional<Device> device_of(const Tensor& t) {
  if (t.defined() && t.device().type() == gpu::kGpuDevice) return t.device();
  return std::nullopt;
}

Tensor materialize(const Tensor& t) {
  Tensor r = empty_cuda(t.sizes(), t.dtype());
  EMBER_GPU_NS::copy_(r, t, false);
  return r;
}

gpu::Iter kernel_iter(const native::TensorIter& it) {
  gpu::Iter k;
  EMBER_CHECK_NOT_IMPLEMENTED(it.ndim() <= gpu::kMaxDims,
                              "[{}] the {} kernels take at most {} dimensions after merging contiguous ones, got {}",
                              it.op(), gpu::kGpuLabel, gpu::kMaxDims, it.ndim());
  k.ndim = it.ndim();
  k.nargs = it.ntensors();
  k.numel = it.numel();
  for (int d = 0; d < k.ndim; ++d) k.sizes[d] = it.shape()[static_cast<size_t>(d)];
  for (int a = 0; a < k.nargs; ++a) {
    const ScalarType dt = it.dtype(a);
    EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(dt) && !is_quantized_type(dt),
                                "[{}] the {} plugin has no kernels for {} tensors yet", it.op(), gpu::kGpuLabel, dt);
    k.data[a] = it.data(a);
    k.dtype[a] = static_cast<int8_t>(dt);
    for (int d = 0; d < k.ndim; ++d) k.strides[a][d] = it.strides(a)[static_cast<size_t>(d)];
  }
  return k;
}

gpu::Value to_value(const Scalar& s, ScalarType compute) {
  gpu::Value v;
  if (is_floating_type(compute))
    v.f = s.to<double>();
  else
    v.i = s.isFloatingPoint() ? static_cast<int64_t>(s.to<double>()) : s.to<int64_t>();
  return v;
}

void check_launch(bool launched, const char* op, ScalarType compute) {
  EMBER_CHECK_NOT_IMPLEMENTED(launched, "[{}] the {} plugin has no kernel computing in {}", op, gpu::kGpuLabel,
                              compute);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

Tensor scalar_tensor(const Scalar& value, ScalarType dtype) {
  Tensor t = empty_cuda({}, dtype);
  gpu::Iter k;
  k.nargs = 1;
  k.numel = 1;
  k.data[0] = static_cast<char*>(t.data_ptr());
  k.dtype[0] = static_cast<int8_t>(dtype);
  const ScalarType c = compute_dtype(dtype);
  check_launch(gpu::launch_fill(to_dt(c), k, to_value(value, c), stream()), "scalar_tensor", c);
  return t;
}

const Tensor* device_operand(const Tensor* t, Tensor& holder) {
  if (t == nullptr || !t->defined() || t->dim() != 0 || !t->is_cpu()) return t;
  holder = empty_cuda({}, t->dtype());
  EMBER_GPU_NS::copy_(holder, *t, false);
  return &holder;
}

namespace {

// ---- unary -------------------------------------------------------------------------------------

using U = native::UnaryKind;

template <U K>
void unary(const char* name, Tensor& out, OutKind ok, const Tensor& self) {
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, native::unary_rule_of(K), self, out, ok);
  const ScalarType cdt = compute_dtype(native::to_bool(K) ? self.dtype() : result);
  check_launch(gpu::launch_unary(static_cast<int>(K), to_dt(cdt), kernel_iter(it), stream()), name, cdt);
}

// ---- arithmetic and comparisons ------------------------------------------------------------------

void arith(const char* name, native::Arith kind, Tensor& out, OutKind ok, const Tensor& a, const Tensor* bt,
           const Scalar* bs, const Scalar& alpha) {
  OptionalDeviceGuard guard(device_of(a));
  Tensor holder;
  bt = device_operand(bt, holder);
  const ScalarType result = native::arith_result(name, kind, a, bt, bs, alpha);
  const ScalarType cdt = compute_dtype(result);
  Tensor b;
  if (bs) b = scalar_tensor(*bs, cdt);
  TensorIter it(name);
  native::binary_meta(it, name, result, a, bs ? &b : bt, out, ok);
  gpu::Value v = to_value(alpha, cdt);
  if (kind == native::Arith::Sub) v.f = -v.f, v.i = -v.i;
  const gpu::Binary k = kind == native::Arith::Mul   ? gpu::Binary::Mul
                        : kind == native::Arith::Div ? gpu::Binary::Div
                                                     : gpu::Binary::Add;
  check_launch(gpu::launch_binary(k, to_dt(cdt), kernel_iter(it), v, stream()), name, cdt);
}

void compare(const char* name, gpu::Binary kind, Tensor& out, OutKind ok, const Tensor& a, const Tensor* bt,
             const Scalar* bs) {
  OptionalDeviceGuard guard(device_of(a));
  Tensor holder;
  bt = device_operand(bt, holder);
  const ScalarType cdt = compute_dtype(native::compare_result(name, a, bt, bs));
  Tensor b;
  if (bs) b = scalar_tensor(*bs, cdt);
  TensorIter it(name);
  native::compare_meta(it, name, a, bs ? &b : bt, out, ok);
  check_launch(gpu::launch_binary(kind, to_dt(cdt), kernel_iter(it), {}, stream()), name, cdt);
}

// maximum/minimum and the bitwise family: the shared dtype rule, then one launch.
void binary_math(const char* name, gpu::Binary kind, native::BinaryMathRule rule, Tensor& out, OutKind ok,
                 const Tensor& a, const Tensor* bt, const Scalar* bs) {
  OptionalDeviceGuard guard(device_of(a));
  Tensor holder;
  bt = device_operand(bt, holder);
  const ScalarType result = native::binary_math_result(name, rule, &a, nullptr, bt, bs);
  const ScalarType cdt = compute_dtype(result);
  Tensor b;
  if (bs) b = scalar_tensor(*bs, cdt);
  TensorIter it(name);
  native::binary_meta(it, name, result, a, bs ? &b : bt, out, ok);
  check_launch(gpu::launch_binary(kind, to_dt(cdt), kernel_iter(it), {}, stream()), name, cdt);
}

// logical_and/or/xor: kBool (or 0/1 in the output's dtype), computed in the operands' common dtype.
void logical(const char* name, gpu::Binary kind, Tensor& out, OutKind ok, const Tensor& self, const Tensor& other) {
  OptionalDeviceGuard guard(device_of(self));
  Tensor holder;
  const Tensor* o = device_operand(&other, holder);
  TensorIter it(name);
  native::logical_meta(it, name, self, *o, out, ok);
  const ScalarType cdt = compute_dtype(result_type(self, *o));
  check_launch(gpu::launch_binary(kind, to_dt(cdt), kernel_iter(it), {}, stream()), name, cdt);
}

}  // namespace

#define EMBER_GPU_DEFINE_TT(fn, op, Kind, Rule)                                                                 \
  void fn(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                                 \
    binary_math(EMBER_VARIANT_NAME(op, kind), gpu::Binary::Kind, native::BinaryMathRule::Rule, out, kind, self, \
                &other, nullptr);                                                                               \
  }
#define EMBER_GPU_DEFINE_TS(fn, op, Kind, Rule)                                                                 \
  void fn(const Tensor& self, const Scalar& other, Tensor& out, OutKind kind) {                                 \
    binary_math(EMBER_VARIANT_NAME(op, kind), gpu::Binary::Kind, native::BinaryMathRule::Rule, out, kind, self, \
                nullptr, &other);                                                                               \
  }
EMBER_GPU_DEFINE_TT(maximum_out, "maximum", Maximum, Any)
EMBER_GPU_DEFINE_TT(minimum_out, "minimum", Minimum, Any)
EMBER_GPU_DEFINE_TT(bitwise_and_tensor_out, "bitwise_and", BitwiseAnd, Integral)
EMBER_GPU_DEFINE_TS(bitwise_and_scalar_out, "bitwise_and", BitwiseAnd, Integral)
EMBER_GPU_DEFINE_TT(bitwise_or_tensor_out, "bitwise_or", BitwiseOr, Integral)
EMBER_GPU_DEFINE_TS(bitwise_or_scalar_out, "bitwise_or", BitwiseOr, Integral)
EMBER_GPU_DEFINE_TT(bitwise_xor_tensor_out, "bitwise_xor", BitwiseXor, Integral)
EMBER_GPU_DEFINE_TS(bitwise_xor_scalar_out, "bitwise_xor", BitwiseXor, Integral)
#undef EMBER_GPU_DEFINE_TT
#undef EMBER_GPU_DEFINE_TS

#define EMBER_GPU_DEFINE_LOGICAL(name, Kind)                                             \
  void name##_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {  \
    logical(EMBER_VARIANT_NAME(#name, kind), gpu::Binary::Kind, out, kind, self, other); \
  }
EMBER_GPU_DEFINE_LOGICAL(logical_and, LogicalAnd)
EMBER_GPU_DEFINE_LOGICAL(logical_or, LogicalOr)
EMBER_GPU_DEFINE_LOGICAL(logical_xor, LogicalXor)
#undef EMBER_GPU_DEFINE_LOGICAL

#define EMBER_GPU_DEFINE_UNARY(name, Kind)                            \
  void name##_out(const Tensor& self, Tensor& out, OutKind kind) {    \
    unary<U::Kind>(EMBER_VARIANT_NAME(#name, kind), out, kind, self); \
  }
EMBER_FORALL_UNARY_OUT_OPS(EMBER_GPU_DEFINE_UNARY)
#undef EMBER_GPU_DEFINE_UNARY

Tensor isfinite(const Tensor& self) {
  Tensor out;
  unary<U::IsFinite>("isfinite", out, OutKind::Functional, self);
  return out;
}

void gelu_out(const Tensor& self, std::string_view approximate, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("gelu", kind);
  if (native::gelu_tanh(name, approximate))
    unary<U::GeluTanh>(name, out, kind, self);
  else
    unary<U::GeluErf>(name, out, kind, self);
}

Tensor relu(const Tensor& self) {
  Tensor out;
  unary<U::Relu>("relu", out, OutKind::Functional, self);
  return out;
}
Tensor& relu_(Tensor& self) {
  unary<U::Relu>("relu_", self, OutKind::InPlace, self);
  return self;
}

#define EMBER_CUDA_DEFINE_ARITH(name, Kind)                                                                  \
  void name##_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) { \
    arith(EMBER_VARIANT_NAME(#name, kind), native::Arith::Kind, out, kind, self, &other, nullptr, alpha);    \
  }                                                                                                          \
  Tensor name##_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {                       \
    Tensor out;                                                                                              \
    arith(#name, native::Arith::Kind, out, OutKind::Functional, self, nullptr, &other, alpha);               \
    return out;                                                                                              \
  }                                                                                                          \
  Tensor& name##__scalar(Tensor& self, const Scalar& other, const Scalar& alpha) {                           \
    arith(#name "_", native::Arith::Kind, self, OutKind::InPlace, self, nullptr, &other, alpha);             \
    return self;                                                                                             \
  }
EMBER_CUDA_DEFINE_ARITH(add, Add)
EMBER_CUDA_DEFINE_ARITH(sub, Sub)
#undef EMBER_CUDA_DEFINE_ARITH

#define EMBER_CUDA_DEFINE_MULDIV(name, Kind)                                                                           \
  void name##_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                                \
    arith(EMBER_VARIANT_NAME(#name, kind), native::Arith::Kind, out, kind, self, &other, nullptr, Scalar(int64_t{1})); \
  }                                                                                                                    \
  Tensor name##_scalar(const Tensor& self, const Scalar& other) {                                                      \
    Tensor out;                                                                                                        \
    arith(#name, native::Arith::Kind, out, OutKind::Functional, self, nullptr, &other, Scalar(int64_t{1}));            \
    return out;                                                                                                        \
  }                                                                                                                    \
  Tensor& name##__scalar(Tensor& self, const Scalar& other) {                                                          \
    arith(#name "_", native::Arith::Kind, self, OutKind::InPlace, self, nullptr, &other, Scalar(int64_t{1}));          \
    return self;                                                                                                       \
  }
EMBER_CUDA_DEFINE_MULDIV(mul, Mul)
EMBER_CUDA_DEFINE_MULDIV(div, Div)
#undef EMBER_CUDA_DEFINE_MULDIV

#define EMBER_CUDA_DEFINE_COMPARE(name, Kind)                                                      \
  void name##_tensor_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {     \
    compare(EMBER_VARIANT_NAME(#name, kind), gpu::Binary::Kind, out, kind, self, &other, nullptr); \
  }                                                                                                \
  void name##_scalar_out(const Tensor& self, const Scalar& other, Tensor& out, OutKind kind) {     \
    compare(EMBER_VARIANT_NAME(#name, kind), gpu::Binary::Kind, out, kind, self, nullptr, &other); \
  }
EMBER_CUDA_DEFINE_COMPARE(eq, Eq)
EMBER_CUDA_DEFINE_COMPARE(ne, Ne)
EMBER_CUDA_DEFINE_COMPARE(lt, Lt)
EMBER_CUDA_DEFINE_COMPARE(le, Le)
EMBER_CUDA_DEFINE_COMPARE(gt, Gt)
EMBER_CUDA_DEFINE_COMPARE(ge, Ge)
#undef EMBER_CUDA_DEFINE_COMPARE

void where_out(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it("where");
  const ScalarType cdt = compute_dtype(native::where_meta(it, "where", condition, self, other, out, kind));
  check_launch(gpu::launch_where(to_dt(cdt), kernel_iter(it), stream()), "where", cdt);
}

}  // namespace ember::EMBER_GPU_NS
