// Post-training quantization: observers' qparams against PyTorch's formulas, the quantized modules
// against the float reference, and fuse_modules / prepare / convert on Sequential models.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ao/quantization.h"
#include "ember/ember.h"

using namespace ember;
namespace aq = ember::ao::quantization;
namespace nq = ember::nn::quantized;

namespace {

using ember::test::error_of;

float f(const Tensor& t, int64_t i = 0) { return t.contiguous().data_ptr<float>()[i]; }
int64_t l(const Tensor& t, int64_t i = 0) { return t.contiguous().data_ptr<int64_t>()[i]; }

std::string printed(const nn::Module& m) {
  std::ostringstream s;
  m.pretty_print(s);
  return s.str();
}

// MinMax activations and per-channel weights: no histogram search, so the int8 result is the
// float one up to rounding.
aq::QConfig minmax_qconfig() {
  return {[] { return std::make_shared<aq::MinMaxObserverImpl>(); },
          [] {
            return std::make_shared<aq::PerChannelMinMaxObserverImpl>(
                aq::PerChannelMinMaxObserverOptions().dtype(kQInt8).qscheme(kPerChannelSymmetric));
          }};
}

// max |a - b| (both float32).
float max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  Tensor x = a.contiguous(), y = b.contiguous();
  float m = 0;
  for (int64_t i = 0; i < x.numel(); ++i) m = std::max(m, std::abs(x.data_ptr<float>()[i] - y.data_ptr<float>()[i]));
  return m;
}

}  // namespace

// ---- observers --------------------------------------------------------------------------------

TEST(Observers, MinMaxAffineQUInt8) {
  aq::MinMaxObserver obs;
  Tensor x = ember::tensor({-1.0f, 0.5f, 2.0f});
  EXPECT_TRUE(obs->forward(x).is_same(x));  // records and returns its input
  obs->forward(ember::tensor({0.25f}));
  EXPECT_EQ(f(obs->min_val), -1.0f);
  EXPECT_EQ(f(obs->max_val), 2.0f);
  auto [scale, zp] = obs->calculate_qparams();
  EXPECT_EQ(scale.sizes(), IntArrayRef({1}));
  EXPECT_EQ(scale.dtype(), kFloat);
  EXPECT_EQ(zp.dtype(), kLong);
  EXPECT_FLOAT_EQ(f(scale), 3.0f / 255);  // (max - min) / (qmax - qmin)
  EXPECT_EQ(l(zp), 85);                   // 0 - round(-1 / scale)
}

TEST(Observers, RangeIncludesZeroAndEpsClamps) {
  aq::MinMaxObserver pos;
  pos->forward(ember::tensor({1.0f, 2.0f}));
  auto [s1, z1] = pos->calculate_qparams();
  EXPECT_FLOAT_EQ(f(s1), 2.0f / 255);  // min is taken as 0
  EXPECT_EQ(l(z1), 0);
  aq::MinMaxObserver zero;
  zero->forward(zeros({4}));
  auto [s2, z2] = zero->calculate_qparams();
  EXPECT_EQ(f(s2), FLT_EPSILON);
  EXPECT_EQ(l(z2), 0);
  aq::MinMaxObserver neg;
  neg->forward(ember::tensor({-2.0f, -1.0f}));
  auto [s3, z3] = neg->calculate_qparams();
  EXPECT_FLOAT_EQ(f(s3), 2.0f / 255);
  EXPECT_EQ(l(z3), 255);
}

TEST(Observers, SymmetricAndReducedRanges) {
  aq::MinMaxObserver sym(aq::MinMaxObserverOptions().dtype(kQInt8).qscheme(kPerTensorSymmetric));
  sym->forward(ember::tensor({-3.0f, 1.0f}));
  auto [s, z] = sym->calculate_qparams();
  EXPECT_FLOAT_EQ(f(s), 3.0f / 127.5f);  // max(|min|, |max|) / ((qmax - qmin) / 2)
  EXPECT_EQ(l(z), 0);
  aq::MinMaxObserver symu(aq::MinMaxObserverOptions().qscheme(kPerTensorSymmetric));
  symu->forward(ember::tensor({-3.0f, 1.0f}));
  EXPECT_EQ(l(std::get<1>(symu->calculate_qparams())), 128);
  aq::MinMaxObserver reduced(aq::MinMaxObserverOptions().reduce_range(true));
  reduced->forward(ember::tensor({-1.0f, 2.0f}));
  auto [sr, zr] = reduced->calculate_qparams();
  EXPECT_FLOAT_EQ(f(sr), 3.0f / 127);  // [0, 127]
  EXPECT_EQ(printed(*reduced),
            "ember::ao::quantization::MinMaxObserver(dtype=quint8, qscheme=per_tensor_affine, quant_min=0, "
            "quant_max=127, min_val=-1, max_val=2)");
  EXPECT_EQ(l(zr), 42);  // round(42.333)
  aq::MinMaxObserver reduced8(aq::MinMaxObserverOptions().dtype(kQInt8).reduce_range(true));
  EXPECT_EQ(reduced8->spec().quant_min, -64);
  EXPECT_EQ(reduced8->spec().quant_max, 63);
  aq::MinMaxObserver custom(aq::MinMaxObserverOptions().quant_min(0).quant_max(15));
  custom->forward(ember::tensor({0.0f, 3.0f}));
  EXPECT_FLOAT_EQ(f(std::get<0>(custom->calculate_qparams())), 3.0f / 15);
}

