// The cpu plugin's one registration file: every kernel it provides and the key it serves.
#include "Loops.h"
#include "Ops.h"
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("cpu", EMBER_VERSION_STRING)

using namespace ember;

EMBER_LIBRARY_IMPL(aten, CPU, m) {
  cpu::init_cpu_isa();
  // factories.cpp
  m.impl("empty", EMBER_FN(cpu::empty));
  m.impl("empty_strided", EMBER_FN(cpu::empty_strided));
  m.impl("arange.start_step", EMBER_FN(cpu::arange));
  m.impl("fill_.Scalar", EMBER_FN(cpu::fill_));
  m.impl("zero_", EMBER_FN(cpu::zero_));
  // binary.cpp
  m.impl("add.Tensor", EMBER_FN(cpu::add_tensor));
  m.impl("add_.Tensor", EMBER_FN(cpu::add__tensor));
  m.impl("add.out", EMBER_FN(cpu::add_out));
  m.impl("add.Scalar", EMBER_FN(cpu::add_scalar));
  m.impl("add_.Scalar", EMBER_FN(cpu::add__scalar));
  m.impl("sub.Tensor", EMBER_FN(cpu::sub_tensor));
  m.impl("sub_.Tensor", EMBER_FN(cpu::sub__tensor));
  m.impl("sub.out", EMBER_FN(cpu::sub_out));
  m.impl("sub.Scalar", EMBER_FN(cpu::sub_scalar));
  m.impl("sub_.Scalar", EMBER_FN(cpu::sub__scalar));
  m.impl("mul.Tensor", EMBER_FN(cpu::mul_tensor));
  m.impl("mul_.Tensor", EMBER_FN(cpu::mul__tensor));
  m.impl("mul.out", EMBER_FN(cpu::mul_out));
  m.impl("mul.Scalar", EMBER_FN(cpu::mul_scalar));
  m.impl("mul_.Scalar", EMBER_FN(cpu::mul__scalar));
  m.impl("div.Tensor", EMBER_FN(cpu::div_tensor));
  m.impl("div_.Tensor", EMBER_FN(cpu::div__tensor));
  m.impl("div.out", EMBER_FN(cpu::div_out));
  m.impl("div.Scalar", EMBER_FN(cpu::div_scalar));
  m.impl("div_.Scalar", EMBER_FN(cpu::div__scalar));
  m.impl("eq.Tensor", EMBER_FN(cpu::eq_tensor));
  m.impl("eq.Scalar", EMBER_FN(cpu::eq_scalar));
  m.impl("ne.Tensor", EMBER_FN(cpu::ne_tensor));
  m.impl("ne.Scalar", EMBER_FN(cpu::ne_scalar));
  m.impl("lt.Tensor", EMBER_FN(cpu::lt_tensor));
  m.impl("lt.Scalar", EMBER_FN(cpu::lt_scalar));
  m.impl("le.Tensor", EMBER_FN(cpu::le_tensor));
  m.impl("le.Scalar", EMBER_FN(cpu::le_scalar));
  m.impl("gt.Tensor", EMBER_FN(cpu::gt_tensor));
  m.impl("gt.Scalar", EMBER_FN(cpu::gt_scalar));
  m.impl("ge.Tensor", EMBER_FN(cpu::ge_tensor));
  m.impl("ge.Scalar", EMBER_FN(cpu::ge_scalar));
  // copy.cpp
  m.impl("copy_", EMBER_FN(cpu::copy_));
  // reduce.cpp
  m.impl("sum", EMBER_FN(cpu::sum));
  m.impl("sum.dim_IntList", EMBER_FN(cpu::sum_dim));
  m.impl("item", EMBER_FN(cpu::item));
  m.impl("equal", EMBER_FN(cpu::equal));
  m.impl("allclose", EMBER_FN(cpu::allclose));
}

// Device-generic kernels built from other operators (they dispatch, so any backend with
// empty/copy_/fill_ gets them) and the metadata-only views.
EMBER_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("zeros", EMBER_FN(cpu::zeros));
  m.impl("ones", EMBER_FN(cpu::ones));
  m.impl("full", EMBER_FN(cpu::full));
  m.impl("empty_like", EMBER_FN(cpu::empty_like));
  m.impl("zeros_like", EMBER_FN(cpu::zeros_like));
  m.impl("ones_like", EMBER_FN(cpu::ones_like));
  m.impl("full_like", EMBER_FN(cpu::full_like));
  m.impl("_to_copy", EMBER_FN(cpu::_to_copy));
  m.impl("clone", EMBER_FN(cpu::clone));
  m.impl("view", EMBER_FN(cpu::view));
  m.impl("select.int", EMBER_FN(cpu::select));
  m.impl("slice.Tensor", EMBER_FN(cpu::slice));
  m.impl("transpose.int", EMBER_FN(cpu::transpose));
  m.impl("t", EMBER_FN(cpu::t));
  m.impl("unsqueeze", EMBER_FN(cpu::unsqueeze));
  m.impl("expand", EMBER_FN(cpu::expand));
  m.impl("as_strided", EMBER_FN(cpu::as_strided));
}

// Composites whose autograd comes from the operators they call.
EMBER_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("to.dtype", EMBER_FN(cpu::to_dtype));
  m.impl("to.device", EMBER_FN(cpu::to_device));
  m.impl("cpu", EMBER_FN(cpu::to_cpu));
  m.impl("contiguous", EMBER_FN(cpu::contiguous));
  m.impl("reshape", EMBER_FN(cpu::reshape));
}

// Matrix products (see Note [CPU matrix product paths] in linalg.cpp).
EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // linalg.cpp
  m.impl("mm", EMBER_FN(cpu::mm));
  m.impl("mm.out", EMBER_FN(cpu::mm_out));
  m.impl("bmm", EMBER_FN(cpu::bmm));
  m.impl("addmm", EMBER_FN(cpu::addmm));
}

EMBER_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  // linalg.cpp
  m.impl("matmul", EMBER_FN(cpu::matmul));
}
