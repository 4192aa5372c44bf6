#pragma once
// Quantized modules (PyTorch's torch.ao.nn.quantized and torch.ao.nn.intrinsic[.quantized]):
// Quantize / DeQuantize convert between float and quint8 tensors; Linear and Conv2d hold a qint8
// weight (per tensor or per channel along 0, symmetric), a float bias and the output's scale and
// zero point, and run the quantized plugin's int8 kernels (ember/quantized.h; the plugin must be
// loaded). from_float builds one from a float module that prepare() gave an observer and that was
// calibrated (ember/ao/quantization/quantize.h). MaxPool2d, ReLU and Flatten need no quantized
// version: the float modules take quantized tensors.
// The fused float modules (intrinsic::ConvReLU2d, intrinsic::LinearReLU) are what fuse_modules
// makes: a Sequential-like pair named "0" and "1", as PyTorch's.
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "ember/core/ScalarType.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/modules/Activation.h"
#include "ember/nn/modules/Conv.h"
#include "ember/nn/modules/Linear.h"

namespace ember::nn {

namespace intrinsic {

// relu(conv(x)): children "0" (Conv2d) and "1" (ReLU).
class EMBER_API ConvReLU2dImpl : public Cloneable<ConvReLU2dImpl> {
 public:
  ConvReLU2dImpl(Conv2d conv, ReLU relu);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Conv2d conv;
  ReLU relu;
};
EMBER_MODULE(ConvReLU2d);

// relu(linear(x)): children "0" (Linear) and "1" (ReLU).
class EMBER_API LinearReLUImpl : public Cloneable<LinearReLUImpl> {
 public:
  LinearReLUImpl(Linear linear, ReLU relu);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Linear linear;
  ReLU relu;
};
EMBER_MODULE(LinearReLU);

}  // namespace intrinsic

namespace quantized {

// quantize_per_tensor(x, scale, zero_point, dtype).
class EMBER_API QuantizeImpl : public Cloneable<QuantizeImpl> {
 public:
  QuantizeImpl(double scale, int64_t zero_point, ScalarType dtype = kQUInt8);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  // From a QuantStub that prepare() gave an observer (the observer's qparams and dtype).
  static std::shared_ptr<QuantizeImpl> from_float(const Module& mod);
  double scale;
  int64_t zero_point;
  ScalarType dtype;
};
EMBER_MODULE(Quantize);

// x.dequantize().
class EMBER_API DeQuantizeImpl : public Cloneable<DeQuantizeImpl> {
 public:
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(DeQuantize);

// y = x W^T + b on quantized tensors: x quint8, W qint8 [out_features, in_features], b float32,
// y quint8 with (scale, zero_point).
class EMBER_API LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true);
  void reset() override;
  // A deep copy on the CPU (quantized tensors live there).
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  // Replaces the weight (qint8, [out_features, in_features]) and the bias (float32 [out_features]
  // or undefined); errors name the check that failed and change nothing.
  void set_weight_bias(const Tensor& weight, const Tensor& bias);
  // From a calibrated float Linear (or intrinsic::LinearReLU for the fused version): the weight
  // quantized with its qconfig's weight observer, (scale, zero_point) from its activation observer.
  static std::shared_ptr<LinearImpl> from_float(const Module& mod);

  int64_t in_features, out_features;
  Tensor weight, bias;
  double scale = 1.0;
  int64_t zero_point = 0;

 protected:
  virtual const char* type_name() const { return "QuantizedLinear"; }
  virtual Tensor run(const Tensor& input);
};
EMBER_MODULE(Linear);

// conv2d on quantized tensors: x quint8 NCHW or channels-last, W qint8 [out, in / groups, kh, kw],
// b float32, y quint8 (channels-last) with (scale, zero_point). Zero padding only.
class EMBER_API Conv2dImpl : public Cloneable<Conv2dImpl> {
 public:
  explicit Conv2dImpl(const Conv2dOptions& options_);
  void reset() override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  void set_weight_bias(const Tensor& weight, const Tensor& bias);
  static std::shared_ptr<Conv2dImpl> from_float(const Module& mod);

  int64_t in_channels, out_channels, groups = 1;
  std::vector<int64_t> kernel_size, stride, padding, dilation;
  Tensor weight, bias;
  double scale = 1.0;
  int64_t zero_point = 0;

 protected:
  virtual const char* type_name() const { return "QuantizedConv2d"; }
  virtual Tensor run(const Tensor& input);
};
EMBER_MODULE(Conv2d);

}  // namespace quantized

namespace intrinsic::quantized {

// relu(linear(x)) in one int8 kernel (quantized::linear_relu).
class EMBER_API LinearReLUImpl : public nn::quantized::LinearImpl {
 public:
  using nn::quantized::LinearImpl::LinearImpl;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  static std::shared_ptr<LinearReLUImpl> from_float(const Module& mod);

 protected:
  const char* type_name() const override { return "QuantizedLinearReLU"; }
  Tensor run(const Tensor& input) override;
};
EMBER_MODULE(LinearReLU);

// relu(conv2d(x)) in one int8 kernel (quantized::conv2d_relu).
class EMBER_API ConvReLU2dImpl : public nn::quantized::Conv2dImpl {
 public:
  using nn::quantized::Conv2dImpl::Conv2dImpl;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  static std::shared_ptr<ConvReLU2dImpl> from_float(const Module& mod);

 protected:
  const char* type_name() const override { return "QuantizedConvReLU2d"; }
  Tensor run(const Tensor& input) override;
};
EMBER_MODULE(ConvReLU2d);

}  // namespace intrinsic::quantized

}  // namespace ember::nn
