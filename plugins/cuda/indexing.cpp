// Host half of the GPU gather, scatter_add_, masked_fill, any/all and threshold_backward: the
// shared checks (ember/native/Rules.h), the index range checked on the device before a launch
// (a kernel cannot raise), then one launch.
#include <limits>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"
#include "ember/native/ElementwiseMeta.h"
#include "ember/native/IndexShapeRules.h"
#include "ember/native/IndexTensors.h"
#include "ember/native/NNCoreRules.h"
#include "ember/native/NNRules.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {
std::pair<int64_t, int64_t> index_extremes(const Tensor& index) {
  const Tensor range = ember::stack({ember::amin(index, {}, false), ember::amax(index, {}, false)}, 0).to(kInt64).cpu();
  return {range.data_ptr<int64_t>()[0], range.data_ptr<int64_t>()[1]};
}

void check_rows(const char* op, const Tensor& index, int64_t rows, const char* what) {
  if (index.numel() == 0) return;
  const auto [lo, hi] = index_extremes(index);
  EMBER_CHECK_INDEX(lo >= 0 && hi < rows, "[{}] index {} is out of range for {} {}", op, lo < 0 ? lo : hi, rows, what);
}

namespace {

using native::DimVector;

// Raises the cpu plugin's IndexError when an index lies outside [0, size).
void check_index_range(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  if (index.numel() == 0) return;
  const auto [lo, hi] = index_extremes(index);
  const int64_t bad = lo < 0 ? lo : hi;
  EMBER_CHECK_INDEX(lo >= 0 && hi < size, "[{}] index {} is out of bounds for dimension {} with size {}", op, bad, dim,
                    size);
}

gpu::GatherArgs gather_args(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& other) {
  const DimVector is = native::sizes1(index);
  EMBER_CHECK_NOT_IMPLEMENTED(static_cast<int>(is.size()) <= gpu::kMaxDims, "[{}] the {} plugin takes at most {} dims",
                              op, gpu::kGpuLabel, gpu::kMaxDims);
  gpu::GatherArgs a;
  a.ndim = static_cast<int>(is.size());
  a.dim = static_cast<int>(dim);
  a.numel = index.numel();
  auto strides1 = [](const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.strides()); };
  const DimVector ss = strides1(self), xs = strides1(index), os = strides1(other);
  for (size_t d = 0; d < is.size(); ++d) {
    a.sizes[d] = is[d];
    a.self_strides[d] = ss[d];
    a.index_strides[d] = xs[d];
    a.other_strides[d] = os[d];
  }
  a.self = static_cast<char*>(self.data_ptr());
  a.index = static_cast<const int64_t*>(index.data_ptr());
  a.other = static_cast<char*>(other.data_ptr());
  a.dtype = static_cast<int8_t>(self.dtype());
  a.itemsize = static_cast<int>(self.itemsize());
  return a;
}

// scatter_'s and scatter_add_'s checks (src null for a value), then the index's range on the host:
// the wrapped dim, or none when there is nothing to write.
std::optional<int64_t> prepare_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                                       const Tensor* src) {
  native::check_defined(op, self, "self");
  native::check_defined(op, index, "index");
  if (src) native::check_defined(op, *src, "src");
  dim = maybe_wrap_dim(dim, self.dim(), op);
  native::check_gather_scatter(gpu::kGpuDevice, op, self, dim, index, src);
  native::check_writable(op, self);
  if (index.numel() == 0) return std::nullopt;
  check_index_range(op, index, dim, native::sizes1(self)[static_cast<size_t>(dim)]);
  return dim;
}

// Narrow integers and bool have no device atomic adds: their sums run in int32 (which wraps back
// to the narrow type's sum; bool's nonzero sum is true) on a copy laid out as self, so self's
// offsets hold in it, then copied back.
bool adds_through_int32(ScalarType dt) {
  return !is_floating_type(dt) && !is_complex_type(dt) && dt != kInt32 && dt != kInt64;
}
template <class Add>
void add_through_int32(Tensor& self, Add&& add) {
  Tensor acc = empty_strided_cuda(self.sizes(), self.strides(), kInt32);
  EMBER_GPU_NS::copy_(acc, self, false);
  add(acc);
  EMBER_GPU_NS::copy_(self, acc, false);
}

