// Binary elementwise kernels: add, sub, mul, div (functional, in-place, out=, Scalar) and the
// comparisons (structured, Tensor and Scalar). See Note [CPU elementwise loops] in Loops.h.
#include "Loops.h"
#include "CPUKernels.h"
#include "ember/native/ElementwiseMeta.h"

namespace ember::cpu {
namespace {

// Integer arithmetic wraps (as PyTorch's does) instead of overflowing into undefined behaviour.
template <class T>
EMBER_ALWAYS_INLINE T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
EMBER_ALWAYS_INLINE T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <class T>
EMBER_ALWAYS_INLINE T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return static_cast<T>(a * b);
  }
}

template <class C>
struct AddOp {
  C operator()(C a, C b) const { return wrap_add(a, b); }
};
template <class C>
struct AddAlphaOp {
  C alpha;
  C operator()(C a, C b) const { return wrap_add(a, wrap_mul(alpha, b)); }
};
template <class C>
struct SubOp {
  C operator()(C a, C b) const { return wrap_sub(a, b); }
};
template <class C>
struct SubAlphaOp {
  C alpha;
  C operator()(C a, C b) const { return wrap_sub(a, wrap_mul(alpha, b)); }
};
template <class C>
struct MulOp {
  C operator()(C a, C b) const { return wrap_mul(a, b); }
};
template <class C>
struct DivOp {
  C operator()(C a, C b) const {
    if constexpr (is_complex_v<C>) {
      // LibTorch 1.13's vectorised formula, (ac + bd) / |b|^2 + i (bc - ad) / |b|^2: x / 0 is NaN
      // (std::complex's division gives inf there).
      using R = real_of_t<C>;
      const R n = b.real() * b.real() + b.imag() * b.imag();
      return C((a.real() * b.real() + a.imag() * b.imag()) / n, (a.imag() * b.real() - a.real() * b.imag()) / n);
    } else {
      return a / b;
    }
  }
};

template <class C>
struct EqOp {
  bool operator()(C a, C b) const { return a == b; }
};
template <class C>
struct NeOp {
  bool operator()(C a, C b) const { return a != b; }
};
template <class C>
struct LtOp {
  bool operator()(C a, C b) const { return a < b; }
};
template <class C>
struct LeOp {
  bool operator()(C a, C b) const { return a <= b; }
};
template <class C>
struct GtOp {
  bool operator()(C a, C b) const { return a > b; }
};
template <class C>
struct GeOp {
  bool operator()(C a, C b) const { return a >= b; }
};

using native::Arith;
enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

bool is_one(const Scalar& s) {
  return s.isIntegral(true) ? s.toLong() == 1 : (!s.isComplex() && s.toDouble() == 1.0);
}

// Calls f(op) with the functor of `kind` computing in C.
template <class C, class F>
EMBER_ALWAYS_INLINE void with_arith_op(Arith kind, const Scalar& alpha, F&& f) {
  switch (kind) {
    case Arith::Add:
      if (is_one(alpha)) return f(AddOp<C>{});
      return f(AddAlphaOp<C>{scalar_to<C>(alpha)});
    case Arith::Sub:
      if (is_one(alpha)) return f(SubOp<C>{});
      return f(SubAlphaOp<C>{scalar_to<C>(alpha)});
    case Arith::Mul:
      return f(MulOp<C>{});
    case Arith::Div:
      if constexpr (std::is_floating_point_v<C> || is_complex_v<C>) return f(DivOp<C>{});
      EMBER_INTERNAL_ASSERT(false, "div computes in a floating dtype");
  }
}

template <class C, class F>
EMBER_ALWAYS_INLINE void with_cmp_op(Cmp kind, F&& f) {
  if constexpr (is_complex_v<C>) {
    // Complex numbers are not ordered: eq and ne only (LibTorch's "lt_cpu not implemented").
    if (kind == Cmp::Eq) return f(EqOp<C>{});
    if (kind == Cmp::Ne) return f(NeOp<C>{});
    const char* op = kind == Cmp::Lt ? "lt" : kind == Cmp::Le ? "le" : kind == Cmp::Gt ? "gt" : "ge";
    throw_unsupported_dtype(op, scalar_type_of<C>);
  } else {
    switch (kind) {
      case Cmp::Eq: return f(EqOp<C>{});
      case Cmp::Ne: return f(NeOp<C>{});
      case Cmp::Lt: return f(LtOp<C>{});
      case Cmp::Le: return f(LeOp<C>{});
      case Cmp::Gt: return f(GtOp<C>{});
      case Cmp::Ge: return f(GeOp<C>{});
    }
  }
}

// True when a Scalar `other` leaves a tensor of dtype dt at dt (a Scalar only counts by category).
bool scalar_keeps_dtype(ScalarType dt, const Scalar& s) {
  if (s.isBoolean()) return true;
  if (s.isIntegral(false)) return dt != kBool;
  if (s.isFloatingPoint()) return is_floating_type(dt);
  return false;
}

