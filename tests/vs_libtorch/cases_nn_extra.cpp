// The nn operators not covered by cases_nn/cases_sort_nn against LibTorch 1.13: conv1d/conv3d, the
// transposed convolutions, convolution and convolution_backward, native batch/layer norm and their
// backwards, instance_norm, the losses, cosine_similarity/pairwise_distance/bilinear, the activations'
// out= and in-place forms, _softmax/_log_softmax out=, and scaled_dot_product_attention,
// multi_head_attention_forward and _native_batch_norm_legit (PyTorch 2.x: the LibTorch side composes
// them from 1.13 operators, vs_api.h).
#include <string>
#include <tuple>
#include <vector>

#include "vs_record.h"

namespace {

// Deterministic values in about [-1, 1]: sin of a scaled ramp, in float64.
vs::Tensor wave(std::vector<int64_t> shape, double k = 1.3, double phase = 0.0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (vs::arange(n, vs::kFloat64) * k + phase).sin().reshape(shape);
}
// Padding 0 as a list: a literal 0 also converts to LibTorch's string padding ("same"/"valid").
const std::vector<int64_t> kPad0 = {0};
void rec3(vs_test::Recorder& r, const std::string& label, const std::tuple<vs::Tensor, vs::Tensor, vs::Tensor>& t) {
  // An output the mask leaves out is undefined: record that it is.
  const vs::Tensor* outs[] = {&std::get<0>(t), &std::get<1>(t), &std::get<2>(t)};
  for (int i = 0; i < 3; ++i) {
    const std::string l = label + "." + std::to_string(i);
    if (outs[i]->defined())
      r.tensor(l, *outs[i]);
    else
      r.scalar(l + ".undefined", 1);
  }
}

}  // namespace

VS_CASE("nn_extra.conv") {
  vs::Tensor x1 = wave({2, 4, 9}), w1 = wave({6, 2, 3}, 0.7), b1 = wave({6}, 2.1);
  r.tensor("conv1d", vs::conv1d(x1, w1, b1, 2, 1, 1, 2));
  r.tensor("conv1d_dilated", vs::conv1d(x1, w1.narrow(1, 0, 1).expand({6, 4, 3}).contiguous(), vs::none, 1, 2, 2));
  r.tensor("conv1d_f32", vs::conv1d(x1.to(vs::kFloat32), wave({3, 4, 2}).to(vs::kFloat32)));
  r.tensor("conv1d_unbatched", vs::conv1d(x1[0], w1, b1, 1, kPad0, 1, 2));
  vs::Tensor x3 = wave({1, 2, 4, 5, 3}), w3 = wave({3, 2, 2, 3, 2}, 0.9);
  r.tensor("conv3d", vs::conv3d(x3, w3, wave({3}, 0.4), {1, 2, 1}, {1, 0, 1}));
  r.tensor("conv3d_transposed_input", vs::conv3d(x3.transpose(2, 4), w3, vs::none, 1, kPad0, {1, 1, 2}));
  r.tensor("conv_transpose1d", vs::conv_transpose1d(x1, wave({4, 3, 3}, 0.5), wave({3}), 2, 1, 1));
  r.tensor("conv_transpose1d_groups", vs::conv_transpose1d(x1, wave({4, 2, 2}, 0.5), vs::none, 1, 0, 0, 2, 2));
  vs::Tensor x2 = wave({2, 3, 4, 5}), w2 = wave({3, 2, 3, 2}, 0.8);
  r.tensor("conv_transpose2d", vs::conv_transpose2d(x2, w2, wave({2}), {2, 1}, {1, 0}, {1, 0}));
  r.tensor("conv_transpose2d_dilation", vs::conv_transpose2d(x2, w2, vs::none, 1, 0, 0, 1, {2, 1}));
  r.tensor("conv_transpose3d", vs::conv_transpose3d(x3, wave({2, 2, 2, 2, 2}, 0.6), wave({2}), 2, 1, 1));
  r.tensor("convolution", vs::convolution(x2, wave({4, 3, 2, 2}), wave({4}), {1, 2}, {1, 1}, {1, 1}, false, {0, 0}, 1));
  r.tensor("convolution_transposed", vs::convolution(x2, w2, vs::none, {2, 2}, {0, 1}, {1, 1}, true, {1, 1}, 1));
  r.raises("conv1d_channels", [&] { vs::conv1d(x1, wave({6, 3, 3})); });
  r.raises("conv3d_rank", [&] { vs::conv3d(x1, w3); });
  r.raises("conv_transpose2d_output_padding", [&] { vs::conv_transpose2d(x2, w2, vs::none, 1, 0, 1); });
  r.raises("convolution_groups", [&] {
    vs::convolution(x2, wave({4, 3, 2, 2}), vs::none, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 2);
  });
}