Tensor masked_fill_into(const char* op, Tensor& out, const Tensor& self, const Tensor& mask, const Scalar& value) {
  native::check_scalar_fits(value, self.dtype(), op);
  OptionalDeviceGuard guard(self.device());
  const Tensor v = scalar_tensor(value, self.dtype());
  TensorIter it(op);
  it.add_output(&out, self.dtype()).add_input(mask).add_input(v).add_input(self).build();
  const ScalarType c = compute_dtype(self.dtype());
  check_launch(gpu::launch_where(to_dt(c), kernel_iter(it), stream()), op, c);
  return out;
}

// any/all as counts of nonzero (zero) elements over `dims` (every dim when empty): bool, or uint8
// for a uint8 input (as PyTorch 1.13).
Tensor count_test(const char* op, const Tensor& self, bool any, IntArrayRef dims, bool keepdim) {
  native::check_defined(op, self, "self");
  native::nn::check_on(op, gpu::kGpuDevice, self);
  OptionalDeviceGuard guard(self.device());
  const Tensor hit = any ? ember::ne(self, Scalar(int64_t{0})) : ember::eq(self, Scalar(int64_t{0}));
  Tensor n = ember::sum(hit, dims, keepdim, std::nullopt);
  Tensor r = any ? ember::gt(n, Scalar(int64_t{0})) : ember::eq(n, Scalar(int64_t{0}));
  return self.dtype() == kUInt8 ? r.to(kUInt8) : r;
}

Tensor& count_test_out(const char* op, const Tensor& self, bool any, IntArrayRef dims, bool keepdim, Tensor& out) {
  native::check_defined(op, self, "self");
  check_out(op, out, native::any_all_dtype(self));
  return write_out(out, count_test(op, self, any, dims, keepdim), op);
}

// self's entries at the 1-d int64 `index` along dim, as a gather over the index expanded to the
// result's shape (its stride 0 elsewhere): index_select and embedding.
Tensor select_rows(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end()), view(shape.size(), 1);
  shape[static_cast<size_t>(dim)] = view[static_cast<size_t>(dim)] = index.numel();
  Tensor out = empty_cuda(shape, self.dtype());
  if (out.numel() == 0) return out;
  check_index_range(op, index, dim, self.size(dim));
  const Tensor idx = index.view(view).expand(shape);
  check_launch(gpu::launch_gather(gather_args(op, self, dim, idx, out), stream()), op, self.dtype());
  return out;
}

// Advanced indexing's launch (gpu::IndexArgs) over the result shape restA + B + restB of
// native::index_geometry, with the index tensors it reads kept alive (mask columns are nonzero's).
struct IndexPlan {
  gpu::IndexArgs args;
  DimVector shape;
  std::vector<Tensor> held;
};

// `indices` per dim of self (masks expanded by nonzero, as the cpu's); each index's range checked
// on the host first (negative values wrap when `wrap_negative`, as PyTorch's index does).
IndexPlan plan_index(const char* op, bool wrap_negative, const Tensor& self,
                     const std::vector<std::optional<Tensor>>& indices) {
  std::vector<Tensor> idx = native::index_tensors(op, gpu::kGpuDevice, self, indices,
                                                  [](const Tensor& mask) { return EMBER_GPU_NS::nonzero(mask); });
  const native::IndexGeometry g = native::index_geometry(op, self, idx);
  EMBER_CHECK_NOT_IMPLEMENTED(
      g.dims.size() <= static_cast<size_t>(gpu::kMaxIndices) && g.shape.size() <= static_cast<size_t>(gpu::kMaxDims),
      "[{}] the {} plugin takes at most {} index tensors and {} result dims", op, gpu::kGpuLabel, gpu::kMaxIndices,
      gpu::kMaxDims);
  IndexPlan p;
  p.shape = g.shape;
  gpu::IndexArgs& a = p.args;
  int64_t numel = 1;
  for (int64_t s : g.shape) numel *= s;
  for (int64_t d : g.dims) {
    const Tensor& t = idx[static_cast<size_t>(d)];
    const int64_t size = self.size(d);
    if (numel > 0 && t.numel() > 0) {
      const auto [lo, hi] = index_extremes(t);
      const int64_t floor = wrap_negative ? -size : 0;
      EMBER_CHECK_INDEX(lo >= floor && hi < size, "[{}] index {} is out of bounds for dimension {} with size {}", op,
                        lo < floor ? lo : hi, d, size);
    }
    const int k = a.nindex++;
    a.index[k] = static_cast<const int64_t*>(t.data_ptr());
    a.index_size[k] = size;
    a.index_self_stride[k] = self.stride(d);
    p.held.push_back(t);
  }
  auto plain = [&](int64_t d) {
    a.sizes[a.ndim] = self.size(d);
    a.self_strides[a.ndim++] = self.stride(d);
  };
  auto rest = [&](bool before) {
    for (int64_t d = 0; d < self.dim(); ++d)
      if (!idx[static_cast<size_t>(d)].defined() && (g.adjacent && d < g.dims.front()) == before) plain(d);
  };
  if (g.dims.empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) plain(d);
  } else {
    rest(true);
    const auto nb = static_cast<int64_t>(g.bshape.size());
    for (int64_t j = 0; j < nb; ++j) {
      for (int k = 0; k < a.nindex; ++k) {
        const Tensor& t = p.held[static_cast<size_t>(k)];
        const int64_t td = j - (nb - t.dim());
        a.index_strides[k][a.ndim] = td < 0 || t.size(td) == 1 ? 0 : t.stride(td);
      }
      a.sizes[a.ndim++] = g.bshape[static_cast<size_t>(j)];
    }
    rest(false);
  }
  a.numel = numel;
  a.self = static_cast<char*>(self.data_ptr());
  a.itemsize = static_cast<int>(self.itemsize());
  a.dtype = static_cast<int8_t>(self.dtype());
  return p;
}

