// The cpu plugin's one registration file: every kernel it provides and the key it serves.
#include "Loops.h"
#include "Ops.h"
#include "Pointwise.h"
#include "Reduce.h"
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

EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // pointwise (unary.cpp)
  m.impl("neg", EMBER_FN(cpu::neg));
  m.impl("neg_", EMBER_FN(cpu::neg_));
  m.impl("neg.out", EMBER_FN(cpu::neg_out));
  m.impl("abs", EMBER_FN(cpu::abs));
  m.impl("abs_", EMBER_FN(cpu::abs_));
  m.impl("abs.out", EMBER_FN(cpu::abs_out));
  m.impl("sign", EMBER_FN(cpu::sign));
  m.impl("sign_", EMBER_FN(cpu::sign_));
  m.impl("sign.out", EMBER_FN(cpu::sign_out));
  m.impl("exp", EMBER_FN(cpu::exp));
  m.impl("exp_", EMBER_FN(cpu::exp_));
  m.impl("exp.out", EMBER_FN(cpu::exp_out));
  m.impl("log", EMBER_FN(cpu::log));
  m.impl("log_", EMBER_FN(cpu::log_));
  m.impl("log.out", EMBER_FN(cpu::log_out));
  m.impl("log1p", EMBER_FN(cpu::log1p));
  m.impl("log1p_", EMBER_FN(cpu::log1p_));
  m.impl("log1p.out", EMBER_FN(cpu::log1p_out));
  m.impl("sqrt", EMBER_FN(cpu::sqrt));
  m.impl("sqrt_", EMBER_FN(cpu::sqrt_));
  m.impl("sqrt.out", EMBER_FN(cpu::sqrt_out));
  m.impl("rsqrt", EMBER_FN(cpu::rsqrt));
  m.impl("rsqrt_", EMBER_FN(cpu::rsqrt_));
  m.impl("rsqrt.out", EMBER_FN(cpu::rsqrt_out));
  m.impl("sin", EMBER_FN(cpu::sin));
  m.impl("sin_", EMBER_FN(cpu::sin_));
  m.impl("sin.out", EMBER_FN(cpu::sin_out));
  m.impl("cos", EMBER_FN(cpu::cos));
  m.impl("cos_", EMBER_FN(cpu::cos_));
  m.impl("cos.out", EMBER_FN(cpu::cos_out));
  m.impl("tanh", EMBER_FN(cpu::tanh));
  m.impl("tanh_", EMBER_FN(cpu::tanh_));
  m.impl("tanh.out", EMBER_FN(cpu::tanh_out));
  m.impl("sigmoid", EMBER_FN(cpu::sigmoid));
  m.impl("sigmoid_", EMBER_FN(cpu::sigmoid_));
  m.impl("sigmoid.out", EMBER_FN(cpu::sigmoid_out));
  m.impl("erf", EMBER_FN(cpu::erf));
  m.impl("erf_", EMBER_FN(cpu::erf_));
  m.impl("erf.out", EMBER_FN(cpu::erf_out));
  m.impl("silu", EMBER_FN(cpu::silu));
  m.impl("silu_", EMBER_FN(cpu::silu_));
  m.impl("silu.out", EMBER_FN(cpu::silu_out));
  m.impl("logical_not", EMBER_FN(cpu::logical_not));
  m.impl("logical_not_", EMBER_FN(cpu::logical_not_));
  m.impl("logical_not.out", EMBER_FN(cpu::logical_not_out));
  m.impl("relu", EMBER_FN(cpu::relu));
  m.impl("relu_", EMBER_FN(cpu::relu_));
  m.impl("gelu", EMBER_FN(cpu::gelu));
  m.impl("gelu_", EMBER_FN(cpu::gelu_));
  m.impl("gelu.out", EMBER_FN(cpu::gelu_out));
  // pointwise.cpp
  m.impl("pow.Tensor_Tensor", EMBER_FN(cpu::pow_tensor_tensor));
  m.impl("pow_.Tensor", EMBER_FN(cpu::pow__tensor));
  m.impl("pow.Tensor_Tensor_out", EMBER_FN(cpu::pow_tensor_tensor_out));
  m.impl("pow.Tensor_Scalar", EMBER_FN(cpu::pow_tensor_scalar));
  m.impl("pow_.Scalar", EMBER_FN(cpu::pow__scalar));
  m.impl("pow.Tensor_Scalar_out", EMBER_FN(cpu::pow_tensor_scalar_out));
  m.impl("clamp", EMBER_FN(cpu::clamp));
  m.impl("clamp_", EMBER_FN(cpu::clamp_));
  m.impl("clamp.out", EMBER_FN(cpu::clamp_out));
  m.impl("where.self", EMBER_FN(cpu::where));
  m.impl("where.self_out", EMBER_FN(cpu::where_out));
  m.impl("masked_fill.Scalar", EMBER_FN(cpu::masked_fill));
  m.impl("masked_fill_.Scalar", EMBER_FN(cpu::masked_fill_));
  m.impl("lerp.Scalar", EMBER_FN(cpu::lerp));
  m.impl("lerp_.Scalar", EMBER_FN(cpu::lerp_));
  m.impl("lerp.Scalar_out", EMBER_FN(cpu::lerp_out));
  m.impl("addcmul", EMBER_FN(cpu::addcmul));
  m.impl("addcmul_", EMBER_FN(cpu::addcmul_));
  m.impl("addcmul.out", EMBER_FN(cpu::addcmul_out));
  m.impl("logical_and", EMBER_FN(cpu::logical_and));
  m.impl("logical_and_", EMBER_FN(cpu::logical_and_));
  m.impl("logical_and.out", EMBER_FN(cpu::logical_and_out));
  m.impl("logical_or", EMBER_FN(cpu::logical_or));
  m.impl("logical_or_", EMBER_FN(cpu::logical_or_));
  m.impl("logical_or.out", EMBER_FN(cpu::logical_or_out));
  m.impl("logical_xor", EMBER_FN(cpu::logical_xor));
  m.impl("logical_xor_", EMBER_FN(cpu::logical_xor_));
  m.impl("logical_xor.out", EMBER_FN(cpu::logical_xor_out));
}

