// The meta plugin's registrations: one Meta kernel for every operator the cpu plugin serves with
// a CPU kernel (tests/ops/test_meta.cpp checks that none is missing).
//
// Note [Meta backend]
// ~~~~~~~~~~~~~~~~~~~
// A meta tensor (device kMeta) has sizes, strides, a dtype and a storage of the right size whose
// data pointer is null: core's Meta allocator allocates nothing, and data_ptr<T>() and item()
// throw. Meta kernels compute exactly what the cpu kernels compute except the values: the dtype
// rules and argument checks are the same functions (ember/native/Rules.h), elementwise geometry
// is the same TensorIter (ember/native/Geometry.h) built on kMeta, and other outputs are
// contiguous, as the cpu kernels' are. Copies and fills only check their arguments.
//
// The operators registered at CompositeExplicitAutograd / CompositeImplicitAutograd (views,
// zeros/ones/full/*_like, to/_to_copy/clone/contiguous, reshape, flatten, stack, repeat, matmul,
// rand*, ...) need no Meta kernel: the dispatcher sends a meta call to the composite, which is
// device-generic (views only build metadata; the rest dispatch empty, copy_, fill_ and the
// primitives, which land here). Those composites are registered by the cpu plugin, so this plugin
// declares a dependency on "cpu": loading meta loads cpu first. That is the least invasive
// choice: moving the composites into a plugin of their own would change the cpu plugin's
// registration file that every op branch appends to, for no gain while cpu is the only backend
// built; when a second backend lands, the composites can move to a "composite" plugin that cpu,
// meta and it all depend on, without touching any meta kernel.
//
// Adding the Meta kernel of a new op: move the dtype rule and argument checks of its cpu kernel
// into ember/native/Rules.h (the cpu kernel calls them too), then write the meta kernel from
// them: an elementwise op is its rule plus `iterate` (elementwise.cpp; unary, binary and logical
// families are one macro line), a reduction is `reduce(op, self, dims, keepdim, dtype)`, an op
// along a dim is `along_dim`, anything else allocates its contiguous result with `empty_meta`
// (other.cpp; indexing ops in indexing.cpp). An out= variant is its functional meta kernel plus
// `check_out` and `write_out` (other.cpp), in the cpu variant's order of checks. An op whose
// result size depends on the values (nonzero, masked_select, a bool mask index) checks its
// arguments, then raises NotImplementedError ("data-dependent output shape"), as PyTorch's meta
// tensors do; the test lists it in kDataDependent. Declare the kernel in Ops.h, register it below
// and add a case to tests/ops/test_meta.cpp (MetaKernels.EveryCpuKernelHasAMetaKernel fails until
// both exist).
#include "Ops.h"
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("meta", EMBER_VERSION_STRING, "cpu")

using namespace ember;

