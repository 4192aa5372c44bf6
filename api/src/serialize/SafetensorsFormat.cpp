#include "SafetensorsFormat.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "ember/core/Exception.h"

namespace ember::safetensors::format {

namespace {

struct DtypeInfo {
  std::string_view name;
  uint64_t bits;
};

// Indexed by Dtype.
constexpr DtypeInfo kDtypes[] = {
    {"BOOL", 8},    {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6},     {"U8", 8},          {"I8", 8},
    {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
    {"U16", 16},    {"F16", 16},    {"BF16", 16},   {"I32", 32},        {"U32", 32},        {"F32", 32},
    {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64},
};
static_assert(std::size(kDtypes) == static_cast<size_t>(Dtype::U64) + 1);

// A message fragment safe to print: bytes outside printable ASCII become \xNN.
std::string printable(std::string_view s, size_t limit = 64) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == limit) {
      out += "...";
      break;
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

std::string shape_string(const std::vector<uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// Builds the entries while nlohmann parses: it keeps every key (and so sees duplicates, which a
// nlohmann::json object would silently merge), keeps the header's order, and builds no DOM.
class HeaderReader {
 public:
  using json = nlohmann::json;
  HeaderReader(Header& out, const Origin& origin) : out_(out), origin_(origin) {}

  bool null() { return scalar("null"); }
  bool boolean(bool) { return scalar("a boolean"); }
  bool number_integer(json::number_integer_t) { return scalar("a negative number"); }
  bool number_unsigned(json::number_unsigned_t v) {
    if (state_ == State::kShapeItems) {
      entry().shape.push_back(v);
      return true;
    }
    if (state_ == State::kOffsetItems) {
      if (offsets_seen_ == 2) fail_offsets();
      (offsets_seen_++ == 0 ? entry().begin : entry().end) = v;
      return true;
    }
    return scalar("a number");
  }
  bool number_float(json::number_float_t, const json::string_t&) { return scalar("a non-integer number"); }
  bool binary(json::binary_t&) { return scalar("binary"); }

  bool string(json::string_t& s) {
    switch (state_) {
      case State::kMetaValue:
        out_.metadata->emplace(key_, std::move(s));
        state_ = State::kMetaKeys;
        return true;
      case State::kDtype: {
        auto d = dtype_from_name(s);
        if (!d) fail("tensor '{}': unknown dtype '{}'", printable(entry().name), printable(s));
        entry().dtype = *d;
        state_ = State::kFields;
        return true;
      }
      default:
        return scalar("a string");
    }
  }

  bool start_object(size_t) {
    switch (state_) {
      case State::kRoot:
        state_ = State::kTop;
        return true;
      case State::kMetadata:
        out_.metadata.emplace();
        state_ = State::kMetaKeys;
        return true;
      case State::kEntry:
        state_ = State::kFields;
        return true;
      default:
        return nested();
    }
  }
  bool start_array(size_t) {
    switch (state_) {
      case State::kShape:
        state_ = State::kShapeItems;
        return true;
      case State::kOffsets:
        offsets_seen_ = 0;
        state_ = State::kOffsetItems;
        return true;
      default:
        return nested();
    }
  }

  bool key(json::string_t& k) {
    switch (state_) {
      case State::kTop:
        if (!names_.insert(k).second) fail("duplicate key '{}' in the header", printable(k));
        if (k == "__metadata__") {
          state_ = State::kMetadata;
        } else {
          out_.entries.emplace_back().name = std::move(k);
          fields_ = 0;
          state_ = State::kEntry;
        }
        return true;
      case State::kMetaKeys:
        if (out_.metadata->count(k)) fail("duplicate key '{}' in __metadata__", printable(k));
        key_ = std::move(k);
        state_ = State::kMetaValue;
        return true;
      case State::kFields: {
        // The reference ignores fields it does not know; it rejects a repeated one.
        static constexpr std::string_view kFields[] = {"dtype", "shape", "data_offsets"};
        static constexpr State kStates[] = {State::kDtype, State::kShape, State::kOffsets};
        for (int i = 0; i < 3; ++i) {
          if (k != kFields[i]) continue;
          if (fields_ & (1u << i)) fail("tensor '{}': duplicate field '{}'", printable(entry().name), k);
          fields_ |= 1u << i;
          state_ = kStates[i];
          return true;
        }
        state_ = State::kIgnoredValue;
        return true;
      }
      default:  // a key inside an ignored value
        return true;
    }
  }

  bool end_object() {
    switch (state_) {
      case State::kTop:
        state_ = State::kDone;
        return true;
      case State::kMetaKeys:
        state_ = State::kTop;
        return true;
      case State::kFields: {
        static constexpr std::string_view kFields[] = {"dtype", "shape", "data_offsets"};
        for (int i = 0; i < 3; ++i)
          if (!(fields_ & (1u << i))) fail("tensor '{}': missing field '{}'", printable(entry().name), kFields[i]);
        state_ = State::kTop;
        return true;
      }
      default:
        return end_nested();
    }
  }
  bool end_array() {
    switch (state_) {
      case State::kShapeItems:
        state_ = State::kFields;
        return true;
      case State::kOffsetItems:
        if (offsets_seen_ != 2) fail_offsets();
        state_ = State::kFields;
        return true;
      default:
        return end_nested();
    }
  }

  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) {
    std::string_view what = e.what();
    if (auto p = what.find("] "); what.starts_with("[json.exception.") && p != what.npos) what.remove_prefix(p + 2);
    bool utf8 = what.find("UTF-8") != what.npos;
    fail("invalid {} in header: {}", utf8 ? "UTF-8" : "JSON", printable(what, 200));
  }

 private:
  enum class State {
    kRoot,
    kTop,
    kMetadata,
    kMetaKeys,
    kMetaValue,
    kEntry,
    kFields,
    kDtype,
    kShape,
    kShapeItems,
    kOffsets,
    kOffsetItems,
    kIgnoredValue,
    kIgnoring,
    kDone,
  };

  template <class... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... args) {
    EMBER_THROW(ValueError, "[{}] {}: {}", origin_.fn, origin_.source, fmt::format(f, std::forward<A>(args)...));
  }
  [[noreturn]] void fail_offsets() {
    fail("tensor '{}': data_offsets must be [begin, end], two non-negative integers", printable(entry().name));
  }
  Entry& entry() { return out_.entries.back(); }

  // A scalar where the state expects `what` does not fit; inside an ignored field it is skipped.
  bool scalar(const char* what) {
    switch (state_) {
      case State::kIgnoredValue:
        state_ = State::kFields;
        return true;
      case State::kIgnoring:
        return true;
      case State::kMetadata:
        if (std::strcmp(what, "null") == 0) {  // the reference reads a null __metadata__ as none
          state_ = State::kTop;
          return true;
        }
        break;
      default:
        break;
    }
    unexpected(what);
  }
  bool nested() {
    if (state_ == State::kIgnoredValue) {
      state_ = State::kIgnoring;
      depth_ = 1;
      return true;
    }
    if (state_ == State::kIgnoring) {
      ++depth_;
      return true;
    }
    unexpected("a nested object or array");
  }
  bool end_nested() {
    if (state_ == State::kIgnoring && --depth_ == 0) state_ = State::kFields;
    return true;
  }
  [[noreturn]] void unexpected(const char* what) {
    switch (state_) {
      case State::kRoot:
        fail("the header is not a JSON object");
      case State::kMetadata:
        fail("__metadata__ must be an object of strings, got {}", what);
      case State::kMetaValue:
        fail("__metadata__ value of '{}' must be a string, got {}", printable(key_), what);
      case State::kEntry:
        fail("tensor '{}': expected an object with dtype, shape and data_offsets, got {}", printable(entry().name),
             what);
      case State::kDtype:
        fail("tensor '{}': dtype must be a string, got {}", printable(entry().name), what);
      case State::kShape:
      case State::kShapeItems:
        fail("tensor '{}': shape must be an array of non-negative integers, got {}", printable(entry().name), what);
      case State::kOffsets:
      case State::kOffsetItems:
        fail_offsets();
      default:
        fail("unexpected {} in the header", what);
    }
  }

  Header& out_;
  const Origin& origin_;
  State state_ = State::kRoot;
  std::unordered_set<std::string> names_;
  std::string key_;      // the __metadata__ key whose value comes next
  unsigned fields_ = 0;  // bit i: field i of the current entry seen
  int offsets_seen_ = 0;
  size_t depth_ = 0;  // open containers inside an ignored field
};

bool checked_mul(uint64_t a, uint64_t b, uint64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

}  // namespace

std::string_view dtype_name(Dtype d) { return kDtypes[static_cast<size_t>(d)].name; }
uint64_t dtype_bits(Dtype d) { return kDtypes[static_cast<size_t>(d)].bits; }

std::optional<Dtype> dtype_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kDtypes); ++i)
    if (kDtypes[i].name == name) return static_cast<Dtype>(i);
  return std::nullopt;
}

