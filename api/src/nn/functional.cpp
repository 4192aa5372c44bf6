// ember::nn::functional (see Note [Functional options] in ember/nn/functional.h).
#include "ember/nn/functional.h"

#include <algorithm>
#include <array>

#include "ember/ember.h"

namespace ember::nn::functional {
namespace {

int64_t to_enum(enumtype::kNone) { return Reduction::None; }
int64_t to_enum(enumtype::kMean) { return Reduction::Mean; }
int64_t to_enum(enumtype::kSum) { return Reduction::Sum; }

template <class V>
int64_t reduction_of(const V& r) {
  return std::visit([](auto tag) { return to_enum(tag); }, r);
}

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

}  // namespace

// ---- losses -------------------------------------------------------------------------------------

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  return ember::l1_loss(input, target, reduction_of(options.reduction()));
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  return ember::mse_loss(input, target, reduction_of(options.reduction()));
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options,
                      std::optional<double> beta) {
  return ember::smooth_l1_loss(input, target, reduction_of(options.reduction()), beta.value_or(options.beta()));
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  return ember::huber_loss(input, target, reduction_of(options.reduction()), options.delta());
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  const bool batchmean = std::holds_alternative<enumtype::kBatchMean>(options.reduction());
  int64_t reduction = Reduction::Sum;
  if (!batchmean)
    reduction = std::visit(
        [](auto tag) -> int64_t {
          if constexpr (std::is_same_v<decltype(tag), enumtype::kBatchMean>)
            return Reduction::Sum;
          else
            return to_enum(tag);
        },
        options.reduction());
  Tensor reduced = ember::kl_div(input, target, reduction, options.log_target());
  if (batchmean && input.dim() != 0) reduced = reduced / input.size(0);
  return reduced;
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  return ember::nll_loss_nd(input, target, opt(options.weight()), reduction_of(options.reduction()),
                            options.ignore_index());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  return ember::cross_entropy_loss(input, target, opt(options.weight()), reduction_of(options.reduction()),
                                   options.ignore_index(), options.label_smoothing());
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& options) {
  EMBER_CHECK(target.sizes() == input.sizes(),
              "[binary_cross_entropy] expected a target of the input's size {}, got {}", input.sizes(), target.sizes());
  Tensor weight = options.weight();
  if (weight.defined() && weight.sizes() != target.sizes()) weight = weight.expand(target.sizes());
  return ember::binary_cross_entropy(input, target, opt(weight), reduction_of(options.reduction()));
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  EMBER_CHECK(target.sizes() == input.sizes(),
              "[binary_cross_entropy_with_logits] expected a target of the input's size {}, got {}", input.sizes(),
              target.sizes());
  return ember::binary_cross_entropy_with_logits(input, target, opt(options.weight()), opt(options.pos_weight()),
                                                 reduction_of(options.reduction()));
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  return ember::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                    options.swap(), reduction_of(options.reduction()));
}

// ---- distances ----------------------------------------------------------------------------------

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options) {
  return ember::cosine_similarity(x1, x2, options.dim(), options.eps());
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options) {
  return ember::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

// ---- dropout ------------------------------------------------------------------------------------

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  if (options.inplace()) return ember::dropout_(input, options.p(), options.training());
  return ember::dropout(input, options.p(), options.training());
}

namespace {

// LibTorch's _dropoutNd_helper: feature dropout over a batched input of `batched_dim` dims, any
// other input taken as one unbatched sample.
Tensor dropout_nd(Tensor input, const DropoutFuncOptions& options, int64_t batched_dim) {
  const bool batched = input.dim() == batched_dim;
  Tensor x = batched ? input : input.unsqueeze(0);
  if (options.inplace()) {
    ember::feature_dropout_(x, options.p(), options.training());
    return input;
  }
  const Tensor r = ember::feature_dropout(x, options.p(), options.training());
  return batched ? r : r.squeeze(0);
}

}  // namespace

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) { return dropout_nd(input, options, 4); }
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options) { return dropout_nd(input, options, 5); }

Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options) {
  if (options.inplace()) return ember::alpha_dropout_(input, options.p(), options.training());
  return ember::alpha_dropout(input, options.p(), options.training());
}

Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options) {
  if (options.inplace()) return ember::feature_alpha_dropout_(input, options.p(), options.training());
  return ember::feature_alpha_dropout(input, options.p(), options.training());
}

