// Composites of the index-shape family: the functional index_add / index_copy / fill.Tensor (a
// copy of self, then the backend's in-place kernel), the views split_with_sizes, squeeze.dims
// and alias (metadata only), diag_embed (zeros, then a copy into their diagonal), and the
// CompositeImplicitAutograd functions built from other operators: diag, trace, movedim/moveaxis,
// swapaxes/swapdims, the matrix views (numpy_T, matrix_H, mT, mH, adjoint),
// unbind, meshgrid, broadcast_to, tile, repeat_interleave(self, ...) and one_hot.
#include "Composite.h"

namespace ember::native {

// ---- copies of self written by an in-place kernel ---------------------------------------------------

// LibTorch's structured index_add / index_copy return a contiguous result.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_defined("index_add", self, "self");
  Tensor r = ember::empty(self.sizes(), self.options());
  r.copy_(self);
  return r.index_add_(dim, index, source, alpha);
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_defined("index_copy", self, "self");
  Tensor r = ember::empty(self.sizes(), self.options());
  r.copy_(self);
  return r.index_copy_(dim, index, source);
}

Tensor fill_tensor(const Tensor& self, const Tensor& value) {
  check_defined("fill", self, "self");
  Tensor r = ember::empty_like(self);
  return r.fill_(value);
}

// ---- views ------------------------------------------------------------------------------------------

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  check_defined("split_with_sizes", self, "self");
  EMBER_CHECK(self.dim() != 0, "[split_with_sizes] split expects at least a 1-dimensional tensor");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "split_with_sizes");
  const int64_t dim_size = self.size(d);
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0,
                "[split_with_sizes] split_with_sizes expects split_sizes have only non-negative entries, but got "
                "split_sizes={}",
                split_sizes);
    total += s;
  }
  EMBER_CHECK(total == dim_size,
              "[split_with_sizes] split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at "
              "dimension {}), but got split_sizes={}",
              dim_size, d, split_sizes);
  std::vector<Tensor> r;
  r.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    r.push_back(native::slice(self, d, start, start + s, 1));
    start += s;
  }
  return r;
}

// PyTorch 2's squeeze(dims): each listed dim of size 1 goes; the others stay.
Tensor squeeze_dims(const Tensor& self, IntArrayRef dim) {
  check_defined("squeeze", self, "self");
  const DimVector w = wrap_dims(dim, self.dim(), "squeeze");
  DimVector sz, st;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 1 && std::find(w.begin(), w.end(), d) != w.end()) continue;
    sz.push_back(self.size(d));
    st.push_back(self.stride(d));
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor alias(const Tensor& self) {
  check_defined("alias", self, "self");
  return make_view(self, self.sizes(), self.strides(), self.storage_offset());
}

// ---- diagonals ----------------------------------------------------------------------------------------

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  check_defined("diag_embed", self, "self");
  EMBER_CHECK(self.dim() >= 1, "[diag_embed] expects a tensor with at least 1 dimension, but self is 0D");
  const int64_t nd = self.dim() + 1;
  const int64_t d1 = maybe_wrap_dim(dim1, nd, "diag_embed"), d2 = maybe_wrap_dim(dim2, nd, "diag_embed");
  EMBER_CHECK(d1 != d2, "[diag_embed] diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  const int64_t n = self.size(-1) + (offset < 0 ? -offset : offset);
  DimVector sizes(self.sizes().slice(0, static_cast<size_t>(self.dim() - 1)));
  sizes.insert(sizes.begin() + std::min(d1, d2), n);
  sizes.insert(sizes.begin() + std::max(d1, d2), n);
  Tensor r = ember::zeros(sizes, self.options());
  native::diagonal(r, offset, d1, d2).copy_(self);
  return r;
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  check_defined("diag", self, "self");
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "[diag] matrix or a vector expected, got a {}-d tensor",
              self.dim());
  if (self.dim() == 1) return ember::diag_embed(self, diagonal, 0, 1);
  return self.diagonal(diagonal, 0, 1).clone();
}

Tensor trace(const Tensor& self) {
  check_defined("trace", self, "self");
  EMBER_CHECK(self.dim() == 2, "[trace] expected a matrix, but got tensor with dim {}", self.dim());
  // LibTorch 1.13 sums the diagonal of the integer and float32/float64 types only.
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != kBool && self.dtype() != kFloat16 && self.dtype() != kBFloat16,
                              "[trace] not implemented for dtype {}", self.dtype());
  return self.diagonal().sum();
}

// ---- permutations -------------------------------------------------------------------------------------

