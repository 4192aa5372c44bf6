// DeviceGuard, OptionalDeviceGuard, StreamGuard, current streams and events, on the no-op CPU
// implementation and on a device type registered at run time with a DeviceGuardImpl of the
// test's own (per-thread current device, a current stream per device, events as counters).
#include <gtest/gtest.h>

#include <array>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>

#include "UnitTestUtil.h"
#include "ember/ember.h"

using namespace ember;

namespace {

using test::error_of;

// Four devices. Stream ids: 0 is each device's default stream, 1..8 the pool. An event is an
// int holding the "time" it was recorded at; a stream is done once its device's clock has passed
// everything queued on it (the test moves the clock).
class FakeGuardImpl final : public impl::DeviceGuardImplInterface {
 public:
  explicit FakeGuardImpl(DeviceType t) : type_(t) {}
  DeviceType type() const override { return type_; }
  Device exchangeDevice(Device d) const override {
    Device old = getDevice();
    setDevice(d);
    return old;
  }
  Device getDevice() const override { return Device(type_, current_device()); }
  void setDevice(Device d) const override {
    EMBER_CHECK(d.type() == type_ && d.index() >= 0 && d.index() < 4, "[fake] bad device {}", d);
    current_device() = d.index();
  }
  void uncheckedSetDevice(Device d) const noexcept override { current_device() = d.index(); }
  Stream getStream(Device d) const noexcept override {
    return Stream(Stream::UNSAFE, Device(type_, d.index()), current_streams()[d.index()]);
  }
  Stream getDefaultStream(Device d) const override { return Stream(Stream::DEFAULT, Device(type_, d.index())); }
  Stream getStreamFromGlobalPool(Device d, bool high) const override {
    return Stream(Stream::UNSAFE, Device(type_, d.index()), high ? 8 : 1 + (next_pool_++ % 7));
  }
  Stream exchangeStream(Stream s) const noexcept override {
    Stream old = getStream(s.device());
    current_streams()[s.device_index()] = s.id();
    return old;
  }
  DeviceIndex deviceCount() const noexcept override { return 4; }

  void record(void** event, const Stream& s, DeviceIndex, EventFlag) const override {
    if (!*event) {
      *event = new int(0);
      ++live_events;
    }
    *static_cast<int*>(*event) = queued_[s.device_index()][s.id()] = ++clock_;
  }
  void block(void* event, const Stream& s) const override {
    blocked_on = *static_cast<int*>(event);
    blocked_stream = s.id();
  }
  bool queryEvent(void* event) const override { return *static_cast<int*>(event) <= done_; }
  void synchronizeEvent(void* event) const override { done_ = std::max(done_, *static_cast<int*>(event)); }
  void destroyEvent(void* event, DeviceIndex) const noexcept override {
    delete static_cast<int*>(event);
    --live_events;
  }
  bool queryStream(const Stream& s) const override { return queued_[s.device_index()][s.id()] <= done_; }
  void synchronizeStream(const Stream& s) const override { done_ = std::max(done_, queued_[s.device_index()][s.id()]); }

  mutable int live_events = 0;
  mutable int blocked_on = 0;
  mutable StreamId blocked_stream = -1;

 private:
  static DeviceIndex& current_device() {
    thread_local DeviceIndex d = 0;
    return d;
  }
  static std::array<StreamId, 4>& current_streams() {
    thread_local std::array<StreamId, 4> s{};
    return s;
  }
  DeviceType type_;
  mutable int next_pool_ = 0;
  mutable int clock_ = 0;
  mutable int done_ = 0;
  mutable std::array<std::array<int, 9>, 4> queued_{};
};

struct Fake {
  DeviceType type;
  FakeGuardImpl* impl;
};

Fake fake() {
  static const Fake f = [] {
    DeviceType t = register_device_type("tfakegpu");
    auto* impl = new FakeGuardImpl(t);  // lives for the process, as a plugin's would
    register_device_guard_impl(t, impl);
    return Fake{t, impl};
  }();
  return f;
}

Device fd(DeviceIndex i) { return Device(fake().type, i); }
Stream fs(DeviceIndex i, StreamId id) { return Stream(Stream::UNSAFE, fd(i), id); }

}  // namespace