TEST(Observers, MovingAverage) {
  aq::MovingAverageMinMaxObserver obs;
  EXPECT_DOUBLE_EQ(obs->options.averaging_constant(), 0.01);
  obs->forward(ember::tensor({0.0f, 1.0f}));
  EXPECT_EQ(f(obs->min_val), 0.0f);
  EXPECT_EQ(f(obs->max_val), 1.0f);
  obs->forward(ember::tensor({-1.0f, 3.0f}));
  EXPECT_FLOAT_EQ(f(obs->min_val), -0.01f);  // 0 + 0.01 * (-1 - 0)
  EXPECT_FLOAT_EQ(f(obs->max_val), 1.02f);   // 1 + 0.01 * (3 - 1)
}

TEST(Observers, PerChannel) {
  Tensor w = ember::tensor({-1.0f, 2.0f, 0.5f, 0.25f}).reshape({2, 2});
  aq::PerChannelMinMaxObserver rows(aq::PerChannelMinMaxObserverOptions().dtype(kQInt8).qscheme(kPerChannelSymmetric));
  rows->forward(w);
  auto [s, z] = rows->calculate_qparams();
  EXPECT_EQ(s.sizes(), IntArrayRef({2}));
  EXPECT_FLOAT_EQ(f(s, 0), 2.0f / 127.5f);
  EXPECT_FLOAT_EQ(f(s, 1), 0.5f / 127.5f);
  EXPECT_EQ(l(z, 0), 0);
  EXPECT_EQ(l(z, 1), 0);
  aq::PerChannelMinMaxObserver cols(aq::PerChannelMinMaxObserverOptions().ch_axis(1));
  cols->forward(w);
  auto [sc, zc] = cols->calculate_qparams();
  EXPECT_FLOAT_EQ(f(sc, 0), 1.5f / 255);  // {-1, 0.5}, affine
  EXPECT_EQ(l(zc, 0), 170);               // round(1 / (1.5 / 255))
  EXPECT_FLOAT_EQ(f(sc, 1), 2.0f / 255);  // {2, 0.25}, min taken as 0
  EXPECT_NE(error_of([&] {
              cols->forward(zeros({2, 3}));
            }).find("input has 3 channels along axis 1, earlier inputs had 2"),
            std::string::npos);
}

// PyTorch's _compute_quantization_error, step by step in tensor ops.
double reference_error(const aq::HistogramObserver& h, int64_t start, int64_t end) {
  const double bin_width = (f(h->max_val) - static_cast<double>(f(h->min_val))) / 2048;
  const double dst = bin_width * static_cast<double>(end - start + 1) / 256;
  Tensor src = arange(2048, TensorOptions().dtype(kDouble));
  Tensor begin = (src - static_cast<double>(start)) * bin_width, stop = begin + bin_width;
  // floor() as truncation: they differ only below 0, which the clamp maps to 0 either way.
  auto bin_of = [&](const Tensor& t) { return (t / dst).to(kLong).to(kDouble).clamp(0, 255); };
  Tensor of_begin = bin_of(begin), of_end = bin_of(stop);
  Tensor density = h->histogram.to(kDouble) / bin_width;
  auto norm = [&](const Tensor& b, const Tensor& e) { return density * (e.pow(3) - b.pow(3)) / 3; };
  Tensor half = full({2048}, dst / 2, TensorOptions().dtype(kDouble));
  Tensor total = norm(begin - (of_begin + 0.5) * dst, half) + (of_end - of_begin - 1) * norm(half.neg(), half) +
                 norm(half.neg(), stop - (of_end * dst + dst / 2));
  return total.sum().item<double>();
}

// PyTorch's _non_linear_param_search over reference_error: the chosen (start_bin, end_bin).
std::pair<int64_t, int64_t> reference_search(const aq::HistogramObserver& h) {
  Tensor c = h->histogram.to(kDouble).cumsum(0).contiguous();
  const std::vector<double> csum(c.data_ptr<double>(), c.data_ptr<double>() + 2048);
  const double total = csum[2047];
  double alpha = 0, beta = 1, norm_min = INFINITY;
  int64_t start = 0, end = 2047;
  while (alpha < beta) {
    const double na = alpha + 1e-5, nb = beta - 1e-5;
    int64_t lo = start, hi = end;
    while (lo < end && csum[static_cast<size_t>(lo)] < na * total) ++lo;
    while (hi > start && csum[static_cast<size_t>(hi)] > nb * total) --hi;
    int64_t ns = start, ne = end;
    if (lo - start > end - hi) {
      ns = lo;
      alpha = na;
    } else {
      ne = hi;
      beta = nb;
    }
    if (ns == start && ne == end) continue;
    const double n = reference_error(h, ns, ne);
    if (n > norm_min) break;
    norm_min = n;
    start = ns;
    end = ne;
  }
  return {start, end};
}