// ---- linear maps and convolutions ---------------------------------------------------------------

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ember::linear(input, weight, opt(bias));
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  return ember::bilinear(input1, input2, weight, opt(bias));
}

namespace {

// An int padding goes to the int overload, kValid/kSame to the string one: `conv(padding)` takes
// either (a generic lambda).
template <size_t D, class Conv>
Tensor conv_with_padding(const ConvFuncOptions<D>& options, Conv&& conv) {
  if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) return conv(IntArrayRef(**p));
  return conv(std::string_view(std::holds_alternative<enumtype::kSame>(options.padding()) ? "same" : "valid"));
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& o) {
  return conv_with_padding(
      o, [&](auto p) { return ember::conv1d(input, weight, opt(o.bias()), o.stride(), p, o.dilation(), o.groups()); });
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& o) {
  return conv_with_padding(
      o, [&](auto p) { return ember::conv2d(input, weight, opt(o.bias()), o.stride(), p, o.dilation(), o.groups()); });
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& o) {
  return conv_with_padding(
      o, [&](auto p) { return ember::conv3d(input, weight, opt(o.bias()), o.stride(), p, o.dilation(), o.groups()); });
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options) {
  return ember::conv_transpose1d(input, weight, opt(options.bias()), options.stride(), options.padding(),
                                 options.output_padding(), options.groups(), options.dilation());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options) {
  return ember::conv_transpose2d(input, weight, opt(options.bias()), options.stride(), options.padding(),
                                 options.output_padding(), options.groups(), options.dilation());
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options) {
  return ember::conv_transpose3d(input, weight, opt(options.bias()), options.stride(), options.padding(),
                                 options.output_padding(), options.groups(), options.dilation());
}

// ---- pooling ------------------------------------------------------------------------------------

namespace {

// A 1-D window as the 2-D one over (1, L).
std::array<int64_t, 2> as_2d(const ExpandingArray<1>& v, int64_t first) { return {first, (*v)[0]}; }

void check_1d_input(const char* op, const Tensor& input) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3,
              "[{}] argument 'input': expected a 2-D (C, L) or 3-D (N, C, L) input, got shape {}", op, input.sizes());
}

}  // namespace

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  check_1d_input("max_pool1d", input);
  return ember::max_pool1d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                           options.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options) {
  check_1d_input("max_pool1d_with_indices", input);
  auto [out, ind] =
      ember::max_pool2d_with_indices(input.unsqueeze(-2), as_2d(options.kernel_size(), 1), as_2d(options.stride(), 1),
                                     as_2d(options.padding(), 0), as_2d(options.dilation(), 1), options.ceil_mode());
  return {out.squeeze(-2), ind.squeeze(-2)};
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return ember::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                           options.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return ember::max_pool2d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                        options.dilation(), options.ceil_mode());
}

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return ember::max_pool3d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                           options.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return ember::max_pool3d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                        options.dilation(), options.ceil_mode());
}

// LibTorch's F::avg_pool1d passes no divisor_override.
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  check_1d_input("avg_pool1d", input);
  return ember::avg_pool1d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                           options.count_include_pad());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return ember::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                           options.count_include_pad(), options.divisor_override());
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options) {
  return ember::avg_pool3d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                           options.count_include_pad(), options.divisor_override());
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  check_1d_input("adaptive_avg_pool1d", input);
  return ember::adaptive_avg_pool1d(input, options.output_size());
}

