// The `ember` command line: inspect what is installed and registered.
//   ember inspect plugins        plugins on the search path (read without loading) and loaded ones
//   ember inspect ops            every operator with a schema
//   ember inspect op NAME        one operator: schema and dispatch table with provenance
//   ember demo                   loads the CPU plugin at run time and runs a few operators
//   ember train ...              trains a model on Fashion-MNIST (tools/train)
//   ember run ...                torchrun's launcher: N ranks of a program (tools/run)
#include <cstring>
#include <iostream>

#include "ember/ember.h"
#include "run/Launch.h"
#include "train/Train.h"

namespace {

int usage() {
  std::cerr << "usage: ember train [--help] | ember run [--help] | ember inspect plugins | ember inspect ops | ember "
               "inspect op "
               "NAME[.OVERLOAD] | ember demo\n";
  return 2;
}

int demo() {
  using namespace ember;
  auto cpu = plugins::load("cpu");
  std::cout << "loaded plugin '" << cpu.name << "' " << cpu.version << " from " << cpu.path << "\n";
  std::cout << "plugins loaded:";
  for (auto& p : plugins::loaded()) std::cout << " " << p.name;
  std::cout << "\n\n";
  Tensor a = arange(6, kFloat32).reshape({2, 3});
  Tensor b = tensor({10.0, 20.0, 30.0});
  std::cout << "a =\n" << a << "\n\nb =\n" << b << "\n\n";
  Tensor c = a + b;  // broadcasting
  std::cout << "a + b =\n" << c << "\n\n";
  std::cout << "(a * 2).sum() = " << (a * 2).sum().item<float>() << "\n";
  std::cout << "a.t().to(kFloat64) =\n" << a.t().to(kFloat64) << "\n\n";
  auto add = Dispatcher::singleton().findSchemaOrThrow("aten::add", "Tensor");
  Stack s;
  s.emplace_back(a);
  s.emplace_back(b);
  s.emplace_back(Scalar(1));
  std::cout << "how aten::add dispatched:\n" << add.explain(s);
  return 0;
}

int inspect_plugins() {
  std::cout << "search path:\n";
  for (auto& d : ember::plugins::search_path()) std::cout << "  " << d << "\n";
  std::cout << "plugins found:\n";
  for (auto& p : ember::plugins::available()) {
    std::cout << "  " << (p.loaded ? "[loaded] " : "         ") << p.info.name << " " << p.info.version << "  "
              << p.info.path;
    if (!p.info.dependencies.empty()) {
      std::cout << "  (needs";
      for (auto& d : p.info.dependencies) std::cout << " " << d;
      std::cout << ")";
    }
    if (!p.problem.empty()) std::cout << "\n           problem: " << p.problem;
    std::cout << "\n";
  }
  std::cout << "loaded:\n";
  for (auto& p : ember::plugins::loaded()) std::cout << "  " << p.name << " " << p.version << "  " << p.path << "\n";
  return 0;
}

int inspect_ops() {
  for (auto& h : ember::Dispatcher::singleton().operators()) std::cout << h.schema().str() << "\n";
  return 0;
}

int inspect_op(std::string_view name) {
  auto [n, ovl] = ember::parse_operator_name(name);
  auto h = ember::Dispatcher::singleton().findSchemaOrThrow(n.find("::") == std::string::npos ? "aten::" + n : n, ovl);
  std::cout << h.dump_table();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 2 && std::strcmp(argv[1], "demo") == 0) return demo();
    if (argc >= 2 && std::strcmp(argv[1], "train") == 0) return ember::train::main(argc - 1, argv + 1);
    if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return ember::run::main(argc - 1, argv + 1);
    if (argc >= 3 && std::strcmp(argv[1], "inspect") == 0) {
      std::string_view what = argv[2];
      if (what == "plugins") return inspect_plugins();
      if (what == "ops") return inspect_ops();
      if (what == "op" && argc == 4) return inspect_op(argv[3]);
    }
    return usage();
  } catch (const std::exception& e) {
    std::cerr << "ember: " << e.what() << "\n";
    return 1;
  }
}
