#include "ember/data/Transforms.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "Random.h"
#include "ember/api/Operators.h"
#include "ember/core/Exception.h"

namespace ember::data::transforms {

std::array<uint32_t, 4> TransformContext::block(size_t row) const {
  EMBER_CHECK_INDEX(row < indices.size(), "[TransformContext] row {} is out of range for a batch of {} samples", row,
                    indices.size());
  return data::detail::random_block(seed, stream, epoch, static_cast<uint64_t>(indices[row]));
}

double TransformContext::uniform(size_t row) const {
  const auto b = block(row);
  return data::detail::uniform_double(b[1], b[0]);
}

TransformContext TransformContext::child(size_t k) const {
  TransformContext c = *this;
  // Distinct for distinct (stream, k) paths in practice: a multiplicative hash then the position.
  c.stream = stream * 0x9E3779B97F4A7C15ull + k + 1;
  return c;
}

TransformImpl::~TransformImpl() = default;

Transform::Transform(std::shared_ptr<const TransformImpl> impl) : impl_(std::move(impl)) {}

Tensor Transform::operator()(const Tensor& batch, const TransformContext& ctx) const {
  EMBER_CHECK(impl_ != nullptr, "[Transform] cannot apply an empty transform handle");
  EMBER_CHECK(batch.defined(), "[Transform] batch: expected a defined tensor");
  EMBER_CHECK(batch.dim() >= 1 && batch.size(0) == static_cast<int64_t>(ctx.indices.size()),
              "[Transform] batch: expected {} rows (one per sample index in the context), got shape {}",
              ctx.indices.size(), batch.sizes());
  return impl_->apply(batch, ctx);
}

namespace {

// ---- Normalize ----

class NormalizeImpl final : public TransformImpl {
 public:
  NormalizeImpl(std::vector<double> mean, std::vector<double> std) : mean_(std::move(mean)), std_(std::move(std)) {
    EMBER_CHECK(!mean_.empty(), "[Normalize] mean: expected at least one value, got none");
    EMBER_CHECK(mean_.size() == std_.size(), "[Normalize] std: expected {} values (one per mean), got {}", mean_.size(),
                std_.size());
    for (size_t c = 0; c < std_.size(); ++c)
      EMBER_CHECK(std_[c] != 0 && std::isfinite(std_[c]),
                  "[Normalize] std: expected finite non-zero values, got {} for channel {}", std_[c], c);
  }

  Tensor apply(const Tensor& batch, const TransformContext& /*ctx*/) const override {
    EMBER_CHECK_TYPE(batch.is_floating_point(), "[Normalize] batch: expected a floating dtype, got {}",
                     batch.scalar_type());
    if (mean_.size() == 1) return (batch - mean_[0]) / std_[0];
    const auto c = static_cast<int64_t>(mean_.size());
    EMBER_CHECK(batch.dim() >= 4 && batch.size(-3) == c,
                "[Normalize] batch: expected shape [B, ..., C, H, W] with C = {} channels, got {}", c, batch.sizes());
    auto per_channel = [&](const std::vector<double>& v) {
      return from_blob(const_cast<double*>(v.data()), {c, 1, 1}, kFloat64).to(batch.device(), batch.scalar_type());
    };
    return (batch - per_channel(mean_)) / per_channel(std_);
  }

 private:
  std::vector<double> mean_, std_;
};

// ---- RandomCrop ----

class RandomCropImpl final : public TransformImpl {
 public:
  RandomCropImpl(std::array<int64_t, 2> size, int64_t padding) : size_(size), padding_(padding) {
    EMBER_CHECK(size_[0] > 0 && size_[1] > 0, "[RandomCrop] size: expected positive sizes, got [{}, {}]", size_[0],
                size_[1]);
    EMBER_CHECK(padding_ >= 0, "[RandomCrop] padding: expected a non-negative value, got {}", padding_);
  }

  Tensor apply(const Tensor& batch, const TransformContext& ctx) const override {
    EMBER_CHECK(batch.dim() >= 3, "[RandomCrop] batch: expected shape [B, ..., H, W], got {}", batch.sizes());
    const int64_t H = batch.size(-2), W = batch.size(-1), h = size_[0], w = size_[1], p = padding_;
    EMBER_CHECK(h <= H + 2 * p && w <= W + 2 * p,
                "[RandomCrop] batch: crop size [{}, {}] is larger than the padded sample [{}, {}] (padding {})", h, w,
                H + 2 * p, W + 2 * p, p);
    std::vector<int64_t> out_shape(batch.sizes().begin(), batch.sizes().end());
    out_shape[out_shape.size() - 2] = h;
    out_shape[out_shape.size() - 1] = w;
    Tensor out = zeros(out_shape, batch.options());
    const bool raw = batch.device().type() == kCPU && batch.is_contiguous();
    const Tensor src = batch;
    for (int64_t b = 0; b < batch.size(0); ++b) {
      const auto blk = ctx.block(static_cast<size_t>(b));
      // The window's top-left corner in unpadded coordinates.
      const int64_t top = static_cast<int64_t>(data::detail::uniform_below(blk[1], blk[0], H + 2 * p - h + 1)) - p;
      const int64_t left = static_cast<int64_t>(data::detail::uniform_below(blk[3], blk[2], W + 2 * p - w + 1)) - p;
      const int64_t r0 = std::max<int64_t>(top, 0), r1 = std::min(top + h, H);
      const int64_t c0 = std::max<int64_t>(left, 0), c1 = std::min(left + w, W);
      if (r1 <= r0 || c1 <= c0) continue;  // the window lies in the padding
      if (raw) {
        copy_window_raw(src, out, b, r0, r1, c0, c1, top, left);
      } else {
        out.select(0, b)
            .narrow(-2, r0 - top, r1 - r0)
            .narrow(-1, c0 - left, c1 - c0)
            .copy_(src.select(0, b).narrow(-2, r0, r1 - r0).narrow(-1, c0, c1 - c0));
      }
    }
    return out;
  }