VS_CASE("nn_extra.convolution_backward") {
  vs::Tensor x = wave({2, 3, 5, 4}), w = wave({4, 3, 2, 2}, 0.6);
  vs::Tensor y = vs::convolution(x, w, wave({4}), {1, 1}, {1, 0}, {1, 1}, false, {0, 0}, 1);
  vs::Tensor g = wave(y.sizes().vec(), 0.45);
  rec3(r, "conv2d",
       vs::convolution_backward(g, x, w, std::vector<int64_t>{4}, {1, 1}, {1, 0}, {1, 1}, false, {0, 0}, 1,
                                {true, true, true}));
  vs::Tensor wg = wave({4, 1, 3}, 0.3), x1 = wave({2, 4, 7});
  vs::Tensor y1 = vs::convolution(x1, wg, vs::none, {2}, {1}, {1}, false, {0}, 4);
  rec3(r, "conv1d_groups",
       vs::convolution_backward(wave(y1.sizes().vec(), 0.2), x1, wg, vs::none, {2}, {1}, {1}, false, {0}, 4,
                                {true, true, false}));
  vs::Tensor wt = wave({3, 2, 2, 2}, 0.7);
  vs::Tensor yt = vs::convolution(x, wt, vs::none, {2, 1}, {0, 0}, {1, 1}, true, {1, 0}, 1);
  rec3(r, "transposed",
       vs::convolution_backward(wave(yt.sizes().vec(), 0.9), x, wt, std::vector<int64_t>{2}, {2, 1}, {0, 0}, {1, 1},
                                true, {1, 0}, 1, {true, true, true}));
  rec3(r, "input_only",
       vs::convolution_backward(g, x, w, vs::none, {1, 1}, {1, 0}, {1, 1}, false, {0, 0}, 1, {true, false, false}));
}

VS_CASE("nn_extra.norms") {
  vs::Tensor x = wave({4, 3, 5}), w = wave({3}, 0.5, 1.0), b = wave({3}, 0.8);
  vs::Tensor rm = vs::zeros({3}, vs::kFloat64), rv = vs::ones({3}, vs::kFloat64);
  auto bn = vs::native_batch_norm(x, w, b, rm, rv, true, 0.2, 1e-5);
  rec3(r, "native_batch_norm_train", bn);
  r.tensor("running_mean", rm);
  r.tensor("running_var", rv);
  rec3(r, "native_batch_norm_eval", vs::native_batch_norm(x, w, b, rm, rv, false, 0.2, 1e-5));
  rec3(r, "native_batch_norm_no_stats",
       vs::native_batch_norm(x, vs::none, vs::none, vs::none, vs::none, true, 0.1, 1e-3));
  vs::Tensor g = wave({4, 3, 5}, 0.37);
  rec3(r, "native_batch_norm_backward_train",
       vs::native_batch_norm_backward(g, x, w, rm, rv, std::get<1>(bn), std::get<2>(bn), true, 1e-5,
                                      {true, true, true}));
  rec3(r, "native_batch_norm_backward_eval",
       vs::native_batch_norm_backward(g, x, w, rm, rv, vs::none, vs::none, false, 1e-5, {true, true, false}));
  // The PyTorch 2.x spellings, against 1.13's native_batch_norm.
  vs::Tensor rm2 = vs::zeros({3}, vs::kFloat64), rv2 = vs::ones({3}, vs::kFloat64);
  rec3(r, "legit", vs::_native_batch_norm_legit(x, w, b, rm2, rv2, true, 0.3, 1e-5));
  r.tensor("legit_running_var", rv2);
  rec3(r, "legit_no_stats", vs::_native_batch_norm_legit(x, w, b, true, 0.3, 1e-5));
  r.tensor("legit_no_training", std::get<0>(vs::_native_batch_norm_legit_no_training(x, w, b, rm2, rv2, 0.3, 1e-5)));
  // Layer norm and its backward.
  vs::Tensor lw = wave({3, 5}, 0.2, 1.0), lb = wave({3, 5}, 0.6);
  auto ln = vs::native_layer_norm(x, {3, 5}, lw, lb, 1e-5);
  rec3(r, "native_layer_norm", ln);
  rec3(r, "native_layer_norm_last", vs::native_layer_norm(x.transpose(0, 2), {4}, vs::none, vs::none, 1e-3));
  rec3(r, "native_layer_norm_backward",
       vs::native_layer_norm_backward(g, x, {3, 5}, std::get<1>(ln), std::get<2>(ln), lw, lb, {true, true, true}));
  rec3(r, "native_layer_norm_backward_no_affine",
       vs::native_layer_norm_backward(g, x, {3, 5}, std::get<1>(ln), std::get<2>(ln), vs::none, vs::none,
                                      {true, false, false}));
  // instance_norm: per-sample statistics, with and without running stats.
  vs::Tensor irm = vs::zeros({3}, vs::kFloat64), irv = vs::ones({3}, vs::kFloat64);
  r.tensor("instance_norm", vs::instance_norm(x, w, b, irm, irv, true, 0.5, 1e-5, false));
  r.tensor("instance_norm_running_mean", irm);
  r.tensor("instance_norm_running_var", irv);
  r.tensor("instance_norm_no_stats",
           vs::instance_norm(x, vs::none, vs::none, vs::none, vs::none, true, 0.1, 1e-5, false));
  r.tensor("instance_norm_eval", vs::instance_norm(x, w, b, irm, irv, false, 0.1, 1e-5, false));
  r.raises("native_layer_norm_shape", [&] { vs::native_layer_norm(x, {4}, vs::none, vs::none, 1e-5); });
}

