#pragma once
// Note [OptionalIntArrayRef]
// The C++ type of an optional dims parameter (`int[1]? dim`) in the public API, as LibTorch's
// c10::OptionalIntArrayRef: `x.var({0, 2})`, `x.var({1}, false, true)`, `x.sum(dims_vector)`,
// `x.var(std::nullopt)` all compile. std::optional<IntArrayRef> does not do: a braced list of two
// does not convert to it at all, and `{1}` (or `1`) is converted to int64_t inside optional's
// constructor, so the IntArrayRef points at a temporary that is gone before the call runs.
// Here every constructor takes what it points at by reference from the caller, so what a braced
// list, an int or a temporary vector converts to is a temporary of the caller's full-expression
// and outlives the call. Like IntArrayRef, it is for parameters only: never keep one past the call.
// Kernels keep taking std::optional<IntArrayRef> (the schema's mapping); the conversion is implicit.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/core/ArrayRef.h"

namespace ember {

class OptionalIntArrayRef {
 public:
  constexpr OptionalIntArrayRef() noexcept = default;
  constexpr OptionalIntArrayRef(std::nullopt_t) noexcept {}         // NOLINT: implicit by design
  constexpr OptionalIntArrayRef(IntArrayRef v) noexcept : v_(v) {}  // NOLINT
  // One dim: the int64_t (an int argument converts to it in the caller's full-expression).
  constexpr OptionalIntArrayRef(const int64_t& one) noexcept : v_(IntArrayRef(one)) {}  // NOLINT
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // The list's array lives as long as the caller's full-expression: fine for arguments.
  constexpr OptionalIntArrayRef(const std::initializer_list<int64_t>& l) noexcept  // NOLINT
      : v_(IntArrayRef(l)) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  // std::vector, std::array, SmallVector, ...: anything (but a number) that converts to IntArrayRef.
  template <class C, std::enable_if_t<!std::is_arithmetic_v<C> && std::is_convertible_v<const C&, IntArrayRef> &&
                                          !std::is_same_v<C, IntArrayRef>,
                                      int> = 0>
  constexpr OptionalIntArrayRef(const C& c) : v_(IntArrayRef(c)) {}                       // NOLINT
  constexpr OptionalIntArrayRef(const std::optional<IntArrayRef>& v) noexcept : v_(v) {}  // NOLINT

  constexpr bool has_value() const noexcept { return v_.has_value(); }
  constexpr explicit operator bool() const noexcept { return v_.has_value(); }
  constexpr IntArrayRef value() const { return v_.value(); }
  constexpr IntArrayRef operator*() const { return *v_; }
  constexpr const IntArrayRef* operator->() const { return &*v_; }
  constexpr IntArrayRef value_or(IntArrayRef other) const { return v_.value_or(other); }
  constexpr operator std::optional<IntArrayRef>() const noexcept { return v_; }  // NOLINT

 private:
  std::optional<IntArrayRef> v_;
};

}  // namespace ember
