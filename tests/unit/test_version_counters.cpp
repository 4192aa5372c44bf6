// Note [Version counters]: the dispatcher bumps, once per call, every argument a schema marks
// written, for kernels registered at backend keys only. No plugin is loaded: every kernel here
// is the test's own, and none of them bumps by hand.
#include <gtest/gtest.h>

#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

std::unique_ptr<Library> lib(Library::Kind k, const char* ns, std::optional<DispatchKey> key = {}) {
  return std::make_unique<Library>(k, ns, key, __FILE__, __LINE__);
}

Tensor t_cpu() {
  Tensor t = make_empty({2}, kFloat32, kCPU);
  t.data_ptr<float>()[0] = 1;
  t.data_ptr<float>()[1] = 2;
  return t;
}

// What every in-place test kernel does: scale the data, bump nothing.
Tensor& scale_kernel(Tensor& self, double f) {
  if (!self.is_meta())
    for (int64_t i = 0; i < self.numel(); ++i) self.data_ptr<float>()[i] *= static_cast<float>(f);
  return self;
}

using ScaleSig = Tensor&(Tensor&, double);
TypedOperatorHandle<ScaleSig> scale_op(const char* name) {
  return Dispatcher::singleton().findSchemaOrThrow(name, "").typed<ScaleSig>();
}

// `ns::scale_` typed and boxed on `x`: each call must add exactly one to x's version.
void expect_one_bump_per_call(const char* name, Tensor x, const std::string& what) {
  auto op = scale_op(name);
  const uint64_t v0 = x._version();
  Tensor& r = op.call(x, 2.0);
  EXPECT_TRUE(r.is_same(x)) << what;
  EXPECT_EQ(x._version(), v0 + 1) << what << ": typed call";
  IValue b = ops::call(name, x, 3.0);
  EXPECT_TRUE(b.toTensor().is_same(x)) << what;
  EXPECT_EQ(x._version(), v0 + 2) << what << ": boxed call";
  if (!x.is_meta()) {
    EXPECT_EQ(x.data_ptr<float>()[1], 12.f) << what << ": the kernel ran";
  }
}

}  // namespace

TEST(VersionCounters, EveryKernelFormBumpsOncePerTypedAndBoxedCall) {
  auto def = lib(Library::Kind::DEF, "tver");
  def->def("scale_(Tensor(a!) self, float f) -> Tensor(a!)");
  auto reg = [](auto&& kernel) {
    auto l = lib(Library::Kind::IMPL, "tver", DispatchKey::CPU);
    l->impl("scale_", std::forward<decltype(kernel)>(kernel));
    return l;
  };
  {
    auto l = reg(&scale_kernel);
    expect_one_bump_per_call("tver::scale_", t_cpu(), "function pointer");
  }
  {
    auto l = reg(EMBER_FN(scale_kernel));
    expect_one_bump_per_call("tver::scale_", t_cpu(), "EMBER_FN");
  }
  {
    auto l = reg([](Tensor& self, double f) -> Tensor& { return scale_kernel(self, f); });
    expect_one_bump_per_call("tver::scale_", t_cpu(), "captureless lambda");
  }
  {
    int calls = 0;
    auto l = reg([&calls](Tensor& self, double f) -> Tensor& {
      ++calls;
      return scale_kernel(self, f);
    });
    expect_one_bump_per_call("tver::scale_", t_cpu(), "capturing lambda");
    EXPECT_EQ(calls, 2);
  }
  {
    auto l = reg([](DispatchKeySet, Tensor& self, double f) -> Tensor& { return scale_kernel(self, f); });
    expect_one_bump_per_call("tver::scale_", t_cpu(), "lambda taking the key set");
  }
  {
    auto l = reg(CppFunction([](const OperatorHandle&, Stack* s) {
      double f = s->back().toDouble();
      s->pop_back();
      scale_kernel(s->back().toTensor(), f);  // leaves self as the result
    }));
    expect_one_bump_per_call("tver::scale_", t_cpu(), "boxed-only kernel");
  }
}

TEST(VersionCounters, KernelRegisteredBeforeTheSchemaBumpsOnceDefined) {
  auto cpu = lib(Library::Kind::IMPL, "tverlate", DispatchKey::CPU);
  cpu->impl("scale_", &scale_kernel);
  auto def = lib(Library::Kind::DEF, "tverlate");
  def->def("scale_(Tensor(a!) self, float f) -> Tensor(a!)");
  expect_one_bump_per_call("tverlate::scale_", t_cpu(), "impl before def");
}

