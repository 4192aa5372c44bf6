// Host half of the GPU sorts (Note [GPU sort] in kernels/sort.cu): sort, argsort, topk, the
// order statistics kthvalue, median, nanmedian and mode, unique (flat and consecutive) and
// searchsorted / bucketize, with the
// cpu's checks and result layouts (ember/native/Rules.h's sort section, OrderRules.h).
#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"
#include "ember/native/OrderRules.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {
namespace {

namespace order = native::order;
using native::DimVector;

// The order of t's dims with w moved last (the others in order).
std::vector<int64_t> dim_last_order(int64_t nd, int64_t w) {
  std::vector<int64_t> p;
  for (int64_t d = 0; d < nd; ++d)
    if (d != w) p.push_back(d);
  p.push_back(w);
  return p;
}

// t's lines along w, contiguous with w last (a 0-dim t as one line of one element).
Tensor lines_along(const Tensor& t, int64_t w) {
  if (t.dim() == 0) return t.reshape({1});
  return ember::permute(t, dim_last_order(t.dim(), w)).contiguous();
}

// Sorts (or picks from) the contiguous lines of n elements of x; `values` and `indices` receive
// k per line (Pick::None) or one.
void sort_lines(const char* op, const Tensor& x, int64_t n, bool descending, int64_t k, gpu::Pick pick, Tensor& values,
                Tensor& indices) {
  gpu::SortArgs a;
  a.n = n;
  a.lines = n == 0 ? 0 : x.numel() / n;
  while (a.padded < n) a.padded *= 2;
  a.k = k;
  a.in = static_cast<const char*>(x.data_ptr());
  a.itemsize = static_cast<int>(x.itemsize());
  a.dtype = static_cast<int8_t>(x.dtype());
  a.descending = descending;
  a.pick = pick;
  if (a.lines == 0 || (pick == gpu::Pick::None && k == 0)) return;
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(x.dtype()), "[{}] the {} plugin does not sort complex tensors", op,
                              gpu::kGpuLabel);
  Tensor keys = empty_cuda({a.lines * a.padded}, kInt64), idx = empty_cuda({a.lines * a.padded}, kInt64);
  a.keys = static_cast<uint64_t*>(keys.data_ptr());
  a.idx = static_cast<int64_t*>(idx.data_ptr());
  a.values = static_cast<char*>(values.data_ptr());
  a.indices = static_cast<int64_t*>(indices.data_ptr());
  check_launch(gpu::launch_sort(a, stream()), op, x.dtype());
}

// The first k along dim (all when k is none) in the cpu's order: results laid out as
// native::sort_strides says, computed with dim last and copied into that layout.
std::tuple<Tensor, Tensor> sorted_along(const char* op, const Tensor& self, int64_t dim, bool descending,
                                        std::optional<int64_t> k) {
  native::check_defined(op, self, "self");
  const native::SortShape ss = native::sort_shape(op, self, dim, k);
  OptionalDeviceGuard guard(device_of(self));
  const DimVector st = native::sort_strides(self, k);
  auto result = [&](ScalarType dt) {
    return st.empty() ? empty_cuda(ss.sizes, dt) : empty_strided_cuda(ss.sizes, st, dt);
  };
  Tensor values = result(self.dtype()), indices = result(kInt64);
  // A 0-dim input keeps its value for k = 0 too (LibTorch's topk copies it).
  const int64_t n = self.dim() == 0 ? 1 : self.size(ss.dim), kk = self.dim() == 0 ? 1 : ss.k;
  const Tensor x = lines_along(self, ss.dim);
  if (self.dim() == 0) {
    Tensor v = values.view({1}), i = indices.view({1});
    sort_lines(op, x, n, descending, kk, gpu::Pick::None, v, i);
    return {values, indices};
  }
  const std::vector<int64_t> perm = dim_last_order(self.dim(), ss.dim);
  Tensor vview = ember::permute(values, perm), iview = ember::permute(indices, perm);
  const bool direct = vview.is_contiguous() && iview.is_contiguous();
  Tensor vt = direct ? vview : empty_cuda(vview.sizes(), self.dtype());
  Tensor it = direct ? iview : empty_cuda(iview.sizes(), kInt64);
  sort_lines(op, x, n, descending, kk, gpu::Pick::None, vt, it);
  if (!direct) {
    EMBER_GPU_NS::copy_(vview, vt, false);
    EMBER_GPU_NS::copy_(iview, it, false);
  }
  return {values, indices};
}