 private:
  // The same copy as the narrow/copy_ path, as memcpy of rows (contiguous CPU tensors).
  void copy_window_raw(const Tensor& src, Tensor& out, int64_t b, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                       int64_t top, int64_t left) const {
    const int64_t H = src.size(-2), W = src.size(-1), h = size_[0], w = size_[1];
    const auto item = static_cast<int64_t>(src.element_size());
    const int64_t planes = src.numel() / (src.size(0) * H * W);
    const auto* in = static_cast<const char*>(src.data_ptr()) + b * planes * H * W * item;
    auto* dst = static_cast<char*>(out.data_ptr()) + b * planes * h * w * item;
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t r = r0; r < r1; ++r)
        std::memcpy(dst + ((pl * h + (r - top)) * w + (c0 - left)) * item, in + ((pl * H + r) * W + c0) * item,
                    static_cast<size_t>((c1 - c0) * item));
  }

  std::array<int64_t, 2> size_;
  int64_t padding_;
};

// ---- RandomHorizontalFlip ----

class RandomHorizontalFlipImpl final : public TransformImpl {
 public:
  explicit RandomHorizontalFlipImpl(double p) : p_(p) {
    EMBER_CHECK(p_ >= 0 && p_ <= 1, "[RandomHorizontalFlip] p: expected a probability in [0, 1], got {}", p_);
  }

  Tensor apply(const Tensor& batch, const TransformContext& ctx) const override {
    EMBER_CHECK(batch.dim() >= 2, "[RandomHorizontalFlip] batch: expected shape [B, ..., W], got {}", batch.sizes());
    const int64_t n = batch.size(0);
    std::vector<uint8_t> flip(static_cast<size_t>(n));
    int64_t flips = 0;
    for (int64_t b = 0; b < n; ++b) {
      flip[b] = ctx.uniform(static_cast<size_t>(b)) < p_;
      flips += flip[b];
    }
    if (flips == 0) return batch;
    if (flips == n) return batch.flip({-1});
    std::vector<int64_t> mask_shape(static_cast<size_t>(batch.dim()), 1);
    mask_shape[0] = n;
    const Tensor mask = from_blob(flip.data(), mask_shape, kBool).to(batch.device());
    return where(mask, batch.flip({-1}), batch);
  }

 private:
  double p_;
};

// ---- Compose, Lambda ----

class ComposeImpl final : public TransformImpl {
 public:
  explicit ComposeImpl(std::vector<Transform> ts) : ts_(std::move(ts)) {
    for (size_t k = 0; k < ts_.size(); ++k)
      EMBER_CHECK(ts_[k].defined(), "[Compose] transforms: expected defined transforms, got an empty one at {}", k);
  }
  Tensor apply(const Tensor& batch, const TransformContext& ctx) const override {
    Tensor x = batch;
    for (size_t k = 0; k < ts_.size(); ++k) x = ts_[k](x, ctx.child(k));
    return x;
  }

 private:
  std::vector<Transform> ts_;
};

class LambdaImpl final : public TransformImpl {
 public:
  using Fn = std::function<Tensor(const Tensor&, const TransformContext&)>;
  explicit LambdaImpl(Fn fn) : fn_(std::move(fn)) {
    EMBER_CHECK(static_cast<bool>(fn_), "[Lambda] fn: expected a callable, got an empty function");
  }
  Tensor apply(const Tensor& batch, const TransformContext& ctx) const override {
    Tensor out = fn_(batch, ctx);
    EMBER_CHECK(out.defined(), "[Lambda] the function returned an undefined tensor");
    return out;
  }

 private:
  Fn fn_;
};

}  // namespace

Normalize::Normalize(double mean, double std)
    : Transform(std::make_shared<NormalizeImpl>(std::vector<double>{mean}, std::vector<double>{std})) {}
Normalize::Normalize(std::vector<double> mean, std::vector<double> std)
    : Transform(std::make_shared<NormalizeImpl>(std::move(mean), std::move(std))) {}

RandomCrop::RandomCrop(int64_t size, int64_t padding) : RandomCrop(std::array<int64_t, 2>{size, size}, padding) {}
RandomCrop::RandomCrop(std::array<int64_t, 2> size, int64_t padding)
    : Transform(std::make_shared<RandomCropImpl>(size, padding)) {}

RandomHorizontalFlip::RandomHorizontalFlip(double p) : Transform(std::make_shared<RandomHorizontalFlipImpl>(p)) {}

Compose::Compose(std::initializer_list<Transform> transforms) : Compose(std::vector<Transform>(transforms)) {}
Compose::Compose(std::vector<Transform> transforms) : Transform(std::make_shared<ComposeImpl>(std::move(transforms))) {}

Lambda::Lambda(std::function<Tensor(const Tensor&)> fn)
    : Transform(std::make_shared<LambdaImpl>(
          fn ? LambdaImpl::Fn([fn = std::move(fn)](const Tensor& x, const TransformContext&) { return fn(x); })
             : LambdaImpl::Fn())) {}
Lambda::Lambda(std::function<Tensor(const Tensor&, const TransformContext&)> fn)
    : Transform(std::make_shared<LambdaImpl>(std::move(fn))) {}

}  // namespace ember::data::transforms
