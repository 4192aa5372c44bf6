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

}  // namespace ember::c10d::detail
