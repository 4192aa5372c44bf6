// embedding_bag: sums, means or maxima of weight's rows over bags of indices, with PyTorch's
// offsets, include_last_offset, per_sample_weights and padding_idx.
//
// The checks are embedding_bag's own (errors name it); the bags come from the _embedding_bag
// kernel, whose four outputs are LibTorch's (Note [Embedding bag outputs] in plugins/cpu/nn_core.cpp).
#include "NNUtil.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {
namespace {

using nnutil::has_values;

constexpr int64_t kSum = 0, kMean = 1, kMax = 2;

void check_index_tensor(const char* op, const Tensor& t, const char* name) {
  check_defined(op, t, name);
  EMBER_CHECK_TYPE(t.dtype() == kInt64 || t.dtype() == kInt32,
                   "[{}] argument '{}': expected an int64 or int32 tensor, got {}", op, name, t.dtype());
  EMBER_CHECK(t.dim() == 1, "[{}] argument '{}': expected a 1-D tensor, got shape {}", op, name, t.sizes());
}

std::tuple<Tensor, Tensor, Tensor, Tensor> bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                                               bool scale_grad_by_freq, int64_t mode, bool sparse,
                                               const std::optional<Tensor>& per_sample_weights,
                                               bool include_last_offset, std::optional<int64_t> padding_idx) {
  const char* op = "embedding_bag";
  check_defined(op, weight, "weight");
  EMBER_CHECK(weight.dim() == 2, "[{}] argument 'weight': expected a 2-D (num_embeddings, dim) tensor, got shape {}",
              op, weight.sizes());
  nnutil::check_floating(op, weight, "weight");
  check_index_tensor(op, indices, "indices");
  check_index_tensor(op, offsets, "offsets");
  EMBER_CHECK(mode == kSum || mode == kMean || mode == kMax,
              "[{}] argument 'mode': expected 0 (sum), 1 (mean) or 2 (max), got {}", op, mode);
  EMBER_CHECK_NOT_IMPLEMENTED(!sparse,
                              "[{}] sparse=True (a sparse weight gradient) is not implemented: Ember's autograd "
                              "produces dense gradients",
                              op);
  EMBER_CHECK(!scale_grad_by_freq || mode != kMax,
              "[{}] max mode does not support scaling the gradient by the frequency (scale_grad_by_freq)", op);
  const bool weighted = per_sample_weights && per_sample_weights->defined();
  if (weighted) {
    EMBER_CHECK(mode == kSum, "[{}] per_sample_weights is only supported with mode 0 (sum), got mode {}", op, mode);
    EMBER_CHECK(per_sample_weights->sizes() == indices.sizes(),
                "[{}] argument 'per_sample_weights': expected the shape of indices {}, got {}", op, indices.sizes(),
                per_sample_weights->sizes());
    EMBER_CHECK_TYPE(per_sample_weights->dtype() == weight.dtype(),
                     "[{}] argument 'per_sample_weights': expected dtype {} (weight's), got {}", op, weight.dtype(),
                     per_sample_weights->dtype());
  }
  EMBER_CHECK(!include_last_offset || offsets.numel() >= 1,
              "[{}] argument 'offsets': expected at least one offset with include_last_offset", op);
  const int64_t n = indices.numel(), rows_n = weight.size(0);
  const Tensor idx = indices.to(kInt64), off = offsets.to(kInt64);
  if (has_values(off) && off.numel() > 0) {
    const int64_t first = off.select(0, 0).item<int64_t>(), last = off.select(0, -1).item<int64_t>();
    EMBER_CHECK(first == 0,
                "[{}] offsets[0] has to be 0, i.e. the first bag has to start at position 0 of indices, got {}", op,
                first);
    EMBER_CHECK(last <= n, "[{}] offsets[-1] can not be greater than the length of indices ({}), got {}", op, n, last);
    EMBER_CHECK(!off.slice(0, 1).lt(off.slice(0, 0, off.numel() - 1)).any().item<bool>(),
                "[{}] argument 'offsets': expected non-decreasing values", op);
  }
  if (has_values(idx) && n > 0) {
    const Tensor bad = idx.lt(0).logical_or(idx.ge(rows_n));
    if (bad.any().item<bool>())
      EMBER_THROW(IndexError, "[{}] index {} is out of range for a weight of {} rows", op,
                  idx.masked_select(bad).select(0, 0).item<int64_t>(), rows_n);
  }
  // Mixed index dtypes meet in int64, as LibTorch's promoteIndicesAndOffsets.
  const bool same = indices.dtype() == offsets.dtype();
  return _embedding_bag(weight, same ? indices : idx, same ? offsets : off, scale_grad_by_freq, mode, sparse,
                        per_sample_weights, include_last_offset, padding_idx.value_or(-1));
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(const Tensor& weight, const Tensor& indices,
                                                         const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                                                         bool sparse, const std::optional<Tensor>& per_sample_weights,
                                                         bool include_last_offset) {
  return bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset,
             std::nullopt);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_padding_idx(const Tensor& weight, const Tensor& indices,
                                                                     const Tensor& offsets, bool scale_grad_by_freq,
                                                                     int64_t mode, bool sparse,
                                                                     const std::optional<Tensor>& per_sample_weights,
                                                                     bool include_last_offset,
                                                                     std::optional<int64_t> padding_idx) {
  std::optional<int64_t> pad = padding_idx;
  if (pad) {
    const int64_t rows = weight.dim() == 2 ? weight.size(0) : 0;
    EMBER_CHECK(*pad >= -rows && *pad < rows,
                "[embedding_bag] argument 'padding_idx': expected a value in [-{}, {}) (weight's rows), got {}", rows,
                rows, *pad);
    if (*pad < 0) *pad += rows;
  }
  return bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, pad);
}

}  // namespace ember::native
