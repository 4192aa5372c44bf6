// A tour of Ember's public C++ API: every spelling of API.md that this version provides, each
// checked. It aborts with a message on the first wrong value and exits 0 when all is well.
//
// Not here yet (their operators belong to a later issue; this tour grows with them):
//   ember::linspace, ember::eye, ember::rand, ember::randn, ember::randint, ember::manual_seed,
//   a.index({...}) / a.index_put_({...}, v) with ember::indexing, autograd (backward, grad,
//   NoGradGuard, autograd::Function), nn, optim, save/load.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>

namespace {

[[noreturn]] void fail(int line, const std::string& what) {
  std::cerr << "api_tour.cpp:" << line << ": check failed: " << what << std::endl;
  std::abort();
}
#define CHECK(cond)                     \
  do {                                  \
    if (!(cond)) fail(__LINE__, #cond); \
  } while (0)

// Every element of t (any dtype and layout) against `want`, read as float64.
void check_values(int line, const char* what, const ember::Tensor& t, std::vector<double> want, double tol = 1e-6) {
  ember::Tensor d = t.to(ember::kFloat64).contiguous();
  if (d.numel() != static_cast<int64_t>(want.size()))
    fail(line,
         std::string(what) + ": " + std::to_string(d.numel()) + " elements, expected " + std::to_string(want.size()));
  const double* p = d.data_ptr<double>();
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::fabs(p[i] - want[i]) > tol * (1 + std::fabs(want[i]))) {
      std::ostringstream os;
      os << what << ": element " << i << " is " << p[i] << ", expected " << want[i] << "\n" << t;
      fail(line, os.str());
    }
  }
}
#define CHECK_VALUES(t, ...) check_values(__LINE__, #t, t, __VA_ARGS__)

bool same_shape(const ember::Tensor& t, std::vector<int64_t> want) { return t.sizes() == ember::IntArrayRef(want); }

// Runs f, which must throw E; returns the message.
template <class E, class F>
std::string expect_throw(int line, const char* what, F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    fail(line, std::string(what) + " threw the wrong exception type: " + e.what());
  }
  fail(line, std::string(what) + " did not throw");
}
#define EXPECT_THROW(E, ...) expect_throw<E>(__LINE__, #__VA_ARGS__, [&] { __VA_ARGS__; })

ember::Tensor axpy_cpu(const ember::Tensor& x, const ember::Tensor& y, double a) { return x * a + y; }

}  // namespace

// Operators can be defined in the program itself: libember finds these blocks (they are records
// in a named section, see Note [Registration records]) the first time an operator is looked up.
EMBER_LIBRARY(tour, m) { m.def("axpy(Tensor x, Tensor y, float a=1.0) -> Tensor"); }
EMBER_LIBRARY_IMPL(tour, CPU, m) { m.impl("axpy", &axpy_cpu); }