TEST(Observers, HistogramSearch) {
  manual_seed(3);
  // One outlier among 20000 points in [0, 1): clipping it (99^2) costs more than the coarser
  // grid (20000 * (100/255)^2 / 12), so the L2 search keeps the whole range.
  Tensor x = cat({rand({20000}), ember::tensor({100.0f})});
  aq::HistogramObserver h;
  h->forward(x);
  EXPECT_EQ(h->histogram.numel(), 2048);
  EXPECT_FLOAT_EQ(h->histogram.sum().item<float>(), 20001.0f);
  EXPECT_GT(std::get<1>(h->non_linear_param_search()), 99.0f);
  // The search against PyTorch's vectorised formulas written with tensor ops, on heavy tails.
  Tensor heavy = randn({20000}).pow(3);
  aq::HistogramObserver hh;
  hh->forward(heavy);
  for (auto [s0, e0] : {std::pair<int64_t, int64_t>{0, 2047}, {0, 2011}, {100, 1867}, {1000, 1010}})
    EXPECT_NEAR(hh->quantization_error(s0, e0), reference_error(hh, s0, e0), 1e-3 * reference_error(hh, s0, e0))
        << s0 << ".." << e0;
  const float mn = f(hh->min_val), width = (f(hh->max_val) - mn) / 2048;
  auto [lo, hi] = hh->non_linear_param_search();
  auto [rs, re] = reference_search(hh);
  EXPECT_FLOAT_EQ(lo, mn + width * static_cast<float>(rs));
  EXPECT_FLOAT_EQ(hi, mn + width * static_cast<float>(re + 1));
  EXPECT_LT(hi, f(hh->max_val));  // it did clip
  auto qh = hh->calculate_qparams();
  EXPECT_FLOAT_EQ(f(std::get<0>(qh)), (hi - lo) / 255);  // the min/max formula on the chosen range
  // A wider second input re-bins the first onto the combined range, keeping every count.
  aq::HistogramObserver c;
  c->forward(rand({1000}));
  c->forward(rand({3000}) * 2 - 1);
  EXPECT_NEAR(c->histogram.sum().item<float>(), 4000.0f, 1e-2);
  EXPECT_LE(f(c->min_val), -0.99f);
  EXPECT_GE(f(c->max_val), 0.99f);
  // The bins above 0 hold the first input's 1000 plus about half of the second's.
  const float cmn = f(c->min_val), cmx = f(c->max_val);
  const auto zero_bin = static_cast<int64_t>(std::lround(-cmn / (cmx - cmn) * 2048));
  const float upper = c->histogram.narrow(0, zero_bin, 2048 - zero_bin).sum().item<float>();
  EXPECT_NEAR(upper, 2500.0f, 120.0f);
}

TEST(Observers, Errors) {
  aq::MinMaxObserver fresh;
  EXPECT_NE(error_of([&] {
              fresh->calculate_qparams();
            }).find("[MinMaxObserver.calculate_qparams] no statistics: run the observer on data (calibrate)"),
            std::string::npos);
  aq::HistogramObserver hfresh;
  EXPECT_NE(error_of([&] { hfresh->calculate_qparams(); }).find("[HistogramObserver.calculate_qparams] no statistics"),
            std::string::npos);
  EXPECT_THROW(aq::MinMaxObserver(aq::MinMaxObserverOptions().qscheme(kPerChannelAffine)), NotImplementedError);
  EXPECT_NE(error_of([] { aq::MinMaxObserver(aq::MinMaxObserverOptions().qscheme(kPerChannelAffine)); })
                .find("[MinMaxObserver] qscheme: only per_tensor_affine and per_tensor_symmetric are supported, got "
                      "per_channel_affine"),
            std::string::npos);
  EXPECT_THROW(aq::PerChannelMinMaxObserver(aq::PerChannelMinMaxObserverOptions().qscheme(kPerTensorAffine)),
               NotImplementedError);
  EXPECT_NE(error_of([] {
              aq::MinMaxObserver(aq::MinMaxObserverOptions().qscheme(kPerTensorSymmetric).reduce_range(true));
            }).find("[MinMaxObserver] Cannot reduce range for symmetric quantization for quint8"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              aq::MinMaxObserver(aq::MinMaxObserverOptions().quant_min(1).quant_max(10));
            }).find("the range must include 0, got [1, 10]"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              aq::MinMaxObserver(aq::MinMaxObserverOptions().dtype(kFloat));
            }).find("[MinMaxObserver] dtype: expected quint8, qint8 or qint32"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              aq::get_default_qconfig("arm");
            }).find("[get_default_qconfig] backend: expected x86, fbgemm, onednn or qnnpack, got 'arm'"),
            std::string::npos);
}

TEST(Observers, DefaultQConfig) {
  auto q = aq::get_default_qconfig("x86");
  auto act = q.activation();
  ASSERT_NE(act->as<aq::HistogramObserverImpl>(), nullptr);
  EXPECT_TRUE(act->spec().reduce_range);
  EXPECT_EQ(act->spec().quant_max, 127);
  auto w = q.weight();
  ASSERT_NE(w->as<aq::PerChannelMinMaxObserverImpl>(), nullptr);
  EXPECT_EQ(w->dtype(), kQInt8);
  EXPECT_EQ(w->qscheme(), kPerChannelSymmetric);
  EXPECT_FALSE(aq::get_default_qconfig("onednn").activation()->spec().reduce_range);
  auto qn = aq::get_default_qconfig("qnnpack").weight();
  ASSERT_NE(qn->as<aq::MinMaxObserverImpl>(), nullptr);
  EXPECT_EQ(qn->qscheme(), kPerTensorSymmetric);
}

