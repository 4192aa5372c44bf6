#pragma once
// ember::nn::functional: LibTorch's torch::nn::functional over Ember's operators, with its
// spellings, option structs and defaults, so LibTorch code ports by changing the namespace:
//   namespace F = ember::nn::functional;
//   F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().ignore_index(-100).label_smoothing(0.1));
//   F::dropout(x, F::DropoutFuncOptions().p(0.5).training(is_training()));
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(ember::kSame));
//   F::mse_loss(a, b, ember::kSum);
//
// Note [Functional options]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Each function takes its arguments as LibTorch does: tensors first, then one options struct
// (FooFuncOptions) whose fields are EMBER_ARG setters/getters with LibTorch's defaults; a choice
// (reduction, mode, padding) is a std::variant of ember::kX tags (ember/nn/Enum.h). The loss and
// distance options live in ember::nn (ember::nn::CrossEntropyLossOptions, as torch::nn; the loss
// modules take them) with FuncOptions aliases here. The options of pooling and activation
// functions are their own structs here (MaxPool2dFuncOptions, ...): in LibTorch they alias the
// modules' options, which have the same fields. The functions are thin: the operators
// (schemas/ops.yaml, most of them the nn plugin's composites) do the work and the argument checks;
// the functions add what LibTorch's add (the 'batchmean' reduction, 2-D embedding_bag inputs,
// padding kSame, the size checks of the binary cross entropies, max_norm renormalization).
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "ember/core/Macros.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Enum.h"
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/functional/resample.h"

namespace ember::nn {

// ---- loss and distance options (torch::nn::*Options) ------------------------------------------

// Implicit constructors from the reduction tags: F::mse_loss(a, b, ember::kSum).
#define EMBER_REDUCTION_CTORS(Options)                       \
  Options() = default;                                       \
  Options(enumtype::kNone r) : reduction_(r) {} /* NOLINT */ \
  Options(enumtype::kMean r) : reduction_(r) {} /* NOLINT */ \
  Options(enumtype::kSum r) : reduction_(r) {}  /* NOLINT */

struct L1LossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_REDUCTION_CTORS(L1LossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct MSELossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_REDUCTION_CTORS(MSELossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct SmoothL1LossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_REDUCTION_CTORS(SmoothL1LossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
  // Where |input - target| switches from quadratic to linear.
  EMBER_ARG(double, beta) = 1.0;
};

struct HuberLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_REDUCTION_CTORS(HuberLossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(double, delta) = 1.0;
};

struct KLDivLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  EMBER_REDUCTION_CTORS(KLDivLossOptions)
  KLDivLossOptions(enumtype::kBatchMean r) : reduction_(r) {}  // NOLINT
  EMBER_ARG(reduction_t, reduction) = kMean;
  // target holds log-probabilities.
  EMBER_ARG(bool, log_target) = false;
};

struct NLLLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  // Per-class weights (1-D, one per class).
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct CrossEntropyLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};

struct BCELossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct BCEWithLogitsLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = kMean;
  // Weight of the positive examples, per class (broadcast against the last dimension).
  EMBER_ARG(Tensor, pos_weight) = {};
};

struct TripletMarginLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};

struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

#undef EMBER_REDUCTION_CTORS

// embedding_bag's reduction of each bag.
using EmbeddingBagMode = std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax>;

namespace functional {

using L1LossFuncOptions = L1LossOptions;
using MSELossFuncOptions = MSELossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;

// ---- dropout ----------------------------------------------------------------------------------

struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

// LibTorch's defaults: training false.
struct AlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};
struct FeatureAlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

// ---- convolution ------------------------------------------------------------------------------

template <size_t D>
struct ConvFuncOptions {
  // An int or D ints, ember::kValid (no padding) or ember::kSame (output size = input size,
  // stride 1 only; an odd total padding puts the extra element after the input, as PyTorch).
  using padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = 0;

 public:
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(ExpandingArray<D>(il)); }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

// ---- pooling ----------------------------------------------------------------------------------

