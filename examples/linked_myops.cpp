// The myops source linked into the program as a static library instead of loaded as a plugin.
// Its EMBER_LIBRARY blocks register on first use with no plugins::load, provided the archive is
// linked whole (ember_link_whole_archive in CMake; see Note [Registration records]).
#include <cstdlib>
#include <iostream>

#include <ember/ember.h>

int main() {
  try {
    auto h = ember::Dispatcher::singleton().findSchema("myops::scale");
    if (!h) {
      std::cerr << "FAIL myops::scale is not registered: was the static library linked whole?\n";
      return 1;
    }
    ember::Tensor x = ember::tensor({1.0f, -2.0f, 4.0f});
    ember::Tensor y = ember::ops::call("myops::scale", x).toTensor();  // alpha=2.0
    if (!ember::equal(y, ember::tensor({2.0f, -4.0f, 8.0f}))) {
      std::cerr << "FAIL myops::scale(x) = \n" << y << "\nexpected 2 * x\n";
      return 1;
    }
    std::cout << h->dump_table() << "\n";
    for (auto& p : ember::plugins::loaded()) {
      if (p.name == "myops") {
        std::cerr << "FAIL myops was loaded as a plugin; it should be linked in\n";
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "FAIL exception: " << e.what() << "\n";
    return 1;
  }
  std::cout << "linked myops: all checks passed\n";
  return 0;
}
