#pragma once
// What a device type implements so that device-generic code can switch devices and streams and
// use events: c10's DeviceGuardImplInterface, and the registry of one implementation per type.
//
// Note [Device guards and streams]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each device type registers one DeviceGuardImplInterface (register_device_guard_impl; core
// registers no-op ones for cpu and meta, a plugin registers its device's). The current device
// and each device's current stream are per thread and kept by the implementation (CUDA keeps
// them in its runtime), so Ember adds no state of its own. Device-generic code goes through the
// registry: DeviceGuard / OptionalDeviceGuard / StreamGuard (DeviceGuard.h) set a device or
// stream and restore the previous one at scope exit; current_stream(device) and
// set_current_stream(stream) read and set the thread's current stream (LibTorch's
// getCurrentCUDAStream / setCurrentCUDAStream, made device-generic); Event (Event.h) records
// and waits through the same interface.
//
// The registry is lock-free to read and does not own the implementations: register one that
// lives as long as the process (a static of the plugin; plugins are never unloaded). Methods
// are const and must be thread-safe. A device type with no implementation gets a clear error
// naming the plugin to load.
#include <atomic>

#include "ember/core/Stream.h"

namespace ember {

// How an event is created (c10's EventFlag). PYTORCH_DEFAULT and BACKEND_DEFAULT are valid on
// every backend, the others only on theirs.
enum class EventFlag {
  PYTORCH_DEFAULT,
  BACKEND_DEFAULT,
  CUDA_EVENT_DEFAULT,
  CUDA_EVENT_DISABLE_TIMING,
  HIP_EVENT_DEFAULT,
  HIP_EVENT_DISABLE_TIMING,
  INVALID
};

namespace impl {

// One device type's devices, streams and events. The default bodies of the optional methods
// throw NotImplementedError naming the type.
class EMBER_API DeviceGuardImplInterface {
 public:
  virtual ~DeviceGuardImplInterface();

  virtual DeviceType type() const = 0;
  // Sets the thread's current device and returns the previous one.
  virtual Device exchangeDevice(Device d) const = 0;
  virtual Device getDevice() const = 0;
  virtual void setDevice(Device d) const = 0;
  // Without error checks: for destructors.
  virtual void uncheckedSetDevice(Device d) const noexcept = 0;

  // The thread's current stream on device d.
  virtual Stream getStream(Device d) const noexcept = 0;
  virtual Stream getDefaultStream(Device d) const;
  virtual Stream getStreamFromGlobalPool(Device d, bool isHighPriority = false) const;
  // Makes s the thread's current stream on its device (the current device is unchanged) and
  // returns the previous current stream of that device.
  virtual Stream exchangeStream(Stream s) const noexcept = 0;

  // Never throws: a broken driver reports 0 devices.
  virtual DeviceIndex deviceCount() const noexcept = 0;

  // Events: `*event` starts null; record creates it on first use. destroyEvent takes a null one.
  virtual void record(void** event, const Stream& stream, DeviceIndex device_index, EventFlag flag) const;
  virtual void block(void* event, const Stream& stream) const;
  virtual bool queryEvent(void* event) const;
  virtual void synchronizeEvent(void* event) const;
  virtual void destroyEvent(void* event, DeviceIndex device_index) const noexcept;

  virtual bool queryStream(const Stream& stream) const;
  virtual void synchronizeStream(const Stream& stream) const;

  // The runtime's handle of a stream (cudaStream_t, hipStream_t), and a stream for a handle
  // made outside Ember (getStreamFromExternal); the handle must outlive every use.
  virtual void* nativeStream(const Stream& stream) const;
  virtual Stream getStreamFromExternal(void* handle, DeviceIndex device_index) const;
  // Milliseconds between two recorded events made with timing enabled.
  virtual double elapsedTime(void* start, void* end, DeviceIndex device_index) const;
  // Waits for all work on the device (cudaDeviceSynchronize).
  virtual void synchronizeDevice(DeviceIndex device_index) const;
};

// For devices with nothing to switch (cpu, meta): device index -1, one default stream, work
// always complete, events that record nothing and are always ready (c10's NoOpDeviceGuardImpl,
// except that events work: on a synchronous device they are trivially complete).
class EMBER_API NoOpDeviceGuardImpl final : public DeviceGuardImplInterface {
 public:
  explicit NoOpDeviceGuardImpl(DeviceType t) : type_(t) {}
  DeviceType type() const override { return type_; }
  Device exchangeDevice(Device) const override { return Device(type_); }
  Device getDevice() const override { return Device(type_); }
  void setDevice(Device) const override {}
  void uncheckedSetDevice(Device) const noexcept override {}
  Stream getStream(Device) const noexcept override { return Stream(Stream::DEFAULT, Device(type_)); }
  Stream getDefaultStream(Device) const override { return Stream(Stream::DEFAULT, Device(type_)); }
  Stream getStreamFromGlobalPool(Device, bool) const override { return Stream(Stream::DEFAULT, Device(type_)); }
  Stream exchangeStream(Stream) const noexcept override { return Stream(Stream::DEFAULT, Device(type_)); }
  DeviceIndex deviceCount() const noexcept override { return 1; }
  void record(void**, const Stream&, DeviceIndex, EventFlag) const override {}
  void block(void*, const Stream&) const override {}
  bool queryEvent(void*) const override { return true; }
  void synchronizeEvent(void*) const override {}
  void destroyEvent(void*, DeviceIndex) const noexcept override {}
  bool queryStream(const Stream&) const override { return true; }
  void synchronizeStream(const Stream&) const override {}
  void synchronizeDevice(DeviceIndex) const override {}

 private:
  DeviceType type_;
};

// The implementation of `type`; throws NotImplementedError naming the plugin to load when none
// is registered.
EMBER_API const DeviceGuardImplInterface* getDeviceGuardImpl(DeviceType type);
EMBER_API bool hasDeviceGuardImpl(DeviceType type);

}  // namespace impl

// Registers `impl` (not owned; it must outlive every use) for `type`, replacing any earlier one
// (null removes it). Throws ValueError for an unknown type or an impl of another type.
EMBER_API void register_device_guard_impl(DeviceType type, const impl::DeviceGuardImplInterface* impl);

}  // namespace ember