// `other` (of the plan's shape, any strides) as the plan's other operand.
void set_other(gpu::IndexArgs& a, const Tensor& other) {
  for (int d = 0; d < a.ndim; ++d) a.other_strides[d] = other.stride(d);
  a.other = static_cast<char*>(other.data_ptr());
}

// One index tensor along dim (index_fill_, index_add_, index_copy_): the plan of self[..., index],
// a 0-dim self taken as a 1-element 1-d one (as the cpu's).
IndexPlan plan_at_dim(const char* op, bool wrap_negative, Tensor& self, int64_t dim, const Tensor& index) {
  const Tensor target = self.dim() == 0 ? self.view({1}) : self;
  std::vector<std::optional<Tensor>> idx(static_cast<size_t>(self.dim() == 0 ? 0 : dim));
  idx.emplace_back(index.reshape({index.numel()}));
  return plan_index(op, wrap_negative, target, idx);
}

// Puts (or, accumulating, adds) `values` (of the plan's shape, or broadcasting to it) through
// the plan into self (the narrow integers through add_through_int32, as scatter_add_).
void put_through(const char* op, IndexPlan& p, Tensor& self, const Tensor& values, bool accumulate) {
  if (p.args.numel == 0) return;
  const Tensor v = values.expand(p.shape);
  const ScalarType dt = self.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(!accumulate || !is_complex_type(dt), "[{}] the {} plugin has no complex accumulation", op,
                              gpu::kGpuLabel);
  if (accumulate && adds_through_int32(dt)) {
    const Tensor w = v.to(kInt32);
    add_through_int32(self, [&](Tensor& acc) {
      gpu::IndexArgs a = p.args;
      a.self = static_cast<char*>(acc.data_ptr());
      a.itemsize = static_cast<int>(acc.itemsize());
      a.dtype = static_cast<int8_t>(kInt32);
      set_other(a, w);
      check_launch(gpu::launch_index(gpu::IndexMode::Accumulate, a, stream()), op, kInt32);
    });
    return;
  }
  set_other(p.args, v);
  check_launch(gpu::launch_index(accumulate ? gpu::IndexMode::Accumulate : gpu::IndexMode::Put, p.args, stream()), op,
               dt);
}

}  // namespace

Tensor flat_positions(const Tensor& t) {
  const Tensor nz = EMBER_GPU_NS::nonzero(t.reshape({-1}));
  return nz.view({nz.size(0)});
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  native::check_defined("index_select", self, "self");
  native::check_defined("index_select", index, "index");
  dim = native::check_index_select(gpu::kGpuDevice, self, dim, index, self);
  OptionalDeviceGuard guard(self.device());
  const Tensor idx = index.to(kInt64).reshape({-1});
  if (self.dim() == 0) return select_rows("index_select", self.reshape({1}), 0, idx).reshape({});
  return select_rows("index_select", self, dim, idx);
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  native::check_defined("embedding", weight, "weight");
  native::check_defined("embedding", indices, "indices");
  native::check_embedding(gpu::kGpuDevice, weight, indices);
  OptionalDeviceGuard guard(weight.device());
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end());
  shape.push_back(weight.size(1));
  return select_rows("embedding", weight, 0, indices.to(kInt64).reshape({-1})).view(shape);
}

