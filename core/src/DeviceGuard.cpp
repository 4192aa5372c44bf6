// The DeviceGuardImpl registry, the guards, streams and events. See Note [Device guards and
// streams] in ember/core/DeviceGuardImpl.h.
#include "ember/core/DeviceGuard.h"

#include <array>
#include <utility>

#include "ember/core/Event.h"

namespace ember {

// ---- the registry ----------------------------------------------------------------------------

namespace {

struct GuardRegistry {
  std::array<std::atomic<const impl::DeviceGuardImplInterface*>, kMaxDeviceTypes> impls{};
  GuardRegistry() {
    static const impl::NoOpDeviceGuardImpl cpu(kCPU), meta(kMeta);
    impls[static_cast<int>(kCPU)].store(&cpu);
    impls[static_cast<int>(kMeta)].store(&meta);
  }
};

GuardRegistry& registry() {
  static auto* r = new GuardRegistry();  // never destroyed: guards may run during exit
  return *r;
}

[[noreturn]] void unsupported(DeviceType t, const char* what) {
  EMBER_THROW(NotImplementedError, "[{}] device type '{}' does not support it", what, device_type_name(t));
}

}  // namespace

namespace impl {

DeviceGuardImplInterface::~DeviceGuardImplInterface() = default;

Stream DeviceGuardImplInterface::getDefaultStream(Device) const { unsupported(type(), "default_stream"); }
Stream DeviceGuardImplInterface::getStreamFromGlobalPool(Device, bool) const {
  unsupported(type(), "stream_from_pool");
}
void DeviceGuardImplInterface::record(void**, const Stream&, DeviceIndex, EventFlag) const {
  unsupported(type(), "Event::record");
}
void DeviceGuardImplInterface::block(void*, const Stream&) const { unsupported(type(), "Event::block"); }
bool DeviceGuardImplInterface::queryEvent(void*) const { unsupported(type(), "Event::query"); }
void DeviceGuardImplInterface::synchronizeEvent(void*) const { unsupported(type(), "Event::synchronize"); }
void DeviceGuardImplInterface::destroyEvent(void*, DeviceIndex) const noexcept {}
bool DeviceGuardImplInterface::queryStream(const Stream&) const { unsupported(type(), "Stream::query"); }
void DeviceGuardImplInterface::synchronizeStream(const Stream&) const { unsupported(type(), "Stream::synchronize"); }
void* DeviceGuardImplInterface::nativeStream(const Stream&) const { unsupported(type(), "Stream::native_handle"); }
Stream DeviceGuardImplInterface::getStreamFromExternal(void*, DeviceIndex) const {
  unsupported(type(), "stream_from_external");
}
double DeviceGuardImplInterface::elapsedTime(void*, void*, DeviceIndex) const {
  unsupported(type(), "Event::elapsed_time");
}
void DeviceGuardImplInterface::synchronizeDevice(DeviceIndex) const { unsupported(type(), "synchronize"); }

const DeviceGuardImplInterface* getDeviceGuardImpl(DeviceType type) {
  const int i = static_cast<int>(type);
  const DeviceGuardImplInterface* p =
      i >= 0 && i < kMaxDeviceTypes ? registry().impls[i].load(std::memory_order_acquire) : nullptr;
  EMBER_CHECK_NOT_IMPLEMENTED(p != nullptr,
                              "[DeviceGuard] no DeviceGuardImpl is registered for device type '{}': load the "
                              "plugin that provides it (ember::plugins::load(\"{}\"))",
                              device_type_name(type), device_type_name(type));
  return p;
}

bool hasDeviceGuardImpl(DeviceType type) {
  const int i = static_cast<int>(type);
  return i >= 0 && i < kMaxDeviceTypes && registry().impls[i].load(std::memory_order_acquire) != nullptr;
}

}  // namespace impl

void register_device_guard_impl(DeviceType type, const impl::DeviceGuardImplInterface* impl) {
  EMBER_CHECK(is_valid_device_type(type), "[register_device_guard_impl] unknown device type id {}",
              static_cast<int>(type));
  EMBER_CHECK(impl == nullptr || impl->type() == type,
              "[register_device_guard_impl] the implementation is for device type '{}', not '{}'",
              device_type_name(impl ? impl->type() : type), device_type_name(type));
  registry().impls[static_cast<int>(type)].store(impl, std::memory_order_release);
}

// ---- DeviceGuard -----------------------------------------------------------------------------

DeviceGuard::DeviceGuard(Device device) : impl_(nullptr), original_(device), current_(device) { init(device); }

void DeviceGuard::init(Device device) {
  impl_ = impl::getDeviceGuardImpl(device.type());
  if (device.has_index()) {
    original_ = impl_->exchangeDevice(device);
    current_ = device;
  } else {
    original_ = current_ = impl_->getDevice();
  }
}

DeviceGuard::~DeviceGuard() { impl_->uncheckedSetDevice(original_); }

void DeviceGuard::reset_device(Device device) {
  if (device.type() != impl_->type()) {
    // Check the new type before giving up the old one, so a failure changes nothing.
    impl::getDeviceGuardImpl(device.type());
    impl_->uncheckedSetDevice(original_);
    init(device);
    return;
  }
  if (!device.has_index()) return;
  impl_->setDevice(device);
  current_ = device;
}

void DeviceGuard::set_index(DeviceIndex index) { reset_device(Device(original_.type(), index)); }

OptionalDeviceGuard::OptionalDeviceGuard(std::optional<Device> device) {
  if (device) guard_.emplace(*device);
}

void OptionalDeviceGuard::reset_device(Device device) {
  if (guard_)
    guard_->reset_device(device);
  else
    guard_.emplace(device);
}

std::optional<Device> OptionalDeviceGuard::original_device() const {
  return guard_ ? std::optional<Device>(guard_->original_device()) : std::nullopt;
}
std::optional<Device> OptionalDeviceGuard::current_device() const {
  return guard_ ? std::optional<Device>(guard_->current_device()) : std::nullopt;
}

// ---- StreamGuard -----------------------------------------------------------------------------

StreamGuard::StreamGuard(Stream stream)
    : device_guard_(stream.device()),
      impl_(impl::getDeviceGuardImpl(stream.device_type())),
      original_stream_of_original_device_(impl_->getStream(device_guard_.original_device())),
      original_stream_of_current_device_(impl_->exchangeStream(stream)),
      current_stream_(stream) {}

StreamGuard::~StreamGuard() { restore_stream(); }

void StreamGuard::restore_stream() noexcept { impl_->exchangeStream(original_stream_of_current_device_); }

void StreamGuard::reset_stream(Stream stream) {
  if (stream.device() == device_guard_.current_device()) {
    current_stream_ = stream;
    impl_->exchangeStream(stream);
    return;
  }
  const impl::DeviceGuardImplInterface* next = impl::getDeviceGuardImpl(stream.device_type());
  restore_stream();
  const bool same_type = stream.device_type() == impl_->type();
  device_guard_.reset_device(stream.device());
  impl_ = next;
  if (!same_type) original_stream_of_original_device_ = impl_->getStream(device_guard_.original_device());
  original_stream_of_current_device_ = impl_->exchangeStream(stream);
  current_stream_ = stream;
}

// ---- current streams -------------------------------------------------------------------------

namespace {
Device with_index(const impl::DeviceGuardImplInterface* g, Device d) { return d.has_index() ? d : g->getDevice(); }
}  // namespace

Stream current_stream(Device device) {
  auto* g = impl::getDeviceGuardImpl(device.type());
  return g->getStream(with_index(g, device));
}

Stream default_stream(Device device) {
  auto* g = impl::getDeviceGuardImpl(device.type());
  return g->getDefaultStream(with_index(g, device));
}

Stream stream_from_pool(Device device, bool high_priority) {
  auto* g = impl::getDeviceGuardImpl(device.type());
  return g->getStreamFromGlobalPool(with_index(g, device), high_priority);
}

void set_current_stream(Stream stream) { impl::getDeviceGuardImpl(stream.device_type())->exchangeStream(stream); }

DeviceIndex device_count(DeviceType type) {
  return impl::hasDeviceGuardImpl(type) ? impl::getDeviceGuardImpl(type)->deviceCount() : 0;
}

// ---- Stream ----------------------------------------------------------------------------------

bool Stream::query() const { return impl::getDeviceGuardImpl(device_type())->queryStream(*this); }
void Stream::synchronize() const { impl::getDeviceGuardImpl(device_type())->synchronizeStream(*this); }

uint64_t Stream::pack() const {
  constexpr int64_t kLimit = int64_t{1} << 47;
  EMBER_CHECK(id_ >= -kLimit && id_ < kLimit, "[Stream] id {} does not fit the 48 bits a packed stream holds", id_);
  return uint64_t{static_cast<uint8_t>(device_type())} << 56 | uint64_t{static_cast<uint8_t>(device_index())} << 48 |
         (static_cast<uint64_t>(id_) & ((uint64_t{1} << 48) - 1));
}

Stream Stream::unpack(uint64_t bits) {
  constexpr uint64_t kSign = uint64_t{1} << 47;
  const auto id = static_cast<StreamId>(((bits & ((uint64_t{1} << 48) - 1)) ^ kSign) - kSign);
  const auto index = static_cast<DeviceIndex>(static_cast<uint8_t>(bits >> 48));
  const auto type = static_cast<DeviceType>(static_cast<int8_t>(bits >> 56));
  return Stream(UNSAFE, Device(type, index), id);
}

std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "stream " << s.id() << " on device " << s.device();
}

