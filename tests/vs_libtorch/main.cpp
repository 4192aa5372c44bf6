// Runs the differential cases whose name starts with argv[2] (all when absent) and writes their
// records to argv[1] (Note [Differential cases against LibTorch]).
#include <fstream>
#include <iostream>
#include <string>

#include "vs_record.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " OUT.jsonl [FAMILY_PREFIX]\n";
    return 2;
  }
  std::ofstream out(argv[1]);
  if (!out) {
    std::cerr << argv[0] << ": cannot write " << argv[1] << "\n";
    return 2;
  }
  std::string prefix = argc > 2 ? argv[2] : "";
  int n = 0;
  for (const auto& c : vs_test::registry()) {
    if (std::string(c.name).rfind(prefix, 0) != 0) continue;
    vs_test::Recorder r(out, c.name);
    // An unexpected exception ends only its own case; compare.py reports it.
    try {
      c.fn(r);
    } catch (const std::exception& e) {
      r.case_error(e.what());
    }
    ++n;
  }
  std::cerr << VS_SIDE << ": " << n << " cases\n";
  return n > 0 ? 0 : 1;
}
