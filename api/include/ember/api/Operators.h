#pragma once
// Arithmetic and comparison operators on tensors and scalars (LibTorch's spellings).
#include <functional>

#include "ember/generated/Functions.h"

namespace ember {

// LibTorch's TensorOperators.h: each binary operator for (Tensor, Tensor), (Tensor, Scalar) and
// (Scalar, Tensor). A Scalar on the left of a non-commutative operator fills a tensor like the right
// operand first (so `2.5 - int_tensor` keeps the integer dtype, as LibTorch's does).
#define EMBER_BINARY_OPERATOR(op, body, reverse_scalar_body)                   \
  inline Tensor operator op(const Tensor& x, const Tensor& y) { return body; } \
  inline Tensor operator op(const Tensor& x, const Scalar& y) { return body; } \
  inline Tensor operator op(const Scalar& x, const Tensor& y) { return reverse_scalar_body; }
EMBER_BINARY_OPERATOR(+, x.add(y), y.add(x))
EMBER_BINARY_OPERATOR(*, x.mul(y), y.mul(x))
EMBER_BINARY_OPERATOR(-, x.sub(y), empty_like(y, TensorOptions{}, MemoryFormat::Preserve).fill_(x).sub_(y))
EMBER_BINARY_OPERATOR(/, x.div(y), empty_like(y, TensorOptions{}, MemoryFormat::Preserve).fill_(x).div_(y))
EMBER_BINARY_OPERATOR(%, x.remainder(y), empty_like(y, TensorOptions{}, MemoryFormat::Preserve).fill_(x).remainder_(y))
EMBER_BINARY_OPERATOR(&, x.bitwise_and(y), y.bitwise_and(x))
EMBER_BINARY_OPERATOR(|, x.bitwise_or(y), y.bitwise_or(x))
EMBER_BINARY_OPERATOR(^, x.bitwise_xor(y), y.bitwise_xor(x))
EMBER_BINARY_OPERATOR(<, x.lt(y), y.gt(x))
EMBER_BINARY_OPERATOR(<=, x.le(y), y.ge(x))
EMBER_BINARY_OPERATOR(>, x.gt(y), y.lt(x))
EMBER_BINARY_OPERATOR(>=, x.ge(y), y.le(x))
EMBER_BINARY_OPERATOR(==, x.eq(y), y.eq(x))
EMBER_BINARY_OPERATOR(!=, x.ne(y), y.ne(x))
#undef EMBER_BINARY_OPERATOR

// TensorBody.h's unary and compound-assignment operators.
inline Tensor operator-(const Tensor& x) { return x.neg(); }
inline Tensor operator~(const Tensor& x) { return x.bitwise_not(); }
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
inline Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
inline Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }
inline Tensor& operator&=(Tensor& a, const Tensor& b) { return a.bitwise_and_(b); }
inline Tensor& operator&=(Tensor& a, const Scalar& b) { return a.bitwise_and_(b); }
inline Tensor& operator|=(Tensor& a, const Tensor& b) { return a.bitwise_or_(b); }
inline Tensor& operator|=(Tensor& a, const Scalar& b) { return a.bitwise_or_(b); }
inline Tensor& operator^=(Tensor& a, const Tensor& b) { return a.bitwise_xor_(b); }
inline Tensor& operator^=(Tensor& a, const Scalar& b) { return a.bitwise_xor_(b); }

// A tensor from (nested) braced lists: bool -> kBool, integers -> kInt64, floating -> the default
// dtype (API.md). Nested lists must be rectangular.
class EMBER_API TensorLiteral {
 public:
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  TensorLiteral(T v) : scalar_(v), is_scalar_(true) {}  // NOLINT
  TensorLiteral(std::initializer_list<TensorLiteral> l) : list_(l) {}  // NOLINT
  Tensor to_tensor(const TensorOptions& o) const;

 private:
  void collect(std::vector<int64_t>& shape, size_t depth, std::vector<Scalar>& flat) const;
  Scalar scalar_;
  bool is_scalar_ = false;
  std::vector<TensorLiteral> list_;
};

EMBER_API Tensor tensor(std::initializer_list<TensorLiteral> values, TensorOptions options = {});
// LibTorch's torch::tensor(value): a 0-dim tensor, its dtype by the rule of the braced lists.
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor tensor(T value, TensorOptions options = {}) {
  return TensorLiteral(value).to_tensor(options);
}
namespace detail {
// A 1-d copy of n values of dtype src: float/double give the default dtype, int/int64_t kInt64.
EMBER_API Tensor tensor_from_data(const void* data, int64_t n, ScalarType src, TensorOptions options);
}  // namespace detail
// LibTorch's torch::tensor(ArrayRef<T>) and torch::tensor(std::vector<T>): a 1-d copy.
template <class T, class = decltype(CppTypeToScalarType<T>::value)>
Tensor tensor(ArrayRef<T> values, TensorOptions options = {}) {
  return detail::tensor_from_data(values.data(), static_cast<int64_t>(values.size()), scalar_type_of<T>, options);
}
template <class T, class = decltype(CppTypeToScalarType<T>::value), std::enable_if_t<!std::is_same_v<T, bool>, int> = 0>
Tensor tensor(const std::vector<T>& values, TensorOptions options = {}) {
  return tensor(ArrayRef<T>(values), options);
}
// Wraps existing memory without copying; the caller keeps it alive (and owns it).
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {});
// Wraps existing memory and takes ownership: `deleter(data)` runs when the last tensor sharing the
// storage goes (LibTorch's spelling). If from_blob throws, the caller still owns `data`.
using Deleter = std::function<void(void*)>;
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, const Deleter& deleter, TensorOptions options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const Deleter& deleter,
                           TensorOptions options = {});

}  // namespace ember