// Elementwise, copies and fills (elementwise.cpp).
EMBER_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("fill_.Scalar", EMBER_FN(meta::fill_));
  m.impl("zero_", EMBER_FN(meta::zero_));
  m.impl("add.Tensor", EMBER_FN(meta::add_tensor));
  m.impl("add_.Tensor", EMBER_FN(meta::add__tensor));
  m.impl("add.out", EMBER_FN(meta::add_out));
  m.impl("add.Scalar", EMBER_FN(meta::add_scalar));
  m.impl("add_.Scalar", EMBER_FN(meta::add__scalar));
  m.impl("sub.Tensor", EMBER_FN(meta::sub_tensor));
  m.impl("sub_.Tensor", EMBER_FN(meta::sub__tensor));
  m.impl("sub.out", EMBER_FN(meta::sub_out));
  m.impl("sub.Scalar", EMBER_FN(meta::sub_scalar));
  m.impl("sub_.Scalar", EMBER_FN(meta::sub__scalar));
  m.impl("mul.Tensor", EMBER_FN(meta::mul_tensor));
  m.impl("mul_.Tensor", EMBER_FN(meta::mul__tensor));
  m.impl("mul.out", EMBER_FN(meta::mul_out));
  m.impl("mul.Scalar", EMBER_FN(meta::mul_scalar));
  m.impl("mul_.Scalar", EMBER_FN(meta::mul__scalar));
  m.impl("div.Tensor", EMBER_FN(meta::div_tensor));
  m.impl("div_.Tensor", EMBER_FN(meta::div__tensor));
  m.impl("div.out", EMBER_FN(meta::div_out));
  m.impl("div.Scalar", EMBER_FN(meta::div_scalar));
  m.impl("div_.Scalar", EMBER_FN(meta::div__scalar));
  m.impl("eq.Tensor", EMBER_FN(meta::eq_tensor));
  m.impl("eq.Scalar", EMBER_FN(meta::eq_scalar));
  m.impl("ne.Tensor", EMBER_FN(meta::ne_tensor));
  m.impl("ne.Scalar", EMBER_FN(meta::ne_scalar));
  m.impl("lt.Tensor", EMBER_FN(meta::lt_tensor));
  m.impl("lt.Scalar", EMBER_FN(meta::lt_scalar));
  m.impl("le.Tensor", EMBER_FN(meta::le_tensor));
  m.impl("le.Scalar", EMBER_FN(meta::le_scalar));
  m.impl("gt.Tensor", EMBER_FN(meta::gt_tensor));
  m.impl("gt.Scalar", EMBER_FN(meta::gt_scalar));
  m.impl("ge.Tensor", EMBER_FN(meta::ge_tensor));
  m.impl("ge.Scalar", EMBER_FN(meta::ge_scalar));
  m.impl("copy_", EMBER_FN(meta::copy_));
  m.impl("neg", EMBER_FN(meta::neg));
  m.impl("neg_", EMBER_FN(meta::neg_));
  m.impl("neg.out", EMBER_FN(meta::neg_out));
  m.impl("abs", EMBER_FN(meta::abs));
  m.impl("abs_", EMBER_FN(meta::abs_));
  m.impl("abs.out", EMBER_FN(meta::abs_out));
  m.impl("sign", EMBER_FN(meta::sign));
  m.impl("sign_", EMBER_FN(meta::sign_));
  m.impl("sign.out", EMBER_FN(meta::sign_out));
  m.impl("exp", EMBER_FN(meta::exp));
  m.impl("exp_", EMBER_FN(meta::exp_));
  m.impl("exp.out", EMBER_FN(meta::exp_out));
  m.impl("log", EMBER_FN(meta::log));
  m.impl("log_", EMBER_FN(meta::log_));
  m.impl("log.out", EMBER_FN(meta::log_out));
  m.impl("log1p", EMBER_FN(meta::log1p));
  m.impl("log1p_", EMBER_FN(meta::log1p_));
  m.impl("log1p.out", EMBER_FN(meta::log1p_out));
  m.impl("sqrt", EMBER_FN(meta::sqrt));
  m.impl("sqrt_", EMBER_FN(meta::sqrt_));
  m.impl("sqrt.out", EMBER_FN(meta::sqrt_out));
  m.impl("rsqrt", EMBER_FN(meta::rsqrt));
  m.impl("rsqrt_", EMBER_FN(meta::rsqrt_));
  m.impl("rsqrt.out", EMBER_FN(meta::rsqrt_out));
  m.impl("sin", EMBER_FN(meta::sin));
  m.impl("sin_", EMBER_FN(meta::sin_));
  m.impl("sin.out", EMBER_FN(meta::sin_out));
  m.impl("cos", EMBER_FN(meta::cos));
  m.impl("cos_", EMBER_FN(meta::cos_));
  m.impl("cos.out", EMBER_FN(meta::cos_out));
  m.impl("tanh", EMBER_FN(meta::tanh));
  m.impl("tanh_", EMBER_FN(meta::tanh_));
  m.impl("tanh.out", EMBER_FN(meta::tanh_out));
  m.impl("sigmoid", EMBER_FN(meta::sigmoid));
  m.impl("sigmoid_", EMBER_FN(meta::sigmoid_));
  m.impl("sigmoid.out", EMBER_FN(meta::sigmoid_out));
  m.impl("erf", EMBER_FN(meta::erf));
  m.impl("erf_", EMBER_FN(meta::erf_));
  m.impl("erf.out", EMBER_FN(meta::erf_out));
  m.impl("silu", EMBER_FN(meta::silu));
  m.impl("silu_", EMBER_FN(meta::silu_));
  m.impl("silu.out", EMBER_FN(meta::silu_out));
  m.impl("logical_not", EMBER_FN(meta::logical_not));
  m.impl("logical_not_", EMBER_FN(meta::logical_not_));
  m.impl("logical_not.out", EMBER_FN(meta::logical_not_out));
  m.impl("relu", EMBER_FN(meta::relu));
  m.impl("relu_", EMBER_FN(meta::relu_));
  m.impl("gelu", EMBER_FN(meta::gelu));
  m.impl("gelu_", EMBER_FN(meta::gelu_));
  m.impl("gelu.out", EMBER_FN(meta::gelu_out));
  m.impl("pow.Tensor_Tensor", EMBER_FN(meta::pow_tensor_tensor));
  m.impl("pow_.Tensor", EMBER_FN(meta::pow__tensor));
  m.impl("pow.Tensor_Tensor_out", EMBER_FN(meta::pow_tensor_tensor_out));
  m.impl("pow.Tensor_Scalar", EMBER_FN(meta::pow_tensor_scalar));
  m.impl("pow_.Scalar", EMBER_FN(meta::pow__scalar));
  m.impl("pow.Tensor_Scalar_out", EMBER_FN(meta::pow_tensor_scalar_out));
  m.impl("clamp", EMBER_FN(meta::clamp));
  m.impl("clamp_", EMBER_FN(meta::clamp_));
  m.impl("clamp.out", EMBER_FN(meta::clamp_out));
  m.impl("where.self", EMBER_FN(meta::where));
  m.impl("where.self_out", EMBER_FN(meta::where_out));
  m.impl("masked_fill.Scalar", EMBER_FN(meta::masked_fill));
  m.impl("masked_fill_.Scalar", EMBER_FN(meta::masked_fill_));
  m.impl("lerp.Scalar", EMBER_FN(meta::lerp));
  m.impl("lerp_.Scalar", EMBER_FN(meta::lerp_));
  m.impl("lerp.Scalar_out", EMBER_FN(meta::lerp_out));
  m.impl("addcmul", EMBER_FN(meta::addcmul));
  m.impl("addcmul_", EMBER_FN(meta::addcmul_));
  m.impl("addcmul.out", EMBER_FN(meta::addcmul_out));
  m.impl("logical_and", EMBER_FN(meta::logical_and));
  m.impl("logical_and_", EMBER_FN(meta::logical_and_));
  m.impl("logical_and.out", EMBER_FN(meta::logical_and_out));
  m.impl("logical_or", EMBER_FN(meta::logical_or));
  m.impl("logical_or_", EMBER_FN(meta::logical_or_));
  m.impl("logical_or.out", EMBER_FN(meta::logical_or_out));
  m.impl("logical_xor", EMBER_FN(meta::logical_xor));
  m.impl("logical_xor_", EMBER_FN(meta::logical_xor_));
  m.impl("logical_xor.out", EMBER_FN(meta::logical_xor_out));
  m.impl("uniform_", EMBER_FN(meta::uniform_));
  m.impl("normal_", EMBER_FN(meta::normal_));
  m.impl("random_.from", EMBER_FN(meta::random_from));
  m.impl("bernoulli_.float", EMBER_FN(meta::bernoulli_float));
}

