#pragma once
// A stream: a device and an id naming one of its work queues (c10::Stream). Backend-neutral; the
// device type's DeviceGuardImpl gives ids their meaning. See Note [Device guards and streams] in
// DeviceGuardImpl.h.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>

#include "ember/core/Device.h"

namespace ember {

using StreamId = int64_t;

class EMBER_API Stream {
 public:
  enum Unsafe { UNSAFE };
  enum Default { DEFAULT };
  // A stream by id; nothing checks that the device has it (backends hand out valid ones).
  Stream(Unsafe, Device device, StreamId id) : device_(device), id_(id) {}
  // The device's default stream (id 0).
  Stream(Default, Device device) : device_(device), id_(0) {}

  Device device() const noexcept { return device_; }
  DeviceType device_type() const noexcept { return device_.type(); }
  DeviceIndex device_index() const noexcept { return device_.index(); }
  StreamId id() const noexcept { return id_; }
  bool operator==(const Stream& o) const noexcept { return device_ == o.device_ && id_ == o.id_; }

  // Through the device type's DeviceGuardImpl: whether all work queued on the stream is done,
  // and waiting for it.
  bool query() const;
  void synchronize() const;
  // `event.block(*this)`: later work on this stream waits for the event.
  template <class E>
  void wait(const E& event) const {
    event.block(*this);
  }

  // 64 bits: type (8), index (8), id (low 48, sign-extended on unpack), c10's layout; what IValue
  // stores. pack() throws ValueError for an id that does not fit 48 bits.
  uint64_t pack() const;
  static Stream unpack(uint64_t bits);

 private:
  Device device_;
  StreamId id_;
};

// "stream 0 on device cuda:0", as c10.
EMBER_API std::ostream& operator<<(std::ostream& os, const Stream& s);

}  // namespace ember

template <>
struct std::hash<ember::Stream> {
  size_t operator()(const ember::Stream& s) const noexcept {
    return std::hash<int64_t>{}(s.id()) * 31 + static_cast<size_t>(static_cast<uint8_t>(s.device_type())) * 257 +
           static_cast<size_t>(static_cast<uint8_t>(s.device_index()));
  }
};