// ---- shape ops (issue 3) ----------------------------------------------------------------------

EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // shape.cpp
  m.impl("cat", EMBER_FN(cpu::cat));
  m.impl("flip", EMBER_FN(cpu::flip));
  m.impl("linspace", EMBER_FN(cpu::linspace));
  m.impl("eye", EMBER_FN(cpu::eye));
  m.impl("eye.m", EMBER_FN(cpu::eye_m));
}

// Metadata-only views, and copies built from dispatched cat/empty/copy_.
EMBER_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  // shape.cpp
  m.impl("permute", EMBER_FN(cpu::permute));
  m.impl("squeeze", EMBER_FN(cpu::squeeze));
  m.impl("squeeze.dim", EMBER_FN(cpu::squeeze_dim));
  m.impl("diagonal", EMBER_FN(cpu::diagonal));
  m.impl("unfold", EMBER_FN(cpu::unfold));
  m.impl("split.Tensor", EMBER_FN(cpu::split));
  m.impl("stack", EMBER_FN(cpu::stack));
  m.impl("repeat", EMBER_FN(cpu::repeat));
}

// Built from reshape/slice/split, so their autograd comes from those (PyTorch's keys too).
EMBER_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  // shape.cpp
  m.impl("flatten.using_ints", EMBER_FN(cpu::flatten));
  m.impl("narrow", EMBER_FN(cpu::narrow));
  m.impl("chunk", EMBER_FN(cpu::chunk));
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

// ---- random (issue 3) -------------------------------------------------------------------------

EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // random.cpp
  m.impl("uniform_", EMBER_FN(cpu::uniform_));
  m.impl("normal_", EMBER_FN(cpu::normal_));
  m.impl("random_.from", EMBER_FN(cpu::random_from));
  m.impl("bernoulli_.float", EMBER_FN(cpu::bernoulli_float));
}

