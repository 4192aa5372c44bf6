#pragma once
// RAII guards that set the current device or stream and restore it at scope exit, and the
// thread's current stream per device. Device-generic: each goes through the device type's
// DeviceGuardImpl (see Note [Device guards and streams] in DeviceGuardImpl.h).
#include <optional>

#include "ember/core/DeviceGuardImpl.h"

namespace ember {

// Sets the current device of `device`'s type for the scope (c10::DeviceGuard). A device with
// no index (cpu, "cuda") changes nothing. Neither copyable nor movable.
class EMBER_API DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

  // Switches to `device`; a device of another type first restores this guard's original device
  // and then guards `device`'s type.
  void reset_device(Device device);
  // reset_device(Device(original_device().type(), index)).
  void set_index(DeviceIndex index);
  Device original_device() const { return original_; }
  // What this guard last set (the original one if it set none).
  Device current_device() const { return current_; }

 private:
  void init(Device device);

  const impl::DeviceGuardImplInterface* impl_;
  Device original_;
  Device current_;
};

// A DeviceGuard that may hold no device (c10::OptionalDeviceGuard): made with nullopt it does
// nothing until reset_device.
class EMBER_API OptionalDeviceGuard {
 public:
  OptionalDeviceGuard() = default;
  explicit OptionalDeviceGuard(std::optional<Device> device);
  OptionalDeviceGuard(const OptionalDeviceGuard&) = delete;
  OptionalDeviceGuard& operator=(const OptionalDeviceGuard&) = delete;

  void reset_device(Device device);
  // Restores the original device and goes back to holding none.
  void reset() { guard_.reset(); }
  std::optional<Device> original_device() const;
  std::optional<Device> current_device() const;

 private:
  std::optional<DeviceGuard> guard_;
};

// Sets the current device to the stream's and the stream as that device's current stream for
// the scope; restores both (c10::StreamGuard).
class EMBER_API StreamGuard {
 public:
  explicit StreamGuard(Stream stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

  // Restores this guard's streams (and device, when the device changes), then guards `stream`.
  void reset_stream(Stream stream);
  // The current stream of the original device when the guard was made.
  Stream original_stream() const { return original_stream_of_original_device_; }
  Stream current_stream() const { return current_stream_; }
  Device original_device() const { return device_guard_.original_device(); }
  Device current_device() const { return device_guard_.current_device(); }

 private:
  void restore_stream() noexcept;

  DeviceGuard device_guard_;
  const impl::DeviceGuardImplInterface* impl_;
  Stream original_stream_of_original_device_;
  Stream original_stream_of_current_device_;
  Stream current_stream_;
};

// The thread's current stream on `device` (index -1: the current device). LibTorch's
// getCurrentCUDAStream(index), for any device type.
EMBER_API Stream current_stream(Device device);
// The device's default stream (getDefaultCUDAStream).
EMBER_API Stream default_stream(Device device);
// A stream from the device's pool (getStreamFromPool).
EMBER_API Stream stream_from_pool(Device device, bool high_priority = false);
// Makes `stream` the thread's current stream on its device (setCurrentCUDAStream); the current
// device is unchanged.
EMBER_API void set_current_stream(Stream stream);
// Devices of `type`; 0 when no implementation is registered.
EMBER_API DeviceIndex device_count(DeviceType type);

}  // namespace ember
