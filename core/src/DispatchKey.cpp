#include "ember/core/DispatchKey.h"

#include <cctype>

namespace ember {

std::string_view functionality_name(Functionality f) {
  switch (f) {
    case Functionality::Dense: return "Dense";
    case Functionality::Quantized: return "Quantized";
    case Functionality::Sparse: return "Sparse";
    case Functionality::SparseCsr: return "SparseCsr";
    case Functionality::Autocast: return "Autocast";
    case Functionality::Autograd: return "Autograd";
    case Functionality::Tracer: return "Tracer";
    case Functionality::Profiler: return "Profiler";
  }
  return "?";
}

namespace {
// "CPU", "CUDA", "HIP", "Meta" for the built-ins; a registered device's own name otherwise.
std::string backend_display(DeviceType d) {
  switch (d) {
    case kCPU: return "CPU";
    case kCUDA: return "CUDA";
    case kHIP: return "HIP";
    case kMeta: return "Meta";
    default: return std::string(device_type_name(d));
  }
}
}  // namespace

std::string to_string(DispatchKey k) {
  switch (k) {
    case DispatchKey::Undefined: return "Undefined";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    default: break;
  }
  if (!is_runtime_key(k)) return "Invalid(" + std::to_string(static_cast<int>(k)) + ")";
  Functionality f = functionality_of(k);
  auto b = backend_of(k);
  if (!b) return std::string(functionality_name(f));
  if (f == Functionality::Dense) return backend_display(*b);
  return std::string(functionality_name(f)) + backend_display(*b);
}

std::optional<DispatchKey> parse_dispatch_key(std::string_view s) {
  for (auto k : {DispatchKey::Undefined, DispatchKey::Autograd, DispatchKey::CompositeExplicitAutograd,
                 DispatchKey::CompositeImplicitAutograd})
    if (s == to_string(k)) return k;
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    auto k = static_cast<DispatchKey>(i);
    auto b = backend_of(k);
    if (b && !is_valid_device_type(*b)) continue;
    if (s == to_string(k)) return k;
  }
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, DispatchKey k) { return os << to_string(k); }

std::vector<DispatchKey> DispatchKeySet::keys() const {
  std::vector<DispatchKey> r;
  uint64_t backends = repr_ & kBackendMask;
  for (int f = kNumFunctionalities - 1; f >= 0; --f) {
    auto fun = static_cast<Functionality>(f);
    if (!has_functionality(fun)) continue;
    if (!is_per_backend(fun)) {
      r.push_back(make_dispatch_key(fun, kCPU));
      continue;
    }
    for (int b = kMaxDeviceTypes - 1; b >= 0; --b)
      if (backends & (uint64_t{1} << b)) r.push_back(make_dispatch_key(fun, static_cast<DeviceType>(b)));
  }
  return r;
}

std::string DispatchKeySet::str() const {
  std::string s = "{";
  bool first = true;
  for (auto k : keys()) {
    s += (first ? "" : ", ") + to_string(k);
    first = false;
  }
  // Backend bits with no functionality (rare: e.g. a set built by hand).
  if (keys().empty() && (repr_ & kBackendMask)) {
    for (int b = 0; b < kMaxDeviceTypes; ++b)
      if (repr_ & (uint64_t{1} << b)) {
        s += (first ? "backend " : ", backend ") + backend_display(static_cast<DeviceType>(b));
        first = false;
      }
  }
  return s + "}";
}

std::ostream& operator<<(std::ostream& os, DispatchKeySet ks) { return os << ks.str(); }

}  // namespace ember
