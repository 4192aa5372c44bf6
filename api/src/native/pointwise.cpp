// Pointwise overloads that are other operators with a Scalar made a tensor: floor_divide with a
// Scalar divisor (div's floor mode), bitwise ops with a Scalar self (on its 0-dim tensor, which
// promotes as LibTorch's wrapped number does for the integral and bool dtypes these take).
#include "Composite.h"

namespace ember::native {

Tensor floor_divide_scalar(const Tensor& self, const Scalar& other) { return ember::div(self, other, "floor"); }
Tensor& floor_divide__scalar(Tensor& self, const Scalar& other) { return self.div_(other, "floor"); }

namespace {
Tensor scalar_operand(const Scalar& s, const Tensor& like) {
  return ember::full({}, s, TensorOptions().dtype(scalar_category(s)).device(like.device()));
}
}  // namespace

Tensor bitwise_and_scalar_tensor(const Scalar& self, const Tensor& other) {
  return ember::bitwise_and(scalar_operand(self, other), other);
}
Tensor bitwise_or_scalar_tensor(const Scalar& self, const Tensor& other) {
  return ember::bitwise_or(scalar_operand(self, other), other);
}
Tensor bitwise_xor_scalar_tensor(const Scalar& self, const Tensor& other) {
  return ember::bitwise_xor(scalar_operand(self, other), other);
}

}  // namespace ember::native
