// Loads the myops library by path and calls myops::scale by name (boxed) and typed (unboxed).
//   use_myops [path/to/libmyops.so]
// Exits non-zero, saying what differed, when a result is wrong.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

#include <ember/ember.h>

#ifndef MYOPS_PATH
#define MYOPS_PATH "libmyops.so"
#endif

namespace {

int failures = 0;

// Compares got with x * alpha element by element (any layout, read through the accessor).
void expect_scaled(const std::string& what, const ember::Tensor& got, const ember::Tensor& x, double alpha) {
  if (got.sizes() != x.sizes() || got.scalar_type() != x.scalar_type()) {
    std::cerr << "FAIL " << what << ": got sizes " << got.sizes() << " dtype " << got.scalar_type()
              << ", expected sizes " << x.sizes() << " dtype " << x.scalar_type() << "\n";
    ++failures;
    return;
  }
  auto g = got.accessor<float, 2>();
  auto e = x.accessor<float, 2>();
  int bad = 0;
  for (int64_t i = 0; i < x.size(0); ++i) {
    for (int64_t j = 0; j < x.size(1); ++j) {
      float want = e[i][j] * static_cast<float>(alpha);
      if (std::fabs(g[i][j] - want) > 1e-6f * std::fabs(want)) {
        std::cerr << "FAIL " << what << ": [" << i << "][" << j << "] is " << g[i][j] << ", expected " << want << " ("
                  << e[i][j] << " * " << alpha << ")\n";
        ++bad;
      }
    }
  }
  if (bad)
    ++failures;
  else
    std::cout << "ok   " << what << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : MYOPS_PATH;
  try {
    ember::plugins::PluginInfo info = ember::plugins::load(path);
    std::cout << "loaded plugin '" << info.name << "' " << info.version << " from " << info.path << "\n";
    if (info.name != "myops") {
      std::cerr << "FAIL plugin name: '" << info.name << "', expected 'myops' (the file stem without 'lib')\n";
      ++failures;
    }
    // Loading the same file again returns the plugin already loaded.
    if (ember::plugins::load(path).path != info.path) {
      std::cerr << "FAIL a second load of " << path << " did not return the loaded plugin\n";
      ++failures;
    }

    ember::Tensor x = ember::tensor({{1.0f, 2.0f, 3.0f}, {4.0f, -5.0f, 0.5f}});

    // Boxed, by name: omitted trailing arguments take the schema's defaults (alpha=2.0).
    expect_scaled("ops::call(\"myops::scale\", x, 3.0)", ember::ops::call("myops::scale", x, 3.0).toTensor(), x, 3.0);
    expect_scaled("ops::call(\"myops::scale\", x) (default alpha)", ember::ops::call("myops::scale", x).toTensor(), x,
                  2.0);

    // Typed: the C++ signature is checked against the schema once, then calls are unboxed.
    auto op = ember::Dispatcher::singleton()
                  .findSchemaOrThrow("myops::scale", "")
                  .typed<ember::Tensor(const ember::Tensor&, double)>();
    expect_scaled("typed call(x, 0.5)", op.call(x, 0.5), x, 0.5);

    // A transposed (non-contiguous) input takes the kernel's ember::mul path.
    ember::Tensor xt = x.t();
    expect_scaled("typed call(x.t(), -1.5)", op.call(xt, -1.5), xt, -1.5);

    // A wrong C++ signature is refused when the handle is made.
    try {
      (void)ember::Dispatcher::singleton()
          .findSchemaOrThrow("myops::scale", "")
          .typed<ember::Tensor(const ember::Tensor&)>();
      std::cerr << "FAIL typed<Tensor(const Tensor&)>() was accepted for myops::scale\n";
      ++failures;
    } catch (const ember::Error& e) {
      std::cout << "ok   wrong signature refused: " << e.what() << "\n";
    }

    // Differentiated through the formula the library registered (the autograd plugin is one of
    // the default plugins).
    {
      ember::Tensor w = ember::tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}).requires_grad_();
      ember::Tensor y = op.call(w, 3.0);
      ember::Tensor loss = ember::mul(y, y).sum();  // sum (3w)^2: d/dw = 18 w
      loss.backward();
      std::cout << "ok   grad_fn of myops::scale: " << ember::autograd::grad_fn_name(y) << "\n";
      if (ember::autograd::grad_fn_name(y) != "ScaleBackward") {
        std::cerr << "FAIL grad_fn is '" << ember::autograd::grad_fn_name(y) << "', expected 'ScaleBackward'\n";
        ++failures;
      }
      expect_scaled("grad of sum(scale(w, 3)^2) is 18 w", w.grad(), w.detach(), 18.0);
    }

    std::cout << "\nmyops::scale dispatch table:\n"
              << ember::Dispatcher::singleton().findSchemaOrThrow("myops::scale", "").dump_table() << "\n";
    std::cout << "plugins::loaded():\n";
    for (auto& p : ember::plugins::loaded()) std::cout << "  " << p.name << " " << p.version << "  " << p.path << "\n";
  } catch (const std::exception& e) {
    std::cerr << "FAIL exception: " << e.what() << "\n";
    return 1;
  }
  if (failures) {
    std::cerr << failures << " check(s) failed\n";
    return 1;
  }
  std::cout << "all checks passed\n";
  return 0;
}
