// Meta kernels of the index-shape family's operators in plugins/cpu/index_shape.cpp:
// ember/native/IndexShapeRules.h's checks and the cpu kernels' result layouts. What needs values
// (index bounds, the mask's true count, repeat counts without output_size, the value of a
// one-element tensor) is skipped or refused, as PyTorch's meta tensors do.
#include "MetaHelpers.h"
#include "ember/generated/Functions.h"
#include "ember/native/IndexShapeRules.h"

namespace ember::meta {

using native::DimVector;

namespace {

template <class ViewOf>
Tensor view_scatter(const char* op, const Tensor& self, const Tensor& src, ViewOf&& view_of) {
  native::check_view_scatter(op, kMeta, self, src, view_of(self));
  return ember::empty_like(self);
}

Tensor& same_out(const char* op, const Tensor& self, Tensor& out) {
  native::prepare_same_out(op, kMeta, self, out);
  return out;
}

// An out= whose result has `shape` and self's dtype (the cpu's resize, then the overlap check).
Tensor& shaped_out(const char* op, const Tensor& self, IntArrayRef shape, Tensor& out) {
  native::check_defined(op, out, "out");
  native::check_same_device(op, kMeta, self, out);
  native::check_out_dtype(op, out, self.dtype());
  native::resize_output(out, shape, op);
  native::check_out_writable(op, out);
  return out;
}

void check_tri(const char* op, const Tensor& self) {
  native::check_defined(op, self, "self");
  native::check_tri(op, self);
}

}  // namespace

// ---- the view scatters, masked_scatter ---------------------------------------------------------------

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return view_scatter("select_scatter", self, src, [&](const Tensor& t) { return ember::select(t, dim, index); });
}
Tensor& select_scatter_out(const Tensor& self, const Tensor& src, int64_t dim, int64_t index, Tensor& out) {
  meta::select_scatter(self, src, dim, index);
  return same_out("select_scatter", self, out);
}
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  return view_scatter("slice_scatter", self, src,
                      [&](const Tensor& t) { return ember::slice(t, dim, start, end, step); });
}
Tensor& slice_scatter_out(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step, Tensor& out) {
  meta::slice_scatter(self, src, dim, start, end, step);
  return same_out("slice_scatter", self, out);
}
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return view_scatter("diagonal_scatter", self, src,
                      [&](const Tensor& t) { return ember::diagonal(t, offset, dim1, dim2); });
}

// The source's size is not checked: it must cover the mask's true count, which is data.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const DimVector shape = native::check_masked_scatter_functional(kMeta, self, mask, source);
  return empty_meta(shape, self.dtype());
}
Tensor& masked_scatter_out(const Tensor& self, const Tensor& mask, const Tensor& source, Tensor& out) {
  const DimVector shape = native::check_masked_scatter_functional(kMeta, self, mask, source);
  return shaped_out("masked_scatter", self, shape, out);
}

// ---- copy, fill, _local_scalar_dense -------------------------------------------------------------

Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking) {
  native::check_defined("copy", self, "self");
  native::check_defined("copy", src, "src");
  Tensor r = empty_meta(self.sizes(), self.dtype());
  return meta::copy_(r, src, non_blocking);
}
Tensor& copy_out(const Tensor& self, const Tensor& src, bool non_blocking, Tensor& out) {
  meta::copy(self, src, non_blocking);
  return same_out("copy", self, out);
}

Tensor fill_scalar(const Tensor& self, const Scalar& value) {
  native::check_defined("fill", self, "self");
  Tensor r = ember::empty_like(self);
  return meta::fill_(r, value);
}

Tensor& fill__tensor(Tensor& self, const Tensor& value) {
  native::check_defined("fill_", self, "self");
  native::check_defined("fill_", value, "value");
  native::check_fill_value(value);
  native::check_same_device("fill_", kMeta, self, value);
  return self;
}

Scalar _local_scalar_dense(const Tensor& self) {
  native::check_defined("_local_scalar_dense", self, "self");
  EMBER_CHECK(self.numel() == 1, "[_local_scalar_dense] a Tensor with {} elements cannot be converted to Scalar",
              self.numel());
  no_data("_local_scalar_dense");
}

// ---- tril, triu, roll, repeat_interleave ---------------------------------------------------------

Tensor tril(const Tensor& self, int64_t /*diagonal*/) {
  check_tri("tril", self);
  return empty_meta(self.sizes(), self.dtype());
}
Tensor& tril_(Tensor& self, int64_t /*diagonal*/) {
  check_tri("tril_", self);
  native::check_writable("tril_", self);
  return self;
}
Tensor& tril_out(const Tensor& self, int64_t /*diagonal*/, Tensor& out) {
  check_tri("tril", self);
  return same_out("tril", self, out);
}
Tensor triu(const Tensor& self, int64_t /*diagonal*/) {
  check_tri("triu", self);
  return empty_meta(self.sizes(), self.dtype());
}
Tensor& triu_(Tensor& self, int64_t /*diagonal*/) {
  check_tri("triu_", self);
  native::check_writable("triu_", self);
  return self;
}
Tensor& triu_out(const Tensor& self, int64_t /*diagonal*/, Tensor& out) {
  check_tri("triu", self);
  return same_out("triu", self, out);
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  native::check_defined("roll", self, "self");
  native::check_roll(self, shifts, dims);
  return empty_meta(self.sizes(), self.dtype());
}

Tensor repeat_interleave_tensor(const Tensor& repeats, std::optional<int64_t> output_size) {
  native::check_repeat_interleave(repeats, output_size);
  EMBER_CHECK_NOT_IMPLEMENTED(output_size.has_value(),
                              "[repeat_interleave] the result size is the sum of the repeats (data-dependent output "
                              "shape), and a meta tensor has none: pass output_size");
  return empty_meta({*output_size}, repeats.dtype());
}

}  // namespace ember::meta
