// The same call means the same thing: overloads LibTorch resolves by hand (var(int dim), argsort
// (bool stable)), optional dims from braced lists, memory-overlap errors, cat({}), memory formats
// (empty, clone, empty_like, contiguous, to, resize_) and the layouts of conv2d and nonzero.
#include <string>

#include "vs_record.h"

namespace {
vs::Tensor x345() { return (vs::arange(60, vs::kFloat32).reshape({3, 4, 5}) * 0.5 - 7).pow(2); }
vs::Tensor x2345(vs::ScalarType t = vs::kFloat32) {
  return (vs::arange(120, vs::kFloat32).reshape({2, 3, 4, 5}) * 0.25 - 3).to(t);
}
}  // namespace

VS_CASE("fidelity.int_dim_overloads") {
  vs::Tensor x = x345();
  r.tensor("x.var(1)", x.var(1));
  r.tensor("x.std(1)", x.std(1));
  r.tensor("var(x, 2)", vs::var(x, 2));
  r.tensor("std(x, 0)", vs::std(x, 0));
  r.tensor("var_mean(x, 1).0", std::get<0>(vs::var_mean(x, 1)));
  r.tensor("var_mean(x, 1).1", std::get<1>(vs::var_mean(x, 1)));
  r.tensor("std_mean(x, -1).0", std::get<0>(vs::std_mean(x, -1)));
  r.tensor("var_mean(x, false).0", std::get<0>(vs::var_mean(x, false)));
  r.tensor("std_mean(x).1", std::get<1>(vs::std_mean(x)));
  r.tensor("x.var(true)", x.var(true));
  r.tensor("x.var(false)", x.var(false));
  vs::Tensor s = vs::arange(10, vs::kFloat32).remainder(3);
  r.tensor("argsort(true)", s.argsort(true));
  r.tensor("argsort(true, 0, true)", s.argsort(true, 0, true));
}

VS_CASE("fidelity.optional_dims") {
  vs::Tensor x = x345();
  // x.var({0, 2}) is ambiguous in LibTorch (its DimnameList overload); the rest compile on both.
  r.tensor("var({1},false,true)", x.var({1}, false, true));
  r.tensor("std({2},true,true)", x.std({2}, true, true));
  r.tensor("var(dims,correction)", vs::var(x, vs::IntArrayRef{0, 2}, 0, true));
  r.tensor("var_mean({1},false,true).0", std::get<0>(vs::var_mean(x, {1}, false, true)));
  r.tensor("std_mean({0},true,false).1", std::get<1>(vs::std_mean(x, {0}, true, false)));
  r.tensor("vector_norm({1})", vs::linalg_vector_norm(x, 2, {1}, true));
  r.tensor("vector_norm(vector)", vs::linalg_vector_norm(x, 3, std::vector<int64_t>{0, 2}));
  r.tensor("var(nullopt)", x.var(vs::none, true, false));
  r.tensor("var_t({1})", x.transpose(0, 2).var({1}, false, true));
}

VS_CASE("fidelity.overlap") {
  for (vs::ScalarType t : {vs::kFloat32, vs::kFloat64, vs::kInt64}) {
    std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor x = vs::arange(10, t);
    vs::Tensor hi = x.slice(0, 1), lo = x.slice(0, 0, 9);
    r.raises(n + ".add_out", [&] { vs::add_out(hi, lo, lo); });
    r.raises(n + ".add_", [&] { hi.add_(lo); });
    r.raises(n + ".add_reversed", [&] { lo.add_(hi); });
    r.raises(n + ".copy_", [&] { hi.copy_(lo); });
    r.tensor(n + ".untouched", x);
    x.add_(x);
    r.tensor(n + ".alias", x);
    vs::Tensor w = vs::arange(10, t);
    w.slice(0, 0, 10, 2).add_(w.slice(0, 1, 10, 2));
    r.tensor(n + ".interleaved", w);
  }
  vs::Tensor y = vs::arange(10, vs::kFloat32);
  vs::Tensor hi = y.slice(0, 1), lo = y.slice(0, 0, 9);
  r.raises("exp_out", [&] { vs::exp_out(hi, lo); });
  r.raises("neg_out", [&] { vs::neg_out(hi, lo); });
  r.raises("clamp_out", [&] { vs::clamp_out(hi, lo, 0, 3); });
  r.raises("where_out", [&] { vs::where_out(hi, lo > 2, lo, lo); });
  vs::Tensor e = vs::zeros({1}).expand({4});
  r.raises("expanded add_", [&] { e.add_(1); });
  r.raises("expanded copy_", [&] { e.copy_(vs::ones({4})); });
  vs::Tensor z = vs::zeros({4});
  r.raises("expanded add_out", [&] { vs::add_out(e, z, z); });
  r.tensor("expanded fill_", vs::zeros({1}).expand({4}).fill_(2));
}

