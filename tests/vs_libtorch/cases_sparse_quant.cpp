// Sparse COO/CSR and quantized tensors against LibTorch 1.13: construction, coalescing, the
// accessors (indices/values/_nnz/sparse_dim/...), conversions, sparse_mask and the sparse softmaxes
// (recorded through to_dense); quantize/dequantize per tensor and per channel, the quantizer's
// parameters, int_repr, the _make_per_*/_empty_* factories and quantized_max_pool2d.
#include <string>

#include "vs_record.h"

namespace {

// A [3, 4] COO tensor with a duplicate entry (1, 2) and unsorted indices; float64 values.
vs::Tensor coo_indices() { return vs::tensor({1, 0, 2, 1, 1, 2, 3, 3, 1, 2}, vs::kInt64).reshape({2, 5}); }
vs::Tensor coo_values() { return vs::tensor({1.5, -2.0, 3.0, 0.25, 4.0}, vs::kFloat64); }
vs::Tensor coo() { return vs::sparse_coo_tensor(coo_indices(), coo_values(), {3, 4}); }
vs::Tensor dense() {
  return (vs::arange(12, vs::kFloat64) - 5).reshape({3, 4}) * (vs::arange(12).reshape({3, 4}).remainder(3) == 0);
}

}  // namespace

VS_CASE("sparse_quant.coo") {
  vs::Tensor s = coo();
  r.tensor("to_dense", s.to_dense());
  r.tensor("_indices_uncoalesced", s._indices());
  r.tensor("_values_uncoalesced", s._values());
  r.scalar("_nnz_uncoalesced", static_cast<double>(s._nnz()));
  r.scalar("is_coalesced_before", s.is_coalesced());
  r.scalar("sparse_dim", static_cast<double>(s.sparse_dim()));
  r.scalar("dense_dim", static_cast<double>(s.dense_dim()));
  vs::Tensor c = s.coalesce();
  r.scalar("is_coalesced_after", c.is_coalesced());
  r.tensor("indices", c.indices().contiguous());
  r.tensor("values", c.values());
  r.scalar("_nnz", static_cast<double>(c._nnz()));
  r.tensor("coalesce_to_dense", c.to_dense());
  // Size inferred from the indices; an empty tensor of a size; hybrid (dense dimension) values.
  vs::Tensor inferred = vs::sparse_coo_tensor(coo_indices(), coo_values());
  r.scalar("inferred_size0", static_cast<double>(inferred.size(0)));
  r.scalar("inferred_size1", static_cast<double>(inferred.size(1)));
  vs::Tensor empty = vs::sparse_coo_tensor({2, 5}, vs::kFloat32);
  r.scalar("empty_nnz", static_cast<double>(empty._nnz()));
  r.tensor("empty_to_dense", empty.to_dense());
  vs::Tensor hybrid = vs::sparse_coo_tensor(vs::tensor({0, 2, 0}, vs::kInt64).reshape({1, 3}),
                                            vs::arange(6, vs::kFloat64).reshape({3, 2}), {3, 2});
  r.scalar("hybrid_sparse_dim", static_cast<double>(hybrid.sparse_dim()));
  r.scalar("hybrid_dense_dim", static_cast<double>(hybrid.dense_dim()));
  r.tensor("hybrid_to_dense", hybrid.to_dense());
  r.tensor("hybrid_coalesced_values", hybrid.coalesce().values());
  // Conversions from dense.
  vs::Tensor d = dense();
  vs::Tensor ds = d.to_sparse();
  r.tensor("to_sparse_indices", ds.indices());
  r.tensor("to_sparse_values", ds.values());
  r.scalar("to_sparse_is_coalesced", ds.is_coalesced());
  vs::Tensor ds1 = d.to_sparse(1);
  r.scalar("to_sparse_1_dense_dim", static_cast<double>(ds1.dense_dim()));
  r.tensor("to_sparse_1_values", ds1.values());
  r.tensor("to_sparse_transposed", d.t().to_sparse().to_dense());
  // sparse_mask: d's values where the mask has entries.
  vs::Tensor m = d.sparse_mask(c);
  r.tensor("sparse_mask_dense", m.to_dense());
  r.tensor("sparse_mask_indices", m.coalesce().indices());
  r.raises("coo_index_out_of_size", [&] { vs::sparse_coo_tensor(coo_indices(), coo_values(), {2, 4}).to_dense(); });
  r.raises("coo_values_count", [&] { vs::sparse_coo_tensor(coo_indices(), vs::ones({4}, vs::kFloat64), {3, 4}); });
  r.raises("indices_uncoalesced", [&] { s.indices(); });
  r.raises("sparse_mask_shape", [&] { vs::ones({2, 4}, vs::kFloat64).sparse_mask(c); });
}