// The layer-1 fast path: every operand contiguous, of one shape and of the compute dtype.
// Returns false when the call must take the general path (which also reports every error).
// Offset in bytes of t's first element in its storage.
inline int64_t first_byte(const Tensor& t) { return t.storage_offset() * static_cast<int64_t>(t.itemsize()); }

template <class Visit>
EMBER_ALWAYS_INLINE bool fast_path(const Tensor& a, const Tensor* bt, const Scalar* bs, Tensor& out,
                                   OutKind ok, ScalarType out_dtype_if_new, Visit&& visit) {
  // An empty operand takes the iteration's path: its result layout is the iterator's ordering.
  if (EMBER_UNLIKELY(!a.defined() || !a.is_contiguous() || !a.is_cpu() || a.numel() == 0)) return false;
  const ScalarType dt = a.dtype();
  if (bt) {
    const Tensor& b = *bt;
    if (!b.defined() || b.dtype() != dt || !b.is_contiguous() || !b.is_cpu() || a.sizes() != b.sizes())
      return false;
  } else if (!scalar_keeps_dtype(dt, *bs)) {
    return false;
  }
  if (ok == OutKind::Functional) {
    out = empty_cpu(a.sizes(), out_dtype_if_new);
  } else {
    if (out.dtype() != out_dtype_if_new || !out.is_contiguous() || !out.is_cpu()) return false;
    if (ok == OutKind::Out && out.sizes() != a.sizes()) return false;
    // In place on an input is fine only when it is the very same elements (in one storage, the
    // same first byte; compared without data_ptr's storage check, which same_storage did).
    if (same_storage(out, a) && first_byte(out) != first_byte(a)) return false;
    if (bt && same_storage(out, *bt) && first_byte(out) != first_byte(*bt)) return false;
  }
  visit(dt);
  return true;
}

void arith(const char* name, Arith kind, Tensor& out, OutKind ok, const Tensor& a, const Tensor* bt,
           const Scalar* bs, const Scalar& alpha) {
  // Layer 1: same-shape contiguous operands of a compute dtype whose result dtype is their own.
  if (a.defined()) {
    const ScalarType dt = a.dtype();
    const bool types_ok = dt != kFloat16 && dt != kBFloat16 && !is_complex_type(dt) &&
                          (kind != Arith::Div || is_floating_type(dt)) &&
                          (kind != Arith::Sub || (dt != kBool && !(bs && bs->isBoolean()))) &&
                          (kind == Arith::Mul || kind == Arith::Div ||
                           (alpha.isBoolean() ? dt == kBool
                                              : (alpha.isIntegral(false) || (alpha.isFloatingPoint() &&
                                                                              is_floating_type(dt)))));
    if (types_ok &&
        fast_path(a, bt, bs, out, ok, dt, [&](ScalarType t) {
          const int64_t n = a.numel();
          visit_compute(t, name, [&](auto tag) {
            using C = typename decltype(tag)::type;
            C bv{};
            const C* bp;
            if (bs) {
              bv = scalar_to<C>(*bs);
              bp = &bv;
            } else {
              bp = static_cast<const C*>(bt->data_ptr());
            }
            with_arith_op<C>(kind, alpha, [&](const auto& op) {
              binary_loop(static_cast<C*>(out.data_ptr()), static_cast<const C*>(a.data_ptr()), bp, n, true,
                          bs == nullptr, op);
            });
          });
        })) {
      return;
    }
  }

  // Layers 2 and 3: TensorIter with promotion, broadcasting, strides and conversions. The
  // metadata step is the family's (shared with its meta function); a Scalar operand becomes a
  // 0-dim tensor of the compute dtype.
  const ScalarType result = native::arith_result(name, kind, a, bt, bs, alpha);
  const ScalarType cdt = compute_dtype(result);
  visit_compute_c(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    Tensor b;
    if (bs) {
      b = empty_cpu({}, cdt);
      *static_cast<C*>(b.data_ptr()) = scalar_to<C>(*bs);
    }
    TensorIter it(name);
    native::binary_meta(it, name, result, a, bs ? &b : bt, out, ok);
    with_arith_op<C>(kind, alpha, [&](const auto& op) { run_binary<C, C>(it, op); });
  });
}

