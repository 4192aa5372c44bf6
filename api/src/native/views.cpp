// Views: new geometry over the same storage (metadata only, so registered at
// CompositeExplicitAutograd for every strided backend), and reshape (CompositeImplicitAutograd:
// a view when the strides allow one, else a contiguous copy).
#include "Composite.h"

namespace ember::native {
namespace {

// PyTorch's infer_size: resolves one -1 from the element count.
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector r(shape);
  int64_t newsize = 1;
  int64_t infer_dim = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      EMBER_CHECK(infer_dim < 0, "[{}] only one dimension can be inferred", op);
      infer_dim = static_cast<int64_t>(d);
    } else {
      EMBER_CHECK(shape[d] >= 0, "[{}] invalid shape dimension {}", op, shape[d]);
      newsize *= shape[d];
    }
  }
  if (numel == newsize || (infer_dim >= 0 && newsize > 0 && numel % newsize == 0)) {
    if (infer_dim >= 0) {
      EMBER_CHECK(newsize != 0,
                  "[{}] cannot reshape tensor of 0 elements into shape {} because the unspecified "
                  "dimension size -1 can be any value and is ambiguous",
                  op, shape);
      r[infer_dim] = numel / newsize;
    }
    return r;
  }
  EMBER_THROW(ValueError, "[{}] shape '{}' is invalid for input of size {}", op, shape, numel);
}

// PyTorch's computeStride: strides viewing `oldshape/oldstride` as `newshape`, or false when the
// new shape would need a dimension to span two non-contiguous chunks.
bool compute_stride(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape, DimVector& newstride) {
  newstride.resize(newshape.size());
  if (oldshape.empty()) {
    for (auto& s : newstride) s = 1;
    return true;
  }
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && oldshape == newshape) {
    newstride = DimVector(oldstride);
    return true;
  }
  const auto nn = static_cast<int64_t>(newshape.size());
  if (numel == 0) {
    for (int64_t d = nn - 1; d >= 0; --d)
      newstride[d] = d == nn - 1 ? 1 : std::max<int64_t>(newshape[d + 1], 1) * newstride[d + 1];
    return true;
  }
  int64_t view_d = nn - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

