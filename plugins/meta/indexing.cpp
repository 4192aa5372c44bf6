// Meta kernels of the indexing ops (plugins/cpu/indexing.cpp): the checks and result geometry
// of Rules.h's indexing section, which the cpu kernels run too. What needs index values is
// skipped (bounds) or refused: a bool/uint8 mask index, masked_select and nonzero have a result
// size that depends on the data, so they raise NotImplementedError, as PyTorch's meta tensors do.
#include "MetaHelpers.h"
#include "ember/native/IndexShapeRules.h"
#include "ember/native/IndexTensors.h"

namespace ember::meta {

using native::DimVector;

namespace {

[[noreturn]] void data_dependent_shape(const char* op, const char* what) {
  EMBER_THROW(NotImplementedError,
              "[{}] {} depends on the tensor's values (data-dependent output shape), and a meta tensor has none", op,
              what);
}

// The advanced-indexing geometry of self[indices] (Note [CPU advanced indexing]).
native::IndexGeometry index_geometry(const char* op, const Tensor& self,
                                     const std::vector<std::optional<Tensor>>& indices) {
  std::vector<Tensor> idx = native::index_tensors(op, kMeta, self, indices, [&](const Tensor&) -> Tensor {
    data_dependent_shape(op, "the result size of a bool or uint8 mask index");
  });
  return native::index_geometry(op, self, idx);
}

}  // namespace

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  return empty_meta(index_geometry("index", self, indices).shape, self.dtype());
}

Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool /*accumulate*/) {
  native::check_index_put(kMeta, self, values);
  native::check_writable("index_put_", self);
  native::index_put_values_sizes(values, index_geometry("index_put_", self, indices).shape);
  return self;
}

Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  dim = native::check_index_select(kMeta, self, dim, index, out);
  DimVector shape(self.sizes());
  if (self.dim() > 0) shape[dim] = index.numel();
  native::resize_output(out, shape, "index_select");
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = empty_meta({}, self.dtype());
  return meta::index_select_out(self, dim, index, out);
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  native::check_embedding(kMeta, weight, indices);
  DimVector shape(indices.sizes());
  shape.push_back(weight.size(1));
  return empty_meta(shape, weight.dtype());
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  native::check_gather_scatter(kMeta, "gather", self, dim, index, nullptr);
  return empty_meta(index.sizes(), self.dtype());
}

namespace {
Tensor& scatter_meta(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  native::check_gather_scatter(kMeta, op, self, dim, index, src);
  native::check_writable(op, self);
  return self;
}
}  // namespace

Tensor& scatter__src(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_meta("scatter_", self, dim, index, &src);
}
Tensor& scatter__value(Tensor& self, int64_t dim, const Tensor& index, const Scalar& /*value*/) {
  return scatter_meta("scatter_", self, dim, index, nullptr);
}
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_meta("scatter_add_", self, dim, index, &src);
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  native::check_masked_select(kMeta, self, mask);
  data_dependent_shape("masked_select", "the result size (the mask's true count)");
}

Tensor nonzero(const Tensor& self) {
  native::check_defined("nonzero", self, "self");
  data_dependent_shape("nonzero", "the result size (the count of nonzero elements)");
}

Tensor& index_fill__int_scalar(Tensor& self, int64_t dim, const Tensor& index, const Scalar& /*value*/) {
  native::check_index_fill(kMeta, self, dim, index);
  return self;
}

// The source's size is not checked: it must cover the mask's true count, which is data.
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  native::check_masked_scatter(kMeta, self, mask, source);
  return self;
}

// ---- scatter_reduce, index_add_, index_copy_, take -------------------------------------------------

Tensor& scatter_reduce__two(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            std::string_view reduce, bool /*include_self*/) {
  native::check_scatter_reduce(kMeta, self, dim, index, src, reduce);
  native::check_writable("scatter_reduce", self);
  return self;
}
Tensor scatter_reduce_two(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool /*include_self*/) {
  native::check_scatter_reduce(kMeta, self, dim, index, src, reduce);
  return empty_meta(self.sizes(), self.dtype());
}
Tensor& scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               std::string_view reduce, bool /*include_self*/, Tensor& out) {
  native::check_scatter_reduce(kMeta, self, dim, index, src, reduce);
  native::prepare_same_out("scatter_reduce", kMeta, self, out);
  return out;
}

Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& /*alpha*/) {
  native::check_index_add_copy(kMeta, "index_add_", self, dim, index, source, true);
  return self;
}
Tensor& index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Scalar& /*alpha*/, Tensor& out) {
  Tensor r = empty_meta(self.sizes(), self.dtype());
  native::check_index_add_copy(kMeta, "index_add_", r, dim, index, source, true);
  native::prepare_same_out("index_add", kMeta, self, out);
  return out;
}
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  native::check_index_add_copy(kMeta, "index_copy_", self, dim, index, source, false);
  return self;
}
Tensor& index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Tensor& out) {
  Tensor r = empty_meta(self.sizes(), self.dtype());
  native::check_index_add_copy(kMeta, "index_copy_", r, dim, index, source, false);
  native::prepare_same_out("index_copy", kMeta, self, out);
  return out;
}

Tensor take(const Tensor& self, const Tensor& index) {
  native::check_take(kMeta, self, index);
  return empty_meta(index.sizes(), self.dtype());
}
Tensor& take_out(const Tensor& self, const Tensor& index, Tensor& out) {
  native::check_take(kMeta, self, index);
  native::check_defined("take", out, "out");
  native::check_same_device("take", kMeta, self, out);
  native::check_out_dtype("take", out, self.dtype());
  native::resize_output(out, index.sizes(), "take");
  native::check_out_writable("take", out);
  return out;
}

}  // namespace ember::meta
