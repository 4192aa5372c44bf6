// The LAPACK-backed linear algebra kernels: linalg_inv_ex, linalg_solve_ex, linalg_cholesky_ex,
// linalg_qr, _linalg_svd, _linalg_eigh, linalg_lu_factor_ex, _linalg_det, _linalg_slogdet and
// _linalg_check_errors (shapes, checks and layouts: Note [Linear algebra kernels] in
// ember/native/LinalgRules.h).
//
// LAPACK is OpenBLAS's, called through the Fortran symbols it exports (sgetrf_, dgetrf_, ...):
// Debian installs no LAPACKE header with it, and LAPACKE would only add a transposing copy for
// row-major input, which the column-major results here never need. Fortran ABI: every argument
// by pointer, int32 sizes, and each character argument's hidden length appended as size_t.
// Batches run one matrix at a time: threaded over the batch when the matrices are small (LAPACK
// then runs on one thread per worker), else in order with OpenBLAS's own threads.
#include <climits>
#include <cmath>
#include <vector>

#include "CPUKernels.h"
#include "Loops.h"
#include "ember/core/Parallel.h"
#include "ember/generated/Functions.h"
#include "ember/native/LinalgRules.h"

extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
}

namespace ember::cpu {
namespace {

template <class T>
struct Lapack;

#define EMBER_LAPACK_OPS(T, p)                                                                                       \
  template <>                                                                                                        \
  struct Lapack<T> {                                                                                                 \
    static void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) { p##getrf_(&m, &n, a, &lda, ipiv, info); } \
    static void getri(int n, T* a, int lda, const int* ipiv, T* work, int lwork, int* info) {                        \
      p##getri_(&n, a, &lda, ipiv, work, &lwork, info);                                                              \
    }                                                                                                                \
    static void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info) { \
      p##getrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);                                                 \
    }                                                                                                                \
    static void potrf(char uplo, int n, T* a, int lda, int* info) { p##potrf_(&uplo, &n, a, &lda, info, 1); }        \
    static void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {                          \
      p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                           \
    }                                                                                                                \
    static void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {             \
      p##orgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);                                                       \
    }                                                                                                                \
    static void gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt, T* work,         \
                      int lwork, int* iwork, int* info) {                                                            \
      p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);                        \
    }                                                                                                                \
    static void syevd(char jobz, char uplo, int n, T* a, int lda, T* w, T* work, int lwork, int* iwork, int liwork,  \
                      int* info) {                                                                                   \
      p##syevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);                             \
    }                                                                                                                \
  };
EMBER_LAPACK_OPS(float, s)
EMBER_LAPACK_OPS(double, d)
#undef EMBER_LAPACK_OPS

// f(T{}) for the dtype (float32 or float64: the rules rejected every other).
template <class F>
void float_or_double(ScalarType t, const F& f) {
  if (t == kFloat32)
    f(float{});
  else
    f(double{});
}

// LAPACK's sizes are int32.
int lapack_int(int64_t v, const char* api) {
  EMBER_CHECK(v <= INT_MAX, "[{}] a matrix dimension of {} is too large for LAPACK (at most {})", api, v, INT_MAX);
  return static_cast<int>(v);
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// f(begin, end) over the batch's matrices, see the file comment; `n` is a matrix's order (the
// cost of one is about n^3). Each call allocates its own LAPACK workspace.
template <class F>
void for_batch(int64_t batch, int64_t n, const F& f) {
  if (batch <= 0) return;
  const int64_t cost = std::max<int64_t>(n * n * n, 1);
  if (batch > 1 && n <= 128 && batch * cost >= kGrainSize && !in_parallel_region()) {
    parallel_for(0, batch, std::max<int64_t>(1, kGrainSize / cost), f);
  } else {
    sync_omp_threads();
    f(0, batch);
  }
}

// A fresh batch of column-major matrices holding `src` (broadcast to `sizes`).
Tensor column_major_copy(const Tensor& src, IntArrayRef sizes) {
  Tensor r = native::empty_matrices(kCPU, sizes, src.dtype());
  if (r.numel() > 0) cpu::copy_(r, src.expand(sizes), false);
  return r;
}

template <class T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Zeros the triangle a factorization leaves untouched: the strict upper one (keep_lower) or the
// strict lower one, of a column-major n x n matrix.
template <class T>
void zero_triangle(T* a, int64_t n, bool keep_lower) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i)
      if (keep_lower ? i < j : i > j) a[j * n + i] = T(0);
}