// Built from empty and the fills above, so any backend with those kernels gets them.
EMBER_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  // random.cpp
  m.impl("rand", EMBER_FN(cpu::rand));
  m.impl("randn", EMBER_FN(cpu::randn));
  m.impl("randint", EMBER_FN(cpu::randint));
  m.impl("randint.low", EMBER_FN(cpu::randint_low));
  m.impl("rand.generator", EMBER_FN(cpu::rand_generator));
  m.impl("randn.generator", EMBER_FN(cpu::randn_generator));
  m.impl("randint.generator", EMBER_FN(cpu::randint_generator));
  m.impl("randint.low_generator", EMBER_FN(cpu::randint_low_generator));
}

// Reductions (see Note [CPU row reductions] in reduce2.cpp).
EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // reduce2.cpp
  m.impl("mean", EMBER_FN(cpu::mean));
  m.impl("mean.dim", EMBER_FN(cpu::mean_dim));
  m.impl("prod", EMBER_FN(cpu::prod));
  m.impl("prod.dim_int", EMBER_FN(cpu::prod_dim_int));
  m.impl("amax", EMBER_FN(cpu::amax));
  m.impl("amin", EMBER_FN(cpu::amin));
  m.impl("max", EMBER_FN(cpu::max));
  m.impl("min", EMBER_FN(cpu::min));
  m.impl("max.dim", EMBER_FN(cpu::max_dim));
  m.impl("min.dim", EMBER_FN(cpu::min_dim));
  m.impl("argmax", EMBER_FN(cpu::argmax));
  m.impl("argmin", EMBER_FN(cpu::argmin));
  m.impl("any", EMBER_FN(cpu::any));
  m.impl("any.dim", EMBER_FN(cpu::any_dim));
  m.impl("all", EMBER_FN(cpu::all));
  m.impl("all.dim", EMBER_FN(cpu::all_dim));
  m.impl("softmax.int", EMBER_FN(cpu::softmax_int));
  m.impl("log_softmax.int", EMBER_FN(cpu::log_softmax_int));
  m.impl("logsumexp", EMBER_FN(cpu::logsumexp));
  m.impl("var", EMBER_FN(cpu::var));
  m.impl("var.dim", EMBER_FN(cpu::var_dim));
  m.impl("std", EMBER_FN(cpu::std));
  m.impl("std.dim", EMBER_FN(cpu::std_dim));
  m.impl("cumsum", EMBER_FN(cpu::cumsum));
}

// ---- indexing (issue 3) -----------------------------------------------------------------------

EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // indexing.cpp
  m.impl("index.Tensor", EMBER_FN(cpu::index));
  m.impl("index_put_", EMBER_FN(cpu::index_put_));
  m.impl("index_select.out", EMBER_FN(cpu::index_select_out));
  m.impl("index_select", EMBER_FN(cpu::index_select));
  m.impl("gather", EMBER_FN(cpu::gather));
  m.impl("scatter_.src", EMBER_FN(cpu::scatter__src));
  m.impl("scatter_.value", EMBER_FN(cpu::scatter__value));
  m.impl("scatter_add_", EMBER_FN(cpu::scatter_add_));
  m.impl("masked_select", EMBER_FN(cpu::masked_select));
  m.impl("nonzero", EMBER_FN(cpu::nonzero));
  m.impl("embedding", EMBER_FN(cpu::embedding));
  m.impl("index_fill_.int_Scalar", EMBER_FN(cpu::index_fill__int_scalar));
  m.impl("masked_scatter_", EMBER_FN(cpu::masked_scatter_));
}

// Built from clone and the in-place kernels above.
EMBER_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  // indexing.cpp
  m.impl("index_put", EMBER_FN(cpu::index_put));
  m.impl("scatter.src", EMBER_FN(cpu::scatter_src));
  m.impl("scatter.value", EMBER_FN(cpu::scatter_value));
  m.impl("scatter_add", EMBER_FN(cpu::scatter_add));
}

