// TensorIter (see Note [Kernel metadata helpers]).
#include "ember/native/Geometry.h"

#include <algorithm>
#include <cstring>

namespace ember::native {

// ---- TensorIter -----------------------------------------------------------------------------

TensorIter& TensorIter::add_output(Tensor* t, ScalarType dtype, bool resizable) {
  EMBER_INTERNAL_ASSERT(nops_ == nout_ && nops_ < kMaxOperands, "outputs go first");
  Operand& o = ops_[nops_++];
  ++nout_;
  o.out = t;
  o.resizable = resizable;
  if (t->defined()) {
    o.tensor = *t;
    o.dtype = t->dtype();
  } else {
    o.will_allocate = true;
    o.dtype = dtype;
  }
  return *this;
}

TensorIter& TensorIter::add_input(const Tensor& t) {
  EMBER_INTERNAL_ASSERT(nops_ < kMaxOperands, "too many operands");
  Operand& o = ops_[nops_++];
  o.tensor = t;
  o.dtype = t.dtype();
  return *this;
}

void TensorIter::build() {
  compute_shape();
  check_and_prepare_outputs();
  compute_strides();
  reorder_dimensions();
  allocate_outputs();
  coalesce_dimensions();
  for (int k = 0; k < nops_; ++k) ops_[k].data = static_cast<char*>(ops_[k].tensor.data_ptr());
  parallel_ok_ = nout_ > 0 && !reduction_;
  for (int j = 0; j < nout_; ++j)
    for (int d = 0; d < ndim(); ++d)
      if (shape_[d] > 1 && ops_[j].strides[d] == 0) parallel_ok_ = false;
}

void TensorIter::check_device(const Tensor& ref, const Tensor& t) const { check_same_device(op_, device_, ref, t); }

void TensorIter::compute_shape() {
  // Inputs and outputs written in place broadcast together (an in-place output smaller than the
  // broadcast shape is then an error); outputs to allocate or resize follow the result.
  const Tensor* ref = nullptr;  // the first defined operand: device errors name it and the culprit
  for (int k = 0; k < nops_ && !ref; ++k)
    if (ops_[k].tensor.defined()) ref = &ops_[k].tensor;
  bool first = true;
  for (int k = 0; k < nops_; ++k) {
    const Operand& o = ops_[k];
    const bool is_out = k < nout_;
    if (is_out && (o.will_allocate || o.resizable)) continue;
    if (!is_out) check_defined(op_, o.tensor, "input");
    check_device(*ref, o.tensor);
    if (first) full_shape_ = DimVector(o.tensor.sizes());
    else full_shape_ = broadcast_shapes(full_shape_, o.tensor.sizes(), op_);
    first = false;
  }
  numel_ = 1;
  for (int64_t s : full_shape_) numel_ *= s;
}

void TensorIter::check_and_prepare_outputs() {
  for (int k = 0; k < nout_; ++k) {
    Operand& o = ops_[k];
    if (o.will_allocate) continue;
    if (o.resizable && nops_ > nout_) check_device(ops_[nout_].tensor, o.tensor);
    if (o.tensor.sizes() != IntArrayRef(full_shape_)) {
      EMBER_CHECK(o.resizable, "[{}] output with shape {} doesn't match the broadcast shape {}", op_,
                  o.tensor.sizes(), IntArrayRef(full_shape_));
      resize_output(*o.out, full_shape_, op_);
      o.will_resize = true;
    }
    // PyTorch's compute_mem_overlaps: an output may not overlap itself, nor partially overlap an
    // input (the same elements, x.add_(x), are fine).
    if (!reduction_ && check_overlap_) {
      assert_no_internal_overlap(op_, o.tensor);
      for (int j = nout_; j < nops_; ++j) assert_no_partial_overlap(op_, o.tensor, ops_[j].tensor);
    }
    // An input that may still overlap the output (too hard to tell: a non-dense one, or a
    // reduction's) is read from a copy, so that the result is as if every input were read before
    // any output is written.
    for (int j = nout_; j < nops_; ++j)
      if (materialize_ && partially_overlaps(o.tensor, ops_[j].tensor)) ops_[j].tensor = materialize_(ops_[j].tensor);
  }
}

void TensorIter::compute_strides() {
  const int nd = static_cast<int>(full_shape_.size());
  shape_.resize(nd);
  for (int k = 0; k < nd; ++k) shape_[k] = full_shape_[nd - 1 - k];
  for (int j = 0; j < nops_; ++j) {
    Operand& o = ops_[j];
    if (o.will_allocate) continue;
    IntArrayRef sz = o.tensor.sizes(), st = o.tensor.strides();
    const int td = static_cast<int>(sz.size());
    const int64_t isz = static_cast<int64_t>(o.tensor.itemsize());
    o.strides.resize(nd);
    for (int k = 0; k < nd; ++k) {
      const int i = td - 1 - k;  // the tensor's own dimension
      o.strides[k] = (i < 0 || sz[i] == 1) ? 0 : st[i] * isz;
    }
  }
}

void TensorIter::reorder_dimensions() {
  const int nd = ndim();
  perm_.resize(nd);
  for (int k = 0; k < nd; ++k) perm_[k] = k;
  if (nd <= 1) return;
  // PyTorch's fast setup: operands of the result's shape that are all contiguous give contiguous
  // outputs. The order below gives that for non-empty ones; an empty tensor is contiguous
  // whatever its strides, so only an empty result needs the check.
  if (numel_ == 0 && !reduction_) {
    bool contiguous = true;
    for (int j = 0; j < nops_ && contiguous; ++j) {
      const Operand& o = ops_[j];
      if (o.will_allocate) continue;
      contiguous = o.tensor.is_contiguous() && o.tensor.sizes() == IntArrayRef(full_shape_);
    }
    if (contiguous) return;
  }
  // PyTorch's order: sort dimensions by the strides of the first operand that tells them apart
  // (outputs to be allocated, and a reduction's output, do not vote; broadcast dims are skipped).
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (int j = 0; j < nops_; ++j) {
      const Operand& o = ops_[j];
      if (o.will_allocate || o.will_resize || (reduction_ && j < nout_)) continue;
      const int64_t s0 = o.strides[d0], s1 = o.strides[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape_[d0] > shape_[d1]) return 1;
    }
    return 0;
  };
  for (int i = 1; i < nd; ++i) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm_[d0], perm_[d1]);
      if (c > 0) {
        std::swap(perm_[d0], perm_[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  bool identity = true;
  for (int k = 0; k < nd; ++k) identity = identity && perm_[k] == k;
  if (identity) return;
  DimVector tmp(nd, 0);
  for (int k = 0; k < nd; ++k) tmp[k] = shape_[perm_[k]];
  shape_ = tmp;
  for (int j = 0; j < nops_; ++j) {
    Operand& o = ops_[j];
    if (o.will_allocate) continue;
    for (int k = 0; k < nd; ++k) tmp[k] = o.strides[perm_[k]];
    o.strides = tmp;
  }
}

void TensorIter::allocate_outputs() {
  const int nd = ndim();
  bool identity = true;
  for (int k = 0; k < nd; ++k) identity = identity && perm_[k] == k;
  // A permuted order: dense in iteration order, which follows the inputs' memory order (as
  // PyTorch, the strides outside a dimension of size 0 are 0). The identity order is contiguous.
  DimVector st;
  if (!identity) {
    st = DimVector(static_cast<size_t>(nd), 0);
    int64_t next = 1;
    for (int k = 0; k < nd; ++k) {
      st[nd - 1 - perm_[k]] = next;
      next *= shape_[k];
    }
  }
  for (int j = 0; j < nout_; ++j) {
    Operand& o = ops_[j];
    if (!o.will_allocate && !o.will_resize) continue;
    if (o.will_resize) {
      // PyTorch's set_output_raw_strided for a resized out=: the allocation's layout, in the
      // storage resize_output made room in (the same number of elements).
      if (!identity) o.tensor.unsafeGetTensorImpl()->set_sizes_and_strides(full_shape_, st);
    } else {
      o.tensor =
          identity ? empty_on(device_, full_shape_, o.dtype) : empty_strided_on(device_, full_shape_, st, o.dtype);
      *o.out = o.tensor;
    }
    o.will_allocate = o.will_resize = false;
    const int64_t isz = static_cast<int64_t>(element_size(o.dtype));
    o.strides.resize(nd);
    IntArrayRef tst = o.tensor.strides();
    for (int k = 0; k < nd; ++k) o.strides[k] = tst[nd - 1 - perm_[k]] * isz;
  }
}

void TensorIter::coalesce_dimensions() {
  const int nd = ndim();
  if (nd <= 1) return;
  auto can_coalesce = [&](int d0, int d1) {
    if (shape_[d0] == 1 || shape_[d1] == 1) return true;
    for (int j = 0; j < nops_; ++j)
      if (shape_[d0] * ops_[j].strides[d0] != ops_[j].strides[d1]) return false;
    return true;
  };
  auto replace_stride = [&](int d0, int d1) {
    for (int j = 0; j < nops_; ++j) ops_[j].strides[d0] = ops_[j].strides[d1];
  };
  int prev = 0;
  for (int d = 1; d < nd; ++d) {
    if (can_coalesce(prev, d)) {
      if (shape_[prev] == 1) replace_stride(prev, d);
      shape_[prev] *= shape_[d];
    } else {
      ++prev;
      if (prev != d) {
        replace_stride(prev, d);
        shape_[prev] = shape_[d];
      }
    }
  }
  shape_.resize(prev + 1);
  for (int j = 0; j < nops_; ++j) ops_[j].strides.resize(prev + 1);
}

}  // namespace ember::native
