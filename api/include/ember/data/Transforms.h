#pragma once
// Transforms a DataLoader applies to each batch: Normalize, RandomCrop, RandomHorizontalFlip,
// Compose, Lambda.
//
// Note [Data randomness]
// ~~~~~~~~~~~~~~~~~~~~~~
// Every random choice the data pipeline makes is a pure function of the loader's seed, the epoch
// and a position, never of a generator's running state, so that any worker count, prefetch depth
// or thread schedule gives the same batches, and a run resumed at epoch e sees the batches of an
// uninterrupted run:
// - the epoch's order of samples is a Fisher-Yates shuffle whose step k draws from the Philox
//   block at (seed, epoch, k) (stream 0);
// - a random transform draws, for the batch row holding dataset sample i, from the Philox block at
//   (seed, epoch, i) on its own stream (Compose gives its k-th transform a stream derived from
//   its own), so a sample is cropped or flipped the same way whatever batch it lands in.
// Transforms work on whole batches (vectorised: one flip and one where for a batch's flips) and
// give exactly what applying them to each sample alone would (a batch of one, then stacked).
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "ember/dispatcher/Tensor.h"

namespace ember::data {

namespace transforms {

// What a transform's random draws may depend on (Note [Data randomness]).
struct EMBER_API TransformContext {
  uint64_t seed = 0;
  uint64_t epoch = 0;
  uint64_t stream = 1;           // Compose gives each of its transforms its own
  std::vector<int64_t> indices;  // the dataset index of each row of the batch

  // The random block of the batch's `row`.
  std::array<uint32_t, 4> block(size_t row) const;
  // A uniform double in [0, 1) for `row`.
  double uniform(size_t row) const;
  // The context of the k-th transform of a Compose.
  TransformContext child(size_t k) const;
};

// A transform of a batch (its rows are samples). Subclass it for a custom transform, or use
// Lambda.
class EMBER_API TransformImpl {
 public:
  virtual ~TransformImpl();
  virtual Tensor apply(const Tensor& batch, const TransformContext& ctx) const = 0;
};

// A shared handle to a TransformImpl, what DataLoaderOptions::transform takes; the classes below
// are handles to the built-in transforms. Copies share the transform.
class EMBER_API Transform {
 public:
  Transform() = default;
  explicit Transform(std::shared_ptr<const TransformImpl> impl);
  // The transformed batch. Throws ValueError for an empty handle.
  Tensor operator()(const Tensor& batch, const TransformContext& ctx) const;
  bool defined() const { return impl_ != nullptr; }
  const std::shared_ptr<const TransformImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const TransformImpl> impl_;
};

// (x - mean[c]) / std[c] over the channel dim -3 of a floating batch [B, ..., C, H, W]; one mean
// and one std apply to every element (any shape). LibTorch's and torchvision's Normalize.
class EMBER_API Normalize : public Transform {
 public:
  Normalize(double mean, double std);
  Normalize(std::vector<double> mean, std::vector<double> std);
};

// A size[0] x size[1] window of each sample ([B, ..., H, W]) at a random position of the sample
// padded with `padding` zeros on each side (torchvision's RandomCrop(size, padding)).
class EMBER_API RandomCrop : public Transform {
 public:
  explicit RandomCrop(int64_t size, int64_t padding = 0);
  explicit RandomCrop(std::array<int64_t, 2> size, int64_t padding = 0);
};

// Each sample ([B, ..., W]) mirrored along its last dim with probability p.
class EMBER_API RandomHorizontalFlip : public Transform {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
};

// The transforms in order; the k-th draws from its own stream.
class EMBER_API Compose : public Transform {
 public:
  Compose(std::initializer_list<Transform> transforms);
  explicit Compose(std::vector<Transform> transforms);
};

// A user function of the batch, with or without the context for seeded draws.
class EMBER_API Lambda : public Transform {
 public:
  explicit Lambda(std::function<Tensor(const Tensor&)> fn);
  explicit Lambda(std::function<Tensor(const Tensor&, const TransformContext&)> fn);
};

}  // namespace transforms
}  // namespace ember::data
