// Meta order statistics, unique, searchsorted/bucketize, dot and mv (plugins/cpu/order.cpp), with
// the cpu kernels' checks and shapes (ember/native/OrderRules.h). unique's sizes are the data.
#include "MetaHelpers.h"
#include "ember/native/OrderRules.h"

namespace ember::meta {

namespace order = native::order;

namespace {

std::tuple<Tensor, Tensor> picked(const Tensor& self, const order::Pick& p) {
  return {empty_meta(p.shape, self.dtype()), empty_meta(p.shape, kInt64)};
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  return picked(self, order::check_kthvalue(self, k, dim, keepdim));
}
Tensor median(const Tensor& self) {
  order::check_median_all("median", self);
  return empty_meta({}, self.dtype());
}
Tensor nanmedian(const Tensor& self) {
  order::check_median_all("nanmedian", self);
  return empty_meta({}, self.dtype());
}
std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return picked(self, order::check_pick("median", self, dim, keepdim, false));
}
std::tuple<Tensor, Tensor> nanmedian_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return picked(self, order::check_pick("nanmedian", self, dim, keepdim, false));
}
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  return picked(self, order::check_pick("mode", self, dim, keepdim, true));
}

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool, bool, bool) {
  order::check_unique("_unique2", self);
  no_data("_unique2");
}
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool, bool, bool) {
  order::check_unique_dim("unique_dim", self, dim);
  no_data("unique_dim");
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool, bool, std::optional<int64_t> dim) {
  if (dim && self.dim() > 0)
    order::check_unique_dim("unique_consecutive", self, *dim);
  else
    order::check_unique("unique_consecutive", self);
  no_data("unique_consecutive");
}

Tensor searchsorted_tensor(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                           std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  native::check_defined("searchsorted", self, "self");
  order::check_searchsorted("searchsorted", sorted_sequence, self.sizes(), self.dtype(), right, side, sorter);
  return empty_meta(self.sizes(), out_int32 ? kInt32 : kInt64);
}
Tensor searchsorted_scalar(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                           std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  native::check_defined("searchsorted", sorted_sequence, "sorted_sequence");
  const bool fl = self.isFloatingPoint() && !sorted_sequence.is_floating_point();
  order::check_searchsorted("searchsorted", sorted_sequence, {}, fl ? get_default_dtype() : sorted_sequence.dtype(),
                            right, side, sorter);
  EMBER_CHECK(sorted_sequence.dim() == 1,
              "[searchsorted] a scalar value needs 1-D boundaries, got boundaries of shape {}",
              sorted_sequence.sizes());
  return empty_meta({}, out_int32 ? kInt32 : kInt64);
}
Tensor bucketize_tensor(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  native::check_defined("bucketize", self, "self");
  native::check_defined("bucketize", boundaries, "boundaries");
  EMBER_CHECK(boundaries.dim() == 1, "[bucketize] boundaries tensor must be 1 dimension, but got dim({})",
              boundaries.dim());
  order::check_searchsorted("bucketize", boundaries, self.sizes(), self.dtype(), right, std::nullopt, std::nullopt);
  return empty_meta(self.sizes(), out_int32 ? kInt32 : kInt64);
}
Tensor bucketize_scalar(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  native::check_defined("bucketize", boundaries, "boundaries");
  EMBER_CHECK(boundaries.dim() == 1, "[bucketize] boundaries tensor must be 1 dimension, but got dim({})",
              boundaries.dim());
  const bool fl = self.isFloatingPoint() && !boundaries.is_floating_point();
  order::check_searchsorted("bucketize", boundaries, {}, fl ? get_default_dtype() : boundaries.dtype(), right,
                            std::nullopt, std::nullopt);
  return empty_meta({}, out_int32 ? kInt32 : kInt64);
}

Tensor dot(const Tensor& self, const Tensor& tensor) {
  order::check_dot("dot", self, tensor);
  return empty_meta({}, self.dtype());
}
Tensor& dot_out(const Tensor& self, const Tensor& tensor, Tensor& out) {
  const Tensor r = meta::dot(self, tensor);
  native::check_defined("dot", out, "out");
  EMBER_CHECK_TYPE(out.dtype() == r.dtype(), "[dot] result dtype {} does not match input dtype {}", out.dtype(),
                   r.dtype());
  return write_out(out, r, "dot");
}
Tensor mv(const Tensor& self, const Tensor& vec) {
  order::check_mv("mv", self, vec);
  return empty_meta({self.size(0)}, self.dtype());
}
Tensor& mv_out(const Tensor& self, const Tensor& vec, Tensor& out) {
  const Tensor r = meta::mv(self, vec);
  check_out("mv", out, r.dtype());
  return write_out(out, r, "mv");
}

}  // namespace ember::meta