VS_CASE("sparse_quant.csr") {
  vs::Tensor d = dense();
  vs::Tensor csr = d.to_sparse_csr();
  r.tensor("crow_indices", csr.crow_indices());
  r.tensor("col_indices", csr.col_indices());
  r.tensor("values", csr.values());
  r.tensor("to_dense", csr.to_dense());
  r.scalar("_nnz", static_cast<double>(csr._nnz()));
  vs::Tensor crow = vs::tensor({0, 2, 2, 3}, vs::kInt64), col = vs::tensor({0, 3, 1}, vs::kInt64);
  vs::Tensor vals = vs::tensor({1.0, -2.0, 0.5}, vs::kFloat64);
  vs::Tensor t = vs::sparse_csr_tensor(crow, col, vals, {3, 4}, vs::kFloat64);
  r.tensor("sparse_csr_tensor_dense", t.to_dense());
  vs::Tensor inferred = vs::sparse_csr_tensor(crow, col, vals, vs::kFloat64);
  r.scalar("inferred_size1", static_cast<double>(inferred.size(1)));
  r.tensor("inferred_dense", inferred.to_dense());
  r.tensor("coo_to_csr", coo().coalesce().to_dense().to_sparse_csr().col_indices());
  r.raises("csr_crow_decreasing", [&] {
    vs::sparse_csr_tensor(vs::tensor({0, 2, 1, 3}, vs::kInt64), col, vals, {3, 4}, vs::kFloat64);
  });
  r.raises("csr_col_out_of_size", [&] { vs::sparse_csr_tensor(crow, col * 2, vals, {3, 4}, vs::kFloat64); });
  r.raises("crow_indices_of_coo", [&] { coo().crow_indices(); });
}

VS_CASE("sparse_quant.sparse_softmax") {
  vs::Tensor s = coo().coalesce();
  vs::Tensor sm = vs::_sparse_softmax(s, 1, false);
  r.tensor("softmax_dim1", sm.to_dense());
  r.tensor("softmax_dim0", vs::_sparse_softmax(s, 0, false).to_dense());
  vs::Tensor lsm = vs::_sparse_log_softmax(s, 1, false);
  r.tensor("log_softmax_dim1", lsm.to_dense());
  // Backward with a gradient of the same sparsity.
  vs::Tensor g = vs::sparse_coo_tensor(s.indices(), vs::tensor({0.5, -1.0, 2.0, 1.0}, vs::kFloat64), {3, 4});
  r.tensor("softmax_backward", vs::_sparse_softmax_backward_data(g, sm, 1, s).to_dense());
  r.tensor("log_softmax_backward", vs::_sparse_log_softmax_backward_data(g, lsm, 1, s).to_dense());
  r.raises("softmax_dim", [&] { vs::_sparse_softmax(s, 2, false); });
}

