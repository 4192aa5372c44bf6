// Pooling over 1 and 3 dimensions, adaptive pools and padding (Ember: the cpu plugin's pool.cpp
// and pad.cpp, the composites in libember), over float32/float64, non-contiguous inputs and
// error inputs.
#include <string>
#include <tuple>

#include "vs_record.h"

namespace {
// Deterministic values in [-1, 1] without ties.
vs::Tensor data(vs::IntArrayRef shape, double phase = 0.0, vs::ScalarType dt = vs::kFloat32) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (vs::arange(n, vs::kFloat64) * 0.7 + phase).sin().reshape(shape).to(dt);
}
// The same values laid out with the last two dimensions transposed in memory.
vs::Tensor transposed(vs::IntArrayRef shape, double phase = 0.0, vs::ScalarType dt = vs::kFloat32) {
  std::vector<int64_t> s(shape.begin(), shape.end());
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return data(s, phase, dt).transpose(-1, -2);
}
}  // namespace

VS_CASE("pool_pad.pool1d") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string t = dt == vs::kFloat32 ? "f32" : "f64";
    vs::Tensor x = data({2, 3, 9}, 0, dt), xt = transposed({2, 3, 9}, 1, dt);
    r.tensor("avg_pool1d_" + t, vs::avg_pool1d(x, {3}, {2}, {1}, true, false));
    r.tensor("avg_pool1d_unbatched_" + t, vs::avg_pool1d(x[0], {4}, {3}, {2}, false, true));
    r.tensor("max_pool1d_" + t, vs::max_pool1d(x, {3}, {2}, {1}, {1}, true));
    r.tensor("max_pool1d_t_" + t, vs::max_pool1d(xt, {2}, {1}, {0}, {3}));
    r.tensor("adaptive_avg_pool1d_up_" + t, vs::adaptive_avg_pool1d(x[1], {13}));
  }
  vs::Tensor x = data({2, 3, 9});
  r.raises("avg_pool1d_pad", [&] { vs::avg_pool1d(x, {2}, {}, {2}); });
  r.raises("avg_pool1d_small", [&] { vs::avg_pool1d(x, {10}); });
  r.raises("avg_pool1d_4d", [&] { vs::avg_pool1d(data({2, 3, 4, 4}), {2}); });
  r.raises("avg_pool1d_int", [&] { vs::avg_pool1d(x.to(vs::kInt32), {2}); });
  r.raises("max_pool1d_pad", [&] { vs::max_pool1d(x, {2}, {}, {2}); });
  r.raises("max_pool1d_1d", [&] { vs::max_pool1d(data({6}), {2}); });
  r.raises("max_pool1d_kernel0", [&] { vs::max_pool1d(x, {0}); });
  r.raises("adaptive_avg_pool1d_sizes", [&] { vs::adaptive_avg_pool1d(x, {1, 2}); });
  r.raises("adaptive_max_pool1d_1d", [&] { vs::adaptive_max_pool1d(data({6}), {2}); });
}

// LibTorch pools 1-d through 2-d: an input whose channels are innermost ([N, C, L] with strides
// [C L, 1, C]) is channels-last there, and so is its result (Note [Pooled layouts]).
VS_CASE("pool_pad.pool1d_channels_innermost") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string t = dt == vs::kFloat32 ? "f32" : "f64";
    vs::Tensor xt = transposed({2, 3, 9}, 1, dt);
    r.tensor("avg_pool1d_t_" + t, vs::avg_pool1d(xt, {2}));
    r.tensor("adaptive_avg_pool1d_" + t, vs::adaptive_avg_pool1d(xt, {4}));
    auto [v, i] = vs::adaptive_max_pool1d(xt, {4});
    r.tensor("adaptive_max_pool1d_" + t, v);
    r.tensor("adaptive_max_pool1d_idx_" + t, i);
  }
}