// LAPACK's optimal workspace for a call made with lwork = -1.
template <class T>
int query_size(T w) {
  return std::max(1, static_cast<int>(w));
}

void zero_info(Tensor& info) {
  if (info.numel() > 0) cpu::zero_(info);
}

// The getrf factorizations of `lu` (column-major n x n matrices, in place): pivots and info.
template <class T>
void lu_batch(Tensor& lu, int32_t* piv, int32_t* info, int64_t batch, int64_t n, const char* api) {
  const int ni = lapack_int(n, api);
  T* a = ptr<T>(lu);
  for_batch(batch, n, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int inf = 0;
      Lapack<T>::getrf(ni, ni, a + b * n * n, std::max(ni, 1), piv + b * n, &inf);
      info[b] = inf;
    }
  });
}

}  // namespace

void _linalg_check_errors(const Tensor& info, std::string_view api_name, bool is_matrix) {
  native::check_info_tensor(info);
  const Tensor c = info.is_contiguous() ? info : materialize(info);
  native::check_linalg_infos(api_name, ptr<int32_t>(c), c.numel(), is_matrix);
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  auto [inv_, info] = native::inv_outputs(kCPU, A);
  Tensor inv = std::move(inv_);
  zero_info(info);
  const int64_t n = A.size(-1), batch = info.numel();
  if (inv.numel() > 0) {
    cpu::copy_(inv, A, false);
    const int ni = lapack_int(n, "linalg.inv");
    float_or_double(A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* a = ptr<T>(inv);
      int32_t* inf = ptr<int32_t>(info);
      T wq = 0;
      int q = 0;
      std::vector<int> piv0(n);
      Lapack<T>::getri(ni, a, ni, piv0.data(), &wq, -1, &q);
      const int lwork = query_size(wq);
      for_batch(batch, n, [&](int64_t b0, int64_t b1) {
        std::vector<int> piv(n);
        std::vector<T> work(lwork);
        for (int64_t b = b0; b < b1; ++b) {
          T* ab = a + b * n * n;
          int r = 0;
          Lapack<T>::getrf(ni, ni, ab, ni, piv.data(), &r);
          if (r == 0) Lapack<T>::getri(ni, ab, ni, piv.data(), work.data(), lwork, &r);
          inf[b] = r;
        }
      });
    });
  }
  if (check_errors) cpu::_linalg_check_errors(info, "linalg.inv_ex", A.dim() == 2);
  return {std::move(inv), std::move(info)};
}

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  check_cpu("linalg.solve", A, B);
  const native::SolveShape s = native::solve_shape("linalg.solve", A, B, left);
  const int64_t n = A.size(-1), nrhs = s.nrhs;
  Tensor X = empty_strided_cpu(s.result, s.result_strides, A.dtype());
  Tensor info = native::empty_info(kCPU, s.batch);
  zero_info(info);
  const int64_t batch = info.numel();
  if (n > 0 && batch > 0) {
    // As LibTorch: a contiguous A is factorized as A^T (its row-major data is A^T column-major, a
    // plain copy) and solved with the transposed system, so info and rounding match LibTorch's.
    const bool use_AT = A.is_contiguous();
    Tensor lu = column_major_copy(use_AT ? A.transpose(-2, -1) : A, native::with_matrix(s.batch, n, n));
    // The right-hand sides as column-major n x nrhs matrices (B^T when solving XA = B), solved in
    // place: X itself when its layout is that one, else a buffer copied into X at the end.
    Tensor Xm = s.vector_case ? X.unsqueeze(-1) : X;
    if (!left) Xm = Xm.transpose(-2, -1);
    Tensor Bm = s.vector_case ? B.unsqueeze(-1) : B;
    if (!left) Bm = Bm.transpose(-2, -1);
    const DimVector wsizes = native::with_matrix(s.batch, n, nrhs);
    const bool in_place = Xm.strides() == IntArrayRef(native::matrix_strides(wsizes));
    Tensor W = in_place ? Xm : native::empty_matrices(kCPU, wsizes, A.dtype());
    if (W.numel() > 0) cpu::copy_(W, Bm.expand(wsizes), false);
    const int ni = lapack_int(n, "linalg.solve"), nr = lapack_int(nrhs, "linalg.solve");
    float_or_double(A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* a = ptr<T>(lu);
      T* w = W.numel() > 0 ? ptr<T>(W) : nullptr;
      int32_t* inf = ptr<int32_t>(info);
      for_batch(batch, n, [&](int64_t b0, int64_t b1) {
        std::vector<int> piv(n);
        for (int64_t b = b0; b < b1; ++b) {
          T* ab = a + b * n * n;
          int r = 0;
          Lapack<T>::getrf(ni, ni, ab, ni, piv.data(), &r);
          if (r == 0 && nr > 0)
            Lapack<T>::getrs(left != use_AT ? 'N' : 'T', ni, nr, ab, ni, piv.data(), w + b * n * nrhs, ni, &r);
          inf[b] = r;
        }
      });
    });
    if (!in_place && W.numel() > 0) cpu::copy_(Xm, W, false);
  }
  if (check_errors) cpu::_linalg_check_errors(info, "torch.linalg.solve_ex", A.dim() == 2);
  return {std::move(X), std::move(info)};
}

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& self, bool upper, bool check_errors) {
  auto [L_, info] = native::cholesky_outputs(kCPU, self);
  Tensor L = std::move(L_);
  zero_info(info);
  const int64_t n = self.size(-1), batch = info.numel();
  if (L.numel() > 0) {
    cpu::copy_(L, self, false);
    const int ni = lapack_int(n, "linalg.cholesky");
    float_or_double(self.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* a = ptr<T>(L);
      int32_t* inf = ptr<int32_t>(info);
      for_batch(batch, n, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          int r = 0;
          Lapack<T>::potrf(upper ? 'U' : 'L', ni, a + b * n * n, ni, &r);
          zero_triangle(a + b * n * n, n, !upper);
          inf[b] = r;
        }
      });
    });
  }
  if (check_errors) cpu::_linalg_check_errors(info, "linalg.cholesky_ex", self.dim() == 2);
  return {std::move(L), std::move(info)};
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  auto [Q_, R_] = native::qr_outputs(kCPU, A, mode);
  Tensor Q = std::move(Q_), R = std::move(R_);
  const native::QrMode md = native::qr_mode(mode);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t batch = numel_of(native::batch_shape(A));
  const int64_t rrows = R.size(-2), qcols = md.compute_q ? Q.size(-1) : 0;
  if (batch == 0 || m == 0) return {std::move(Q), std::move(R)};
  Tensor F = column_major_copy(A, A.sizes());  // geqrf's reflectors and R
  const int mi = lapack_int(m, "linalg.qr"), ni = lapack_int(n, "linalg.qr"), ki = static_cast<int>(k);
  const int qi = static_cast<int>(qcols);
  float_or_double(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* f = ptr<T>(F);
    T* r = R.numel() > 0 ? ptr<T>(R) : nullptr;
    T* q = md.compute_q && Q.numel() > 0 ? ptr<T>(Q) : nullptr;
    T wq = 0, wq2 = 0;
    int info = 0;
    std::vector<T> tau0(std::max<int64_t>(k, 1));
    Lapack<T>::geqrf(mi, ni, f, mi, tau0.data(), &wq, -1, &info);
    if (q) Lapack<T>::orgqr(mi, qi, ki, q, mi, tau0.data(), &wq2, -1, &info);
    const int lwork = std::max(query_size(wq), query_size(wq2));
    for_batch(batch, std::max(m, n), [&](int64_t b0, int64_t b1) {
      std::vector<T> tau(std::max<int64_t>(k, 1)), work(lwork);
      for (int64_t b = b0; b < b1; ++b) {
        T* fb = f + b * m * n;
        int inf = 0;
        if (n > 0) Lapack<T>::geqrf(mi, ni, fb, mi, tau.data(), work.data(), lwork, &inf);
        if (r) {
          T* rb = r + b * rrows * n;
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < rrows; ++i) rb[j * rrows + i] = i <= j ? fb[j * m + i] : T(0);
        }
        if (q) {
          T* qb = q + b * m * qcols;
          std::copy(fb, fb + k * m, qb);
          Lapack<T>::orgqr(mi, qi, ki, qb, mi, tau.data(), work.data(), lwork, &inf);
        }
      }
    });
  });
  return {std::move(Q), std::move(R)};
}

