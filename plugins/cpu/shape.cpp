// Shape operators: the views permute, squeeze, diagonal, unfold, split (CompositeExplicitAutograd:
// metadata only), flatten, narrow, chunk (CompositeImplicitAutograd: built from other views, as in
// PyTorch), the copies cat, flip, linspace, eye (CPU), and stack, repeat
// (CompositeExplicitAutograd: they dispatch cat, empty and copy_).
#include <bitset>

#include "Loops.h"
#include "Ops.h"
#include "ember/native/Rules.h"
#include "ember/generated/Functions.h"

namespace ember::cpu {
namespace {

using native::wrap_dims;

void check_factory(const char* op, OptLayout layout, OptDevice device, OptBool pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == kStrided,
                              "[{}] only the strided layout is supported by the cpu plugin", op);
  EMBER_CHECK(!device || device->type() == kCPU, "[{}] the cpu kernel was asked for a tensor on {}", op, *device);
  EMBER_CHECK_NOT_IMPLEMENTED(!pin_memory.value_or(false),
                              "[{}] pin_memory=true needs a pinned-memory allocator (a GPU plugin); the cpu "
                              "plugin has none",
                              op);
}

using native::cat_skips;

}  // namespace

// ---- views (CompositeExplicitAutograd) ---------------------------------------------------------

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
    r.push_back(cpu::slice(self, d, i * split_size, i * split_size + (i < num_splits - 1 ? split_size : last), 1));
  return r;
}

// ---- views built from other views (CompositeImplicitAutograd) ----------------------------------

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

// ---- copies (CPU) ------------------------------------------------------------------------------

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const native::CatShape cs =
      native::cat_shape(tensors, dim, [](const Tensor& a, const Tensor& b) { check_cpu("cat", a, b); });
  const ScalarType dtype = cs.dtype;
  const DimVector& sz = cs.sizes;
  const int64_t d = cs.dim;
  if (cs.all_skipped) return empty_cpu({0}, dtype);  // every input is a skipped 1-d empty
  Tensor out = empty_cpu(sz, dtype);
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    if (cat_skips(t)) continue;
    if (t.numel() > 0) {
      Tensor part = cpu::slice(out, d, at, at + t.size(d), 1);
      cpu::copy_(part, t, false);
    }
    at += t.size(d);
  }
  return out;
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  check_defined("flip", self, "self");
  check_cpu("flip", self);
  const DimVector w = wrap_dims(dims, self.dim(), "flip");
  Tensor out = cpu::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  const int64_t n = self.numel();
  if (n == 0) return out;
  // Walks out's elements in logical order; the source index runs backwards along flipped dims.
  // Elements are moved as opaque words of the dtype's size, so every dtype shares four loops.
  const int64_t nd = self.dim();
  DimVector sizes(self.sizes()), src_st(self.strides()), dst_st(out.strides());
  int64_t src_off = 0;
  for (int64_t d : w) {
    if (nd == 0) break;  // a 0-dim tensor accepts dim 0 and -1; there is nothing to reverse
    src_off += (sizes[d] - 1) * src_st[d];
    src_st[d] = -src_st[d];
  }
  auto run = [&](auto word) {
    using W = decltype(word);
    const W* src = static_cast<const W*>(self.data_ptr());
    W* dst = static_cast<W*>(out.data_ptr());
    DimVector idx(static_cast<size_t>(nd), 0);
    int64_t so = src_off, dof = 0;
    for (int64_t i = 0; i < n; ++i) {
      dst[dof] = src[so];
      for (int64_t d = nd - 1; d >= 0; --d) {
        so += src_st[d];
        dof += dst_st[d];
        if (++idx[d] < sizes[d]) break;
        so -= src_st[d] * sizes[d];
        dof -= dst_st[d] * sizes[d];
        idx[d] = 0;
      }
    }
  };
  struct Word16 {
    uint64_t lo, hi;
  };
  switch (self.itemsize()) {
    case 1:
      run(uint8_t{});
      break;
    case 2:
      run(uint16_t{});
      break;
    case 4:
      run(uint32_t{});
      break;
    case 8:
      run(uint64_t{});
      break;
    case 16:
      run(Word16{});
      break;
    default:
      EMBER_INTERNAL_ASSERT(false, "[flip] unexpected element size {}", self.itemsize());
  }
  return out;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype, OptLayout layout,
                OptDevice device, OptBool pin_memory) {
  check_factory("linspace", layout, device, pin_memory);
  EMBER_CHECK(steps >= 0, "[linspace] number of steps must be non-negative, got {}", steps);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  if (dt == kBool) throw_unsupported_dtype("linspace", dt);
  return visit_dtype(dt, "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // PyTorch's step type: double for integers, the dtype itself otherwise (float for the
    // reduced floats, which PyTorch rounds at each step; Ember keeps float precision).
    using Step = std::conditional_t<std::is_integral_v<T>, double, std::conditional_t<is_reduced_float_v<T>, float, T>>;
    Tensor out = empty_cpu({steps}, dt);
    T* p = static_cast<T*>(out.data_ptr());
    if (steps == 1) p[0] = scalar_to<T>(start);
    if (steps <= 1) return out;
    const auto a = static_cast<Step>(scalar_to<std::conditional_t<is_reduced_float_v<T>, float, T>>(start));
    const auto b = static_cast<Step>(scalar_to<std::conditional_t<is_reduced_float_v<T>, float, T>>(end));
    const Step step = (b - a) / static_cast<Step>(steps - 1);
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i)
      p[i] = convert<T>(i < half ? a + step * static_cast<Step>(i) : b - step * static_cast<Step>(steps - i - 1));
    return out;
  });
}

Tensor eye_m(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  check_factory("eye", layout, device, pin_memory);
  native::check_eye(n, m);
  const ScalarType dt = dtype.value_or(get_default_dtype());
  Tensor out = empty_cpu({n, m}, dt);
  cpu::zero_(out);
  visit_dtype(dt, "eye", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * (m + 1)] = convert<T>(1);
  });
  return out;
}

Tensor eye(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return cpu::eye_m(n, n, dtype, layout, device, pin_memory);
}

// ---- device-generic copies (CompositeExplicitAutograd) -----------------------------------------

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
    parts.push_back(cpu::unsqueeze(tensors[i], d));
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
  const Tensor x = cpu::expand(self, padded, false);
  Tensor result = ember::empty(target, self.options());
  if (zero) return result;
  // PyTorch's trick: unfold each dim of the result into (repeat, size) blocks, then one copy_
  // of x broadcast over the blocks.
  Tensor u = result;
  for (int64_t i = 0; i < nr; ++i) u = cpu::unfold(u, i, padded[i], std::max<int64_t>(padded[i], 1));
  u.copy_(cpu::expand(x, u.sizes(), false));
  return result;
}

}  // namespace ember::cpu
