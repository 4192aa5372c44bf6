// Reductions and whole-tensor queries: sum, item, equal, allclose.
//
// Note [CPU sum accumulation]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Floating sums accumulate in double (float16, bfloat16 and float32 inputs are then exact per
// add); a contiguous run is summed with 16 independent accumulators (vectorized, one pass) over
// blocks of 2048 elements combined pairwise, so float64 inputs get pairwise-summation error
// bounds too; a long run's top three tree levels run on the intra-op threads, with the same
// result on any number of threads. Integer and bool sums accumulate in int64 with wrap-around, as PyTorch does. A
// reduction runs on TensorIter with an accumulator output of stride 0 along the reduced
// dimensions, dimensions ordered by the input's strides: a run along a reduced dimension is one
// vector sum, a run along a kept dimension is an elementwise accumulate.
#include "CPUKernels.h"
#include "Loops.h"
#include "Reduce.h"
#include "ember/native/Rules.h"

namespace ember::cpu {
namespace {

template <class T>
using AccOf = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

template <class T>
EMBER_ALWAYS_INLINE AccOf<T> sum_block_body(const T* __restrict p, int64_t n) {
  using Acc = AccOf<T>;
  if constexpr (std::is_integral_v<T>) {
    uint64_t acc = 0;  // wraps
    for (int64_t i = 0; i < n; ++i) acc += static_cast<uint64_t>(static_cast<int64_t>(p[i]));
    return static_cast<int64_t>(acc);
  } else {
    Acc acc[16] = {};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
      for (int k = 0; k < 16; ++k) acc[k] += convert<double>(p[i + k]);
    Acc tail = 0;
    for (; i < n; ++i) tail += convert<double>(p[i]);
    for (int w = 8; w >= 1; w /= 2)
      for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
    return acc[0] + tail;
  }
}
template <class T>
EMBER_NOINLINE AccOf<T> sum_block_baseline(const T* p, int64_t n) {
  return sum_block_body(p, n);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 AccOf<T> sum_block_avx2(const T* p, int64_t n) {
  return sum_block_body(p, n);
}
template <class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 AccOf<T> sum_block_avx512(const T* p, int64_t n) {
  return sum_block_body(p, n);
}
#endif

template <class T>
AccOf<T> sum_block(const T* p, int64_t n) {
#if defined(EMBER_CPU_MULTI_ISA)
  if (cpu_isa() == Isa::Avx512) return sum_block_avx512(p, n);
  if (cpu_isa() == Isa::Avx2) return sum_block_avx2(p, n);
#endif
  return sum_block_baseline(p, n);
}

constexpr int64_t kSumBlock = 2048;

// Where the pairwise tree splits a run of n: the first half's length, a multiple of 16.
constexpr int64_t pairwise_half(int64_t n) { return (n / 2 + 15) & ~int64_t{15}; }

template <class T>
AccOf<T> sum_contiguous(const T* p, int64_t n) {
  if constexpr (std::is_integral_v<T>) {
    return sum_block(p, n);
  } else {
    if (n <= kSumBlock) return sum_block(p, n);
    const int64_t half = pairwise_half(n);
    return sum_contiguous(p, half) + sum_contiguous(p + half, n - half);
  }
}

// sum_contiguous over the intra-op threads with the very same result: the leaves of the top
// three levels of its pairwise tree are summed in parallel and combined in the tree's order
// (integers wrap modulo 2^64, so any split gives the same sum).
template <class T>
AccOf<T> sum_contiguous_parallel(const T* p, int64_t n) {
  if (n < 8 * kGrainSize || get_num_threads() == 1 || in_parallel_region()) return sum_contiguous(p, n);
  using Acc = AccOf<T>;
  constexpr int kLeaves = 8;  // n >= 8 * kGrainSize: every split above the leaves happens
  const T* lp[kLeaves];
  int64_t ln[kLeaves];
  if constexpr (std::is_integral_v<T>) {
    for (int k = 0; k < kLeaves; ++k) {
      lp[k] = p + n * k / kLeaves;
      ln[k] = n * (k + 1) / kLeaves - n * k / kLeaves;
    }
  } else {
    auto split = [&](auto&& self, const T* q, int64_t m, int depth, int first) -> void {
      if (depth == 3) {
        lp[first] = q, ln[first] = m;
        return;
      }
      const int64_t half = pairwise_half(m);
      const int width = kLeaves >> (depth + 1);
      self(self, q, half, depth + 1, first);
      self(self, q + half, m - half, depth + 1, first + width);
    };
    split(split, p, n, 0, 0);
  }
  Acc r[kLeaves];
  parallel_for(0, kLeaves, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) r[k] = sum_contiguous(lp[k], ln[k]);
  });
  if constexpr (std::is_integral_v<T>) {
    uint64_t acc = 0;
    for (Acc v : r) acc += static_cast<uint64_t>(v);
    return static_cast<int64_t>(acc);
  } else {
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  }
}

template <class T>
AccOf<T> sum_run(const char* p, int64_t stride, int64_t n) {
  if (stride == int64_t{sizeof(T)}) return sum_contiguous_parallel(reinterpret_cast<const T*>(p), n);
  using Acc = AccOf<T>;
  if constexpr (std::is_integral_v<T>) {
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; ++i)
      acc += static_cast<uint64_t>(static_cast<int64_t>(*reinterpret_cast<const T*>(p + i * stride)));
    return static_cast<int64_t>(acc);
  } else {
    Acc a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      a0 += convert<double>(*reinterpret_cast<const T*>(p + i * stride));
      a1 += convert<double>(*reinterpret_cast<const T*>(p + (i + 1) * stride));
      a2 += convert<double>(*reinterpret_cast<const T*>(p + (i + 2) * stride));
      a3 += convert<double>(*reinterpret_cast<const T*>(p + (i + 3) * stride));
    }
    for (; i < n; ++i) a0 += convert<double>(*reinterpret_cast<const T*>(p + i * stride));
    return (a0 + a1) + (a2 + a3);
  }
}