// Factories, reductions, shapes, matrix products, data-dependent ops (other.cpp).
EMBER_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("empty", EMBER_FN(meta::empty));
  m.impl("empty_strided", EMBER_FN(meta::empty_strided));
  m.impl("arange.start_step", EMBER_FN(meta::arange));
  m.impl("sum", EMBER_FN(meta::sum));
  m.impl("sum.dim_IntList", EMBER_FN(meta::sum_dim));
  m.impl("item", EMBER_FN(meta::item));
  m.impl("equal", EMBER_FN(meta::equal));
  m.impl("allclose", EMBER_FN(meta::allclose));
  m.impl("cat", EMBER_FN(meta::cat));
  m.impl("flip", EMBER_FN(meta::flip));
  m.impl("linspace", EMBER_FN(meta::linspace));
  m.impl("eye", EMBER_FN(meta::eye));
  m.impl("eye.m", EMBER_FN(meta::eye_m));
  m.impl("mm", EMBER_FN(meta::mm));
  m.impl("mm.out", EMBER_FN(meta::mm_out));
  m.impl("bmm", EMBER_FN(meta::bmm));
  m.impl("addmm", EMBER_FN(meta::addmm));
  m.impl("mean", EMBER_FN(meta::mean));
  m.impl("mean.dim", EMBER_FN(meta::mean_dim));
  m.impl("prod", EMBER_FN(meta::prod));
  m.impl("prod.dim_int", EMBER_FN(meta::prod_dim_int));
  m.impl("amax", EMBER_FN(meta::amax));
  m.impl("amin", EMBER_FN(meta::amin));
  m.impl("max", EMBER_FN(meta::max));
  m.impl("min", EMBER_FN(meta::min));
  m.impl("max.dim", EMBER_FN(meta::max_dim));
  m.impl("min.dim", EMBER_FN(meta::min_dim));
  m.impl("argmax", EMBER_FN(meta::argmax));
  m.impl("argmin", EMBER_FN(meta::argmin));
  m.impl("any", EMBER_FN(meta::any));
  m.impl("any.dim", EMBER_FN(meta::any_dim));
  m.impl("all", EMBER_FN(meta::all));
  m.impl("all.dim", EMBER_FN(meta::all_dim));
  m.impl("softmax.int", EMBER_FN(meta::softmax_int));
  m.impl("log_softmax.int", EMBER_FN(meta::log_softmax_int));
  m.impl("logsumexp", EMBER_FN(meta::logsumexp));
  m.impl("var", EMBER_FN(meta::var));
  m.impl("var.dim", EMBER_FN(meta::var_dim));
  m.impl("std", EMBER_FN(meta::std));
  m.impl("std.dim", EMBER_FN(meta::std_dim));
  m.impl("cumsum", EMBER_FN(meta::cumsum));
}

