#include <fmt/format.h>

#include <variant>

#include "ember/ao/quantization/quantize.h"
#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"
#include "ember/nn/quantized/modules.h"
#include "ember/quantized.h"

namespace ember::nn {

using ao::quantization::ObserverBase;

namespace {

std::vector<int64_t> vec(IntArrayRef a) { return {a.begin(), a.end()}; }

void print_list(std::ostream& s, const std::vector<int64_t>& v) {
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << "]";
}

// The qparams of a module's calibrated activation observer (errors name `who`).
std::pair<double, int64_t> output_qparams(const Module& mod, const char* who) {
  auto obs = ao::quantization::activation_post_process(mod);
  EMBER_CHECK(obs != nullptr,
              "[{}] the float module {} has no observer 'activation_post_process': prepare() the model and calibrate "
              "it before convert",
              who, mod.name());
  EMBER_CHECK(obs->observed(),
              "[{}] the observer of {} has seen no data: calibrate (run the prepared model on sample inputs) before "
              "convert",
              who, mod.name());
  EMBER_CHECK(obs->dtype() == kQUInt8, "[{}] the activation observer's dtype must be quint8, got {}", who,
              obs->dtype());
  auto [scale, zp] = obs->calculate_qparams();
  return {static_cast<double>(scale.item<float>()), zp.item<int64_t>()};
}

// A float weight quantized with the module's qconfig.weight observer (PyTorch's _quantize_weight).
Tensor quantize_weight(const Module& mod, const Tensor& w, const char* who) {
  const auto& qconfig = ao::quantization::module_qconfig(mod, who);
  EMBER_CHECK(qconfig.weight != nullptr, "[{}] the qconfig has no weight observer factory", who);
  std::shared_ptr<ObserverBase> obs = qconfig.weight();
  EMBER_CHECK(obs != nullptr, "[{}] the qconfig's weight factory returned no observer", who);
  EMBER_CHECK(obs->dtype() == kQInt8, "[{}] the weight observer's dtype must be qint8, got {}", who, obs->dtype());
  const Tensor wf = w.detach().to(kFloat);
  obs->forward(wf);
  auto [scale, zp] = obs->calculate_qparams();
  const QScheme q = obs->qscheme();
  for (int64_t i = 0; i < zp.numel(); ++i)
    EMBER_CHECK_NOT_IMPLEMENTED(zp.data_ptr<int64_t>()[i] == 0,
                                "[{}] the int8 kernels take symmetric weights (zero point 0); the weight observer's "
                                "qscheme {} gave zero point {}",
                                who, to_string(q), zp.data_ptr<int64_t>()[i]);
  if (q == kPerChannelAffine || q == kPerChannelSymmetric) {
    const auto* pc = obs->as<ao::quantization::PerChannelMinMaxObserverImpl>();
    const int64_t axis = pc ? pc->options.ch_axis() : 0;
    EMBER_CHECK_NOT_IMPLEMENTED(axis == 0, "[{}] per-channel weights must be quantized along axis 0, got {}", who,
                                axis);
    return quantize_per_channel(wf, scale.to(kDouble), zp, 0, kQInt8);
  }
  return quantize_per_tensor(wf, static_cast<double>(scale.item<float>()), 0, kQInt8);
}

void check_cpu_clone(const std::optional<Device>& device, const char* who) {
  EMBER_CHECK_NOT_IMPLEMENTED(!device || device->is_cpu(), "[{}.clone] quantized modules live on the CPU, got {}", who,
                              device ? device->str() : std::string());
}

}  // namespace

// ---- intrinsic (float fused) ---------------------------------------------------------------------

namespace intrinsic {

ConvReLU2dImpl::ConvReLU2dImpl(Conv2d conv_, ReLU relu_) : conv(std::move(conv_)), relu(std::move(relu_)) {
  register_module("0", conv);
  register_module("1", relu);
}
void ConvReLU2dImpl::reset() {
  conv = Conv2d(std::dynamic_pointer_cast<Conv2dImpl>(conv->clone()));
  relu = ReLU(std::dynamic_pointer_cast<ReLUImpl>(relu->clone()));
  register_module("0", conv);
  register_module("1", relu);
}
void ConvReLU2dImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::intrinsic::ConvReLU2d"; }
Tensor ConvReLU2dImpl::forward(const Tensor& input) { return relu(conv(input)); }

LinearReLUImpl::LinearReLUImpl(Linear linear_, ReLU relu_) : linear(std::move(linear_)), relu(std::move(relu_)) {
  register_module("0", linear);
  register_module("1", relu);
}
void LinearReLUImpl::reset() {
  linear = Linear(std::dynamic_pointer_cast<LinearImpl>(linear->clone()));
  relu = ReLU(std::dynamic_pointer_cast<ReLUImpl>(relu->clone()));
  register_module("0", linear);
  register_module("1", relu);
}
void LinearReLUImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::intrinsic::LinearReLU"; }
Tensor LinearReLUImpl::forward(const Tensor& input) { return relu(linear(input)); }

}  // namespace intrinsic

namespace quantized {

// ---- Quantize / DeQuantize -------------------------------------------------------------------

QuantizeImpl::QuantizeImpl(double scale_, int64_t zero_point_, ScalarType dtype_)
    : scale(scale_), zero_point(zero_point_), dtype(dtype_) {
  reset();
}
void QuantizeImpl::reset() {
  EMBER_CHECK(scale > 0 && std::isfinite(scale),
              "[ember::nn::quantized::Quantize] scale: expected a positive finite value, got {}", scale);
  EMBER_CHECK(is_quantized_type(dtype), "[ember::nn::quantized::Quantize] dtype: expected a quantized type, got {}",
              dtype);
}
void QuantizeImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("Quantize(scale={}, zero_point={}, dtype={})", scale, zero_point, dtype);
}
Tensor QuantizeImpl::forward(const Tensor& input) { return quantize_per_tensor(input, scale, zero_point, dtype); }

std::shared_ptr<QuantizeImpl> QuantizeImpl::from_float(const Module& mod) {
  constexpr const char* who = "ember::nn::quantized::Quantize::from_float";
  auto obs = ao::quantization::activation_post_process(mod);
  EMBER_CHECK(obs != nullptr, "[{}] {} has no observer 'activation_post_process': prepare() the model first", who,
              mod.name());
  EMBER_CHECK(obs->observed(),
              "[{}] the observer of {} has seen no data: calibrate (run the prepared model on sample inputs) before "
              "convert",
              who, mod.name());
  auto [scale, zp] = obs->calculate_qparams();
  return std::make_shared<QuantizeImpl>(static_cast<double>(scale.item<float>()), zp.item<int64_t>(), obs->dtype());
}

void DeQuantizeImpl::reset() {}
void DeQuantizeImpl::pretty_print(std::ostream& stream) const { stream << "DeQuantize()"; }
Tensor DeQuantizeImpl::forward(const Tensor& input) { return input.dequantize(); }

// ---- Linear ----------------------------------------------------------------------------------

LinearImpl::LinearImpl(int64_t in_features_, int64_t out_features_, bool bias_)
    : in_features(in_features_), out_features(out_features_) {
  EMBER_CHECK(in_features > 0 && out_features > 0,
              "[ember::nn::quantized::Linear] in_features and out_features must be positive, got {} and {}",
              in_features, out_features);
  if (bias_) bias = zeros({out_features});
  reset();
}

void LinearImpl::reset() {
  // PyTorch's initial weight: zeros quantized with scale 1, zero point 0.
  weight = register_buffer("weight", quantize_per_tensor(zeros({out_features, in_features}), 1.0, 0, kQInt8));
  bias = register_buffer("bias", bias.defined() ? zeros({out_features}) : Tensor());
}

std::shared_ptr<Module> LinearImpl::clone(const std::optional<Device>& device) const {
  check_cpu_clone(device, type_name());
  auto c = std::make_shared<LinearImpl>(in_features, out_features, bias.defined());
  c->set_weight_bias(weight.clone(), bias.defined() ? bias.clone() : Tensor());
  c->scale = scale;
  c->zero_point = zero_point;
  return c;
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("{}(in_features={}, out_features={}, scale={}, zero_point={}, qscheme={})", type_name(),
                        in_features, out_features, scale, zero_point, to_string(weight.qscheme()));
}

void LinearImpl::set_weight_bias(const Tensor& w, const Tensor& b) {
  const char* who = type_name();
  EMBER_CHECK_TYPE(w.defined() && w.is_quantized() && w.dtype() == kQInt8,
                   "[{}.set_weight_bias] weight: expected a qint8 quantized tensor, got {}", who,
                   w.defined() ? fmt::format("{}", w.dtype()) : std::string("an undefined tensor"));
  EMBER_CHECK(w.sizes() == IntArrayRef({out_features, in_features}),
              "[{}.set_weight_bias] weight: expected shape [{}, {}], got {}", who, out_features, in_features,
              fmt::format("{}", fmt::join(w.sizes(), ", ")));
  if (b.defined()) {
    EMBER_CHECK_TYPE(b.dtype() == kFloat && !b.is_quantized(), "[{}.set_weight_bias] bias: expected float32, got {}",
                     who, b.dtype());
    EMBER_CHECK(b.sizes() == IntArrayRef({out_features}), "[{}.set_weight_bias] bias: expected shape [{}], got [{}]",
                who, out_features, fmt::join(b.sizes(), ", "));
  }
  weight = register_buffer("weight", w);
  bias = register_buffer("bias", b.defined() ? b.detach() : Tensor());
}

Tensor LinearImpl::run(const Tensor& input) {
  return ::ember::quantized::linear(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt, scale,
                                    zero_point);
}

Tensor LinearImpl::forward(const Tensor& input) { return run(input); }

namespace {
template <class Q>
std::shared_ptr<Q> linear_from_float(const Module& mod, const nn::LinearImpl& lin, const char* who) {
  const auto [scale, zp] = output_qparams(mod, who);
  Tensor qw = quantize_weight(mod, lin.weight, who);
  auto q = std::make_shared<Q>(lin.options.in_features(), lin.options.out_features(), lin.bias.defined());
  q->set_weight_bias(qw, lin.bias.defined() ? lin.bias.detach().to(kFloat).clone() : Tensor());
  q->scale = scale;
  q->zero_point = zp;
  return q;
}
}  // namespace

std::shared_ptr<LinearImpl> LinearImpl::from_float(const Module& mod) {
  constexpr const char* who = "ember::nn::quantized::Linear::from_float";
  const auto* lin = mod.as<nn::LinearImpl>();
  EMBER_CHECK_TYPE(lin != nullptr, "[{}] expected an ember::nn::Linear, got {}", who, mod.name());
  return linear_from_float<LinearImpl>(mod, *lin, who);
}

// ---- Conv2d ----------------------------------------------------------------------------------

Conv2dImpl::Conv2dImpl(const Conv2dOptions& o)
    : in_channels(o.in_channels()),
      out_channels(o.out_channels()),
      groups(o.groups()),
      kernel_size(vec(*o.kernel_size())),
      stride(vec(*o.stride())),
      dilation(vec(*o.dilation())) {
  constexpr const char* who = "ember::nn::quantized::Conv2d";
  if (const auto* p = std::get_if<ExpandingArray<2>>(&o.padding()))
    padding = vec(**p);
  else
    EMBER_CHECK_NOT_IMPLEMENTED(std::holds_alternative<enumtype::kValid>(o.padding()),
                                "[{}] padding='same' is not implemented for quantized convolutions", who);
  if (padding.empty()) padding = {0, 0};
  EMBER_CHECK_NOT_IMPLEMENTED(std::holds_alternative<enumtype::kZeros>(o.padding_mode()),
                              "[{}] padding_mode: only zeros is implemented for quantized convolutions", who);
  EMBER_CHECK(in_channels > 0 && out_channels > 0, "[{}] in_channels and out_channels must be positive, got {} and {}",
              who, in_channels, out_channels);
  EMBER_CHECK(groups > 0 && in_channels % groups == 0 && out_channels % groups == 0,
              "[{}] groups={}: expected a positive divisor of in_channels ({}) and out_channels ({})", who, groups,
              in_channels, out_channels);
  if (o.bias()) bias = zeros({out_channels});
  reset();
}

void Conv2dImpl::reset() {
  weight = register_buffer(
      "weight",
      quantize_per_tensor(zeros({out_channels, in_channels / groups, kernel_size[0], kernel_size[1]}), 1.0, 0, kQInt8));
  bias = register_buffer("bias", bias.defined() ? zeros({out_channels}) : Tensor());
}

std::shared_ptr<Module> Conv2dImpl::clone(const std::optional<Device>& device) const {
  check_cpu_clone(device, type_name());
  auto c = std::make_shared<Conv2dImpl>(*this);
  c->set_weight_bias(weight.clone(), bias.defined() ? bias.clone() : Tensor());
  return c;
}

void Conv2dImpl::pretty_print(std::ostream& stream) const {
  stream << type_name() << "(" << in_channels << ", " << out_channels << ", kernel_size=";
  print_list(stream, kernel_size);
  stream << ", stride=";
  print_list(stream, stride);
  if (padding != std::vector<int64_t>{0, 0}) {
    stream << ", padding=";
    print_list(stream, padding);
  }
  if (dilation != std::vector<int64_t>{1, 1}) {
    stream << ", dilation=";
    print_list(stream, dilation);
  }
  if (groups != 1) stream << ", groups=" << groups;
  stream << fmt::format(", scale={}, zero_point={}", scale, zero_point);
  if (!bias.defined()) stream << ", bias=false";
  stream << ")";
}

void Conv2dImpl::set_weight_bias(const Tensor& w, const Tensor& b) {
  const char* who = type_name();
  EMBER_CHECK_TYPE(w.defined() && w.is_quantized() && w.dtype() == kQInt8,
                   "[{}.set_weight_bias] weight: expected a qint8 quantized tensor, got {}", who,
                   w.defined() ? fmt::format("{}", w.dtype()) : std::string("an undefined tensor"));
  EMBER_CHECK(w.sizes() == IntArrayRef({out_channels, in_channels / groups, kernel_size[0], kernel_size[1]}),
              "[{}.set_weight_bias] weight: expected shape [{}, {}, {}, {}], got [{}]", who, out_channels,
              in_channels / groups, kernel_size[0], kernel_size[1], fmt::join(w.sizes(), ", "));
  if (b.defined()) {
    EMBER_CHECK_TYPE(b.dtype() == kFloat && !b.is_quantized(), "[{}.set_weight_bias] bias: expected float32, got {}",
                     who, b.dtype());
    EMBER_CHECK(b.sizes() == IntArrayRef({out_channels}), "[{}.set_weight_bias] bias: expected shape [{}], got [{}]",
                who, out_channels, fmt::join(b.sizes(), ", "));
  }
  weight = register_buffer("weight", w);
  bias = register_buffer("bias", b.defined() ? b.detach() : Tensor());
}

Tensor Conv2dImpl::run(const Tensor& input) {
  return ::ember::quantized::conv2d(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt, stride,
                                    padding, dilation, groups, scale, zero_point);
}

Tensor Conv2dImpl::forward(const Tensor& input) { return run(input); }

namespace {
template <class Q>
std::shared_ptr<Q> conv_from_float(const Module& mod, const nn::Conv2dImpl& conv, const char* who) {
  const auto& o = conv.options;
  Conv2dOptions opts(o.in_channels(), o.out_channels(), o.kernel_size());
  opts.stride(o.stride()).dilation(o.dilation()).groups(o.groups()).bias(conv.bias.defined());
  if (const auto* p = std::get_if<ExpandingArray<2>>(&o.padding()))
    opts.padding(*p);
  else if (std::holds_alternative<enumtype::kValid>(o.padding()))
    opts.padding(0);
  else
    EMBER_THROW(NotImplementedError, "[{}] padding='same' is not implemented for quantized convolutions", who);
  EMBER_CHECK_NOT_IMPLEMENTED(std::holds_alternative<enumtype::kZeros>(o.padding_mode()),
                              "[{}] padding_mode: only zeros is implemented for quantized convolutions", who);
  const auto [scale, zp] = output_qparams(mod, who);
  Tensor qw = quantize_weight(mod, conv.weight, who);
  auto q = std::make_shared<Q>(opts);
  q->set_weight_bias(qw, conv.bias.defined() ? conv.bias.detach().to(kFloat).clone() : Tensor());
  q->scale = scale;
  q->zero_point = zp;
  return q;
}
}  // namespace

std::shared_ptr<Conv2dImpl> Conv2dImpl::from_float(const Module& mod) {
  constexpr const char* who = "ember::nn::quantized::Conv2d::from_float";
  const auto* conv = mod.as<nn::Conv2dImpl>();
  EMBER_CHECK_TYPE(conv != nullptr, "[{}] expected an ember::nn::Conv2d, got {}", who, mod.name());
  return conv_from_float<Conv2dImpl>(mod, *conv, who);
}

}  // namespace quantized