TEST(VersionCounters, FunctionalOpsAndThrowingKernelsDoNotBump) {
  auto def = lib(Library::Kind::DEF, "tverf");
  def->def("f(Tensor self) -> Tensor");
  def->def("bad_(Tensor(a!) self) -> Tensor(a!)");
  auto cpu = lib(Library::Kind::IMPL, "tverf", DispatchKey::CPU);
  cpu->impl("f", [](const Tensor& t) { return t; });
  cpu->impl("bad_", [](Tensor& t) -> Tensor& {
    EMBER_CHECK(false, "[bad_] refuses");
    return t;
  });
  Tensor x = t_cpu();
  const uint64_t v0 = x._version();
  Dispatcher::singleton().findSchemaOrThrow("tverf::f", "").typed<Tensor(const Tensor&)>().call(x);
  ops::call("tverf::f", x);
  EXPECT_EQ(x._version(), v0);
  auto bad = Dispatcher::singleton().findSchemaOrThrow("tverf::bad_", "").typed<Tensor&(Tensor&)>();
  EXPECT_THROW(bad.call(x), ValueError);
  EXPECT_THROW(ops::call("tverf::bad_", x), ValueError);
  EXPECT_EQ(x._version(), v0);
}

TEST(VersionCounters, MultiOutputOutBumpsEveryDefinedOut) {
  auto def = lib(Library::Kind::DEF, "tverout");
  def->def("two.out(Tensor self, *, Tensor(a!) a, Tensor(b!) b) -> (Tensor(a!) a, Tensor(b!) b)");
  auto cpu = lib(Library::Kind::IMPL, "tverout", DispatchKey::CPU);
  cpu->impl("two.out", [](const Tensor&, Tensor& a, Tensor& b) { return std::tuple<Tensor&, Tensor&>(a, b); });
  auto op = Dispatcher::singleton()
                .findSchemaOrThrow("tverout::two", "out")
                .typed<std::tuple<Tensor&, Tensor&>(const Tensor&, Tensor&, Tensor&)>();
  Tensor self = t_cpu(), a = t_cpu(), b = t_cpu();
  op.call(self, a, b);
  EXPECT_EQ(a._version(), 1u);
  EXPECT_EQ(b._version(), 1u);
  EXPECT_EQ(self._version(), 0u);
  IValue r = ops::call("tverout::two.out", self, a, b);
  EXPECT_EQ(a._version(), 2u);
  EXPECT_EQ(b._version(), 2u);
  EXPECT_EQ(self._version(), 0u);
  Tensor none;  // an undefined out is skipped, the other still bumped
  op.call(self, a, none);
  EXPECT_EQ(a._version(), 3u);
}

TEST(VersionCounters, WrittenTensorListIsBumpedFromTheSchema) {
  // A `Tensor(a!)[]` has no Tensor& form: the dispatcher bumps from the schema, boxed.
  auto def = lib(Library::Kind::DEF, "tverlist");
  def->def("zero_all_(Tensor(a!)[] self) -> ()");
  auto cpu = lib(Library::Kind::IMPL, "tverlist", DispatchKey::CPU);
  int calls = 0;
  cpu->impl("zero_all_", [&calls](const std::vector<Tensor>& ts) {
    ++calls;
    for (const Tensor& t : ts) t.data_ptr<float>()[0] = 0;
  });
  Tensor a = t_cpu(), b = t_cpu();
  Dispatcher::singleton()
      .findSchemaOrThrow("tverlist::zero_all_", "")
      .typed<void(const std::vector<Tensor>&)>()
      .call({a, b});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a._version(), 1u);
  EXPECT_EQ(b._version(), 1u);
  ops::call("tverlist::zero_all_", std::vector<Tensor>{a, b});
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(a._version(), 2u);
  EXPECT_EQ(b._version(), 2u);
}

