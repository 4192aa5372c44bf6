// Indexing kernels: advanced indexing (index, index_put_), index_select, embedding, gather,
// scatter, scatter_add, scatter_reduce, masked_select, masked_scatter_, index_fill_, index_add_,
// index_copy_, take and nonzero.
//
// Note [CPU advanced indexing]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// index, index_put_, index_select and embedding share one plan (IndexPlan). The index tensors
// (bool/uint8 masks first replaced by the columns of their nonzero(), as PyTorch does) broadcast
// to one shape B. The result has shape restA + B + restB, where, as in PyTorch, restA is the
// non-indexed dims before the indexed ones when the indexed dims are adjacent (x[:, i, j]) and
// empty when they are not (x[i, :, j] puts B first); restB is every other non-indexed dim, in
// order. Each of the three parts becomes a list of element offsets into self (outer, mid,
// inner), so element (a, b, c) of the result is self[outer[a] + mid[b] + inner[c]] whatever
// self's strides. When inner is dense (0, 1, 2, ...) the innermost copy is one memcpy of a row:
// index_select / embedding along dim 0 of a contiguous table copy whole rows.
// The checks and the result's shape (restA + B + restB) are ember/native/Rules.h's indexing
// section, which the meta kernels (plugins/meta/indexing.cpp) use too; the offsets are cpu-only.
#include <cstring>

#include "CPUKernels.h"
#include "Loops.h"
#include "Reduce.h"
#include "ember/generated/Functions.h"
#include "ember/native/IndexShapeRules.h"
#include "ember/native/IndexTensors.h"
#include "ember/native/Rules.h"