// Indexing (indexing.cpp).
EMBER_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("index.Tensor", EMBER_FN(meta::index));
  m.impl("index_put_", EMBER_FN(meta::index_put_));
  m.impl("index_select.out", EMBER_FN(meta::index_select_out));
  m.impl("index_select", EMBER_FN(meta::index_select));
  m.impl("gather", EMBER_FN(meta::gather));
  m.impl("scatter_.src", EMBER_FN(meta::scatter__src));
  m.impl("scatter_.value", EMBER_FN(meta::scatter__value));
  m.impl("scatter_add_", EMBER_FN(meta::scatter_add_));
  m.impl("masked_select", EMBER_FN(meta::masked_select));
  m.impl("nonzero", EMBER_FN(meta::nonzero));
  m.impl("embedding", EMBER_FN(meta::embedding));
  m.impl("index_fill_.int_Scalar", EMBER_FN(meta::index_fill__int_scalar));
  m.impl("masked_scatter_", EMBER_FN(meta::masked_scatter_));
}

// Sort, topk, norms, var/std corrections, cumprod and the reductions' out= variants (other.cpp).
EMBER_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("sort", EMBER_FN(meta::sort));
  m.impl("sort.stable", EMBER_FN(meta::sort_stable));
  m.impl("argsort", EMBER_FN(meta::argsort));
  m.impl("topk", EMBER_FN(meta::topk));
  m.impl("sort.values", EMBER_FN(meta::sort_values));
  m.impl("topk.values", EMBER_FN(meta::topk_values));
  m.impl("cumprod", EMBER_FN(meta::cumprod));
  m.impl("var.correction", EMBER_FN(meta::var_correction));
  m.impl("std.correction", EMBER_FN(meta::std_correction));
  m.impl("var_mean.correction", EMBER_FN(meta::var_mean_correction));
  m.impl("std_mean.correction", EMBER_FN(meta::std_mean_correction));
  m.impl("norm.Scalar", EMBER_FN(meta::norm_scalar));
  m.impl("norm.ScalarOpt_dim", EMBER_FN(meta::norm_scalaropt_dim));
  m.impl("linalg_vector_norm", EMBER_FN(meta::linalg_vector_norm));
  m.impl("sum.IntList_out", EMBER_FN(meta::sum_intlist_out));
  m.impl("mean.out", EMBER_FN(meta::mean_out));
  m.impl("prod.int_out", EMBER_FN(meta::prod_int_out));
  m.impl("cumsum.out", EMBER_FN(meta::cumsum_out));
  m.impl("cumprod.out", EMBER_FN(meta::cumprod_out));
  m.impl("amax.out", EMBER_FN(meta::amax_out));
  m.impl("amin.out", EMBER_FN(meta::amin_out));
  m.impl("max.dim_max", EMBER_FN(meta::max_dim_max));
  m.impl("min.dim_min", EMBER_FN(meta::min_dim_min));
  m.impl("argmax.out", EMBER_FN(meta::argmax_out));
  m.impl("argmin.out", EMBER_FN(meta::argmin_out));
  m.impl("logsumexp.out", EMBER_FN(meta::logsumexp_out));
}

// The CNN operators: convolution, pooling, batch and layer norm (nn.cpp).
EMBER_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("convolution", EMBER_FN(meta::convolution));
  m.impl("convolution_backward", EMBER_FN(meta::convolution_backward));
  m.impl("max_pool2d_with_indices", EMBER_FN(meta::max_pool2d_with_indices));
  m.impl("max_pool2d_with_indices_backward", EMBER_FN(meta::max_pool2d_with_indices_backward));
  m.impl("avg_pool2d", EMBER_FN(meta::avg_pool2d));
  m.impl("avg_pool2d_backward", EMBER_FN(meta::avg_pool2d_backward));
  m.impl("_adaptive_avg_pool2d", EMBER_FN(meta::_adaptive_avg_pool2d));
  m.impl("_adaptive_avg_pool2d_backward", EMBER_FN(meta::_adaptive_avg_pool2d_backward));
  m.impl("native_batch_norm", EMBER_FN(meta::native_batch_norm));
  m.impl("native_batch_norm_backward", EMBER_FN(meta::native_batch_norm_backward));
  m.impl("native_layer_norm", EMBER_FN(meta::native_layer_norm));
  m.impl("native_layer_norm_backward", EMBER_FN(meta::native_layer_norm_backward));
}
