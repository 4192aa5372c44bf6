// Meta matrix products (plugins/cpu/linalg.cpp): mm, mm.out, bmm, addmm, with the cpu kernels'
// checks (ember/native/Rules.h); results are contiguous, in the inputs' dtype.
#include "MetaHelpers.h"

namespace ember::meta {

Tensor mm(const Tensor& self, const Tensor& mat2) {
  native::check_defined("mm", self, "self");
  native::check_defined("mm", mat2, "mat2");
  native::check_same_device("mm", kMeta, self, mat2);
  native::check_matmul_pair("mm", self, mat2, 2, "self", "mat2");
  native::check_matmul_dtype("mm", self.dtype());
  return empty_meta({self.size(0), mat2.size(1)}, self.dtype());
}

// The cpu kernel's order: the operands, out's dtype, the dtype's support, out's resize and overlap.
Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  native::check_defined("mm", self, "self");
  native::check_defined("mm", mat2, "mat2");
  native::check_same_device("mm", kMeta, self, mat2);
  native::check_matmul_pair("mm", self, mat2, 2, "self", "mat2");
  native::check_defined("mm", out, "out");
  native::check_same_device("mm", kMeta, self, out);
  native::prepare_mm_out(self, mat2, out);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  native::check_defined("bmm", self, "self");
  native::check_defined("bmm", mat2, "mat2");
  native::check_same_device("bmm", kMeta, self, mat2);
  native::check_matmul_pair("bmm", self, mat2, 3, "self", "mat2");
  EMBER_CHECK(self.size(0) == mat2.size(0), "[bmm] batch sizes differ: shapes {} and {}", self.sizes(), mat2.sizes());
  native::check_matmul_dtype("bmm", self.dtype());
  return empty_meta({self.size(0), self.size(1), mat2.size(2)}, self.dtype());
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& /*beta*/,
             const Scalar& /*alpha*/) {
  native::check_defined("addmm", mat1, "mat1");
  native::check_defined("addmm", mat2, "mat2");
  native::check_same_device("addmm", kMeta, mat1, mat2);
  native::check_matmul_pair("addmm", mat1, mat2, 2, "mat1", "mat2");
  native::check_defined("addmm", self, "self");
  native::check_same_device("addmm", kMeta, mat1, self);
  native::check_addmm_self(self, mat1, mat2);
  native::check_matmul_dtype("addmm", mat1.dtype());
  return empty_meta({mat1.size(0), mat2.size(1)}, mat1.dtype());
}

}  // namespace ember::meta