namespace ember::cpu {
namespace {

// Calls f(Tag<U>{}) with U an unsigned type of `size` bytes: copies move bytes, not values.
template <class F>
decltype(auto) visit_itemsize(size_t size, F&& f) {
  switch (size) {
    case 1: return f(Tag<uint8_t>{});
    case 2: return f(Tag<uint16_t>{});
    case 4: return f(Tag<uint32_t>{});
    default: EMBER_INTERNAL_ASSERT(size == 8, "unexpected element size {}", size); return f(Tag<uint64_t>{});
  }
}

// *dst += v in T (bool: or; float16/bfloat16 through float).
template <class T>
EMBER_ALWAYS_INLINE void add_into(T* dst, T v) {
  if constexpr (std::is_same_v<T, bool>) *dst = *dst || v;
  else if constexpr (is_reduced_float_v<T>) *dst = T(static_cast<float>(*dst) + static_cast<float>(v));
  else *dst = static_cast<T>(*dst + v);
}

// Calls row(offsets, idx) for every run along the last dim of `sizes` (at least 1-d), in
// row-major order: idx is the multi-index of the outer dims, offsets[k] the run's first element
// (in elements) under strides[k].
template <size_t N, class F>
void walk_rows(IntArrayRef sizes, const std::array<IntArrayRef, N>& strides, F&& row) {
  const auto nd = static_cast<int64_t>(sizes.size());
  for (int64_t s : sizes)
    if (s == 0) return;
  std::array<int64_t, N> off{};
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  while (true) {
    row(off, idx);
    int64_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (sizes[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Calls f(offsets) for every position of `sizes` in row-major order, offsets[k] being the
// position's offset (in elements) under strides[k].
template <size_t N, class F>
void walk(IntArrayRef sizes, const std::array<IntArrayRef, N>& strides, F&& f) {
  const auto nd = static_cast<int64_t>(sizes.size());
  if (nd == 0) {
    f(std::array<int64_t, N>{});
    return;
  }
  const int64_t last = sizes[nd - 1];
  walk_rows<N>(sizes, strides, [&](std::array<int64_t, N> o, const std::vector<int64_t>&) {
    for (int64_t i = 0; i < last; ++i) {
      f(o);
      for (size_t k = 0; k < N; ++k) o[k] += strides[k][nd - 1];
    }
  });
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// t's strides when broadcast to `shape` (0 along broadcast dims); t must be broadcastable.
DimVector broadcast_strides(const Tensor& t, IntArrayRef shape) {
  DimVector r(shape.size(), 0);
  const size_t lead = shape.size() - static_cast<size_t>(t.dim());
  for (size_t d = 0; d < static_cast<size_t>(t.dim()); ++d)
    r[lead + d] = t.size(static_cast<int64_t>(d)) == 1 ? 0 : t.stride(static_cast<int64_t>(d));
  return r;
}

// Row-major element offsets of every position of `sizes` under `strides`.
std::vector<int64_t> offsets_of(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<int64_t> r;
  r.reserve(static_cast<size_t>(numel_of(sizes)));
  walk<1>(sizes, {strides}, [&](const std::array<int64_t, 1>& o) { r.push_back(o[0]); });
  return r;
}

// 0-dim tensors act as 1-element 1-d ones in gather/scatter (PyTorch's ensure_nonempty_*).
using native::sizes1;
DimVector strides1(const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.strides()); }

struct IndexPlan {
  DimVector shape;  // restA + B + restB
  std::vector<int64_t> outer, mid, inner;
  bool inner_dense = false;
};

// How index values are checked: PyTorch's index wraps negatives, index_select and embedding do not.
struct IndexRules {
  const char* op;
  bool wrap_negative;
};

// See Note [CPU advanced indexing]. `indices` has at most self.dim() entries (masks count as
// many as their dims); a missing or undefined entry keeps its dim.
IndexPlan plan_index(const IndexRules& rules, const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const char* op = rules.op;
  std::vector<Tensor> idx =
      native::index_tensors(op, kCPU, self, indices, [](const Tensor& mask) { return cpu::nonzero(mask); });
  const native::IndexGeometry g = native::index_geometry(op, self, idx);
  IndexPlan p;
  p.shape = g.shape;
  if (g.dims.empty()) {  // nothing to index: a copy of self
    p.outer = {0};
    p.mid = {0};
    p.inner = offsets_of(self.sizes(), self.strides());
  } else {
    DimVector a_sizes, a_strides, c_sizes, c_strides;
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (idx[d].defined()) continue;
      const bool before = g.adjacent && d < g.dims.front();
      (before ? a_sizes : c_sizes).push_back(self.size(d));
      (before ? a_strides : c_strides).push_back(self.stride(d));
    }
    p.outer = offsets_of(a_sizes, a_strides);
    p.inner = offsets_of(c_sizes, c_strides);
    p.mid.assign(static_cast<size_t>(numel_of(g.bshape)), 0);
    for (int64_t d : g.dims) {
      const Tensor& t = idx[d];
      const int64_t size = self.size(d), stride = self.stride(d);
      const int64_t* data = t.data_ptr<int64_t>();
      size_t b = 0;
      walk<1>(g.bshape, {broadcast_strides(t, g.bshape)}, [&](const std::array<int64_t, 1>& o) {
        int64_t v = data[o[0]];
        EMBER_CHECK_INDEX(v < size && (rules.wrap_negative ? v >= -size : v >= 0),
                          "[{}] index {} is out of bounds for dimension {} with size {}", op, v, d, size);
        if (v < 0) v += size;
        p.mid[b++] += v * stride;
      });
    }
  }
  p.inner_dense = true;
  for (size_t i = 0; i < p.inner.size() && p.inner_dense; ++i) p.inner_dense = p.inner[i] == static_cast<int64_t>(i);
  return p;
}

// out (contiguous, p.shape) = self at the plan's positions.
void run_index(const IndexPlan& p, const Tensor& self, void* out) {
  const size_t isz = self.itemsize();
  const char* src = static_cast<const char*>(self.data_ptr());
  char* dst = static_cast<char*>(out);
  const size_t n_inner = p.inner.size();
  if (p.inner_dense && n_inner * isz >= 64) {
    for (int64_t a : p.outer)
      for (int64_t m : p.mid) {
        std::memcpy(dst, src + (a + m) * static_cast<int64_t>(isz), n_inner * isz);
        dst += n_inner * isz;
      }
    return;
  }
  visit_itemsize(isz, [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* s = reinterpret_cast<const U*>(src);
    U* o = reinterpret_cast<U*>(dst);
    if (n_inner == 1) {  // e.g. index_select along the last dim
      const int64_t c = p.inner[0];
      for (int64_t a : p.outer)
        for (int64_t m : p.mid) *o++ = s[a + m + c];
      return;
    }
    for (int64_t a : p.outer)
      for (int64_t m : p.mid) {
        const U* base = s + a + m;
        for (int64_t c : p.inner) *o++ = base[c];
      }
  });
}

Tensor as_int64_index(const Tensor& index, const char* op, const char* arg) {
  native::check_int_index(op, index, arg);
  if (index.dtype() == kInt64) return index;
  Tensor r = empty_cpu(index.sizes(), kInt64);
  int64_t* o = r.data_ptr<int64_t>();
  const int32_t* s = index.data_ptr<int32_t>();
  walk<1>(index.sizes(), {index.strides()}, [&](const std::array<int64_t, 1>& off) { *o++ = s[off[0]]; });
  return r;
}

void check_gather_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  native::check_gather_scatter(kCPU, op, self, dim, index, src);
}

// Walks index's positions with (index, self with dim's stride 0, other) offsets and passes
// f(self offset of the indexed element, other offset), checking every index value.
template <class F>
void walk_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, IntArrayRef other_strides,
                  F&& f) {
  DimVector sst = strides1(self);
  const int64_t size = sizes1(self)[dim], stride = sst[dim];
  sst[dim] = 0;
  const DimVector ist = strides1(index);
  const int64_t* idx = index.data_ptr<int64_t>();
  walk<3>(sizes1(index), {IntArrayRef(ist), IntArrayRef(sst), other_strides}, [&](const std::array<int64_t, 3>& o) {
    const int64_t v = idx[o[0]];
    EMBER_CHECK_INDEX(v >= 0 && v < size, "[{}] index {} is out of bounds for dimension {} with size {}", op, v, dim,
                      size);
    f(o[1] + v * stride, o[2]);
  });
}

using native::check_writable;

enum class ScatterMode { Assign, Add };

Tensor& scatter_impl(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& src_in,
                     ScatterMode mode) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_gather_scatter(op, self, dim, index, &src_in);
  check_writable(op, self);
  if (index.numel() == 0) return self;
  const Tensor src = same_storage(self, src_in) ? materialize(src_in) : src_in;
  const DimVector srcst = strides1(src);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(self.data_ptr());
    const T* s = static_cast<const T*>(src.data_ptr());
    if (mode == ScatterMode::Add)
      walk_scatter(op, self, dim, index, srcst, [&](int64_t so, int64_t oo) { add_into(out + so, s[oo]); });
    else
      walk_scatter(op, self, dim, index, srcst, [&](int64_t so, int64_t oo) { out[so] = s[oo]; });
  });
  return self;
}

}  // namespace

