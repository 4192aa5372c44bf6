#pragma once
// Observers (PyTorch's torch.ao.quantization.observer): modules whose forward records statistics of
// the tensors it sees and returns them unchanged; calculate_qparams() turns the statistics into a
// scale and zero point with PyTorch's formulas:
//   affine:    scale = (max(max, 0) - min(min, 0)) / (quant_max - quant_min), clamped below by eps,
//              zero_point = clamp(quant_min - round(min(min, 0) / scale), quant_min, quant_max);
//   symmetric: scale = max(-min(min, 0), max(max, 0)) / ((quant_max - quant_min) / 2), clamped by
//              eps, zero_point = 0 (qint8) or 128 (quint8; the midpoint of a custom range);
// in float32 arithmetic as PyTorch's tensors. The range is [0, 255] for quint8 and [-128, 127] for
// qint8, halved by reduce_range ([0, 127], [-64, 63]), unless quant_min and quant_max are given.
// Unlike PyTorch, which warns and returns (1.0, 0), calculate_qparams() before any forward is an
// error: a model converted without calibration would silently be wrong.
#include <cfloat>
#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>

#include "ember/core/QScheme.h"
#include "ember/core/ScalarType.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"

namespace ember::ao::quantization {

// The options every observer shares (PyTorch's UniformQuantizationObserverBase arguments).
#define EMBER_OBSERVER_ARGS(default_qscheme)                   \
  EMBER_ARG(ScalarType, dtype) = kQUInt8;                      \
  EMBER_ARG(QScheme, qscheme) = default_qscheme;               \
  EMBER_ARG(bool, reduce_range) = false;                       \
  EMBER_ARG(std::optional<int64_t>, quant_min) = std::nullopt; \
  EMBER_ARG(std::optional<int64_t>, quant_max) = std::nullopt; \
  EMBER_ARG(double, eps) = FLT_EPSILON

struct MinMaxObserverOptions {
  EMBER_OBSERVER_ARGS(kPerTensorAffine);
};
struct MovingAverageMinMaxObserverOptions {
  EMBER_OBSERVER_ARGS(kPerTensorAffine);
  EMBER_ARG(double, averaging_constant) = 0.01;
};
struct PerChannelMinMaxObserverOptions {
  EMBER_OBSERVER_ARGS(kPerChannelAffine);
  EMBER_ARG(int64_t, ch_axis) = 0;
};
struct HistogramObserverOptions {
  EMBER_OBSERVER_ARGS(kPerTensorAffine);
  EMBER_ARG(int64_t, bins) = 2048;
  EMBER_ARG(int64_t, upsample_rate) = 128;
};
#undef EMBER_OBSERVER_ARGS

struct QConfig;  // ember/ao/quantization/qconfig.h

// The settings calculate_qparams() uses, after PyTorch's checks (errors name `observer`).
struct QParamsSpec {
  ScalarType dtype = kQUInt8;
  QScheme qscheme = kPerTensorAffine;
  bool reduce_range = false;
  bool has_customized_qrange = false;
  int64_t quant_min = 0, quant_max = 255;
  float eps = FLT_EPSILON;
};

// Every observer: forward records and returns its input; calculate_qparams() gives (scale float32,
// zero_point int64), each of shape [1] per tensor or [channels] per channel.
class EMBER_API ObserverBase : public virtual nn::Module {
 public:
  ObserverBase() = default;
  ObserverBase(const ObserverBase&) = default;
  ObserverBase& operator=(const ObserverBase&) = default;
  ObserverBase& operator=(ObserverBase&&) = delete;  // as Cloneable: no double move of the virtual base
  virtual Tensor forward(const Tensor& input) = 0;
  virtual std::tuple<Tensor, Tensor> calculate_qparams() const = 0;
  // Whether forward has seen a non-empty tensor.
  virtual bool observed() const = 0;
  const QParamsSpec& spec() const noexcept { return spec_; }
  ScalarType dtype() const noexcept { return spec_.dtype; }
  QScheme qscheme() const noexcept { return spec_.qscheme; }
  // The qconfig prepare() made this observer from (PyTorch keeps it as module.qconfig): convert
  // takes the weight observer from it. Null for an observer made by hand.
  std::shared_ptr<const QConfig> qconfig;

 protected:
  QParamsSpec spec_;
};

// PyTorch's _calculate_qparams for min/max tensors of the same shape (float32); `observer` names
// the caller in errors.
EMBER_API std::tuple<Tensor, Tensor> calculate_qparams(const char* observer, const QParamsSpec& spec,
                                                       const Tensor& min_val, const Tensor& max_val);

// The running min and max of every tensor seen (per tensor).
class EMBER_API MinMaxObserverImpl : public nn::Cloneable<MinMaxObserverImpl>, public ObserverBase {
 public:
  explicit MinMaxObserverImpl(const MinMaxObserverOptions& options_ = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) override;
  std::tuple<Tensor, Tensor> calculate_qparams() const override;
  bool observed() const override;

  MinMaxObserverOptions options;
  Tensor min_val, max_val;  // float32 scalars, +inf / -inf until observed
};
EMBER_MODULE(MinMaxObserver);

// min += c * (min(x) - min), the same for max; the first tensor sets them.
class EMBER_API MovingAverageMinMaxObserverImpl : public nn::Cloneable<MovingAverageMinMaxObserverImpl>,
                                                  public ObserverBase {
 public:
  explicit MovingAverageMinMaxObserverImpl(const MovingAverageMinMaxObserverOptions& options_ = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) override;
  std::tuple<Tensor, Tensor> calculate_qparams() const override;
  bool observed() const override;

  MovingAverageMinMaxObserverOptions options;
  Tensor min_val, max_val;
};
EMBER_MODULE(MovingAverageMinMaxObserver);

// The running min and max of each index along ch_axis (weights: one scale per output channel).
class EMBER_API PerChannelMinMaxObserverImpl : public nn::Cloneable<PerChannelMinMaxObserverImpl>, public ObserverBase {
 public:
  explicit PerChannelMinMaxObserverImpl(const PerChannelMinMaxObserverOptions& options_ = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) override;
  std::tuple<Tensor, Tensor> calculate_qparams() const override;
  bool observed() const override;

  PerChannelMinMaxObserverOptions options;
  Tensor min_val, max_val;  // float32 [channels], empty until observed
};
EMBER_MODULE(PerChannelMinMaxObserver);

// A running histogram of `bins` bins over [min_val, max_val] (widened and re-binned as new tensors
// arrive, PyTorch's upsample-and-integrate scheme); calculate_qparams() picks the sub-range that
// minimises the L2 quantization error (PyTorch's _non_linear_param_search, from Caffe2's norm
// minimization) and applies the min/max formulas to it.
class EMBER_API HistogramObserverImpl : public nn::Cloneable<HistogramObserverImpl>, public ObserverBase {
 public:
  explicit HistogramObserverImpl(const HistogramObserverOptions& options_ = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) override;
  std::tuple<Tensor, Tensor> calculate_qparams() const override;
  bool observed() const override;
  // The (min, max) the L2 search picks, before the min/max formulas.
  std::tuple<float, float> non_linear_param_search() const;
  // The estimated L2 error of quantizing the histogram with bins [start_bin, end_bin] as the
  // range (PyTorch's _compute_quantization_error; clipped values count their distance).
  double quantization_error(int64_t start_bin, int64_t end_bin) const;

  HistogramObserverOptions options;
  Tensor histogram;         // float32 [bins]
  Tensor min_val, max_val;  // float32 scalars
};
EMBER_MODULE(HistogramObserver);

}  // namespace ember::ao::quantization
