#include "ember/ao/quantization/observer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"

namespace ember::ao::quantization {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// PyTorch's calculate_qmin_qmax and the checks of UniformQuantizationObserverBase.
QParamsSpec make_spec(const char* observer, ScalarType dtype, QScheme qscheme, bool reduce_range,
                      std::optional<int64_t> quant_min, std::optional<int64_t> quant_max, double eps,
                      bool per_channel) {
  EMBER_CHECK(dtype == kQUInt8 || dtype == kQInt8 || dtype == kQInt32,
              "[{}] dtype: expected quint8, qint8 or qint32, got {}", observer, dtype);
  if (per_channel) {
    EMBER_CHECK_NOT_IMPLEMENTED(qscheme == kPerChannelAffine || qscheme == kPerChannelSymmetric,
                                "[{}] qscheme: only per_channel_affine and per_channel_symmetric are supported, got {}",
                                observer, to_string(qscheme));
  } else {
    EMBER_CHECK_NOT_IMPLEMENTED(qscheme == kPerTensorAffine || qscheme == kPerTensorSymmetric,
                                "[{}] qscheme: only per_tensor_affine and per_tensor_symmetric are supported, got {}",
                                observer, to_string(qscheme));
  }
  const bool symmetric = qscheme == kPerTensorSymmetric || qscheme == kPerChannelSymmetric;
  EMBER_CHECK_NOT_IMPLEMENTED(!(symmetric && reduce_range && dtype == kQUInt8),
                              "[{}] Cannot reduce range for symmetric quantization for quint8", observer);
  EMBER_CHECK(quant_min.has_value() == quant_max.has_value(),
              "[{}] quant_min and quant_max: give both or neither (got only {})", observer,
              quant_min ? "quant_min" : "quant_max");
  EMBER_CHECK(eps > 0 && std::isfinite(eps), "[{}] eps: expected a positive finite value, got {}", observer, eps);
  QParamsSpec s;
  s.dtype = dtype;
  s.qscheme = qscheme;
  s.reduce_range = reduce_range;
  s.eps = static_cast<float>(eps);
  if (quant_min) {
    const int64_t lo = *quant_min, hi = *quant_max;
    EMBER_CHECK(lo <= 0 && 0 <= hi, "[{}] quant_min, quant_max: the range must include 0, got [{}, {}]", observer, lo,
                hi);
    EMBER_CHECK(lo < hi, "[{}] quant_min must be less than quant_max, got [{}, {}]", observer, lo, hi);
    const int64_t len = hi - lo + 1;
    if (dtype == kQInt32)
      EMBER_CHECK(len <= (int64_t{1} << 32), "[{}] the range [{}, {}] exceeds 32 bits", observer, lo, hi);
    else
      EMBER_CHECK(len <= 256, "[{}] the range [{}, {}] exceeds the maximum bit range (=256) of {}", observer, lo, hi,
                  dtype);
    s.has_customized_qrange = true;
    // PyTorch halves the range with Python's floor division.
    auto floor_half = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
    s.quant_min = reduce_range ? floor_half(lo) : lo;
    s.quant_max = reduce_range ? floor_half(hi) : hi;
  } else if (dtype == kQInt8) {
    s.quant_min = reduce_range ? -64 : -128;
    s.quant_max = reduce_range ? 63 : 127;
  } else if (dtype == kQUInt8) {
    s.quant_min = 0;
    s.quant_max = reduce_range ? 127 : 255;
  } else {
    s.quant_min = std::numeric_limits<int32_t>::min();
    s.quant_max = std::numeric_limits<int32_t>::max();
  }
  return s;
}

// x as a contiguous float32 CPU tensor, detached (what the statistics are computed on).
Tensor as_float(const Tensor& x, const char* observer) {
  EMBER_CHECK_TYPE(x.defined(), "[{}.forward] input: expected a defined tensor", observer);
  EMBER_CHECK_TYPE(!x.is_quantized() && (is_floating_type(x.dtype()) || is_integral_type(x.dtype(), false)),
                   "[{}.forward] input: expected a float tensor, got {}", observer, x.dtype());
  return x.detach().to(kFloat).contiguous();
}

// The finite min and max of n floats (NaN and +-inf are skipped, as PyTorch's HistogramObserver
// drops infinities); (inf, -inf) when there are none.
std::pair<float, float> finite_minmax(const float* p, int64_t n) {
  float lo = kInf, hi = -kInf;
  for (int64_t i = 0; i < n; ++i) {
    const float v = p[i];
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return {lo, hi};
}

Tensor scalar(float v) { return full({}, v, TensorOptions().dtype(kFloat)); }
float& at0(Tensor& t) { return t.data_ptr<float>()[0]; }
float get0(const Tensor& t) { return t.data_ptr<float>()[0]; }

void print_spec(std::ostream& s, const char* name, const QParamsSpec& spec) {
  s << "ember::ao::quantization::" << name << "(dtype=" << spec.dtype << ", qscheme=" << spec.qscheme
    << ", quant_min=" << spec.quant_min << ", quant_max=" << spec.quant_max;
}

// torch.histc into `bins` bins over [lo, hi] (a zero-width range widened by 1 on each side, as
// histc); values outside are dropped, hi falls in the last bin.
std::vector<float> histc(const float* p, int64_t n, int64_t bins, float lo, float hi) {
  std::vector<float> h(static_cast<size_t>(bins), 0.f);
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  const double width = static_cast<double>(hi) - static_cast<double>(lo);
  for (int64_t i = 0; i < n; ++i) {
    const float v = p[i];
    if (!(v >= lo && v <= hi)) continue;
    auto b = static_cast<int64_t>((static_cast<double>(v) - lo) / width * static_cast<double>(bins));
    if (b >= bins) b = bins - 1;
    h[static_cast<size_t>(b)] += 1.f;
  }
  return h;
}

}  // namespace

std::tuple<Tensor, Tensor> calculate_qparams(const char* observer, const QParamsSpec& spec, const Tensor& min_val,
                                             const Tensor& max_val) {
  const Tensor mn = min_val.to(kFloat).contiguous(), mx = max_val.to(kFloat).contiguous();
  const int64_t n = mn.numel();
  EMBER_CHECK(n > 0 && mx.numel() == n && std::isfinite(get0(mn)) && std::isfinite(get0(mx)),
              "[{}.calculate_qparams] no statistics: run the observer on data (calibrate) before calculate_qparams",
              observer);
  Tensor scale = empty({n}, TensorOptions().dtype(kFloat));
  Tensor zero_point = empty({n}, TensorOptions().dtype(kLong));
  const bool symmetric = spec.qscheme == kPerTensorSymmetric || spec.qscheme == kPerChannelSymmetric;
  const float qmin = static_cast<float>(spec.quant_min), qmax = static_cast<float>(spec.quant_max);
  for (int64_t i = 0; i < n; ++i) {
    const float lo = mn.data_ptr<float>()[i], hi = mx.data_ptr<float>()[i];
    EMBER_CHECK(lo <= hi, "[{}.calculate_qparams] min {} should be less than max {}", observer, lo, hi);
    const float min_neg = std::min(lo, 0.f);
    float max_pos = std::max(hi, 0.f);
    float s;
    int64_t zp = 0;
    if (symmetric) {
      max_pos = std::max(-min_neg, max_pos);
      s = std::max(max_pos / static_cast<float>(static_cast<double>(spec.quant_max - spec.quant_min) / 2), spec.eps);
      if (spec.dtype == kQUInt8) zp = spec.has_customized_qrange ? (spec.quant_min + spec.quant_max) / 2 : 128;
    } else {
      s = std::max((max_pos - min_neg) / (qmax - qmin), spec.eps);
      const float z = qmin - std::nearbyint(min_neg / s);
      zp = static_cast<int64_t>(std::clamp(z, qmin, qmax));
    }
    scale.data_ptr<float>()[i] = s;
    zero_point.data_ptr<int64_t>()[i] = zp;
  }
  return {scale, zero_point};
}

// ---- MinMaxObserver ----------------------------------------------------------------------------

MinMaxObserverImpl::MinMaxObserverImpl(const MinMaxObserverOptions& options_) : options(options_) { reset(); }

void MinMaxObserverImpl::reset() {
  const auto& o = options;
  spec_ = make_spec("MinMaxObserver", o.dtype(), o.qscheme(), o.reduce_range(), o.quant_min(), o.quant_max(), o.eps(),
                    false);
  register_buffer("eps", full({1}, spec_.eps, TensorOptions().dtype(kFloat)));
  min_val = register_buffer("min_val", scalar(kInf));
  max_val = register_buffer("max_val", scalar(-kInf));
}

void MinMaxObserverImpl::pretty_print(std::ostream& stream) const {
  print_spec(stream, "MinMaxObserver", spec_);
  stream << ", min_val=" << get0(min_val) << ", max_val=" << get0(max_val) << ")";
}

Tensor MinMaxObserverImpl::forward(const Tensor& input) {
  if (input.numel() == 0) return input;
  const Tensor x = as_float(input, "MinMaxObserver");
  const auto [lo, hi] = finite_minmax(x.data_ptr<float>(), x.numel());
  at0(min_val) = std::min(get0(min_val), lo);
  at0(max_val) = std::max(get0(max_val), hi);
  return input;
}

bool MinMaxObserverImpl::observed() const { return get0(min_val) <= get0(max_val); }

std::tuple<Tensor, Tensor> MinMaxObserverImpl::calculate_qparams() const {
  return quantization::calculate_qparams("MinMaxObserver", spec_, min_val.reshape({1}), max_val.reshape({1}));
}

// ---- MovingAverageMinMaxObserver ---------------------------------------------------------------

MovingAverageMinMaxObserverImpl::MovingAverageMinMaxObserverImpl(const MovingAverageMinMaxObserverOptions& options_)
    : options(options_) {
  reset();
}

void MovingAverageMinMaxObserverImpl::reset() {
  const auto& o = options;
  spec_ = make_spec("MovingAverageMinMaxObserver", o.dtype(), o.qscheme(), o.reduce_range(), o.quant_min(),
                    o.quant_max(), o.eps(), false);
  EMBER_CHECK(o.averaging_constant() > 0 && o.averaging_constant() <= 1,
              "[MovingAverageMinMaxObserver] averaging_constant: expected a value in (0, 1], got {}",
              o.averaging_constant());
  register_buffer("eps", full({1}, spec_.eps, TensorOptions().dtype(kFloat)));
  min_val = register_buffer("min_val", scalar(kInf));
  max_val = register_buffer("max_val", scalar(-kInf));
}

void MovingAverageMinMaxObserverImpl::pretty_print(std::ostream& stream) const {
  print_spec(stream, "MovingAverageMinMaxObserver", spec_);
  stream << ", averaging_constant=" << options.averaging_constant() << ", min_val=" << get0(min_val)
         << ", max_val=" << get0(max_val) << ")";
}

Tensor MovingAverageMinMaxObserverImpl::forward(const Tensor& input) {
  if (input.numel() == 0) return input;
  const Tensor x = as_float(input, "MovingAverageMinMaxObserver");
  const auto [lo, hi] = finite_minmax(x.data_ptr<float>(), x.numel());
  if (!(lo <= hi)) return input;
  if (!observed()) {
    at0(min_val) = lo;
    at0(max_val) = hi;
  } else {
    const auto c = static_cast<float>(options.averaging_constant());
    at0(min_val) = get0(min_val) + c * (lo - get0(min_val));
    at0(max_val) = get0(max_val) + c * (hi - get0(max_val));
  }
  return input;
}

bool MovingAverageMinMaxObserverImpl::observed() const { return get0(min_val) <= get0(max_val); }

std::tuple<Tensor, Tensor> MovingAverageMinMaxObserverImpl::calculate_qparams() const {
  return quantization::calculate_qparams("MovingAverageMinMaxObserver", spec_, min_val.reshape({1}),
                                         max_val.reshape({1}));
}

// ---- PerChannelMinMaxObserver ------------------------------------------------------------------

PerChannelMinMaxObserverImpl::PerChannelMinMaxObserverImpl(const PerChannelMinMaxObserverOptions& options_)
    : options(options_) {
  reset();
}

void PerChannelMinMaxObserverImpl::reset() {
  const auto& o = options;
  spec_ = make_spec("PerChannelMinMaxObserver", o.dtype(), o.qscheme(), o.reduce_range(), o.quant_min(), o.quant_max(),
                    o.eps(), true);
  register_buffer("eps", full({1}, spec_.eps, TensorOptions().dtype(kFloat)));
  min_val = register_buffer("min_val", empty({0}, TensorOptions().dtype(kFloat)));
  max_val = register_buffer("max_val", empty({0}, TensorOptions().dtype(kFloat)));
}

void PerChannelMinMaxObserverImpl::pretty_print(std::ostream& stream) const {
  print_spec(stream, "PerChannelMinMaxObserver", spec_);
  stream << ", ch_axis=" << options.ch_axis() << ", channels=" << min_val.numel() << ")";
}

Tensor PerChannelMinMaxObserverImpl::forward(const Tensor& input) {
  if (input.numel() == 0) return input;
  const Tensor x = as_float(input, "PerChannelMinMaxObserver");
  const int64_t dim = x.dim();
  int64_t axis = options.ch_axis();
  EMBER_CHECK_INDEX(axis >= -dim && axis < dim,
                    "[PerChannelMinMaxObserver.forward] ch_axis {} is out of range for a tensor of {} dimensions",
                    options.ch_axis(), dim);
  if (axis < 0) axis += dim;
  const int64_t channels = x.size(axis);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.size(d);
  for (int64_t d = axis + 1; d < dim; ++d) inner *= x.size(d);
  const bool first = min_val.numel() == 0;
  EMBER_CHECK(first || min_val.numel() == channels,
              "[PerChannelMinMaxObserver.forward] input has {} channels along axis {}, earlier inputs had {}", channels,
              axis, min_val.numel());
  std::vector<float> lo(static_cast<size_t>(channels), kInf), hi(static_cast<size_t>(channels), -kInf);
  const float* p = x.data_ptr<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const auto [l, h] = finite_minmax(p + (o * channels + c) * inner, inner);
      lo[static_cast<size_t>(c)] = std::min(lo[static_cast<size_t>(c)], l);
      hi[static_cast<size_t>(c)] = std::max(hi[static_cast<size_t>(c)], h);
    }
  if (first) {
    min_val = register_buffer("min_val", full({channels}, kInf, TensorOptions().dtype(kFloat)));
    max_val = register_buffer("max_val", full({channels}, -kInf, TensorOptions().dtype(kFloat)));
  }
  float* mn = min_val.data_ptr<float>();
  float* mx = max_val.data_ptr<float>();
  for (int64_t c = 0; c < channels; ++c) {
    mn[c] = std::min(mn[c], lo[static_cast<size_t>(c)]);
    mx[c] = std::max(mx[c], hi[static_cast<size_t>(c)]);
  }
  return input;
}