// The inputs copied into slices of one contiguous result (native::cat_shape's rules: promotion,
// legacy 1-d empties skipped).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const native::CatShape cs = native::cat_shape(
      tensors, dim, [](const Tensor& a, const Tensor& b) { native::check_same_device("cat", gpu::kGpuDevice, a, b); });
  OptionalDeviceGuard guard(tensors[0].device());
  if (cs.all_skipped) return empty_cuda({0}, cs.dtype);
  Tensor out = empty_cuda(cs.sizes, cs.dtype);
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    if (native::cat_skips(t)) continue;
    if (t.numel() > 0) {
      Tensor part = ember::slice(out, cs.dim, at, at + t.size(cs.dim), 1);
      EMBER_GPU_NS::copy_(part, t, false);
    }
    at += t.size(cs.dim);
  }
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  const char* op = "gather";
  native::check_defined(op, self, "self");
  native::check_defined(op, index, "index");
  dim = maybe_wrap_dim(dim, self.dim(), op);
  native::check_gather_scatter(gpu::kGpuDevice, op, self, dim, index, nullptr);
  OptionalDeviceGuard guard(self.device());
  Tensor out = empty_cuda(index.sizes(), self.dtype());
  if (out.numel() == 0) return out;
  check_index_range(op, index, dim, native::sizes1(self)[static_cast<size_t>(dim)]);
  check_launch(gpu::launch_gather(gather_args(op, self, dim, index, out), stream()), op, self.dtype());
  return out;
}

Tensor& scatter_add_(Tensor& self, int64_t dim_in, const Tensor& index, const Tensor& src) {
  const char* op = "scatter_add_";
  OptionalDeviceGuard guard(device_of(self));
  const std::optional<int64_t> d = prepare_scatter(op, self, dim_in, index, &src);
  if (!d) return self;
  const int64_t dim = *d;
  const ScalarType dt = self.dtype();
  if (adds_through_int32(dt)) {
    const Tensor s = src.to(kInt32);
    add_through_int32(self, [&](Tensor& acc) {
      check_launch(gpu::launch_scatter_add(gather_args(op, acc, dim, index, s), stream()), op, kInt32);
    });
    return self;
  }
  const Tensor s = native::same_storage(self, src) ? materialize(src) : src;
  check_launch(gpu::launch_scatter_add(gather_args(op, self, dim, index, s), stream()), op, dt);
  return self;
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const auto shape = native::masked_fill_shape("masked_fill", self, mask);
  OptionalDeviceGuard guard(self.device());
  Tensor out = empty_cuda(shape, self.dtype());
  return masked_fill_into("masked_fill", out, self, mask, value);
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  native::check_masked_fill("masked_fill_", self, mask);
  masked_fill_into("masked_fill_", self, self, mask, value);
  return self;
}

Tensor any(const Tensor& self) { return count_test("any", self, true, {}, false); }
Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return count_test("any", self, true, IntArrayRef(&dim, 1), keepdim);
}
Tensor all(const Tensor& self) { return count_test("all", self, false, {}, false); }
Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return count_test("all", self, false, IntArrayRef(&dim, 1), keepdim);
}
// any.dims / all.dims: None or an empty list reduce every dim (as the cpu's).
Tensor any_dims(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return count_test("any", self, true, dim.value_or(IntArrayRef()), keepdim);
}
Tensor all_dims(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return count_test("all", self, false, dim.value_or(IntArrayRef()), keepdim);
}
Tensor& any_dims_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  return count_test_out("any", self, true, dim.value_or(IntArrayRef()), keepdim, out);
}
Tensor& all_dims_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  return count_test_out("all", self, false, dim.value_or(IntArrayRef()), keepdim, out);
}

// equal and allclose as one device reduction and one sync (the bool the schema returns).
bool equal(const Tensor& self, const Tensor& other) {
  native::equal_dtype(gpu::kGpuDevice, self, other);
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  OptionalDeviceGuard guard(self.device());
  return count_test("equal", ember::eq(self, other), false, {}, false).item().toBool();
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  native::check_allclose(gpu::kGpuDevice, self, other, rtol, atol);
  native::broadcast_shapes(self.sizes(), other.sizes(), "allclose");
  OptionalDeviceGuard guard(self.device());
  const Tensor close = ember::isclose(self, other, rtol, atol, equal_nan);
  return count_test("allclose", close, false, {}, false).item().toBool();
}