VS_CASE("nn_extra.losses") {
  vs::Tensor p = wave({4, 5}).sigmoid(), t = wave({4, 5}, 2.3, 0.5).sigmoid(), wt = wave({5}, 0.4).abs();
  vs::Tensor y = (wave({4, 5}, 0.9) > 0).to(vs::kFloat64);
  for (int64_t red : {0, 1, 2}) {
    const std::string s = std::to_string(red);
    r.tensor("bce_" + s, vs::binary_cross_entropy(p, t, vs::none, red));
    r.tensor("bce_weight_" + s, vs::binary_cross_entropy(p, y, wt, red));
    r.tensor("bce_logits_" + s,
             vs::binary_cross_entropy_with_logits(wave({4, 5}, 3.0) * 4, t, vs::none, vs::none, red));
    r.tensor("bce_logits_pos_weight_" + s,
             vs::binary_cross_entropy_with_logits(wave({4, 5}, 3.0) * 4, y, wt, wave({5}, 1.7).abs() + 0.5, red));
    r.tensor("huber_" + s, vs::huber_loss(wave({4, 5}) * 3, wave({4, 5}, 0.3), red, 0.75));
    r.tensor("smooth_l1_" + s, vs::smooth_l1_loss(wave({4, 5}) * 3, wave({4, 5}, 0.3), red, 0.5));
    r.tensor("kl_div_" + s, vs::kl_div(p.log(), t, red));
    r.tensor("kl_div_log_target_" + s, vs::kl_div(p.log(), t.log(), red, true));
    r.tensor("triplet_" + s,
             vs::triplet_margin_loss(wave({4, 5}), wave({4, 5}, 0.5), wave({4, 5}, 0.2), 1.0, 2, 1e-6, false, red));
    r.tensor("triplet_swap_p1_" + s,
             vs::triplet_margin_loss(wave({4, 5}), wave({4, 5}, 0.5), wave({4, 5}, 0.2), 0.5, 1, 1e-6, true, red));
  }
  r.tensor("bce_f32", vs::binary_cross_entropy(p.to(vs::kFloat32), t.to(vs::kFloat32)));
  r.tensor("bce_clamped_log", vs::binary_cross_entropy(vs::tensor({0.0, 1.0, 0.5}, vs::kFloat64),
                                                       vs::tensor({1.0, 0.0, 1.0}, vs::kFloat64), vs::none, 0));
  r.tensor("huber_delta_zero_f32", vs::huber_loss(wave({6}).to(vs::kFloat32), vs::zeros({6}), 0, 2.0));
  r.tensor("smooth_l1_beta_zero", vs::smooth_l1_loss(wave({6}), vs::zeros({6}, vs::kFloat64), 0, 0.0));
  // nll_loss2d / nll_loss_nd over [N, C, H, W] with class targets.
  vs::Tensor logp = wave({2, 3, 4, 2}).log_softmax(1);
  vs::Tensor tgt = vs::tensor({0, 2, 1, 1, 2, 0, 0, 1, 2, 2, 1, 0, 0, 0, 1, 2}, vs::kInt64).reshape({2, 4, 2});
  for (int64_t red : {0, 1, 2}) {
    const std::string s = std::to_string(red);
    r.tensor("nll_loss2d_" + s, vs::nll_loss2d(logp, tgt, vs::none, red));
    r.tensor("nll_loss2d_weight_ignore_" + s, vs::nll_loss2d(logp, tgt, wave({3}).abs(), red, 2));
    r.tensor("nll_loss_nd_4d_" + s, vs::nll_loss_nd(logp, tgt, wave({3}).abs(), red));
    r.tensor("nll_loss_nd_2d_" + s,
             vs::nll_loss_nd(wave({5, 3}).log_softmax(1), vs::tensor({0, 2, 1, 1, 0}), vs::none, red, 1));
  }
  r.tensor("nll_loss_nd_1d", vs::nll_loss_nd(wave({3}).log_softmax(0), vs::scalar_tensor(2, vs::kInt64)));
  r.raises("bce_shape", [&] { vs::binary_cross_entropy(p, t.t()); });
  r.raises("bce_out_of_range", [&] { vs::binary_cross_entropy(p * 3, t); });
  r.raises("nll_loss2d_rank", [&] { vs::nll_loss2d(wave({5, 3}), vs::tensor({0, 1, 2, 0, 1})); });
  r.raises("nll_loss2d_target_oob", [&] { vs::nll_loss2d(logp, tgt * 2); });
  r.raises("nll_loss_nd_target_shape", [&] { vs::nll_loss_nd(logp, tgt.narrow(1, 0, 3)); });
  r.raises("triplet_shape", [&] { vs::triplet_margin_loss(wave({4, 5}), wave({4, 5}), wave({3, 5})); });
}