// acc[i] += in[i] along a kept dimension.
template <class T>
void accumulate_run(char* acc, int64_t sa, const char* in, int64_t si, int64_t n) {
  using Acc = AccOf<T>;
  if (sa == int64_t{sizeof(Acc)} && si == int64_t{sizeof(T)}) {
    auto* __restrict a = reinterpret_cast<Acc*>(acc);
    const auto* __restrict x = reinterpret_cast<const T*>(in);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<T>)
        a[i] = static_cast<Acc>(static_cast<uint64_t>(a[i]) + static_cast<uint64_t>(static_cast<int64_t>(x[i])));
      else
        a[i] += convert<double>(x[i]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    auto& a = *reinterpret_cast<Acc*>(acc + i * sa);
    const T x = *reinterpret_cast<const T*>(in + i * si);
    if constexpr (std::is_integral_v<T>)
      a = static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(static_cast<int64_t>(x)));
    else
      a += convert<double>(x);
  }
}

}  // namespace

namespace {
// A complex sum: the sum of the real view over the same dimensions, each part independently
// (Note [Complex tensors]).
Tensor complex_sum(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType out_dt, const OutArg* o) {
  const Tensor in = self.dtype() != out_dt ? [&] {
    Tensor c = empty_cpu(self.sizes(), out_dt);
    cpu::copy_(c, self, false);
    return c;
  }() : self;
  const int64_t nd = in.dim();
  const SmallVector<bool, 8> reduced = native::reduced_mask(in, dims, "sum");
  DimVector rdims, shape;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[d]) rdims.push_back(d);
    if (!reduced[d])
      shape.push_back(in.size(d));
    else if (keepdim)
      shape.push_back(1);
  }
  Tensor out = result_tensor(o, shape, out_dt);
  if (rdims.empty()) {  // a 0-dim input: nothing to reduce
    cpu::copy_(out, in, false);
    return out;
  }
  const Tensor parts = real_view(in);
  const Tensor r = sum_impl(parts, rdims, keepdim, std::nullopt, false, nullptr);
  cpu::copy_(out, complex_view(r), false);
  return out;
}
}  // namespace