// The out= forms: both outs checked first, then written (resized to the sort's layout).
std::tuple<Tensor&, Tensor&> sorted_out(const char* op, const Tensor& self, int64_t dim, bool descending,
                                        std::optional<int64_t> k, Tensor& values, Tensor& indices) {
  native::check_defined(op, self, "self");
  for (auto [t, name, dt] :
       {std::tuple<Tensor*, const char*, ScalarType>{&values, "values", self.dtype()}, {&indices, "indices", kInt64}}) {
    native::check_defined(op, *t, name);
    native::check_same_device(op, gpu::kGpuDevice, self, *t);
    native::check_out_dtype(op, *t, dt, name);
  }
  const auto [v, i] = sorted_along(op, self, dim, descending, k);
  const DimVector st = native::sort_strides(self, k);
  for (auto [out, r] : {std::pair<Tensor*, const Tensor*>{&values, &v}, {&indices, &i}}) {
    native::resize_sort_out(*out, r->sizes(), st, op);
    native::check_out_writable(op, *out);
    EMBER_GPU_NS::copy_(*out, *r, false);
  }
  return {values, indices};
}

// One order statistic per line along p.dim: (values, indices) of p.shape.
std::tuple<Tensor, Tensor> pick_along(const char* op, const Tensor& self, const order::Pick& p, gpu::Pick pick,
                                      int64_t k = 0) {
  OptionalDeviceGuard guard(device_of(self));
  Tensor values = empty_cuda(p.shape, self.dtype()), indices = empty_cuda(p.shape, kInt64);
  const int64_t n = self.dim() == 0 ? 1 : self.size(p.dim);
  sort_lines(op, lines_along(self, p.dim), n, false, k, pick, values, indices);
  return {values, indices};
}

Tensor median_all(const char* op, const Tensor& self, gpu::Pick pick) {
  order::check_median_all(op, self);
  OptionalDeviceGuard guard(device_of(self));
  if (self.numel() == 0) {
    EMBER_CHECK_INDEX(self.is_floating_point(), "[{}] cannot compute the median of an empty {} tensor", op,
                      self.dtype());
    Tensor r = empty_cuda({}, self.dtype());
    return EMBER_GPU_NS::fill_(r, Scalar(std::numeric_limits<double>::quiet_NaN()));
  }
  return std::get<0>(pick_along(op, self.reshape({self.numel()}), order::Pick{0, {}}, pick));
}

