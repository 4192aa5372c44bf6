// Shared reference helpers for the CPU operator tests (test_cpu_*.cpp): the dtype list, raw
// element access, the logical values of a strided tensor, sample tensors in several layouts
// (contiguous, transposed, sliced, expanded with stride 0), float64 references for broadcasting
// and type promotion, tolerances, and the error-message check. Reference values are read straight
// from memory through sizes and strides (values()), never through the operators under test.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::optest {

inline const std::vector<ScalarType> kDtypes = {kBool,    kUInt8,    kInt8,    kInt16,  kInt32,
                                         kInt64,   kFloat16,  kBFloat16, kFloat32, kFloat64};

// ---- raw element access (independent of the kernels) ----------------------------------------

inline double read_elem(const void* p, ScalarType t) {
  switch (t) {
    case kBool: return *static_cast<const bool*>(p) ? 1 : 0;
    case kUInt8: return *static_cast<const uint8_t*>(p);
    case kInt8: return *static_cast<const int8_t*>(p);
    case kInt16: return *static_cast<const int16_t*>(p);
    case kInt32: return *static_cast<const int32_t*>(p);
    case kInt64: return static_cast<double>(*static_cast<const int64_t*>(p));
    case kFloat16: return static_cast<float>(*static_cast<const Half*>(p));
    case kBFloat16: return static_cast<float>(*static_cast<const BFloat16*>(p));
    case kFloat32: return *static_cast<const float*>(p);
    case kFloat64: return *static_cast<const double*>(p);
    default: ADD_FAILURE() << "unexpected dtype " << t; return 0;
  }
}

inline void write_elem(void* p, ScalarType t, double v) {
  switch (t) {
    case kBool: *static_cast<bool*>(p) = v != 0; break;
    case kUInt8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    case kInt8: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
    case kInt16: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
    case kInt32: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
    case kInt64: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case kFloat16: *static_cast<Half*>(p) = Half(static_cast<float>(v)); break;
    case kBFloat16: *static_cast<BFloat16*>(p) = BFloat16(static_cast<float>(v)); break;
    case kFloat32: *static_cast<float*>(p) = static_cast<float>(v); break;
    case kFloat64: *static_cast<double*>(p) = v; break;
    default: ADD_FAILURE() << "unexpected dtype " << t;
  }
}

// The logical (row-major) values of a strided CPU tensor.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  if (t.numel() == 0) return out;
  // A complex tensor: each element's real and imaginary parts, in turn.
  if (is_complex_type(t.dtype())) return values(view_as_real(t));
  out.reserve(static_cast<size_t>(t.numel()));
  const char* base = static_cast<const char*>(t.data_ptr());
  const auto isz = static_cast<int64_t>(t.itemsize());
  std::vector<int64_t> idx(static_cast<size_t>(t.dim()), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < t.dim(); ++d) off += idx[d] * t.stride(d);
    out.push_back(read_elem(base + off * isz, t.dtype()));
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++idx[d] < t.size(d)) break;
      idx[d] = 0;
    }
  }
  return out;
}

inline Tensor from_values(IntArrayRef shape, ScalarType dt, const std::vector<double>& v) {
  Tensor t = ember::empty(shape, dt);
  EXPECT_EQ(static_cast<size_t>(t.numel()), v.size());
  char* p = static_cast<char*>(t.data_ptr());
  for (size_t i = 0; i < v.size(); ++i) write_elem(p + i * t.itemsize(), dt, v[i]);
  return t;
}

// Small values exactly representable in every dtype; never zero when `nonzero`.
inline double sample_value(int64_t i, ScalarType dt, int seed, bool nonzero) {
  const int64_t k = (i * 7 + seed * 13 + 3) % 11;  // 0..10
  switch (dt) {
    case kBool: return nonzero ? 1 : k % 2;
    case kUInt8: return static_cast<double>(k + (nonzero ? 1 : 0));
    case kInt8:
    case kInt16:
    case kInt32:
    case kInt64: return k == 5 && nonzero ? 3 : static_cast<double>(k - 5);
    default: return (static_cast<double>(k) - 5) * 0.5 + 0.25;
  }
}

enum class Kind { Contiguous, Transposed, Sliced, Expanded };
inline constexpr Kind kKinds[] = {Kind::Contiguous, Kind::Transposed, Kind::Sliced, Kind::Expanded};
inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Contiguous: return "contiguous";
    case Kind::Transposed: return "transposed";
    case Kind::Sliced: return "sliced";
    default: return "expanded";
  }
}

// A tensor of logical shape `shape` and dtype `dt` laid out as `kind` (falling back to contiguous
// where the kind does not apply to the shape).
inline Tensor make(std::vector<int64_t> shape, ScalarType dt, Kind kind, int seed = 0, bool nonzero = false) {
  auto fill = [&](const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t x : s) n *= x;
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[i] = sample_value(i, dt, seed, nonzero);
    return from_values(s, dt, v);
  };
  const auto nd = shape.size();
  if (kind == Kind::Transposed && nd >= 2) {
    auto s = shape;
    std::swap(s[nd - 1], s[nd - 2]);
    Tensor t = fill(s).transpose(-1, -2);
    EXPECT_FALSE(t.is_contiguous() && shape[nd - 1] > 1 && shape[nd - 2] > 1);
    return t;
  }
  if (kind == Kind::Sliced && nd >= 1) {
    auto s = shape;
    s[nd - 1] *= 2;
    return fill(s).slice(-1, 0, std::nullopt, 2);
  }
  if (kind == Kind::Expanded && nd >= 1 && shape[0] > 1) {
    auto s = shape;
    s[0] = 1;
    Tensor t = fill(s).expand(shape);
    EXPECT_EQ(t.stride(0), 0);
    return t;
  }
  return fill(shape);
}