// A reduction whose out= overlaps its input raises in neither library.
VS_CASE("fidelity.reduction_out_overlap") {
  r.expect_diff(
      "LibTorch reads input elements it has already overwritten (the result depends on its loop order); "
      "Ember reads the input as it was before the call");
  vs::Tensor s = vs::arange(10, vs::kFloat32);
  vs::Tensor o = s.slice(0, 2, 5);
  vs::sum_out(o, s.reshape({2, 5}).slice(1, 0, 3), vs::IntArrayRef{0});
  r.tensor("sum_out into its input", s);
}

VS_CASE("fidelity.cat_empty") {
  r.raises("cat({})", [&] { vs::cat(std::vector<vs::Tensor>{}); });
  r.raises("cat({}, 1)", [&] { vs::cat(std::vector<vs::Tensor>{}, 1); });
}

VS_CASE("fidelity.memory_format") {
  vs::Tensor a = x2345();
  vs::Tensor cl = a.contiguous(vs::MemoryFormat::ChannelsLast);
  r.tensor("contiguous(CL)", cl);
  r.scalar("is_contiguous", cl.is_contiguous());
  r.scalar("is_contiguous(CL)", cl.is_contiguous(vs::MemoryFormat::ChannelsLast));
  r.scalar("suggest(cl)", static_cast<double>(cl.suggest_memory_format()));
  r.scalar("suggest(a)", static_cast<double>(a.suggest_memory_format()));
  r.scalar("suggest(1311)", static_cast<double>(vs::zeros({1, 3, 1, 1}).suggest_memory_format()));
  r.tensor("contiguous(CL) of C=1", vs::zeros({2, 1, 4, 5}).contiguous(vs::MemoryFormat::ChannelsLast));
  r.tensor("contiguous(CL3d)",
           (vs::arange(720, vs::kFloat32).reshape({2, 3, 4, 5, 6})).contiguous(vs::MemoryFormat::ChannelsLast3d));
  r.raises("contiguous(CL3d) of 4-d", [&] { a.contiguous(vs::MemoryFormat::ChannelsLast3d); });
  r.raises("contiguous(Preserve) of non-contiguous", [&] { a.slice(3, 0, 4).contiguous(vs::MemoryFormat::Preserve); });
  r.tensor("clone", cl.clone());
  r.tensor("clone(Contiguous)", cl.clone(vs::MemoryFormat::Contiguous));
  r.tensor("clone(CL)", a.clone(vs::MemoryFormat::ChannelsLast));
  vs::Tensor t = a.transpose(0, 2).slice(0, 0, 3, 2);
  r.tensor("clone of a non-dense permuted", t.clone());
  r.tensor("empty_like shape", vs::zeros_like(cl.slice(3, 0, 4)));
  r.tensor("zeros_like(cl)", vs::zeros_like(cl));
  r.tensor("ones_like(cl, Contiguous)", vs::ones_like(cl, vs::TensorOptions(), vs::MemoryFormat::Contiguous));
  r.tensor("full_like(a, CL)", vs::full_like(a, 2, vs::TensorOptions(), vs::MemoryFormat::ChannelsLast));
  r.tensor("zeros_like(t)", vs::zeros_like(t));
  r.tensor("empty(CL).zero_()", vs::empty({2, 3, 4, 5}, vs::TensorOptions(), vs::MemoryFormat::ChannelsLast).zero_());
  r.tensor("empty(CL3d).zero_()", vs::empty({2, 3, 4, 5, 6}, vs::kFloat64, vs::MemoryFormat::ChannelsLast3d).zero_());
  r.raises("empty(CL) of 3-d", [&] { vs::empty({2, 3, 4}, vs::TensorOptions(), vs::MemoryFormat::ChannelsLast); });
  r.raises("empty(Preserve)", [&] { vs::empty({2, 3}, vs::TensorOptions(), vs::MemoryFormat::Preserve); });
  r.tensor("to(kDouble) of cl", cl.to(vs::kFloat64));
  r.tensor("to(kDouble, Contiguous)", cl.to(vs::kFloat64, false, false, vs::MemoryFormat::Contiguous));
  r.tensor("to(other, CL)", a.to(a, false, false, vs::MemoryFormat::ChannelsLast));
  r.tensor("to(options, CL)",
           a.to(vs::TensorOptions().dtype(vs::kFloat64), false, false, vs::MemoryFormat::ChannelsLast));
  r.tensor("to(kCPU)", cl.to(vs::kCPU));
  for (vs::ScalarType dt : {vs::kFloat64, vs::kInt32, vs::kUInt8}) {
    vs::Tensor b = x2345(dt);
    r.tensor(std::string(vs_test::vs_dtype_name(dt)) + ".clone(CL)", b.clone(vs::MemoryFormat::ChannelsLast));
    r.tensor(std::string(vs_test::vs_dtype_name(dt)) + ".add of CL", b.contiguous(vs::MemoryFormat::ChannelsLast) + 1);
  }
}

