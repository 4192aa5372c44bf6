// Shape composites: the views permute, squeeze, diagonal, unfold, split (metadata only),
// flatten, narrow, chunk (built from other views, as in PyTorch), and stack, repeat (they
// dispatch cat, empty and copy_).
#include "Composite.h"

namespace ember::native {

using native::cat_skips;
using native::wrap_dims;

Tensor permute(const Tensor& self, IntArrayRef dims) {
  check_defined("permute", self, "self");
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == self.dim(),
              "[permute] number of dimensions in the tensor input does not match the length of the "
              "desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
              self.dim(), dims.size());
  const DimVector w = wrap_dims(dims, self.dim(), "permute");
  DimVector sz(w.size(), 0), st(w.size(), 0);
  for (size_t i = 0; i < w.size(); ++i) {
    sz[i] = self.size(w[i]);
    st[i] = self.stride(w[i]);
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor squeeze(const Tensor& self) {
  check_defined("squeeze", self, "self");
  DimVector sz, st;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 1) continue;
    sz.push_back(self.size(d));
    st.push_back(self.stride(d));
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor squeeze_dim(const Tensor& self, int64_t dim) {
  check_defined("squeeze", self, "self");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "squeeze");
  DimVector sz(self.sizes()), st(self.strides());
  if (self.dim() > 0 && sz[d] == 1) {
    sz.erase(sz.begin() + d);
    st.erase(st.begin() + d);
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  check_defined("diagonal", self, "self");
  EMBER_CHECK_INDEX(self.dim() >= 2, "[diagonal] expects a tensor with at least 2 dimensions, but self is {}D",
                    self.dim());
  const int64_t d1 = maybe_wrap_dim(dim1, self.dim(), "diagonal");
  const int64_t d2 = maybe_wrap_dim(dim2, self.dim(), "diagonal");
  EMBER_CHECK(d1 != d2, "[diagonal] diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  const int64_t n1 = self.size(d1), n2 = self.size(d2);
  const int64_t n = std::max<int64_t>(offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2), 0);
  int64_t storage_offset = self.storage_offset();
  if (n > 0) storage_offset += offset >= 0 ? offset * self.stride(d2) : -offset * self.stride(d1);
  DimVector sz(self.sizes()), st(self.strides());
  const int64_t diag_stride = st[d1] + st[d2];
  sz.erase(sz.begin() + std::max(d1, d2));
  st.erase(st.begin() + std::max(d1, d2));
  sz.erase(sz.begin() + std::min(d1, d2));
  st.erase(st.begin() + std::min(d1, d2));
  sz.push_back(n);
  st.push_back(diag_stride);
  return make_view(self, sz, st, storage_offset);
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  check_defined("unfold", self, "self");
  const int64_t d = maybe_wrap_dim(dimension, self.dim(), "unfold");
  const int64_t max_size = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK(size <= max_size, "[unfold] maximum size for tensor at dimension {} is {} but size is {}", d, max_size,
              size);
  EMBER_CHECK(size >= 0, "[unfold] size is {} but must be >= 0", size);
  EMBER_CHECK(step > 0, "[unfold] step is {} but must be > 0", step);
  DimVector sz(self.sizes()), st(self.strides());
  sz.push_back(size);
  st.push_back(self.dim() == 0 ? 1 : st[d]);
  if (d < self.dim()) {
    sz[d] = (sz[d] - size) / step + 1;
    st[d] *= step;
  }
  return make_view(self, sz, st, self.storage_offset());
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  check_defined("split", self, "self");
  EMBER_CHECK(self.dim() != 0, "[split] expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "[split] expects split_size be non-negative, but got split_size={}", split_size);
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "split");
  const int64_t dim_size = self.size(d);
  EMBER_CHECK(split_size > 0 || dim_size == 0,
              "[split] split_size can only be 0 if dimension size is 0, but got dimension size of {}", dim_size);
  const int64_t num_splits = split_size == 0 ? 1 : std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  const int64_t last = split_size - (split_size * num_splits - dim_size);
  std::vector<Tensor> r;
  r.reserve(static_cast<size_t>(num_splits));
  for (int64_t i = 0; i < num_splits; ++i)
    r.push_back(native::slice(self, d, i * split_size, i * split_size + (i < num_splits - 1 ? split_size : last), 1));
  return r;
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  check_defined("flatten", self, "self");
  const int64_t s = maybe_wrap_dim(start_dim, self.dim(), "flatten");
  const int64_t e = maybe_wrap_dim(end_dim, self.dim(), "flatten");
  EMBER_CHECK(s <= e, "[flatten] flatten() has invalid args: start_dim cannot come after end_dim");
  if (self.dim() == 0) return self.reshape({1});
  if (s == e) return self;
  DimVector shape;
  int64_t merged = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < s || d > e)
      shape.push_back(self.size(d));
    else
      merged *= self.size(d);
    if (d == e) shape.push_back(merged);
  }
  return self.reshape(shape);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  check_defined("narrow", self, "self");
  EMBER_CHECK_INDEX(self.dim() > 0, "[narrow] narrow() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(length >= 0, "[narrow] length must be non-negative, got {}", length);
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "narrow");
  const int64_t cur = self.size(d);
  if (start != cur) {  // start == size is a valid (empty) narrow, but no valid index
    EMBER_CHECK_INDEX(start >= -cur && start < cur, "[narrow] start {} out of range for dimension {} of size {}", start,
                      d, cur);
    if (start < 0) start += cur;
  }
  EMBER_CHECK_INDEX(start <= cur - length, "[narrow] start ({}) + length ({}) exceeds dimension size ({}).", start,
                    length, cur);
  return self.slice(d, start, start + length, 1);
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  check_defined("chunk", self, "self");
  EMBER_CHECK(self.dim() > 0, "[chunk] expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "[chunk] expects `chunks` to be greater than 0, got: {}", chunks);
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "chunk");
  const int64_t dim_size = self.size(d);
  const int64_t split_size = (dim_size + chunks - 1) / chunks;
  if (dim_size == 0) {  // PyTorch returns `chunks` empty views here
    std::vector<Tensor> r;
    for (int64_t i = 0; i < chunks; ++i) r.push_back(self.slice(d, 0, 0, 1));
    return r;
  }
  return self.split(split_size, d);
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "[stack] expects a non-empty TensorList");
  EMBER_CHECK(tensors[0].defined(), "[stack] tensor at position 0 is undefined");
  const int64_t d = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "[stack] tensor at position {} is undefined", i);
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "[stack] expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                tensors[0].sizes(), tensors[i].sizes(), i);
    parts.push_back(native::unsqueeze(tensors[i], d));
  }
  return ember::cat(parts, d);
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  check_defined("repeat", self, "self");
  const auto nr = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(nr >= self.dim(),
              "[repeat] Number of dimensions of repeat dims can not be smaller than number of dimensions of "
              "tensor (repeats {} for a tensor of shape {})",
              repeats, self.sizes());
  const int64_t lead = nr - self.dim();
  DimVector padded(static_cast<size_t>(nr), 1), target(static_cast<size_t>(nr), 0);
  bool zero = false;
  for (int64_t i = 0; i < nr; ++i) {
    EMBER_CHECK(repeats[i] >= 0, "[repeat] repeats must be non-negative, got {}", repeats);
    if (i >= lead) padded[i] = self.size(i - lead);
    target[i] = padded[i] * repeats[i];
    zero = zero || target[i] == 0;
  }
  const Tensor x = native::expand(self, padded, false);
  Tensor result = ember::empty(target, self.options());
  if (zero) return result;
  // PyTorch's trick: unfold each dim of the result into (repeat, size) blocks, then one copy_
  // of x broadcast over the blocks.
  Tensor u = result;
  for (int64_t i = 0; i < nr; ++i) u = native::unfold(u, i, padded[i], std::max<int64_t>(padded[i], 1));
  u.copy_(native::expand(x, u.sizes(), false));
  return result;
}

}  // namespace ember::native
