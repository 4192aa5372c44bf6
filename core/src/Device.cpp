#include "ember/core/Device.h"

#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <mutex>
#include <string>

namespace ember {
namespace {

// Names of device types; slots past the built-ins are filled by register_device_type. A name is
// written once before its id is published and never changes, so readers need no lock.
struct DeviceRegistry {
  std::mutex mu;
  std::array<std::string, kMaxDeviceTypes> names{"cpu", "cuda", "hip", "meta"};
  std::atomic<int> count{kNumBuiltinDeviceTypes};
};
DeviceRegistry& registry() {
  static DeviceRegistry* r = new DeviceRegistry();  // never destroyed: used during exit
  return *r;
}

bool valid_name(std::string_view n) {
  if (n.empty() || !std::islower(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

}  // namespace

std::string known_device_type_names() {
  auto& r = registry();
  std::string s;
  for (int i = 0; i < r.count.load(); ++i) s += (i ? ", " : "") + r.names[i];
  return s;
}

DeviceType register_device_type(std::string_view name) {
  EMBER_CHECK(valid_name(name),
              "[register_device_type] bad device type name '{}': expected lower-case letters, digits "
              "and '_', starting with a letter",
              name);
  auto& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  int n = r.count.load();
  for (int i = 0; i < n; ++i)
    if (r.names[i] == name) return static_cast<DeviceType>(i);
  EMBER_CHECK(n < kMaxDeviceTypes, "[register_device_type] cannot register '{}': all {} device type ids are taken ({})",
              name, kMaxDeviceTypes, known_device_type_names());
  r.names[n] = std::string(name);
  r.count.store(n + 1);
  return static_cast<DeviceType>(n);
}

bool is_valid_device_type(DeviceType t) {
  int i = static_cast<int>(t);
  return i >= 0 && i < registry().count.load();
}

std::string_view device_type_name(DeviceType t) {
  if (!is_valid_device_type(t)) return "unknown";
  return registry().names[static_cast<int>(t)];
}

std::optional<DeviceType> find_device_type(std::string_view name) {
  auto& r = registry();
  int n = r.count.load();
  for (int i = 0; i < n; ++i)
    if (r.names[i] == name) return static_cast<DeviceType>(i);
  return std::nullopt;
}

DeviceType parse_device_type(std::string_view name) {
  if (auto t = find_device_type(name)) return *t;
  EMBER_THROW(ValueError, "[Device] unknown device type '{}': expected one of {} (plugins register more)", name,
              known_device_type_names());
}

Device::Device(std::string_view spec) : type_(kCPU), index_(-1) {
  auto colon = spec.find(':');
  type_ = parse_device_type(spec.substr(0, colon));
  if (colon == std::string_view::npos) return;
  std::string_view idx = spec.substr(colon + 1);
  int v = -1;
  auto [p, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
  EMBER_CHECK(!idx.empty() && ec == std::errc() && p == idx.data() + idx.size() && v >= 0 && v < 128,
              "[Device] bad device string '{}': expected 'type' or 'type:index' with an index in [0, 127]",
              spec);
  index_ = static_cast<int8_t>(v);
}

std::string Device::str() const {
  std::string s(device_type_name(type_));
  if (has_index()) {
    s += ':';
    s += std::to_string(index_);  // separate appends: g++ 12 warns falsely on `":" + string`
  }
  return s;
}

std::ostream& operator<<(std::ostream& os, DeviceType t) { return os << device_type_name(t); }
std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, Layout l) {
  switch (l) {
    case kStrided: return os << "Strided";
    case kSparse: return os << "Sparse";
    default: return os << "SparseCsr";
  }
}

}  // namespace ember