std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv,
                                               std::optional<std::string_view> /*driver: cuSOLVER's only*/) {
  auto [U_, S_, Vh_] = native::svd_outputs(kCPU, A, full_matrices, compute_uv);
  Tensor U = std::move(U_), S = std::move(S_), Vh = std::move(Vh_);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t batch = numel_of(native::batch_shape(A));
  if (batch == 0) return {std::move(U), std::move(S), std::move(Vh)};
  if (k == 0) {
    // No singular values: the full bases are identities, as LibTorch's.
    if (compute_uv && full_matrices) {
      if (U.numel() > 0) cpu::copy_(U, ember::eye(m, TensorOptions().dtype(A.dtype())).expand(U.sizes()), false);
      if (Vh.numel() > 0) cpu::copy_(Vh, ember::eye(n, TensorOptions().dtype(A.dtype())).expand(Vh.sizes()), false);
    }
    return {std::move(U), std::move(S), std::move(Vh)};
  }
  Tensor F = column_major_copy(A, A.sizes());  // gesdd overwrites its input
  const int mi = lapack_int(m, "linalg.svd"), ni = lapack_int(n, "linalg.svd");
  const char jobz = compute_uv ? (full_matrices ? 'A' : 'S') : 'N';
  const int ucols = compute_uv ? static_cast<int>(U.size(-1)) : 0;
  const int vrows = compute_uv ? static_cast<int>(Vh.size(-2)) : 1;
  Tensor info = empty_cpu({batch}, kInt32);
  float_or_double(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* f = ptr<T>(F);
    T* s = ptr<T>(S);
    T* u = compute_uv ? ptr<T>(U) : nullptr;
    T* vt = compute_uv ? ptr<T>(Vh) : nullptr;
    int32_t* inf = ptr<int32_t>(info);
    T wq = 0, dummy = 0;
    int q = 0;
    std::vector<int> iwork0(8 * k);
    Lapack<T>::gesdd(jobz, mi, ni, f, mi, s, u ? u : &dummy, mi, vt ? vt : &dummy, std::max(vrows, 1), &wq, -1,
                     iwork0.data(), &q);
    const int lwork = query_size(wq);
    for_batch(batch, std::max(m, n), [&](int64_t b0, int64_t b1) {
      std::vector<T> work(lwork);
      std::vector<int> iwork(8 * k);
      T scratch = 0;
      for (int64_t b = b0; b < b1; ++b) {
        int r = 0;
        Lapack<T>::gesdd(jobz, mi, ni, f + b * m * n, mi, s + b * k, u ? u + b * m * ucols : &scratch, mi,
                         vt ? vt + b * vrows * n : &scratch, std::max(vrows, 1), work.data(), lwork, iwork.data(), &r);
        inf[b] = r;
      }
    });
  });
  native::check_linalg_infos("linalg.svd", ptr<int32_t>(info), batch, A.dim() == 2);
  return {std::move(U), std::move(S), std::move(Vh)};
}

