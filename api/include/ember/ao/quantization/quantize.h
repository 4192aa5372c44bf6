#pragma once
// Eager-mode post-training quantization (PyTorch's torch.ao.quantization quantize.py and
// fuse_modules.py) for nn::Sequential models:
//   auto fused = fuse_modules(model, {{"0", "1"}, {"3", "4"}});   // Conv2d(+BatchNorm2d)+ReLU, ...
//   auto prepared = prepare(fused, get_default_qconfig("x86"));    // observers attached
//   for (...) prepared->forward(batch);                            // calibrate
//   auto qmodel = convert(prepared);                               // int8 modules
//
// Note [Eager-mode quantization of a Sequential]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each step returns a new Sequential with the entry names kept (the input model is left as it
// was, PyTorch's inplace=False). fuse_modules replaces the first entry of each group by the fused
// module (intrinsic::ConvReLU2d / LinearReLU, its children "0" and "1" the original modules) and
// the second by an Identity, as PyTorch. prepare clones the model, adds a QuantStub entry "quant"
// in front and a DeQuantStub "dequant" at the end unless the model already starts and ends with
// them (PyTorch leaves that to the user or to QuantWrapper), and gives each Conv2d, Linear, fused
// module and QuantStub a child "activation_post_process" (an observer from qconfig.activation,
// which keeps the qconfig for convert) and a forward hook that runs it on the module's output.
// Entries that compute nothing new (ReLU, MaxPool2d, Flatten, Identity, Dropout) pass quantized
// tensors through and get no observer; any other module type is refused with NotImplementedError
// naming it. convert replaces each observed module by its quantized form (from_float: the weight
// observed with qconfig.weight, the output's scale and zero point from its observer; an observer
// that saw no data is an error) and copies the other entries. A prepared model cannot be cloned
// (its modules gained a child their reset() does not rebuild): prepare the float model again.
#include <memory>
#include <string>
#include <vector>

#include "ember/ao/quantization/observer.h"
#include "ember/ao/quantization/qconfig.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/modules/Sequential.h"

namespace ember::ao::quantization {

// Marks where float tensors become quantized: the identity until convert makes it a Quantize
// with its observer's (scale, zero_point).
class EMBER_API QuantStubImpl : public nn::Cloneable<QuantStubImpl> {
 public:
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(QuantStub);

// Marks where quantized tensors become float again: the identity until convert makes it a
// DeQuantize.
class EMBER_API DeQuantStubImpl : public nn::Cloneable<DeQuantStubImpl> {
 public:
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(DeQuantStub);

// The observer prepare() attached to `module` (its child "activation_post_process"), or null.
EMBER_API std::shared_ptr<ObserverBase> activation_post_process(const nn::Module& module);
// The qconfig prepare() used for `module` (kept by its observer); ValueError naming `who` when
// the module was not prepared.
EMBER_API const QConfig& module_qconfig(const nn::Module& module, const char* who);

// Fuses each group of entry names, given in order: {Conv2d, ReLU} and {Linear, ReLU} become
// intrinsic::ConvReLU2d / LinearReLU; {Conv2d, BatchNorm2d} and {Linear, BatchNorm1d} fold the
// BatchNorm's running statistics and affine map into a copy of the Conv2d / Linear (eval mode
// only, PyTorch's fuse_conv_bn_eval); {Conv2d, BatchNorm2d, ReLU} does both. The other entries
// of a group become Identity. Unknown names and other groups are errors naming them.
EMBER_API nn::Sequential fuse_modules(const nn::Sequential& model, const std::vector<std::vector<std::string>>& groups);

// Note [Eager-mode quantization of a Sequential].
EMBER_API nn::Sequential prepare(const nn::Sequential& model, const QConfig& qconfig);
EMBER_API nn::Sequential convert(const nn::Sequential& prepared);

}  // namespace ember::ao::quantization
