#include <array>
#include <atomic>

#include "ember/core/Allocator.h"
#include "ember/core/AutogradHooks.h"
#include "ember/core/LocalState.h"

namespace ember {

namespace detail {
constinit thread_local LocalState tls_local_state __attribute__((tls_model("initial-exec")));
}  // namespace detail

namespace {
std::array<std::atomic<Allocator*>, kMaxDeviceTypes>& allocators() {
  static std::array<std::atomic<Allocator*>, kMaxDeviceTypes> a{};
  return a;
}
std::array<std::atomic<HostAllocator*>, kMaxDeviceTypes>& host_allocators() {
  static std::array<std::atomic<HostAllocator*>, kMaxDeviceTypes> a{};
  return a;
}
std::atomic<const AutogradHooks*> g_autograd_hooks{nullptr};
}  // namespace

HostAllocator::~HostAllocator() = default;

void set_host_allocator(DeviceType t, HostAllocator* a) {
  EMBER_CHECK(static_cast<int>(t) >= 0 && static_cast<int>(t) < kMaxDeviceTypes && t != kCPU && t != kMeta,
              "[set_host_allocator] expected a GPU device type, got id {}", static_cast<int>(t));
  host_allocators()[static_cast<int>(t)].store(a, std::memory_order_release);
}

HostAllocator* find_host_allocator(DeviceType t) {
  if (static_cast<int>(t) < 0 || static_cast<int>(t) >= kMaxDeviceTypes) return nullptr;
  return host_allocators()[static_cast<int>(t)].load(std::memory_order_acquire);
}

HostAllocator* host_allocator_for(std::optional<Device> device, const char* op) {
  if (!device) {
    for (DeviceType t : {kCUDA, kHIP})
      if (HostAllocator* a = find_host_allocator(t)) return a;
    EMBER_THROW(ValueError,
                "[{}] pinned memory needs a GPU plugin's host allocator and none is registered: load the "
                "plugin of your GPU (ember::plugins::load(\"cuda\"))",
                op);
  }
  EMBER_CHECK(device->type() != kCPU && device->type() != kMeta,
              "[{}] expected the GPU device to pin memory for, got {}", op, *device);
  HostAllocator* a = find_host_allocator(device->type());
  EMBER_CHECK(a != nullptr,
              "[{}] no pinned host allocator is registered for device '{}': load the plugin that provides it "
              "(ember::plugins::load(\"{}\"))",
              op, device_type_name(device->type()), device_type_name(device->type()));
  return a;
}

DeviceAllocator::~DeviceAllocator() = default;

void set_allocator(DeviceType t, Allocator* a) {
  EMBER_CHECK(static_cast<int>(t) >= 0 && static_cast<int>(t) < kMaxDeviceTypes,
              "[set_allocator] bad device type id {}", static_cast<int>(t));
  allocators()[static_cast<int>(t)].store(a, std::memory_order_release);
}

namespace {
// Meta tensors have sizes, strides and a storage size but no memory: every block is null.
// Core owns it (not the meta plugin) because a meta storage keeps its allocator pointer.
class MetaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t) override { return DataPtr{nullptr, nullptr, nullptr, kMeta}; }
};
}  // namespace

Allocator* get_allocator(DeviceType t) {
  if (t == kCPU) return cpu_allocator();
  if (t == kMeta) {
    static MetaAllocator meta;
    return &meta;
  }
  Allocator* a = allocators()[static_cast<int>(t)].load(std::memory_order_acquire);
  EMBER_CHECK(a != nullptr,
              "[allocator] no allocator is registered for device '{}': load the plugin that provides "
              "it (ember::plugins::load(\"{}\"))",
              device_type_name(t), device_type_name(t));
  return a;
}

StorageImpl::~StorageImpl() {
  if (data_.deleter) data_.deleter(data_.ptr, data_.ctx);
}

void StorageImpl::set_data(DataPtr d, size_t nbytes) {
  if (data_.deleter) data_.deleter(data_.ptr, data_.ctx);
  data_ = d;
  nbytes_ = nbytes;
}

Storage make_storage(size_t nbytes, Device d) {
  Allocator* a = get_allocator(d.type());
  DataPtr p = a->allocate(nbytes);
  // A device allocator names the device it allocated on (the current one) when d has no index.
  if (p.device.type() != d.type() || d.index() >= 0) p.device = d;
  return make_intrusive<StorageImpl>(p, nbytes, a, true);
}

autograd::Node::~Node() = default;

void set_autograd_hooks(const AutogradHooks* hooks) {
  if (hooks) {
    constexpr size_t header = offsetof(AutogradHooks, plugin) + sizeof(AutogradHooks::plugin);
    EMBER_CHECK(hooks->version >= 2 && hooks->struct_size >= header,
                "[set_autograd_hooks] the table is version {} with {} bytes; this Ember reads version 2 or later "
                "(at least {} bytes): rebuild the autograd plugin against this Ember",
                hooks->version, hooks->struct_size, header);
  }
  g_autograd_hooks.store(hooks, std::memory_order_release);
}
const AutogradHooks* autograd_hooks() { return g_autograd_hooks.load(std::memory_order_acquire); }
namespace {
std::atomic<void (*)()> g_autograd_startup{nullptr};
}  // namespace
void set_autograd_startup(void (*startup)()) { g_autograd_startup.store(startup, std::memory_order_release); }
const AutogradHooks& require_autograd_hooks(const char* what) {
  const AutogradHooks* h = autograd_hooks();
  if (h == nullptr) {
    if (auto* startup = g_autograd_startup.load(std::memory_order_acquire)) {
      startup();
      h = autograd_hooks();
    }
  }
  EMBER_CHECK_NOT_IMPLEMENTED(h != nullptr,
                              "[{}] needs the autograd plugin, which is not loaded: load it with "
                              "ember::plugins::load(\"autograd\") or add 'autograd' to "
                              "EMBER_DEFAULT_PLUGINS",
                              what);
  return *h;
}

namespace detail {
void throw_missing_autograd_hook(const char* what, const char* capability, const AutogradHooks& h) {
  const char* plugin = h.plugin ? h.plugin : "?";
  EMBER_THROW(NotImplementedError,
              "[{}] needs the autograd capability '{}', which plugin '{}' does not provide (its AutogradHooks "
              "table: version {}, {} bytes; this Ember's: version {}, {} bytes): update or rebuild plugin '{}'",
              what, capability, plugin, h.version, h.struct_size, AutogradHooks::kVersion, sizeof(AutogradHooks),
              plugin);
}
}  // namespace detail

namespace {
std::atomic<bool> g_anomaly_enabled{false};
std::atomic<bool> g_anomaly_check_nan{true};
}  // namespace

bool AnomalyMode::is_enabled() { return g_anomaly_enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return g_anomaly_check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  g_anomaly_check_nan.store(check_nan, std::memory_order_relaxed);
  g_anomaly_enabled.store(enabled, std::memory_order_relaxed);
}

}  // namespace ember