Tensor nonzero(const Tensor& self) {
  check_cpu("nonzero", self);
  const int64_t nd = self.dim();
  return visit_dtype(self.dtype(), "nonzero", [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(self.data_ptr());
    // Count first (branch-free, vectorizable when contiguous), then write each hit's multi-index.
    int64_t n = 0;
    if (self.is_contiguous()) {
      for (int64_t i = 0, e = self.numel(); i < e; ++i) n += convert<bool>(p[i]);
    } else {
      walk<1>(self.sizes(), {self.strides()}, [&](const std::array<int64_t, 1>& o) { n += convert<bool>(p[o[0]]); });
    }
    // LibTorch's layout: [n, ndim] with strides [1, n] (column-major: one index row per dim).
    Tensor out = empty_cpu({nd, n}, kInt64);
    const int64_t col_strides[2] = {1, n};
    const int64_t col_sizes[2] = {n, nd};
    out.unsafeGetTensorImpl()->set_sizes_and_strides(col_sizes, col_strides);
    if (n == 0 || nd == 0) return out;
    int64_t* o = out.data_ptr<int64_t>();
    int64_t k = 0;  // the hit's row
    const int64_t last = self.size(nd - 1), ls = self.stride(nd - 1);
    walk_rows<1>(self.sizes(), {self.strides()}, [&](const std::array<int64_t, 1>& off, const std::vector<int64_t>& idx) {
      const T* r = p + off[0];
      for (int64_t j = 0; j < last; ++j)
        if (convert<bool>(r[j * ls])) {
          for (int64_t d = 0; d < nd - 1; ++d) o[d * n + k] = idx[d];
          o[(nd - 1) * n + k] = j;
          ++k;
        }
    });
    return out;
  });
}

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  IndexPlan p = plan_index({"index", true}, self, indices);
  Tensor out = empty_cpu(p.shape, self.dtype());
  run_index(p, self, out.data_ptr());
  return out;
}

Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate) {
  native::check_index_put(kCPU, self, values);
  check_writable("index_put_", self);
  IndexPlan p = plan_index({"index_put_", true}, self, indices);
  // values broadcast to the indexing result, copied first: they may alias self.
  const IntArrayRef vs = native::index_put_values_sizes(values, p.shape);
  Tensor v = make_view(values, vs, IntArrayRef(values.strides()).slice(values.dim() - vs.size()),
                       values.storage_offset());
  v = materialize(make_view(v, p.shape, broadcast_strides(v, p.shape), v.storage_offset()));
  visit_dtype(self.dtype(), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(self.data_ptr());
    const T* s = static_cast<const T*>(v.data_ptr());
    for (int64_t a : p.outer)
      for (int64_t m : p.mid) {
        T* base = out + a + m;
        if (accumulate)
          for (int64_t c : p.inner) add_into(base + c, *s++);
        else
          for (int64_t c : p.inner) base[c] = *s++;
      }
  });
  return self;
}


Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index_in, Tensor& out) {
  dim = native::check_index_select(kCPU, self, dim, index_in, out);
  Tensor index = as_int64_index(index_in, "index_select", "index");
  const int64_t n = index.numel();
  if (self.dim() == 0) {
    Tensor one = make_view(self, {1}, {1}, self.storage_offset());
    index = make_view(index, {1}, {1}, index.storage_offset());
    IndexPlan p = plan_index({"index_select", false}, one, {index});
    resize_output(out, {}, "index_select");
    run_index(p, one, out.data_ptr());
    return out;
  }
  std::vector<std::optional<Tensor>> idx(static_cast<size_t>(dim));
  idx.emplace_back(make_view(index, {n}, {n == 1 || index.dim() == 0 ? 1 : index.stride(0)}, index.storage_offset()));
  IndexPlan p = plan_index({"index_select", false}, self, idx);
  resize_output(out, p.shape, "index_select");
  if (out.is_contiguous() && !same_storage(out, self)) {
    run_index(p, self, out.data_ptr());
  } else {
    Tensor tmp = empty_cpu(p.shape, self.dtype());
    run_index(p, self, tmp.data_ptr());
    cpu::copy_(out, tmp, false);
  }
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = empty_cpu({}, self.dtype());
  return index_select_out(self, dim, index, out);
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  native::check_embedding(kCPU, weight, indices);
  Tensor index = as_int64_index(indices, "embedding", "indices");
  IndexPlan p = plan_index({"embedding", false}, weight, {index});
  Tensor out = empty_cpu(p.shape, weight.dtype());
  run_index(p, weight, out.data_ptr());
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  check_gather_scatter("gather", self, dim, index, nullptr);
  Tensor out = empty_cpu(index.sizes(), self.dtype());
  if (out.numel() == 0) return out;
  const DimVector ost = strides1(out);
  visit_itemsize(self.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* s = static_cast<const U*>(self.data_ptr());
    U* o = static_cast<U*>(out.data_ptr());
    walk_scatter("gather", self, dim, index, ost, [&](int64_t so, int64_t oo) { o[oo] = s[so]; });
  });
  return out;
}