void threshold_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& threshold, Tensor& grad_input,
                            OutKind kind) {
  const char* name = "threshold_backward";
  native::check_defined(name, grad_output, "grad_output");
  OptionalDeviceGuard guard(grad_output.device());
  TensorIter it(name);
  const ScalarType result = native::threshold_backward_result(name, grad_output, self);
  native::binary_meta(it, name, result, grad_output, &self, grad_input, kind);
  const ScalarType c = compute_dtype(result);
  check_launch(
      gpu::launch_binary(gpu::Binary::ThresholdBackward, to_dt(c), kernel_iter(it), to_value(threshold, c), stream()),
      name, c);
}

// The cpu's sums in float64: rows scattered with device atomics (so the order of the additions,
// and the last bits, may differ from the cpu's), padding_idx's rows left out, and each row's
// gradient divided by its index count with scale_grad_by_freq.
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  OptionalDeviceGuard guard(device_of(grad_output));
  const int64_t D = native::nn::check_embedding_dense_backward(op, gpu::kGpuDevice, grad_output, indices, num_weights);
  const Tensor idx = indices.reshape({-1}).to(kInt64).contiguous();
  const int64_t n = idx.numel();
  check_rows(op, idx, num_weights, "rows (num_weights)");
  const TensorOptions f64 = TensorOptions().dtype(kFloat64).device(grad_output.device());
  Tensor g = grad_output.to(kFloat64).reshape({n, D});
  g = ember::masked_fill(g, ember::eq(idx, Scalar(padding_idx)).unsqueeze(1), Scalar(0.0));
  if (scale_grad_by_freq) {
    Tensor counts = ember::zeros({num_weights}, f64);
    counts.scatter_add_(0, idx, ember::ones({n}, f64));
    g = g * ember::reciprocal(ember::index_select(counts, 0, idx)).unsqueeze(1);
  }
  Tensor r = ember::zeros({num_weights, D}, f64);
  r.scatter_add_(0, idx.unsqueeze(1).expand({n, D}), g);
  return r.to(grad_output.dtype());
}

}  // namespace ember::EMBER_GPU_NS

namespace ember::EMBER_GPU_NS {

// The inclusive count of nonzero elements in row-major order (one scan), then a thread per element
// writes a hit's coordinates at its count (Note [GPU scans] in kernels/scan.cu).
Tensor nonzero(const Tensor& self) {
  native::check_defined("nonzero", self, "self");
  OptionalDeviceGuard guard(device_of(self));
  const int64_t nd = self.dim();
  EMBER_CHECK_NOT_IMPLEMENTED(nd <= gpu::kMaxDims, "[nonzero] the {} plugin takes at most {} dims", gpu::kGpuLabel,
                              gpu::kMaxDims);
  const int64_t numel = self.numel();
  Tensor inclusive;
  int64_t count = 0;
  if (numel > 0) {
    const Tensor hit = ember::ne(self, Scalar(int64_t{0})).reshape({numel});
    inclusive = scan("nonzero", hit.contiguous(), 0, kInt64, false);
    count = EMBER_GPU_NS::_local_scalar_dense(inclusive[numel - 1]).to<int64_t>();
  }
  // LibTorch's layout: [count, ndim] with strides [1, count].
  Tensor out = empty_strided_cuda({count, nd}, {1, count}, kInt64);
  gpu::NonzeroArgs a;
  a.ndim = static_cast<int>(nd);
  a.numel = numel;
  a.count = count;
  for (int d = 0; d < a.ndim; ++d) a.sizes[d] = self.size(d);
  if (count > 0) a.inclusive = static_cast<const int64_t*>(inclusive.data_ptr());
  a.out = static_cast<int64_t*>(out.data_ptr());
  check_launch(gpu::launch_nonzero(a, stream()), "nonzero", kInt64);
  return out;
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  const DimVector shape = native::check_masked_select(gpu::kGpuDevice, self, mask);
  OptionalDeviceGuard guard(device_of(self));
  const Tensor pos = flat_positions(mask.expand(shape));
  return select_rows("masked_select", self.expand(shape).reshape({-1}), 0, pos);
}

// The source's first (mask count) elements scattered to the mask's flat positions.
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  native::check_masked_scatter(gpu::kGpuDevice, self, mask, source);
  OptionalDeviceGuard guard(device_of(self));
  const Tensor pos = flat_positions(mask.expand(self.sizes()));
  const int64_t n = pos.numel();
  EMBER_CHECK(source.numel() >= n,
              "[masked_scatter_] argument 'source': expected at least {} elements (the mask's true count), got {}", n,
              source.numel());
  if (n == 0) return self;
  const Tensor src = source.reshape({-1}).slice(0, 0, n).contiguous();  // a copy when it aliases self
  Tensor flat = self.is_contiguous() ? self.view({-1}) : self.contiguous().view({-1});
  check_launch(gpu::launch_scatter(gather_args("masked_scatter_", flat, 0, pos, src), stream()), "masked_scatter_",
               self.dtype());
  if (!self.is_contiguous()) EMBER_GPU_NS::copy_(self, flat.view(self.sizes()), false);
  return self;
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const DimVector shape = native::check_masked_scatter_functional(gpu::kGpuDevice, self, mask, source);
  OptionalDeviceGuard guard(device_of(self));
  Tensor r = empty_cuda(shape, self.dtype());
  EMBER_GPU_NS::copy_(r, self, false);
  return EMBER_GPU_NS::masked_scatter_(r, mask, source);
}