namespace {

// An output size with None elements as the input's sizes there (LibTorch's
// _list_with_default).
template <size_t D>
std::array<int64_t, D> with_default(const char* op, const Tensor& input, const ExpandingArrayWithOptionalElem<D>& o) {
  EMBER_CHECK(input.dim() >= static_cast<int64_t>(D),
              "[{}] argument 'input': expected at least {} dimensions, got shape {}", op, D, input.sizes());
  std::array<int64_t, D> size{};
  for (size_t i = 0; i < D; ++i) size[i] = (*o)[i].value_or(input.size(input.dim() - static_cast<int64_t>(D - i)));
  return size;
}

}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  return ember::adaptive_avg_pool2d(input, with_default("adaptive_avg_pool2d", input, options.output_size()));
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options) {
  return ember::adaptive_avg_pool3d(input, with_default("adaptive_avg_pool3d", input, options.output_size()));
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options) {
  check_1d_input("adaptive_max_pool1d", input);
  return ember::adaptive_max_pool1d(input, options.output_size());
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options) {
  return ember::adaptive_max_pool2d(input, with_default("adaptive_max_pool2d", input, options.output_size()));
}

// ---- padding ------------------------------------------------------------------------------------

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  if (std::holds_alternative<enumtype::kConstant>(options.mode()))
    return ember::constant_pad_nd(input, options.pad(), options.value());
  const char* mode = std::holds_alternative<enumtype::kReflect>(options.mode())     ? "reflect"
                     : std::holds_alternative<enumtype::kReplicate>(options.mode()) ? "replicate"
                                                                                    : "circular";
  return ember::pad(input, options.pad(), mode);
}

// ---- activations --------------------------------------------------------------------------------

Tensor relu(Tensor input, const ReLUFuncOptions& options) {
  return options.inplace() ? ember::relu_(input) : ember::relu(input);
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) { return ember::gelu(input, options.approximate()); }

Tensor silu(const Tensor& input) { return ember::silu(input); }
Tensor one_hot(const Tensor& tensor, int64_t num_classes) { return ember::one_hot(tensor, num_classes); }

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}

Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  return ember::softmax(ember::neg(input), options.dim(), options.dtype());
}