// `acc_out`: return the accumulator (int64 or float64) itself, not converted to the sum's dtype.
Tensor sum_impl(const Tensor& self, IntArrayRef dims, bool keepdim, OptDtype dtype, bool acc_out, const OutArg* o) {
  check_defined("sum", self, "self");
  check_cpu("sum", self);
  ScalarType out_dt = native::sum_like_dtype("sum", self, dtype, !acc_out);
  if (is_complex_type(out_dt)) return complex_sum(self, dims, keepdim, out_dt, o);
  if (acc_out) out_dt = is_integral_type(out_dt, true) ? kInt64 : kFloat64;
  // As in PyTorch, an explicit dtype converts the input before summing.
  const Tensor in = dtype && *dtype != self.dtype() ? [&] {
    Tensor c = empty_cpu(self.sizes(), *dtype);
    cpu::copy_(c, self, false);
    return c;
  }() : self;

  // An empty dim list reduces every dimension (LibTorch 1.13).
  const int64_t nd = in.dim();
  const SmallVector<bool, 8> reduced = native::reduced_mask(in, dims, "sum");
  DimVector out_shape;
  for (int64_t d = 0; d < nd; ++d) {
    if (!reduced[d]) out_shape.push_back(in.size(d));
    else if (keepdim) out_shape.push_back(1);
  }
  const ScalarType acc_dt = is_integral_type(in.dtype(), true) ? kInt64 : kFloat64;
  bool all = true;
  for (int64_t d = 0; d < nd; ++d) all = all && reduced[d];

  if (all && in.is_contiguous()) {
    // One vector sum, stored straight into the result.
    Tensor out = result_tensor(o, out_shape, out_dt);
    visit_dtype(in.dtype(), "sum", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const AccOf<T> v = sum_contiguous_parallel(static_cast<const T*>(in.data_ptr()), in.numel());
      cast_fn(acc_dt, out_dt)(reinterpret_cast<const char*>(&v), int64_t{8}, static_cast<char*>(out.data_ptr()),
                              static_cast<int64_t>(out.itemsize()), 1);
    });
    return out;
  }
  // The accumulator, contiguous in out_shape (which carries keepdim's 1s): the result itself when
  // it has the result's dtype, else rounded into the result by finish().
  auto new_acc = [&] { return acc_dt == out_dt ? result_tensor(o, out_shape, acc_dt) : empty_cpu(out_shape, acc_dt); };
  auto finish = [&](Tensor acc) {
    if (acc_dt == out_dt) return acc;
    Tensor out = result_tensor(o, out_shape, out_dt);
    cast_fn(acc_dt, out_dt)(static_cast<const char*>(acc.data_ptr()), int64_t{8}, static_cast<char*>(out.data_ptr()),
                            static_cast<int64_t>(out.itemsize()), out.numel());
    return out;
  };
  if (const int64_t outer = dense_matrix_rows(in, reduced, false)) {
    // Reducing the trailing dimensions of a contiguous tensor: independent rows, split over the
    // intra-op threads (each row's value is what the iterator below would compute).
    const int64_t len = in.numel() / outer;
    Tensor acc = new_acc();
    visit_dtype(in.dtype(), "sum", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = static_cast<const T*>(in.data_ptr());
      auto* a = static_cast<AccOf<T>*>(acc.data_ptr());
      parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / len), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) a[i] = sum_contiguous_parallel(p + i * len, len);
      });
    });
    return finish(acc);
  }
  if (const int64_t nrows = dense_matrix_rows(in, reduced, true)) {
    // Reducing the leading dimensions of a contiguous tensor: column ranges split over the
    // intra-op threads, each summing its columns over all rows in order (as the iterator would).
    const int64_t inner = in.numel() / nrows;
    Tensor acc = new_acc();
    std::memset(acc.data_ptr(), 0, acc.nbytes());
    visit_dtype(in.dtype(), "sum", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const char* p = static_cast<const char*>(in.data_ptr());
      char* a = static_cast<char*>(acc.data_ptr());
      constexpr auto isz = int64_t{sizeof(T)}, asz = int64_t{sizeof(AccOf<T>)};
      parallel_for(0, inner, std::max<int64_t>(256, kGrainSize / nrows), [&](int64_t b, int64_t e) {
        for (int64_t r = 0; r < nrows; ++r) accumulate_run<T>(a + b * asz, asz, p + (r * inner + b) * isz, isz, e - b);
      });
    });
    return finish(acc);
  }
  // Accumulate into the accumulator viewed with in's dimensions, broadcast (stride 0) along the
  // reduced ones.
  Tensor acc = new_acc();
  std::memset(acc.data_ptr(), 0, acc.nbytes());
  DimVector st(nd, 0);
  int64_t next = 1;
  for (int64_t d = nd - 1; d >= 0; --d) {
    if (reduced[d]) continue;
    st[d] = next;
    next *= in.size(d);
  }
  Tensor view = make_view(acc, in.sizes(), st, acc.storage_offset());
  TensorIter it("sum");
  it.is_reduction().add_output(&view, acc_dt).add_input(in).build();
  visit_dtype(in.dtype(), "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      if (s[0] == 0) *reinterpret_cast<AccOf<T>*>(d[0]) += sum_run<T>(d[1], s[1], n);
      else accumulate_run<T>(d[0], s[0], d[1], s[1], n);
    });
  });
  return finish(acc);
}

