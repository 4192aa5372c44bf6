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
EMBER_API void check_defined(const char* op, const Tensor& t, const char* name);
// Throws unless both tensors are on device type `dev` (the message names both devices).
EMBER_API void check_same_device(const char* op, DeviceType dev, const Tensor& a, const Tensor& b);

// A fresh contiguous tensor on device type `dev` (its registered allocator).
EMBER_API Tensor empty_on(DeviceType dev, IntArrayRef sizes, ScalarType dtype);
// A fresh tensor with the given strides (the storage covers exactly the elements reached).
EMBER_API Tensor empty_strided_on(DeviceType dev, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype);
// Resizes an out= tensor to `sizes` (contiguous; storage grown when needed, data kept).
EMBER_API void resize_output(Tensor& out, IntArrayRef sizes, const char* op);

}  // namespace ember::native