// ---- modules ----------------------------------------------------------------------------------

TEST(QuantizedModules, QuantizeDeQuantize) {
  nq::Quantize q(0.1, 10, kQUInt8);
  Tensor y = q(ember::tensor({0.0f, 0.5f, -1.0f}));
  EXPECT_TRUE(y.is_quantized());
  EXPECT_EQ(y.int_repr().data_ptr<uint8_t>()[1], 15);
  EXPECT_EQ(y.int_repr().data_ptr<uint8_t>()[2], 0);
  nq::DeQuantize dq;
  EXPECT_FLOAT_EQ(f(dq(y), 1), 0.5f);
  EXPECT_EQ(printed(*q), "Quantize(scale=0.1, zero_point=10, dtype=quint8)");
  EXPECT_EQ(printed(*dq), "DeQuantize()");
}

// One prepared-and-calibrated float module converted, and its output against the float result
// on the same quantized input and weights (within one output step).
TEST(QuantizedModules, LinearAndConvFromFloatWithinOneStep) {
  manual_seed(11);
  aq::QConfig per_tensor{minmax_qconfig().activation, [] {
                           return std::make_shared<aq::MinMaxObserverImpl>(
                               aq::MinMaxObserverOptions().dtype(kQInt8).qscheme(kPerTensorSymmetric));
                         }};
  for (bool relu : {false, true})
    for (bool channels : {true, false}) {
      const aq::QConfig qconfig = channels ? minmax_qconfig() : per_tensor;
      const QScheme want = channels ? kPerChannelAffine : kPerTensorAffine;
      nn::Sequential lin(nn::Linear(16, 8));
      nn::Sequential conv(nn::Conv2d(nn::Conv2dOptions(3, 4, 3).padding(1)));
      if (relu) {
        lin = aq::fuse_modules(nn::Sequential(nn::Linear(16, 8), nn::ReLU()), {{"0", "1"}});
        conv = aq::fuse_modules(nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 4, 3).padding(1)), nn::ReLU()),
                                {{"0", "1"}});
      }
      for (auto* model : {&lin, &conv}) {
        const bool is_conv = model == &conv;
        Tensor x = is_conv ? randn({2, 3, 6, 6}) : randn({5, 16});
        auto prepared = aq::prepare(*model, qconfig);
        prepared->eval();
        NoGradGuard ng;
        prepared->forward(x);
        auto q = aq::convert(prepared);
        Tensor xq = q->ptr(0)->as<nq::QuantizeImpl>()->forward(x);
        Tensor yq = q->forward(x);
        // Float reference on the dequantized input and weight.
        Tensor w, b;
        double scale;
        if (is_conv) {
          const auto* m = q->ptr(1)->as<nq::Conv2dImpl>();
          ASSERT_NE(m, nullptr);
          EXPECT_EQ(m->weight.qscheme(), want);
          w = m->weight.dequantize();
          b = m->bias;
          scale = m->scale;
        } else {
          const auto* m = q->ptr(1)->as<nq::LinearImpl>();
          ASSERT_NE(m, nullptr);
          EXPECT_EQ(m->weight.qscheme(), want);
          w = m->weight.dequantize();
          b = m->bias;
          scale = m->scale;
        }
        Tensor ref = is_conv ? conv2d(xq.dequantize(), w, b, {1, 1}, {1, 1}) : linear(xq.dequantize(), w, b);
        if (relu) ref = ember::relu(ref);
        const std::string what = std::string(is_conv ? "conv" : "linear") + (relu ? " relu" : "") +
                                 (channels ? " per channel" : " per tensor");
        EXPECT_LE(max_abs_diff(yq, ref), scale * 1.01) << what;
        // and close to the float module itself (input and weight rounding on top).
        Tensor yf = (*model)->forward(x);
        EXPECT_LE(max_abs_diff(yq, yf), scale * 4) << what;
      }
    }
}

// Grouped and depthwise convolutions convert too (weight [out, in / groups, kh, kw]), and print
// their groups as PyTorch's repr does.
TEST(QuantizedModules, GroupedConvFromFloatWithinOneStep) {
  manual_seed(12);
  for (int64_t groups : {2, 4}) {
    nn::Sequential model(nn::Conv2d(nn::Conv2dOptions(4, groups == 4 ? 4 : 6, 3).padding(1).groups(groups)));
    Tensor x = randn({2, 4, 7, 7});
    auto prepared = aq::prepare(model, minmax_qconfig());
    prepared->eval();
    NoGradGuard ng;
    prepared->forward(x);
    auto q = aq::convert(prepared);
    const auto* m = q->ptr(1)->as<nq::Conv2dImpl>();
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->weight.size(1), 4 / groups);
    Tensor xq = q->ptr(0)->as<nq::QuantizeImpl>()->forward(x);
    Tensor ref = conv2d(xq.dequantize(), m->weight.dequantize(), m->bias, {1, 1}, {1, 1}, {1, 1}, groups);
    EXPECT_LE(max_abs_diff(q->forward(x), ref), m->scale * 1.01) << "groups " << groups;
    std::ostringstream os;
    m->pretty_print(os);
    EXPECT_NE(os.str().find(", groups=" + std::to_string(groups) + ", scale="), std::string::npos) << os.str();
  }
  EXPECT_NE(error_of([] { nq::Conv2d(nn::Conv2dOptions(4, 6, 3).groups(4)); })
                .find("[ember::nn::quantized::Conv2d] groups=4: expected a positive divisor of in_channels (4) and "
                      "out_channels (6)"),
            std::string::npos);
}