int main() {
  try {
    using namespace ember;  // LibTorch code reads `torch::`; here everything is in `ember::`

    // ---- plugins ------------------------------------------------------------------------
    // The default plugins (cpu, ...) load on first use; loading by name again is a no-op.
    plugins::PluginInfo cpu = plugins::load("cpu");
    CHECK(cpu.name == "cpu");
#ifdef EMBER_EXPECTED_PLUGIN_DIR
    // Found by the installed libember in <its directory>/ember/plugins, with no help.
    CHECK(std::filesystem::equivalent(std::filesystem::path(cpu.path).parent_path(), EMBER_EXPECTED_PLUGIN_DIR));
#endif
    CHECK(plugins::is_loaded("cpu"));
    std::cout << "plugins::loaded():\n";
    for (auto& p : plugins::loaded()) std::cout << "  " << p.name << " " << p.version << "  " << p.path << "\n";
    std::string nf = EXPECT_THROW(plugins::PluginError, plugins::load("no_such_plugin"));
    std::cout << "plugins::load(\"no_such_plugin\"): " << nf << "\n";

    // ---- factories ----------------------------------------------------------------------
    Tensor a = zeros({2, 3});  // float32 on the CPU by default
    CHECK(a.dtype() == kFloat32 && a.device() == Device(kCPU) && same_shape(a, {2, 3}));
    CHECK_VALUES(a, {0, 0, 0, 0, 0, 0});

    auto o = TensorOptions().dtype(kFloat64).device(kCPU).requires_grad(true);
    CHECK(o.dtype_opt() == kFloat64 && o.requires_grad_value());
    if (plugins::is_loaded("autograd")) {
      CHECK(full({3, 4}, 123, o).requires_grad());
    } else {
      // requires_grad needs the autograd plugin: a clear error, naming it, when it is absent.
      std::string msg = EXPECT_THROW(NotImplementedError, full({3, 4}, 123, o));
      CHECK(msg.find("autograd") != std::string::npos);
      std::cout << "without the autograd plugin, requires_grad(true): " << msg << "\n";
    }
    Tensor f = full({3, 4}, 123, o.requires_grad(false));
    CHECK(f.dtype() == kFloat64 && same_shape(f, {3, 4}) && f.sum().item<double>() == 123 * 12);
    CHECK(full({2}, 7).dtype() == kInt64 && full({2}, 2.5).dtype() == kFloat32 && full({2}, true).dtype() == kBool);

    Tensor i32 = ones({2, 2}, kInt32);
    CHECK(i32.dtype() == kInt32);
    CHECK_VALUES(i32, {1, 1, 1, 1});
    Tensor e = empty({5});
    CHECK(e.numel() == 5 && e.dtype() == kFloat32);

    Tensor r1 = arange(5, 10);
    CHECK(r1.dtype() == kInt64);
    CHECK_VALUES(r1, {5, 6, 7, 8, 9});
    Tensor r2 = arange(0, 1, 0.25);
    CHECK(r2.dtype() == kFloat32);
    CHECK_VALUES(r2, {0, 0.25, 0.5, 0.75});
    CHECK_VALUES(arange(4), {0, 1, 2, 3});

    // The free helpers return TensorOptions.
    CHECK(zeros({2}, dtype(kFloat64)).dtype() == kFloat64);
    CHECK(ones({2}, device(kCPU)).device().type() == kCPU);
    if (!plugins::is_loaded("autograd")) EXPECT_THROW(NotImplementedError, zeros({2}, requires_grad()));

    Tensor lit = tensor({1.0, 2.0, 3.0});
    CHECK(lit.dtype() == kFloat32 && same_shape(lit, {3}));
    CHECK_VALUES(lit, {1, 2, 3});
    Tensor lit2 = tensor({{1, 2}, {3, 4}});
    CHECK(lit2.dtype() == kInt64 && same_shape(lit2, {2, 2}));
    CHECK(tensor({true, false}).dtype() == kBool);
    CHECK(tensor({1, 2}, kFloat64).dtype() == kFloat64);

    float blob[6] = {1, 2, 3, 4, 5, 6};
    Tensor fb = from_blob(blob, {2, 3}, kFloat32);  // no copy: it views blob
    CHECK(fb.data_ptr() == static_cast<void*>(blob));
    blob[4] = 50;
    CHECK(fb[1][1].item<float>() == 50);

    CHECK_VALUES(zeros_like(fb), {0, 0, 0, 0, 0, 0});
    CHECK_VALUES(ones_like(fb), {1, 1, 1, 1, 1, 1});
    CHECK(same_shape(empty_like(fb), {2, 3}) && empty_like(fb).dtype() == kFloat32);
    Tensor sev = full_like(fb, 7);
    CHECK(sev.dtype() == kFloat32);
    CHECK_VALUES(sev, {7, 7, 7, 7, 7, 7});

    // ---- metadata -----------------------------------------------------------------------
    Tensor m = arange(6, TensorOptions(kFloat32)).reshape({2, 3});  // [[0 1 2] [3 4 5]]
    CHECK(m.sizes().size() == 2 && m.sizes()[0] == 2 && m.sizes()[1] == 3);
    CHECK(m.size(0) == 2 && m.size(-1) == 3);
    CHECK(m.strides()[0] == 3 && m.strides()[1] == 1);
    CHECK(m.dim() == 2 && m.numel() == 6);
    CHECK(m.scalar_type() == kFloat32 && m.dtype() == kFloat32);
    CHECK(m.device().type() == kCPU && m.layout() == kStrided && m.is_contiguous());
    CHECK(m.data_ptr<float>()[4] == 4.0f && m.data_ptr() == static_cast<void*>(m.data_ptr<float>()));
    EXPECT_THROW(TypeError, m.data_ptr<double>());  // the dtype is checked
    CHECK(m.sum().item<float>() == 15.0f);
    auto acc = m.accessor<float, 2>();
    CHECK(acc[1][2] == 5.0f && acc[0][1] == 1.0f);
    acc[0][0] = 10.0f;  // writes through
    CHECK(m[0][0].item<float>() == 10.0f);
    m[0][0].fill_(0);

    // ---- conversions and copies ---------------------------------------------------------
    Tensor m64 = m.to(kFloat64);
    CHECK(m64.dtype() == kFloat64);
    CHECK_VALUES(m64, {0, 1, 2, 3, 4, 5});
    CHECK(m.to(kFloat32).is_same(m));  // no copy when nothing changes
    CHECK(m.to(Device(kCPU)).device() == Device(kCPU));
    CHECK(m.cpu().is_same(m));
    try {  // another device needs its plugin (and the hardware)
      Tensor g = m.to(Device(kCUDA, 0));
      CHECK(g.device() == Device(kCUDA, 0));
      CHECK(g.cpu().equal(m));
    } catch (const Error& err) {
      std::cout << "m.to(Device(kCUDA, 0)) without a CUDA plugin: " << err.what() << "\n";
    }
    Tensor c = m.clone();
    CHECK(!c.is_same(m) && c.data_ptr() != m.data_ptr() && c.equal(m));
    CHECK(m.contiguous().is_same(m));  // already contiguous: the same TensorImpl
    Tensor mt = m.t();
    CHECK(!mt.is_contiguous() && mt.contiguous().is_contiguous());
    CHECK_VALUES(mt.contiguous(), {0, 3, 1, 4, 2, 5});

    std::ostringstream printed;
    printed << m;
    std::cout << "std::cout << m:\n" << m << "\n";
    CHECK(printed.str().find('5') != std::string::npos);

    set_num_threads(2);
    CHECK(get_num_threads() == 2);
    EXPECT_THROW(ValueError, set_num_threads(0));

    // ---- operators ----------------------------------------------------------------------
    Tensor x = tensor({1.0, 2.0, 3.0});
    Tensor y = tensor({4.0, 5.0, 6.0});
    CHECK_VALUES(x + y, {5, 7, 9});
    CHECK_VALUES(x - y, {-3, -3, -3});
    CHECK_VALUES(x * y, {4, 10, 18});
    CHECK_VALUES(y / x, {4, 2.5, 2});
    CHECK_VALUES(x + 1, {2, 3, 4});
    CHECK_VALUES(x - 1, {0, 1, 2});
    CHECK_VALUES(x * 2, {2, 4, 6});
    CHECK_VALUES(x / 2, {0.5, 1, 1.5});
    CHECK_VALUES(2 * x, {2, 4, 6});
    CHECK_VALUES(10 - x, {9, 8, 7});
    CHECK_VALUES(x == tensor({1.0, 0.0, 3.0}), {1, 0, 1});
    CHECK_VALUES(x < 2, {1, 0, 0});
    CHECK_VALUES(x > y, {0, 0, 0});
    CHECK((x == 2).dtype() == kBool);
    CHECK_VALUES(add(x, y, 2), {9, 12, 15});  // x + 2 * y
    CHECK_VALUES(sub(x, y), {-3, -3, -3});
    CHECK_VALUES(mul(x, 3), {3, 6, 9});
    CHECK_VALUES(div(x, x), {1, 1, 1});
    CHECK_VALUES(x.add(y).mul(2), {10, 14, 18});
    Tensor acc2 = x.clone();
    acc2 += y;
    acc2.mul_(2);
    CHECK_VALUES(acc2, {10, 14, 18});
    CHECK_VALUES(ones({2}, kInt64) + tensor({0.5, 0.5}), {1.5, 1.5});  // type promotion
    CHECK((ones({2}, kInt64) + tensor({0.5, 0.5})).dtype() == kFloat32);
    CHECK_VALUES(ones({2, 3}) + tensor({1.0, 2.0, 3.0}), {2, 3, 4, 2, 3, 4});  // broadcasting

    Tensor s = arange(6, TensorOptions(kFloat32)).reshape({2, 3});
    CHECK(s.sum().item<float>() == 15.0f && sum(s).item<float>() == 15.0f);
    CHECK_VALUES(s.sum({0}), {3, 5, 7});
    CHECK_VALUES(s.sum({1}, /*keepdim=*/true), {3, 12});
    CHECK(same_shape(s.sum({1}, true), {2, 1}));

    // Views share storage with their base.
    Tensor v = s.view({3, 2});
    CHECK(same_shape(v, {3, 2}) && v.data_ptr() == s.data_ptr());
    CHECK(same_shape(reshape(s, {6}), {6}));
    Tensor tr = s.transpose(0, 1);
    CHECK(same_shape(tr, {3, 2}) && tr.stride(0) == 1 && tr.data_ptr() == s.data_ptr());
    CHECK(t(s).sizes() == tr.sizes());
    CHECK(same_shape(s.unsqueeze(0), {1, 2, 3}) && same_shape(unsqueeze(s, -1), {2, 3, 1}));
    CHECK_VALUES(s.select(1, 2), {2, 5});
    CHECK_VALUES(s.slice(1, 1, 3), {1, 2, 4, 5});
    CHECK_VALUES(slice(s, 1, std::nullopt, std::nullopt, 2), {0, 2, 3, 5});
    Tensor ex = tensor({1.0, 2.0}).unsqueeze(1).expand({2, 3});
    CHECK(same_shape(ex, {2, 3}) && ex.stride(1) == 0);
    CHECK_VALUES(ex, {1, 1, 1, 2, 2, 2});
    CHECK(s[1][2].item<float>() == 5.0f && s[0][1].item<float>() == 1.0f);
    s[1][2].fill_(50);  // a view writes through
    CHECK(s.sum().item<float>() == 60.0f);

    CHECK(equal(x, tensor({1.0, 2.0, 3.0})) && !equal(x, y) && !x.equal(x.unsqueeze(0)));
    CHECK(allclose(x, x + 1e-7) && !allclose(x, x + 1e-3));
    CHECK(x.allclose(x + 1e-3, /*rtol=*/1e-2));

    // ---- the dispatcher: by name, typed, and schemas ------------------------------------
    IValue boxed = ops::call("aten::add", x, y);  // the overload is chosen from the arguments
    CHECK_VALUES(boxed.toTensor(), {5, 7, 9});
    CHECK_VALUES(ops::call("aten::add.Tensor", x, y, 2).toTensor(), {9, 12, 15});
    auto add_op = Dispatcher::singleton()
                      .findSchemaOrThrow("aten::add", "Tensor")
                      .typed<Tensor(const Tensor&, const Tensor&, const Scalar&)>();
    CHECK_VALUES(add_op.call(x, y, 1), {5, 7, 9});
    EXPECT_THROW(ValueError, Dispatcher::singleton().findSchemaOrThrow("aten::no_such_op", ""));

    // The operator this program registered, by name and typed.
    CHECK_VALUES(ops::call("tour::axpy", x, y, 2.0).toTensor(), {6, 9, 12});
    CHECK_VALUES(ops::call("tour::axpy", x, y).toTensor(), {5, 7, 9});  // a=1.0 by default
    auto axpy = Dispatcher::singleton()
                    .findSchemaOrThrow("tour::axpy", "")
                    .typed<Tensor(const Tensor&, const Tensor&, double)>();
    CHECK_VALUES(axpy.call(x, y, -1.0), {3, 3, 3});
    std::cout << "tour::axpy dispatch table:\n"
              << Dispatcher::singleton().findSchemaOrThrow("tour::axpy", "").dump_table() << "\n";

    FunctionSchema fs = parse_schema("ns::f.ovl(Tensor x, *, int k=2) -> Tensor");
    CHECK(fs.name() == "ns::f" && fs.overload_name() == "ovl");
    CHECK(fs.arguments().size() == 2 && fs.arguments()[1].name() == "k" && fs.arguments()[1].kwarg_only());
    CHECK(fs.returns().size() == 1);
    std::cout << "parse_schema: " << fs << "\n";
    std::string bad = EXPECT_THROW(ValueError, parse_schema("ns::f(Tensor x -> Tensor"));
    CHECK(bad.find("column") != std::string::npos);
    std::cout << "a bad schema: " << bad << "\n";
  } catch (const std::exception& e) {
    std::cerr << "api_tour: unexpected exception: " << e.what() << std::endl;
    return 1;
  }
  std::cout << "api_tour: all checks passed\n";
  return 0;
}
