#pragma once
// Arithmetic and comparison operators on tensors and scalars (LibTorch's spellings).
#include <functional>

#include "ember/generated/Functions.h"

namespace ember {

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return add(mul(b, -1), a); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
inline Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
inline Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
inline Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
inline Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
inline Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
inline Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
inline Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

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
