#pragma once
// Dispatch keys and key sets.
//
// Note [DispatchKeySet layout]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As in PyTorch's c10, a DispatchKeySet is 64 bits: the low kMaxDeviceTypes bits are backends
// (one per DeviceType, so a device type registered at run time gets a backend bit too), the
// bits above them are functionalities in priority order (higher bit = dispatched first).
// Dense, Quantized, Sparse, SparseCsr, Autocast and Autograd are per-backend: the runtime key
// AutogradCUDA is the Autograd bit plus the CUDA bit. Tracer and Profiler are not.
//
// A runtime key maps to one slot of an operator's dispatch table:
//   0                          Undefined (no functionality: e.g. no tensor arguments)
//   1 + f * kMaxDeviceTypes + b  per-backend functionality f on backend b
//   1 + 6 * kMaxDeviceTypes + k  the k-th non-per-backend functionality
// DispatchKey's numeric value *is* that slot for runtime keys; alias keys (Autograd,
// CompositeExplicitAutograd, CompositeImplicitAutograd) sit above kNumRuntimeKeys and exist only
// for registration.
//
// Plain tensors carry no Autograd bit; the autograd plugin adds it to tensors that need a
// gradient, so a plain call never visits the Autograd layer (one less hop than PyTorch).
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/Device.h"

namespace ember {

enum class Functionality : uint8_t {
  Dense,      // lowest priority
  Quantized,
  Sparse,
  SparseCsr,
  Autocast,
  Autograd,
  Tracer,
  Profiler,   // highest priority
};
constexpr int kNumFunctionalities = 8;
constexpr int kNumPerBackendFunctionalities = 6;
constexpr int kNumRuntimeKeys =
    1 + kNumPerBackendFunctionalities * kMaxDeviceTypes + (kNumFunctionalities - kNumPerBackendFunctionalities);

constexpr bool is_per_backend(Functionality f) {
  return static_cast<int>(f) < kNumPerBackendFunctionalities;
}

enum class DispatchKey : uint16_t {
  Undefined = 0,
  CPU = 1, CUDA = 2, HIP = 3, Meta = 4,
  QuantizedCPU = 1 + 1 * kMaxDeviceTypes, QuantizedCUDA, QuantizedHIP, QuantizedMeta,
  SparseCPU = 1 + 2 * kMaxDeviceTypes, SparseCUDA, SparseHIP, SparseMeta,
  SparseCsrCPU = 1 + 3 * kMaxDeviceTypes, SparseCsrCUDA, SparseCsrHIP, SparseCsrMeta,
  AutocastCPU = 1 + 4 * kMaxDeviceTypes, AutocastCUDA, AutocastHIP, AutocastMeta,
  AutogradCPU = 1 + 5 * kMaxDeviceTypes, AutogradCUDA, AutogradHIP, AutogradMeta,
  Tracer = 1 + 6 * kMaxDeviceTypes,
  Profiler,
  // Alias keys: registration only, never in a DispatchKeySet.
  Autograd = 256,                 // every Autograd<Backend> key
  CompositeExplicitAutograd,      // every backend key (and Undefined)
  CompositeImplicitAutograd,      // every backend and Autograd key without its own kernel
};

constexpr bool is_alias_key(DispatchKey k) { return static_cast<int>(k) >= 256; }
constexpr bool is_runtime_key(DispatchKey k) {
  return static_cast<int>(k) < kNumRuntimeKeys;
}
constexpr DispatchKey make_dispatch_key(Functionality f, DeviceType b) {
  return is_per_backend(f)
             ? static_cast<DispatchKey>(1 + static_cast<int>(f) * kMaxDeviceTypes + static_cast<int>(b))
             : static_cast<DispatchKey>(1 + kNumPerBackendFunctionalities * kMaxDeviceTypes +
                                        static_cast<int>(f) - kNumPerBackendFunctionalities);
}
// For a runtime key other than Undefined.
constexpr Functionality functionality_of(DispatchKey k) {
  int i = static_cast<int>(k) - 1;
  return i < kNumPerBackendFunctionalities * kMaxDeviceTypes
             ? static_cast<Functionality>(i / kMaxDeviceTypes)
             : static_cast<Functionality>(kNumPerBackendFunctionalities + i -
                                          kNumPerBackendFunctionalities * kMaxDeviceTypes);
}
// Backend of a per-backend runtime key; nullopt for others.
constexpr std::optional<DeviceType> backend_of(DispatchKey k) {
  int i = static_cast<int>(k) - 1;
  if (i < 0 || i >= kNumPerBackendFunctionalities * kMaxDeviceTypes) return std::nullopt;
  return static_cast<DeviceType>(i % kMaxDeviceTypes);
}

EMBER_API std::string_view functionality_name(Functionality f);
// "CPU", "AutogradCUDA", "Autograd", "mydev", "Autogradmydev", ...
EMBER_API std::string to_string(DispatchKey k);
// Inverse of to_string; nullopt when unknown.
EMBER_API std::optional<DispatchKey> parse_dispatch_key(std::string_view s);
EMBER_API std::ostream& operator<<(std::ostream& os, DispatchKey k);

class DispatchKeySet {
 public:
  static constexpr int kBackendBits = kMaxDeviceTypes;
  static constexpr uint64_t kBackendMask = (uint64_t{1} << kBackendBits) - 1;

  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k) : repr_(key_bits(k)) {}
  static constexpr DispatchKeySet from_raw(uint64_t r) {
    DispatchKeySet s;
    s.repr_ = r;
    return s;
  }
  static constexpr DispatchKeySet of(Functionality f) {
    return from_raw(uint64_t{1} << (kBackendBits + static_cast<int>(f)));
  }
  static constexpr DispatchKeySet of(DeviceType b) {
    return from_raw(uint64_t{1} << static_cast<int>(b));
  }
  // Every functionality strictly below f, and every backend.
  static constexpr DispatchKeySet below(Functionality f) {
    return from_raw(((uint64_t{1} << (kBackendBits + static_cast<int>(f))) - 1));
  }

