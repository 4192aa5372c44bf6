// Meta sort, argsort and topk (plugins/cpu/sort.cpp): the sizes and checks of native::sort_shape.
#include "MetaHelpers.h"

namespace ember::meta {
namespace {

std::tuple<Tensor, Tensor> sorted_along(const Tensor& self, int64_t dim, std::optional<int64_t> k, const char* op) {
  native::check_defined(op, self, "self");
  const native::SortShape s = native::sort_shape(op, self, dim, k);
  const auto st = native::sort_strides(self, k);
  if (st.empty()) return {empty_meta(s.sizes, self.dtype()), empty_meta(s.sizes, kInt64)};
  return {native::empty_strided_on(kMeta, s.sizes, st, self.dtype()),
          native::empty_strided_on(kMeta, s.sizes, st, kInt64)};
}

std::tuple<Tensor&, Tensor&> sorted_out(const Tensor& self, int64_t dim, std::optional<int64_t> k, Tensor& values,
                                        Tensor& indices, const char* op) {
  native::check_defined(op, self, "self");
  check_out(op, values, self.dtype(), "values");
  check_out(op, indices, kInt64, "indices");
  const auto [v, i] = sorted_along(self, dim, k, op);
  const auto st = native::sort_strides(self, k);
  native::resize_sort_out(values, v.sizes(), st, op);
  native::resize_sort_out(indices, i.sizes(), st, op);
  write_out(values, v, op);
  write_out(indices, i, op);
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool /*descending*/) {
  return sorted_along(self, dim, std::nullopt, "sort");
}
std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, OptBool /*stable*/, int64_t dim, bool /*descending*/) {
  return sorted_along(self, dim, std::nullopt, "sort");
}
Tensor argsort(const Tensor& self, int64_t dim, bool /*descending*/) {
  return std::get<1>(sorted_along(self, dim, std::nullopt, "argsort"));
}
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool /*largest*/, bool /*sorted*/) {
  return sorted_along(self, dim, k, "topk");
}
std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim, bool /*descending*/, Tensor& values,
                                         Tensor& indices) {
  return sorted_out(self, dim, std::nullopt, values, indices, "sort");
}
std::tuple<Tensor&, Tensor&> topk_values(const Tensor& self, int64_t k, int64_t dim, bool /*largest*/, bool /*sorted*/,
                                         Tensor& values, Tensor& indices) {
  return sorted_out(self, dim, k, values, indices, "topk");
}

}  // namespace ember::meta