VS_CASE("nn_extra.similarity") {
  vs::Tensor a = wave({4, 5}), b = wave({4, 5}, 0.7, 0.3);
  r.tensor("cosine_similarity", vs::cosine_similarity(a, b));
  r.tensor("cosine_similarity_dim0", vs::cosine_similarity(a, b, 0));
  r.tensor("cosine_similarity_broadcast", vs::cosine_similarity(a, wave({5}, 0.2), -1));
  r.tensor("cosine_similarity_zero", vs::cosine_similarity(vs::zeros({2, 3}, vs::kFloat64), wave({2, 3}), 1, 1e-8));
  r.tensor("cosine_similarity_f32", vs::cosine_similarity(a.to(vs::kFloat32), b.to(vs::kFloat32).t().contiguous().t()));
  r.tensor("pairwise_distance", vs::pairwise_distance(a, b));
  r.tensor("pairwise_distance_p1_keepdim", vs::pairwise_distance(a, b, 1, 1e-6, true));
  r.tensor("pairwise_distance_inf", vs::pairwise_distance(a, b, INFINITY));
  r.tensor("pairwise_distance_p0", vs::pairwise_distance(a, b, 0));
  r.tensor("pairwise_distance_1d", vs::pairwise_distance(wave({5}), wave({5}, 0.4), 3));
  vs::Tensor w = wave({3, 5, 2}, 0.55);
  r.tensor("bilinear", vs::bilinear(a, wave({4, 2}, 0.3), w, wave({3}, 1.1)));
  r.tensor("bilinear_no_bias", vs::bilinear(a, wave({4, 2}, 0.3), w));
  r.tensor("bilinear_batched", vs::bilinear(wave({2, 4, 5}), wave({2, 4, 2}, 0.3), w));
  r.raises("cosine_similarity_shape", [&] { vs::cosine_similarity(a, wave({3, 5})); });
  r.raises("bilinear_weight", [&] { vs::bilinear(a, wave({4, 2}), wave({3, 4, 2})); });
}