// A channels-last input keeps its layout through the 2-d pools, their indices and gradients; a
// channels-last-3d one does not through the 3-d pools (LibTorch 1.13's CPU kernels).
VS_CASE("pool_pad.channels_last") {
  const vs::Tensor x = data({2, 3, 6, 7}).contiguous(vs::MemoryFormat::ChannelsLast);
  auto [m, mi] = vs::max_pool2d_with_indices(x, {2, 2}, {2, 2});
  r.tensor("max_pool2d", m);
  r.tensor("max_pool2d_idx", mi);
  r.tensor("max_pool2d_bw",
           vs::max_pool2d_with_indices_backward(data(m.sizes(), 1), x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, mi));
  r.tensor("avg_pool2d", vs::avg_pool2d(x, {3, 2}, {2, 1}, {1, 0}));
  r.tensor("avg_pool2d_bw",
           vs::avg_pool2d_backward(data({2, 3, 3, 6}, 1), x, {3, 2}, {2, 1}, {1, 0}, false, true, vs::none));
  r.tensor("adaptive_avg_pool2d", vs::_adaptive_avg_pool2d(x, {3, 4}));
  r.tensor("adaptive_avg_pool2d_bw", vs::_adaptive_avg_pool2d_backward(data({2, 3, 3, 4}, 1), x));
  auto [am, ai] = vs::adaptive_max_pool2d(x, {3, 4});
  r.tensor("adaptive_max_pool2d", am);
  r.tensor("adaptive_max_pool2d_idx", ai);
  r.tensor("adaptive_max_pool2d_bw", vs::adaptive_max_pool2d_backward(data({2, 3, 3, 4}, 1), x, ai));
  r.tensor("max_pool2d_fn", vs::max_pool2d(x, {2, 3}));
  const vs::Tensor x5 = data({2, 3, 4, 6, 5}).contiguous(vs::MemoryFormat::ChannelsLast3d);
  r.tensor("max_pool3d", std::get<0>(vs::max_pool3d_with_indices(x5, {2, 2, 2}, {2, 2, 2})));
  r.tensor("avg_pool3d", vs::avg_pool3d(x5, {2, 2, 2}));
  r.tensor("adaptive_avg_pool3d", vs::_adaptive_avg_pool3d(x5, {2, 3, 4}));
  const vs::Tensor xt = data({2, 9, 3}).transpose(1, 2);  // [2, 3, 9], channels innermost
  r.tensor("max_pool1d_plain", vs::max_pool1d(xt, {2}));  // LibTorch's own kernel: contiguous
}

VS_CASE("pool_pad.max_pool1d_small_output") {
  r.follows_pytorch2(
      "max_pool1d with an output size of 0: LibTorch 1.13 returns an empty tensor, Ember and "
      "PyTorch 2.x raise");
  r.result("max_pool1d_small", [&] { return vs::max_pool1d(data({2, 3, 6}), {7}); });
}

