// Sparse x dense matrix products. One kernel: CSR rows times a row-major dense matrix; a COO
// operand goes through CSR, and dense x sparse through the transposed product. On the cpu the rows
// are split over the intra-op threads (each output row is written by one thread, so no
// reduction); elsewhere each entry's product row is gathered and summed into its output row with
// index_add (Note [Sparse kernels on every device] in SparseUtil.h). float16 and bfloat16
// accumulate in float.
#include <type_traits>

#include "../cpu/DtypeVisit.h"
#include "SparseUtil.h"
#include "ember/core/Parallel.h"
#include "ember/native/SparseRules.h"

namespace ember::sparse {

namespace {

// out[r, :] = beta_out + alpha * sum_p val[p] * dense[col[p], :], for rows r of the CSR matrix,
// accumulated in Acc (float for float16/bfloat16, else T).
template <class T, class Acc, class I>
void csr_dense_rows(int64_t rows, int64_t m, const I* crow, const I* col, const T* val, const T* dense, T* out,
                    Acc alpha) {
  constexpr bool kReduced = !std::is_same_v<T, Acc>;
  const int64_t nnz = static_cast<int64_t>(crow[rows]);
  // About 32K multiply-adds per task.
  const int64_t per_row = std::max<int64_t>(1, (nnz / std::max<int64_t>(rows, 1) + 1) * m);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / per_row);
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    std::vector<Acc> buf(kReduced ? static_cast<size_t>(m) : 0);
    for (int64_t r = b; r < e; ++r) {
      T* o = out + r * m;
      Acc* acc;
      if constexpr (kReduced) {
        for (int64_t j = 0; j < m; ++j) buf[static_cast<size_t>(j)] = static_cast<Acc>(o[j]);
        acc = buf.data();
      } else {
        acc = o;
      }
      for (int64_t p = static_cast<int64_t>(crow[r]); p < static_cast<int64_t>(crow[r + 1]); ++p) {
        const Acc a = static_cast<Acc>(alpha * static_cast<Acc>(val[p]));
        const T* d = dense + static_cast<int64_t>(col[p]) * m;
        for (int64_t j = 0; j < m; ++j) acc[j] += a * static_cast<Acc>(d[j]);
      }
      if constexpr (kReduced)
        for (int64_t j = 0; j < m; ++j) o[j] = static_cast<T>(buf[static_cast<size_t>(j)]);
    }
  });
}

// The device path: out += alpha * values[p] * dense[col[p], :] summed per row, in Acc.
void csr_mm_into_by_entries(const Tensor& csr_t, const Tensor& dense, Tensor& out, const Scalar& alpha) {
  const auto& csr = sparse_csr_impl(csr_t, "mm");
  if (csr.nnz() == 0) return;
  const ScalarType dt = out.scalar_type();
  const ScalarType acc = dt == kFloat16 || dt == kBFloat16 ? kFloat32 : dt;
  const Tensor scaled = csr.values().to(acc).mul(alpha).unsqueeze(1);
  const Tensor products = dense.index_select(0, csr.col_indices().to(kInt64)).to(acc).mul(scaled);
  if (acc == dt)
    out.index_add_(0, csr_rows(csr_t), products);
  else
    out.copy_(out.to(acc).index_add_(0, csr_rows(csr_t), products));
}

// out (dense [rows, m], already holding beta * self or zeros) += alpha * csr @ dense.
void csr_mm_into(const char* op, const Tensor& csr_t, const Tensor& dense, Tensor& out, const Scalar& alpha) {
  if (out.scalar_type() == kBool) cpu::throw_unsupported_dtype(op, kBool);
  if (!out.is_cpu()) return csr_mm_into_by_entries(csr_t, dense, out, alpha);
  const auto& csr = sparse_csr_impl(csr_t, op);
  const Tensor d = dense.contiguous();
  const Tensor v = csr.values().contiguous();
  const int64_t rows = csr_t.size(0), m = d.size(1);
  // Int32 and int64 indices alike: the loop is typed on the index type too.
  const bool i32 = csr.crow_indices().scalar_type() == kInt32;
  cpu::visit_dtype(out.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      using Acc = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
      const Acc a = alpha.to<Acc>();
      if (i32) {
        csr_dense_rows<T, Acc, int32_t>(rows, m, csr.crow_indices().data_ptr<int32_t>(),
                                        csr.col_indices().data_ptr<int32_t>(), v.data_ptr<T>(), d.data_ptr<T>(),
                                        out.data_ptr<T>(), a);
      } else {
        csr_dense_rows<T, Acc, int64_t>(rows, m, csr.crow_indices().data_ptr<int64_t>(),
                                        csr.col_indices().data_ptr<int64_t>(), v.data_ptr<T>(), d.data_ptr<T>(),
                                        out.data_ptr<T>(), a);
      }
    }
  });
}

Tensor addmm_any(const char* op, const Tensor* self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                 const Scalar& alpha) {
  if (mat1.layout() == kStrided && mat2.layout() != kStrided) {
    // dense @ sparse = (sparse^T @ dense^T)^T, the transpose taken on the COO form.
    native::check_dense_sparse_mm(op, mat1, mat2);
    const Tensor st = (mat2.layout() == kSparseCsr ? mat2.to_sparse() : mat2).t();
    const Tensor prod = addmm_any(op, nullptr, st, mat1.t(), 0, alpha).t();
    if (!self || beta.to<double>() == 0) return prod.contiguous();
    native::check_addmm_self(op, *self, {mat1.size(0), mat2.size(1)});
    return self->expand({mat1.size(0), mat2.size(1)}).mul(beta).to(prod.scalar_type()).add(prod).contiguous();
  }
  native::check_sparse_mm(op, mat1, mat2);
  const std::vector<int64_t> out_size{mat1.size(0), mat2.size(1)};
  Tensor out;
  if (self) {
    native::check_addmm_self(op, *self, out_size);
    // beta == 0 ignores self (NaN and inf included), as the dense addmm.
    out = beta.to<double>() == 0 ? zeros(out_size, mat2.options())
                                 : self->expand(out_size).mul(beta).to(mat2.scalar_type()).contiguous();
  } else {
    out = zeros(out_size, mat2.options());
  }
  const Tensor csr = mat1.layout() == kSparseCsr ? mat1 : mat1.to_sparse_csr();
  csr_mm_into(op, csr, mat2, out, alpha);
  return out;
}

}  // namespace

Tensor mm_sparse(const Tensor& self, const Tensor& mat2) { return addmm_any("mm", nullptr, self, mat2, 0, 1); }

Tensor addmm_sparse(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                    const Scalar& alpha) {
  return addmm_any("addmm", &self, mat1, mat2, beta, alpha);
}

}  // namespace ember::sparse