VS_CASE("sparse_quant.quantize") {
  vs::Tensor x = (vs::arange(24, vs::kFloat32) * 0.37).sin().reshape({2, 3, 4}) * 3;
  vs::Tensor q = vs::quantize_per_tensor(x, 0.05, 10, vs::kQUInt8);
  r.tensor("int_repr", q.int_repr());
  r.tensor("dequantize", q.dequantize());
  r.tensor("dequantize_fn", vs::dequantize(q));
  r.scalar("q_scale", q.q_scale());
  r.scalar("q_zero_point", static_cast<double>(q.q_zero_point()));
  r.scalar("qscheme", static_cast<double>(static_cast<int>(q.qscheme())));
  vs::Tensor q8 = vs::quantize_per_tensor(x.transpose(0, 2), 0.02, -3, vs::kQInt8);  // clamps at the int8 range
  r.tensor("qint8_int_repr", q8.int_repr());
  r.tensor("qint8_dequantize", q8.dequantize());
  vs::Tensor qc = vs::quantize_per_channel(x, vs::tensor({0.1, 0.02, 0.05}, vs::kFloat64),
                                           vs::tensor({0, 5, -2}, vs::kInt64), 1, vs::kQInt8);
  r.tensor("per_channel_int_repr", qc.int_repr());
  r.tensor("per_channel_dequantize", qc.dequantize());
  r.tensor("q_per_channel_scales", qc.q_per_channel_scales());
  r.tensor("q_per_channel_zero_points", qc.q_per_channel_zero_points());
  r.scalar("q_per_channel_axis", static_cast<double>(qc.q_per_channel_axis()));
  r.scalar("per_channel_qscheme", static_cast<double>(static_cast<int>(qc.qscheme())));
  // The factories: from integers and parameters, and empty ones (parameters and shape only).
  vs::Tensor mt = vs::_make_per_tensor_quantized_tensor(vs::arange(-4, 4, vs::kInt8), 0.5, 2);
  r.tensor("make_per_tensor_dequantize", mt.dequantize());
  r.scalar("make_per_tensor_scale", mt.q_scale());
  vs::Tensor mc =
      vs::_make_per_channel_quantized_tensor(vs::arange(6, vs::kUInt8).reshape({2, 3}),
                                             vs::tensor({0.5, 2.0}, vs::kFloat64), vs::tensor({1, 3}, vs::kInt64), 0);
  r.tensor("make_per_channel_dequantize", mc.dequantize());
  r.scalar("make_per_channel_axis", static_cast<double>(mc.q_per_channel_axis()));
  vs::Tensor ea = vs::_empty_affine_quantized({2, 5}, vs::kQUInt8, 0.25, 7);
  r.scalar("empty_affine_scale", ea.q_scale());
  r.scalar("empty_affine_zero_point", static_cast<double>(ea.q_zero_point()));
  r.scalar("empty_affine_numel", static_cast<double>(ea.numel()));
  vs::Tensor ec = vs::_empty_per_channel_affine_quantized({3, 2}, vs::tensor({0.1, 0.2, 0.3}, vs::kFloat64),
                                                          vs::tensor({0, 1, 2}, vs::kInt64), 0, vs::kQInt8);
  r.tensor("empty_per_channel_scales", ec.q_per_channel_scales());
  r.tensor("empty_per_channel_zero_points", ec.q_per_channel_zero_points());
  r.scalar("empty_per_channel_size1", static_cast<double>(ec.size(1)));
  // quantized_max_pool2d over an [N, C, H, W] quantized input.
  vs::Tensor img = vs::quantize_per_tensor((vs::arange(2 * 5 * 6, vs::kFloat32) * 0.7).sin().reshape({1, 2, 5, 6}),
                                           0.01, 100, vs::kQUInt8);
  r.tensor("quantized_max_pool2d", vs::quantized_max_pool2d(img, {2, 2}, {2, 2}, {0, 0}, {1, 1}).int_repr());
  r.tensor("quantized_max_pool2d_stride_pad",
           vs::quantized_max_pool2d(img, {3, 2}, {2, 1}, {1, 1}, {1, 1}, true).int_repr());
  r.raises("quantize_int_input", [&] { vs::quantize_per_tensor(vs::arange(3), 0.1, 0, vs::kQUInt8); });
  r.raises("quantize_float_dtype", [&] { vs::quantize_per_tensor(x, 0.1, 0, vs::kFloat32); });
  r.raises("per_channel_scales_size", [&] {
    vs::quantize_per_channel(x, vs::tensor({0.1, 0.2}, vs::kFloat64), vs::tensor({0, 0}, vs::kInt64), 1, vs::kQInt8);
  });
  r.raises("q_per_channel_scales_of_per_tensor", [&] { q.q_per_channel_scales(); });
  r.raises("q_scale_of_float", [&] { x.q_scale(); });
  r.raises("int_repr_of_float", [&] { x.int_repr(); });
}

