// The random operators against LibTorch 1.13. The two libraries' generators differ, so the cases
// record shapes, dtypes and deterministic facts only: values within their bounds, a seeded generator
// repeating itself, the dropout family's exact results for p = 0, p = 1 and train = false, and its
// outputs being either 0 or the input scaled by 1/(1-p).
#include <string>

#include "vs_record.h"

namespace {

// Shape and dtype (an empty slice of t carries its dtype), not the values.
void meta(vs_test::Recorder& r, const std::string& label, const vs::Tensor& t) {
  r.scalar(label + ".dim", static_cast<double>(t.dim()));
  for (int64_t i = 0; i < t.dim(); ++i) r.scalar(label + ".size" + std::to_string(i), static_cast<double>(t.size(i)));
  r.tensor(label + ".dtype", t.flatten().narrow(0, 0, 0));
}
double flag(const vs::Tensor& b) { return b.all().item<bool>() ? 1.0 : 0.0; }
double in_range(const vs::Tensor& t, double lo, double hi) { return flag((t >= lo).logical_and(t < hi)); }

}  // namespace

VS_CASE("random.factories") {
  vs::Tensor u = vs::rand({3, 4});
  meta(r, "rand", u);
  r.scalar("rand_in_01", in_range(u, 0, 1));
  vs::Tensor u64 = vs::rand({1000}, vs::kFloat64);
  meta(r, "rand_f64", u64);
  r.scalar("rand_f64_in_01", in_range(u64, 0, 1));
  r.scalar("rand_f64_mean_near_half", flag((u64.mean() - 0.5).abs() < 0.05));
  vs::Tensor n = vs::randn({2000}, vs::kFloat64);
  meta(r, "randn", n);
  r.scalar("randn_mean_near_0", flag(n.mean().abs() < 0.1));
  r.scalar("randn_std_near_1", flag((n.std() - 1).abs() < 0.1));
  meta(r, "randn_f32_3d", vs::randn({2, 0, 3}));
  vs::Tensor i = vs::randint(7, {500});
  meta(r, "randint", i);
  r.scalar("randint_in_0_7", in_range(i, 0, 7));
  r.scalar("randint_hits_both_ends", flag(vs::stack({(i == 0).any(), (i == 6).any()})));
  vs::Tensor il = vs::randint(-3, 4, {500}, vs::kInt32);
  meta(r, "randint_low", il);
  r.scalar("randint_low_in_range", in_range(il, -3, 4));
  meta(r, "randint_float", vs::randint(5, {2, 2}, vs::kFloat32));
  // Seeded generators repeat themselves, and a different seed gives other numbers.
  auto g1 = vs::cpu_generator(123), g2 = vs::cpu_generator(123), g3 = vs::cpu_generator(7);
  vs::Tensor a = vs::rand({50}, g1), b = vs::rand({50}, g2), c = vs::rand({50}, g3);
  meta(r, "rand_generator", a);
  r.scalar("rand_generator_repeats", vs::equal(a, b));
  r.scalar("rand_generator_seed_matters", vs::equal(a, c));
  vs::Tensor na = vs::randn({50}, g1, vs::kFloat64), nb = vs::randn({50}, g2, vs::kFloat64);
  meta(r, "randn_generator", na);
  r.scalar("randn_generator_repeats", vs::equal(na, nb));
  vs::Tensor ia = vs::randint(100, {50}, g1), ib = vs::randint(100, {50}, g2);
  r.scalar("randint_generator_repeats", vs::equal(ia, ib));
  r.scalar("randint_generator_in_range", in_range(ia, 0, 100));
  vs::Tensor la = vs::randint(-50, -40, {50}, g1), lb = vs::randint(-50, -40, {50}, g2);
  meta(r, "randint_low_generator", la);
  r.scalar("randint_low_generator_repeats", vs::equal(la, lb));
  r.scalar("randint_low_generator_in_range", in_range(la, -50, -40));
  r.raises("randint_empty_range", [&] { vs::randint(3, 3, {2}); });
  r.raises("randint_high_zero", [&] { vs::randint(0, {2}); });
  r.raises("rand_int_dtype", [&] { vs::rand({2}, vs::kInt64); });
  r.raises("randn_int_dtype", [&] { vs::randn({2}, vs::kInt64); });
}

