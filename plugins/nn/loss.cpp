// The loss functions: cross_entropy_loss, the nll_loss family, mse, l1, smooth l1, huber, binary
// cross entropy (with logits), kl_div. Values follow LibTorch 1.13; each is written with other
// operators only, so autograd differentiates it and any backend runs it.
#include "NNUtil.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {
namespace {

using namespace nnutil;

// The class dimension: 0 for an unbatched (C) input, else 1.
int64_t class_dim(const Tensor& self) { return self.dim() == 1 ? 0 : 1; }

// weight broadcast against self: C along the class dimension, 1 elsewhere.
Tensor class_weight_view(const Tensor& weight, const Tensor& self) {
  std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
  shape[static_cast<size_t>(class_dim(self))] = weight.numel();
  return weight.view(shape);
}

// A per-class weight: absent, or 1-D with one value per class in self's dtype.
bool check_class_weight(const char* op, const std::optional<Tensor>& weight, const Tensor& self, int64_t n_classes) {
  if (!weight || !weight->defined()) return false;
  EMBER_CHECK(weight->dim() == 1 && weight->numel() == n_classes,
              "[{}] argument 'weight': expected a 1-D tensor of {} elements (one per class), got shape {}", op,
              n_classes, weight->sizes());
  EMBER_CHECK_TYPE(weight->dtype() == self.dtype(), "[{}] argument 'weight': expected dtype {} (self's), got {}", op,
                   self.dtype(), weight->dtype());
  return true;
}

// The shared body of the nll_loss family, on a (C) self with a 0-dim target or an (N, C, d...)
// self with an (N, d...) target (shapes checked by the callers): -self at each target class,
// times the class's weight; targets equal to ignore_index contribute 0 and no weight.
// Note [nll_loss mean]: as PyTorch, mean divides by the summed weights of the non-ignored targets
// (their count without weights), so a batch whose every target is ignored gives NaN (0 / 0).
Tensor nll(const char* op, const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
           int64_t reduction, int64_t ignore_index) {
  check_reduction(op, reduction);
  check_floating(op, self, "self");
  EMBER_CHECK_TYPE(target.dtype() == kInt64,
                   "[{}] argument 'target': expected an int64 tensor of class indices, got {}", op, target.dtype());
  const int64_t cdim = class_dim(self), n_classes = self.size(cdim);
  const bool weighted = check_class_weight(op, weight, self, n_classes);
  const Tensor keep = target.ne(ignore_index);
  const Tensor safe = target.masked_fill(keep.logical_not(), 0);  // ignored targets read class 0
  if (has_values(target) && target.numel() > 0) {
    const Tensor bad = safe.lt(0).logical_or(safe.ge(n_classes));
    if (bad.any().item<bool>()) {
      const int64_t t = safe.masked_select(bad).flatten().select(0, 0).item<int64_t>();
      EMBER_THROW(IndexError, "[{}] target {} is out of bounds: expected a class index in [0, {}) or ignore_index ({})",
                  op, t, n_classes, ignore_index);
    }
  }
  const Tensor picked = self.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim).neg();
  Tensor w = keep.to(self.dtype());
  if (weighted) w = weight->index_select(0, safe.flatten()).view(safe.sizes()) * w;
  // where, not a product with 0: an ignored position's -inf log-probability must not give NaN.
  const Tensor loss = where(keep, picked * w, scalar_like(self, 0.0));
  if (reduction == Reduction::None) return loss;
  if (reduction == Reduction::Sum) return loss.sum();
  return loss.sum() / w.sum();
}

// nll_loss_nd's shape rules (PyTorch's): self (C) with target (), or (N, C, d...) with (N, d...).
void check_nll_nd_shapes(const char* op, const Tensor& self, const Tensor& target) {
  EMBER_CHECK(self.dim() >= 1, "[{}] argument 'self': expected 1 or more dimensions, got {}", op, self.dim());
  if (self.dim() == 1) {
    EMBER_CHECK(target.dim() == 0,
                "[{}] expected a 0-dim target (a class index) for an unbatched (C) input {}, got target shape {}", op,
                self.sizes(), target.sizes());
    return;
  }
  EMBER_CHECK(target.dim() >= 1 && self.size(0) == target.size(0),
              "[{}] expected input batch_size ({}) to match target batch_size ({})", op, self.size(0),
              target.dim() >= 1 ? std::to_string(target.size(0)) : "a 0-dim target");
  std::vector<int64_t> want{self.size(0)};
  for (int64_t d = 2; d < self.dim(); ++d) want.push_back(self.size(d));
  EMBER_CHECK(target.sizes() == IntArrayRef(want), "[{}] expected target size {} for input {}, got {}", op,
              IntArrayRef(want), self.sizes(), target.sizes());
}

