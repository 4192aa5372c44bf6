#pragma once
// Internal to the meta plugin: the steps several of its kernel files share (dataless results,
// the cpu kernels' out= checks and reduction shapes, the elementwise geometry on kMeta).
#include <initializer_list>

#include "MetaKernels.h"
#include "ember/native/Geometry.h"
#include "ember/native/Rules.h"
#include "ember/plugin/Structured.h"

namespace ember::meta {

// A contiguous result of `sizes` (the cpu kernels' outputs are contiguous too).
inline Tensor empty_meta(IntArrayRef sizes, ScalarType dtype) { return native::empty_on(kMeta, sizes, dtype); }
inline Tensor empty_if(bool want, IntArrayRef sizes, ScalarType dtype) {
  return want ? empty_meta(sizes, dtype) : Tensor();
}

[[noreturn]] inline void no_data(const char* op) {
  EMBER_THROW(NotImplementedError,
              "[{}] needs the tensor's values, and a meta tensor has none (only sizes, strides and dtype)", op);
}

// The factories' layout/device/pin_memory arguments.
inline void check_factory(const char* op, OptLayout layout, OptDevice device, OptBool pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == kStrided,
                              "[{}] only the strided layout is supported by the meta plugin", op);
  EMBER_CHECK(!device || device->type() == kMeta, "[{}] the meta kernel was asked for a tensor on {}", op, *device);
  EMBER_CHECK_NOT_IMPLEMENTED(!pin_memory.value_or(false), "[{}] pin_memory=true: meta tensors have no memory to pin",
                              op);
}

// A reduction of `dims` (all when empty): the kept sizes, contiguous, in `dtype`.
inline Tensor reduce(const char* op, const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype,
                     bool nonempty = false) {
  const auto red = native::reduced_mask(self, dims, op);
  if (nonempty) native::check_nonempty_reduction(self, dims, red, op);
  return empty_meta(native::reduced_shape(self, red, keepdim), dtype);
}

// An out= argument of a reduction or sort: defined, on meta, of dtype `expected` (the cpu's check_out).
inline void check_out(const char* op, const Tensor& out, ScalarType expected, const char* name = "out") {
  native::check_defined(op, out, name);
  EMBER_CHECK(out.is_meta(), "[{}] expected a meta tensor, got one on {}", op, out.device());
  native::check_out_dtype(op, out, expected, name);
}

// out = result, as the cpu's out= kernels: resized to result's shape when it differs, checked
// writable, then written.
inline Tensor& write_out(Tensor& out, const Tensor& result, const char* op) {
  native::resize_output(out, result.sizes(), op);
  native::check_out_writable(op, out);
  return meta::copy_(out, result, false);
}

// The cpu TensorIter's geometry, without data: `out` is allocated, checked or resized.
inline void iterate(const char* name, Tensor& out, OutKind ok, ScalarType result,
                    std::initializer_list<const Tensor*> inputs, bool check_overlap = true) {
  native::TensorIter it(name, kMeta, nullptr);
  it.add_output(&out, result, ok == OutKind::Out).check_mem_overlap(check_overlap);
  for (const Tensor* t : inputs) it.add_input(*t);
  it.build();
}

}  // namespace ember::meta