VS_CASE("random.inplace") {
  auto g1 = vs::cpu_generator(5), g2 = vs::cpu_generator(5);
  vs::Tensor n = vs::empty({4000}, vs::kFloat64);
  r.tensor("normal_", n.normal_(3.0, 0.5).flatten().narrow(0, 0, 0));
  r.scalar("normal_mean_near_3", flag((n.mean() - 3).abs() < 0.05));
  r.scalar("normal_std_near_half", flag((n.std() - 0.5).abs() < 0.05));
  vs::Tensor n1 = vs::empty({20}).normal_(0, 1, g1), n2 = vs::empty({20}).normal_(0, 1, g2);
  r.scalar("normal_generator_repeats", vs::equal(n1, n2));
  vs::Tensor u = vs::empty({3, 500}, vs::kFloat64).t();  // non-contiguous: every element written
  u.uniform_(-2.0, 5.0);
  r.scalar("uniform_in_range", in_range(u, -2, 5));
  r.scalar("uniform_spread", flag(vs::stack({u.min() < -1.5, u.max() > 4.5})));
  vs::Tensor u1 = vs::empty({20}).uniform_(0, 1, g1), u2 = vs::empty({20}).uniform_(0, 1, g2);
  r.scalar("uniform_generator_repeats", vs::equal(u1, u2));
  vs::Tensor bz = vs::full({100}, 7.0);
  r.tensor("bernoulli_p0", bz.bernoulli_(0.0));
  r.tensor("bernoulli_p1", vs::full({5}, 7.0).bernoulli_(1.0));
  vs::Tensor bh = vs::empty({2000}, vs::kFloat64).bernoulli_(0.25);
  r.scalar("bernoulli_01", flag((bh == 0).logical_or(bh == 1)));
  r.scalar("bernoulli_mean_near_p", flag((bh.mean() - 0.25).abs() < 0.05));
  vs::Tensor bi = vs::empty({50}, vs::kInt64).bernoulli_(0.5, g1), bj = vs::empty({50}, vs::kInt64).bernoulli_(0.5, g2);
  r.tensor("bernoulli_int_dtype", bi.narrow(0, 0, 0));
  r.scalar("bernoulli_generator_repeats", vs::equal(bi, bj));
  vs::Tensor ri = vs::empty({1000}, vs::kInt64).random_(-5, 5);
  r.scalar("random_from_to_in_range", in_range(ri, -5, 5));
  vs::Tensor rf = vs::empty({1000}, vs::kFloat32).random_(2, 4);
  r.scalar("random_float_in_range", in_range(rf, 2, 4));
  r.scalar("random_float_integral", flag(rf == rf.floor()));
  vs::Tensor r1 = vs::empty({30}, vs::kInt64).random_(0, 1000, g1),
             r2 = vs::empty({30}, vs::kInt64).random_(0, 1000, g2);
  r.scalar("random_generator_repeats", vs::equal(r1, r2));
  r.raises("normal_negative_std", [&] { vs::empty({3}).normal_(0, -1); });
  r.raises("uniform_from_gt_to", [&] { vs::empty({3}).uniform_(2, 1); });
  r.raises("bernoulli_p_out_of_range", [&] { vs::empty({3}).bernoulli_(1.5); });
  r.raises("random_empty_range", [&] { vs::empty({3}, vs::kInt64).random_(4, 4); });
  r.raises("uniform_int", [&] { vs::empty({3}, vs::kInt64).uniform_(0, 1); });
}

