// Sparse kernels not written yet: each raises NotImplementedError naming what is missing.
#include "SparseUtil.h"
#include "ember/generated/SparseCPUFunctions.h"
#include "ember/generated/SparseCsrCPUFunctions.h"

namespace ember::sparsecsrcpu {

void add_out_sparse_csr(const Tensor&, const Tensor&, const Scalar&, Tensor&, OutKind) {
  EMBER_THROW(::ember::NotImplementedError, "[add] sparse CSR operands are not supported yet");
}
void mul_out_sparse_csr(const Tensor&, const Tensor&, Tensor&, OutKind) {
  EMBER_THROW(::ember::NotImplementedError, "[mul] sparse CSR operands are not supported yet");
}
Tensor sum_dim_sparse_csr(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>) {
  EMBER_THROW(::ember::NotImplementedError, "[sum] sparse CSR input is not supported yet");
}

}  // namespace ember::sparsecsrcpu