template <size_t D>
struct MaxPoolFuncOptions {
  MaxPoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dFuncOptions = MaxPoolFuncOptions<1>;
using MaxPool2dFuncOptions = MaxPoolFuncOptions<2>;
using MaxPool3dFuncOptions = MaxPoolFuncOptions<3>;

template <size_t D>
struct AvgPoolFuncOptions {
  AvgPoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dFuncOptions = AvgPoolFuncOptions<1>;
using AvgPool2dFuncOptions = AvgPoolFuncOptions<2>;
using AvgPool3dFuncOptions = AvgPoolFuncOptions<3>;

struct AdaptiveAvgPool1dFuncOptions {
  AdaptiveAvgPool1dFuncOptions(ExpandingArray<1> output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<1>, output_size);
};
struct AdaptiveAvgPool2dFuncOptions {
  // A None element keeps that dimension's input size.
  AdaptiveAvgPool2dFuncOptions(ExpandingArrayWithOptionalElem<2> output_size)  // NOLINT
      : output_size_(output_size) {}
  EMBER_ARG(ExpandingArrayWithOptionalElem<2>, output_size);
};
struct AdaptiveAvgPool3dFuncOptions {
  AdaptiveAvgPool3dFuncOptions(ExpandingArrayWithOptionalElem<3> output_size)  // NOLINT
      : output_size_(output_size) {}
  EMBER_ARG(ExpandingArrayWithOptionalElem<3>, output_size);
};
struct AdaptiveMaxPool1dFuncOptions {
  AdaptiveMaxPool1dFuncOptions(ExpandingArray<1> output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<1>, output_size);
};
struct AdaptiveMaxPool2dFuncOptions {
  AdaptiveMaxPool2dFuncOptions(ExpandingArrayWithOptionalElem<2> output_size)  // NOLINT
      : output_size_(output_size) {}
  EMBER_ARG(ExpandingArrayWithOptionalElem<2>, output_size);
};

// ---- padding ----------------------------------------------------------------------------------

struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  // (left, right) pairs from the last dimension backwards; negative values crop.
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(mode_t, mode) = ember::kConstant;
  // The fill value of kConstant (the other modes ignore it, as LibTorch's F::pad).
  EMBER_ARG(double, value) = 0;
};

// ---- activations ------------------------------------------------------------------------------

struct ReLUFuncOptions {
  ReLUFuncOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};
struct GELUFuncOptions {
  // "none" (the erf form) or "tanh".
  EMBER_ARG(std::string, approximate) = "none";
};
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  // Computes in and returns this dtype (the input is converted first).
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

// ---- normalization ----------------------------------------------------------------------------

struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};
struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = Tensor();
  EMBER_ARG(Tensor, running_var) = Tensor();
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};
struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};
struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};
struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
  // Written with the result when given (LibTorch's out=).
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;
};

// ---- embeddings -------------------------------------------------------------------------------

struct EmbeddingFuncOptions {
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  // Rows looked up are renormalized in place to this norm first (under no-grad), as PyTorch.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

struct EmbeddingBagFuncOptions {
  // Bag starts for a 1-D input; none for a 2-D input (one bag per row).
  EMBER_ARG(Tensor, offsets) = Tensor();
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(Tensor, per_sample_weights) = Tensor();
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

// ---- attention --------------------------------------------------------------------------------

struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads, Tensor in_proj_weight,
                                       Tensor in_proj_bias, Tensor bias_k, Tensor bias_v, bool add_zero_attn,
                                       double dropout_p, Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  EMBER_ARG(bool, training) = true;
  // (N, S): true (or -inf) marks a key to ignore.
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  // (L, S) or (N * num_heads, L, S): true (or -inf) masks, a float mask is added.
  EMBER_ARG(Tensor, attn_mask) = {};
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;
};

// ---- functions --------------------------------------------------------------------------------

// Losses.
EMBER_API Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
// `beta` (LibTorch's extra argument) overrides options.beta() when given.
EMBER_API Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options = {},
                                std::optional<double> beta = std::nullopt);
EMBER_API Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options = {});
// kBatchMean: the sum divided by the batch size (input.size(0)).
EMBER_API Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
EMBER_API Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});
// target must have input's shape; a weight broadcasts to it.
EMBER_API Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                      const BinaryCrossEntropyFuncOptions& options = {});
EMBER_API Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                                  const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
EMBER_API Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                     const TripletMarginLossFuncOptions& options = {});

// Distances.
EMBER_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});
EMBER_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});

// Dropout (dropout2d/3d: feature dropout of (N, C, H, W) / (N, C, D, H, W) inputs, or unbatched
// ones with one dimension less).
EMBER_API Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
EMBER_API Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
EMBER_API Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});
EMBER_API Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {});
EMBER_API Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options = {});

// Linear maps and convolutions.
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
EMBER_API Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                          const Tensor& bias = Tensor());
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});
EMBER_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose1dFuncOptions& options = {});
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose2dFuncOptions& options = {});
EMBER_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose3dFuncOptions& options = {});

// Pooling.
EMBER_API Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
EMBER_API Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options);
EMBER_API Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
EMBER_API Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
EMBER_API Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options);
EMBER_API Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
EMBER_API Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                                      const AdaptiveMaxPool1dFuncOptions& options);
EMBER_API Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                                      const AdaptiveMaxPool2dFuncOptions& options);

// Padding: kConstant pads any number of trailing dimensions (constant_pad_nd); kReflect,
// kReplicate and kCircular the last 1, 2 or 3 of a 2-D to 5-D input.
EMBER_API Tensor pad(const Tensor& input, const PadFuncOptions& options);

// Activations.
EMBER_API Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
EMBER_API Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
EMBER_API Tensor silu(const Tensor& input);
EMBER_API Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
EMBER_API Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
EMBER_API Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);

// Normalization.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                            const BatchNormFuncOptions& options = {});
EMBER_API Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});
EMBER_API Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
EMBER_API Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
EMBER_API Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

// Embeddings.
EMBER_API Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});
EMBER_API Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});
// One-hot rows of an int64 class tensor (num_classes -1: the largest class + 1).
EMBER_API Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);

// Attention: (attention output, weights), the weights undefined unless need_weights.
EMBER_API std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key,
                                                                  const Tensor& value,
                                                                  const MultiheadAttentionForwardFuncOptions& options);

}  // namespace functional
}  // namespace ember::nn