Tensor& scatter__src(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_", self, dim, index, src, ScatterMode::Assign);
}

Tensor& scatter__value(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = maybe_wrap_dim(dim, self.dim(), "scatter_");
  check_gather_scatter("scatter_", self, dim, index, nullptr);
  check_writable("scatter_", self);
  if (index.numel() == 0) return self;
  const DimVector none(static_cast<size_t>(std::max<int64_t>(index.dim(), 1)), 0);
  visit_dtype(self.dtype(), "scatter_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(self.data_ptr());
    const T v = scalar_to<T>(value);
    walk_scatter("scatter_", self, dim, index, none, [&](int64_t so, int64_t) { out[so] = v; });
  });
  return self;
}

Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add_", self, dim, index, src, ScatterMode::Add);
}




Tensor masked_select(const Tensor& self, const Tensor& mask) {
  const DimVector shape = native::check_masked_select(kCPU, self, mask);
  const DimVector sst = broadcast_strides(self, shape), mst = broadcast_strides(mask, shape);
  const auto* m = static_cast<const uint8_t*>(mask.data_ptr());  // bool is one byte, 0 or 1
  int64_t n = 0;
  walk<1>(shape, {IntArrayRef(mst)}, [&](const std::array<int64_t, 1>& o) { n += m[o[0]] != 0; });
  Tensor out = empty_cpu({n}, self.dtype());
  visit_itemsize(self.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* s = static_cast<const U*>(self.data_ptr());
    U* o = static_cast<U*>(out.data_ptr());
    walk<2>(shape, {IntArrayRef(sst), IntArrayRef(mst)}, [&](const std::array<int64_t, 2>& off) {
      if (m[off[1]]) *o++ = s[off[0]];
    });
  });
  return out;
}

