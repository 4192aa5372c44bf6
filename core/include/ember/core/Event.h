#pragma once
// A device event (c10::Event): recorded on a stream, then queried, waited for by the host, or
// waited for by another stream. Device-generic through the type's DeviceGuardImpl (see Note
// [Device guards and streams] in DeviceGuardImpl.h). Movable, not copyable.
#include "ember/core/DeviceGuardImpl.h"

namespace ember {

class EMBER_API Event {
 public:
  // Throws NotImplementedError when `type` has no DeviceGuardImpl.
  explicit Event(DeviceType type, EventFlag flag = EventFlag::PYTORCH_DEFAULT);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;

  Device device() const noexcept { return Device(type_, index_); }
  DeviceType device_type() const noexcept { return type_; }
  // -1 until the first record.
  DeviceIndex device_index() const noexcept { return index_; }
  EventFlag flag() const noexcept { return flag_; }
  bool was_marked_for_recording() const noexcept { return recorded_; }

  // Marks the point reached by the work queued on `stream` so far. Throws ValueError for a
  // stream of another device type.
  void record(const Stream& stream);
  // record() unless this event was recorded before.
  void recordOnce(const Stream& stream);
  // Work queued on `stream` from now on waits for this event (nothing when never recorded).
  void block(const Stream& stream) const;
  // Whether the recorded work is done (true when never recorded).
  bool query() const;
  // Waits on the host for the recorded work (returns at once when never recorded).
  void synchronize() const;
  // Milliseconds from this event to `end`, both recorded with timing enabled (c10's
  // elapsedTime; ValueError when either was never recorded).
  double elapsed_time(const Event& end) const;
  // The backend's event handle (cudaEvent_t), null until the first record.
  void* eventId() const noexcept { return event_; }

 private:
  void swap(Event& o) noexcept;

  const impl::DeviceGuardImplInterface* impl_;
  void* event_ = nullptr;
  DeviceType type_;
  DeviceIndex index_ = -1;
  EventFlag flag_;
  bool recorded_ = false;
};

// Work queued on `waiter` from now on waits for the work queued on `producer` so far: an event
// recorded on one and blocked on by the other, without the host waiting. Nothing when they are
// the same stream; ValueError when their device types differ.
EMBER_API void stream_wait(const Stream& waiter, const Stream& producer);

}  // namespace ember
