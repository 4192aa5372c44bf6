// MultiheadAttention and TransformerEncoderLayer.
#include "ember/nn/modules/Transformer.h"

#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"
#include "ember/nn/Init.h"
#include "ember/nn/functional.h"

namespace ember::nn {

namespace F = functional;

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_) : options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim();
  EMBER_CHECK(E > 0 && options.num_heads() > 0 && options.kdim() > 0 && options.vdim() > 0,
              "[MultiheadAttention] embed_dim, num_heads, kdim and vdim: expected positive sizes, got {}, {}, {} "
              "and {}",
              E, options.num_heads(), options.kdim(), options.vdim());
  EMBER_CHECK(E % options.num_heads() == 0, "[MultiheadAttention] embed_dim ({}) must be divisible by num_heads ({})",
              E, options.num_heads());
  head_dim = E / options.num_heads();
  _qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  if (_qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", ember::empty({3 * E, E}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", ember::empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", ember::empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", ember::empty({E, options.vdim()}));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", ember::empty({3 * E}));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", ember::empty({1, 1, E}));
    bias_v = register_parameter("bias_v", ember::empty({1, 1, E}));
  }
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.);
    init::constant_(out_proj->bias, 0.);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::MultiheadAttention"; }

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const Tensor& key_padding_mask, bool need_weights,
                                                           const Tensor& attn_mask, bool average_attn_weights) {
  // batch_first: the operator takes (L, N, E); an unbatched (L, E) input has no batch dim to move.
  const bool swap = options.batch_first() && query.dim() == 3;
  auto seq_first = [&](const Tensor& t) { return swap && t.dim() == 3 ? t.transpose(0, 1) : t; };
  auto opts = F::MultiheadAttentionForwardFuncOptions(options.embed_dim(), options.num_heads(), in_proj_weight,
                                                      in_proj_bias, bias_k, bias_v, options.add_zero_attn(),
                                                      options.dropout(), out_proj->weight, out_proj->bias)
                  .training(is_training())
                  .key_padding_mask(key_padding_mask)
                  .need_weights(need_weights)
                  .attn_mask(attn_mask)
                  .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim)
    opts.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  auto [out, weights] = F::multi_head_attention_forward(seq_first(query), seq_first(key), seq_first(value), opts);
  return {swap ? out.transpose(0, 1) : out, weights};
}

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const int64_t d = options.d_model();
  self_attn = register_module(
      "self_attn",
      MultiheadAttention(
          MultiheadAttentionOptions(d, options.nhead()).dropout(options.dropout()).batch_first(options.batch_first())));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({d}).eps(options.layer_norm_eps())));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({d}).eps(options.layer_norm_eps())));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

void TransformerEncoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::TransformerEncoderLayer";
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  auto sa_block = [&](const Tensor& x) {
    return dropout1->forward(
        std::get<0>(self_attn->forward(x, x, x, src_key_padding_mask, /*need_weights=*/false, src_mask)));
  };
  auto ff_block = [&](const Tensor& x) {
    Tensor h = linear1->forward(x);
    h = std::holds_alternative<enumtype::kGELU>(options.activation()) ? gelu(h) : relu(h);
    return dropout2->forward(linear2->forward(dropout->forward(h)));
  };
  Tensor x = src;
  if (options.norm_first()) {
    x = x + sa_block(norm1->forward(x));
    x = x + ff_block(norm2->forward(x));
  } else {
    x = norm1->forward(x + sa_block(x));
    x = norm2->forward(x + ff_block(x));
  }
  return x;
}

}  // namespace ember::nn