VS_CASE("random.dropout") {
  vs::Tensor x = (vs::arange(2 * 3 * 40, vs::kFloat32) * 0.37).sin().reshape({2, 3, 40}) + 2;  // no zeros
  r.tensor("dropout_p0", vs::dropout(x, 0.0, true));
  r.tensor("dropout_p1", vs::dropout(x, 1.0, true));
  r.tensor("dropout_eval", vs::dropout(x, 0.5, false));
  vs::Tensor d = vs::dropout(x, 0.4, true);
  meta(r, "dropout_p04", d);
  r.scalar("dropout_zero_or_scaled", flag((d == 0).logical_or((d - x / 0.6).abs() < 1e-5)));
  r.scalar("dropout_keeps_some", flag(vs::stack({(d == 0).any(), (d != 0).any()})));
  r.tensor("alpha_dropout_p0", vs::alpha_dropout(x, 0.0, true));
  r.tensor("alpha_dropout_p1", vs::alpha_dropout(x, 1.0, true));
  r.tensor("alpha_dropout_eval", vs::alpha_dropout(x, 0.3, false));
  meta(r, "alpha_dropout_p03", vs::alpha_dropout(x, 0.3, true));
  r.tensor("feature_dropout_p0", vs::feature_dropout(x, 0.0, true));
  r.tensor("feature_dropout_p1", vs::feature_dropout(x, 1.0, true));
  r.tensor("feature_dropout_eval", vs::feature_dropout(x, 0.5, false));
  // A channel is dropped whole: each [n, c] row is all zero or all scaled.
  vs::Tensor f = vs::feature_dropout(x, 0.5, true);
  vs::Tensor zero_rows = (f == 0).all(-1), scaled_rows = ((f - x / 0.5).abs() < 1e-5).all(-1);
  r.scalar("feature_dropout_whole_channels", flag(zero_rows.logical_or(scaled_rows)));
  r.tensor("feature_alpha_dropout_p0", vs::feature_alpha_dropout(x, 0.0, true));
  r.tensor("feature_alpha_dropout_p1", vs::feature_alpha_dropout(x, 1.0, true));
  r.tensor("feature_alpha_dropout_eval", vs::feature_alpha_dropout(x, 0.2, false));
  vs::Tensor fa = vs::feature_alpha_dropout(x, 0.5, true);
  // Each channel is one affine map of x: either a*x + b (kept) or the same constant a*alpha' + b.
  vs::Tensor spread = fa.amax(-1) - fa.amin(-1);
  r.scalar("feature_alpha_dropout_channel_constant_or_not", flag((spread < 1e-5).logical_or(spread > 1e-3)));
  // In place: the same facts, on the tensor given.
  vs::Tensor x0 = x.clone();
  r.tensor("dropout_p0_", vs::dropout_(x0, 0.0, true));
  vs::Tensor x1 = x.clone();
  vs::dropout_(x1, 1.0, true);
  r.tensor("dropout_p1_", x1);
  vs::Tensor x2 = x.clone();
  r.tensor("alpha_dropout_eval_", vs::alpha_dropout_(x2, 0.5, false));
  vs::Tensor x3 = x.clone();
  vs::alpha_dropout_(x3, 1.0, true);
  r.tensor("alpha_dropout_p1_", x3);
  vs::Tensor x4 = x.clone();
  vs::feature_dropout_(x4, 1.0, true);
  r.tensor("feature_dropout_p1_", x4);
  vs::Tensor x5 = x.clone();
  r.tensor("feature_dropout_eval_", vs::feature_dropout_(x5, 0.9, false));
  vs::Tensor x6 = x.clone();
  vs::feature_alpha_dropout_(x6, 1.0, true);
  r.tensor("feature_alpha_dropout_p1_", x6);
  vs::Tensor x7 = x.clone();
  r.tensor("feature_alpha_dropout_p0_", vs::feature_alpha_dropout_(x7, 0.0, true));
  vs::Tensor x8 = x.clone();
  vs::dropout_(x8, 0.5, true);
  r.scalar("dropout_inplace_zero_or_scaled", flag((x8 == 0).logical_or((x8 - x * 2).abs() < 1e-5)));
  r.raises("dropout_p_negative", [&] { vs::dropout(x, -0.1, true); });
  r.raises("dropout_p_above_1", [&] { vs::dropout(x, 1.5, true); });
  r.raises("alpha_dropout_p_above_1", [&] { vs::alpha_dropout(x, 2.0, true); });
  r.raises("feature_dropout_p_negative", [&] { vs::feature_dropout(x, -1.0, true); });
}