TEST(DeviceGuard, CpuAndMetaAreNoOps) {
  ASSERT_TRUE(impl::hasDeviceGuardImpl(kCPU));
  ASSERT_TRUE(impl::hasDeviceGuardImpl(kMeta));
  {
    DeviceGuard g{Device(kCPU)};
    EXPECT_EQ(g.original_device(), Device(kCPU));
    EXPECT_EQ(g.current_device(), Device(kCPU));
  }
  EXPECT_EQ(current_stream(Device(kCPU)), Stream(Stream::DEFAULT, Device(kCPU)));
  EXPECT_EQ(default_stream(Device(kMeta)), Stream(Stream::DEFAULT, Device(kMeta)));
  EXPECT_EQ(stream_from_pool(Device(kCPU)), Stream(Stream::DEFAULT, Device(kCPU)));
  {
    StreamGuard sg(Stream(Stream::DEFAULT, Device(kCPU)));
    EXPECT_EQ(sg.current_stream(), Stream(Stream::DEFAULT, Device(kCPU)));
  }
  EXPECT_EQ(device_count(kCPU), 1);
  // CPU work is synchronous: streams are always done and events always ready.
  Stream s = current_stream(Device(kCPU));
  EXPECT_TRUE(s.query());
  s.synchronize();
  Event e(kCPU);
  EXPECT_TRUE(e.query());
  e.record(s);
  EXPECT_TRUE(e.was_marked_for_recording());
  EXPECT_TRUE(e.query());
  e.synchronize();
  e.block(s);
}

TEST(DeviceGuard, UnknownImplementationIsAClearError) {
  const DeviceType t = register_device_type("tnoguard");
  EXPECT_FALSE(impl::hasDeviceGuardImpl(t));
  EXPECT_EQ(device_count(t), 0);
  const std::string e = error_of([&] { DeviceGuard g(Device(t, 0)); });
  EXPECT_NE(e.find("[DeviceGuard] no DeviceGuardImpl is registered for device type 'tnoguard': load the plugin "
                   "that provides it (ember::plugins::load(\"tnoguard\"))"),
            std::string::npos)
      << e;
  EXPECT_THROW(current_stream(Device(t, 0)), NotImplementedError);
  EXPECT_THROW(Event{t}, NotImplementedError);
  EXPECT_NE(error_of([&] {
              register_device_guard_impl(t, fake().impl);
            }).find("the implementation is for device type 'tfakegpu', not 'tnoguard'"),
            std::string::npos);
}

TEST(DeviceGuard, RestoresTheDeviceAndSwitchesTypes) {
  auto* g = fake().impl;
  g->setDevice(fd(0));
  EXPECT_EQ(device_count(fake().type), 4);
  {
    DeviceGuard guard(fd(2));
    EXPECT_EQ(g->getDevice(), fd(2));
    EXPECT_EQ(guard.original_device(), fd(0));
    EXPECT_EQ(guard.current_device(), fd(2));
    {
      DeviceGuard inner(fd(3));
      EXPECT_EQ(g->getDevice(), fd(3));
    }
    EXPECT_EQ(g->getDevice(), fd(2));
    guard.set_index(1);
    EXPECT_EQ(g->getDevice(), fd(1));
    EXPECT_EQ(guard.current_device(), fd(1));
    EXPECT_EQ(guard.original_device(), fd(0));
    // A device of another type restores this one first.
    guard.reset_device(Device(kCPU));
    EXPECT_EQ(g->getDevice(), fd(0));
    EXPECT_EQ(guard.original_device(), Device(kCPU));
    guard.reset_device(fd(3));
    EXPECT_EQ(g->getDevice(), fd(3));
    EXPECT_EQ(guard.original_device(), fd(0));
  }
  EXPECT_EQ(g->getDevice(), fd(0));
  // No index: nothing changes.
  {
    DeviceGuard guard{Device(fake().type)};
    EXPECT_EQ(guard.current_device(), fd(0));
    EXPECT_EQ(g->getDevice(), fd(0));
  }
  // A bad device throws from the constructor and leaves the device as it was.
  EXPECT_NE(error_of([&] { DeviceGuard bad(fd(9)); }).find("[fake] bad device tfakegpu:9"), std::string::npos);
  EXPECT_EQ(g->getDevice(), fd(0));
  // Per thread: another thread's guard does not move this thread's device.
  std::thread([&] {
    DeviceGuard other(fd(2));
    EXPECT_EQ(g->getDevice(), fd(2));
  }).join();
  EXPECT_EQ(g->getDevice(), fd(0));
}

TEST(DeviceGuard, OptionalDeviceGuard) {
  auto* g = fake().impl;
  g->setDevice(fd(1));
  {
    OptionalDeviceGuard none;
    EXPECT_FALSE(none.original_device().has_value());
    EXPECT_FALSE(none.current_device().has_value());
    OptionalDeviceGuard also_none(std::nullopt);
    EXPECT_FALSE(also_none.current_device().has_value());
    none.reset_device(fd(3));
    EXPECT_EQ(g->getDevice(), fd(3));
    EXPECT_EQ(none.original_device(), fd(1));
    none.reset_device(fd(2));
    EXPECT_EQ(none.current_device(), fd(2));
    none.reset();  // restores now
    EXPECT_EQ(g->getDevice(), fd(1));
    EXPECT_FALSE(none.current_device().has_value());
    OptionalDeviceGuard some(fd(0));
    EXPECT_EQ(g->getDevice(), fd(0));
  }
  EXPECT_EQ(g->getDevice(), fd(1));
}