// The fused modules apply the ReLU themselves, not only through a zero point of 0.
TEST(QuantizedModules, FusedReluWithAnyZeroPoint) {
  manual_seed(2);
  nn::intrinsic::quantized::LinearReLU lr(8, 4);
  nq::Linear plain(8, 4);
  nn::intrinsic::quantized::ConvReLU2d cr(nn::Conv2dOptions(2, 3, 3));
  nq::Conv2d cplain(nn::Conv2dOptions(2, 3, 3));
  Tensor wl = quantize_per_tensor(randn({4, 8}), 0.05, 0, kQInt8),
         wc = quantize_per_tensor(randn({3, 2, 3, 3}), 0.05, 0, kQInt8);
  for (nq::LinearImpl* m : {static_cast<nq::LinearImpl*>(lr.get()), plain.get()}) {
    m->set_weight_bias(wl, zeros({4}));
    m->scale = 0.1;
    m->zero_point = 100;
  }
  for (nq::Conv2dImpl* m : {static_cast<nq::Conv2dImpl*>(cr.get()), cplain.get()}) {
    m->set_weight_bias(wc, zeros({3}));
    m->scale = 0.1;
    m->zero_point = 100;
  }
  Tensor xl = quantize_per_tensor(randn({6, 8}), 0.05, 128, kQUInt8);
  Tensor xc = quantize_per_tensor(randn({2, 2, 5, 5}), 0.05, 128, kQUInt8);
  EXPECT_LT(plain(xl).dequantize().min().item<float>(), -0.5f);
  EXPECT_EQ(lr(xl).dequantize().min().item<float>(), 0.0f);
  EXPECT_LE(max_abs_diff(lr(xl).dequantize(), ember::relu(plain(xl).dequantize())), 0.0f);
  EXPECT_LT(cplain(xc).dequantize().min().item<float>(), -0.5f);
  EXPECT_EQ(cr(xc).dequantize().min().item<float>(), 0.0f);
  EXPECT_LE(max_abs_diff(cr(xc).dequantize(), ember::relu(cplain(xc).dequantize())), 0.0f);
}

TEST(QuantizedModules, PrintingAndWeights) {
  nq::Linear lin(4, 3);
  lin->scale = 0.5;
  lin->zero_point = 7;
  EXPECT_EQ(printed(*lin),
            "QuantizedLinear(in_features=4, out_features=3, scale=0.5, zero_point=7, qscheme=per_tensor_affine)");
  nq::Conv2d conv(nn::Conv2dOptions(1, 2, 3).padding(1));
  EXPECT_EQ(printed(*conv),
            "QuantizedConv2d(1, 2, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1], scale=1, zero_point=0)");
  nn::intrinsic::quantized::ConvReLU2d cr(nn::Conv2dOptions(1, 2, 3));
  EXPECT_EQ(printed(*cr), "QuantizedConvReLU2d(1, 2, kernel_size=[3, 3], stride=[1, 1], scale=1, zero_point=0)");
  // Bad weights change nothing.
  Tensor before = lin->weight;
  EXPECT_NE(error_of([&] {
              lin->set_weight_bias(zeros({3, 4}), Tensor());
            }).find("[QuantizedLinear.set_weight_bias] weight: expected a qint8 quantized tensor, got float32"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              lin->set_weight_bias(quantize_per_tensor(zeros({4, 4}), 0.1, 0, kQInt8), Tensor());
            }).find("weight: expected shape [3, 4], got 4, 4"),
            std::string::npos);
  EXPECT_TRUE(lin->weight.is_same(before));
  auto conv_copy = std::dynamic_pointer_cast<nq::Conv2dImpl>(conv->clone());
  ASSERT_NE(conv_copy, nullptr);
  EXPECT_EQ(conv_copy->padding, (std::vector<int64_t>{1, 1}));
  EXPECT_FALSE(conv_copy->weight.is_same(conv->weight));
  EXPECT_NE(std::dynamic_pointer_cast<nn::intrinsic::quantized::ConvReLU2dImpl>(cr->clone()), nullptr);
  auto copy = std::dynamic_pointer_cast<nq::LinearImpl>(lin->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->zero_point, 7);
  EXPECT_FALSE(copy->weight.is_same(lin->weight));
}

// ---- the flow ---------------------------------------------------------------------------------

nn::Sequential small_cnn() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 4, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                        nn::Conv2d(nn::Conv2dOptions(4, 8, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                        nn::Flatten(), nn::Linear(8 * 2 * 2, 10));
}

std::vector<std::string> names_of(const nn::Sequential& s) {
  std::vector<std::string> out;
  for (const auto& item : s->named_children()) out.push_back(item.key());
  return out;
}

