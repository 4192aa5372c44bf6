// Registration and deregistration racing with dispatch. Meant for the TSan build
// (scripts/test.sh --tsan); in the normal build it checks that nothing crashes or misroutes.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ember/ember.h"

using namespace ember;

EMBER_LIBRARY(tstress, m) { m.def("f(Tensor x) -> Tensor"); }
EMBER_LIBRARY_IMPL(tstress, CompositeExplicitAutograd, m) {
  m.impl("f", [](const Tensor& x) { return x; });
}

TEST(Stress, RegisterAndDeregisterWhileOtherThreadsDispatch) {
  auto op = Dispatcher::singleton().findSchemaOrThrow("tstress::f", "").typed<Tensor(const Tensor&)>();
  Tensor x = make_empty({1}, kFloat32);
  std::atomic<bool> stop{false};
  std::atomic<long> calls{0}, via_cpu{0};
  std::atomic<int> hits_cpu_kernel{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t)
    readers.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        Tensor y = op.call(x);
        ASSERT_TRUE(y.is_same(x));
        calls.fetch_add(1, std::memory_order_relaxed);
      }
    });
  for (int i = 0; i < 300; ++i) {
    // CPU kernel with a captured counter (a functor that outlives its deregistration).
    auto l = std::make_unique<Library>(Library::Kind::IMPL, "tstress", DispatchKey::CPU, __FILE__, __LINE__);
    l->impl("f", [&hits_cpu_kernel](const Tensor& t) {
      hits_cpu_kernel.fetch_add(1, std::memory_order_relaxed);
      return t;
    });
    via_cpu.fetch_add(1);
    std::this_thread::yield();
  }
  stop = true;
  for (auto& r : readers) r.join();
  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(via_cpu.load(), 300);
  // With every CPU kernel gone the composite serves again.
  EXPECT_TRUE(op.call(x).is_same(x));
  EXPECT_EQ(Dispatcher::singleton().findSchemaOrThrow("tstress::f", "").dump_table().find("  CPU: '"),
            std::string::npos);
}