VS_CASE("pool_pad.pool3d") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string t = dt == vs::kFloat32 ? "f32" : "f64";
    vs::Tensor x = data({2, 2, 5, 6, 7}, 0, dt), xt = transposed({2, 3, 4, 5, 6}, 1, dt);
    auto [v, i] = vs::max_pool3d_with_indices(x, {3}, {2}, {1}, {1}, true);
    r.tensor("max_pool3d_" + t, v);
    r.tensor("max_pool3d_idx_" + t, i);
    auto [vt, it] = vs::max_pool3d_with_indices(xt, {2, 3, 2}, {1, 2, 2}, {1, 1, 0}, {1, 1, 2});
    r.tensor("max_pool3d_t_" + t, vt);
    r.tensor("max_pool3d_t_idx_" + t, it);
    r.tensor("max_pool3d_unbatched_" + t, vs::max_pool3d(x[0], {2}));
    r.tensor("avg_pool3d_" + t, vs::avg_pool3d(x, {3}, {2}, {1}, true, false));
    r.tensor("avg_pool3d_t_" + t, vs::avg_pool3d(xt, {2, 3, 2}, {1, 2, 1}, {1, 1, 0}, false, true, 5));
    r.tensor("avg_pool3d_unbatched_" + t, vs::avg_pool3d(x[1], {2}));
    r.tensor("adaptive_avg_pool3d_" + t, vs::adaptive_avg_pool3d(xt, {2, 3, 4}));
    r.tensor("adaptive_avg_pool3d_up_" + t, vs::adaptive_avg_pool3d(x[0], {6, 7, 8}));
    vs::Tensor out = vs::empty({0}, dt), aout = vs::empty({0}, dt), mout = vs::empty({0}, dt),
               iout = vs::empty({0}, vs::kInt64);
    vs::avg_pool3d_out(out, x, {2});
    vs::_adaptive_avg_pool3d_out(aout, xt, {3, 2, 4});
    vs::max_pool3d_with_indices_out(mout, iout, x, {2}, {1});
    r.tensor("avg_pool3d_out_" + t, out);
    r.tensor("adaptive_avg_pool3d_out_" + t, aout);
    r.tensor("max_pool3d_out_" + t, mout);
    r.tensor("max_pool3d_out_idx_" + t, iout);
  }
  vs::Tensor x = data({2, 2, 5, 6, 7});
  r.raises("max_pool3d_pad", [&] { vs::max_pool3d_with_indices(x, {2}, {}, {2}); });
  r.raises("max_pool3d_small", [&] { vs::max_pool3d_with_indices(x, {6}); });
  r.raises("max_pool3d_sizes", [&] { vs::max_pool3d_with_indices(x, {2, 2}); });
  r.raises("max_pool3d_3d", [&] { vs::max_pool3d_with_indices(data({3, 4, 5}), {2}); });
  r.raises("max_pool3d_dilation0", [&] { vs::max_pool3d_with_indices(x, {2}, {}, {0}, {0}); });
  r.raises("max_pool3d_no_channels", [&] { vs::max_pool3d_with_indices(data({2, 0, 3, 3, 3}), {2}); });
  r.raises("avg_pool3d_divisor0", [&] { vs::avg_pool3d(x, {2}, {}, {0}, false, true, 0); });
  r.raises("avg_pool3d_small", [&] { vs::avg_pool3d(x, {6}); });
  r.raises("adaptive_avg_pool3d_sizes", [&] { vs::_adaptive_avg_pool3d(x, {1, 2}); });
  r.raises("adaptive_avg_pool3d_3d", [&] { vs::_adaptive_avg_pool3d(data({3, 4, 5}), {1, 1, 1}); });
}

VS_CASE("pool_pad.adaptive_max_pool2d") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string t = dt == vs::kFloat32 ? "f32" : "f64";
    auto [v, i] = vs::adaptive_max_pool2d(transposed({2, 3, 7, 6}, 0, dt), {3, 4});
    r.tensor("adaptive_max_pool2d_" + t, v);
    r.tensor("adaptive_max_pool2d_idx_" + t, i);
    auto [vu, iu] = vs::adaptive_max_pool2d(data({3, 5, 4}, 1, dt), {7, 9});
    r.tensor("adaptive_max_pool2d_up_" + t, vu);
    r.tensor("adaptive_max_pool2d_up_idx_" + t, iu);
  }
  r.raises("adaptive_max_pool2d_2d", [&] { vs::adaptive_max_pool2d(data({3, 4}), {1, 2}); });
  r.raises("adaptive_max_pool2d_no_channels", [&] { vs::adaptive_max_pool2d(data({2, 0, 6, 6}), {1, 2}); });
}