bool PerChannelMinMaxObserverImpl::observed() const { return min_val.numel() > 0; }

std::tuple<Tensor, Tensor> PerChannelMinMaxObserverImpl::calculate_qparams() const {
  return quantization::calculate_qparams("PerChannelMinMaxObserver", spec_, min_val, max_val);
}

// ---- HistogramObserver -------------------------------------------------------------------------

HistogramObserverImpl::HistogramObserverImpl(const HistogramObserverOptions& options_) : options(options_) { reset(); }

void HistogramObserverImpl::reset() {
  const auto& o = options;
  spec_ = make_spec("HistogramObserver", o.dtype(), o.qscheme(), o.reduce_range(), o.quant_min(), o.quant_max(),
                    o.eps(), false);
  EMBER_CHECK(o.bins() > 0, "[HistogramObserver] bins: expected a positive count, got {}", o.bins());
  EMBER_CHECK(o.upsample_rate() > 0, "[HistogramObserver] upsample_rate: expected a positive factor, got {}",
              o.upsample_rate());
  register_buffer("eps", full({1}, spec_.eps, TensorOptions().dtype(kFloat)));
  histogram = register_buffer("histogram", zeros({o.bins()}, TensorOptions().dtype(kFloat)));
  min_val = register_buffer("min_val", scalar(kInf));
  max_val = register_buffer("max_val", scalar(-kInf));
}

