#pragma once
// Helpers shared by the store implementations (not installed).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ember::c10d::detail {

// The decimal text of an add() counter; DistStoreError naming `fn` when the key holds something
// else.
int64_t parse_counter(const char* fn, const std::string& key, const std::vector<uint8_t>& v);
std::vector<uint8_t> counter_bytes(int64_t n);
// `a + b` for add(); DistStoreError on overflow.
int64_t checked_add(const char* fn, const std::string& key, int64_t a, int64_t b);
// "[a, b]" with each key quoted, for error messages.
std::string key_list(const std::vector<std::string>& keys);

// Little-endian u64 fields of the FileStore's records and the TCPStore's frames.
inline void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

}  // namespace ember::c10d::detail