VS_CASE("pool_pad.backward") {
  vs::Tensor x = data({2, 2, 5, 6, 7}, 0, vs::kFloat64);
  auto [v, i] = vs::max_pool3d_with_indices(x, {3}, {2}, {1}, {1}, true);
  r.tensor("max_pool3d_backward",
           vs::max_pool3d_with_indices_backward(data(v.sizes(), 1, vs::kFloat64), x, {3}, {2}, {1}, {1}, true, i));
  vs::Tensor ga = data({2, 2, 3, 4, 4}, 2, vs::kFloat64);
  r.tensor("avg_pool3d_backward", vs::avg_pool3d_backward(ga, x, {3}, {2}, {1}, true, false, {}));
  r.tensor("adaptive_avg_pool3d_backward", vs::_adaptive_avg_pool3d_backward(ga, x));
  vs::Tensor x2 = data({2, 3, 7, 6}, 0, vs::kFloat64);
  auto [v2, i2] = vs::adaptive_max_pool2d(x2, {3, 4});
  r.tensor("adaptive_max_pool2d_backward",
           vs::adaptive_max_pool2d_backward(data({2, 3, 3, 4}, 3, vs::kFloat64), x2, i2));
  vs::Tensor p = data({2, 3, 6}, 0, vs::kFloat64);
  r.tensor("reflection_pad1d_backward", vs::reflection_pad1d_backward(data({2, 3, 10}, 1, vs::kFloat64), p, {3, 1}));
  r.tensor("replication_pad1d_backward", vs::replication_pad1d_backward(data({2, 3, 12}, 1, vs::kFloat64), p, {5, 1}));
  vs::Tensor p4 = data({2, 2, 4, 5}, 0, vs::kFloat64);
  r.tensor("reflection_pad2d_backward",
           vs::reflection_pad2d_backward(data({2, 2, 6, 8}, 1, vs::kFloat64), p4, {1, 2, 2, 0}));
  r.tensor("replication_pad2d_backward",
           vs::replication_pad2d_backward(data({2, 2, 6, 8}, 1, vs::kFloat64), p4, {1, 2, 2, 0}));
  r.tensor("reflection_pad3d_backward",
           vs::reflection_pad3d_backward(data({2, 2, 8, 7, 8}, 1, vs::kFloat64), x, {1, 0, 1, 0, 2, 1}));
  r.tensor("replication_pad3d_backward",
           vs::replication_pad3d_backward(data({2, 2, 8, 7, 8}, 1, vs::kFloat64), x, {1, 0, 1, 0, 2, 1}));
  // The 2-d kernels, which share the pools' geometry with the 1-d and 3-d ones.
  vs::Tensor x4 = transposed({2, 3, 7, 6}, 0, vs::kFloat64);
  auto [v4, i4] = vs::max_pool2d_with_indices(x4, {3}, {2}, {1}, {2}, true);
  r.tensor("max_pool2d_with_indices", v4);
  r.tensor("max_pool2d_with_indices_idx", i4);
  r.tensor("max_pool2d_with_indices_backward",
           vs::max_pool2d_with_indices_backward(data(v4.sizes(), 1, vs::kFloat64), x4, {3}, {2}, {1}, {2}, true, i4));
  r.tensor("avg_pool2d_backward",
           vs::avg_pool2d_backward(data({2, 3, 4, 4}, 2, vs::kFloat64), x4, {3}, {2}, {1}, true, false, {}));
  r.tensor("adaptive_avg_pool2d", vs::_adaptive_avg_pool2d(x4, {4, 5}));
  r.tensor("adaptive_avg_pool2d_backward", vs::_adaptive_avg_pool2d_backward(data({2, 3, 4, 5}, 3, vs::kFloat64), x4));
  // Autograd through the forwards.
  vs::Tensor leaf = data({2, 3, 6}, 0, vs::kFloat64).set_requires_grad(true);
  (vs::reflection_pad1d(leaf, {2, 3}) * data({2, 3, 11}, 4, vs::kFloat64)).sum().backward();
  r.tensor("reflection_pad1d_grad", leaf.grad());
  vs::Tensor leaf3 = data({2, 2, 5, 6, 7}, 0, vs::kFloat64).set_requires_grad(true);
  (vs::avg_pool3d(leaf3, {3}, {2}, {1}) * data({2, 2, 3, 3, 4}, 5, vs::kFloat64)).sum().backward();
  r.tensor("avg_pool3d_grad", leaf3.grad());
  vs::Tensor leafc = data({2, 3, 6}, 0, vs::kFloat64).set_requires_grad(true);
  (vs::constant_pad_nd(leafc, {2, -1, 1, 0}, 3) * data({2, 4, 7}, 6, vs::kFloat64)).sum().backward();
  r.tensor("constant_pad_nd_grad", leafc.grad());
}