Tensor& masked_scatter_out(const Tensor& self, const Tensor& mask, const Tensor& source, Tensor& out) {
  const Tensor r = EMBER_GPU_NS::masked_scatter(self, mask, source);
  check_out("masked_scatter", out, self.dtype());
  return write_out(out, r, "masked_scatter");
}

// Index i repeated repeats[i] times: the repeats' range and total checked on the host (one sync
// each), their running sums scanned, then a thread per index fills its run.
Tensor repeat_interleave_tensor(const Tensor& repeats, std::optional<int64_t> output_size) {
  native::check_repeat_interleave(repeats, output_size);
  OptionalDeviceGuard guard(device_of(repeats));
  const int64_t n = repeats.numel();
  Tensor inclusive;
  int64_t total = 0;
  if (n > 0) {
    EMBER_CHECK(index_extremes(repeats).first >= 0, "[repeat_interleave] repeats can not be negative");
    inclusive = scan("repeat_interleave", repeats.contiguous(), 0, kInt64, false);
    total = EMBER_GPU_NS::_local_scalar_dense(inclusive[n - 1]).to<int64_t>();
  }
  EMBER_CHECK(!output_size || *output_size == total,
              "[repeat_interleave] allocated size does not match required size: output_size is {}, the repeats sum "
              "to {}",
              output_size.value_or(0), total);
  Tensor out = empty_cuda({total}, kInt64);
  gpu::RepeatArgs a;
  a.n = total > 0 ? n : 0;
  if (a.n > 0) a.inclusive = static_cast<const int64_t*>(inclusive.data_ptr());
  a.out = static_cast<int64_t*>(out.data_ptr());
  check_launch(gpu::launch_repeat_index(a, stream()), "repeat_interleave", kInt64);
  return repeats.dtype() == kInt64 ? out : out.to(repeats.dtype());
}

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  OptionalDeviceGuard guard(device_of(self));
  IndexPlan p = plan_index("index", true, self, indices);
  Tensor out = empty_cuda(p.shape, self.dtype());
  set_other(p.args, out);
  check_launch(gpu::launch_index(gpu::IndexMode::Gather, p.args, stream()), "index", self.dtype());
  return out;
}

Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate) {
  native::check_index_put(gpu::kGpuDevice, self, values);
  native::check_writable("index_put_", self);
  OptionalDeviceGuard guard(device_of(self));
  IndexPlan p = plan_index("index_put_", true, self, indices);
  // values broadcast to the indexing result (leading 1s stripped), copied first when they alias self.
  const IntArrayRef vs = native::index_put_values_sizes(values, p.shape);
  Tensor v = values.reshape(vs);
  if (native::same_storage(v, self)) v = v.contiguous().clone();
  put_through("index_put_", p, self, v, accumulate);
  return self;
}

Tensor take(const Tensor& self, const Tensor& index) {
  native::check_take(gpu::kGpuDevice, self, index);
  OptionalDeviceGuard guard(device_of(self));
  Tensor out = empty_cuda(index.sizes(), self.dtype());
  if (index.numel() == 0) return out;
  const int64_t n = self.numel();
  const auto [lo, hi] = index_extremes(index);
  EMBER_CHECK_INDEX(lo >= -n && hi < n, "[take] out of range: tried to access index {} on a tensor of {} elements.",
                    lo < -n ? lo : hi, n);
  const Tensor flat = self.reshape({n});
  const Tensor idx = index.reshape({index.numel()});
  IndexPlan p = plan_index("take", true, flat, {idx});
  set_other(p.args, out.view({index.numel()}));
  check_launch(gpu::launch_index(gpu::IndexMode::Gather, p.args, stream()), "take", self.dtype());
  return out;
}