void check_label_smoothing(const char* op, double label_smoothing) {
  EMBER_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
              "[{}] argument 'label_smoothing': expected a value between 0.0 and 1.0, got {}", op, label_smoothing);
}

// cross entropy with class probabilities as targets (target has self's shape).
Tensor cross_entropy_probs(const char* op, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                           double label_smoothing) {
  EMBER_CHECK_TYPE(target.is_floating_point(),
                   "[{}] argument 'target': expected a floating point tensor of class probabilities (target has "
                   "self's shape {}), got {}",
                   op, self.sizes(), target.dtype());
  EMBER_CHECK(ignore_index < 0,
              "[{}] argument 'ignore_index': not supported with class probabilities as targets, got {} (leave it "
              "at -100)",
              op, ignore_index);
  const int64_t cdim = class_dim(self), n_classes = self.size(cdim);
  const bool weighted = check_class_weight(op, weight, self, n_classes);
  const Tensor logp = log_softmax(self, cdim, self.scalar_type());
  const Tensor t = label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / n_classes : target;
  Tensor prod = logp * t;
  if (weighted) prod = prod * class_weight_view(*weight, self);
  if (reduction == Reduction::None) return prod.sum({cdim}).neg();
  const Tensor total = prod.sum().neg();
  if (reduction == Reduction::Sum) return total;
  // mean over the positions (every element but the class dimension); empty gives NaN, as PyTorch
  const double positions = n_classes > 0 ? static_cast<double>(self.numel() / n_classes) : 0.0;
  return total / positions;
}

// cross entropy with class indices and label smoothing: (1 - ls) * nll + ls / C * smooth, where
// smooth is the (weighted) sum of -log-probabilities over the classes, reduced as nll is.
Tensor cross_entropy_smoothed(const char* op, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                              double label_smoothing) {
  const int64_t cdim = class_dim(self), n_classes = self.size(cdim);
  const Tensor logp = log_softmax(self, cdim, self.scalar_type());
  const Tensor nll_loss = nll(op, logp, target, weight, reduction, ignore_index);  // checks weight and target
  const bool weighted = weight && weight->defined();
  const Tensor keep = target.ne(ignore_index);
  Tensor smooth = (weighted ? logp * class_weight_view(*weight, self) : logp).sum({cdim}).neg();
  smooth = where(keep, smooth, scalar_like(smooth, 0.0));
  Tensor reduced = smooth;
  if (reduction == Reduction::Sum) {
    reduced = smooth.sum();
  } else if (reduction == Reduction::Mean) {
    Tensor denom = keep.to(self.dtype());
    if (weighted)
      denom = weight->index_select(0, target.masked_fill(keep.logical_not(), 0).flatten()).view(target.sizes()) * denom;
    reduced = smooth.sum() / denom.sum();
  }
  return nll_loss * (1 - label_smoothing) + reduced * (label_smoothing / static_cast<double>(n_classes));
}

}  // namespace

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  const char* op = "cross_entropy_loss";
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  check_reduction(op, reduction);
  check_floating(op, self, "self");
  check_label_smoothing(op, label_smoothing);
  EMBER_CHECK(self.dim() >= 1, "[{}] argument 'self': expected 1 or more dimensions, got {}", op, self.dim());
  if (self.sizes() == target.sizes())
    return cross_entropy_probs(op, self, target, weight, reduction, ignore_index, label_smoothing);
  check_nll_nd_shapes(op, self, target);
  if (label_smoothing > 0)
    return cross_entropy_smoothed(op, self, target, weight, reduction, ignore_index, label_smoothing);
  return nll(op, log_softmax(self, class_dim(self), self.scalar_type()), target, weight, reduction, ignore_index);
}

Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                   int64_t ignore_index) {
  const char* op = "nll_loss_nd";
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  check_nll_nd_shapes(op, self, target);
  return nll(op, self, target, weight, reduction, ignore_index);
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  const char* op = "nll_loss";
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2,
              "[{}] argument 'self': expected a 1-D (C) or 2-D (N, C) tensor, got shape {} (nll_loss_nd takes more "
              "dimensions)",
              op, self.sizes());
  EMBER_CHECK(target.dim() <= 1, "[{}] argument 'target': expected a 0-D or 1-D tensor of class indices, got shape {}",
              op, target.sizes());
  check_nll_nd_shapes(op, self, target);
  return nll(op, self, target, weight, reduction, ignore_index);
}

Tensor nll_loss2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                  int64_t ignore_index) {
  const char* op = "nll_loss2d";
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  EMBER_CHECK(self.dim() == 4, "[{}] argument 'self': expected a 4-D (N, C, H, W) tensor, got shape {}", op,
              self.sizes());
  EMBER_CHECK(target.dim() == 3, "[{}] argument 'target': expected a 3-D (N, H, W) tensor, got shape {}", op,
              target.sizes());
  check_nll_nd_shapes(op, self, target);
  return nll(op, self, target, weight, reduction, ignore_index);
}

