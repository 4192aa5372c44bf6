#pragma once
// Devices. Built-in device types have fixed ids; plugins register new ones by name at run time
// (no closed PrivateUse1 slot). A device type's id is also its backend id in DispatchKeySet.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "ember/core/Exception.h"

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, HIP = 2, Meta = 3 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kHIP = DeviceType::HIP;
constexpr DeviceType kMeta = DeviceType::Meta;

// A device's index within its type (-1: none given, e.g. "cuda" for the current CUDA device).
using DeviceIndex = int8_t;

constexpr int kNumBuiltinDeviceTypes = 4;
// Backend bits available in a DispatchKeySet; runtime device types take the ids after the
// built-in ones.
constexpr int kMaxDeviceTypes = 16;

// Registers (or finds) a device type by name, e.g. "mydev". Idempotent. Throws ValueError for a
// bad name and when all kMaxDeviceTypes ids are taken.
EMBER_API DeviceType register_device_type(std::string_view name);
// "cpu", "cuda", "hip", "meta", or the registered name.
EMBER_API std::string_view device_type_name(DeviceType t);
// Throws ValueError naming the known types when `name` is unknown.
EMBER_API DeviceType parse_device_type(std::string_view name);
// The type registered as `name`, or nullopt.
EMBER_API std::optional<DeviceType> find_device_type(std::string_view name);
// "cpu, cuda, hip, meta, mydev": every type known now (for error messages).
EMBER_API std::string known_device_type_names();
EMBER_API bool is_valid_device_type(DeviceType t);

class EMBER_API Device {
 public:
  constexpr Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {}  // NOLINT
  // "cpu", "cuda:1", "mydev:0"
  Device(std::string_view spec);  // NOLINT
  Device(const char* spec) : Device(std::string_view(spec)) {}  // NOLINT
  Device(const std::string& spec) : Device(std::string_view(spec)) {}  // NOLINT

  constexpr DeviceType type() const { return type_; }
  constexpr DeviceIndex index() const { return index_; }
  constexpr bool has_index() const { return index_ >= 0; }
  constexpr bool is_cpu() const { return type_ == kCPU; }
  constexpr bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const;
  constexpr bool operator==(const Device&) const = default;

 private:
  DeviceType type_;
  DeviceIndex index_;
};

EMBER_API std::ostream& operator<<(std::ostream& os, DeviceType t);
EMBER_API std::ostream& operator<<(std::ostream& os, const Device& d);

enum class Layout : int8_t { Strided, Sparse, SparseCsr };
constexpr Layout kStrided = Layout::Strided;
constexpr Layout kSparse = Layout::Sparse;
constexpr Layout kSparseCsr = Layout::SparseCsr;
EMBER_API std::ostream& operator<<(std::ostream& os, Layout l);

}  // namespace ember

template <>
struct fmt::formatter<ember::Device> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(const ember::Device& d, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(d.str(), ctx);
  }
};
template <>
struct fmt::formatter<ember::DeviceType> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(ember::DeviceType t, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(ember::device_type_name(t), ctx);
  }
};
template <>
struct fmt::formatter<ember::Layout> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(ember::Layout l, Ctx& ctx) const {
    std::string_view n = l == ember::kStrided ? "Strided" : l == ember::kSparse ? "Sparse" : "SparseCsr";
    return fmt::formatter<std::string_view>::format(n, ctx);
  }
};