std::tuple<Tensor, Tensor> _linalg_eigh(const Tensor& A, std::string_view UPLO, bool compute_v) {
  auto [w_, V_] = native::eigh_outputs(kCPU, A, UPLO, compute_v);
  Tensor w = std::move(w_), V = std::move(V_);
  const bool upper = native::eigh_upper("linalg.eigh", UPLO);
  const int64_t n = A.size(-1), batch = numel_of(native::batch_shape(A));
  if (batch == 0 || n == 0) return {std::move(w), std::move(V)};
  // syevd overwrites its input with the eigenvectors: V itself, or a scratch copy.
  Tensor F = compute_v ? V : native::empty_matrices(kCPU, A.sizes(), A.dtype());
  cpu::copy_(F, A, false);
  const int ni = lapack_int(n, "linalg.eigh");
  const char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  Tensor info = empty_cpu({batch}, kInt32);
  float_or_double(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* a = ptr<T>(F);
    T* ev = ptr<T>(w);
    int32_t* inf = ptr<int32_t>(info);
    T wq = 0;
    int iq = 0, q = 0;
    Lapack<T>::syevd(jobz, uplo, ni, a, ni, ev, &wq, -1, &iq, -1, &q);
    const int lwork = query_size(wq), liwork = std::max(iq, 1);
    for_batch(batch, n, [&](int64_t b0, int64_t b1) {
      std::vector<T> work(lwork);
      std::vector<int> iwork(liwork);
      for (int64_t b = b0; b < b1; ++b) {
        int r = 0;
        Lapack<T>::syevd(jobz, uplo, ni, a + b * n * n, ni, ev + b * n, work.data(), lwork, iwork.data(), liwork, &r);
        inf[b] = r;
      }
    });
  });
  native::check_linalg_infos("linalg.eigh", ptr<int32_t>(info), batch, A.dim() == 2);
  return {std::move(w), std::move(V)};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  auto [LU_, piv_, info_] = native::lu_factor_outputs(kCPU, A, pivot);
  Tensor LU = std::move(LU_), piv = std::move(piv_), info = std::move(info_);
  zero_info(info);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batch = info.numel();
  if (LU.numel() > 0) {
    cpu::copy_(LU, A, false);
    const int mi = lapack_int(m, "linalg.lu_factor_ex"), ni = lapack_int(n, "linalg.lu_factor_ex");
    float_or_double(A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* a = ptr<T>(LU);
      int32_t* p = ptr<int32_t>(piv);
      int32_t* inf = ptr<int32_t>(info);
      for_batch(batch, std::max(m, n), [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          int r = 0;
          Lapack<T>::getrf(mi, ni, a + b * m * n, mi, p + b * k, &r);
          inf[b] = r;
        }
      });
    });
  }
  if (check_errors) cpu::_linalg_check_errors(info, "torch.linalg.lu_factor_ex", A.dim() == 2);
  return {std::move(LU), std::move(piv), std::move(info)};
}