// PyTorch's movedim: source[i] goes to destination[i]; the other dims keep their order in the
// positions left.
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  check_defined("movedim", self, "self");
  EMBER_CHECK(source.size() == destination.size(),
              "[movedim] Invalid source or destination dims: source ({} dims) should contain the same number of "
              "dims as destination ({} dims)",
              source, destination);
  const int64_t nd = self.dim();
  DimVector src, dst;
  for (int64_t d : source) src.push_back(maybe_wrap_dim(d, nd, "movedim"));
  for (int64_t d : destination) dst.push_back(maybe_wrap_dim(d, nd, "movedim"));
  auto unique = [](const DimVector& v) {
    for (size_t i = 0; i < v.size(); ++i)
      for (size_t j = i + 1; j < v.size(); ++j)
        if (v[i] == v[j]) return false;
    return true;
  };
  EMBER_CHECK(unique(src), "[movedim] repeated dim in `source` ({})", source);
  EMBER_CHECK(unique(dst), "[movedim] repeated dim in `destination` ({})", destination);
  if (nd == 0) return self.permute({});
  DimVector perm(static_cast<size_t>(nd), -1);
  SmallVector<bool, 8> used(static_cast<size_t>(nd), false);
  for (size_t i = 0; i < src.size(); ++i) {
    perm[dst[i]] = src[i];
    used[src[i]] = true;
  }
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p != -1) continue;
    while (used[next]) ++next;
    p = next++;
  }
  return self.permute(perm);
}

Tensor movedim_int(const Tensor& self, int64_t source, int64_t destination) {
  return native::movedim(self, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return native::movedim(self, source, destination);
}
Tensor moveaxis_int(const Tensor& self, int64_t source, int64_t destination) {
  return native::movedim_int(self, source, destination);
}
// LibTorch's overloads that are other operators: narrow(Tensor start), split(int[]), the binary
// max/min, index_fill_ with a 0-dim tensor value, the functional index_fill.
Tensor narrow_tensor(const Tensor& self, int64_t dim, const Tensor& start, int64_t length) {
  check_defined("narrow", start, "start");
  EMBER_CHECK(start.dim() == 0 && is_integral_type(start.scalar_type(), false),
              "[narrow] expected argument 'start' to be a 0-dim integral tensor, got a {}-D {} tensor", start.dim(),
              start.scalar_type());
  return self.narrow(dim, start.item().toLong(), length);
}
std::vector<Tensor> split_sizes(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return self.split_with_sizes(split_size, dim);
}
Tensor max_other(const Tensor& self, const Tensor& other) { return ember::maximum(self, other); }
Tensor min_other(const Tensor& self, const Tensor& other) { return ember::minimum(self, other); }
Tensor& index_fill__int_tensor(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return self.index_fill_(dim, index, fill_value("index_fill_", self, value));
}
Tensor index_fill_int_scalar(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.clone().index_fill_(dim, index, value);
}
Tensor index_fill_int_tensor(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return self.clone().index_fill_(dim, index, value);
}

Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return self.transpose(axis0, axis1); }
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) { return self.transpose(dim0, dim1); }

// LibTorch's matrix views and their messages.
Tensor numpy_T(const Tensor& self) {
  DimVector dims(static_cast<size_t>(self.dim()), 0);
  for (int64_t i = 0; i < self.dim(); ++i) dims[static_cast<size_t>(i)] = self.dim() - 1 - i;
  return self.permute(dims);
}
Tensor matrix_H(const Tensor& self) {
  const int64_t n = self.dim();
  EMBER_CHECK(n == 2 || n == 0, "[matrix_H] tensor.H is only supported on matrices (2-D tensors), got a {}-D tensor{}",
              n, n > 2 ? "; for batches of matrices, use tensor.mH" : "");
  return n == 0 ? self : self.transpose(0, 1).conj();
}
namespace {
void check_matrices(const char* op, const char* what, const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "[{}] {} is only supported on matrices or batches of matrices, got a {}-D tensor", op,
              what, self.dim());
}
}  // namespace
Tensor mT(const Tensor& self) {
  check_matrices("mT", "tensor.mT", self);
  return self.transpose(-2, -1);
}
Tensor mH(const Tensor& self) {
  check_matrices("mH", "tensor.mH", self);
  return self.transpose(-2, -1).conj();
}
Tensor adjoint(const Tensor& self) {
  check_matrices("adjoint", "tensor.adjoint()", self);
  return self.transpose(-2, -1).conj();
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  check_defined("unbind", self, "self");
  EMBER_CHECK_INDEX(self.dim() > 0, "[unbind] Dimension specified as {} but tensor has no dimensions", dim);
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "unbind");
  std::vector<Tensor> r;
  r.reserve(static_cast<size_t>(self.size(d)));
  for (int64_t i = 0; i < self.size(d); ++i) r.push_back(self.select(d, i));
  return r;
}

// ---- grids, broadcasts and repeats ---------------------------------------------------------------------