VS_CASE("sparse_quant.misc") {
  vs::Tensor x = (vs::arange(12, vs::kFloat32) * 0.5 - 2).reshape({3, 4});
  // empty_like / empty_strided: shape, strides and dtype only (the values are uninitialised).
  vs::Tensor el = vs::empty_like(x.t());
  r.scalar("empty_like_stride0", static_cast<double>(el.stride(0)));
  r.scalar("empty_like_stride1", static_cast<double>(el.stride(1)));
  r.tensor("empty_like_dtype", vs::empty_like(x, vs::kInt32).flatten().narrow(0, 0, 0));
  vs::Tensor es = vs::empty_strided({2, 3}, {1, 2}, vs::kFloat64);
  r.scalar("empty_strided_size0", static_cast<double>(es.size(0)));
  r.scalar("empty_strided_stride1", static_cast<double>(es.stride(1)));
  r.tensor("empty_strided_dtype", es.flatten().narrow(0, 0, 0));
  r.tensor("linspace", vs::linspace(-1, 2, 7));
  r.tensor("linspace_f64", vs::linspace(0.1, 0.9, 5, vs::kFloat64));
  r.tensor("linspace_int", vs::linspace(0, 10, 4, vs::kInt64));
  r.tensor("linspace_one", vs::linspace(3, 9, 1));
  r.tensor("linspace_zero", vs::linspace(3, 9, 0));
  r.tensor("linspace_descending", vs::linspace(5, -5, 6, vs::kFloat64));
  r.tensor("scalar_tensor", vs::scalar_tensor(2.5));
  r.tensor("scalar_tensor_int", vs::scalar_tensor(7, vs::kInt64));
  r.scalar("item", x.sum().item<double>());
  r.scalar("item_scalar", x.max().item().toDouble());
  r.scalar("item_scalar_is_floating", x.max().item().isFloatingPoint());
  r.scalar("item_int", static_cast<double>(vs::arange(5).max().item<int64_t>()));
  r.scalar("equal", vs::equal(x, x.clone()));
  r.scalar("equal_transposed", vs::equal(x.t().contiguous(), x.t()));
  r.scalar("equal_differs", vs::equal(x, x + 1e-6));
  r.scalar("equal_shape", vs::equal(x, x.reshape({4, 3})));
  r.scalar("allclose", vs::allclose(x, x + 1e-9));
  r.scalar("allclose_not", vs::allclose(x, x + 1e-3));
  r.scalar("allclose_rtol", vs::allclose(x, x * 1.01, 0.02));
  r.scalar("allclose_nan", vs::allclose(x.log(), x.log()));
  r.scalar("allclose_equal_nan", vs::allclose(x.log(), x.log(), 1e-5, 1e-8, true));
  r.tensor("cpu", x.t().cpu());
  r.tensor("_to_copy_dtype", vs::_to_copy(x.t(), vs::kFloat64));
  r.tensor("_to_copy", vs::_to_copy(x));
  r.raises("item_many", [&] { x.item<double>(); });
  r.raises("linspace_negative_steps", [&] { vs::linspace(0, 1, -1); });
  r.raises("allclose_dtype", [&] { vs::allclose(x, x.to(vs::kFloat64)); });
}

VS_CASE("sparse_quant.fft_primitives") {
  vs::Tensor x = (vs::arange(24, vs::kFloat64) * 0.61).sin().reshape({4, 6});
  vs::Tensor f = vs::_fft_r2c(x, {1}, 0, true);
  r.tensor("_fft_r2c_onesided", vs::view_as_real(f));
  r.tensor("_fft_r2c_full_ortho", vs::view_as_real(vs::_fft_r2c(x.t(), {0}, 1, false)));
  r.tensor("_fft_r2c_2d_norm_n", vs::view_as_real(vs::_fft_r2c(x, {0, 1}, 2, true)));
  vs::Tensor c = vs::view_as_complex(vs::stack({x, x.flip(1)}, -1));
  r.tensor("_fft_c2c_forward", vs::view_as_real(vs::_fft_c2c(c, {1}, 0, true)));
  r.tensor("_fft_c2c_backward_norm", vs::view_as_real(vs::_fft_c2c(c, {0, 1}, 2, false)));
  r.tensor("_fft_c2r_roundtrip", vs::_fft_c2r(f, {1}, 2, 6));
  r.tensor("_fft_c2r_odd", vs::_fft_c2r(f, {1}, 0, 5));
  r.raises("_fft_r2c_complex", [&] { vs::_fft_r2c(c, {1}, 0, true); });
  r.raises("_fft_c2c_real", [&] { vs::_fft_c2c(x, {1}, 0, true); });
}

// LibTorch's coalesce leaves the indices a narrow view of the uncoalesced [2, 5] buffer (strides
// [5, 1]); Ember's are a compact [2, 4] tensor (strides [4, 1]): deliberate, Ember's COO tensors
// always hold compact indices, which its sparse kernels read directly. The values agree.
VS_CASE("sparse_quant.coalesced_indices_layout") {
  r.expect_diff("coalesce().indices() of a COO tensor with a duplicate: Ember strides [4, 1], LibTorch [5, 1]");
  r.tensor("indices", coo().coalesce().indices());
}