TEST(DeviceGuard, StreamsPerDeviceAndStreamGuard) {
  auto* g = fake().impl;
  g->setDevice(fd(0));
  for (DeviceIndex i = 0; i < 4; ++i) set_current_stream(fs(i, 0));
  // The current stream is per device: setting device 2's leaves device 1's and the device alone.
  set_current_stream(fs(2, 5));
  EXPECT_EQ(current_stream(fd(2)), fs(2, 5));
  EXPECT_EQ(current_stream(fd(1)), fs(1, 0));
  EXPECT_EQ(g->getDevice(), fd(0));
  EXPECT_EQ(current_stream(Device(fake().type)), fs(0, 0));  // no index: the current device's
  EXPECT_EQ(default_stream(fd(3)), fs(3, 0));
  EXPECT_EQ(stream_from_pool(fd(1), /*high_priority=*/true), fs(1, 8));
  EXPECT_EQ(stream_from_pool(fd(1)).device(), fd(1));
  {
    StreamGuard sg(fs(3, 4));
    EXPECT_EQ(g->getDevice(), fd(3));
    EXPECT_EQ(current_stream(fd(3)), fs(3, 4));
    EXPECT_EQ(sg.original_stream(), fs(0, 0));
    EXPECT_EQ(sg.current_stream(), fs(3, 4));
    EXPECT_EQ(sg.original_device(), fd(0));
    EXPECT_EQ(sg.current_device(), fd(3));
    sg.reset_stream(fs(3, 6));  // same device
    EXPECT_EQ(current_stream(fd(3)), fs(3, 6));
    sg.reset_stream(fs(2, 7));  // another device: device 3's stream is back, device 2 guarded
    EXPECT_EQ(current_stream(fd(3)), fs(3, 0));
    EXPECT_EQ(current_stream(fd(2)), fs(2, 7));
    EXPECT_EQ(g->getDevice(), fd(2));
    EXPECT_EQ(sg.original_device(), fd(0));
  }
  EXPECT_EQ(g->getDevice(), fd(0));
  EXPECT_EQ(current_stream(fd(2)), fs(2, 5));
  EXPECT_EQ(current_stream(fd(3)), fs(3, 0));

  // Stream values: printable, hashable, comparable.
  std::ostringstream os;
  os << fs(2, 5);
  EXPECT_EQ(os.str(), "stream 5 on device tfakegpu:2");
  std::unordered_set<Stream> set{fs(0, 1), fs(1, 1), fs(0, 1), fs(0, 2)};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_NE(std::hash<Stream>{}(fs(0, 1)), std::hash<Stream>{}(fs(1, 1)));
  EXPECT_FALSE(fs(0, 1) == fs(1, 1));
  EXPECT_EQ(Stream::unpack(fs(3, -4).pack()), fs(3, -4));
}

TEST(DeviceGuard, EventsRecordQueryBlockAndSynchronize) {
  auto* g = fake().impl;
  const int live = g->live_events;
  {
    Event e(fake().type);
    EXPECT_EQ(e.device_type(), fake().type);
    EXPECT_EQ(e.device_index(), -1);
    EXPECT_EQ(e.flag(), EventFlag::PYTORCH_DEFAULT);
    EXPECT_TRUE(e.query());  // never recorded: ready
    e.block(fs(1, 2));       // never recorded: nothing
    EXPECT_EQ(g->blocked_stream, -1);

    e.record(fs(1, 2));
    EXPECT_EQ(g->live_events, live + 1);
    EXPECT_EQ(e.device(), fd(1));
    EXPECT_TRUE(e.was_marked_for_recording());
    EXPECT_FALSE(e.query());
    EXPECT_FALSE(fs(1, 2).query());
    fs(0, 3).wait(e);  // Stream::wait blocks the stream on the event
    EXPECT_EQ(g->blocked_stream, 3);
    e.synchronize();
    EXPECT_TRUE(e.query());
    EXPECT_TRUE(fs(1, 2).query());

    e.recordOnce(fs(1, 2));  // already recorded: no new record
    EXPECT_TRUE(e.query());
    e.record(fs(1, 2));  // a new record: pending again, same event object
    EXPECT_EQ(g->live_events, live + 1);
    EXPECT_FALSE(e.query());
    fs(1, 2).synchronize();
    EXPECT_TRUE(e.query());

    const std::string err = error_of([&] { e.record(Stream(Stream::DEFAULT, Device(kCPU))); });
    EXPECT_NE(err.find("[Event::record] the event's device type tfakegpu does not match the stream's device type "
                       "cpu"),
              std::string::npos)
        << err;

    Event moved(std::move(e));  // the event object moves; only one destroy
    EXPECT_TRUE(moved.was_marked_for_recording());
    EXPECT_EQ(moved.device(), fd(1));
    Event other(fake().type);
    other = std::move(moved);
    EXPECT_EQ(other.device(), fd(1));
    EXPECT_EQ(g->live_events, live + 1);
  }
  EXPECT_EQ(g->live_events, live);
}