void HistogramObserverImpl::pretty_print(std::ostream& stream) const {
  print_spec(stream, "HistogramObserver", spec_);
  stream << ", bins=" << options.bins() << ", min_val=" << get0(min_val) << ", max_val=" << get0(max_val) << ")";
}

bool HistogramObserverImpl::observed() const { return get0(min_val) <= get0(max_val); }

Tensor HistogramObserverImpl::forward(const Tensor& input) {
  if (input.numel() == 0) return input;
  const Tensor x = as_float(input, "HistogramObserver");
  const float* p = x.data_ptr<float>();
  const int64_t n = x.numel();
  const auto [x_min, x_max] = finite_minmax(p, n);
  if (!(x_min <= x_max)) return input;  // nothing finite
  const int64_t bins = options.bins();
  float* hist = histogram.data_ptr<float>();
  const float mn = get0(min_val), mx = get0(max_val);
  auto reset_histogram = [&] {
    const std::vector<float> h = histc(p, n, bins, x_min, x_max);
    std::copy(h.begin(), h.end(), hist);
    at0(min_val) = x_min;
    at0(max_val) = x_max;
  };
  if (!observed() || mn == mx || mx - mn < 1e-6f) {
    reset_histogram();
    return input;
  }
  // Widen [min, max] to cover x on a grid `upsample_rate` times finer than the current bins, so
  // the old histogram maps onto the new one (PyTorch's _adjust_min_max).
  const int64_t up = options.upsample_rate();
  const float cmin = std::min(x_min, mn);
  float cmax = std::max(x_max, mx);
  const auto down = static_cast<int64_t>(std::ceil((cmax - cmin) / (mx - mn) * static_cast<float>(up)));
  const float e = static_cast<float>(down) / static_cast<float>(up) * (mx - mn) - (cmax - cmin);
  const auto start =
      static_cast<int64_t>(std::nearbyint((mn - cmin) / (mx - mn) * static_cast<float>(bins) * static_cast<float>(up)));
  cmax += e;
  std::vector<float> combined = histc(p, n, bins, cmin, cmax);
  if (cmin == mn && cmax == mx) {
    for (int64_t i = 0; i < bins; ++i) combined[static_cast<size_t>(i)] += hist[i];
  } else if (static_cast<double>(bins) * static_cast<double>(down) * 4 > 1e9) {
    reset_histogram();  // the fine grid would not fit (PyTorch falls back the same way)
    return input;
  } else {
    // Old bin i covers fine cells [start + i*up, start + (i+1)*up) of the new range's
    // bins*down cells, each holding hist[i]/up; new bin j sums cells [j*down, (j+1)*down).
    const int64_t cells = bins * down;
    for (int64_t i = 0; i < bins; ++i) {
      if (hist[i] == 0) continue;
      const double per_cell = static_cast<double>(hist[i]) / static_cast<double>(up);
      int64_t a = std::max<int64_t>(start + i * up, 0);
      const int64_t b = std::min(start + (i + 1) * up, cells);
      while (a < b) {
        const int64_t j = a / down, end = std::min(b, (j + 1) * down);
        combined[static_cast<size_t>(j)] += static_cast<float>(per_cell * static_cast<double>(end - a));
        a = end;
      }
    }
  }
  std::copy(combined.begin(), combined.end(), hist);
  at0(min_val) = cmin;
  at0(max_val) = cmax;
  return input;
}