// Reduced-precision and integer dtypes, non-contiguous in-place targets (every element written, the
// base sees it), and the dropout family on float64 and transposed inputs.
VS_CASE("random.dtypes_layouts") {
  for (auto dt : {vs::kFloat16, vs::kBFloat16, vs::kFloat64}) {
    const std::string p = std::string(vs_test::vs_dtype_name(dt)) + "_";
    vs::Tensor u = vs::rand({200}, dt);
    meta(r, p + "rand", u);
    r.scalar(p + "rand_in_01", in_range(u.to(vs::kFloat64), 0, 1));
    meta(r, p + "randn", vs::randn({3, 2}, dt));
    vs::Tensor ri = vs::randint(-4, 9, {200}, dt);
    meta(r, p + "randint", ri);
    r.scalar(p + "randint_in_range", in_range(ri.to(vs::kFloat64), -4, 9));
    vs::Tensor rd = ri.to(vs::kFloat64);
    r.scalar(p + "randint_integral", flag(rd == rd.floor()));
  }
  for (auto dt : {vs::kInt8, vs::kUInt8, vs::kInt32, vs::kBool}) {
    const std::string p = std::string(vs_test::vs_dtype_name(dt)) + "_";
    vs::Tensor t = vs::zeros({300}, dt).random_(0, 2);
    r.scalar(p + "random_in_01", in_range(t.to(vs::kFloat64), 0, 2));
    r.tensor(p + "random_dtype", t.narrow(0, 0, 0));
  }
  vs::Tensor b = vs::full({40, 30}, -7.0), v = b.t();
  v.uniform_(0.25, 0.5);
  r.scalar("uniform_transposed_base_in_range", in_range(b, 0.25, 0.5));
  vs::Tensor b2 = vs::full({40, 30}, -7.0, vs::kFloat64), v2 = b2.narrow(1, 0, 29).t();
  v2.normal_(10, 0.01);
  r.scalar("normal_narrowed_written", flag(b2.narrow(1, 0, 29) > 9));
  r.tensor("normal_narrowed_untouched_column", b2.narrow(1, 29, 1));
  vs::Tensor b3 = vs::full({20, 10}, 5.0), v3 = b3.t();
  v3.bernoulli_(0.5);
  r.scalar("bernoulli_transposed_01", flag((b3 == 0).logical_or(b3 == 1)));
  vs::Tensor x = (vs::arange(600, vs::kFloat64) * 0.37).sin().reshape({20, 30}) + 2;
  vs::Tensor d = vs::dropout(x.t(), 0.25, true);
  meta(r, "dropout_f64_transposed", d);
  r.scalar("dropout_f64_transposed_zero_or_scaled", flag((d == 0).logical_or((d - x.t() / 0.75).abs() < 1e-12)));
  vs::Tensor xb = x.clone(), xv = xb.t();
  vs::dropout_(xv, 1.0, true);
  r.tensor("dropout_p1_inplace_transposed_base", xb);
  vs::Tensor xf = x.to(vs::kFloat16);
  r.tensor("dropout_f16_p0", vs::dropout(xf, 0.0, true));
  meta(r, "feature_dropout_2d", vs::feature_dropout(x, 0.5, true));
  r.raises("rand_bool", [&] { vs::rand({3}, vs::kBool); });
  r.raises("random_bool_out_of_range", [&] { vs::zeros({3}, vs::kBool).random_(0, 3); });
  r.raises("random_uint8_negative", [&] { vs::zeros({3}, vs::kUInt8).random_(-1, 3); });
}
