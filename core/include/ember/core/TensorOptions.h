#pragma once
// Options for factories: dtype, device, layout, requires_grad, pinned_memory, each optional.
#include <optional>

#include "ember/core/Device.h"
#include "ember/core/ScalarType.h"

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT: implicit, as in LibTorch
  TensorOptions(DeviceType t) : device_(Device(t)) {}  // NOLINT
  TensorOptions(Device d) : device_(d) {}  // NOLINT
  TensorOptions(Layout l) : layout_(l) {}  // NOLINT

  TensorOptions dtype(ScalarType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions dtype(std::optional<ScalarType> t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions device(DeviceType t) const { return device(Device(t)); }
  TensorOptions device(std::optional<Device> d) const {
    TensorOptions o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions layout(Layout l) const {
    TensorOptions o = *this;
    o.layout_ = l;
    return o;
  }
  TensorOptions requires_grad(bool r = true) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }
  // A CPU tensor in page-locked memory of a GPU plugin (Note [Pinned host memory]).
  TensorOptions pinned_memory(bool p = true) const {
    TensorOptions o = *this;
    o.pinned_memory_ = p;
    return o;
  }
  TensorOptions pinned_memory(std::optional<bool> p) const {
    TensorOptions o = *this;
    o.pinned_memory_ = p;
    return o;
  }

  const std::optional<ScalarType>& dtype_opt() const { return dtype_; }
  const std::optional<Device>& device_opt() const { return device_; }
  const std::optional<Layout>& layout_opt() const { return layout_; }
  const std::optional<bool>& requires_grad_opt() const { return requires_grad_; }
  const std::optional<bool>& pinned_memory_opt() const { return pinned_memory_; }
  ScalarType dtype_or(ScalarType def) const { return dtype_.value_or(def); }
  Device device_or_cpu() const { return device_.value_or(Device(kCPU)); }
  bool requires_grad_value() const { return requires_grad_.value_or(false); }
  // Fields set in `o` override ours.
  TensorOptions merged(const TensorOptions& o) const {
    TensorOptions r = *this;
    if (o.dtype_) r.dtype_ = o.dtype_;
    if (o.device_) r.device_ = o.device_;
    if (o.layout_) r.layout_ = o.layout_;
    if (o.requires_grad_) r.requires_grad_ = o.requires_grad_;
    if (o.pinned_memory_) r.pinned_memory_ = o.pinned_memory_;
    return r;
  }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  std::optional<bool> requires_grad_;
  std::optional<bool> pinned_memory_;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }
inline TensorOptions pinned_memory(bool p = true) { return TensorOptions().pinned_memory(p); }

// The dtype factories use when none is given. LibTorch's default: float32.
EMBER_API ScalarType get_default_dtype();
EMBER_API void set_default_dtype(ScalarType t);

}  // namespace ember