// ---- Event -----------------------------------------------------------------------------------

Event::Event(DeviceType type, EventFlag flag) : impl_(impl::getDeviceGuardImpl(type)), type_(type), flag_(flag) {}

Event::~Event() {
  if (event_) impl_->destroyEvent(event_, index_);
}

Event::Event(Event&& o) noexcept : impl_(o.impl_), type_(o.type_), flag_(o.flag_) { swap(o); }

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    Event tmp(std::move(o));
    swap(tmp);
  }
  return *this;
}

void Event::swap(Event& o) noexcept {
  std::swap(impl_, o.impl_);
  std::swap(event_, o.event_);
  std::swap(type_, o.type_);
  std::swap(index_, o.index_);
  std::swap(flag_, o.flag_);
  std::swap(recorded_, o.recorded_);
}

void Event::record(const Stream& stream) {
  EMBER_CHECK(stream.device_type() == type_,
              "[Event::record] the event's device type {} does not match the stream's device type {}", type_,
              stream.device_type());
  impl_->record(&event_, stream, index_, flag_);
  recorded_ = true;
  index_ = stream.device_index();
}

void Event::recordOnce(const Stream& stream) {
  if (!recorded_) record(stream);
}

void Event::block(const Stream& stream) const {
  if (!recorded_) return;
  EMBER_CHECK(stream.device_type() == type_,
              "[Event::block] the event's device type {} does not match the stream's device type {}", type_,
              stream.device_type());
  impl_->block(event_, stream);
}

bool Event::query() const { return !recorded_ || impl_->queryEvent(event_); }

void Event::synchronize() const {
  if (recorded_) impl_->synchronizeEvent(event_);
}

double Event::elapsed_time(const Event& end) const {
  EMBER_CHECK(end.type_ == type_, "[Event::elapsed_time] the events are on different device types, {} and {}",
              device_type_name(type_), device_type_name(end.type_));
  EMBER_CHECK(recorded_ && end.recorded_,
              "[Event::elapsed_time] both events must be recorded before measuring the time between them");
  return impl_->elapsedTime(event_, end.event_, index_);
}

void stream_wait(const Stream& waiter, const Stream& producer) {
  if (waiter == producer) return;
  Event ev(producer.device_type());
  ev.record(producer);
  ev.block(waiter);
}

}  // namespace ember