// searchsorted / bucketize: boundaries and values converted to their promoted dtype (as the
// cpu's), the sorter's range checked on the host, then a thread per value searches its row.
Tensor search(const char* op, const Tensor& boundaries, const Tensor& values, bool out_int32, bool right,
              const std::optional<Tensor>& sorter) {
  native::check_same_device(op, gpu::kGpuDevice, boundaries, values);
  OptionalDeviceGuard guard(device_of(boundaries));
  const ScalarType ct = promote_types(boundaries.dtype(), values.dtype());
  const Tensor b = boundaries.to(ct).contiguous(), v = values.to(ct).contiguous();
  gpu::SearchArgs a;
  a.M = boundaries.size(-1);
  a.inner = values.dim() == 0 ? 1 : values.size(-1);
  a.one_d = boundaries.dim() == 1;
  a.n = values.numel();
  a.right = right;
  a.out_int32 = out_int32;
  Tensor s;
  if (sorter && sorter->defined()) {
    s = sorter->to(kInt64).contiguous();
    if (s.numel() > 0) {
      const auto [lo, hi] = index_extremes(s);
      EMBER_CHECK_INDEX(lo >= 0 && hi < a.M, "[{}] argument 'sorter': index {} is out of range for {} boundaries", op,
                        lo < 0 ? lo : hi, a.M);
    }
    a.sorter = static_cast<const int64_t*>(s.data_ptr());
  }
  Tensor out = empty_cuda(values.sizes(), out_int32 ? kInt32 : kInt64);
  a.boundaries = static_cast<const char*>(b.data_ptr());
  a.values = static_cast<const char*>(v.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  a.dtype = static_cast<int8_t>(ct);
  a.itemsize = static_cast<int>(b.itemsize());
  check_launch(gpu::launch_search(a, stream()), op, ct);
  return out;
}

// A 0-d tensor of a Scalar value searched against boundaries: the boundaries' dtype, or the
// default dtype for a floating value among integer boundaries (LibTorch's wrapped-number rule).
Tensor scalar_values(const Scalar& s, const Tensor& boundaries) {
  OptionalDeviceGuard guard(device_of(boundaries));
  const bool fl = s.isFloatingPoint() && !boundaries.is_floating_point();
  Tensor t = empty_cuda({}, fl ? get_default_dtype() : boundaries.dtype());
  return EMBER_GPU_NS::fill_(t, s);
}

// The run start flags of n items: the first, then wherever `differs` (n - 1 flags, built only when
// n > 0) says an item differs from the one before.
template <class Differs>
Tensor run_starts(int64_t n, Device device, Differs&& differs) {
  const TensorOptions b = TensorOptions().dtype(kBool).device(device);
  return n == 0 ? ember::empty({0}, b) : ember::cat({ember::ones({1}, b), differs()}, 0);
}

// The runs of a line by their start flags: each run's length, and each position's run.
std::pair<Tensor, Tensor> runs_of(const Tensor& start, const Tensor& pos) {
  const int64_t n = start.numel();
  const Tensor end = ember::cat({pos.slice(0, 1, pos.size(0), 1), ember::full({1}, Scalar(n), pos.options())}, 0);
  const Tensor run = EMBER_GPU_NS::cumsum(start, 0, kInt64) - 1;
  return {end - pos, run};
}

// unique over the flattened self (Note [CPU order statistics]: sorted, or consecutive runs): a
// run starts wherever a value differs from the one before it (ne: each NaN its own run, -0.0
// equal to 0.0); sorted runs come from the stable sort, so equal values keep their index order.
std::tuple<Tensor, Tensor, Tensor> unique_flat(const char* op, const Tensor& self, bool sort, bool return_inverse,
                                               bool return_counts) {
  order::check_unique(op, self);
  OptionalDeviceGuard guard(device_of(self));
  const int64_t n = self.numel();
  const TensorOptions i64 = TensorOptions().dtype(kInt64).device(self.device());
  Tensor v = self.reshape({n}), perm;
  if (sort && n > 0) std::tie(v, perm) = EMBER_GPU_NS::sort(v, 0, false);
  const Tensor start =
      run_starts(n, self.device(), [&] { return ember::ne(v.slice(0, 1, n, 1), v.slice(0, 0, n - 1, 1)); });
  const Tensor pos = flat_positions(start);
  const Tensor values = ember::index_select(v, 0, pos);
  const auto [counts, run] = runs_of(start, pos);
  Tensor inverse = ember::empty({0}, i64);
  if (return_inverse) {
    inverse = run;
    if (perm.defined()) inverse = ember::empty({n}, i64).scatter_(0, perm, run);
    inverse = inverse.view(self.sizes());
  }
  return {values, inverse, return_counts ? counts : ember::empty({0}, i64)};
}

// The stable lexicographic order of the n rows of `rows` (n, len): a least-significant-column-first
// radix order, one stable sort per column (Note [GPU sort]: every sort is stable), so equal rows
// keep their index order as the cpu's std::stable_sort does.
Tensor lexicographic_order(const Tensor& rows) {
  const int64_t n = rows.size(0), len = rows.size(1);
  Tensor order = ember::arange(n, TensorOptions().dtype(kInt64).device(rows.device()));
  for (int64_t k = len - 1; k >= 0; --k) {
    const Tensor key = ember::index_select(rows.select(1, k), 0, order);
    order = ember::index_select(order, 0, std::get<1>(EMBER_GPU_NS::sort(key, 0, false)));
  }
  return order;
}

// unique slices along dim, sorted (unique_dim) or consecutive runs (unique_consecutive): slices
// differ where some element is smaller or larger (NaN equals NaN here, as the cpu's comparisons);
// the values keep LibTorch's layout (the slices stacked along dim 0, moved back to dim); inverse
// and counts always.
std::tuple<Tensor, Tensor, Tensor> unique_slices(const char* op, const Tensor& self, int64_t dim, bool sort) {
  const int64_t w = order::check_unique_dim(op, self, dim);
  OptionalDeviceGuard guard(device_of(self));
  Tensor first = ember::movedim(self, w, 0).contiguous();
  const int64_t n = first.size(0), len = n == 0 ? 0 : first.numel() / n;
  Tensor order;
  if (sort && n > 1 && len > 0) {
    order = lexicographic_order(first.reshape({n, len}));
    first = ember::index_select(first, 0, order);
  }
  const Tensor start = run_starts(n, self.device(), [&] {
    const Tensor rows = first.reshape({n, len});
    const Tensor a = rows.slice(0, 1, n, 1), b = rows.slice(0, 0, n - 1, 1);
    return ember::any(ember::logical_or(ember::lt(a, b), ember::gt(a, b)), 1, false);
  });
  const Tensor pos = flat_positions(start);
  const Tensor values = ember::movedim(ember::index_select(first, 0, pos), 0, w);
  const auto [counts, run] = runs_of(start, pos);
  const Tensor inverse = order.defined() ? ember::empty({n}, run.options()).scatter_(0, order, run) : run;
  return {values, inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool /*sorted: always*/, bool return_inverse,
                                            bool return_counts) {
  return unique_flat("_unique2", self, true, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool /*sorted: always*/,
                                              bool /*return_inverse*/, bool /*return_counts*/) {
  return unique_slices("unique_dim", self, dim, true);  // LibTorch returns inverse and counts anyway
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  if (dim && self.dim() > 0) return unique_slices("unique_consecutive", self, *dim, false);
  return unique_flat("unique_consecutive", self, false, return_inverse, return_counts);
}

#include "ember/native/SearchEntryPoints.inc"

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return sorted_along("sort", self, dim, descending, std::nullopt);
}
std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, std::optional<bool> /*stable: always*/, int64_t dim,
                                       bool descending) {
  return sorted_along("sort", self, dim, descending, std::nullopt);
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(sorted_along("argsort", self, dim, descending, std::nullopt));
}
// Sorted whatever `sorted` says (the cpu's unsorted order is its selection's; any order is PyTorch's promise).
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/) {
  return sorted_along("topk", self, dim, largest, k);
}
std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim, bool descending, Tensor& values,
                                         Tensor& indices) {
  return sorted_out("sort", self, dim, descending, std::nullopt, values, indices);
}
std::tuple<Tensor&, Tensor&> topk_values(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/,
                                         Tensor& values, Tensor& indices) {
  return sorted_out("topk", self, dim, largest, k, values, indices);
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  return pick_along("kthvalue", self, order::check_kthvalue(self, k, dim, keepdim), gpu::Pick::Kth, k);
}
Tensor median(const Tensor& self) { return median_all("median", self, gpu::Pick::Median); }
Tensor nanmedian(const Tensor& self) { return median_all("nanmedian", self, gpu::Pick::NanMedian); }
std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return pick_along("median", self, order::check_pick("median", self, dim, keepdim, false), gpu::Pick::Median);
}
std::tuple<Tensor, Tensor> nanmedian_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return pick_along("nanmedian", self, order::check_pick("nanmedian", self, dim, keepdim, false), gpu::Pick::NanMedian);
}
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  return pick_along("mode", self, order::check_pick("mode", self, dim, keepdim, true), gpu::Pick::Mode);
}

}  // namespace ember::EMBER_GPU_NS
