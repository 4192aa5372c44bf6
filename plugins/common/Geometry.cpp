// Type promotion, geometry helpers and TensorIter (see Note [Kernel metadata helpers]).
#include "ember/native/Geometry.h"

#include <algorithm>
#include <cstring>

namespace ember::native {

namespace {
// The CPU allocator directly (the common case: no registry lookup).
Allocator* allocator_for(DeviceType dev) { return dev == kCPU ? cpu_allocator() : get_allocator(dev); }
}  // namespace

// ---- promotion ------------------------------------------------------------------------------

namespace {
int int_rank(ScalarType t) {
  switch (t) {
    case kInt8: return 1;
    case kInt16: return 2;
    case kInt32: return 3;
    case kInt64: return 4;
    default: return 0;  // uint8
  }
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  EMBER_CHECK_TYPE(!is_quantized_type(a) && !is_quantized_type(b),
                   "[promote_types] quantized dtypes do not promote ({} and {})", a, b);
  if (a == kBool) return b;
  if (b == kBool) return a;
  if (is_complex_type(a) || is_complex_type(b)) {
    if (a == kComplex128 || b == kComplex128 || a == kFloat64 || b == kFloat64) return kComplex128;
    return kComplex64;
  }
  if (is_floating_type(a) && is_floating_type(b)) {
    if ((a == kFloat16 && b == kBFloat16) || (a == kBFloat16 && b == kFloat16)) return kFloat32;
    auto rank = [](ScalarType t) { return t == kFloat64 ? 3 : t == kFloat32 ? 2 : 1; };
    return rank(a) >= rank(b) ? a : b;
  }
  if (is_floating_type(a)) return a;
  if (is_floating_type(b)) return b;
  // Both integral.
  if ((a == kUInt8 && b == kInt8) || (a == kInt8 && b == kUInt8)) return kInt16;
  if (a == kUInt8) return b;
  if (b == kUInt8) return a;
  return int_rank(a) >= int_rank(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex_type(from) && !is_complex_type(to)) return false;
  if (is_floating_type(from) && is_integral_type(to, false)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

namespace {
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_complex_type(higher)) return higher;
  if (is_complex_type(lower)) {
    if (is_floating_type(higher)) return higher == kFloat64 ? kComplex128 : kComplex64;
    return lower;
  }
  if (is_floating_type(higher)) return higher;
  if (higher == kBool || is_floating_type(lower)) return promote_types(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}
}  // namespace

void ResultType::add(const Tensor& t) {
  if (t.dim() == 0) zero = promote_types(zero, t.dtype());
  else dim = promote_types(dim, t.dtype());
}

void ResultType::add(const Scalar& s) {
  ScalarType t = s.type();
  if (s.isFloatingPoint()) t = get_default_dtype();
  else if (s.isComplex()) t = get_default_dtype() == kFloat64 ? kComplex128 : kComplex64;
  wrapped = promote_types(wrapped, t);
}

ScalarType ResultType::result() const {
  return combine_categories(dim, combine_categories(zero, wrapped));
}

// ---- geometry -------------------------------------------------------------------------------

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  DimVector r(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1,
                "[{}] shapes {} and {} cannot be broadcast together: the size of tensor a ({}) must "
                "match the size of tensor b ({}) at non-singleton dimension {}",
                op, a, b, da, db, i);
    r[i] = da == 1 ? db : da;
  }
  return r;
}

bool has_internal_overlap(const Tensor& t) {
  IntArrayRef sz = t.sizes(), st = t.strides();
  for (size_t i = 0; i < sz.size(); ++i)
    if (sz[i] > 1 && st[i] == 0) return true;
  return false;
}

bool same_storage(const Tensor& a, const Tensor& b) {
  const StorageImpl* s = a.unsafeGetTensorImpl()->storage().get();
  return s != nullptr && s == b.unsafeGetTensorImpl()->storage().get();  // storage-less: none shared
}

namespace {
// [first byte, one past the last byte] touched by t.
std::pair<uintptr_t, uintptr_t> byte_range(const Tensor& t) {
  const auto base = reinterpret_cast<uintptr_t>(t.data_ptr());
  int64_t lo = 0, hi = 0;
  IntArrayRef sz = t.sizes(), st = t.strides();
  for (size_t i = 0; i < sz.size(); ++i) {
    const int64_t ext = (sz[i] - 1) * st[i];
    if (ext < 0) lo += ext;
    else hi += ext;
  }
  const auto isz = static_cast<int64_t>(t.itemsize());
  return {base + lo * isz, base + (hi + 1) * isz};
}
}  // namespace

bool partially_overlaps(const Tensor& a, const Tensor& b) {
  if (!same_storage(a, b) || a.numel() == 0 || b.numel() == 0) return false;
  auto [a0, a1] = byte_range(a);
  auto [b0, b1] = byte_range(b);
  if (a1 <= b0 || b1 <= a0) return false;
  const bool full = a.data_ptr() == b.data_ptr() && a.itemsize() == b.itemsize() &&
                    a.sizes() == b.sizes() && a.strides() == b.strides();
  return !full;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  const int64_t nd = t.dim();
  IntArrayRef sz = t.sizes(), st = t.strides();
  if (nd == 0) return true;
  if (nd == 1) return sz[0] < 2 || st[0] == 1;
  DimVector perm(nd, 0);
  for (int64_t i = 0; i < nd; ++i) perm[i] = i;
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sz[a] < 2) return false;
    if (sz[b] < 2) return true;
    return st[a] < st[b];
  });
  int64_t require = 1;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = perm[i];
    if (sz[d] < 2) return true;
    if (st[d] != require) return false;
    require *= sz[d];
  }
  return true;
}

