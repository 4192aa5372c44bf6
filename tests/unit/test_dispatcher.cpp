// Dispatch-table rules, registration errors and introspection, with no plugin loaded: every
// kernel here is registered by the test itself.
#include <gtest/gtest.h>

#include <string>

#include "UnitTestUtil.h"
#include "ember/ember.h"

using namespace ember;

namespace {

std::string g_trace;

Tensor t_cpu() { return make_empty({2}, kFloat32, kCPU); }

// A Library made by hand, as the loader would (records are for code in shared objects).
std::unique_ptr<Library> lib(Library::Kind k, const char* ns, std::optional<DispatchKey> key = {}) {
  return std::make_unique<Library>(k, ns, key, __FILE__, __LINE__);
}

using Sig = Tensor(const Tensor&);
TypedOperatorHandle<Sig> op(const char* name) {
  return Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

using test::error_of;

Tensor mark(const char* what, const Tensor& x) {
  g_trace += what;
  return x;
}

}  // namespace

TEST(Dispatch, PriorityDirectThenCompositeExplicitThenImplicitThenFallbackThenMissing) {
  auto def = lib(Library::Kind::DEF, "tprio");
  def->def("f(Tensor x) -> Tensor");
  auto h = op("tprio::f");
  Tensor x = t_cpu();

  g_trace.clear();
  EXPECT_THROW(h.call(x), NotImplementedError);  // missing

  auto fb = lib(Library::Kind::IMPL, "_", DispatchKey::CPU);
  fb->fallback(CppFunction([](const OperatorHandle& o, Stack* s) {
    g_trace += "fallback(" + o.operator_name() + ")";
    (void)s;  // leaves the argument as the result
  }));
  g_trace.clear();
  EXPECT_TRUE(h.call(x).is_same(x));
  EXPECT_EQ(g_trace, "fallback(tprio::f)");

  auto cia = lib(Library::Kind::IMPL, "tprio", DispatchKey::CompositeImplicitAutograd);
  cia->impl("f", [](const Tensor& t) { return mark("CIA", t); });
  g_trace.clear();
  h.call(x);
  EXPECT_EQ(g_trace, "CIA");

  auto cea = lib(Library::Kind::IMPL, "tprio", DispatchKey::CompositeExplicitAutograd);
  cea->impl("f", [](const Tensor& t) { return mark("CEA", t); });
  g_trace.clear();
  h.call(x);
  EXPECT_EQ(g_trace, "CEA");

  auto cpu = lib(Library::Kind::IMPL, "tprio", DispatchKey::CPU);
  cpu->impl("f", [](const Tensor& t) { return mark("CPU", t); });
  g_trace.clear();
  h.call(x);
  EXPECT_EQ(g_trace, "CPU");

  // Deregistration recomputes the table, in reverse.
  for (auto* l : {&cpu, &cea, &cia}) {
    l->reset();
    g_trace.clear();
    h.call(x);
  }
  EXPECT_EQ(g_trace, "fallback(tprio::f)");
  fb.reset();
  EXPECT_THROW(h.call(x), NotImplementedError);
}

TEST(Dispatch, NoTensorArgumentsUsesUndefinedSlotAndDeviceArgument) {
  auto def = lib(Library::Kind::DEF, "tundef");
  def->def("make(int n) -> Tensor");
  def->def("make_on(int n, *, Device? device=None) -> Tensor");
  auto mk = Dispatcher::singleton().findSchemaOrThrow("tundef::make", "").typed<Tensor(int64_t)>();
  std::string e = error_of([&] { mk.call(3); });
  EXPECT_NE(e.find("[tundef::make] no kernel for dispatch key Undefined"), std::string::npos) << e;
  EXPECT_NE(e.find("pass at least one tensor"), std::string::npos) << e;

  auto cea = lib(Library::Kind::IMPL, "tundef", DispatchKey::CompositeExplicitAutograd);
  cea->impl("make", [](int64_t n) { return make_empty({n}, kFloat32); });
  EXPECT_EQ(mk.call(3).numel(), 3);

  auto cpu = lib(Library::Kind::IMPL, "tundef", DispatchKey::CPU);
  cpu->impl("make_on", [](int64_t n, std::optional<Device>) { return make_empty({n, n}, kFloat32); });
  auto on = Dispatcher::singleton()
                .findSchemaOrThrow("tundef::make_on", "")
                .typed<Tensor(int64_t, std::optional<Device>)>();
  EXPECT_EQ(on.call(2, std::nullopt).numel(), 4);  // no device given: the CPU
  EXPECT_EQ(on.call(2, Device(kCPU)).numel(), 4);
  std::string m = error_of([&] { on.call(2, Device(kMeta)); });
  EXPECT_NE(m.find("no kernel for dispatch key Meta"), std::string::npos) << m;
}

TEST(Dispatch, FallthroughSkipsToTheNextKey) {
  auto def = lib(Library::Kind::DEF, "tfall");
  def->def("f(Tensor x) -> Tensor");
  auto cpu = lib(Library::Kind::IMPL, "tfall", DispatchKey::CPU);
  cpu->impl("f", [](const Tensor& t) { return mark("CPU", t); });
  auto tr = lib(Library::Kind::IMPL, "tfall", DispatchKey::Tracer);
  tr->impl("f", CppFunction::makeFallthrough());
  IncludeDispatchKeyGuard g{DispatchKeySet(DispatchKey::Tracer)};
  g_trace.clear();
  op("tfall::f").call(t_cpu());
  EXPECT_EQ(g_trace, "CPU");
  std::string ex = op("tfall::f").handle().explain(DispatchKeySet(DispatchKey::Tracer) | DispatchKeySet(DispatchKey::CPU));
  EXPECT_NE(ex.find("Tracer: fallthrough"), std::string::npos) << ex;
  EXPECT_NE(ex.find("CPU: runs kernel"), std::string::npos) << ex;
}

TEST(Dispatch, RedispatchRunsTheKeysBelow) {
  auto def = lib(Library::Kind::DEF, "tredis");
  def->def("f(Tensor x) -> Tensor");
  auto cpu = lib(Library::Kind::IMPL, "tredis", DispatchKey::CPU);
  cpu->impl("f", [](const Tensor& t) { return mark("CPU", t); });
  auto ag = lib(Library::Kind::IMPL, "tredis", DispatchKey::AutogradCPU);
  ag->impl("f", [](DispatchKeySet ks, const Tensor& t) {
    g_trace += "Autograd" + ks.str();
    return op("tredis::f").redispatch(ks, t);
  });
  Tensor x = t_cpu();
  g_trace.clear();
  op("tredis::f").call(x);
  EXPECT_EQ(g_trace, "CPU");  // plain tensors carry no Autograd key
  x.unsafeGetTensorImpl()->add_keys(DispatchKeySet::of(Functionality::Autograd));
  g_trace.clear();
  op("tredis::f").call(x);
  EXPECT_EQ(g_trace, "Autograd{CPU}CPU");
  {
    ExcludeDispatchKeyGuard ex(DispatchKeySet::of(Functionality::Autograd));
    g_trace.clear();
    op("tredis::f").call(x);
    EXPECT_EQ(g_trace, "CPU");
  }
  // Boxed calls take the same route.
  Stack s;
  s.emplace_back(x);
  g_trace.clear();
  op("tredis::f").handle().callBoxed(s);
  EXPECT_EQ(g_trace, "Autograd{CPU}CPU");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].toTensor().is_same(x));
}