// Sorting, norms, var/std with a correction, cumprod and the reductions' out= variants (see
// Note [CPU sort order] in sort.cpp and Note [CPU row reductions] in reduce2.cpp).
EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // sort.cpp
  m.impl("sort", EMBER_FN(cpu::sort));
  m.impl("sort.stable", EMBER_FN(cpu::sort_stable));
  m.impl("argsort", EMBER_FN(cpu::argsort));
  m.impl("topk", EMBER_FN(cpu::topk));
  m.impl("sort.values", EMBER_FN(cpu::sort_values));
  m.impl("topk.values", EMBER_FN(cpu::topk_values));
  // reduce2.cpp
  m.impl("cumprod", EMBER_FN(cpu::cumprod));
  m.impl("var.correction", EMBER_FN(cpu::var_correction));
  m.impl("std.correction", EMBER_FN(cpu::std_correction));
  m.impl("var_mean.correction", EMBER_FN(cpu::var_mean_correction));
  m.impl("std_mean.correction", EMBER_FN(cpu::std_mean_correction));
  m.impl("norm.Scalar", EMBER_FN(cpu::norm_scalar));
  m.impl("norm.ScalarOpt_dim", EMBER_FN(cpu::norm_scalaropt_dim));
  m.impl("linalg_vector_norm", EMBER_FN(cpu::linalg_vector_norm));
  m.impl("sum.IntList_out", EMBER_FN(cpu::sum_intlist_out));
  m.impl("mean.out", EMBER_FN(cpu::mean_out));
  m.impl("prod.int_out", EMBER_FN(cpu::prod_int_out));
  m.impl("cumsum.out", EMBER_FN(cpu::cumsum_out));
  m.impl("cumprod.out", EMBER_FN(cpu::cumprod_out));
  m.impl("amax.out", EMBER_FN(cpu::amax_out));
  m.impl("amin.out", EMBER_FN(cpu::amin_out));
  m.impl("max.dim_max", EMBER_FN(cpu::max_dim_max));
  m.impl("min.dim_min", EMBER_FN(cpu::min_dim_min));
  m.impl("argmax.out", EMBER_FN(cpu::argmax_out));
  m.impl("argmin.out", EMBER_FN(cpu::argmin_out));
  m.impl("logsumexp.out", EMBER_FN(cpu::logsumexp_out));
}

// ---- neural network ops (issue 3) -------------------------------------------------------------
// Note [CPU convolution paths] (conv.cpp), Note [CPU max pooling] (pool.cpp), norm.cpp.

EMBER_LIBRARY_IMPL(aten, CPU, m) {
  // conv.cpp
  m.impl("convolution", EMBER_FN(cpu::convolution));
  m.impl("convolution_backward", EMBER_FN(cpu::convolution_backward));
  // pool.cpp
  m.impl("max_pool2d_with_indices", EMBER_FN(cpu::max_pool2d_with_indices));
  m.impl("max_pool2d_with_indices_backward", EMBER_FN(cpu::max_pool2d_with_indices_backward));
  m.impl("avg_pool2d", EMBER_FN(cpu::avg_pool2d));
  m.impl("avg_pool2d_backward", EMBER_FN(cpu::avg_pool2d_backward));
  m.impl("_adaptive_avg_pool2d", EMBER_FN(cpu::_adaptive_avg_pool2d));
  m.impl("_adaptive_avg_pool2d_backward", EMBER_FN(cpu::_adaptive_avg_pool2d_backward));
  // norm.cpp
  m.impl("native_batch_norm", EMBER_FN(cpu::native_batch_norm));
  m.impl("native_batch_norm_backward", EMBER_FN(cpu::native_batch_norm_backward));
  m.impl("native_layer_norm", EMBER_FN(cpu::native_layer_norm));
  m.impl("native_layer_norm_backward", EMBER_FN(cpu::native_layer_norm_backward));
}

// Built from the kernels above, as in PyTorch.
EMBER_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("conv2d", EMBER_FN(cpu::conv2d));
  m.impl("max_pool2d", EMBER_FN(cpu::max_pool2d));
  m.impl("adaptive_avg_pool2d", EMBER_FN(cpu::adaptive_avg_pool2d));
  m.impl("batch_norm", EMBER_FN(cpu::batch_norm));
  m.impl("layer_norm", EMBER_FN(cpu::layer_norm));
}
