#pragma once
// Embedding and EmbeddingBag (LibTorch's modules/embedding.h): a lookup table of num_embeddings
// vectors, and bags of its rows reduced by sum, mean or max.
#include <cstdint>
#include <optional>
#include <ostream>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/functional.h"
#include "ember/nn/modules/AnyModule.h"

namespace ember::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  // The row that gets no gradient and starts at zeros (negative: counted from the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  // Rows looked up are renormalized in place to this norm_type-norm when theirs is larger.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
  // The initial weight ([num_embeddings, embedding_dim]), shared rather than drawn.
  EMBER_ARG(Tensor, _weight) = Tensor();
};

struct EmbeddingFromPretrainedOptions {
  // The weight does not train.
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

// weight is [num_embeddings, embedding_dim], N(0, 1) with the padding_idx row zeroed.
class EMBER_API EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options_);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // The rows of weight at `indices` (an integer tensor of any shape): indices.sizes() + [dim].
  Tensor forward(const Tensor& indices);

  EmbeddingOptions options;
  Tensor weight;
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using ModuleHolder<EmbeddingImpl>::get;
  // An Embedding whose weight shares `embeddings`' data ([num_embeddings, embedding_dim]);
  // frozen (requires_grad false) unless options.freeze(false).
  EMBER_API static Embedding from_pretrained(const Tensor& embeddings,
                                             const EmbeddingFromPretrainedOptions& options = {});
};

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  // How a bag's rows combine: ember::kSum, kMean or kMax.
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(Tensor, _weight) = Tensor();
  // offsets has one more element, the end of the last bag.
  EMBER_ARG(bool, include_last_offset) = false;
  // The row that is left out of every bag and starts at zeros (negative: counted from the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

// weight is [num_embeddings, embedding_dim], N(0, 1) with the padding_idx row zeroed.
class EMBER_API EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options_);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // [B, embedding_dim]: one row per bag. input is 1-D with offsets (bag starts), or 2-D (one bag
  // per row, no offsets); per_sample_weights (input's shape) scale the rows (mode kSum only).
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});

  EmbeddingBagOptions options;
  Tensor weight;

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})
};
EMBER_MODULE(EmbeddingBag);

}  // namespace ember::nn