TEST(QuantizationFlow, FuseKeepsNamesAndValues) {
  manual_seed(5);
  auto model = small_cnn();
  auto fused = aq::fuse_modules(model, {{"0", "1"}, {"3", "4"}});
  EXPECT_EQ(names_of(fused), names_of(model));
  EXPECT_NE(fused->ptr(0)->as<nn::intrinsic::ConvReLU2dImpl>(), nullptr);
  EXPECT_NE(fused->ptr(1)->as<nn::IdentityImpl>(), nullptr);
  EXPECT_NE(fused->ptr(3)->as<nn::intrinsic::ConvReLU2dImpl>(), nullptr);
  const auto keys = fused->named_parameters().keys();
  EXPECT_EQ(keys[0], "0.0.weight");  // PyTorch's names for the fused module's children
  Tensor x = randn({2, 1, 14, 14});
  EXPECT_LE(max_abs_diff(fused->forward(x), model->forward(x)), 0.0f);
  // The input model is untouched and the fused one does not share its weights.
  EXPECT_NE(model->ptr(0)->as<nn::Conv2dImpl>(), nullptr);
  EXPECT_FALSE(fused->named_parameters()["0.0.weight"].is_same(model->named_parameters()["0.weight"]));
  auto mlp = aq::fuse_modules(nn::Sequential(nn::Flatten(), nn::Linear(4, 3), nn::ReLU()), {{"1", "2"}});
  EXPECT_NE(mlp->ptr(1)->as<nn::intrinsic::LinearReLUImpl>(), nullptr);
}

// BatchNorm folded into the Conv2d / Linear before it (eval mode), as PyTorch's fuse_conv_bn_eval.
TEST(QuantizationFlow, FuseFoldsBatchNorm) {
  manual_seed(4);
  nn::Sequential model(nn::Conv2d(nn::Conv2dOptions(2, 4, 3).bias(false)), nn::BatchNorm2d(4), nn::ReLU(),
                       nn::Flatten(), nn::Linear(4 * 4 * 4, 5), nn::BatchNorm1d(5));
  {
    NoGradGuard ng;  // running statistics and an affine map away from the identity
    for (int i = 0; i < 3; ++i) model->forward(randn({8, 2, 6, 6}) * 2 + 1);
    for (auto& p : model->named_parameters())
      if (p.key().rfind("1.", 0) == 0 || p.key().rfind("5.", 0) == 0) p.value().copy_(rand(p.value().sizes()) + 0.5);
  }
  EXPECT_NE(error_of([&] {
              aq::fuse_modules(model, {{"0", "1", "2"}});
            })
                .find("[fuse_modules] folding ember::nn::BatchNorm2dImpl needs eval mode (the QAT fusion that keeps "
                      "BatchNorm training is not implemented): call eval() first"),
            std::string::npos);
  model->eval();
  auto fused = aq::fuse_modules(model, {{"0", "1", "2"}, {"4", "5"}});
  const auto* cr = fused->ptr(0)->as<nn::intrinsic::ConvReLU2dImpl>();
  ASSERT_NE(cr, nullptr);
  EXPECT_TRUE(cr->conv->bias.defined());  // the fold gives the bias-free conv a bias
  EXPECT_NE(fused->ptr(1)->as<nn::IdentityImpl>(), nullptr);
  EXPECT_NE(fused->ptr(2)->as<nn::IdentityImpl>(), nullptr);
  EXPECT_NE(fused->ptr(4)->as<nn::LinearImpl>(), nullptr);
  EXPECT_NE(fused->ptr(5)->as<nn::IdentityImpl>(), nullptr);
  NoGradGuard ng;
  Tensor x = randn({6, 2, 6, 6});
  const Tensor y = model->forward(x);
  EXPECT_LE(max_abs_diff(fused->forward(x), y), 1e-5f * y.abs().max().item<float>());
  // and it quantizes like any Conv2d/Linear.
  auto prepared = aq::prepare(fused, minmax_qconfig());
  prepared->forward(x);
  auto q = aq::convert(prepared);
  EXPECT_NE(q->ptr(5)->as<nq::LinearImpl>(), nullptr);
  EXPECT_LE(max_abs_diff(q->forward(x), y), 0.1f * y.abs().max().item<float>());
}

TEST(QuantizationFlow, FuseErrors) {
  auto model = small_cnn();
  const std::string e1 = error_of([&] { aq::fuse_modules(model, {{"2", "4"}}); });
  EXPECT_NE(e1.find("[fuse_modules] cannot fuse ('2': ember::nn::MaxPool2dImpl, '4': ember::nn::ReLUImpl): supported "
                    "groups are (Conv2d, ReLU), (Linear, ReLU), (Conv2d, BatchNorm2d), (Conv2d, BatchNorm2d, ReLU) "
                    "and (Linear, BatchNorm1d)"),
            std::string::npos)
      << e1;
  EXPECT_THROW(aq::fuse_modules(model, {{"2", "4"}}), NotImplementedError);
  EXPECT_NE(error_of([&] {
              aq::fuse_modules(model, {{"0", "x"}});
            }).find("[fuse_modules] the Sequential has no entry named 'x'"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              aq::fuse_modules(model, {{"0", "1", "2"}});
            })
                .find("[fuse_modules] cannot fuse ('0': ember::nn::Conv2dImpl, '1': ember::nn::ReLUImpl, '2': "
                      "ember::nn::MaxPool2dImpl)"),
            std::string::npos);
}

