#pragma once
// The safetensors format without tensors: reading and checking a header, writing one. It depends on
// nothing of Ember but its error types, so the fuzz target compiles it alone with sanitizers.
// See Note [safetensors] in ember/serialize.h.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember::safetensors::format {

// Every dtype of the format, in the reference's enum order: its writer sorts tensors by this order,
// descending, then by name.
enum class Dtype : uint8_t {
  BOOL,
  F4,
  F6_E2M3,
  F6_E3M2,
  U8,
  I8,
  F8_E5M2,
  F8_E4M3,
  F8_E8M0,
  F8_E4M3FNUZ,
  F8_E5M2FNUZ,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  C64,
  F64,
  I64,
  U64,
};

std::string_view dtype_name(Dtype d);
std::optional<Dtype> dtype_from_name(std::string_view name);
uint64_t dtype_bits(Dtype d);

using Metadata = std::map<std::string, std::string>;

struct Entry {
  std::string name;
  Dtype dtype = Dtype::BOOL;
  std::vector<uint64_t> shape;
  uint64_t begin = 0;  // byte offsets into the data section
  uint64_t end = 0;
};

struct Header {
  std::vector<Entry> entries;  // in offset order (the file's order)
  std::optional<Metadata> metadata;
  uint64_t data_start = 0;  // 8 + the header's length: where the data section begins
};

// Errors read "[fn] source: problem", e.g. "[load] file 'a.safetensors': header too large: ...".
struct Origin {
  std::string_view fn;
  std::string_view source;
};

constexpr uint64_t kMaxHeaderSize = 100'000'000;

// Parses and checks a whole file held in [data, data + size): everything the reference checks, and
// duplicate keys. On success every entry's [data_start + begin, data_start + end) lies in the
// buffer. Throws ValueError naming the problem.
Header parse(const uint8_t* data, size_t size, const Origin& origin);

// The 8-byte little-endian length and the header JSON as the reference writes them: `__metadata__`
// first (omitted when null), then the entries in the given order (offsets already set), compact,
// padded with spaces to a multiple of 8. Throws ValueError for a name that is not UTF-8 or a header
// over kMaxHeaderSize.
std::string make_header(const std::vector<Entry>& entries, const Metadata* metadata, const Origin& origin);

}  // namespace ember::safetensors::format