double HistogramObserverImpl::quantization_error(int64_t next_start_bin, int64_t next_end_bin) const {
  const int64_t bins = options.bins();
  const double bin_width = (static_cast<double>(get0(max_val)) - get0(min_val)) / static_cast<double>(bins);
  const double dst_nbins = spec_.dtype == kQInt32 ? 4294967296.0 : 256.0;
  const double dst_bin_width = bin_width * static_cast<double>(next_end_bin - next_start_bin + 1) / dst_nbins;
  if (dst_bin_width == 0.0) return 0.0;
  auto get_norm = [](double begin, double end, double density) {
    return density * (end * end * end - begin * begin * begin) / 3;
  };
  const float* hist = histogram.data_ptr<float>();
  const double half = dst_bin_width / 2;
  double norm = 0;
  for (int64_t i = 0; i < bins; ++i) {
    const double src_begin = static_cast<double>(i - next_start_bin) * bin_width;
    const double src_end = src_begin + bin_width;
    const double dst_of_begin = std::clamp(std::floor(src_begin / dst_bin_width), 0.0, dst_nbins - 1);
    const double dst_of_end = std::clamp(std::floor(src_end / dst_bin_width), 0.0, dst_nbins - 1);
    const double density = static_cast<double>(hist[i]) / bin_width;
    const double begin_center = (dst_of_begin + 0.5) * dst_bin_width;
    norm += get_norm(src_begin - begin_center, half, density);
    norm += (dst_of_end - dst_of_begin - 1) * get_norm(-half, half, density);
    const double end_center = dst_of_end * dst_bin_width + half;
    norm += get_norm(-half, src_end - end_center, density);
  }
  return norm;
}