inline std::vector<int64_t> broadcast(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> r(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    r[i] = da == 1 ? db : da;
  }
  return r;
}

// Reference of an elementwise binary op with broadcasting, in float64.
inline std::vector<double> ref_binary(const Tensor& a, const Tensor& b, const std::function<double(double, double)>& f) {
  const auto shape = broadcast(a.sizes(), b.sizes());
  const auto va = values(a), vb = values(b);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> out(static_cast<size_t>(n));
  auto index_of = [&](const std::vector<int64_t>& idx, IntArrayRef sz) {
    int64_t off = 0;
    const size_t lead = shape.size() - sz.size();
    for (size_t d = 0; d < sz.size(); ++d) off = off * sz[d] + (sz[d] == 1 ? 0 : idx[lead + d]);
    return off;
  };
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = f(va[index_of(idx, a.sizes())], vb[index_of(idx, b.sizes())]);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// v as stored in dtype t (integers wrap, floats round).
inline double as_dtype(double v, ScalarType t) {
  switch (t) {
    case kBool: return v != 0 ? 1 : 0;
    case kUInt8: return static_cast<uint8_t>(static_cast<int64_t>(v));
    case kInt8: return static_cast<int8_t>(static_cast<int64_t>(v));
    case kInt16: return static_cast<int16_t>(static_cast<int64_t>(v));
    case kInt32: return static_cast<int32_t>(static_cast<int64_t>(v));
    case kInt64: return static_cast<double>(static_cast<int64_t>(v));
    case kFloat16: return static_cast<float>(Half(static_cast<float>(v)));
    case kBFloat16: return static_cast<float>(BFloat16(static_cast<float>(v)));
    case kFloat32: return static_cast<float>(v);
    default: return v;
  }
}

inline double tolerance(ScalarType t) {
  switch (t) {
    case kFloat16: return 2e-3;
    case kBFloat16: return 1e-2;
    case kFloat32: return 1e-6;
    case kFloat64: return 1e-12;
    default: return 0;
  }
}

inline void expect_values(const Tensor& t, const std::vector<double>& ref, const std::string& what) {
  const auto got = values(t);
  ASSERT_EQ(got.size(), ref.size()) << what;
  const double tol = tolerance(t.dtype());
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = as_dtype(ref[i], t.dtype());
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
    } else if (std::isinf(want)) {
      EXPECT_EQ(got[i], want) << what << " at " << i;
    } else {
      EXPECT_NEAR(got[i], want, tol * std::max(1.0, std::fabs(want))) << what << " at " << i;
    }
  }
}

// PyTorch's promotion table (c10's _promoteTypesLookup), in Ember's dtype order.
inline ScalarType torch_promote(ScalarType a, ScalarType b) {
  using S = ScalarType;
  constexpr S b1 = kBool, u1 = kUInt8, i1 = kInt8, i2 = kInt16, i4 = kInt32, i8 = kInt64, f2 = kFloat16,
              bf = kBFloat16, f4 = kFloat32, f8 = kFloat64;
  static const S table[10][10] = {
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

inline const void* storage_of(const Tensor& t) { return t.unsafeGetTensorImpl()->storage().get(); }

template <class E, class F>
inline std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

// EXPECT_ERROR(ErrType, stmt, "part", ...): stmt throws ErrType whose message contains every part.
#define EXPECT_ERROR(ErrType, stmt, ...)                                                               \
  do {                                                                                                 \
    const std::string msg_ = ::ember::optest::error_of<ErrType>([&] { (void)(stmt); });                \
    for (const char* part_ : {__VA_ARGS__})                                                            \
      EXPECT_NE(msg_.find(part_), std::string::npos) << "message: " << msg_ << "\nmissing: " << part_; \
  } while (0)

// A tensor that claims to live on another device (no data): reaches the CPU kernels only by
// redispatching to the CPU key (how the mixed-device checks are exercised), and views through
// CompositeExplicitAutograd.
inline Tensor meta_tensor(IntArrayRef sizes) {
  Storage s = make_intrusive<StorageImpl>(DataPtr{nullptr, nullptr, nullptr, Device(kMeta)}, 0, nullptr, false);
  return Tensor(make_intrusive<TensorImpl>(std::move(s), kFloat32, sizes));
}

// ---- thread-count invariance ------------------------------------------------------------------

// Runs f with n threads and restores the count.
template <class F>
inline Tensor with_threads(int n, F&& f) {
  const int saved = get_num_threads();
  set_num_threads(n);
  Tensor r = f();
  set_num_threads(saved);
  return r;
}

// Same values on one and two threads, bit for bit (equal() compares exactly), and the same
// layout; a NaN-free input keeps equal() meaningful.
template <class F>
inline void expect_thread_invariant(const std::string& what, F&& f) {
  Tensor one = with_threads(1, f);
  Tensor two = with_threads(2, f);
  ASSERT_EQ(one.sizes(), two.sizes()) << what;
  EXPECT_EQ(one.strides(), two.strides()) << what;
  EXPECT_EQ(one.dtype(), two.dtype()) << what;
  EXPECT_TRUE(one.equal(two)) << what;
}

}  // namespace ember::optest
