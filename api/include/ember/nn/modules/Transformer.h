#pragma once
// MultiheadAttention (LibTorch's modules/activation.h) and TransformerEncoderLayer (LibTorch's
// modules/transformerlayer.h), with PyTorch's parameter names. Beyond LibTorch 1.13's options
// they take PyTorch's batch_first (both), norm_first and layer_norm_eps.
#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>
#include <variant>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Enum.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/modules/AnyModule.h"
#include "ember/nn/modules/Dropout.h"
#include "ember/nn/modules/Linear.h"
#include "ember/nn/modules/Normalization.h"

namespace ember::nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  // On the attention weights, while training.
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  // A learned key and value appended to the sequences.
  EMBER_ARG(bool, add_bias_kv) = false;
  EMBER_ARG(bool, add_zero_attn) = false;
  // Features of key and value (embed_dim by default; others give separate projection weights).
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
  // Inputs and output are (N, L, E) rather than (L, N, E).
  EMBER_ARG(bool, batch_first) = false;
};

// Parameters as PyTorch's: in_proj_weight [3E, E] (or q_proj_weight, k_proj_weight [E, kdim],
// v_proj_weight [E, vdim] when kdim or vdim differ from E), in_proj_bias [3E], bias_k and bias_v
// [1, 1, E] with add_bias_kv, and out_proj (a Linear E -> E).
class EMBER_API MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options_);
  void reset() override;
  void _reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // (attention output, weights): the weights averaged over heads (or per head without
  // average_attn_weights), undefined unless need_weights.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;
  Linear out_proj{nullptr};
  int64_t head_dim = 0;

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({3, AnyValue(Tensor())}, {4, AnyValue(true)}, {5, AnyValue(Tensor())},
                                 {6, AnyValue(true)})
};
EMBER_MODULE(MultiheadAttention);

struct TransformerEncoderLayerOptions {
  using activation_t = std::variant<enumtype::kReLU, enumtype::kGELU>;
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = ember::kReLU;
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  // Layer norm before attention and feed-forward (pre-norm) instead of after (post-norm).
  EMBER_ARG(bool, norm_first) = false;
};

// self_attn, then a feed-forward block linear1 -> activation -> dropout -> linear2, each with a
// residual connection, dropout (dropout1, dropout2) and a LayerNorm (norm1, norm2): PyTorch's
// submodules and order, so named_parameters match.
class EMBER_API TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr};
  Dropout dropout{nullptr};
  Linear linear2{nullptr};
  LayerNorm norm1{nullptr};
  LayerNorm norm2{nullptr};
  Dropout dropout1{nullptr};
  Dropout dropout2{nullptr};

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})
};
EMBER_MODULE(TransformerEncoderLayer);

}  // namespace ember::nn