std::vector<Tensor> meshgrid_indexing(const std::vector<Tensor>& tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), "[meshgrid] expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_defined("meshgrid", tensors[i], "tensors");
    EMBER_CHECK(tensors[i].dim() <= 1,
                "[meshgrid] Expected 0D or 1D tensor in the tensor list but got a {}-d tensor at position {}",
                tensors[i].dim(), i);
    EMBER_CHECK_TYPE(tensors[i].dtype() == tensors[0].dtype(),
                     "[meshgrid] expects all tensors to have the same dtype (got {} at position 0 and {} at {})",
                     tensors[0].dtype(), tensors[i].dtype(), i);
    EMBER_CHECK(tensors[i].device() == tensors[0].device(),
                "[meshgrid] expects all tensors to have the same device (got {} at position 0 and {} at {})",
                tensors[0].device(), tensors[i].device(), i);
  }
  EMBER_CHECK(indexing == "ij" || indexing == "xy",
              "[meshgrid] indexing must be one of \"xy\" or \"ij\", but received: {}", indexing);
  // "xy" (Cartesian) swaps the first two axes of the grid.
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  std::vector<Tensor> refs(tensors);
  if (swap) std::swap(refs[0], refs[1]);
  const auto n = static_cast<int64_t>(refs.size());
  DimVector shape;
  for (const Tensor& t : refs) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  grids.reserve(refs.size());
  for (int64_t i = 0; i < n; ++i) {
    DimVector view_shape(static_cast<size_t>(n), 1);
    view_shape[i] = -1;
    grids.push_back(refs[i].view(view_shape).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors) { return native::meshgrid_indexing(tensors, "ij"); }

Tensor broadcast_to(const Tensor& self, IntArrayRef size) {
  check_defined("broadcast_to", self, "self");
  return self.expand(size);
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  check_defined("tile", self, "self");
  // Fewer dims than self has: leading 1s (PyTorch's tile); then repeat.
  DimVector reps(dims);
  while (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(reps.begin(), 1);
  return self.repeat(reps);
}

Tensor repeat_interleave_self_tensor(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                     std::optional<int64_t> output_size) {
  check_defined("repeat_interleave", self, "self");
  check_defined("repeat_interleave", repeats, "repeats");
  const Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = dim ? maybe_wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  const int64_t n = input.dim() == 0 ? 1 : input.size(d);
  Tensor reps = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    reps = repeats.reshape({1}).expand({n});
  } else {
    EMBER_CHECK(repeats.dim() == 1, "[repeat_interleave] repeats must be 0-dim or 1-dim tensor, got {}-d",
                repeats.dim());
    EMBER_CHECK(repeats.size(0) == n,
                "[repeat_interleave] repeats must have the same size as input along dim (got {} repeats for size {})",
                repeats.size(0), n);
  }
  return input.index_select(d, ember::repeat_interleave(reps, output_size));
}

// A repeat count shared by every element: the input with a new dim of `repeats` after dim,
// expanded and reshaped (one copy).
Tensor repeat_interleave_self_int(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                  std::optional<int64_t> output_size) {
  check_defined("repeat_interleave", self, "self");
  EMBER_CHECK(repeats >= 0, "[repeat_interleave] repeats can not be negative");
  const Tensor input = dim && self.dim() > 0 ? self : self.reshape({-1});
  const int64_t d = dim && self.dim() > 0 ? maybe_wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  if (dim) maybe_wrap_dim(*dim, self.dim(), "repeat_interleave");
  const int64_t total = input.size(d) * repeats;
  EMBER_CHECK(!output_size || *output_size == total,
              "[repeat_interleave] allocated size does not match required size: output_size is {}, the result has {}",
              output_size.value_or(0), total);
  DimVector expanded(input.sizes());
  expanded.insert(expanded.begin() + d + 1, repeats);
  DimVector result(input.sizes());
  result[d] = total;
  return input.unsqueeze(d + 1).expand(expanded).reshape(result);
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  check_defined("one_hot", self, "self");
  EMBER_CHECK_TYPE(self.dtype() == kInt64, "[one_hot] one_hot is only applicable to index tensor (int64), got {}",
                   self.dtype());
  DimVector shape(self.sizes());
  if (self.numel() == 0) {
    EMBER_CHECK(num_classes > 0, "[one_hot] Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return ember::empty(shape, self.options());
  }
  // The class values are data: a meta tensor checks nothing here and needs num_classes.
  if (num_classes == -1) num_classes = self.max().item<int64_t>() + 1;
  if (!self.is_meta()) {
    EMBER_CHECK(self.min().item<int64_t>() >= 0, "[one_hot] Class values must be non-negative.");
    EMBER_CHECK(self.max().item<int64_t>() < num_classes, "[one_hot] Class values must be smaller than num_classes.");
  }
  shape.push_back(num_classes);
  return ember::zeros(shape, self.options()).scatter_(-1, self.unsqueeze(-1), 1);
}

}  // namespace ember::native