Tensor& index_fill__int_scalar(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = native::check_index_fill(kCPU, self, dim, index);
  const Tensor target = self.dim() == 0 ? make_view(self, {1}, {1}, self.storage_offset()) : self;
  const int64_t n = index.numel();
  std::vector<std::optional<Tensor>> idx(static_cast<size_t>(dim));
  idx.emplace_back(make_view(index, {n}, {index.dim() == 0 ? 1 : index.stride(0)}, index.storage_offset()));
  const IndexPlan p = plan_index({"index_fill_", true}, target, idx);
  visit_dtype(self.dtype(), "index_fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(self.data_ptr());
    const T v = scalar_to<T>(value);
    for (int64_t a : p.outer)
      for (int64_t m : p.mid)
        for (int64_t c : p.inner) out[a + m + c] = v;
  });
  return self;
}

Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  native::check_masked_scatter(kCPU, self, mask, source);
  const DimVector shape(self.sizes());
  const DimVector mst = broadcast_strides(mask, shape);
  const auto* m = static_cast<const uint8_t*>(mask.data_ptr());
  int64_t n = 0;
  walk<1>(shape, {IntArrayRef(mst)}, [&](const std::array<int64_t, 1>& o) { n += m[o[0]] != 0; });
  EMBER_CHECK(source.numel() >= n,
              "[masked_scatter_] argument 'source': expected at least {} elements (the mask's true count), got {}",
              n, source.numel());
  const Tensor src = source.is_contiguous() && !same_storage(source, self) ? source : materialize(source);
  visit_itemsize(self.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    U* out = static_cast<U*>(self.data_ptr());
    const U* s = static_cast<const U*>(src.data_ptr());
    walk<2>(shape, {self.strides(), IntArrayRef(mst)}, [&](const std::array<int64_t, 2>& off) {
      if (m[off[1]]) out[off[0]] = *s++;
    });
  });
  return self;
}

}  // namespace ember::cpu

