#include "FunctionsManual.h"

namespace ember::autograd::generated::details {
Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < g.dim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && g.size(i) != 1)) dims.push_back(i);
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  return lead > 0 || r.sizes() != shape ? r.reshape(shape) : r;
}
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  Tensor r = zeros(sizes, grad.options());
  r.select(dim, index).copy_(grad);
  return r;
}
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim) {
  Tensor g = keepdim ? grad : grad.unsqueeze(dim);
  Tensor i = keepdim ? indices : indices.unsqueeze(dim);
  return zeros(sizes, grad.options()).scatter(dim, i, g);
}
}  // namespace ember::autograd::generated::details