// Quantization edges: rounding at half steps, clamping at the range ends, float64 and non-contiguous
// inputs, negative per-channel axis, dequantize of a float tensor; sparse with integer values,
// negative indices and all-zero dense inputs.
VS_CASE("sparse_quant.edges") {
  vs::Tensor halves = vs::tensor({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, 1000.0f, -1000.0f});
  r.result("quantize_half_steps", [&] { return vs::quantize_per_tensor(halves, 1.0, 0, vs::kQInt8).int_repr(); });
  r.result("quantize_half_steps_scaled",
           [&] { return vs::quantize_per_tensor(halves * 0.1, 0.1, 3, vs::kQUInt8).int_repr(); });
  r.result("quantize_qint32", [&] { return vs::quantize_per_tensor(halves, 0.5, -7, vs::kQInt32).int_repr(); });
  r.result("quantize_f64_input",
           [&] { return vs::quantize_per_tensor(halves.to(vs::kFloat64), 0.25, 1, vs::kQInt8).int_repr(); });
  r.result("quantize_noncontig", [&] {
    return vs::quantize_per_tensor((vs::arange(12, vs::kFloat32) * 0.3).reshape({3, 4}).t(), 0.1, 0, vs::kQUInt8)
        .int_repr();
  });
  r.result("quantize_per_channel_negative_axis", [&] {
    return vs::quantize_per_channel((vs::arange(12, vs::kFloat32) * 0.3 - 1).reshape({3, 4}),
                                    vs::tensor({0.1, 0.2, 0.3, 0.4}, vs::kFloat64),
                                    vs::tensor({0, 1, 2, 3}, vs::kInt64), -1, vs::kQUInt8)
        .int_repr();
  });
  r.result("dequantize_float", [&] { return vs::dequantize(vs::tensor({1.5, -2.0}, vs::kFloat64)); });
  r.result("quantize_zero_point_out_of_range",
           [&] { return vs::quantize_per_tensor(halves, 1.0, 300, vs::kQUInt8).int_repr(); });
  r.result("sparse_int_values_to_dense", [&] {
    return vs::sparse_coo_tensor(coo_indices(), vs::tensor({1, 2, 3, 4, 5}, vs::kInt64), {3, 4}).coalesce().values();
  });
  r.result("sparse_negative_index", [&] {
    return vs::sparse_coo_tensor(vs::tensor({0, -1}, vs::kInt64).reshape({2, 1}), vs::ones({1}), {2, 2}).to_dense();
  });
  r.result("zeros_to_sparse_nnz", [&] { return vs::scalar_tensor(vs::zeros({3, 3}).to_sparse()._nnz(), vs::kInt64); });
  r.result("zeros_to_sparse_csr_crow", [&] { return vs::zeros({3, 3}).to_sparse_csr().crow_indices(); });
  r.result("to_sparse_csr_int", [&] { return (vs::arange(6).reshape({2, 3}) - 2).to_sparse_csr().values(); });
  r.result("sparse_softmax_f32",
           [&] { return vs::_sparse_softmax(coo().coalesce().to(vs::kFloat32), 1, false).to_dense(); });
}

VS_CASE("sparse_quant.quantize_zero_scale") {
  r.expect_diff(
      "quantize_per_tensor(x, scale 0.0, 0, kQInt8): Ember refuses (\"expected a positive finite scale\"), "
      "LibTorch 1.13 accepts and divides by zero (int_repr all -128)");
  r.result("quantize_zero_scale", [] {
    return vs::quantize_per_tensor(vs::tensor({-2.5f, 0.5f, 3.5f}), 0.0, 0, vs::kQInt8).int_repr();
  });
}

VS_CASE("sparse_quant.sparse_log_softmax_negative_dim") {
  // The internal form takes no negative dim (only log_softmax wraps).
  r.result("sparse_log_softmax_negative_dim",
           [] { return vs::_sparse_log_softmax(coo().coalesce(), -1, false).to_dense(); });
}

VS_CASE("sparse_quant.sparse_mask_uncoalesced") {
  r.expect_diff(
      "dense.sparse_mask(uncoalesced COO mask): Ember takes the mask's pattern (its unique indices, a coalesced "
      "result; the sparse gradients rely on it), LibTorch 1.13 raises \"sparse_mask: mask is uncoalesced\" and "
      "2.x keeps the duplicates (deliberate)");
  r.result("sparse_mask_uncoalesced_mask", [] { return dense().sparse_mask(coo()).to_dense(); });
}
