// Pointwise overloads that are other operators with a Scalar made a tensor: floor_divide with a
// Scalar divisor (div's floor mode), bitwise ops with a Scalar self (on its 0-dim tensor, which
// promotes as LibTorch's wrapped number does for the integral and bool dtypes these take), and
// masked_fill with a 0-dim tensor value (its Scalar overload with value.item(), as LibTorch).
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

Scalar fill_value(const char* op, const Tensor& self, const Tensor& value) {
  check_defined(op, value, "value");
  EMBER_CHECK(value.dim() == 0, "[{}] expected argument 'value' to be a 0-dim tensor, but got one with {} dimension(s)",
              op, value.dim());
  if (!value.is_meta()) return value.item();
  EMBER_CHECK(self.is_meta(), "[{}] expected argument 'value' on self's device ({}) or the CPU, but got it on meta", op,
              self.device());
  return Scalar(0);  // shapes only: any value that fits every dtype
}

Tensor masked_fill_tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return ember::masked_fill(self, mask, fill_value("masked_fill", self, value));
}
Tensor& masked_fill__tensor(Tensor& self, const Tensor& mask, const Tensor& value) {
  return self.masked_fill_(mask, fill_value("masked_fill_", self, value));
}

}  // namespace ember::native