VS_CASE("pool_pad.pad") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string t = dt == vs::kFloat32 ? "f32" : "f64";
    vs::Tensor x3 = transposed({2, 3, 6}, 0, dt), x4 = data({2, 2, 4, 5}, 1, dt),
               x5 = transposed({1, 2, 3, 4, 5}, 2, dt);
    r.tensor("reflection_pad1d_" + t, vs::reflection_pad1d(x3, {3, 5}));
    r.tensor("reflection_pad1d_crop_" + t, vs::reflection_pad1d(x3, {-1, 2}));
    r.tensor("reflection_pad2d_" + t, vs::reflection_pad2d(x4, {1, 2, 3, 0}));
    r.tensor("reflection_pad2d_unbatched_" + t, vs::reflection_pad2d(x4[0], {4, 4, 3, 3}));
    r.tensor("reflection_pad3d_" + t, vs::reflection_pad3d(x5, {1, 2, 0, 3, 2, 1}));
    r.tensor("replication_pad1d_" + t, vs::replication_pad1d(x3, {7, 1}));
    r.tensor("replication_pad2d_" + t, vs::replication_pad2d(x4, {1, 2, 3, 0}));
    r.tensor("replication_pad3d_" + t, vs::replication_pad3d(x5, {1, 2, 0, 3, 2, 1}));
    r.tensor("constant_pad_nd_" + t, vs::constant_pad_nd(x4, {1, 2, -1, 1, 0, 2}, 1.5));
    r.tensor("pad_reflect_" + t, vs::pad(x4, {1, 2, 3, 0}, "reflect"));
    r.tensor("pad_replicate_" + t, vs::pad(x3, {2, 1}, "replicate"));
    r.tensor("pad_circular_" + t, vs::pad(x4, {1, 2, 3, 0}, "circular"));
    r.tensor("pad_circular3d_" + t, vs::pad(x5, {1, 1, 0, 2, 2, 1}, "circular"));
    r.tensor("pad_constant_" + t, vs::pad(x3, {1, 2}, "constant", -2.0));
    namespace F = vs::nn::functional;
    r.tensor("F_pad_reflect_" + t, F::pad(x4, F::PadFuncOptions({1, 1, 2, 0}).mode(vs::kReflect)));
    r.tensor("F_pad_circular_" + t, F::pad(x3, F::PadFuncOptions({2, 2}).mode(vs::kCircular)));
    r.tensor("F_pad_constant_" + t, F::pad(x3, F::PadFuncOptions({2, 2}).value(3)));
    // out= forms: outs of another shape, resized.
    vs::Tensor o1 = vs::empty({3}, dt), o2 = vs::empty({3}, dt), o3 = vs::empty({3}, dt), o4 = vs::empty({3}, dt),
               o5 = vs::empty({3}, dt), o6 = vs::empty({3}, dt), o7 = vs::empty({3}, dt);
    vs::reflection_pad1d_out(o1, x3, {2, 1});
    vs::reflection_pad2d_out(o2, x4, {1, 1, 1, 1});
    vs::reflection_pad3d_out(o3, x5, {1, 0, 1, 0, 2, 1});
    vs::replication_pad1d_out(o4, x3, {3, 0});
    vs::replication_pad2d_out(o5, x4, {1, 2, 0, 1});
    vs::replication_pad3d_out(o6, x5, {0, 1, 1, 0, 2, 2});
    vs::constant_pad_nd_out(o7, x4, {1, 1, 2, 0}, -1);
    r.tensor("reflection_pad1d_out_" + t, o1);
    r.tensor("reflection_pad2d_out_" + t, o2);
    r.tensor("reflection_pad3d_out_" + t, o3);
    r.tensor("replication_pad1d_out_" + t, o4);
    r.tensor("replication_pad2d_out_" + t, o5);
    r.tensor("replication_pad3d_out_" + t, o6);
    r.tensor("constant_pad_nd_out_" + t, o7);
  }
  // Named here: the ScalarType enumerators' numbers differ between the libraries.
  const std::pair<const char*, vs::ScalarType> pad_dtypes[] = {{"int32", vs::kInt32},   {"int64", vs::kInt64},
                                                               {"bool", vs::kBool},     {"uint8", vs::kUInt8},
                                                               {"bf16", vs::kBFloat16}, {"f16", vs::kFloat16}};
  for (const auto& [t, dt] : pad_dtypes) {
    r.tensor(std::string("constant_pad_nd_") + t, vs::constant_pad_nd(data({2, 3}).gt(0).to(dt), {1, 2, 1, 0}, 1));
  }
  r.tensor("constant_pad_nd_int_value", vs::constant_pad_nd(vs::ones({2}, vs::kInt32), {1, 1}, 2.5));
  vs::Tensor x3 = data({2, 3, 6});
  r.raises("reflection_pad1d_too_big", [&] { vs::reflection_pad1d(x3, {6, 1}); });
  r.raises("reflection_pad1d_1d", [&] { vs::reflection_pad1d(data({6}), {1, 1}); });
  r.raises("reflection_pad1d_no_channels", [&] { vs::reflection_pad1d(data({2, 0, 6}), {1, 1}); });
  r.raises("reflection_pad1d_int", [&] { vs::reflection_pad1d(x3.to(vs::kInt64), {1, 1}); });
  r.raises("reflection_pad2d_too_big", [&] { vs::reflection_pad2d(data({2, 3, 6, 6}), {1, 1, 6, 1}); });
  r.raises("reflection_pad3d_too_big", [&] { vs::reflection_pad3d(data({2, 3, 4, 6, 6}), {1, 1, 1, 1, 4, 1}); });
  r.raises("replication_pad1d_negative", [&] { vs::replication_pad1d(x3, {-3, -3}); });
  r.raises("replication_pad1d_1d", [&] { vs::replication_pad1d(data({6}), {1, 1}); });
  r.raises("replication_pad2d_length", [&] { vs::replication_pad2d(data({2, 3, 6, 6}), {1, 1, 1}); });
  r.raises("constant_pad_nd_odd", [&] { vs::constant_pad_nd(x3, {1, 1, 1}, 0); });
  r.raises("constant_pad_nd_long", [&] { vs::constant_pad_nd(x3, {1, 1, 1, 1, 1, 1, 1, 1}, 0); });
  r.raises("constant_pad_nd_negative", [&] { vs::constant_pad_nd(x3, {-4, -3}, 0); });
  r.raises("pad_mode", [&] { vs::pad(x3, {1, 1}, "wrap"); });
  r.raises("pad_reflect_value", [&] { vs::pad(x3, {1, 1}, "reflect", 1.0); });
  r.raises("pad_reflect_1d", [&] { vs::pad(data({6}), {1, 1}, "reflect"); });
  r.raises("pad_circular_wrap", [&] { vs::pad(x3, {7, 1}, "circular"); });
  r.raises("pad_odd", [&] { vs::pad(x3, {1}, "constant"); });
}