TEST(QuantizationFlow, PrepareAndConvertStructure) {
  manual_seed(5);
  auto model = aq::fuse_modules(small_cnn(), {{"0", "1"}, {"3", "4"}});
  auto prepared = aq::prepare(model, aq::get_default_qconfig("x86"));
  EXPECT_EQ(names_of(prepared), (std::vector<std::string>{"quant", "0", "1", "2", "3", "4", "5", "6", "7", "dequant"}));
  const auto mods = prepared->named_modules("", false);
  for (const char* name : {"quant.activation_post_process", "0.activation_post_process", "3.activation_post_process",
                           "7.activation_post_process"}) {
    ASSERT_TRUE(mods.contains(name)) << name;
    EXPECT_NE(mods[name]->as<aq::HistogramObserverImpl>(), nullptr) << name;
  }
  for (const char* name : {"1.activation_post_process", "2.activation_post_process", "dequant.activation_post_process"})
    EXPECT_FALSE(mods.contains(name)) << name;
  // The input model has no observers.
  EXPECT_FALSE(model->named_modules("", false).contains("0.activation_post_process"));
  // Calibration: the hooks feed every observer.
  prepared->eval();
  NoGradGuard ng;
  Tensor x = randn({4, 1, 14, 14});
  EXPECT_LE(max_abs_diff(prepared->forward(x), model->forward(x)), 0.0f);  // observers change nothing
  EXPECT_TRUE(aq::activation_post_process(*prepared->ptr(4))->observed());
  auto q = aq::convert(prepared);
  EXPECT_EQ(names_of(q), names_of(prepared));
  EXPECT_NE(q->ptr(0)->as<nq::QuantizeImpl>(), nullptr);
  EXPECT_NE(q->ptr(1)->as<nn::intrinsic::quantized::ConvReLU2dImpl>(), nullptr);
  EXPECT_NE(q->ptr(2)->as<nn::IdentityImpl>(), nullptr);
  EXPECT_NE(q->ptr(3)->as<nn::MaxPool2dImpl>(), nullptr);
  EXPECT_NE(q->ptr(4)->as<nn::intrinsic::quantized::ConvReLU2dImpl>(), nullptr);
  EXPECT_NE(q->ptr(8)->as<nq::LinearImpl>(), nullptr);
  EXPECT_NE(q->ptr(9)->as<nq::DeQuantizeImpl>(), nullptr);
  EXPECT_EQ(q->ptr(8)->as<nq::LinearImpl>()->weight.qscheme(), kPerChannelAffine);
  EXPECT_EQ(q->ptr(8)->as<nq::LinearImpl>()->weight.dtype(), kQInt8);
  std::ostringstream s;
  s << *q;
  EXPECT_NE(s.str().find("(0): QuantizedConvReLU2d(1, 4, kernel_size=[3, 3], stride=[1, 1], scale="), std::string::npos)
      << s.str();
  EXPECT_NE(s.str().find("(7): QuantizedLinear(in_features=32, out_features=10, scale="), std::string::npos) << s.str();
  // Every entry between the stubs passes quantized tensors (MaxPool2d, Identity and Flatten as they
  // are), with the quantizer of the module before it.
  Tensor v = x;
  int64_t i = 0;
  for (auto& entry : *q) {
    v = entry.forward<Tensor>(v);
    if (i < 9) {
      ASSERT_TRUE(v.is_quantized()) << "after entry " << i;
      EXPECT_EQ(v.dtype(), kQUInt8);
    }
    ++i;
  }
  EXPECT_DOUBLE_EQ(q->forward(x).sub(v).abs().max().item<float>(), 0.0);
  Tensor after_pool =
      q->ptr(3)->as<nn::MaxPool2dImpl>()->forward(q->ptr(1)->as<nn::intrinsic::quantized::ConvReLU2dImpl>()->forward(
          q->ptr(0)->as<nq::QuantizeImpl>()->forward(x)));
  EXPECT_DOUBLE_EQ(after_pool.q_scale(), q->ptr(1)->as<nn::intrinsic::quantized::ConvReLU2dImpl>()->scale);
  Tensor y = q->forward(x);
  EXPECT_FALSE(y.is_quantized());
  EXPECT_EQ(y.sizes(), IntArrayRef({4, 10}));
}

// Without fusion the ReLU entries run on quantized tensors (relu keeps the quantizer).
TEST(QuantizationFlow, UnfusedModelRunsReluOnQuantizedTensors) {
  manual_seed(8);
  auto model = small_cnn();
  model->eval();
  NoGradGuard ng;
  auto prepared = aq::prepare(model, minmax_qconfig());
  Tensor x = randn({8, 1, 14, 14});
  prepared->forward(x);
  auto q = aq::convert(prepared);
  EXPECT_NE(q->ptr(1)->as<nq::Conv2dImpl>(), nullptr);
  EXPECT_NE(q->ptr(2)->as<nn::ReLUImpl>(), nullptr);
  Tensor conv_out = q->ptr(1)->as<nq::Conv2dImpl>()->forward(q->ptr(0)->as<nq::QuantizeImpl>()->forward(x));
  Tensor r = q->ptr(2)->as<nn::ReLUImpl>()->forward(conv_out);
  ASSERT_TRUE(r.is_quantized());
  EXPECT_DOUBLE_EQ(r.q_scale(), conv_out.q_scale());
  EXPECT_EQ(r.dequantize().min().item<float>(), 0.0f);
  const Tensor yf = model->forward(x), yq = q->forward(x);
  EXPECT_LE(max_abs_diff(yq, yf), 0.1f * yf.abs().max().item<float>());
}