Header parse(const uint8_t* data, size_t size, const Origin& origin) {
  auto fail = [&](const std::string& problem) {
    EMBER_THROW(ValueError, "[{}] {}: {}", origin.fn, origin.source, problem);
  };
  if (size < 8) fail(fmt::format("header too small: the file has {} bytes, fewer than the 8-byte header length", size));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
  if (n > kMaxHeaderSize) fail(fmt::format("header too large: {} bytes (the limit is {})", n, kMaxHeaderSize));
  if (n > size - 8)
    fail(fmt::format("invalid header length: {} bytes, but only {} bytes follow the 8-byte length", n, size - 8));
  const char* text = reinterpret_cast<const char*>(data + 8);
  // nlohmann skips a byte order mark; the reference (and JSON) does not allow one.
  if (n >= 3 && std::memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    fail("invalid JSON in header: it starts with a byte order mark");
  // nlohmann ends its input at a NUL byte; JSON allows none, not even in strings.
  if (const void* nul = std::memchr(text, 0, n))
    fail(fmt::format("invalid JSON in header: a NUL byte at offset {}", static_cast<const char*>(nul) - text));

  Header h;
  h.data_start = 8 + n;
  HeaderReader reader(h, origin);
  nlohmann::json::sax_parse(text, text + n, &reader);

  // The file's order is the offsets' order; a stable sort keeps the header's order among empty
  // tensors that share an offset.
  std::stable_sort(h.entries.begin(), h.entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const uint64_t data_len = size - h.data_start;
  uint64_t at = 0;
  for (const Entry& e : h.entries) {
    std::string name = printable(e.name);
    std::string offsets = fmt::format("data_offsets [{}, {}]", e.begin, e.end);
    if (e.end < e.begin) fail(fmt::format("tensor '{}': {} end before they begin", name, offsets));
    if (e.begin < at)
      fail(fmt::format("tensor '{}': {} overlap the previous tensor, which ends at {}", name, offsets, at));
    if (e.begin > at) fail(fmt::format("tensor '{}': {} leave a gap after byte {}", name, offsets, at));
    if (e.end > data_len)
      fail(fmt::format("tensor '{}': {} lie outside the data section ({} bytes)", name, offsets, data_len));
    uint64_t numel = 1, bits = 0;
    for (uint64_t d : e.shape)
      if (!checked_mul(numel, d, numel)) numel = UINT64_MAX, bits = UINT64_MAX;
    if (bits == UINT64_MAX || !checked_mul(numel, dtype_bits(e.dtype), bits))
      fail(fmt::format("tensor '{}': overflow computing the byte size of shape {} with dtype {}", name,
                       shape_string(e.shape), dtype_name(e.dtype)));
    if (bits % 8 != 0)
      fail(fmt::format("tensor '{}': {} elements of {} do not fill whole bytes", name, numel, dtype_name(e.dtype)));
    if (e.end - e.begin != bits / 8)
      fail(fmt::format("tensor '{}': {} hold {} bytes, but shape {} of {} needs {}", name, offsets, e.end - e.begin,
                       shape_string(e.shape), dtype_name(e.dtype), bits / 8));
    at = e.end;
  }
  if (at != data_len)
    fail(fmt::format("the tensors cover {} bytes of the {}-byte data section: the file is not fully covered", at,
                     data_len));
  return h;
}

std::string make_header(const std::vector<Entry>& entries, const Metadata* metadata, const Origin& origin) {
  using ojson = nlohmann::ordered_json;
  ojson h = ojson::object();
  if (metadata) h["__metadata__"] = *metadata;  // a std::map: keys in byte order
  for (const Entry& e : entries) {
    ojson info = ojson::object();
    info["dtype"] = dtype_name(e.dtype);
    info["shape"] = e.shape;
    info["data_offsets"] = ojson::array({e.begin, e.end});
    // Names are unique (an OrderedDict's keys): append without ordered_map's linear lookup.
    h.get_ref<ojson::object_t&>().emplace_back(e.name, std::move(info));
  }
  std::string text;
  try {
    text = h.dump();  // compact, UTF-8 unescaped, as serde_json writes it
  } catch (const nlohmann::json::type_error&) {
    // Only invalid UTF-8 makes dump throw: name the string that has it.
    auto bad = [](const std::string& s) {
      try {
        (void)ojson(s).dump();
        return false;
      } catch (const nlohmann::json::type_error&) {
        return true;
      }
    };
    for (const Entry& e : entries)
      if (bad(e.name))
        EMBER_THROW(ValueError, "[{}] {}: tensor name '{}' is not valid UTF-8", origin.fn, origin.source,
                    printable(e.name));
    if (metadata)
      for (const auto& [k, v] : *metadata)
        if (bad(k) || bad(v))
          EMBER_THROW(ValueError, "[{}] {}: __metadata__ entry '{}' is not valid UTF-8", origin.fn, origin.source,
                      printable(k));
    throw;
  }
  text.resize((text.size() + 7) / 8 * 8, ' ');
  EMBER_CHECK(text.size() <= kMaxHeaderSize, "[{}] {}: header too large: {} bytes (the limit is {})", origin.fn,
              origin.source, text.size(), kMaxHeaderSize);
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<uint64_t>(text.size()) >> (8 * i)) & 0xff);
  return out + text;
}

}  // namespace ember::safetensors::format
