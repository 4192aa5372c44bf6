#pragma once
// Loss modules (LibTorch's modules/loss.h): each holds its ember::nn::*LossOptions (declared with
// ember::nn::functional, ember/nn/functional.h) and forwards to the functional form. Class
// weights (and BCEWithLogitsLoss's pos_weight) are buffers named as PyTorch's, so they move with
// to() and appear in the state dict when given. CosineEmbeddingLoss is left out: Ember has no
// cosine_embedding_loss operator.
#include <ostream>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/functional.h"

namespace ember::nn {

// A loss of (input, target) whose options hold no tensors.
#define EMBER_LOSS_MODULE(Name)                                \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {  \
   public:                                                     \
    explicit Name##Impl(Name##Options options_ = {});          \
    void reset() override;                                     \
    void pretty_print(std::ostream& stream) const override;    \
    Tensor forward(const Tensor& input, const Tensor& target); \
                                                               \
    Name##Options options;                                     \
  };                                                           \
  EMBER_MODULE(Name)

EMBER_LOSS_MODULE(L1Loss);
EMBER_LOSS_MODULE(MSELoss);
EMBER_LOSS_MODULE(SmoothL1Loss);
EMBER_LOSS_MODULE(HuberLoss);
EMBER_LOSS_MODULE(KLDivLoss);

// A loss of (input, target) with a `weight` buffer (undefined unless options.weight() is given).
#define EMBER_WEIGHTED_LOSS_MODULE(Name)                       \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {  \
   public:                                                     \
    explicit Name##Impl(Name##Options options_ = {});          \
    void reset() override;                                     \
    void pretty_print(std::ostream& stream) const override;    \
    Tensor forward(const Tensor& input, const Tensor& target); \
                                                               \
    Name##Options options;                                     \
    Tensor weight;                                             \
  };                                                           \
  EMBER_MODULE(Name)

EMBER_WEIGHTED_LOSS_MODULE(NLLLoss);
EMBER_WEIGHTED_LOSS_MODULE(CrossEntropyLoss);
EMBER_WEIGHTED_LOSS_MODULE(BCELoss);

#undef EMBER_LOSS_MODULE
#undef EMBER_WEIGHTED_LOSS_MODULE

// binary_cross_entropy_with_logits; `weight` and `pos_weight` buffers.
class EMBER_API BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  explicit BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options_ = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);

  BCEWithLogitsLossOptions options;
  Tensor weight;
  Tensor pos_weight;
};
EMBER_MODULE(BCEWithLogitsLoss);

class EMBER_API TripletMarginLossImpl : public Cloneable<TripletMarginLossImpl> {
 public:
  explicit TripletMarginLossImpl(TripletMarginLossOptions options_ = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);

  TripletMarginLossOptions options;
};
EMBER_MODULE(TripletMarginLoss);

}  // namespace ember::nn
