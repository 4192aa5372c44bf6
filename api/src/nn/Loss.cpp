// The loss modules: ember::nn::functional's losses with the module's options. Printing follows
// LibTorch 1.13's text (SmoothL1Loss and HuberLoss print without parentheses there).
#include "ember/nn/modules/Loss.h"

namespace ember::nn {

namespace F = functional;

#define EMBER_LOSS_DEFS(Name, printed, call)                                                     \
  Name##Impl::Name##Impl(Name##Options options_) : options(std::move(options_)) { reset(); }     \
  void Name##Impl::pretty_print(std::ostream& stream) const { stream << "ember::nn::" printed; } \
  Tensor Name##Impl::forward(const Tensor& input, const Tensor& target) { return call; }

EMBER_LOSS_DEFS(L1Loss, "L1Loss()", F::l1_loss(input, target, options))
EMBER_LOSS_DEFS(MSELoss, "MSELoss()", F::mse_loss(input, target, options))
EMBER_LOSS_DEFS(SmoothL1Loss, "SmoothL1Loss", F::smooth_l1_loss(input, target, options))
EMBER_LOSS_DEFS(HuberLoss, "HuberLoss", F::huber_loss(input, target, options))
EMBER_LOSS_DEFS(KLDivLoss, "KLDivLoss()", F::kl_div(input, target, options))
EMBER_LOSS_DEFS(NLLLoss, "NLLLoss()", F::nll_loss(input, target, F::NLLLossFuncOptions(options).weight(weight)))
EMBER_LOSS_DEFS(CrossEntropyLoss, "CrossEntropyLoss()",
                F::cross_entropy(input, target, F::CrossEntropyFuncOptions(options).weight(weight)))
EMBER_LOSS_DEFS(BCELoss, "BCELoss()",
                F::binary_cross_entropy(input, target, F::BinaryCrossEntropyFuncOptions(options).weight(weight)))
EMBER_LOSS_DEFS(BCEWithLogitsLoss, "BCEWithLogitsLoss()",
                F::binary_cross_entropy_with_logits(
                    input, target,
                    F::BinaryCrossEntropyWithLogitsFuncOptions(options).weight(weight).pos_weight(pos_weight)))
#undef EMBER_LOSS_DEFS

void L1LossImpl::reset() {}
void MSELossImpl::reset() {}
void SmoothL1LossImpl::reset() {}
void HuberLossImpl::reset() {}
void KLDivLossImpl::reset() {}
void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
void BCELossImpl::reset() { weight = register_buffer("weight", options.weight()); }
void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}

TripletMarginLossImpl::TripletMarginLossImpl(TripletMarginLossOptions options_) : options(std::move(options_)) {
  reset();
}
void TripletMarginLossImpl::reset() {}
void TripletMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::TripletMarginLoss(margin=" << options.margin() << ", p=" << options.p()
         << ", eps=" << options.eps() << ", swap=" << options.swap() << ")";
}
Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options);
}

}  // namespace ember::nn
