#include <cstring>
#include <memory>

#include "ember/api/Operators.h"

namespace ember {

void TensorLiteral::collect(std::vector<int64_t>& shape, size_t depth, std::vector<Scalar>& flat) const {
  if (is_scalar_) {
    EMBER_CHECK(depth == shape.size(), "[tensor] nested lists must be rectangular: a number at depth {}, "
                "expected a list of depth {}", depth, shape.size());
    flat.push_back(scalar_);
    return;
  }
  if (depth == shape.size()) {
    EMBER_CHECK(flat.empty(), "[tensor] nested lists must be rectangular: a list at depth {} where numbers are",
                depth);
    shape.push_back(static_cast<int64_t>(list_.size()));
  } else {
    EMBER_CHECK(shape[depth] == static_cast<int64_t>(list_.size()),
                "[tensor] nested lists must be rectangular: length {} at depth {}, expected {}", list_.size(), depth,
                shape[depth]);
  }
  for (const auto& e : list_) e.collect(shape, depth + 1, flat);
}

Tensor TensorLiteral::to_tensor(const TensorOptions& o) const {
  std::vector<int64_t> shape;
  std::vector<Scalar> flat;
  collect(shape, 0, flat);
  ScalarType inferred = kBool;
  for (const auto& s : flat) {
    if (s.isFloatingPoint()) inferred = get_default_dtype();
    else if (s.isIntegral(false) && inferred == kBool) inferred = kInt64;
  }
  if (flat.empty()) inferred = get_default_dtype();
  ScalarType dt = o.dtype_or(inferred);
  // Built as float64 or int64 on the CPU, then converted: exact for every value a literal holds.
  ScalarType build = is_floating_type(inferred) ? kFloat64 : inferred == kBool ? kBool : kInt64;
  Tensor t = make_empty(shape, build, kCPU);
  for (size_t i = 0; i < flat.size(); ++i) {
    if (build == kFloat64) t.data_ptr<double>()[i] = flat[i].toDouble();
    else if (build == kInt64) t.data_ptr<int64_t>()[i] = flat[i].toLong();
    else t.data_ptr<bool>()[i] = flat[i].toBool();
  }
  Tensor r = (dt == build && o.device_or_cpu().is_cpu()) ? t : t.to(o.device_or_cpu(), dt);
  if (o.requires_grad_value()) r.requires_grad_(true);
  return r;
}

Tensor tensor(std::initializer_list<TensorLiteral> values, TensorOptions options) {
  return TensorLiteral(values).to_tensor(options);
}

Tensor detail::tensor_from_data(const void* data, int64_t n, ScalarType src, TensorOptions options) {
  // LibTorch's rule: float and double give the default dtype, int and int64_t kInt64, others stay.
  const ScalarType inferred = src == kFloat32 || src == kFloat64 ? get_default_dtype()
                              : src == kInt32 || src == kInt64   ? kInt64
                                                                 : src;
  Tensor r = empty({n}, options.dtype(options.dtype_or(inferred)).requires_grad(false));
  if (n > 0) r.copy_(from_blob(const_cast<void*>(data), {n}, src));
  if (options.requires_grad_value()) r.requires_grad_(true);
  return r;
}

namespace {

void run_deleter(void* ptr, void* ctx) {
  auto* d = static_cast<Deleter*>(ctx);
  (*d)(ptr);
  delete d;
}

Tensor blob_tensor(void* data, IntArrayRef sizes, IntArrayRef strides, const Deleter* deleter,
                   const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(), "[from_blob] {} sizes but {} strides", sizes.size(), strides.size());
  ScalarType dt = options.dtype_or(get_default_dtype());
  Device dev = options.device_or_cpu();
  int64_t extent = 1;  // elements spanned, so nbytes covers the largest offset
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "[from_blob] negative size {} at dimension {}", sizes[i], i);
    if (sizes[i] == 0) extent = 0;
    else if (extent) extent += (sizes[i] - 1) * strides[i];
  }
  DataPtr p{data, nullptr, nullptr, dev};
  auto storage = make_intrusive<StorageImpl>(p, static_cast<size_t>(extent) * element_size(dt),
                                             get_allocator(dev.type()), false);
  StorageImpl* s = storage.get();
  auto impl = make_intrusive<TensorImpl>(std::move(storage), dt, sizes);
  impl->set_sizes_and_strides(sizes, strides);
  Tensor t(std::move(impl));
  if (options.requires_grad_value()) t.requires_grad_(true);
  // The storage takes ownership last, once nothing can throw: on an error the caller keeps it.
  if (deleter) {
    auto owned = std::make_unique<Deleter>(*deleter);
    s->set_data(DataPtr{data, owned.release(), &run_deleter, dev}, s->nbytes());
  }
  return t;
}

}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options) {
  return blob_tensor(data, sizes, strides, nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options) {
  return blob_tensor(data, sizes, contiguous_strides(sizes), nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const Deleter& deleter, TensorOptions options) {
  EMBER_CHECK(static_cast<bool>(deleter), "[from_blob] deleter: expected a callable, got an empty std::function");
  return blob_tensor(data, sizes, strides, &deleter, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const Deleter& deleter, TensorOptions options) {
  return from_blob(data, sizes, contiguous_strides(sizes), deleter, options);
}

}  // namespace ember