Tensor& take_out(const Tensor& self, const Tensor& index, Tensor& out) {
  const Tensor r = EMBER_GPU_NS::take(self, index);
  check_out("take", out, self.dtype());
  return write_out(out, r, "take");
}

Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  native::check_defined("index_select", out, "out");
  native::check_index_select(gpu::kGpuDevice, self, dim, index, out);
  const Tensor r = EMBER_GPU_NS::index_select(self, dim, index);
  native::resize_output(out, r.sizes(), "index_select");
  return EMBER_GPU_NS::copy_(out, r, false);
}

Tensor& index_fill__int_scalar(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = native::check_index_fill(gpu::kGpuDevice, self, dim, index);
  OptionalDeviceGuard guard(device_of(self));
  IndexPlan p = plan_at_dim("index_fill_", true, self, dim, index);
  put_through("index_fill_", p, self, scalar_tensor(value, self.dtype()), false);
  return self;
}

// index_add_ and index_copy_: source (self's shape with the index's length at dim) through the
// plan of self[..., index] (index values not wrapped, as the cpu's).
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  dim = native::check_index_add_copy(gpu::kGpuDevice, "index_add_", self, dim, index, source, true);
  OptionalDeviceGuard guard(device_of(self));
  IndexPlan p = plan_at_dim("index_add_", false, self, dim, index.to(kInt64));
  const bool one = alpha.isFloatingPoint() ? alpha.toDouble() == 1.0 : alpha.toLong() == 1;
  Tensor src = source.reshape(p.shape);
  // alpha in self's dtype times each element, rounded to the dtype, as the cpu's (bool ignores it).
  if (!one && self.dtype() != kBool)
    src = ember::mul(src, scalar_tensor(alpha, self.dtype()));
  else if (native::same_storage(src, self))
    src = src.clone();
  put_through("index_add_", p, self, src, true);
  return self;
}

Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  dim = native::check_index_add_copy(gpu::kGpuDevice, "index_copy_", self, dim, index, source, false);
  OptionalDeviceGuard guard(device_of(self));
  IndexPlan p = plan_at_dim("index_copy_", false, self, dim, index);
  Tensor src = source.reshape(p.shape);
  if (native::same_storage(src, self)) src = src.clone();
  put_through("index_copy_", p, self, src, false);
  return self;
}

// The out= forms of index_add_ and index_copy_, as the cpu's: a copy of self changed in place by
// `apply`, then written to out.
template <class Apply>
Tensor& out_of_copy(const char* op, const Tensor& self, Tensor& out, Apply&& apply) {
  OptionalDeviceGuard guard(device_of(self));
  Tensor r = empty_cuda(self.sizes(), self.dtype());
  EMBER_GPU_NS::copy_(r, self, false);
  apply(r);
  native::prepare_same_out(op, gpu::kGpuDevice, self, out);
  return EMBER_GPU_NS::copy_(out, r, false);
}

Tensor& index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                      Tensor& out) {
  return out_of_copy("index_add", self, out,
                     [&](Tensor& r) { EMBER_GPU_NS::index_add_(r, dim, index, source, alpha); });
}

Tensor& index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Tensor& out) {
  return out_of_copy("index_copy", self, out, [&](Tensor& r) { EMBER_GPU_NS::index_copy_(r, dim, index, source); });
}

// scatter_ with a tensor or a value: one write per index element (of duplicates, one lands).
Tensor& scatter__src(Tensor& self, int64_t dim_in, const Tensor& index, const Tensor& src) {
  const char* op = "scatter_";
  OptionalDeviceGuard guard(device_of(self));
  const std::optional<int64_t> d = prepare_scatter(op, self, dim_in, index, &src);
  if (!d) return self;
  const int64_t dim = *d;
  const Tensor s = native::same_storage(self, src) ? materialize(src) : src;
  check_launch(gpu::launch_scatter(gather_args(op, self, dim, index, s), stream()), op, self.dtype());
  return self;
}

Tensor& scatter__value(Tensor& self, int64_t dim_in, const Tensor& index, const Scalar& value) {
  const char* op = "scatter_";
  OptionalDeviceGuard guard(device_of(self));
  const std::optional<int64_t> d = prepare_scatter(op, self, dim_in, index, nullptr);
  if (!d) return self;
  const int64_t dim = *d;
  const Tensor v = scalar_tensor(value, self.dtype()).expand(native::sizes1(index));
  check_launch(gpu::launch_scatter(gather_args(op, self, dim, index, v), stream()), op, self.dtype());
  return self;
}

}  // namespace ember::EMBER_GPU_NS