namespace {

// self - target for the regression losses: broadcast, floating.
Tensor difference(const char* op, const Tensor& self, const Tensor& target, int64_t reduction) {
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  check_reduction(op, reduction);
  check_floating(op, self, "self");
  check_floating(op, target, "target");
  return self - target;
}

}  // namespace

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  const Tensor d = difference("mse_loss", self, target, reduction);
  return reduce(d * d, reduction);
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return reduce(difference("l1_loss", self, target, reduction).abs(), reduction);
}

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  const char* op = "smooth_l1_loss";
  EMBER_CHECK(beta >= 0, "[{}] argument 'beta': expected a non-negative value, got {}", op, beta);
  const Tensor d = difference(op, self, target, reduction), ad = d.abs();
  if (beta == 0) return reduce(ad, reduction);
  return reduce(where(ad.lt(beta), d * d * (0.5 / beta), ad - 0.5 * beta), reduction);
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  const char* op = "huber_loss";
  EMBER_CHECK(delta > 0, "[{}] argument 'delta': expected a positive value, got {}", op, delta);
  const Tensor d = difference(op, self, target, reduction), ad = d.abs();
  return reduce(where(ad.lt(delta), d * d * 0.5, (ad - 0.5 * delta) * delta), reduction);
}

namespace {

// max(log(x), -100) with a finite gradient everywhere: 0 where the clamp applies (x <= e^-100,
// x = 0 included; plain clamp(log(x)) would give 0 * inf = NaN there).
Tensor clamped_log(const Tensor& x) {
  const double floor = -100.0;
  const Tensor inside = x.gt(std::exp(floor));
  const Tensor safe = where(inside, x, scalar_like(x, 1.0));
  return where(inside, safe.log(), scalar_like(x, floor));
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  const char* op = "binary_cross_entropy";
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  check_reduction(op, reduction);
  check_floating(op, self, "self");
  check_floating(op, target, "target");
  if (has_values(self) && self.numel() > 0) {
    NoGradGuard no_grad;
    EMBER_CHECK(!self.lt(0).logical_or(self.gt(1)).any().item<bool>(),
                "[{}] argument 'self': expected every element between 0 and 1 (probabilities)", op);
  }
  // PyTorch's (t - 1) max(log(1 - x), -100) - t max(log(x), -100).
  Tensor loss = (target - 1) * clamped_log(1 - self) - target * clamped_log(self);
  if (weight && weight->defined()) loss = loss * *weight;
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  check_reduction(op, reduction);
  check_floating(op, self, "self");
  check_floating(op, target, "target");
  // PyTorch 1.13's stable form: log(1 + e^-x) = m + log(e^-m + e^(-x-m)) with m = max(-x, 0).
  const Tensor m = self.neg().clamp(0);
  const Tensor softplus_neg = (m.neg().exp() + (self.neg() - m).exp()).log() + m;
  Tensor loss;
  if (pos_weight && pos_weight->defined()) {
    const Tensor log_weight = (*pos_weight - 1) * target + 1;
    loss = (1 - target) * self + log_weight * softplus_neg;
  } else {
    loss = (1 - target) * self + softplus_neg;
  }
  if (weight && weight->defined()) loss = loss * *weight;
  return reduce(loss, reduction);
}

Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  const char* op = "kl_div";
  check_defined(op, self, "self");
  check_defined(op, target, "target");
  check_reduction(op, reduction);
  check_floating(op, self, "self");
  check_floating(op, target, "target");
  Tensor out;
  if (log_target) {
    out = target.exp() * (target - self);
  } else {
    // xlogy(t, t) - t * self: 0 where t is 0 (log of 1 there keeps the gradient finite).
    const Tensor safe = where(target.eq(0), scalar_like(target, 1.0), target);
    out = target * safe.log() - target * self;
  }
  return reduce(out, reduction);
}

}  // namespace ember::native

namespace ember::native {

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, int64_t reduction) {
  const char* op = "triplet_margin_loss";
  check_defined(op, anchor, "anchor");
  check_defined(op, positive, "positive");
  check_defined(op, negative, "negative");
  nnutil::check_reduction(op, reduction);
  EMBER_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
              "[{}] expected anchor, positive and negative to have the same number of dimensions, got {}-D, {}-D and "
              "{}-D",
              op, anchor.dim(), positive.dim(), negative.dim());
  const Tensor d_pos = ember::pairwise_distance(anchor, positive, p, eps);
  Tensor d_neg = ember::pairwise_distance(anchor, negative, p, eps);
  if (swap) {
    const Tensor d_swap = ember::pairwise_distance(positive, negative, p, eps);
    d_neg = where(d_swap.lt(d_neg), d_swap, d_neg);
  }
  return nnutil::reduce((d_pos - d_neg + margin).clamp(0), reduction);
}

}  // namespace ember::native