VS_CASE("fidelity.resize") {
  vs::Tensor d = vs::arange(6, vs::kFloat64);
  d.resize_({2, 2});
  r.tensor("resize_ smaller", d);
  vs::Tensor z = vs::zeros({2, 3});
  z.resize_({2, 3, 4, 5}, vs::MemoryFormat::ChannelsLast);
  r.tensor("resize_ CL shape", z.zero_());
  vs::Tensor t = vs::zeros({2, 3}).t();
  t.resize_({3, 2});
  r.tensor("resize_ same sizes keeps strides", t);
  vs::Tensor u = vs::zeros({2, 3}).t();
  u.resize_({3, 2}, vs::MemoryFormat::Contiguous);
  r.tensor("resize_ same sizes, Contiguous", u);
  r.raises("resize_ negative", [&] { vs::zeros({2}).resize_({-1}); });
  r.raises("resize_ Preserve", [&] { vs::zeros({2}).resize_({2, 3}, vs::MemoryFormat::Preserve); });
  r.raises("resize_ CL of 2-d", [&] { vs::zeros({2}).resize_({2, 3}, vs::MemoryFormat::ChannelsLast); });
}

VS_CASE("fidelity.layouts") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    std::string n = vs_test::vs_dtype_name(dt);
    vs::Tensor a = x2345(dt);
    vs::Tensor w = (vs::arange(108, vs::kFloat32).reshape({4, 3, 3, 3}) * 0.01 - 0.5).to(dt);
    vs::Tensor cl = a.contiguous(vs::MemoryFormat::ChannelsLast);
    r.tensor(n + ".conv2d(cl)", vs::conv2d(cl, w));
    r.tensor(n + ".conv2d(w cl)", vs::conv2d(a, w.contiguous(vs::MemoryFormat::ChannelsLast), {}, 1, 1));
    r.tensor(n + ".conv2d", vs::conv2d(a, w));
  }
  vs::Tensor m = x345() > 20;
  r.tensor("nonzero", m.nonzero());
  r.tensor("nonzero(eye)", vs::eye(3).nonzero());
  r.tensor("nonzero(empty)", vs::zeros({0}).nonzero());
  r.tensor("nonzero(0-d)", vs::full({}, 3.0).nonzero());
  r.tensor("mask index", x345().index({m}));
}