VS_CASE("nn_extra.activations_out_inplace") {
  for (auto dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string p = dt == vs::kFloat32 ? "f32_" : "f64_";
    vs::Tensor base = (wave({6, 4}) * 4).to(dt), x = base.t();
    vs::Tensor o1 = vs::empty({0}, dt);
    r.tensor(p + "elu_out", vs::elu_out(o1, x, 0.5, 1.5, 2.0));
    vs::Tensor o2 = vs::empty({0}, dt);
    r.tensor(p + "gelu_out", vs::gelu_out(o2, x));
    vs::Tensor o3 = vs::empty({0}, dt);
    r.tensor(p + "gelu_out_tanh", vs::gelu_out(o3, x, "tanh"));
    vs::Tensor o4 = vs::empty({0}, dt);
    r.tensor(p + "hardsigmoid_out", vs::hardsigmoid_out(o4, x));
    vs::Tensor o5 = vs::empty({0}, dt);
    r.tensor(p + "hardswish_out", vs::hardswish_out(o5, x));
    vs::Tensor o6 = vs::empty({0}, dt);
    r.tensor(p + "hardtanh_out", vs::hardtanh_out(o6, x, -2.0, 1.5));
    vs::Tensor o7 = vs::empty({0}, dt);
    r.tensor(p + "leaky_relu_out", vs::leaky_relu_out(o7, x, 0.2));
    vs::Tensor o8 = vs::empty({0}, dt);
    r.tensor(p + "mish_out", vs::mish_out(o8, x));
    vs::Tensor o9 = vs::empty({0}, dt);
    r.tensor(p + "silu_out", vs::silu_out(o9, x));
    vs::Tensor o10 = vs::empty({0}, dt);
    r.tensor(p + "softplus_out", vs::softplus_out(o10, x, 2, 3));
    vs::Tensor o11 = vs::empty({4, 6}, dt);
    r.tensor(p + "_softmax_out", vs::_softmax_out(o11, x, 1, false));
    vs::Tensor o12 = vs::empty({0}, dt);
    r.tensor(p + "_log_softmax_out", vs::_log_softmax_out(o12, x, 0, false));
    // In place on the transposed view: the result and its base.
    vs::Tensor b1 = base.clone(), v1 = b1.t();
    vs::gelu_(v1, "tanh");
    r.tensor(p + "gelu_base", b1);
    vs::Tensor b2 = base.clone(), v2 = b2.t();
    vs::hardsigmoid_(v2);
    r.tensor(p + "hardsigmoid_base", b2);
    vs::Tensor b3 = base.clone(), v3 = b3.t();
    vs::hardtanh_(v3, -0.5, 0.5);
    r.tensor(p + "hardtanh_base", b3);
    vs::Tensor b4 = base.clone(), v4 = b4.t();
    vs::mish_(v4);
    r.tensor(p + "mish_base", b4);
    vs::Tensor b5 = base.clone(), v5 = b5.t();
    vs::silu_(v5);
    r.tensor(p + "silu_base", b5);
    vs::Tensor xc = x.clone();
    r.tensor(p + "gelu_default_", vs::gelu_(xc));
  }
  vs::Tensor hi = vs::arange(-5, 5, vs::kInt64);
  r.tensor("hardtanh_int_", vs::hardtanh_(hi, -2, 3));
  r.result("silu_out_f64_from_f32", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat64);
    return vs::silu_out(o, wave({5}).to(vs::kFloat32));
  });
  r.raises("_softmax_out_half_to_float", [&] {
    vs::Tensor sm = vs::empty({0}, vs::kFloat32);
    vs::_softmax_out(sm, wave({2, 3}).to(vs::kFloat16), 1, true);
  });
  r.raises("gelu_int", [&] {
    vs::Tensor oi = vs::empty({0}, vs::kInt64);
    vs::gelu_out(oi, vs::arange(4, vs::kInt64));
  });
  r.raises("gelu_bad_approximate", [&] {
    vs::Tensor w = wave({3});
    vs::gelu_(w, "fast");
  });
  r.raises("silu_int_", [&] {
    vs::Tensor i = vs::arange(4, vs::kInt64);
    vs::silu_(i);
  });
  r.raises("softplus_out_int", [&] {
    vs::Tensor oi = vs::empty({0}, vs::kInt64);
    vs::softplus_out(oi, wave({3}));
  });
  r.raises("_softmax_out_dim", [&] {
    vs::Tensor of = vs::empty({0}, vs::kFloat64);
    vs::_softmax_out(of, wave({2, 3}), 2, false);
  });
  r.raises("_log_softmax_half_to_float_f64", [&] {
    vs::Tensor of = vs::empty({0}, vs::kFloat64);
    vs::_log_softmax_out(of, wave({2, 3}), 1, true);
  });
}