TEST(Dispatch, BackendAddedAtRunTime) {
  DeviceType dev = register_device_type("tdevice");
  EXPECT_EQ(register_device_type("tdevice"), dev);  // idempotent
  EXPECT_GE(static_cast<int>(dev), kNumBuiltinDeviceTypes);
  EXPECT_EQ(Device("tdevice:1").type(), dev);
  EXPECT_EQ(Device("tdevice:1").str(), "tdevice:1");
  set_allocator(dev, cpu_allocator());
  Tensor x = make_empty({3}, kFloat32, Device(dev, 0));
  EXPECT_EQ(x.device().type(), dev);
  DispatchKey key = make_dispatch_key(Functionality::Dense, dev);
  EXPECT_EQ(to_string(key), "tdevice");
  EXPECT_EQ(parse_dispatch_key("tdevice"), key);
  EXPECT_EQ(to_string(make_dispatch_key(Functionality::Autograd, dev)), "Autogradtdevice");

  auto def = lib(Library::Kind::DEF, "tdev");
  def->def("f(Tensor x) -> Tensor");
  std::string e = error_of([&] { op("tdev::f").call(x); });
  EXPECT_NE(e.find("ember::plugins::load(\"tdevice\")"), std::string::npos) << e;
  auto k = lib(Library::Kind::IMPL, "tdev", key);
  k->impl("f", [](const Tensor& t) { return mark("dev", t); });
  g_trace.clear();
  op("tdev::f").call(x);
  EXPECT_EQ(g_trace, "dev");
  EXPECT_THROW(op("tdev::f").call(t_cpu()), NotImplementedError);
}