VS_CASE("pool_pad.pad_unbatched_circular") {
  r.follows_pytorch2("circular padding of an unbatched input: LibTorch 1.13's _pad_circular needs a batch dimension");
  r.result("pad_circular_unbatched", [&] { return vs::pad(data({3, 6}), {1, 2}, "circular"); });
}

VS_CASE("pool_pad.reduced_float") {
  r.follows_pytorch2(
      "float16/bfloat16 pooling and padding on CPU (PyTorch 2.x); LibTorch 1.13 raises \"not implemented\" for some");
  for (vs::ScalarType dt : {vs::kBFloat16, vs::kFloat16}) {
    const std::string t = dt == vs::kBFloat16 ? "bf16" : "f16";
    vs::Tensor x3 = data({2, 3, 9}, 0, dt), x5 = data({1, 2, 4, 5, 6}, 0, dt);
    r.result("avg_pool1d_" + t, [&] { return vs::avg_pool1d(x3, {3}, {2}, {1}); });
    r.result("max_pool3d_" + t, [&] { return vs::max_pool3d(x5, {2}); });
    r.result("avg_pool3d_" + t, [&] { return vs::avg_pool3d(x5, {2}); });
    r.result("adaptive_avg_pool3d_" + t, [&] { return vs::adaptive_avg_pool3d(x5, {2, 2, 3}); });
    r.result("adaptive_max_pool2d_" + t, [&] { return std::get<0>(vs::adaptive_max_pool2d(x5[0], {3, 2})); });
    r.result("reflection_pad1d_" + t, [&] { return vs::reflection_pad1d(x3, {2, 3}); });
    r.result("replication_pad2d_" + t, [&] { return vs::replication_pad2d(x5[0], {2, 3, 1, 0}); });
    r.result("reflection_pad3d_" + t, [&] { return vs::reflection_pad3d(x5, {1, 1, 2, 0, 1, 1}); });
  }
}