namespace ember::EMBER_GPU_NS {
namespace {

// What a position reached by scatter_reduce starts from when include_self is false (the cpu's).
Scalar reduce_identity(native::ScatterReduce kind, ScalarType dt) {
  using R = native::ScatterReduce;
  if (kind == R::Prod) return Scalar(int64_t{1});
  if (dt == kBool) return Scalar(kind == R::Amin);
  if (kind != R::Amax && kind != R::Amin) return Scalar(int64_t{0});
  const bool max = kind == R::Amax;
  if (is_floating_type(dt))
    return Scalar(max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  switch (dt) {
    case kUInt8:
      return Scalar(int64_t{max ? 0 : 255});
    case kInt8:
      return Scalar(int64_t{max ? -128 : 127});
    case kInt16:
      return Scalar(int64_t{max ? -32768 : 32767});
    case kInt32:
      return Scalar(int64_t{max ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max()});
    default:
      return Scalar(max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max());
  }
}

gpu::ScatterOp scatter_op(native::ScatterReduce kind) {
  using R = native::ScatterReduce;
  switch (kind) {
    case R::Prod:
      return gpu::ScatterOp::Prod;
    case R::Amax:
      return gpu::ScatterOp::Amax;
    case R::Amin:
      return gpu::ScatterOp::Amin;
    default:
      return gpu::ScatterOp::Sum;
  }
}

}  // namespace

// Each src element reduces into its position with an atomic step (kernels/index.cu); positions
// reached start from the identity when include_self is false; mean divides the sums by the counts
// (+ 1 with self) where a position was reached: true division, floor for integers (the cpu's).
Tensor& scatter_reduce__two(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src_in,
                            std::string_view reduce, bool include_self) {
  const char* op = "scatter_reduce";
  const auto [kind, d] = native::check_scatter_reduce(gpu::kGpuDevice, self, dim, index, src_in, reduce);
  native::check_writable(op, self);
  if (index.numel() == 0) return self;
  OptionalDeviceGuard guard(device_of(self));
  check_index_range(op, index, d, native::sizes1(self)[static_cast<size_t>(d)]);
  const Tensor src = native::same_storage(self, src_in) ? materialize(src_in) : src_in;
  const ScalarType dt = self.dtype();
  if (!include_self) {
    const Tensor v = scalar_tensor(reduce_identity(kind, dt), dt).expand(native::sizes1(index));
    check_launch(gpu::launch_scatter(gather_args(op, self, d, index, v), stream()), op, dt);
  }
  check_launch(gpu::launch_scatter_reduce(scatter_op(kind), gather_args(op, self, d, index, src), stream()), op, dt);
  if (kind != native::ScatterReduce::Mean) return self;
  const TensorOptions i64 = TensorOptions().dtype(kInt64).device(self.device());
  Tensor counts = ember::zeros(self.sizes(), i64);
  const Tensor ones = ember::ones({1}, i64).expand(native::sizes1(index));
  check_launch(gpu::launch_scatter_add(gather_args(op, counts, d, index, ones), stream()), op, kInt64);
  // Positions not reached keep their value; their divisor is made 1 (an integer division by 0 raises).
  const Tensor divisor = ember::clamp_min(include_self ? counts + Scalar(int64_t{1}) : counts, Scalar(int64_t{1}));
  const Tensor mean = is_floating_type(dt) ? ember::div(self, divisor) : ember::div(self, divisor, "floor");
  EMBER_GPU_NS::copy_(self, ember::where(ember::gt(counts, Scalar(int64_t{0})), mean, self), false);
  return self;
}

Tensor scatter_reduce_two(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self) {
  native::check_scatter_reduce(gpu::kGpuDevice, self, dim, index, src, reduce);
  OptionalDeviceGuard guard(device_of(self));
  Tensor r = empty_cuda(self.sizes(), self.dtype());
  EMBER_GPU_NS::copy_(r, self, false);
  return EMBER_GPU_NS::scatter_reduce__two(r, dim, index, src, reduce, include_self);
}

Tensor& scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               std::string_view reduce, bool include_self, Tensor& out) {
  const Tensor r = EMBER_GPU_NS::scatter_reduce_two(self, dim, index, src, reduce, include_self);
  native::prepare_same_out("scatter_reduce", gpu::kGpuDevice, self, out);
  return EMBER_GPU_NS::copy_(out, r, false);
}

}  // namespace ember::EMBER_GPU_NS