std::tuple<float, float> HistogramObserverImpl::non_linear_param_search() const {
  const int64_t bins = options.bins();
  const float* hist = histogram.data_ptr<float>();
  std::vector<double> csum(static_cast<size_t>(bins));
  double total = 0;
  for (int64_t i = 0; i < bins; ++i) csum[static_cast<size_t>(i)] = total += hist[i];
  const double stepsize = 1e-5;
  double alpha = 0, beta = 1, norm_min = std::numeric_limits<double>::infinity();
  int64_t start_bin = 0, end_bin = bins - 1;
  while (alpha < beta) {
    const double next_alpha = alpha + stepsize, next_beta = beta - stepsize;
    int64_t l = start_bin, r = end_bin;
    while (l < end_bin && csum[static_cast<size_t>(l)] < next_alpha * total) ++l;
    while (r > start_bin && csum[static_cast<size_t>(r)] > next_beta * total) --r;
    int64_t next_start = start_bin, next_end = end_bin;
    if (l - start_bin > end_bin - r) {
      next_start = l;
      alpha = next_alpha;
    } else {
      next_end = r;
      beta = next_beta;
    }
    if (next_start == start_bin && next_end == end_bin) continue;
    const double norm = quantization_error(next_start, next_end);
    if (norm > norm_min) break;
    norm_min = norm;
    start_bin = next_start;
    end_bin = next_end;
  }
  const float mn = get0(min_val);
  const float bin_width = (get0(max_val) - mn) / static_cast<float>(bins);
  return {mn + bin_width * static_cast<float>(start_bin), mn + bin_width * static_cast<float>(end_bin + 1)};
}

std::tuple<Tensor, Tensor> HistogramObserverImpl::calculate_qparams() const {
  EMBER_CHECK(observed(),
              "[HistogramObserver.calculate_qparams] no statistics: run the observer on data (calibrate) before "
              "calculate_qparams");
  const auto [lo, hi] = non_linear_param_search();
  return quantization::calculate_qparams("HistogramObserver", spec_, full({1}, lo, TensorOptions().dtype(kFloat)),
                                         full({1}, hi, TensorOptions().dtype(kFloat)));
}

}  // namespace ember::ao::quantization