VS_CASE("nn_extra.attention") {
  vs::Tensor q = wave({2, 3, 4, 8}), k = wave({2, 3, 5, 8}, 0.7), v = wave({2, 3, 5, 6}, 0.4);
  r.tensor("sdpa", vs::scaled_dot_product_attention(q, k, v));
  r.tensor("sdpa_scale", vs::scaled_dot_product_attention(q, k, v, vs::none, 0.0, false, 0.5));
  r.tensor("sdpa_bool_mask", vs::scaled_dot_product_attention(q, k, v, wave({4, 5}, 2.2) > -0.5));
  r.tensor("sdpa_float_mask", vs::scaled_dot_product_attention(q, k, v, wave({2, 1, 4, 5}, 1.9)));
  r.tensor("sdpa_causal",
           vs::scaled_dot_product_attention(q, wave({2, 3, 4, 8}, 0.6), wave({2, 3, 4, 6}, 0.2), vs::none, 0.0, true));
  r.tensor("sdpa_f32_3d",
           vs::scaled_dot_product_attention(q[0].to(vs::kFloat32), k[0].to(vs::kFloat32), v[0].to(vs::kFloat32)));
  // multi_head_attention_forward over (L, N, E) with a packed in-projection.
  const int64_t E = 6, H = 2;
  vs::Tensor query = wave({4, 2, E}), key = wave({5, 2, E}, 0.8), value = wave({5, 2, E}, 0.35);
  vs::Tensor in_w = wave({3 * E, E}, 0.45) * 0.5, in_b = wave({3 * E}, 0.9) * 0.1;
  vs::Tensor out_w = wave({E, E}, 0.65) * 0.5, out_b = wave({E}, 1.4) * 0.1;
  auto mha = vs::multi_head_attention_forward(query, key, value, E, H, in_w, in_b, vs::none, vs::none, false, 0.0,
                                              out_w, out_b, false);
  r.tensor("mha_out", std::get<0>(mha));
  r.tensor("mha_weights", std::get<1>(mha));
  auto mha_bias_kv = vs::multi_head_attention_forward(query, key, value, E, H, in_w, in_b, wave({1, 1, E}, 0.3),
                                                      wave({1, 1, E}, 0.5), true, 0.0, out_w, out_b, false);
  r.tensor("mha_bias_kv_out", std::get<0>(mha_bias_kv));
  r.tensor("mha_bias_kv_weights", std::get<1>(mha_bias_kv));
  vs::Tensor kpm = vs::tensor({false, false, true, false, true, false, false, false, false, true}).reshape({2, 5});
  auto mha_mask = vs::multi_head_attention_forward(query, key, value, E, H, in_w, in_b, vs::none, vs::none, false, 0.0,
                                                   out_w, vs::none, false, kpm, true, wave({4, 5}, 1.2));
  r.tensor("mha_masks_out", std::get<0>(mha_mask));
  r.tensor("mha_masks_weights", std::get<1>(mha_mask));
  r.raises("sdpa_shape", [&] { vs::scaled_dot_product_attention(q, k, wave({2, 3, 4, 6})); });
  r.raises("mha_embed_dim", [&] {
    vs::multi_head_attention_forward(query, key, value, E + 1, H, in_w, in_b, vs::none, vs::none, false, 0.0, out_w,
                                     out_b, false);
  });
}