  constexpr uint64_t raw() const { return repr_; }
  constexpr bool empty() const { return repr_ == 0; }
  constexpr bool has_functionality(Functionality f) const { return (repr_ & of(f).repr_) != 0; }
  constexpr bool has_backend(DeviceType b) const { return (repr_ & of(b).repr_) != 0; }
  // True when every bit of k's key is present.
  constexpr bool has(DispatchKey k) const {
    uint64_t b = key_bits(k);
    return b != 0 && (repr_ & b) == b;
  }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_raw(repr_ | o.repr_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_raw(repr_ & o.repr_); }
  // Removes o's functionality bits only; backend bits stay (as in c10: excluding AutogradCPU
  // must not drop the CPU backend).
  constexpr DispatchKeySet operator-(DispatchKeySet o) const {
    return from_raw(repr_ & ~(o.repr_ & ~kBackendMask));
  }
  DispatchKeySet& operator|=(DispatchKeySet o) {
    repr_ |= o.repr_;
    return *this;
  }
  constexpr bool operator==(const DispatchKeySet&) const = default;

  // -1 when no backend bit is set.
  constexpr int highest_backend() const {
    uint64_t b = repr_ & kBackendMask;
    return b ? 63 - std::countl_zero(b) : -1;
  }
  // Table slot of the highest-priority runtime key (0 = Undefined).
  constexpr int highest_priority_index() const {
    uint64_t f = repr_ >> kBackendBits;
    if (f == 0) return 0;
    int fi = 63 - std::countl_zero(f);
    if (fi < kNumPerBackendFunctionalities) {
      uint64_t b = repr_ & kBackendMask;
      if (b == 0) return 0;
      return 1 + fi * kMaxDeviceTypes + (63 - std::countl_zero(b));
    }
    return 1 + kNumPerBackendFunctionalities * kMaxDeviceTypes + fi - kNumPerBackendFunctionalities;
  }
  constexpr DispatchKey highest_priority_key() const {
    return static_cast<DispatchKey>(highest_priority_index());
  }
  // Drops the highest functionality (the key being served) and everything above it: what a
  // kernel passes on when it redispatches.
  constexpr DispatchKeySet below_highest() const {
    uint64_t f = repr_ >> kBackendBits;
    if (f == 0) return *this;
    int fi = 63 - std::countl_zero(f);
    return from_raw(repr_ & ((uint64_t{1} << (kBackendBits + fi)) - 1));
  }
  // Runtime keys in this set, highest priority first (functionality x backend product).
  EMBER_API std::vector<DispatchKey> keys() const;
  EMBER_API std::string str() const;

  static constexpr uint64_t key_bits(DispatchKey k) {
    int i = static_cast<int>(k);
    if (i == 0) return 0;
    if (i == static_cast<int>(DispatchKey::Autograd))
      return uint64_t{1} << (kBackendBits + static_cast<int>(Functionality::Autograd));
    if (i >= kNumRuntimeKeys) return 0;
    uint64_t fbit = uint64_t{1} << (kBackendBits + static_cast<int>(functionality_of(k)));
    auto b = backend_of(k);
    return b ? (fbit | (uint64_t{1} << static_cast<int>(*b))) : fbit;
  }

 private:
  uint64_t repr_ = 0;
};

EMBER_API std::ostream& operator<<(std::ostream& os, DispatchKeySet ks);

// The runtime key a tensor of this layout, dtype class and device dispatches to.
constexpr DispatchKeySet backend_key_set(DeviceType d, Layout layout, bool quantized) {
  Functionality f = layout == kSparse      ? Functionality::Sparse
                    : layout == kSparseCsr ? Functionality::SparseCsr
                    : quantized            ? Functionality::Quantized
                                           : Functionality::Dense;
  return DispatchKeySet::of(f) | DispatchKeySet::of(d);
}

}  // namespace ember

template <>
struct fmt::formatter<ember::DispatchKey> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(ember::DispatchKey k, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(ember::to_string(k), ctx);
  }
};
template <>
struct fmt::formatter<ember::DispatchKeySet> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(ember::DispatchKeySet k, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(k.str(), ctx);
  }
};
