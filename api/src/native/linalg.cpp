// matmul: the product of any two tensors of at least one dimension, folded onto mm and bmm.
#include "Composite.h"

namespace ember::native {

Tensor matmul(const Tensor& self, const Tensor& other) {
  check_defined("matmul", self, "self");
  check_defined("matmul", other, "other");
  const int64_t d1 = self.dim(), d2 = other.dim();
  EMBER_CHECK(d1 >= 1 && d2 >= 1, "[matmul] both arguments need to be at least 1-D, but got shapes {} and {}",
              self.sizes(), other.sizes());
  const int64_t k1 = self.size(-1), k2 = d2 == 1 ? other.size(0) : other.size(-2);
  EMBER_CHECK(k1 == k2, "[matmul] shapes cannot be multiplied ({} and {})", self.sizes(), other.sizes());
  if (d1 == 1 && d2 == 1) return ember::mm(self.unsqueeze(0), other.unsqueeze(1)).reshape(IntArrayRef{});
  if (d1 == 2 && d2 == 1) return ember::mm(self, other.unsqueeze(1)).reshape({self.size(0)});
  if (d1 == 1 && d2 == 2) return ember::mm(self.unsqueeze(0), other).reshape({other.size(1)});
  if (d1 == 2 && d2 == 2) return ember::mm(self, other);
  if (d1 >= 3 && d2 <= 2) {
    // Fold self's batch into its rows: one mm.
    std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
    const Tensor folded = self.reshape({-1, k1});
    if (d2 == 1) return ember::mm(folded, other.unsqueeze(1)).reshape(shape);
    shape.push_back(other.size(1));
    return ember::mm(folded, other).reshape(shape);
  }
  // Batched: broadcast the batch dimensions, then one bmm.
  const int64_t n = d1 > 1 ? self.size(-2) : 1;
  const int64_t p = d2 > 1 ? other.size(-1) : 1;
  const Tensor a = d1 == 1 ? self.unsqueeze(0) : self;
  const Tensor b = d2 == 1 ? other.unsqueeze(1) : other;
  const IntArrayRef ab(a.sizes().data(), a.sizes().size() - 2);
  const IntArrayRef bb(b.sizes().data(), b.sizes().size() - 2);
  const DimVector batch = broadcast_shapes(ab, bb, "matmul");
  int64_t nb = 1;
  for (int64_t x : batch) nb *= x;
  std::vector<int64_t> ea(batch.begin(), batch.end()), eb(batch.begin(), batch.end());
  ea.push_back(n), ea.push_back(k1);
  eb.push_back(k1), eb.push_back(p);
  const Tensor a3 = a.expand(ea).reshape({nb, n, k1});
  const Tensor b3 = b.expand(eb).reshape({nb, k1, p});
  std::vector<int64_t> shape(batch.begin(), batch.end());
  if (d1 > 1) shape.push_back(n);
  if (d2 > 1) shape.push_back(p);
  return ember::bmm(a3, b3).reshape(shape);
}

}  // namespace ember::native