// Edge values and dtypes: extreme logits, zero targets in kl_div, inf in the regression losses,
// float32 non-contiguous norms, string padding, and the reductions of empty batches.
VS_CASE("nn_extra.edges") {
  vs::Tensor big = vs::tensor({-100.0, -30.0, 0.0, 30.0, 100.0}, vs::kFloat64);
  vs::Tensor tgt = vs::tensor({0.0, 1.0, 0.5, 0.0, 1.0}, vs::kFloat64);
  r.result("bce_logits_extreme", [&] { return vs::binary_cross_entropy_with_logits(big, tgt, vs::none, vs::none, 0); });
  r.result("bce_logits_extreme_f32", [&] {
    return vs::binary_cross_entropy_with_logits(big.to(vs::kFloat32), tgt.to(vs::kFloat32), vs::none, vs::none, 0);
  });
  r.result("bce_logits_pos_weight_broadcast", [&] {
    return vs::binary_cross_entropy_with_logits(wave({2, 5}), (wave({2, 5}, 0.4) > 0).to(vs::kFloat64), vs::none,
                                                vs::scalar_tensor(3.0, vs::kFloat64), 2);
  });
  r.result("kl_div_zero_target", [&] { return vs::kl_div(tgt.log_softmax(0), tgt, 0); });
  r.result("kl_div_log_target_neg_inf", [&] {
    return vs::kl_div(tgt.log_softmax(0), vs::tensor({-1.0 / 0.0, 0.0, -1.0, -2.0, -1.0 / 0.0}, vs::kFloat64), 0, true);
  });
  r.result("huber_inf", [&] { return vs::huber_loss(vs::tensor({1.0 / 0.0, 1.0, -1.0 / 0.0}), vs::zeros({3}), 0); });
  r.result("smooth_l1_inf_mean", [&] { return vs::smooth_l1_loss(vs::tensor({1.0 / 0.0, 1.0}), vs::zeros({2})); });
  r.result("huber_broadcast", [&] { return vs::huber_loss(wave({3, 4}), wave({4}, 0.3), 0); });
  r.result("huber_empty_mean", [&] { return vs::huber_loss(vs::zeros({0}), vs::zeros({0})); });
  r.result("triplet_broadcast_rank",
           [&] { return vs::triplet_margin_loss(wave({5}), wave({5}, 0.2), wave({5}, 0.9)); });
  r.result("bce_weight_broadcast", [&] {
    return vs::binary_cross_entropy(wave({3, 4}).sigmoid(), wave({3, 4}, 0.6).sigmoid(), wave({4}).abs(), 0);
  });
  r.result("nll_loss2d_all_ignored_mean", [&] {
    return vs::nll_loss2d(wave({1, 3, 2, 2}), vs::full({1, 2, 2}, 1, vs::kInt64), vs::none, 1, 1);
  });
  r.result("nll_loss_nd_float_target", [&] { return vs::nll_loss_nd(wave({3, 3}), vs::zeros({3})); });
  vs::Tensor x32 = wave({4, 5, 3}).to(vs::kFloat32).transpose(1, 2);  // [4, 3, 5] non-contiguous
  r.result("layer_norm_f32_noncontig",
           [&] { return std::get<0>(vs::native_layer_norm(x32, {5}, vs::ones({5}), vs::zeros({5}), 1e-5)); });
  r.result("layer_norm_f32_rstd", [&] {
    return std::get<2>(vs::native_layer_norm(x32, {3, 5}, vs::none, vs::none, 1e-5));
  });
  r.result("batch_norm_f32_noncontig", [&] {
    vs::Tensor rm = vs::zeros({3}), rv = vs::ones({3});
    return std::get<0>(vs::native_batch_norm(x32, vs::none, vs::none, rm, rv, true, 0.1, 1e-5));
  });
  r.result("batch_norm_f32_save_invstd", [&] {
    return std::get<2>(vs::native_batch_norm(x32, vs::none, vs::none, vs::none, vs::none, true, 0.1, 1e-5));
  });
  r.result("batch_norm_single_value_per_channel", [&] {
    return std::get<0>(vs::native_batch_norm(wave({1, 3}), vs::none, vs::none, vs::none, vs::none, true, 0.1, 1e-5));
  });
  r.result("instance_norm_f32_noncontig",
           [&] { return vs::instance_norm(x32, vs::none, vs::none, vs::none, vs::none, true, 0.1, 1e-5, false); });
  // The string paddings, through the functional API and the aten overloads (conv*d.padding): "same"
  // with an odd total (one more zero after the input) and an even one, "valid", a bad string, a stride.
  r.result("conv2d_same_even_kernel", [&] {
    return vs::conv2d(wave({2, 3, 6, 5}), wave({4, 3, 2, 3}, 0.4), wave({4}), {1, 1}, "same", {1, 2});
  });
  r.result("conv1d_same_aten", [&] { return vs::conv1d(wave({1, 2, 7}), wave({3, 2, 4}), vs::none, 1, "same"); });
  r.result("conv3d_valid_aten", [&] {
    return vs::conv3d(wave({1, 2, 4, 5, 3}), wave({2, 1, 2, 2, 2}), vs::none, 1, "valid", 1, 2);
  });
  r.result("conv2d_same_unbatched", [&] {
    return vs::conv2d(wave({3, 5, 5}), wave({2, 3, 4, 4}), vs::none, 1, "same");
  });
  r.raises("conv2d_padding_bad_string", [&] {
    vs::conv2d(wave({1, 3, 5, 5}), wave({2, 3, 3, 3}), vs::none, 1, "full");
  });
  r.raises("conv2d_same_strided", [&] { vs::conv2d(wave({1, 3, 5, 5}), wave({2, 3, 3, 3}), vs::none, 2, "same"); });
  r.result("conv1d_same", [&] {
    return vs::nn::functional::conv1d(wave({2, 4, 9}), wave({3, 4, 4}, 0.7),
                                      vs::nn::functional::Conv1dFuncOptions().padding(vs::kSame).dilation(2));
  });
  r.result("conv3d_valid", [&] {
    return vs::nn::functional::conv3d(wave({1, 2, 4, 5, 3}), wave({2, 2, 2, 2, 2}),
                                      vs::nn::functional::Conv3dFuncOptions().padding(vs::kValid));
  });
  r.result("conv_transpose3d_groups_dilation", [&] {
    return vs::conv_transpose3d(wave({1, 4, 3, 2, 3}), wave({4, 1, 2, 2, 2}, 0.3), vs::none, {1, 2, 1}, 1, {0, 1, 0}, 2,
                                {2, 1, 1});
  });
  r.result("conv_transpose1d_f32_noncontig", [&] {
    return vs::conv_transpose1d(wave({2, 7, 4}).to(vs::kFloat32).transpose(1, 2), wave({4, 2, 3}).to(vs::kFloat32));
  });
  r.result("cosine_similarity_eps_large", [&] {
    return vs::cosine_similarity(wave({3, 4}) * 1e-5, wave({3, 4}, 0.2), 1, 1.0);
  });
  r.result("pairwise_distance_broadcast", [&] { return vs::pairwise_distance(wave({3, 4}), wave({4}, 0.2), 2, 0.0); });
  r.result("pairwise_distance_negative_p", [&] { return vs::pairwise_distance(wave({3, 4}), wave({3, 4}, 0.2), -1); });
  r.result("sdpa_all_masked_row", [&] {
    return vs::scaled_dot_product_attention(wave({1, 2, 4}), wave({1, 3, 4}, 0.6), wave({1, 3, 2}, 0.1),
                                            vs::tensor({true, true, false, false, false, false}).reshape({2, 3}));
  });
}

