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

namespace {
// Runs `read` on `n` threads (yielding between calls) while `write` runs, which starts once
// every reader has.
template <class Read, class Write>
void race(int n, Read read, Write write) {
  std::atomic<bool> stop{false};
  std::atomic<int> started{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < n; ++t)
    readers.emplace_back([&] {
      started.fetch_add(1);
      while (!stop.load(std::memory_order_relaxed)) {
        read();
        std::this_thread::yield();
      }
    });
  while (started.load() < n) std::this_thread::yield();
  write();
  stop = true;
  for (auto& r : readers) r.join();
}
// Yields until `counter` moves (a reader saw the new state), at most ~1000 times. Relaxed, as
// the readers' increments are: the counter must not order their reads before the next write,
// or TSan could not see a race between them.
void wait_for_readers(const std::atomic<long>& counter) {
  long before = counter.load(std::memory_order_relaxed);
  for (int k = 0; k < 1000 && counter.load(std::memory_order_relaxed) == before; ++k) std::this_thread::yield();
}
}  // namespace

TEST(Stress, SchemaReadsAndBoxedCallsWhileTheOperatorIsRedefined) {
  // Readers take the schema and the boxed key-set positions from the table they call, with no
  // lock; a writer defines and undoes the operator. A reader sees the def whole or not at all.
  auto cpu = std::make_unique<Library>(Library::Kind::IMPL, "tstress2", DispatchKey::CPU, __FILE__, __LINE__);
  cpu->impl("g", [](const Tensor& x, int64_t) { return x; });
  Tensor x = make_empty({1}, kFloat32);
  std::atomic<long> ok{0}, absent{0};
  auto read = [&] {
    auto h = Dispatcher::singleton().findSchema("tstress2::g");
    if (!h) return;
    try {
      const FunctionSchema& s = h->schema();
      ASSERT_EQ(s.arguments().size(), 2u);
      ASSERT_EQ(s.arguments()[1].name(), "n");
      Stack st;
      st.emplace_back(x);
      st.emplace_back(int64_t{1});
      h->callBoxed(st);
      ASSERT_TRUE(st.back().toTensor().is_same(x));
      ok.fetch_add(1, std::memory_order_relaxed);
    } catch (const ValueError&) {  // schema(): undone since findSchema
      absent.fetch_add(1, std::memory_order_relaxed);
    } catch (const NotImplementedError& e) {  // a table without the def has no key set
      ASSERT_NE(std::string(e.what()).find("no kernel for dispatch key Undefined"), std::string::npos) << e.what();
      absent.fetch_add(1, std::memory_order_relaxed);
    }
  };
  race(3, read, [&] {
    for (int i = 0; i < 100; ++i) {
      auto def = std::make_unique<Library>(Library::Kind::DEF, "tstress2", std::nullopt, __FILE__, __LINE__);
      def->def("g(Tensor x, int n) -> Tensor");
      wait_for_readers(ok);
    }
  });
  EXPECT_GT(ok.load(), 0);
}

TEST(Stress, TransactionsArePublishedWhole) {
  // Each round defines an operator with a CPU kernel in one transaction and undoes both in
  // another: a reader never finds the schema in a table without the kernel, or the reverse.
  Tensor x = make_empty({1}, kFloat32);
  std::atomic<long> calls{0};
  auto read = [&] {
    auto h = Dispatcher::singleton().findSchema("tstress3::h");
    if (!h) return;
    Stack st;
    st.emplace_back(x);
    try {
      h->callBoxed(st);
      ASSERT_TRUE(st.back().toTensor().is_same(x));
      calls.fetch_add(1, std::memory_order_relaxed);
    } catch (const NotImplementedError& e) {  // the round ended: no schema, no key set
      ASSERT_NE(std::string(e.what()).find("no kernel for dispatch key Undefined"), std::string::npos) << e.what();
    }
  };
  race(2, read, [&] {
    for (int i = 0; i < 100; ++i) {
      std::unique_ptr<Library> def, cpu;
      {
        detail::RegistrationTransaction tx;
        def = std::make_unique<Library>(Library::Kind::DEF, "tstress3", std::nullopt, __FILE__, __LINE__);
        def->def("h(Tensor x) -> Tensor");
        std::this_thread::yield();
        cpu = std::make_unique<Library>(Library::Kind::IMPL, "tstress3", DispatchKey::CPU, __FILE__, __LINE__);
        cpu->impl("h", [i](const Tensor& t) { return i >= 0 ? t : Tensor(); });
      }
      wait_for_readers(calls);
      {
        detail::RegistrationTransaction tx;
        cpu.reset();
        std::this_thread::yield();
        def.reset();
      }
    }
  });
  EXPECT_GT(calls.load(), 0);
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tstress3::h").has_value());
}