// ---- normalization ------------------------------------------------------------------------------

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  const char* op = "batch_norm";
  if (options.training()) {
    EMBER_CHECK(input.dim() >= 2, "[{}] argument 'input': expected (N, C, ...), got shape {}", op, input.sizes());
    int64_t per_channel = input.size(0);
    for (int64_t d = 2; d < input.dim(); ++d) per_channel *= input.size(d);
    EMBER_CHECK(per_channel != 1, "[{}] expected more than 1 value per channel when training, got input size {}", op,
                input.sizes());
  }
  EMBER_CHECK(options.momentum().has_value(),
              "[{}] argument 'momentum': expected a value (a cumulative average, momentum None, is the BatchNorm "
              "module's)",
              op);
  return ember::batch_norm(input, opt(options.weight()), opt(options.bias()), opt(running_mean), opt(running_var),
                           options.training(), *options.momentum(), options.eps(), false);
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options) {
  return ember::instance_norm(input, opt(options.weight()), opt(options.bias()), opt(options.running_mean()),
                              opt(options.running_var()), options.use_input_stats(), options.momentum(), options.eps(),
                              false);
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return ember::layer_norm(input, options.normalized_shape(), opt(options.weight()), opt(options.bias()),
                           options.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return ember::group_norm(input, options.num_groups(), opt(options.weight()), opt(options.bias()), options.eps());
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  const int64_t dims[1] = {options.dim()};
  const Tensor denom = ember::norm(input, std::optional<Scalar>(options.p()), IntArrayRef(dims, 1), true)
                           .clamp(options.eps())
                           .expand(input.sizes());
  if (!options.out()) return input / denom;
  Tensor out = *options.out();
  return ember::div_out(out, input, denom);
}

// ---- embeddings ---------------------------------------------------------------------------------

namespace {

// PyTorch's embedding_renorm_: the rows of weight that input looks up, scaled down in place to
// max_norm where their norm exceeds it.
void renorm_rows(Tensor weight, const Tensor& input, double max_norm, double norm_type) {
  NoGradGuard no_grad;
  const Tensor idx = input.flatten();
  const Tensor rows = weight.index_select(0, idx);
  const int64_t dims[1] = {1};
  const Tensor norms = linalg_vector_norm(rows, norm_type, IntArrayRef(dims, 1), true);
  const Tensor scale = where(norms.gt(max_norm), (norms + 1e-7).pow(-1) * max_norm, ones_like(norms));
  weight.index_put_({idx}, rows * scale);
}

}  // namespace

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  const char* op = "embedding";
  int64_t padding_idx = -1;
  if (options.padding_idx()) {
    const int64_t rows = weight.dim() >= 1 ? weight.size(0) : 0, p = *options.padding_idx();
    EMBER_CHECK(p >= -rows && p < rows,
                "[{}] argument 'padding_idx': expected a value within num_embeddings [-{}, {}), got {}", op, rows, rows,
                p);
    padding_idx = p < 0 ? p + rows : p;
  }
  if (options.max_norm()) renorm_rows(weight, input, *options.max_norm(), options.norm_type());
  return ember::embedding(weight, input, padding_idx, options.scale_grad_by_freq(), options.sparse());
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options) {
  const char* op = "embedding_bag";
  Tensor indices = input, offsets = options.offsets(), psw = options.per_sample_weights();
  EMBER_CHECK(!psw.defined() || psw.sizes() == input.sizes(),
              "[{}] argument 'per_sample_weights': expected the input's shape {}, got {}", op, input.sizes(),
              psw.sizes());
  if (input.dim() == 2) {
    EMBER_CHECK(!offsets.defined(),
                "[{}] offsets must be undefined for a 2-D input (each row is a bag), got offsets of shape {}", op,
                offsets.sizes());
    offsets =
        arange(0, input.numel(), std::max<int64_t>(input.size(1), 1), TensorOptions(kInt64).device(input.device()));
    indices = input.reshape({-1});
    if (psw.defined()) psw = psw.reshape({-1});
  } else {
    EMBER_CHECK(input.dim() == 1, "[{}] argument 'input': expected a 1-D or 2-D tensor, got shape {}", op,
                input.sizes());
    EMBER_CHECK(offsets.defined(), "[{}] a 1-D input needs offsets (a 1-D tensor of bag starts)", op);
  }
  const int64_t mode = std::visit(
      [](auto tag) -> int64_t {
        if constexpr (std::is_same_v<decltype(tag), enumtype::kSum>) return 0;
        if constexpr (std::is_same_v<decltype(tag), enumtype::kMean>) return 1;
        return 2;
      },
      options.mode());
  if (options.max_norm()) renorm_rows(weight, indices, *options.max_norm(), options.norm_type());
  return std::get<0>(ember::embedding_bag(weight, indices, offsets, options.scale_grad_by_freq(), mode,
                                          options.sparse(), opt(psw), options.include_last_offset(),
                                          options.padding_idx()));
}

// ---- attention ----------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options) {
  return ember::multi_head_attention_forward(
      query, key, value, options.embed_dim_to_check(), options.num_heads(), opt(options.in_proj_weight()),
      opt(options.in_proj_bias()), opt(options.bias_k()), opt(options.bias_v()), options.add_zero_attn(),
      options.dropout_p(), options.out_proj_weight(), opt(options.out_proj_bias()), options.training(),
      opt(options.key_padding_mask()), options.need_weights(), opt(options.attn_mask()),
      options.use_separate_proj_weight(), opt(options.q_proj_weight()), opt(options.k_proj_weight()),
      opt(options.v_proj_weight()), opt(options.static_k()), opt(options.static_v()), options.average_attn_weights());
}

}  // namespace ember::nn::functional