namespace {

// The LU factorization of a square batch into LU and piv, for det and slogdet; then
// f(diag, b) per matrix with the sign of its permutation (+1 or -1) and its U's diagonal.
template <class T, class F>
void lu_det(const Tensor& A, Tensor& LU, Tensor& piv, const char* api, const F& f) {
  const int64_t n = A.size(-1), batch = numel_of(native::batch_shape(A));
  if (batch == 0) return;
  if (n > 0) cpu::copy_(LU, A, false);
  std::vector<int32_t> info(batch);
  if (n > 0) lu_batch<T>(LU, ptr<int32_t>(piv), info.data(), batch, n, api);
  const T* a = n > 0 ? ptr<T>(LU) : nullptr;
  const int32_t* p = n > 0 ? ptr<int32_t>(piv) : nullptr;
  for (int64_t b = 0; b < batch; ++b) {
    T perm = 1;
    for (int64_t i = 0; i < n; ++i)
      if (p[b * n + i] != i + 1) perm = -perm;
    f(b, perm, a ? a + b * n * n : nullptr, n);
  }
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _linalg_det(const Tensor& A) {
  auto [det_, LU_, piv_] = native::det_outputs(kCPU, A);
  Tensor det = std::move(det_), LU = std::move(LU_), piv = std::move(piv_);
  float_or_double(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* d = ptr<T>(det);
    lu_det<T>(A, LU, piv, "linalg.det", [&](int64_t b, T perm, const T* a, int64_t n) {
      T r = perm;
      for (int64_t i = 0; i < n; ++i) r *= a[i * n + i];
      d[b] = r;
    });
  });
  return {std::move(det), std::move(LU), std::move(piv)};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_slogdet(const Tensor& A) {
  auto [sign_, lad_, LU_, piv_] = native::slogdet_outputs(kCPU, A);
  Tensor sign = std::move(sign_), lad = std::move(lad_), LU = std::move(LU_), piv = std::move(piv_);
  float_or_double(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* sg = ptr<T>(sign);
    T* la = ptr<T>(lad);
    lu_det<T>(A, LU, piv, "linalg.slogdet", [&](int64_t b, T perm, const T* a, int64_t n) {
      T s = perm, l = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T x = a[i * n + i];
        s *= x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
        l += std::log(std::abs(x));
      }
      sg[b] = s;
      la[b] = l;
    });
  });
  return {std::move(sign), std::move(lad), std::move(LU), std::move(piv)};
}

}  // namespace ember::cpu
