// Matrix products: mm, mm.out, bmm, addmm (matmul is a composite in libember).
//
// Note [CPU matrix product paths]
// Every product goes through product_into(): a [B, M, K] x [B, K, N] batch into a contiguous
// [B, M, N] tensor of the compute dtype (mm.out's own out when it is one), which the callers
// otherwise cast (f16, bf16, integers) or combine (addmm) into the result.
//   - float32, one matrix: dnnl_sgemm (row-major with transpose flags, so the same layouts pass
//     without copies). Batches (bmm) use the matmul primitive below.
//   - float32 batches: oneDNN's matmul primitive. Operands whose last two strides are row- or
//     column-major (one inner stride 1, the other at least the row length) are passed by their
//     strides, so transposed and row-sliced inputs are not copied; anything else is made
//     contiguous. Primitives are cached by dtypes, sizes and strides (see Note [CPU oneDNN
//     primitives] in Dnnl.h).
//   - bfloat16: oneDNN too (bf16 inputs, f32 accumulation and output) where the primitive exists
//     on this CPU; else converted to float32.
//   - float16: converted to float32.
//   - float64: cblas_dgemm (OpenBLAS, its OpenMP build where installed: the one intra-op pool),
//     transposed operands by strides.
//   - integers: our own loop over int64 with wrapping arithmetic (an exact result modulo 2^64,
//     so the final cast wraps as an integer computation in the narrow type would).
//   - bool: not implemented, as in LibTorch.
// K = 0 gives zeros and an empty result never reaches a library.
#include <cblas.h>

#include <array>
#include <memory>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "Dnnl.h"
#include "Loops.h"
#include "CPUKernels.h"
#include "ember/generated/Functions.h"
#include "ember/native/Rules.h"

