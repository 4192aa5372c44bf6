// embedding_bag: sums, means or maxima of weight's rows over bags of indices, with PyTorch's
// offsets, include_last_offset, per_sample_weights and padding_idx.
//
// The outputs are PyTorch's four: the bags, offset2bag (the bag of each index), bag_size (the
// indices each bag reduces, padding_idx left out) and max_indices (max mode: the weight row each
// maximum came from, 0 for an empty bag; zeros of shape (bags) otherwise). The bags are reduced
// with scatter_add (sum, mean) or max over a (bags, longest bag, dim) table (max), so autograd
// differentiates them; scale_grad_by_freq divides each row's gradient by its count in the batch.
#include <limits>

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
  const int64_t n = indices.numel(), rows_n = weight.size(0), D = weight.size(1);
  const int64_t B = include_last_offset ? offsets.numel() - 1 : offsets.numel();
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
  const TensorOptions i64 = TensorOptions(kInt64).device(weight.device());
  // offset2bag[i]: the number of bag starts after the first at or before i.
  const Tensor starts = off.slice(0, 1, B > 0 ? B : 1).clamp(0, n);
  const Tensor offset2bag = zeros({n + 1}, i64).scatter_add(0, starts, ones_like(starts)).cumsum(0).slice(0, 0, n);
  const Tensor keep = padding_idx ? idx.ne(*padding_idx) : ones({n}, i64.dtype(kBool));
  const Tensor bag_size = zeros({B}, i64).scatter_add(0, offset2bag, keep.to(kInt64));

  Tensor rows = weight.index_select(0, idx);  // (n, D)
  if (scale_grad_by_freq) {
    // The value stays rows; the gradient reaching each row is divided by its index's count.
    const Tensor counts = zeros({rows_n}, i64).scatter_add(0, idx, ones_like(idx)).index_select(0, idx);
    const Tensor scale = counts.to(weight.dtype()).pow(-1).unsqueeze(1);
    rows = rows.detach() + (rows - rows.detach()) * scale;
  }
  if (weighted) rows = rows * per_sample_weights->unsqueeze(1);
  const Tensor keep2 = keep.unsqueeze(1);

  if (mode != kMax) {
    if (padding_idx) rows = where(keep2, rows, nnutil::scalar_like(rows, 0.0));
    Tensor out = zeros({B, D}, weight.options()).scatter_add(0, offset2bag.unsqueeze(1).expand({n, D}), rows);
    if (mode == kMean) out = out / bag_size.clamp(1).to(weight.dtype()).unsqueeze(1);
    return {out, offset2bag, bag_size, zeros({B}, i64)};
  }
  if (B == 0 || n == 0) return {zeros({B, D}, weight.options()), offset2bag, bag_size, zeros({B, D}, i64)};
  EMBER_CHECK_NOT_IMPLEMENTED(
      has_values(off), "[{}] mode 2 (max) needs the bag sizes, which a tensor on {} does not hold", op, off.device());
  // A (bags, longest bag, D) table of the rows, -inf where a bag is shorter or an index is padding.
  const Tensor bag_start = off.slice(0, 0, B);
  const Tensor pos = arange(n, i64) - bag_start.index_select(0, offset2bag);
  const int64_t longest = zeros({B}, i64).scatter_add(0, offset2bag, ones_like(offset2bag)).max().item<int64_t>();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor table = full({B, longest, D}, -inf, weight.options())
                           .index_put({offset2bag, pos}, where(keep2, rows, nnutil::scalar_like(rows, -inf)));
  const auto [vals, arg] = table.max(1);
  const Tensor filled = bag_size.gt(0).unsqueeze(1);
  const Tensor out = where(filled, vals, nnutil::scalar_like(vals, 0.0));
  const Tensor at = (bag_start.unsqueeze(1) + arg).clamp(0, n - 1);
  const Tensor max_indices = where(filled, idx.index_select(0, at.flatten()).view({B, D}), zeros({}, i64));
  return {out, offset2bag, bag_size, max_indices};
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
