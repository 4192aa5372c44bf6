// Device-generic kernel helpers (ember/native/TensorHelpers.h).
#include "ember/native/TensorHelpers.h"

#include <algorithm>
#include <cstring>

namespace ember::native {

namespace {
// The CPU allocator directly (the common case: no registry lookup).
Allocator* allocator_for(DeviceType dev) { return dev == kCPU ? cpu_allocator() : get_allocator(dev); }
}  // namespace

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
  if (t.numel() == 0) return false;  // no elements, none shared (an empty result may have 0 strides)
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
    if (ext < 0)
      lo += ext;
    else
      hi += ext;
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
  const bool full = a.data_ptr() == b.data_ptr() && a.itemsize() == b.itemsize() && a.sizes() == b.sizes() &&
                    a.strides() == b.strides();
  return !full;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;  // an empty tensor too, whatever its strides (PyTorch's rule)
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

DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector perm(nd, 0);
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  // PyTorch's insertion sort with ambiguous comparisons: a stride of 0 decides nothing; equal
  // strides put the smaller size first.
  auto should_swap = [&](int64_t d0, int64_t d1) {
    const int64_t s0 = strides[d0], s1 = strides[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  DimVector out(nd, 1);
  int64_t acc = 1;
  for (int64_t i = 0; i < nd; ++i) {
    out[perm[i]] = acc;
    if (sizes[perm[i]] > 1) acc *= sizes[perm[i]];
  }
  return out;
}

MemOverlap get_overlap_status(const Tensor& a, const Tensor& b) {
  if (a.is_same(b)) return MemOverlap::Full;
  if (a.numel() == 0 || b.numel() == 0) return MemOverlap::No;
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return MemOverlap::TooHard;
  if (!same_storage(a, b)) return MemOverlap::No;
  // Both dense: each covers exactly [first byte, first byte + nbytes) of the shared storage
  // (offsets, not data pointers: a meta storage has no data).
  const auto off = [](const Tensor& t) { return t.storage_offset() * static_cast<int64_t>(t.itemsize()); };
  const int64_t a0 = off(a), b0 = off(b);
  const int64_t a1 = a0 + static_cast<int64_t>(a.nbytes()), b1 = b0 + static_cast<int64_t>(b.nbytes());
  if (a0 == b0 && a1 == b1) return a.strides() == b.strides() ? MemOverlap::Full : MemOverlap::Partial;
  return a0 < b1 && b0 < a1 ? MemOverlap::Partial : MemOverlap::No;
}

void assert_no_partial_overlap(const char* op, const Tensor& out, const Tensor& in) {
  EMBER_CHECK(get_overlap_status(out, in) != MemOverlap::Partial,
              "[{}] unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
              "single memory location. Please clone() the tensor before performing the operation.",
              op);
}

void assert_no_internal_overlap(const char* op, const Tensor& out) {
  EMBER_CHECK(!has_internal_overlap(out),
              "[{}] unsupported operation: more than one element of the written-to tensor refers to a single memory "
              "location. Please clone() the tensor before performing the operation.",
              op);
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
  if (p.device.type() != dev) p.device = Device(dev);  // a GPU allocator sets the index
  return Tensor(make_intrusive<TensorImpl>(make_intrusive<StorageImpl>(p, nbytes, a, true), dtype, sizes));
}

Tensor empty_strided_on(DeviceType dev, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype) {
  return empty_strided_with(allocator_for(dev), dev, sizes, strides, dtype);
}

Tensor empty_strided_with(Allocator* a, DeviceType dev, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype) {
  EMBER_CHECK(sizes.size() == strides.size(), "[empty_strided] mismatch in length of size {} and stride {}", sizes,
              strides);
  int64_t span = 1;  // elements reached, +1
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "[empty_strided] negative dimension {} in size {}", sizes[i], sizes);
    EMBER_CHECK(strides[i] >= 0, "[empty_strided] negative stride {} in stride {}", strides[i], strides);
    if (sizes[i] == 0)
      empty = true;
    else
      span += (sizes[i] - 1) * strides[i];
  }
  if (empty) span = 0;
  const size_t nbytes = static_cast<size_t>(span) * element_size(dtype);
  DataPtr p = a->allocate(nbytes);
  if (p.device.type() != dev) p.device = Device(dev);  // a GPU allocator sets the index
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
                "[{}] the out= tensor must be resized from {} to {}, but its storage is not resizable", op, out.sizes(),
                sizes);
    DataPtr p = st->allocator()->allocate(need);
    p.device = st->device();
    if (st->nbytes() > 0 && st->data() != nullptr) std::memcpy(p.ptr, st->data(), st->nbytes());
    st->set_data(p, need);
  }
  impl->set_sizes_contiguous(sizes);
}

void resize_tensor(const Tensor& self, IntArrayRef sizes, std::optional<MemoryFormat> format) {
  check_defined("resize_", self, "self");
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "[resize_] Trying to create tensor with negative dimension {}: {}", s, sizes);
  EMBER_CHECK(format != MemoryFormat::Preserve, "[resize_] Unsupported memory format Preserve");
  if (self.sizes() == sizes && !format) return;
  TensorImpl* impl = self.unsafeGetTensorImpl();
  const Storage& st = impl->storage();
  EMBER_CHECK_NOT_IMPLEMENTED(st != nullptr, "[resize_] a {} tensor has no storage to resize", self.layout());
  auto strides = memory_format_strides(sizes, format.value_or(MemoryFormat::Contiguous), "resize_");
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  const size_t need = n == 0 ? 0 : static_cast<size_t>(impl->storage_offset() + n) * impl->itemsize();
  if (st->nbytes() < need) {
    EMBER_CHECK(st->resizable() && st->allocator() != nullptr,
                "[resize_] Trying to resize storage that is not resizable (from {} to {})", self.sizes(), sizes);
    DataPtr p = st->allocator()->allocate(need);
    p.device = st->device();
    if (st->nbytes() > 0 && st->data() != nullptr && p.ptr != nullptr) std::memcpy(p.ptr, st->data(), st->nbytes());
    st->set_data(p, need);
  }
  impl->set_sizes_and_strides(sizes, strides);
}

void check_same_device(const char* op, DeviceType dev, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.device().type() == dev && a.device() == b.device(),
              "[{}] expected all tensors to be on the same device, but found at least two devices, "
              "{} and {}",
              op, a.device(), b.device());
}

}  // namespace ember::native