// ---- scatter_reduce, index_add_, index_copy_, take ---------------------------------------------

namespace ember::cpu {
namespace {

// The result of one reduction step of scatter_reduce (bool: sum/amax or, prod/amin and); NaN
// propagates through amax and amin, as LibTorch's.
template <class T>
EMBER_ALWAYS_INLINE T reduce_step(native::ScatterReduce kind, T cur, T v) {
  using R = native::ScatterReduce;
  if constexpr (std::is_same_v<T, bool>) {
    return kind == R::Prod || kind == R::Amin ? (cur && v) : (cur || v);
  } else {
    using C = std::conditional_t<is_reduced_float_v<T>, float, T>;
    const C a = static_cast<C>(cur), b = static_cast<C>(v);
    switch (kind) {
      case R::Prod: return static_cast<T>(a * b);
      case R::Amax: return is_nan(b) ? v : (a < b ? v : cur);
      case R::Amin: return is_nan(b) ? v : (b < a ? v : cur);
      default: return static_cast<T>(a + b);  // sum, mean
    }
  }
}

// What a position reduces from when include_self is false.
template <class T>
T reduce_identity(native::ScatterReduce kind) {
  using R = native::ScatterReduce;
  if (kind == R::Prod) return T(1);
  if constexpr (std::is_same_v<T, bool>) {
    return kind == R::Amin;
  } else {
    using C = std::conditional_t<is_reduced_float_v<T>, float, T>;
    if (kind == R::Amax) return T(std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                                         : std::numeric_limits<C>::lowest());
    if (kind == R::Amin) return T(std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                                        : std::numeric_limits<C>::max());
    return T(0);
  }
}

// a / b rounded as LibTorch's mean: true division for floating types, floor for integers.
template <class T>
T mean_divide(T a, int64_t b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<T>) {
    const int64_t x = static_cast<int64_t>(a);
    int64_t q = x / b;
    if (x % b != 0 && x < 0) --q;
    return static_cast<T>(q);
  } else {
    using C = std::conditional_t<is_reduced_float_v<T>, float, T>;
    return static_cast<T>(static_cast<C>(a) / static_cast<C>(b));
  }
}

// Elements from self's data pointer to the last one (self has no negative strides).
int64_t span_of(const Tensor& self) {
  int64_t span = 1;
  const DimVector s = sizes1(self), st = strides1(self);
  for (size_t d = 0; d < s.size(); ++d) span += (s[d] - 1) * st[d];
  return span;
}

// The index of index_add_ / index_copy_ (int64) as the plan's list: dim's entry, none before it.
std::vector<std::optional<Tensor>> index_at(int64_t dim, const Tensor& index) {
  std::vector<std::optional<Tensor>> idx(static_cast<size_t>(dim));
  const int64_t n = index.numel();
  idx.emplace_back(make_view(index, {n}, {index.dim() == 0 ? 1 : index.stride(0)}, index.storage_offset()));
  return idx;
}

// self[..., index[m], ...] op= source[..., m, ...] along dim for index_add_ (accumulate) and
// index_copy_: the plan's (outer, mid, inner) order is source's row-major order. Threads split the
// outer positions (or the inner ones when there is one outer), which never share an element of self
// even when the index repeats.
template <class T, class F>
void index_source_apply(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, F&& f) {
  if (index.numel() == 0) return;
  const Tensor target = self.dim() == 0 ? make_view(self, {1}, {1}, self.storage_offset()) : self;
  const IndexPlan p = plan_index({op, false}, target, index_at(self.dim() == 0 ? 0 : dim, index));
  const Tensor src = source.is_contiguous() && !same_storage(source, self) ? source : materialize(source);
  T* out = static_cast<T*>(self.data_ptr());
  const T* s = static_cast<const T*>(src.data_ptr());
  const auto no = static_cast<int64_t>(p.outer.size()), nm = static_cast<int64_t>(p.mid.size()),
             ni = static_cast<int64_t>(p.inner.size());
  auto run = [&](int64_t a0, int64_t a1, int64_t c0, int64_t c1) {
    for (int64_t a = a0; a < a1; ++a)
      for (int64_t m = 0; m < nm; ++m) {
        T* base = out + p.outer[a] + p.mid[m];
        const T* row = s + (a * nm + m) * ni;
        if (p.inner_dense) {  // a dense run of self: no offset table, so the loop vectorizes
          for (int64_t c = c0; c < c1; ++c) f(base + c, row[c]);
        } else {
          for (int64_t c = c0; c < c1; ++c) f(base + p.inner[c], row[c]);
        }
      }
  };
  if (no > 1)
    parallel_for(0, no, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(nm * ni, 1)),
                 [&](int64_t b, int64_t e) { run(b, e, 0, ni); });
  else
    parallel_for(0, ni, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(nm, 1)),
                 [&](int64_t b, int64_t e) { run(0, no, b, e); });
}

}  // namespace

