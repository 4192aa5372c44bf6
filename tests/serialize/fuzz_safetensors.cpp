// libFuzzer target: the safetensors reader (api/src/serialize/SafetensorsFormat.cpp) on arbitrary
// bytes. A file must be rejected with ValueError or accepted; an accepted file's tensor bytes must
// lie inside the input (ASan sees each read), and its header written back must parse to the same
// entries. Built by tests/serialize/CMakeLists.txt; scripts/fuzz.sh runs it for long.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "SafetensorsFormat.h"
#include "ember/core/Exception.h"

using namespace ember::safetensors::format;

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz_safetensors: %s\n", what);
  __builtin_trap();
}

bool same(const Entry& a, const Entry& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.begin == b.begin && a.end == b.end;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Header h;
  try {
    h = parse(data, size, Origin{"fuzz", "input"});
  } catch (const ember::ValueError&) {
    return 0;
  }
  volatile uint8_t sink = 0;
  for (const Entry& e : h.entries)
    for (uint64_t i = e.begin; i < e.end; ++i) sink = sink ^ data[h.data_start + i];

  std::string header;
  try {
    header = make_header(h.entries, h.metadata ? &*h.metadata : nullptr, Origin{"fuzz", "rewrite"});
  } catch (const ember::ValueError&) {
    broken("an accepted header could not be written back");
  }
  std::vector<uint8_t> again(header.begin(), header.end());
  again.insert(again.end(), data + h.data_start, data + size);
  Header h2;
  try {
    h2 = parse(again.data(), again.size(), Origin{"fuzz", "rewrite"});
  } catch (const ember::ValueError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    broken("a header written back was rejected");
  }
  if (h2.entries.size() != h.entries.size() || h2.metadata != h.metadata) broken("round trip changed the header");
  for (size_t i = 0; i < h.entries.size(); ++i)
    if (!same(h.entries[i], h2.entries[i])) broken("round trip changed an entry");
  return 0;
}