TEST(VersionCounters, CompositesAutogradAndFallbacksBumpOnlyThroughTheBackendKernelsTheyReach) {
  auto def = lib(Library::Kind::DEF, "tvercomp");
  def->def("scale_(Tensor(a!) self, float f) -> Tensor(a!)");
  def->def("twice_(Tensor(a!) self) -> Tensor(a!)");
  def->def("once_(Tensor(a!) self) -> Tensor(a!)");
  def->def("nothing_(Tensor(a!) self) -> Tensor(a!)");
  auto cpu = lib(Library::Kind::IMPL, "tvercomp", DispatchKey::CPU);
  cpu->impl("scale_", &scale_kernel);
  auto scale = scale_op("tvercomp::scale_");
  // CompositeImplicitAutograd: two in-place calls, two bumps.
  auto cia = lib(Library::Kind::IMPL, "tvercomp", DispatchKey::CompositeImplicitAutograd);
  cia->impl("twice_", [scale](Tensor& self) -> Tensor& {
    scale.call(self, 2.0);
    return scale.call(self, 2.0);
  });
  // CompositeExplicitAutograd: one call, one bump (not two).
  auto cea = lib(Library::Kind::IMPL, "tvercomp", DispatchKey::CompositeExplicitAutograd);
  cea->impl("once_", [scale](Tensor& self) -> Tensor& { return scale.call(self, 2.0); });
  // A composite that writes nothing through the dispatcher bumps nothing.
  cea->impl("nothing_", [](Tensor& self) -> Tensor& { return self; });
  using Sig = Tensor&(Tensor&);
  auto twice = Dispatcher::singleton().findSchemaOrThrow("tvercomp::twice_", "").typed<Sig>();
  auto once = Dispatcher::singleton().findSchemaOrThrow("tvercomp::once_", "").typed<Sig>();
  auto nothing = Dispatcher::singleton().findSchemaOrThrow("tvercomp::nothing_", "").typed<Sig>();
  Tensor x = t_cpu();
  twice.call(x);
  EXPECT_EQ(x._version(), 2u);
  EXPECT_EQ(x.data_ptr<float>()[1], 8.f);
  ops::call("tvercomp::twice_", x);
  EXPECT_EQ(x._version(), 4u);
  once.call(x);
  EXPECT_EQ(x._version(), 5u);
  ops::call("tvercomp::once_", x);
  EXPECT_EQ(x._version(), 6u);
  nothing.call(x);
  EXPECT_EQ(x._version(), 6u);

  // An Autograd kernel that redispatches: the backend bumps, the autograd layer does not.
  auto ag = lib(Library::Kind::IMPL, "tvercomp", DispatchKey::AutogradCPU);
  ag->impl("scale_",
           [scale](DispatchKeySet ks, Tensor& self, double f) -> Tensor& { return scale.redispatch(ks, self, f); });
  x.unsafeGetTensorImpl()->add_keys(DispatchKeySet::of(Functionality::Autograd));
  scale.call(x, 1.0);
  EXPECT_EQ(x._version(), 7u);
  ops::call("tvercomp::scale_", x, 1.0);
  EXPECT_EQ(x._version(), 8u);
  x.unsafeGetTensorImpl()->remove_keys(DispatchKeySet::of(Functionality::Autograd));

  // A backend fallback never bumps (it reaches backend kernels that do).
  def->def("fb_(Tensor(a!) self) -> Tensor(a!)");
  auto fb = lib(Library::Kind::IMPL, "_", DispatchKey::CPU);
  fb->fallback(CppFunction([](const OperatorHandle&, Stack*) {}));
  ops::call("tvercomp::fb_", x);
  EXPECT_EQ(x._version(), 8u);
}

TEST(VersionCounters, EveryBackendFunctionalityBumpsMetaQuantizedAndRunTimeDevices) {
  auto def = lib(Library::Kind::DEF, "tverbk");
  def->def("scale_(Tensor(a!) self, float f) -> Tensor(a!)");
  auto meta = lib(Library::Kind::IMPL, "tverbk", DispatchKey::Meta);
  meta->impl("scale_", &scale_kernel);
  expect_one_bump_per_call("tverbk::scale_", make_empty({2}, kFloat32, kMeta), "Meta");

  auto q = lib(Library::Kind::IMPL, "tverbk", DispatchKey::QuantizedCPU);
  q->impl("scale_", [](Tensor& self, double) -> Tensor& { return self; });
  Tensor qt = make_empty({2}, kQInt8);
  ASSERT_EQ(qt.key_set(), DispatchKeySet(DispatchKey::QuantizedCPU));
  scale_op("tverbk::scale_").call(qt, 1.0);
  EXPECT_EQ(qt._version(), 1u);

  DeviceType dev = register_device_type("tverdevice");
  set_allocator(dev, cpu_allocator());
  auto d = lib(Library::Kind::IMPL, "tverbk", make_dispatch_key(Functionality::Dense, dev));
  d->impl("scale_", &scale_kernel);
  Tensor x = make_empty({2}, kFloat32, Device(dev, 0));
  x.data_ptr<float>()[1] = 2;
  expect_one_bump_per_call("tverbk::scale_", x, "run-time device type");
}

TEST(VersionCounters, AViewSharesItsBaseCounter) {
  auto def = lib(Library::Kind::DEF, "tverview");
  def->def("scale_(Tensor(a!) self, float f) -> Tensor(a!)");
  auto cpu = lib(Library::Kind::IMPL, "tverview", DispatchKey::CPU);
  cpu->impl("scale_", &scale_kernel);
  Tensor base = t_cpu();
  Tensor v = make_view(base, {1}, {1}, 1);
  scale_op("tverview::scale_").call(v, 2.0);
  EXPECT_EQ(v._version(), 1u);
  EXPECT_EQ(base._version(), 1u);
  EXPECT_EQ(base.data_ptr<float>()[1], 4.f);
}