Tensor& scatter_reduce__two(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src_in,
                            std::string_view reduce, bool include_self) {
  const char* op = "scatter_reduce";
  check_cpu(op, self, index);
  const auto [kind, d] = native::check_scatter_reduce(kCPU, self, dim, index, src_in, reduce);
  check_writable(op, self);
  if (index.numel() == 0) return self;
  const Tensor src = same_storage(self, src_in) ? materialize(src_in) : src_in;
  const DimVector srcst = strides1(src);
  const DimVector none(static_cast<size_t>(std::max<int64_t>(index.dim(), 1)), 0);
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(self.data_ptr());
    const T* s = static_cast<const T*>(src.data_ptr());
    if (!include_self) {
      const T init = reduce_identity<T>(kind);
      walk_scatter(op, self, d, index, none, [&](int64_t so, int64_t) { out[so] = init; });
    }
    if (kind != native::ScatterReduce::Mean) {
      // The reduction as a template argument: no switch per element.
      auto run = [&](auto k) {
        walk_scatter(op, self, d, index, srcst,
                     [&](int64_t so, int64_t oo) { out[so] = reduce_step(decltype(k)::value, out[so], s[oo]); });
      };
      using R = native::ScatterReduce;
      switch (kind) {
        case R::Prod: run(std::integral_constant<R, R::Prod>{}); break;
        case R::Amax: run(std::integral_constant<R, R::Amax>{}); break;
        case R::Amin: run(std::integral_constant<R, R::Amin>{}); break;
        default: run(std::integral_constant<R, R::Sum>{}); break;
      }
      return;
    }
    // mean: sums and counts per position of self, then one division per position reached.
    std::vector<int64_t> count(static_cast<size_t>(span_of(self)), 0);
    walk_scatter(op, self, d, index, srcst, [&](int64_t so, int64_t oo) {
      out[so] = reduce_step(kind, out[so], s[oo]);
      ++count[static_cast<size_t>(so)];
    });
    walk_scatter(op, self, d, index, none, [&](int64_t so, int64_t) {
      int64_t& c = count[static_cast<size_t>(so)];
      if (c == 0) return;
      out[so] = mean_divide(out[so], c + (include_self ? 1 : 0));
      c = 0;
    });
  });
  return self;
}

Tensor scatter_reduce_two(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self) {
  check_cpu("scatter_reduce", self);
  native::check_scatter_reduce(kCPU, self, dim, index, src, reduce);
  Tensor r = empty_cpu(self.sizes(), self.dtype());
  cpu::copy_(r, self, false);
  return cpu::scatter_reduce__two(r, dim, index, src, reduce, include_self);
}