void check_defined(const char* op, const Tensor& t, const char* name) {
  EMBER_CHECK(t.defined(), "[{}] expected a defined tensor for argument '{}'", op, name);
}

Tensor empty_on(DeviceType dev, IntArrayRef sizes, ScalarType dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "[empty] negative dimension {} in size {}", s, sizes);
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), "[empty] size {} overflows int64", sizes);
  }
  Allocator* a = allocator_for(dev);
  const size_t nbytes = static_cast<size_t>(n) * element_size(dtype);
  DataPtr p = a->allocate(nbytes);
  p.device = Device(dev);
  return Tensor(make_intrusive<TensorImpl>(make_intrusive<StorageImpl>(p, nbytes, a, true), dtype, sizes));
}

Tensor empty_strided_on(DeviceType dev, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype) {
  EMBER_CHECK(sizes.size() == strides.size(),
              "[empty_strided] mismatch in length of size {} and stride {}", sizes, strides);
  int64_t span = 1;  // elements reached, +1
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "[empty_strided] negative dimension {} in size {}", sizes[i], sizes);
    EMBER_CHECK(strides[i] >= 0, "[empty_strided] negative stride {} in stride {}", strides[i], strides);
    if (sizes[i] == 0) empty = true;
    else span += (sizes[i] - 1) * strides[i];
  }
  if (empty) span = 0;
  Allocator* a = allocator_for(dev);
  const size_t nbytes = static_cast<size_t>(span) * element_size(dtype);
  DataPtr p = a->allocate(nbytes);
  p.device = Device(dev);
  auto impl = make_intrusive<TensorImpl>(make_intrusive<StorageImpl>(p, nbytes, a, true), dtype, sizes);
  impl->set_sizes_and_strides(sizes, strides);
  return Tensor(std::move(impl));
}

void resize_output(Tensor& out, IntArrayRef sizes, const char* op) {
  if (out.sizes() == sizes) return;
  TensorImpl* impl = out.unsafeGetTensorImpl();
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  const size_t need = static_cast<size_t>(impl->storage_offset() + n) * impl->itemsize();
  const Storage& st = impl->storage();
  EMBER_CHECK(st != nullptr, "[{}] the out= tensor has no storage ({} layout) and cannot be resized", op, out.layout());
  if (st->nbytes() < need) {
    EMBER_CHECK(st->resizable() && st->allocator() != nullptr,
                "[{}] the out= tensor must be resized from {} to {}, but its storage is not resizable",
                op, out.sizes(), sizes);
    DataPtr p = st->allocator()->allocate(need);
    p.device = st->device();
    if (st->nbytes() > 0 && st->data() != nullptr) std::memcpy(p.ptr, st->data(), st->nbytes());
    st->set_data(p, need);
  }
  impl->set_sizes_contiguous(sizes);
}

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

void check_same_device(const char* op, DeviceType dev, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.device().type() == dev && b.device().type() == dev,
              "[{}] expected all tensors to be on the same device, but found at least two devices, "
              "{} and {}",
              op, a.device(), b.device());
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
    }
    if (!reduction_ && check_overlap_)
      EMBER_CHECK(!has_internal_overlap(o.tensor),
                  "[{}] unsupported operation: more than one element of the written-to tensor refers "
                  "to a single memory location. Please clone() the tensor before performing the "
                  "operation.",
                  op_);
    // An input that partially overlaps the output is read from a copy, so that the result is as
    // if every input were read before any output is written.
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
  // PyTorch's order: sort dimensions by the strides of the first operand that tells them apart
  // (outputs to be allocated, and a reduction's output, do not vote; broadcast dims are skipped).
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (int j = 0; j < nops_; ++j) {
      const Operand& o = ops_[j];
      if (o.will_allocate || (reduction_ && j < nout_)) continue;
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
  for (int j = 0; j < nout_; ++j) {
    Operand& o = ops_[j];
    if (!o.will_allocate) continue;
    const int64_t isz = static_cast<int64_t>(element_size(o.dtype));
    bool identity = true;
    for (int k = 0; k < nd; ++k) identity = identity && perm_[k] == k;
    if (identity) {
      o.tensor = empty_on(device_, full_shape_, o.dtype);
    } else {
      // Dense in iteration order, which follows the inputs' memory order.
      DimVector st(nd, 0);
      int64_t next = 1;
      for (int k = 0; k < nd; ++k) {
        st[nd - 1 - perm_[k]] = next;
        next *= std::max<int64_t>(shape_[k], 1);
      }
      o.tensor = empty_strided_on(device_, full_shape_, st, o.dtype);
    }
    o.strides.resize(nd);
    IntArrayRef tst = o.tensor.strides();
    for (int k = 0; k < nd; ++k) o.strides[k] = tst[nd - 1 - perm_[k]] * isz;
    o.will_allocate = false;
    *o.out = o.tensor;
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