// Mixed input dtypes raise on both sides (one dtype for input1, input2 and weight).
VS_CASE("nn_extra.bilinear_mixed_dtypes") {
  r.result("bilinear_f64_int", [&] {
    return vs::bilinear(wave({2, 3}), vs::ones({2, 2}, vs::kInt64), wave({1, 3, 2}));
  });
}

// The backward primitives in float32, without affine parameters, with partial output masks, and
// convolution_backward over strided/dilated/grouped/transposed 1-d and 3-d cases.
VS_CASE("nn_extra.backward_edges") {
  vs::Tensor x = wave({3, 4, 5}).to(vs::kFloat32), g = wave({3, 4, 5}, 0.77).to(vs::kFloat32);
  auto bn = vs::native_batch_norm(x, vs::none, vs::none, vs::none, vs::none, true, 0.1, 1e-5);
  rec3(r, "bn_backward_no_weight_f32",
       vs::native_batch_norm_backward(g, x, vs::none, vs::none, vs::none, std::get<1>(bn), std::get<2>(bn), true, 1e-5,
                                      {true, true, true}));
  rec3(r, "bn_backward_weight_only_mask",
       vs::native_batch_norm_backward(g, x, vs::ones({4}), vs::none, vs::none, std::get<1>(bn), std::get<2>(bn), true,
                                      1e-5, {false, true, false}));
  rec3(r, "bn_backward_noncontig_grad",
       vs::native_batch_norm_backward(g.transpose(0, 2).contiguous().transpose(0, 2), x, vs::ones({4}), vs::none,
                                      vs::none, std::get<1>(bn), std::get<2>(bn), true, 1e-5, {true, true, true}));
  auto ln = vs::native_layer_norm(x, {5}, vs::none, vs::none, 1e-5);
  rec3(r, "ln_backward_f32",
       vs::native_layer_norm_backward(g, x, {5}, std::get<1>(ln), std::get<2>(ln), vs::ones({5}), vs::zeros({5}),
                                      {true, true, true}));
  rec3(r, "ln_backward_bias_only",
       vs::native_layer_norm_backward(g, x, {5}, std::get<1>(ln), std::get<2>(ln), vs::ones({5}), vs::zeros({5}),
                                      {false, false, true}));
  vs::Tensor x1 = wave({2, 4, 11}), w1 = wave({6, 2, 3}, 0.6);
  vs::Tensor y1 = vs::convolution(x1, w1, vs::none, {2}, {2}, {2}, false, {0}, 2);
  rec3(r, "conv1d_stride_dilation_groups",
       vs::convolution_backward(wave(y1.sizes().vec(), 0.4), x1, w1, std::vector<int64_t>{6}, {2}, {2}, {2}, false, {0},
                                2, {true, true, true}));
  vs::Tensor x3 = wave({1, 2, 3, 4, 3}), w3 = wave({2, 3, 2, 2, 2}, 0.5);
  vs::Tensor y3 = vs::convolution(x3, w3, vs::none, {2, 1, 2}, {0, 1, 0}, {1, 1, 1}, true, {1, 0, 1}, 1);
  rec3(r, "conv_transpose3d",
       vs::convolution_backward(wave(y3.sizes().vec(), 0.3), x3, w3, std::vector<int64_t>{3}, {2, 1, 2}, {0, 1, 0},
                                {1, 1, 1}, true, {1, 0, 1}, 1, {true, true, true}));
  vs::Tensor x2 = wave({2, 2, 5, 5}).to(vs::kFloat32), w2 = wave({4, 1, 3, 3}, 0.9).to(vs::kFloat32);
  vs::Tensor y2 = vs::convolution(x2, w2, vs::none, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 2);
  rec3(r, "conv2d_f32_groups",
       vs::convolution_backward(wave(y2.sizes().vec(), 0.2).to(vs::kFloat32), x2, w2, vs::none, {1, 1}, {1, 1}, {1, 1},
                                false, {0, 0}, 2, {true, true, false}));
  auto mha = vs::multi_head_attention_forward(wave({3, 1, 4}), wave({3, 1, 4}, 0.5), wave({3, 1, 4}, 0.9), 4, 1,
                                              wave({12, 4}, 0.3), vs::none, vs::none, vs::none, false, 0.0,
                                              wave({4, 4}, 0.8), vs::none, false, vs::none, false);
  r.tensor("mha_no_weights_out", std::get<0>(mha));
  r.scalar("mha_no_weights_defined", std::get<1>(mha).defined());
  // (train=true without save_mean/save_invstd crashes LibTorch 1.13's CPU kernel: not compared.)
}