TEST(QuantizationFlow, Errors) {
  auto model = small_cnn();
  auto prepared = aq::prepare(model, aq::get_default_qconfig("x86"));
  const std::string e = error_of([&] { aq::convert(prepared); });
  EXPECT_NE(
      e.find("[ember::nn::quantized::Quantize::from_float] the observer of ember::ao::quantization::QuantStubImpl "
             "has seen no data: calibrate (run the prepared model on sample inputs) before convert"),
      std::string::npos)
      << e;
  const std::string e2 = error_of([&] { aq::convert(model); });
  EXPECT_NE(e2.find("[ember::nn::quantized::Conv2d::from_float] the float module ember::nn::Conv2dImpl has no observer "
                    "'activation_post_process'"),
            std::string::npos)
      << e2;
  nn::Sequential bn(nn::Conv2d(nn::Conv2dOptions(1, 2, 3)), nn::BatchNorm2d(2));
  const std::string e3 = error_of([&] { aq::prepare(bn, aq::get_default_qconfig()); });
  EXPECT_NE(e3.find("[prepare] entry '1' is a ember::nn::BatchNorm2dImpl: eager-mode quantization supports Conv2d"),
            std::string::npos)
      << e3;
  EXPECT_THROW(aq::prepare(bn, aq::get_default_qconfig()), NotImplementedError);
  // qconfigs the int8 kernels cannot run: a qint8 activation, an affine (zero point != 0) weight.
  nn::Sequential lin(nn::Linear(4, 3));
  aq::QConfig act8{[] { return std::make_shared<aq::MinMaxObserverImpl>(aq::MinMaxObserverOptions().dtype(kQInt8)); },
                   minmax_qconfig().weight};
  auto p8 = aq::prepare(lin, act8);
  p8->forward(randn({2, 4}));
  EXPECT_NE(error_of([&] { aq::convert(p8); })
                .find("[ember::nn::quantized::Linear::from_float] the activation "
                      "observer's dtype must be quint8, got qint8"),
            std::string::npos);
  aq::QConfig affine{minmax_qconfig().activation, [] {
                       return std::make_shared<aq::MinMaxObserverImpl>(aq::MinMaxObserverOptions().dtype(kQInt8));
                     }};
  auto pa = aq::prepare(lin, affine);
  pa->forward(randn({2, 4}));
  const std::string ea = error_of([&] { aq::convert(pa); });
  EXPECT_NE(ea.find("the int8 kernels take symmetric weights (zero point 0); the weight observer's qscheme "
                    "per_tensor_affine gave zero point"),
            std::string::npos)
      << ea;
  nn::Sequential sig(nn::Linear(2, 2), nn::Sigmoid());
  EXPECT_NE(
      error_of([&] { aq::prepare(sig, aq::get_default_qconfig()); }).find("entry '1' is a ember::nn::SigmoidImpl"),
      std::string::npos);
}

// A small MLP trained on separable blobs: the int8 model's predictions agree with the float
// model's on >= 99% of held-out points and its accuracy is within one point.
TEST(QuantizationFlow, Int8ModelAgreesWithTrainedFloatModel) {
  manual_seed(1);
  const int64_t classes = 4, dim = 16, n = 2048;
  Tensor centers = randn({classes, dim}) * 2;
  auto make = [&](int64_t count) {
    Tensor y = randint(0, classes, {count});
    Tensor x = centers.index_select(0, y) + randn({count, dim});
    return std::pair{x, y};
  };
  auto [xtr, ytr] = make(n);
  auto [xte, yte] = make(1024);
  nn::Sequential model(nn::Linear(dim, 32), nn::ReLU(), nn::Linear(32, 32), nn::ReLU(), nn::Linear(32, classes));
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < 100; ++step) {
    Tensor idx = randint(0, n, {64});
    opt.zero_grad();
    Tensor loss = cross_entropy_loss(model->forward(xtr.index_select(0, idx)), ytr.index_select(0, idx));
    loss.backward();
    opt.step();
  }
  model->eval();
  NoGradGuard ng;
  auto prepared = aq::prepare(aq::fuse_modules(model, {{"0", "1"}, {"2", "3"}}), aq::get_default_qconfig("x86"));
  for (int b = 0; b < 8; ++b) prepared->forward(xtr.narrow(0, b * 128, 128));
  auto q = aq::convert(prepared);
  Tensor pf = model->forward(xte).argmax(1), pq = q->forward(xte).argmax(1);
  const double agree = pf.eq(pq).to(kDouble).mean().item<double>();
  const double acc_f = pf.eq(yte).to(kDouble).mean().item<double>(),
               acc_q = pq.eq(yte).to(kDouble).mean().item<double>();
  EXPECT_GE(agree, 0.99);
  EXPECT_GT(acc_f, 0.9);
  EXPECT_LE(std::abs(acc_f - acc_q), 0.01);
}
