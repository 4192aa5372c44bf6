#pragma once
// Device-generic helpers for kernels of any backend and for libember's composite kernels:
// broadcasting, overlap checks, argument checks, allocation on a device and out= resizing.
#include "ember/core/TypePromotion.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::native {

using DimVector = SmallVector<int64_t, 6>;
using ResultType = ResultTypeState;
using ember::can_cast;
using ember::promote_types;
using ember::result_type;

// Broadcast shape of a and b; throws ValueError naming the op and both shapes.
EMBER_API DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);
// True when two or more elements of t share memory (a stride-0 dimension of size > 1).
EMBER_API bool has_internal_overlap(const Tensor& t);
// True when a and b share storage and touch a common byte, but are not the same elements in the
// same layout (the case elementwise kernels cannot run in place).
EMBER_API bool partially_overlaps(const Tensor& a, const Tensor& b);
EMBER_API bool same_storage(const Tensor& a, const Tensor& b);
// PyTorch's is_non_overlapping_and_dense.
EMBER_API bool is_non_overlapping_and_dense(const Tensor& t);
// PyTorch's infer_dense_strides: dense strides that keep the order of `strides` (what a copy of a
// non-dense strided tensor gets under MemoryFormat::Preserve).
EMBER_API DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides);

// PyTorch's get_overlap_status: how the elements of a and b share memory. TooHard: they might
// (one of them is not dense), which the checks below let through, as PyTorch does.
enum class MemOverlap { No, Full, Partial, TooHard };
EMBER_API MemOverlap get_overlap_status(const Tensor& a, const Tensor& b);
// Throws LibTorch's "unsupported operation: some elements of the input tensor and the written-to
// tensor refer to a single memory location" when `out` and `in` partially overlap (an exact alias,
// x.add_(x), is fine).
EMBER_API void assert_no_partial_overlap(const char* op, const Tensor& out, const Tensor& in);
// Throws LibTorch's "more than one element of the written-to tensor refers to a single memory
// location" for an output with internal overlap (an expanded tensor).
EMBER_API void assert_no_internal_overlap(const char* op, const Tensor& out);
EMBER_API void check_defined(const char* op, const Tensor& t, const char* name);
// Throws unless both tensors are on one device of type `dev` (the message names both devices).
EMBER_API void check_same_device(const char* op, DeviceType dev, const Tensor& a, const Tensor& b);

// A fresh contiguous tensor on device type `dev` (its registered allocator).
EMBER_API Tensor empty_on(DeviceType dev, IntArrayRef sizes, ScalarType dtype);
// A fresh tensor with the given strides (the storage covers exactly the elements reached).
EMBER_API Tensor empty_strided_on(DeviceType dev, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype);
// The same from allocator `a` (pinned host memory: Note [Pinned host memory]).
EMBER_API Tensor empty_strided_with(Allocator* a, DeviceType dev, IntArrayRef sizes, IntArrayRef strides,
                                    ScalarType dtype);
// Resizes an out= tensor to `sizes` (contiguous; storage grown when needed, data kept).
EMBER_API void resize_output(Tensor& out, IntArrayRef sizes, const char* op);
// Tensor::resize_ on any device with a storage: LibTorch's resize_ (unchanged when the sizes are
// and no format is asked; else contiguous or `format` strides over a storage grown as needed).
EMBER_API void resize_tensor(const Tensor& self, IntArrayRef sizes, std::optional<MemoryFormat> format);

}  // namespace ember::native