Tensor sum(const Tensor& self, OptDtype dtype) { return sum_impl(self, {}, false, dtype, false, nullptr); }

Tensor sum_dim(const Tensor& self, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  return sum_impl(self, dim, keepdim, dtype, false, nullptr);
}

Scalar item(const Tensor& self) {
  native::check_item(self);
  check_cpu("item", self);
  return load_scalar(self.data_ptr(), self.dtype());
}

bool equal(const Tensor& self, const Tensor& other) {
  const ScalarType common = native::equal_dtype(kCPU, self, other);
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  bool eq = true;
  visit_dtype(common, "equal", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::conditional_t<is_reduced_float_v<T>, float, T>;
    auto run = [&](const char* a, int64_t sa, const char* b, int64_t sb, int64_t n) {
      for (int64_t i = 0; i < n && eq; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        bool all = true;
        for (int64_t k = i; k < i + m; ++k)
          all &= static_cast<C>(*reinterpret_cast<const T*>(a + k * sa)) ==
                 static_cast<C>(*reinterpret_cast<const T*>(b + k * sb));
        eq = eq && all;
      }
    };
    const auto isz = static_cast<int64_t>(sizeof(T));
    const bool cast = self.dtype() != common || other.dtype() != common;
    if (!cast && self.is_contiguous() && other.is_contiguous()) {
      run(static_cast<const char*>(self.data_ptr()), isz, static_cast<const char*>(other.data_ptr()), isz,
          self.numel());
      return;
    }
    TensorIter it("equal");
    it.add_input(self).add_input(other).build();
    if (!cast) {
      it.for_each([&](char** d, const int64_t* s, int64_t n) {
        if (eq) run(d[0], s[0], d[1], s[1], n);
      });
      return;
    }
    // Two dtypes: each chunk converted to the promoted dtype, then compared.
    const CastFn load_a = cast_fn(self.dtype(), common), load_b = cast_fn(other.dtype(), common);
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      alignas(64) T a[kChunk];
      alignas(64) T b[kChunk];
      for (int64_t i = 0; i < n && eq; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        load_a(d[0] + i * s[0], s[0], reinterpret_cast<char*>(a), isz, m);
        load_b(d[1] + i * s[1], s[1], reinterpret_cast<char*>(b), isz, m);
        run(reinterpret_cast<const char*>(a), isz, reinterpret_cast<const char*>(b), isz, m);
      }
    });
  });
  return eq;
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  native::check_allclose(kCPU, self, other, rtol, atol);
  // Float types compare in their compute type (as LibTorch's isclose); integers and bool in double.
  const ScalarType cdt = is_floating_type(self.dtype()) ? compute_dtype(self.dtype()) : kFloat64;
  TensorIter it("allclose");
  it.add_input(self).add_input(other).build();
  bool ok = true;
  visit_compute(cdt, "allclose", [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      const CastFn load_a = cast_fn(it.dtype(0), cdt), load_b = cast_fn(it.dtype(1), cdt);
      const C crtol = static_cast<C>(rtol), catol = static_cast<C>(atol);
      it.for_each([&](char** d, const int64_t* s, int64_t n) {
        alignas(64) C a[kChunk];
        alignas(64) C b[kChunk];
        for (int64_t i = 0; i < n && ok; i += kChunk) {
          const int64_t m = std::min(kChunk, n - i);
          load_a(d[0] + i * s[0], s[0], reinterpret_cast<char*>(a), sizeof(C), m);
          load_b(d[1] + i * s[1], s[1], reinterpret_cast<char*>(b), sizeof(C), m);
          for (int64_t k = 0; k < m; ++k) {
            const C x = a[k], y = b[k];
            bool close = x == y;
            if (!close && equal_nan) close = std::isnan(x) && std::isnan(y);
            if (!close) {
              const C err = std::abs(x - y);
              close = std::isfinite(err) && err <= catol + std::abs(crtol * y);
            }
            ok = ok && close;
          }
        }
      });
    }
  });
  return ok;
}

}  // namespace ember::cpu