// ---- intrinsic::quantized ----------------------------------------------------------------------

namespace intrinsic::quantized {

std::shared_ptr<Module> LinearReLUImpl::clone(const std::optional<Device>& device) const {
  check_cpu_clone(device, type_name());
  auto c = std::make_shared<LinearReLUImpl>(in_features, out_features, bias.defined());
  c->set_weight_bias(weight.clone(), bias.defined() ? bias.clone() : Tensor());
  c->scale = scale;
  c->zero_point = zero_point;
  return c;
}

Tensor LinearReLUImpl::run(const Tensor& input) {
  return ::ember::quantized::linear_relu(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt,
                                         scale, zero_point);
}

std::shared_ptr<LinearReLUImpl> LinearReLUImpl::from_float(const Module& mod) {
  constexpr const char* who = "ember::nn::intrinsic::quantized::LinearReLU::from_float";
  const auto* fused = mod.as<intrinsic::LinearReLUImpl>();
  EMBER_CHECK_TYPE(fused != nullptr, "[{}] expected an ember::nn::intrinsic::LinearReLU, got {}", who, mod.name());
  return nn::quantized::linear_from_float<LinearReLUImpl>(mod, *fused->linear, who);
}

std::shared_ptr<Module> ConvReLU2dImpl::clone(const std::optional<Device>& device) const {
  check_cpu_clone(device, type_name());
  auto c = std::make_shared<ConvReLU2dImpl>(*this);
  c->set_weight_bias(weight.clone(), bias.defined() ? bias.clone() : Tensor());
  return c;
}

Tensor ConvReLU2dImpl::run(const Tensor& input) {
  return ::ember::quantized::conv2d_relu(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt,
                                         stride, padding, dilation, groups, scale, zero_point);
}

std::shared_ptr<ConvReLU2dImpl> ConvReLU2dImpl::from_float(const Module& mod) {
  constexpr const char* who = "ember::nn::intrinsic::quantized::ConvReLU2d::from_float";
  const auto* fused = mod.as<intrinsic::ConvReLU2dImpl>();
  EMBER_CHECK_TYPE(fused != nullptr, "[{}] expected an ember::nn::intrinsic::ConvReLU2d, got {}", who, mod.name());
  return nn::quantized::conv_from_float<ConvReLU2dImpl>(mod, *fused->conv, who);
}

}  // namespace intrinsic::quantized

}  // namespace ember::nn
