// Typed calls never allocate: this binary replaces the global operator new to count.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "ember/ember.h"

// GCC pairs gtest's inlined `new TestClass` with this file's free-based delete and warns; the
// pairing is right (both go through malloc/free here).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
std::atomic<long> g_allocs{0};
}  // namespace

void* operator new(size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

using namespace ember;

EMBER_LIBRARY(talloc, m) { m.def("noop(Tensor x) -> Tensor"); }
EMBER_LIBRARY_IMPL(talloc, CPU, m) { m.impl("noop", [](const Tensor& x) { return x; }); }

TEST(AllocFree, TenThousandTypedCallsAllocateNothing) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers replace operator new themselves: counting is done in the plain build";
#endif
  auto op = Dispatcher::singleton().findSchemaOrThrow("talloc::noop", "").typed<Tensor(const Tensor&)>();
  Tensor x = make_empty({1}, kFloat32);
  op.call(x);  // warm up
  long before = g_allocs.load();
  for (int i = 0; i < 10000; ++i) {
    Tensor y = op.call(x);
    ASSERT_TRUE(y.is_same(x));
  }
  EXPECT_EQ(g_allocs.load() - before, 0);
  // A boxed call of one argument stays on the stack too (inline Stack capacity).
  before = g_allocs.load();
  for (int i = 0; i < 1000; ++i) {
    Stack s;
    s.emplace_back(x);
    op.handle().callBoxed(s);
  }
  EXPECT_EQ(g_allocs.load() - before, 0);
}