TEST(Dispatch, MissingKernelErrorIsStructured) {
  auto def = lib(Library::Kind::DEF, "tmiss");
  def->def("f(Tensor x) -> Tensor");
  auto meta = lib(Library::Kind::IMPL, "tmiss", DispatchKey::Meta);
  meta->impl("f", [](const Tensor& t) { return t; });
  std::string e = error_of([&] { op("tmiss::f").call(t_cpu()); });
  EXPECT_NE(e.find("[tmiss::f] no kernel for dispatch key CPU"), std::string::npos) << e;
  EXPECT_NE(e.find("key set: {CPU}"), std::string::npos) << e;
  EXPECT_NE(e.find("no CPU kernel; no CompositeExplicitAutograd kernel; no CompositeImplicitAutograd kernel; no CPU "
                   "fallback"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("Meta: '<program>' (" __FILE__), std::string::npos) << e;
  EXPECT_NE(e.find("fix: load the plugin for device 'cpu'"), std::string::npos) << e;
}

TEST(Registration, SignatureIsCheckedAgainstTheSchema) {
  auto def = lib(Library::Kind::DEF, "tsig");
  def->def("scale(Tensor x, float alpha=2.0) -> Tensor");
  auto cpu = lib(Library::Kind::IMPL, "tsig", DispatchKey::CPU);
  std::string before = Dispatcher::singleton().dump();
  std::string e = error_of([&] { cpu->impl("scale", [](const Tensor& x, float) { return x; }); });
  EXPECT_NE(e.find("argument 2 'alpha' is `float` in the schema, so C++ must take `double`, but it takes `float`"),
            std::string::npos)
      << e;
  e = error_of([&] { cpu->impl("scale", [](Tensor x, double) { return x; }); });
  EXPECT_NE(e.find("C++ must take `const Tensor&`, but it takes `Tensor`"), std::string::npos) << e;
  e = error_of([&] { cpu->impl("scale", [](const Tensor& x) { return x; }); });
  EXPECT_NE(e.find("the schema has 2 arguments, the C++ function takes 1"), std::string::npos) << e;
  e = error_of([&] { cpu->impl("scale", [](const Tensor&, double) { return 1.0; }); });
  EXPECT_NE(e.find("must return `Tensor`, but it returns `double`"), std::string::npos) << e;
  EXPECT_EQ(Dispatcher::singleton().dump(), before);  // nothing half-registered

  cpu->impl("scale", [](const Tensor& x, double a) { return mark(a == 3.0 ? "3" : "?", x); });
  auto h = Dispatcher::singleton().findSchemaOrThrow("tsig::scale", "");
  e = error_of([&] { h.typed<Tensor(const Tensor&, float)>(); });
  EXPECT_NE(e.find("tsig::scale"), std::string::npos) << e;
  EXPECT_NE(e.find("takes `float`"), std::string::npos) << e;
  g_trace.clear();
  h.typed<Tensor(const Tensor&, double)>().call(t_cpu(), 3.0);
  EXPECT_EQ(g_trace, "3");

  // A kernel registered before its def is checked when the def arrives.
  auto early = lib(Library::Kind::IMPL, "tsig", DispatchKey::CPU);
  early->impl("later", [](const Tensor& x, float) { return x; });
  e = error_of([&] { def->def("later(Tensor x, float a) -> Tensor"); });
  EXPECT_NE(e.find("does not match the schema"), std::string::npos) << e;
}

TEST(Registration, ConflictsNameBothRegistrants) {
  auto& d = Dispatcher::singleton();
  auto a = lib(Library::Kind::DEF, "tconf");
  a->def("f(Tensor x) -> Tensor");
  std::string before = d.dump();
  auto frag = lib(Library::Kind::FRAGMENT, "tconf");
  std::string e;
  try {
    frag->def("f(Tensor y) -> Tensor");
  } catch (const RegistrationConflictError& err) {
    e = err.what();
  }
  EXPECT_NE(e.find("operator 'tconf::f' is already defined by '<program>' (" __FILE__), std::string::npos) << e;
  EXPECT_NE(e.find("tconf::f(Tensor x) -> Tensor"), std::string::npos) << e;
  EXPECT_NE(e.find("tconf::f(Tensor y) -> Tensor"), std::string::npos) << e;
  EXPECT_THROW(lib(Library::Kind::DEF, "tconf"), RegistrationConflictError);
  EXPECT_EQ(d.dump(), before);

  auto k1 = lib(Library::Kind::IMPL, "tconf", DispatchKey::CPU);
  k1->impl("f", [](const Tensor& t) { return t; });
  before = d.dump();
  {
    detail::RegistrantScope who("other_plugin");
    auto k2 = lib(Library::Kind::IMPL, "tconf", DispatchKey::CPU);
    e = error_of([&] { k2->impl("f", [](const Tensor& t) { return t; }); });
  }
  EXPECT_NE(e.find("already has a CPU kernel, registered by '<program>'"), std::string::npos) << e;
  EXPECT_NE(e.find("'other_plugin'"), std::string::npos) << e;
  EXPECT_EQ(d.dump(), before);
}

TEST(Registration, BadInputsAreRejectedClearly) {
  EXPECT_THROW(lib(Library::Kind::DEF, "bad-ns"), ValueError);
  auto def = lib(Library::Kind::DEF, "tbad");
  std::string e = error_of([&] { def->def("f(Tensor x -> Tensor"); });
  EXPECT_NE(e.find("column"), std::string::npos) << e;
  e = error_of([&] { def->def("other::f(Tensor x) -> Tensor"); });
  EXPECT_NE(e.find("outside this library's namespace 'tbad'"), std::string::npos) << e;
  auto impl = lib(Library::Kind::IMPL, "tbad", DispatchKey::CPU);
  e = error_of([&] { impl->def("g(Tensor x) -> Tensor"); });
  EXPECT_NE(e.find("cannot define operators in EMBER_LIBRARY_IMPL"), std::string::npos) << e;
  e = error_of([&] { impl->fallback(CppFunction::makeFallthrough()); });
  EXPECT_NE(e.find("fallbacks are registered from EMBER_LIBRARY_IMPL(_, Key, m)"), std::string::npos) << e;
  e = error_of([] { Dispatcher::singleton().findSchemaOrThrow("tbad::nothing", ""); });
  EXPECT_NE(e.find("no operator 'tbad::nothing' is registered"), std::string::npos) << e;
}

TEST(Boxing, BoxedKernelsTypedCallsAndOpsCallWithDefaults) {
  auto def = lib(Library::Kind::DEF, "tbox");
  def->def("scale(Tensor x, float alpha=2.0, *, int times=3) -> (Tensor, float)");
  auto cpu = lib(Library::Kind::IMPL, "tbox", DispatchKey::CPU);
  // A boxed kernel: reads its arguments off the stack, pushes both returns.
  cpu->impl("scale", CppFunction([](const OperatorHandle&, Stack* s) {
    double a = (*s)[s->size() - 2].toDouble();
    int64_t times = (*s)[s->size() - 1].toInt();
    Tensor x = (*s)[s->size() - 3].toTensor();
    s->drop(3);
    s->emplace_back(x);
    s->emplace_back(a * static_cast<double>(times));
  }));
  Tensor x = t_cpu();
  IValue r = ops::call("tbox::scale", x);
  ASSERT_TRUE(r.isTuple());
  EXPECT_TRUE(r.toTupleRef()[0].toTensor().is_same(x));
  EXPECT_DOUBLE_EQ(r.toTupleRef()[1].toDouble(), 6.0);
  EXPECT_DOUBLE_EQ(ops::call("tbox::scale", x, 0.5).toTupleRef()[1].toDouble(), 1.5);
  EXPECT_DOUBLE_EQ(ops::call("tbox::scale", x, 0.5, int64_t{4}).toTupleRef()[1].toDouble(), 2.0);
  // Typed call reaching a boxed kernel.
  auto h = Dispatcher::singleton().findSchemaOrThrow("tbox::scale", "")
               .typed<std::tuple<Tensor, double>(const Tensor&, double, int64_t)>();
  (void)h;
  std::string e = error_of([&] { ops::call("tbox::scale", 1.0); });
  EXPECT_NE(e.find("argument 1 'x' expects Tensor, got float"), std::string::npos) << e;
  e = error_of([&] { ops::call("tbox::nope", x); });
  EXPECT_NE(e.find("no operator 'tbox::nope'"), std::string::npos) << e;
}

TEST(Boxing, UnboxedKernelCalledBoxedAndTypedCallOfBoxedFallback) {
  auto def = lib(Library::Kind::DEF, "tunbox");
  def->def("axpy(Tensor x, Scalar a, int[] dims, bool flag=False) -> Tensor");
  auto cpu = lib(Library::Kind::IMPL, "tunbox", DispatchKey::CPU);
  cpu->impl("axpy", [](const Tensor& x, const Scalar& a, IntArrayRef dims, bool flag) {
    g_trace = fmt::format("{} {} {}", a.toDouble(), dims, flag);
    return x;
  });
  g_trace.clear();
  ops::call("tunbox::axpy", t_cpu(), 1.5, std::vector<int64_t>{1, 2});
  EXPECT_EQ(g_trace, "1.5 [1, 2] false");

  def->def("g(Tensor(a!) x, Scalar s) -> Tensor(a!)");
  auto fb = lib(Library::Kind::IMPL, "_", DispatchKey::Tracer);
  fb->fallback(CppFunction([](const OperatorHandle& o, DispatchKeySet ks, Stack* s) {
    g_trace = "traced " + o.operator_name() + " below " + ks.str();
    o.redispatchBoxed(ks, *s);
  }));
  cpu->impl("g", [](Tensor& x, const Scalar&) -> Tensor& { return x; });
  IncludeDispatchKeyGuard g{DispatchKeySet(DispatchKey::Tracer)};
  Tensor x = t_cpu();
  auto h = Dispatcher::singleton().findSchemaOrThrow("tunbox::g", "").typed<Tensor&(Tensor&, const Scalar&)>();
  Tensor& r = h.call(x, 2);
  EXPECT_EQ(&r, &x);  // an in-place op returns its argument itself
  EXPECT_EQ(g_trace, "traced tunbox::g below {CPU}");
}

TEST(Introspection, DumpTableAndExplainShowProvenance) {
  auto def = lib(Library::Kind::DEF, "tintro");
  def->def("f(Tensor x) -> Tensor");
  auto cpu = lib(Library::Kind::IMPL, "tintro", DispatchKey::CPU);
  int line = __LINE__ + 1;
  cpu->impl("f", [](const Tensor& t) { return t; });
  auto h = Dispatcher::singleton().findSchemaOrThrow("tintro::f", "");
  std::string t = h.dump_table();
  EXPECT_NE(t.find("tintro::f(Tensor x) -> Tensor"), std::string::npos) << t;
  EXPECT_NE(t.find(fmt::format("CPU: '<program>' ({}:{})", __FILE__, line)), std::string::npos) << t;
  EXPECT_NE(t.find("computed table:\n  CPU: kernel"), std::string::npos) << t;
  Stack s;
  s.emplace_back(t_cpu());
  std::string ex = h.explain(s);
  EXPECT_NE(ex.find("tintro::f: key set {CPU}"), std::string::npos) << ex;
  EXPECT_NE(ex.find("CPU: runs kernel"), std::string::npos) << ex;
  EXPECT_NE(Dispatcher::singleton().dump().find("tintro::f(Tensor x) -> Tensor"), std::string::npos);
}

TEST(Records, LinkedLibrariesRegisterOnFirstUse) {
  // tests/unit/linked_ops.cpp is in a shared library linked into this binary, static_ops.cpp in
  // a static archive linked whole.
  auto h = Dispatcher::singleton().findSchemaOrThrow("tlinked::identity", "");
  Tensor x = t_cpu();
  EXPECT_TRUE(h.typed<Tensor(const Tensor&)>().call(x).is_same(x));
  EXPECT_NE(h.dump_table().find("CPU: 'ember_test_linked_ops' ("), std::string::npos) << h.dump_table();
  auto a = Dispatcher::singleton().findSchemaOrThrow("tstatic::answer", "");
  EXPECT_EQ(a.typed<int64_t(const Tensor&)>().call(x), 42);
}

TEST(Records, BuiltinSchemasNeedNoPlugin) {
  // libember declares the built-in operators itself; with no plugin the call fails clearly.
  auto h = Dispatcher::singleton().findSchemaOrThrow("aten::add", "Tensor");
  EXPECT_EQ(h.schema().str(), "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  std::string e = error_of([] { add(make_empty({1}, kFloat32), make_empty({1}, kFloat32)); });
  EXPECT_NE(e.find("[aten::add.Tensor] no kernel for dispatch key CPU"), std::string::npos) << e;
  EXPECT_NE(e.find("ember::plugins::load(\"cpu\")"), std::string::npos) << e;
}

// Registered from the test executable itself: runs on first use, owned by "<program>".
EMBER_LIBRARY(tprog, m) { m.def("noop(Tensor x) -> Tensor", [](const Tensor& x) { return x; }); }

TEST(Records, TheProgramsOwnBlocksRegister) {
  auto h = Dispatcher::singleton().findSchemaOrThrow("tprog::noop", "");
  EXPECT_NE(h.dump_table().find("CompositeImplicitAutograd: '<program>' ("), std::string::npos) << h.dump_table();
  Tensor x = t_cpu();
  EXPECT_TRUE(h.typed<Tensor(const Tensor&)>().call(x).is_same(x));
}

TEST(Dispatch, BoxedKernelOfMultiOutputOutOperatorReturnsTheOutArguments) {
  // The typed call of a boxed-only kernel returns a multi-output out= operator's mutable
  // arguments, in order (as a single Tensor& return is its first mutable argument).
  auto def = lib(Library::Kind::DEF, "tmulti");
  def->def("two.out(Tensor x, *, Tensor(a!) a, Tensor(b!) b) -> (Tensor(a!) a, Tensor(b!) b)");
  auto fb = lib(Library::Kind::IMPL, "_", DispatchKey::CPU);
  fb->fallback(CppFunction([](const OperatorHandle& o, Stack* s) {
    g_trace += "fallback(" + o.operator_name() + ")";
    (void)s;
  }));
  auto h = Dispatcher::singleton()
               .findSchemaOrThrow("tmulti::two", "out")
               .typed<std::tuple<Tensor&, Tensor&>(const Tensor&, Tensor&, Tensor&)>();
  Tensor x = t_cpu(), a = t_cpu(), b = t_cpu();
  g_trace.clear();
  auto [ra, rb] = h.call(x, a, b);
  EXPECT_EQ(g_trace, "fallback(tmulti::two.out)");
  EXPECT_EQ(&ra, &a);
  EXPECT_EQ(&rb, &b);
}

TEST(Boxing, BoxedCallOfAnUnboxedOutKernelOwnsItsResults) {
  // ops::call on temporaries: the stack holds the only references to the out arguments, so the
  // boxed adapter must take its own references to the results before it drops the arguments
  // (ASan reports the use-after-free otherwise).
  auto def = lib(Library::Kind::DEF, "toutbox");
  def->def("two.out(Tensor x, *, Tensor(a!) a, Tensor(b!) b) -> (Tensor(a!) a, Tensor(b!) b)");
  def->def("one.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
  def->def("mixed(Tensor(a!) x, Tensor y) -> (Tensor(a!), Tensor)");
  auto cpu = lib(Library::Kind::IMPL, "toutbox", DispatchKey::CPU);
  cpu->impl("two.out", [](const Tensor& x, Tensor& a, Tensor& b) -> std::tuple<Tensor&, Tensor&> {
    a.data_ptr<float>()[0] = x.data_ptr<float>()[0] + 1.f;
    b.data_ptr<float>()[0] = x.data_ptr<float>()[0] + 2.f;
    return {a, b};
  });
  cpu->impl("one.out", [](const Tensor& x, Tensor& out) -> Tensor& {
    out.data_ptr<float>()[0] = x.data_ptr<float>()[0] + 3.f;
    return out;
  });
  cpu->impl("mixed", [](Tensor& x, const Tensor& y) -> std::tuple<Tensor&, Tensor> {
    x.data_ptr<float>()[0] = 4.f;
    return {x, y};
  });
  auto filled = [](float v) {
    Tensor t = t_cpu();
    t.data_ptr<float>()[0] = v;
    return t;
  };
  auto first = [](const IValue& v) { return v.toTensor().data_ptr<float>()[0]; };

  IValue r = ops::call("toutbox::two.out", filled(10.f), t_cpu(), t_cpu());
  ASSERT_TRUE(r.isTuple());
  ASSERT_EQ(r.toTupleRef().size(), 2u);
  EXPECT_EQ(first(r.toTupleRef()[0]), 11.f);
  EXPECT_EQ(first(r.toTupleRef()[1]), 12.f);
  EXPECT_EQ(r.toTupleRef()[0].toTensor().use_count(), 1);  // the result is the last owner
  EXPECT_EQ(r.toTupleRef()[1].toTensor().sizes(), IntArrayRef({2}));

  IValue o = ops::call("toutbox::one.out", filled(10.f), t_cpu());
  EXPECT_EQ(first(o), 13.f);
  EXPECT_EQ(o.toTensor().use_count(), 1);

  IValue m = ops::call("toutbox::mixed", t_cpu(), filled(5.f));
  ASSERT_TRUE(m.isTuple());
  EXPECT_EQ(first(m.toTupleRef()[0]), 4.f);
  EXPECT_EQ(first(m.toTupleRef()[1]), 5.f);
  EXPECT_EQ(m.toTupleRef()[0].toTensor().use_count(), 1);

  // With the caller holding the out arguments, the results are those very tensors.
  Tensor a = t_cpu(), b = t_cpu();
  IValue held = ops::call("toutbox::two.out", filled(0.f), a, b);
  EXPECT_TRUE(held.toTupleRef()[0].toTensor().is_same(a));
  EXPECT_TRUE(held.toTupleRef()[1].toTensor().is_same(b));
}

TEST(Registration, SchemaReferencesOutliveTheirDef) {
  // A boxed fallback may hold the schema while another thread undoes the def: the reference
  // stays valid (the schema is retired, not freed; ASan reported a use-after-free here).
  auto def = lib(Library::Kind::DEF, "tschemalife");
  def->def("f(Tensor x, int n=3) -> Tensor");
  auto h = Dispatcher::singleton().findSchemaOrThrow("tschemalife::f", "");
  EXPECT_TRUE(h.has_schema());
  const FunctionSchema& s = h.schema();
  def.reset();
  EXPECT_FALSE(h.has_schema());
  EXPECT_EQ(s.str(), "tschemalife::f(Tensor x, int n=3) -> Tensor");
  EXPECT_EQ(s.arguments().size(), 2u);
  std::string e = error_of([&] { h.schema(); });
  EXPECT_NE(e.find("[tschemalife::f] the operator has kernels but no schema"), std::string::npos) << e;
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tschemalife::f").has_value());
}

TEST(Registration, ATransactionBuildsEachTableOnceWhenItEnds) {
  auto& d = Dispatcher::singleton();
  Dispatcher::Stats before = d.stats();
  auto witness = std::make_shared<int>(0);  // captured by one kernel: counts the functor's copies
  std::unique_ptr<Library> def;
  {
    detail::RegistrationTransaction tx;
    def = lib(Library::Kind::DEF, "tbatch");
    def->def("f(Tensor x) -> Tensor");
    def->impl("f", DispatchKey::CPU, [witness](const Tensor& x) { return mark("cpu ", x); });
    def->impl("f", DispatchKey::Meta, [](const Tensor& x) { return mark("meta ", x); });
    def->impl("f", DispatchKey::CompositeExplicitAutograd, [](const Tensor& x) { return x; });
    def->impl("f", DispatchKey::AutogradCPU, CppFunction::makeFallthrough());
    def->impl("f", DispatchKey::Tracer, CppFunction::makeFallthrough());
    // Nothing is published before the transaction ends, not even to this thread.
    EXPECT_FALSE(d.findSchema("tbatch::f").has_value());
    EXPECT_EQ(d.stats().tables_built, before.tables_built);
  }
  Dispatcher::Stats after = d.stats();
  EXPECT_EQ(after.tables_built - before.tables_built, 1u);  // five impls, one table
  EXPECT_EQ(after.operators - before.operators, 1u);
  EXPECT_EQ(after.retired_tables, before.retired_tables);
  g_trace.clear();
  Tensor x = t_cpu();
  EXPECT_TRUE(op("tbatch::f").call(x).is_same(x));
  EXPECT_EQ(g_trace, "cpu ");

  // Undone in one transaction: one more table, and the published functor is retired, not freed.
  {
    detail::RegistrationTransaction tx;
    def.reset();
  }
  Dispatcher::Stats gone = d.stats();
  EXPECT_EQ(gone.tables_built - after.tables_built, 1u);
  EXPECT_EQ(gone.retired_tables - after.retired_tables, 1u);
  EXPECT_EQ(gone.retired_functors - after.retired_functors, 1u);
  EXPECT_EQ(gone.retired_schemas - after.retired_schemas, 1u);
  EXPECT_EQ(gone.operators, before.operators);
  EXPECT_EQ(witness.use_count(), 2);
}

TEST(Registration, ADiscardedTransactionPublishesNothingAndFreesItsFunctors) {
  auto& d = Dispatcher::singleton();
  std::string dump = d.dump();
  Dispatcher::Stats before = d.stats();
  auto witness = std::make_shared<int>(0);
  {
    detail::RegistrationTransaction tx;
    auto def = lib(Library::Kind::DEF, "tdiscard");
    def->def("f(Tensor x) -> Tensor");
    def->impl("f", DispatchKey::CPU, [witness](const Tensor& x) { return x; });
    EXPECT_EQ(witness.use_count(), 2);
    def.reset();  // undone inside: never published, so its functor is freed at once
    EXPECT_EQ(witness.use_count(), 1);
    tx.discard();
  }
  Dispatcher::Stats after = d.stats();
  EXPECT_EQ(after.tables_built, before.tables_built);
  EXPECT_EQ(after.retired_functors, before.retired_functors);
  EXPECT_EQ(after.retired_schemas, before.retired_schemas);
  EXPECT_FALSE(d.findSchema("tdiscard::f").has_value());
  EXPECT_EQ(d.dump(), dump);
}