namespace ember::cpu {
namespace {

// ---- operands ------------------------------------------------------------------------------

// A [B, R, C] operand as a library sees it: canonical strides with either sc == 1 (row-major,
// leading dimension sr >= C) or sr == 1 (column-major, leading dimension sc >= R).
struct Mat {
  Tensor t;  // keeps the storage alive (a copy when the input's strides did not fit)
  int64_t B = 0, R = 0, C = 0;
  int64_t sb = 0, sr = 0, sc = 0;
  bool row_major = true;
  const void* data = nullptr;
};

bool fit_layout(Mat& m) {
  const int64_t R = m.R, C = m.C;
  int64_t sr = m.sr, sc = m.sc;
  if ((C == 1 || sc == 1) && (R == 1 || sr >= C)) {
    m.sc = 1;
    m.sr = R == 1 ? C : sr;
    m.row_major = true;
  } else if ((R == 1 || sr == 1) && (C == 1 || sc >= R)) {
    m.sr = 1;
    m.sc = C == 1 ? R : sc;
    m.row_major = false;
  } else {
    return false;
  }
  const int64_t span = (R - 1) * m.sr + (C - 1) * m.sc + 1;
  if (m.B == 1) m.sb = span;
  return m.sb >= span;
}

Mat as_mat(const Tensor& t3) {
  Mat m;
  m.t = t3;
  m.B = t3.size(0), m.R = t3.size(1), m.C = t3.size(2);
  m.sb = t3.stride(0), m.sr = t3.stride(1), m.sc = t3.stride(2);
  if (!fit_layout(m)) {
    m.t = materialize(t3);
    m.sb = m.t.stride(0), m.sr = m.t.stride(1), m.sc = m.t.stride(2);
    const bool ok = fit_layout(m);
    EMBER_INTERNAL_ASSERT(ok, "a contiguous matrix batch must fit");
  }
  m.data = m.t.data_ptr();
  return m;
}

Tensor cast_to(const Tensor& t, ScalarType dt) {
  if (t.dtype() == dt) return t;
  Tensor r = empty_cpu(t.sizes(), dt);
  cpu::copy_(r, t, false);
  return r;
}

// ---- oneDNN (float32, bfloat16) --------------------------------------------------------------

struct CachedMatmul {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};

using MatmulKey = std::array<int64_t, 11>;
PrimitiveCache<MatmulKey, CachedMatmul> g_matmuls;

dnnl::memory::data_type dnnl_dtype(ScalarType t) {
  return t == kBFloat16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

// The primitive for these operands (f32 output), or null when oneDNN has none (remembered).
std::shared_ptr<CachedMatmul> get_matmul(const Mat& a, const Mat& b, ScalarType dt) {
  const MatmulKey key = {static_cast<int64_t>(dt), a.B, a.R, a.C, b.C, a.sb, a.sr, a.sc, b.sb, b.sr, b.sc};
  return g_matmuls.get(key, [&]() -> std::shared_ptr<CachedMatmul> {
    using dnnl::memory;
    try {
      const memory::desc ad({a.B, a.R, a.C}, dnnl_dtype(dt), memory::dims{a.sb, a.sr, a.sc});
      const memory::desc bd({b.B, b.R, b.C}, dnnl_dtype(dt), memory::dims{b.sb, b.sr, b.sc});
      const memory::desc cd({a.B, a.R, b.C}, memory::data_type::f32, memory::dims{a.R * b.C, b.C, 1});
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), user_scratchpad_attr(), dnnl_engine());
      return std::make_shared<CachedMatmul>(CachedMatmul{pd, dnnl::matmul(pd)});
    } catch (const dnnl::error&) {
      return nullptr;  // unimplemented for these dtypes or strides: cached too; the caller falls back
    }
  });
}

bool dnnl_product(const Mat& a, const Mat& b, ScalarType dt, Tensor& out) {
  auto mm = get_matmul(a, b, dt);
  if (!mm) return false;
  dnnl::engine& eng = dnnl_engine();
  dnnl::memory am(mm->pd.src_desc(), eng, const_cast<void*>(a.data));
  dnnl::memory bm(mm->pd.weights_desc(), eng, const_cast<void*>(b.data));
  dnnl::memory cm(mm->pd.dst_desc(), eng, out.data_ptr());
  run(mm->prim, mm->pd, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  return true;
}

// A single float32 product: oneDNN's own sgemm, which is what the GEMM benchmark measures
// against and which beats the matmul primitive by 5-15% at n >= 1024 on this CPU.
void sgemm_product(const Mat& a, const Mat& b, Tensor& out) {
  const int64_t M = a.R, K = a.C, N = b.C;
  // Below about a million multiply-adds, waking the (passive) workers costs more than it saves:
  // oneDNN's sgemm on 2 threads takes ~45 us for 64x512x10 against ~5 us on one.
  constexpr int64_t kSmallGemm = int64_t{1} << 20;
  sync_omp_threads(M * N * K < kSmallGemm ? 1 : get_num_threads());
  dnnl_status_t st = dnnl_sgemm(a.row_major ? 'N' : 'T', b.row_major ? 'N' : 'T', M, N, K, 1.0f,
                                static_cast<const float*>(a.data), a.row_major ? a.sr : a.sc,
                                static_cast<const float*>(b.data), b.row_major ? b.sr : b.sc, 0.0f,
                                static_cast<float*>(out.data_ptr()), N);
  EMBER_INTERNAL_ASSERT(st == dnnl_success, "dnnl_sgemm failed with status {}", static_cast<int>(st));
}

// ---- cblas (float64) and our own loop (integers) ---------------------------------------------

void dgemm_product(const Mat& a, const Mat& b, Tensor& out) {
  const auto M = static_cast<blasint>(a.R), K = static_cast<blasint>(a.C), N = static_cast<blasint>(b.C);
  const auto lda = static_cast<blasint>(a.row_major ? a.sr : a.sc);
  const auto ldb = static_cast<blasint>(b.row_major ? b.sr : b.sc);
  const auto* A = static_cast<const double*>(a.data);
  const auto* Bp = static_cast<const double*>(b.data);
  auto* Cp = static_cast<double*>(out.data_ptr());
  sync_omp_threads();  // OpenMP OpenBLAS, when the plugin found it (CMakeLists.txt)
  for (int64_t i = 0; i < a.B; ++i) {
    cblas_dgemm(CblasRowMajor, a.row_major ? CblasNoTrans : CblasTrans, b.row_major ? CblasNoTrans : CblasTrans,
                M, N, K, 1.0, A + i * a.sb, lda, Bp + i * b.sb, ldb, 0.0, Cp + i * M * N, N);
  }
}

// int64 inputs, contiguous int64 output; wrapping arithmetic through uint64.
void int_product(const Tensor& a3, const Tensor& b3, Tensor& out) {
  Tensor a = cast_to(a3, kInt64), b = cast_to(b3, kInt64);
  if (!a.is_contiguous()) a = materialize(a);
  if (!b.is_contiguous()) b = materialize(b);
  const int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  const auto* A = static_cast<const uint64_t*>(a.data_ptr());
  const auto* Bp = static_cast<const uint64_t*>(b.data_ptr());
  auto* Cp = static_cast<uint64_t*>(out.data_ptr());
  constexpr int64_t kBlock = 64;
  for (int64_t bi = 0; bi < B; ++bi) {
    const uint64_t* Ab = A + bi * M * K;
    const uint64_t* Bb = Bp + bi * K * N;
    uint64_t* Cb = Cp + bi * M * N;
    for (int64_t i = 0; i < M * N; ++i) Cb[i] = 0;
    for (int64_t p0 = 0; p0 < K; p0 += kBlock) {
      const int64_t p1 = std::min(K, p0 + kBlock);
      for (int64_t i = 0; i < M; ++i) {
        uint64_t* __restrict c = Cb + i * N;
        for (int64_t p = p0; p < p1; ++p) {
          const uint64_t av = Ab[i * K + p];
          const uint64_t* __restrict br = Bb + p * N;
          for (int64_t j = 0; j < N; ++j) c[j] += av * br[j];
        }
      }
    }
  }
}

ScalarType product_dtype(ScalarType t) {
  switch (t) {
    case kFloat16:
    case kBFloat16:
    case kFloat32: return kFloat32;
    case kFloat64: return kFloat64;
    default: return kInt64;
  }
}

// a3 [B, M, K] x b3 [B, K, N] into `out`, a contiguous [B, M, N] of product_dtype(dtype) that
// shares no memory with the operands. Shapes and dtypes are checked by the callers.
void product_into(const Tensor& a3, const Tensor& b3, Tensor& out, const char* op) {
  const ScalarType dt = a3.dtype();
  const int64_t K = a3.size(2);
  if (out.numel() == 0) return;
  if (K == 0) {
    cpu::zero_(out);
    return;
  }
  switch (dt) {
    case kFloat32:
      if (a3.size(0) == 1) {
        sgemm_product(as_mat(a3), as_mat(b3), out);
        return;
      }
      [[fallthrough]];
    case kBFloat16: {
      if (dnnl_product(as_mat(a3), as_mat(b3), dt, out)) return;
      // No primitive for these strides: retry contiguous, and bf16 in float32.
      if (dnnl_product(as_mat(materialize(a3)), as_mat(materialize(b3)), dt, out)) return;
      if (dt == kBFloat16) {
        const Tensor af = cast_to(a3, kFloat32), bf = cast_to(b3, kFloat32);
        if (dnnl_product(as_mat(af), as_mat(bf), kFloat32, out)) return;
      }
      EMBER_THROW(InternalError, "[{}] oneDNN has no matmul for shapes {} and {} ({})", op, a3.sizes(),
                  b3.sizes(), dt);
    }
    case kFloat16: {
      const Tensor af = cast_to(a3, kFloat32), bf = cast_to(b3, kFloat32);
      if (dnnl_product(as_mat(af), as_mat(bf), kFloat32, out)) return;
      EMBER_THROW(InternalError, "[{}] oneDNN has no matmul for shapes {} and {} ({})", op, a3.sizes(),
                  b3.sizes(), dt);
    }
    case kFloat64:
      dgemm_product(as_mat(a3), as_mat(b3), out);
      return;
    default:
      int_product(a3, b3, out);
      return;
  }
}

// The product into a fresh tensor.
Tensor product(const Tensor& a3, const Tensor& b3, const char* op) {
  native::check_matmul_dtype(op, a3.dtype());
  Tensor out = empty_cpu({a3.size(0), a3.size(1), b3.size(2)}, product_dtype(a3.dtype()));
  product_into(a3, b3, out, op);
  return out;
}

// ---- checks ----------------------------------------------------------------------------------

void check_pair(const char* op, const Tensor& a, const Tensor& b, int64_t dim, const char* an, const char* bn) {
  check_defined(op, a, an);
  check_defined(op, b, bn);
  check_cpu(op, a, b);
  native::check_matmul_pair(op, a, b, dim, an, bn);
}

Tensor mm_product(const Tensor& a, const Tensor& b, const char* op) {
  const Tensor p = product(a.unsqueeze(0), b.unsqueeze(0), op);
  return p.view({a.size(0), b.size(1)});
}

template <class C>
void axpby(C* r, const C* s, const C* p, int64_t n, C beta, C alpha, bool beta_zero) {
  if (beta_zero) {
    for (int64_t i = 0; i < n; ++i) r[i] = static_cast<C>(alpha * p[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) r[i] = static_cast<C>(beta * s[i] + alpha * p[i]);
  }
}

}  // namespace

// ---- CPU kernels ---------------------------------------------------------------------------

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_pair("mm", self, mat2, 2, "self", "mat2");
  return cast_to(mm_product(self, mat2, "mm"), self.dtype());
}

Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  check_pair("mm", self, mat2, 2, "self", "mat2");
  check_defined("mm", out, "out");
  check_cpu("mm", out);
  native::prepare_mm_out(self, mat2, out);
  if (out.dtype() == product_dtype(out.dtype()) && out.is_contiguous() && !same_storage(out, self) &&
      !same_storage(out, mat2)) {
    Tensor o3 = out.unsqueeze(0);
    product_into(self.unsqueeze(0), mat2.unsqueeze(0), o3, "mm");
    return out;
  }
  // The libraries write a dense result in the compute dtype: an out that is not contiguous, in
  // another dtype (float16, bfloat16, integers) or sharing memory with an operand (read while
  // written) gets it through a temporary.
  cpu::copy_(out, mm_product(self, mat2, "mm"), false);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_pair("bmm", self, mat2, 3, "self", "mat2");
  EMBER_CHECK(self.size(0) == mat2.size(0), "[bmm] batch sizes differ: shapes {} and {}", self.sizes(),
              mat2.sizes());
  return cast_to(product(self, mat2, "bmm"), self.dtype());
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  check_pair("addmm", mat1, mat2, 2, "mat1", "mat2");
  check_defined("addmm", self, "self");
  check_cpu("addmm", self);
  native::check_addmm_self(self, mat1, mat2);
  const int64_t M = mat1.size(0), N = mat2.size(1);
  const std::array<int64_t, 2> mn = {M, N};
  const IntArrayRef out_shape(mn.data(), mn.size());
  const Tensor p = mm_product(mat1, mat2, "addmm");
  const ScalarType pdt = p.dtype();
  const bool beta_zero = !beta.toBool();
  Tensor s;
  if (!beta_zero) {
    s = empty_cpu(out_shape, pdt);
    cpu::copy_(s, self.expand(out_shape), false);
  }
  Tensor r = empty_cpu(out_shape, pdt);
  const int64_t n = r.numel();
  if (pdt == kFloat32) {
    axpby(r.data_ptr<float>(), beta_zero ? nullptr : s.data_ptr<float>(), p.data_ptr<float>(), n,
          scalar_to<float>(beta), scalar_to<float>(alpha), beta_zero);
  } else if (pdt == kFloat64) {
    axpby(r.data_ptr<double>(), beta_zero ? nullptr : s.data_ptr<double>(), p.data_ptr<double>(), n,
          scalar_to<double>(beta), scalar_to<double>(alpha), beta_zero);
  } else {
    auto* rp = static_cast<uint64_t*>(r.data_ptr());
    const auto* sp = beta_zero ? nullptr : static_cast<const uint64_t*>(s.data_ptr());
    axpby(rp, sp, static_cast<const uint64_t*>(p.data_ptr()), n, static_cast<uint64_t>(scalar_to<int64_t>(beta)),
          static_cast<uint64_t>(scalar_to<int64_t>(alpha)), beta_zero);
  }
  return cast_to(r, self.dtype());
}


}  // namespace ember::cpu
