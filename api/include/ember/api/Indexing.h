#pragma once
// Python-style indexing from C++: x.index({Slice(1, None), 0, "..."}) and x.index_put_({...}, v)
// (LibTorch's torch::indexing spellings).
//
// Note [Indexing lowering]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Tensor::index walks the indices left to right over a running view, as PyTorch's
// applySlicing does: an integer selects (the dim goes away), a Slice slices, None unsqueezes,
// Ellipsis skips the dims no other index consumes. These are views of self's storage. A Tensor
// index (and a bool, which becomes a 0- or 1-element index over a new size-1 dim) is recorded
// at its position in the running view; when any was recorded the view goes through aten::index
// (a copy), where bool/uint8 masks become their nonzero() columns. A 0-dim integer tensor acts
// as an integer. index_put_ lowers the same way and ends in copy_ (basic indices only) or
// aten::index_put_ on the view, so both write into self.
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "ember/dispatcher/Tensor.h"

namespace ember::indexing {

struct EllipsisIndexType {
  EllipsisIndexType() = default;
};
inline constexpr EllipsisIndexType Ellipsis{};
// `None` is std::nullopt, so it also fills Slice's optional bounds.
inline constexpr std::nullopt_t None = std::nullopt;

class EMBER_API Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt);
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

enum class TensorIndexType : uint8_t { None, Ellipsis, Integer, Boolean, Slice, Tensor };

class EMBER_API TensorIndex {
 public:
  TensorIndex(std::nullopt_t) : type_(TensorIndexType::None) {}         // NOLINT
  TensorIndex(EllipsisIndexType) : type_(TensorIndexType::Ellipsis) {}  // NOLINT
  TensorIndex(const char* s);                                           // NOLINT: "..." only
  // Any integer type (int, int64_t, size_t, ...); bool is its own kind of index.
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T i) : type_(TensorIndexType::Integer), integer_(static_cast<int64_t>(i)) {}  // NOLINT
  TensorIndex(bool b) : type_(TensorIndexType::Boolean), boolean_(b) {}                     // NOLINT
  TensorIndex(Slice s) : type_(TensorIndexType::Slice), slice_(s) {}                        // NOLINT
  TensorIndex(Tensor t) : type_(TensorIndexType::Tensor), tensor_(std::move(t)) {}          // NOLINT

  TensorIndexType type() const { return type_; }
  bool is_none() const { return type_ == TensorIndexType::None; }
  bool is_ellipsis() const { return type_ == TensorIndexType::Ellipsis; }
  bool is_integer() const { return type_ == TensorIndexType::Integer; }
  bool is_boolean() const { return type_ == TensorIndexType::Boolean; }
  bool is_slice() const { return type_ == TensorIndexType::Slice; }
  bool is_tensor() const { return type_ == TensorIndexType::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  TensorIndexType type_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

EMBER_API std::ostream& operator<<(std::ostream& os, const Slice& s);
EMBER_API std::ostream& operator<<(std::ostream& os, const TensorIndex& i);

}  // namespace ember::indexing