Tensor& scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               std::string_view reduce, bool include_self, Tensor& out) {
  const Tensor r = cpu::scatter_reduce_two(self, dim, index, src, reduce, include_self);
  native::prepare_same_out("scatter_reduce", kCPU, self, out);
  return cpu::copy_(out, r, false);
}

Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index_in, const Tensor& source, const Scalar& alpha) {
  check_cpu("index_add_", self, index_in);
  dim = native::check_index_add_copy(kCPU, "index_add_", self, dim, index_in, source, true);
  const Tensor index = as_int64_index(index_in, "index_add_", "index");
  visit_dtype(self.dtype(), "index_add_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = scalar_to<T>(alpha);
    const bool one = alpha.isFloatingPoint() ? alpha.toDouble() == 1.0 : alpha.toLong() == 1;
    if constexpr (std::is_same_v<T, bool>) {
      index_source_apply<T>("index_add_", self, dim, index, source, [](T* dst, T v) { add_into(dst, v); });
    } else {
      using C = std::conditional_t<is_reduced_float_v<T>, float, T>;
      if (one)
        index_source_apply<T>("index_add_", self, dim, index, source, [](T* dst, T v) { add_into(dst, v); });
      else
        index_source_apply<T>("index_add_", self, dim, index, source, [a](T* dst, T v) {
          add_into(dst, static_cast<T>(static_cast<C>(v) * static_cast<C>(a)));
        });
    }
  });
  return self;
}

Tensor& index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                      Tensor& out) {
  check_cpu("index_add", self);
  Tensor r = empty_cpu(self.sizes(), self.dtype());
  cpu::copy_(r, self, false);
  cpu::index_add_(r, dim, index, source, alpha);
  native::prepare_same_out("index_add", kCPU, self, out);
  return cpu::copy_(out, r, false);
}

Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_cpu("index_copy_", self, index);
  dim = native::check_index_add_copy(kCPU, "index_copy_", self, dim, index, source, false);
  visit_dtype(self.dtype(), "index_copy_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_source_apply<T>("index_copy_", self, dim, index, source, [](T* dst, T v) { *dst = v; });
  });
  return self;
}

Tensor& index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Tensor& out) {
  check_cpu("index_copy", self);
  Tensor r = empty_cpu(self.sizes(), self.dtype());
  cpu::copy_(r, self, false);
  cpu::index_copy_(r, dim, index, source);
  native::prepare_same_out("index_copy", kCPU, self, out);
  return cpu::copy_(out, r, false);
}

Tensor take(const Tensor& self, const Tensor& index) {
  check_cpu("take", self, index);
  native::check_take(kCPU, self, index);
  Tensor out = empty_cpu(index.sizes(), self.dtype());
  if (index.numel() == 0) return out;
  const Tensor src = self.is_contiguous() ? self : materialize(self);
  const int64_t n = src.numel();
  const Tensor idx = index.is_contiguous() ? index : materialize(index);
  const int64_t* ip = idx.data_ptr<int64_t>();
  visit_itemsize(self.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* s = static_cast<const U*>(src.data_ptr());
    U* o = static_cast<U*>(out.data_ptr());
    parallel_for(0, idx.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t v = ip[i];
        EMBER_CHECK_INDEX(v >= -n && v < n, "[take] out of range: tried to access index {} on a tensor of {} elements.",
                          v, n);
        if (v < 0) v += n;
        o[i] = s[v];
      }
    });
  });
  return out;
}

Tensor& take_out(const Tensor& self, const Tensor& index, Tensor& out) {
  const Tensor r = cpu::take(self, index);
  check_defined("take", out, "out");
  check_cpu("take", out);
  native::check_out_dtype("take", out, self.dtype());
  native::resize_output(out, r.sizes(), "take");
  native::check_out_writable("take", out);
  return cpu::copy_(out, r, false);
}

}  // namespace ember::cpu