Tensor view(const Tensor& self, IntArrayRef size) {
  check_defined("view", self, "self");
  const DimVector shape = infer_size(size, self.numel(), "view");
  DimVector st;
  EMBER_CHECK(compute_stride(self.sizes(), self.strides(), shape, st),
              "[view] view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, st, self.storage_offset());
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  check_defined("reshape", self, "self");
  const DimVector sz = infer_size(shape, self.numel(), "reshape");
  DimVector st;
  if (compute_stride(self.sizes(), self.strides(), sz, st)) return self.view(sz);
  // A copy, reshaped in place: not a view of the temporary (PyTorch's _unsafe_view). A copy with
  // autograd history is viewed instead: its node recorded the copy's shape, which must not change
  // under it.
  Tensor r = self.contiguous();
  if (r.requires_grad()) return r.view(sz);
  r.unsafeGetTensorImpl()->set_sizes_contiguous(sz);
  return r;
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  check_defined("select", self, "self");
  EMBER_CHECK_INDEX(self.dim() > 0, "[select] select() cannot be applied to a 0-dim tensor.");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "select");
  const int64_t n = self.size(d);
  EMBER_CHECK_INDEX(index >= -n && index < n, "[select] index {} out of range for tensor of size {} at dimension {}",
                    index, self.sizes(), d);
  if (index < 0) index += n;
  DimVector sz(self.sizes()), st(self.strides());
  const int64_t offset = self.storage_offset() + index * st[d];
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(self, sz, st, offset);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  check_defined("slice", self, "self");
  EMBER_CHECK_INDEX(self.dim() > 0, "[slice] slice() cannot be applied to a 0-dim tensor.");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "slice");
  EMBER_CHECK(step > 0, "[slice] slice step must be positive, got {}", step);
  DimVector sz(self.sizes()), st(self.strides());
  int64_t s = start.value_or(0), e = end.value_or(std::numeric_limits<int64_t>::max());
  if (s < 0) s += sz[d];
  if (e < 0) e += sz[d];
  s = std::clamp<int64_t>(s, 0, sz[d]);
  e = std::clamp<int64_t>(e, s, sz[d]);
  const int64_t offset = self.storage_offset() + s * st[d];
  sz[d] = (e - s + step - 1) / step;
  st[d] *= step;
  return make_view(self, sz, st, offset);
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  check_defined("transpose", self, "self");
  const int64_t d0 = maybe_wrap_dim(dim0, self.dim(), "transpose");
  const int64_t d1 = maybe_wrap_dim(dim1, self.dim(), "transpose");
  if (self.layout() != kStrided) return sparse_transpose(self, d0, d1);
  DimVector sz(self.sizes()), st(self.strides());
  if (self.dim() > 0) {
    std::swap(sz[d0], sz[d1]);
    std::swap(st[d0], st[d1]);
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor t(const Tensor& self) {
  check_defined("t", self, "self");
  EMBER_CHECK(self.dim() <= 2, "[t] t() expects a tensor with <= 2 dimensions, but self is {}D", self.dim());
  return native::transpose(self, 0, self.dim() < 2 ? 0 : 1);
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  check_defined("unsqueeze", self, "self");
  const int64_t d = maybe_wrap_dim(dim, self.dim() + 1, "unsqueeze");
  DimVector sz(self.sizes()), st(self.strides());
  const int64_t new_stride = d >= self.dim() ? 1 : sz[d] * st[d];
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, new_stride);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor expand(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  check_defined("expand", self, "self");
  const auto nd = static_cast<int64_t>(size.size());
  const int64_t td = self.dim();
  EMBER_CHECK(nd >= td,
              "[expand] expand({} tensor of size {}, size={}): the number of sizes provided ({}) must be "
              "greater or equal to the number of dimensions in the tensor ({})",
              self.dtype(), self.sizes(), size, nd, td);
  DimVector sz(static_cast<size_t>(nd), 0), st(static_cast<size_t>(nd), 0);
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t d = td - 1 - (nd - 1 - i);
    int64_t cur = d >= 0 ? self.size(d) : 1;
    int64_t stride = d >= 0 ? self.stride(d) : (i + 1 < nd ? sz[i + 1] * st[i + 1] : 1);
    int64_t target = size[i];
    if (target == -1) {
      EMBER_CHECK(d >= 0,
                  "[expand] the expanded size of the tensor (-1) isn't allowed in a leading, "
                  "non-existing dimension {}",
                  i);
      target = cur;
    }
    EMBER_CHECK(target >= 0, "[expand] invalid size {} at dimension {}", target, i);
    if (cur != target) {
      EMBER_CHECK(cur == 1,
                  "[expand] the expanded size of the tensor ({}) must match the existing size ({}) at "
                  "non-singleton dimension {}.  Target sizes: {}.  Tensor sizes: {}",
                  target, cur, i, size, self.sizes());
      cur = target;
      stride = 0;
    }
    sz[i] = cur;
    st[i] = stride;
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  check_defined("as_strided", self, "self");
  EMBER_CHECK(size.size() == stride.size(), "[as_strided] mismatch in length of strides {} and shape {}", stride, size);
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(offset >= 0, "[as_strided] invalid storage offset {}", offset);
  int64_t span = 1;
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0, "[as_strided] negative size {} in {}", size[i], size);
    EMBER_CHECK(stride[i] >= 0, "[as_strided] negative strides are not supported, got strides {}", stride);
    if (size[i] == 0)
      empty = true;
    else
      span += (size[i] - 1) * stride[i];
  }
  if (!empty) {
    const auto itemsize = static_cast<int64_t>(self.itemsize());
    const auto need = static_cast<uint64_t>((offset + span) * itemsize);
    const uint64_t have = self.unsafeGetTensorImpl()->storage()->nbytes();
    EMBER_CHECK(need <= have,
                "[as_strided] sizes {}, strides {}, storage offset {}, and itemsize {} requiring a "
                "storage size of {} are out of bounds for storage of size {}",
                size, stride, offset, itemsize, need, have);
  }
  return make_view(self, size, stride, offset);
}

}  // namespace ember::native
