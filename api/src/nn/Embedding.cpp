// Embedding and EmbeddingBag.
#include "ember/nn/modules/Embedding.h"

#include <fmt/format.h>

#include "ember/api/Indexing.h"
#include "ember/api/Operators.h"
#include "ember/core/LocalState.h"
#include "ember/generated/Functions.h"
#include "ember/nn/Init.h"

namespace ember::nn {

namespace {

// padding_idx counted from the end when negative, checked against the number of rows.
std::optional<int64_t> normalized_padding_idx(std::optional<int64_t> padding_idx, int64_t rows) {
  if (!padding_idx) return std::nullopt;
  EMBER_CHECK_INDEX(*padding_idx < rows && *padding_idx >= -rows,
                    "[Embedding] padding_idx: Padding_idx must be within num_embeddings ({}), got {}", rows,
                    *padding_idx);
  return *padding_idx < 0 ? *padding_idx + rows : *padding_idx;
}

}  // namespace

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) { reset(); }

void EmbeddingImpl::reset() {
  EMBER_CHECK(options.num_embeddings() >= 0 && options.embedding_dim() >= 0,
              "[Embedding] num_embeddings and embedding_dim: expected non-negative sizes, got {} and {}",
              options.num_embeddings(), options.embedding_dim());
  options.padding_idx(normalized_padding_idx(options.padding_idx(), options.num_embeddings()));
  if (!options._weight().defined()) {
    weight = register_parameter("weight", ember::empty({options.num_embeddings(), options.embedding_dim()}));
    reset_parameters();
  } else {
    const Tensor& w = options._weight();
    const int64_t want[] = {options.num_embeddings(), options.embedding_dim()};
    EMBER_CHECK(w.sizes() == IntArrayRef(want),
                "[Embedding] _weight: Shape of _weight does not match num_embeddings and embedding_dim: expected "
                "{}, got {}",
                IntArrayRef(want), w.sizes());
    // A new tensor sharing _weight's data (PyTorch's Parameter(_weight)): the caller's tensor
    // keeps its requires_grad, and a clone never touches it.
    weight = register_parameter("weight", w.detach());
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  stream << ")";
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  if (options.max_norm()) {
    // PyTorch's embedding_renorm_: each looked-up row whose norm exceeds max_norm is scaled in
    // place to max_norm (the 1e-7 as PyTorch's kernel).
    NoGradGuard no_grad;
    const Tensor idx = indices.reshape({-1});
    const Tensor rows = weight.index_select(0, idx);
    const Tensor norms = rows.norm(options.norm_type(), {1}, /*keepdim=*/true);
    const Tensor scale =
        where(norms > *options.max_norm(), full_like(norms, *options.max_norm()) / (norms + 1e-7), ones_like(norms));
    weight.index_put_({idx}, rows * scale);
  }
  return embedding(weight, indices, options.padding_idx().value_or(-1), options.scale_grad_by_freq(), options.sparse());
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK(embeddings.defined() && embeddings.dim() == 2,
              "[Embedding::from_pretrained] embeddings: Embeddings parameter is expected to be 2-dimensional, got {}",
              embeddings.defined() ? fmt::format("{}-D", embeddings.dim()) : std::string("an undefined tensor"));
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.requires_grad_(!options.freeze());
  return embedding;
}

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options_) : options(std::move(options_)) { reset(); }

void EmbeddingBagImpl::reset() {
  EMBER_CHECK(options.num_embeddings() >= 0 && options.embedding_dim() >= 0,
              "[EmbeddingBag] num_embeddings and embedding_dim: expected non-negative sizes, got {} and {}",
              options.num_embeddings(), options.embedding_dim());
  options.padding_idx(normalized_padding_idx(options.padding_idx(), options.num_embeddings()));
  if (!options._weight().defined()) {
    weight = register_parameter("weight", ember::empty({options.num_embeddings(), options.embedding_dim()}));
    reset_parameters();
  } else {
    const Tensor& w = options._weight();
    const int64_t want[] = {options.num_embeddings(), options.embedding_dim()};
    EMBER_CHECK(w.sizes() == IntArrayRef(want),
                "[EmbeddingBag] _weight: Shape of weight does not match num_embeddings and embedding_dim: expected "
                "{}, got {}",
                IntArrayRef(want), w.sizes());
    weight = register_parameter("weight", w.detach());
  }
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  if (!std::holds_alternative<enumtype::kMean>(options.mode()))
    stream << ", mode=" << enumtype::get_enum_name(options.mode());
  if (options.include_last_offset()) stream << ", include_last_offset=true";
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

}  // namespace ember::nn