// The result is kBool; in place and out= write 0/1 in the output's own dtype (as PyTorch).
void compare(const char* name, Cmp kind, Tensor& out, OutKind ok, const Tensor& a, const Tensor* bt, const Scalar* bs) {
  // Layer 1 (kBool outputs only): same-shape contiguous operands of one compute dtype.
  if (a.defined()) {
    const ScalarType dt = a.dtype();
    if (dt != kFloat16 && dt != kBFloat16 && !is_complex_type(dt) &&
        fast_path(a, bt, bs, out, ok, kBool, [&](ScalarType t) {
          const int64_t n = a.numel();
          visit_compute(t, name, [&](auto tag) {
            using C = typename decltype(tag)::type;
            C bv{};
            const C* bp;
            if (bs) {
              bv = scalar_to<C>(*bs);
              bp = &bv;
            } else {
              bp = static_cast<const C*>(bt->data_ptr());
            }
            with_cmp_op<C>(kind, [&](const auto& op) {
              binary_loop(static_cast<bool*>(out.data_ptr()), static_cast<const C*>(a.data_ptr()), bp, n, true,
                          bs == nullptr, op);
            });
          });
        }))
      return;
  }
  // Layers 2 and 3: the family's metadata step; a Scalar operand becomes a 0-dim tensor of the
  // compute dtype.
  const ScalarType cdt = compute_dtype(native::compare_result(name, a, bt, bs));
  visit_compute_c(cdt, name, [&](auto tag) {
    using C = typename decltype(tag)::type;
    Tensor b;
    if (bs) {
      b = empty_cpu({}, cdt);
      *static_cast<C*>(b.data_ptr()) = scalar_to<C>(*bs);
    }
    TensorIter it(name);
    native::compare_meta(it, name, a, bs ? &b : bt, out, ok);
    with_cmp_op<C>(kind, [&](const auto& op) { run_binary<bool, C>(it, op); });
  });
}

}  // namespace

void add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) {
  arith(EMBER_VARIANT_NAME("add", kind), Arith::Add, out, kind, self, &other, nullptr, alpha);
}
Tensor add_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  arith("add", Arith::Add, out, OutKind::Functional, self, nullptr, &other, alpha);
  return out;
}
Tensor& add__scalar(Tensor& self, const Scalar& other, const Scalar& alpha) {
  arith("add_", Arith::Add, self, OutKind::InPlace, self, nullptr, &other, alpha);
  return self;
}

void sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, OutKind kind) {
  arith(EMBER_VARIANT_NAME("sub", kind), Arith::Sub, out, kind, self, &other, nullptr, alpha);
}
Tensor sub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  arith("sub", Arith::Sub, out, OutKind::Functional, self, nullptr, &other, alpha);
  return out;
}
Tensor& sub__scalar(Tensor& self, const Scalar& other, const Scalar& alpha) {
  arith("sub_", Arith::Sub, self, OutKind::InPlace, self, nullptr, &other, alpha);
  return self;
}

void mul_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  arith(EMBER_VARIANT_NAME("mul", kind), Arith::Mul, out, kind, self, &other, nullptr,
        Scalar(int64_t{1}));
}
Tensor mul_scalar(const Tensor& self, const Scalar& other) {
  Tensor out;
  arith("mul", Arith::Mul, out, OutKind::Functional, self, nullptr, &other, Scalar(int64_t{1}));
  return out;
}
Tensor& mul__scalar(Tensor& self, const Scalar& other) {
  arith("mul_", Arith::Mul, self, OutKind::InPlace, self, nullptr, &other, Scalar(int64_t{1}));
  return self;
}

void div_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  arith(EMBER_VARIANT_NAME("div", kind), Arith::Div, out, kind, self, &other, nullptr,
        Scalar(int64_t{1}));
}
Tensor div_scalar(const Tensor& self, const Scalar& other) {
  Tensor out;
  arith("div", Arith::Div, out, OutKind::Functional, self, nullptr, &other, Scalar(int64_t{1}));
  return out;
}
Tensor& div__scalar(Tensor& self, const Scalar& other) {
  arith("div_", Arith::Div, self, OutKind::InPlace, self, nullptr, &other, Scalar(int64_t{1}));
  return self;
}

#define EMBER_CPU_DEFINE_CMP(name, Kind)                                                       \
  void name##_tensor_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) { \
    compare(EMBER_VARIANT_NAME(#name, kind), Cmp::Kind, out, kind, self, &other, nullptr);     \
  }                                                                                            \
  void name##_scalar_out(const Tensor& self, const Scalar& other, Tensor& out, OutKind kind) { \
    compare(EMBER_VARIANT_NAME(#name, kind), Cmp::Kind, out, kind, self, nullptr, &other);     \
  }
EMBER_CPU_DEFINE_CMP(eq, Eq)
EMBER_CPU_DEFINE_CMP(ne, Ne)
EMBER_CPU_DEFINE_CMP(lt, Lt)
EMBER_CPU_DEFINE_CMP(le, Le)
EMBER_CPU_DEFINE_CMP(gt, Gt)
EMBER_CPU_DEFINE_CMP(ge, Ge)
#undef EMBER_CPU_DEFINE_CMP

}  // namespace ember::cpu
