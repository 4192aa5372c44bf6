// safetensors in Ember: round trips, the writer's layout, the reader's checks (hand-built byte
// fixtures, each with its exact error), and the memory-mapped tensors' lifetime and privacy.
#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "SerializeTestUtil.h"

using namespace ember;
using namespace ember::sttest;

namespace {

// A file's bytes: the 8-byte little-endian length (the header's size unless given), header, data.
std::vector<uint8_t> file_bytes(std::string_view header, std::string_view data = "",
                                std::optional<uint64_t> n = std::nullopt) {
  uint64_t len = n.value_or(header.size());
  std::vector<uint8_t> b(8);
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(len >> (8 * i));
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

std::string load_error(const std::vector<uint8_t>& b) {
  return error_of([&] { safetensors::load(b); });
}

std::string prefix(const std::vector<uint8_t>& b) {
  return "[safetensors::load] buffer of " + std::to_string(b.size()) + " bytes: ";
}

// The data section of `n` zero bytes.
std::string zeros(size_t n) { return std::string(n, '\0'); }

std::string f32_entry(const std::string& name, const std::string& shape, const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}";
}

// Address ranges of the mappings of `path` in this process.
std::vector<std::pair<uintptr_t, uintptr_t>> mappings_of(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::vector<std::pair<uintptr_t, uintptr_t>> out;
  std::string line;
  while (std::getline(maps, line)) {
    if (line.size() < path.size() || line.compare(line.size() - path.size(), path.size(), path) != 0) continue;
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream(line) >> std::hex >> lo >> dash >> hi;
    out.emplace_back(lo, hi);
  }
  return out;
}

bool in_mapping(const Tensor& t, const std::string& path) {
  auto p = reinterpret_cast<uintptr_t>(t.data_ptr());
  for (auto [lo, hi] : mappings_of(path))
    if (p >= lo && p < hi) return true;
  return false;
}

Dict every_dtype() {
  Dict d;
  for (const auto& [dt, name] : shared_dtypes()) d.insert(name, pattern(dt, {2, 3}));
  return d;
}

class Safetensors : public TempDirTest {};

}  // namespace

// ---- round trips ----

TEST_F(Safetensors, RoundTripEveryDtypeThroughAFile) {
  Dict d = every_dtype();
  d.insert("scalar", pattern(kFloat64, {}));
  d.insert("empty", pattern(kFloat32, {0}));
  d.insert("empty2d", pattern(kInt64, {2, 0}));
  d.insert("bool_scalar", pattern(kBool, {}));
  save(d, path("a.safetensors"));
  Dict back = load(path("a.safetensors"));
  ASSERT_EQ(back.size(), d.size());
  for (const auto& item : d) {
    ASSERT_TRUE(back.contains(item.key())) << item.key();
    EXPECT_TRUE(same_tensor(back[item.key()], item.value())) << item.key();
    EXPECT_FALSE(back[item.key()].requires_grad());
    EXPECT_TRUE(back[item.key()].is_cpu());
  }
}

TEST_F(Safetensors, RoundTripInMemory) {
  Dict d = every_dtype();
  d.insert("scalar", pattern(kInt32, {}));
  std::vector<uint8_t> bytes = safetensors::save(d);
  Dict back = safetensors::load(bytes);
  ASSERT_EQ(back.size(), d.size());
  for (const auto& item : d) EXPECT_TRUE(same_tensor(back[item.key()], item.value())) << item.key();
  // The in-memory tensors are copies: the buffer can go.
  std::fill(bytes.begin(), bytes.end(), 0xff);
  EXPECT_TRUE(same_tensor(back["F32"], pattern(kFloat32, {2, 3})));
  // save() to memory and save_file() write the same bytes.
  safetensors::save_file(d, path("m.safetensors"));
  EXPECT_EQ(read_bytes(path("m.safetensors")), safetensors::save(d));
}

TEST_F(Safetensors, EntriesComeBackInFileOrder) {
  // The writer orders by dtype (I64 F64 F32 I32 BF16 F16 I16 I8 U8 BOOL), then by name.
  Dict d;
  d.insert("z_bool", pattern(kBool, {2}));
  d.insert("b_f32", pattern(kFloat32, {2}));
  d.insert("a_f32", pattern(kFloat32, {1}));
  d.insert("u8", pattern(kUInt8, {1}));
  d.insert("f64", pattern(kFloat64, {1}));
  d.insert("i64", pattern(kInt64, {1}));
  d.insert("bf16", pattern(kBFloat16, {1}));
  d.insert("f16", pattern(kFloat16, {1}));
  d.insert("i8", pattern(kInt8, {1}));
  d.insert("i16", pattern(kInt16, {1}));
  d.insert("i32", pattern(kInt32, {1}));
  save(d, path("o.safetensors"));
  std::vector<std::string> keys;
  for (const auto& item : load(path("o.safetensors"))) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"i64", "f64", "a_f32", "b_f32", "i32", "bf16", "f16", "i16", "i8", "u8",
                                            "z_bool"}));
}

TEST_F(Safetensors, WriterLayoutIsTheReferences) {
  Dict d;
  d.insert("b", pattern(kFloat32, {2}));
  d.insert("a", pattern(kInt64, {}));
  d.insert("c", pattern(kBool, {3}));
  d.insert("d", pattern(kFloat32, {1}));
  std::string json =
      R"({"a":{"dtype":"I64","shape":[],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
      R"("d":{"dtype":"F32","shape":[1],"data_offsets":[16,20]},"c":{"dtype":"BOOL","shape":[3],"data_offsets":[20,23]}})";
  ASSERT_EQ(json.size(), 218u);
  json += std::string(6, ' ');  // to 224, a multiple of 8
  std::string data;
  auto append = [&](const Tensor& t) { data.append(static_cast<const char*>(t.data_ptr()), t.nbytes()); };
  append(d["a"]);
  append(d["b"]);
  append(d["d"]);
  append(d["c"]);
  EXPECT_EQ(safetensors::save(d), file_bytes(json, data));

  // __metadata__ first, its keys in byte order; no tensors: "{}" padded.
  std::string meta = R"({"__metadata__":{"a":"1","format":"pt"}})";
  ASSERT_EQ(meta.size(), 40u);  // already a multiple of 8: no padding
  EXPECT_EQ(safetensors::save(Dict{}, {{"format", "pt"}, {"a", "1"}}), file_bytes(meta));
  std::string kv = R"({"__metadata__":{"k":"v"}})";
  ASSERT_EQ(kv.size(), 26u);
  EXPECT_EQ(safetensors::save(Dict{}, {{"k", "v"}}), file_bytes(kv + "      "));
  EXPECT_EQ(safetensors::save(Dict{}), file_bytes("{}      "));
}

TEST_F(Safetensors, WriterEscapesNamesAsSerdeJson) {
  Dict d;
  d.insert("q\"b\\s/\n\t\x01\x7f\xc3\xa9\xe2\x98\x83", pattern(kUInt8, {1}));
  std::string json =
      "{\"q\\\"b\\\\s/\\n\\t\\u0001\x7f\xc3\xa9\xe2\x98\x83\":{\"dtype\":\"U8\",\"shape\":[1],"
      "\"data_offsets\":[0,1]}}";
  json.resize((json.size() + 7) / 8 * 8, ' ');
  EXPECT_EQ(safetensors::save(d), file_bytes(json, std::string(1, '\0')));
  EXPECT_EQ(safetensors::load(safetensors::save(d)).front().key(), d.front().key());
}

TEST_F(Safetensors, NonContiguousTensorsAreWrittenInCOrder) {
  Tensor base = pattern(kFloat32, {3, 4});
  Dict d;
  d.insert("t", base.t());                                   // transposed
  d.insert("s", base.slice(1, 1, 4, 2));                     // strided, offset
  d.insert("e", base.select(0, 2));                          // a row at an offset
  d.insert("x", pattern(kInt16, {2, 3}).expand({4, 2, 3}));  // zero strides
  save(d, path("nc.safetensors"));
  Dict back = load(path("nc.safetensors"));
  for (const auto& item : d) {
    EXPECT_TRUE(same_tensor(back[item.key()], item.value())) << item.key();
    EXPECT_TRUE(back[item.key()].is_contiguous());
  }
  Dict c;
  for (const auto& item : d) c.insert(item.key(), item.value().contiguous());
  EXPECT_EQ(safetensors::save(d), safetensors::save(c));
}

TEST_F(Safetensors, RequiresGradTensorsSaveTheirData) {
  plugins::load("autograd");  // requires_grad_ does not load the default plugins by itself
  Tensor w = pattern(kFloat32, {2, 2}).requires_grad_();
  Dict d;
  d.insert("w", w);
  d.insert("v", (w * 2).select(0, 1));  // a non-leaf, non-contiguous result
  save(d, path("g.safetensors"));
  Dict back = load(path("g.safetensors"));
  EXPECT_TRUE(same_tensor(back["w"], pattern(kFloat32, {2, 2})));
  EXPECT_FALSE(back["w"].requires_grad());
  EXPECT_TRUE(same_tensor(back["v"], (pattern(kFloat32, {2, 2}) * 2).select(0, 1)));
}

TEST_F(Safetensors, Metadata) {
  safetensors::Metadata md{{"format", "pt"}, {"epoch", "3"}, {"ünï", "\"x\"\n"}};
  safetensors::save_file(every_dtype(), path("md.safetensors"), md);
  EXPECT_EQ(safetensors::load_metadata(path("md.safetensors")), md);
  EXPECT_EQ(load(path("md.safetensors")).size(), 10u);
  save(every_dtype(), path("none.safetensors"));
  EXPECT_TRUE(safetensors::load_metadata(path("none.safetensors")).empty());
  // A null __metadata__ is none, as the reference reads it.
  write_bytes(path("null.safetensors"), file_bytes(R"({"__metadata__":null})"));
  EXPECT_TRUE(safetensors::load_metadata(path("null.safetensors")).empty());
  EXPECT_EQ(load(path("null.safetensors")).size(), 0u);
}

TEST_F(Safetensors, SaveReplacesAFileAtomically) {
  Dict one;
  one.insert("x", pattern(kFloat32, {1024}));
  save(one, path("r.safetensors"));
  Dict loaded = load(path("r.safetensors"));
  Dict two;
  two.insert("y", pattern(kInt64, {3}));
  save(two, path("r.safetensors"));
  // The tensors mapped from the old file keep its data; the path holds the new one.
  EXPECT_TRUE(same_tensor(loaded["x"], pattern(kFloat32, {1024})));
  EXPECT_TRUE(same_tensor(load(path("r.safetensors"))["y"], pattern(kInt64, {3})));
  // No temporary file is left behind; the file's mode follows the umask as a plain create.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), std::filesystem::directory_iterator()), 1);
  mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(path("r.safetensors").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

// ---- the mapping ----

TEST_F(Safetensors, LoadedTensorsViewTheMappingUntilTheLastGoes) {
  Dict d = every_dtype();
  d.insert("empty", pattern(kFloat32, {0}));
  const std::string p = path("v.safetensors");
  save(d, p);
  Tensor keep;
  {
    Dict back = load(p);
    ASSERT_EQ(mappings_of(p).size(), 1u);
    for (const auto& item : back) {
      if (item.value().numel() > 0) {
        EXPECT_TRUE(in_mapping(item.value(), p)) << item.key();
      }
    }
    keep = back["F64"];
  }
  // One tensor keeps the whole mapping alive.
  EXPECT_EQ(mappings_of(p).size(), 1u);
  EXPECT_TRUE(same_tensor(keep, pattern(kFloat64, {2, 3})));
  keep.reset();
  EXPECT_TRUE(mappings_of(p).empty());
}

TEST_F(Safetensors, WritingALoadedTensorLeavesTheFile) {
  const std::string p = path("w.safetensors");
  Dict d;
  d.insert("a", pattern(kFloat32, {4, 4}));
  save(d, p);
  const auto before = read_bytes(p);
  Dict back = load(p);
  back["a"].fill_(7.0);
  back["a"].data_ptr<float>()[3] = -1;
  EXPECT_EQ(back["a"].data_ptr<float>()[0], 7.0f);
  EXPECT_EQ(back["a"].data_ptr<float>()[3], -1.0f);
  EXPECT_EQ(read_bytes(p), before);
  EXPECT_TRUE(same_tensor(load(p)["a"], pattern(kFloat32, {4, 4})));
}

TEST_F(Safetensors, UnalignedEntriesAreCopied) {
  // A valid file whose header length (53) is not a multiple of 8: the F32 data starts at byte 61.
  std::string json = "{" + f32_entry("x", "[2]", "[0,8]") + "}";
  float v[2] = {1.5f, -2.0f};
  std::string data(reinterpret_cast<const char*>(v), 8);
  const std::string p = path("u.safetensors");
  write_bytes(p, file_bytes(json, data));
  ASSERT_NE((8 + json.size()) % 4, 0u);
  Dict back = load(p);
  EXPECT_FALSE(in_mapping(back["x"], p));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(back["x"].data_ptr()) % alignof(float), 0u);
  EXPECT_EQ(back["x"].data_ptr<float>()[0], 1.5f);
  EXPECT_EQ(back["x"].data_ptr<float>()[1], -2.0f);
  // Single-byte dtypes are always aligned: still views.
  std::string json8 = R"({"x":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}})";
  write_bytes(path("u8.safetensors"), file_bytes(json8, "abc"));
  Dict b8 = load(path("u8.safetensors"));
  EXPECT_TRUE(in_mapping(b8["x"], path("u8.safetensors")));
}

TEST_F(Safetensors, BoolBytesOtherThanZeroAndOneReadAsTrue) {
  std::string json = R"({"b":{"dtype":"BOOL","shape":[4],"data_offsets":[0,4]}})";
  write_bytes(path("b.safetensors"), file_bytes(json, std::string("\x00\x01\x02\xff", 4)));
  Tensor b = load(path("b.safetensors"))["b"];
  const auto* raw = static_cast<const uint8_t*>(b.data_ptr());
  EXPECT_EQ(std::vector<uint8_t>(raw, raw + 4), (std::vector<uint8_t>{0, 1, 1, 1}));
}

// ---- what the writer refuses ----

TEST_F(Safetensors, WriterErrors) {
  const std::string p = path("e.safetensors");
  const std::string at = "[save] file '" + p + "': ";
  auto save_error = [&](Dict d) { return error_of([&] { save(d, p); }); };
  EXPECT_EQ(save_error(Dict{{"x", Tensor()}}), at + "tensor 'x' is undefined");
  EXPECT_EQ(save_error(Dict{{"__metadata__", pattern(kFloat32, {1})}}),
            at + "'__metadata__' is reserved for the metadata and cannot name a tensor");
  EXPECT_EQ(save_error(Dict{{"c", make_empty({2}, kComplex64)}}),
            at + "tensor 'c' has dtype complex64: writing safetensors C64 is not implemented");
  EXPECT_THROW(save(Dict{{"c", make_empty({2}, kComplex64)}}, p), NotImplementedError);
  EXPECT_EQ(save_error(Dict{{"c", make_empty({2}, kComplex128)}}),
            at + "tensor 'c' has dtype complex128, which safetensors cannot store");
  EXPECT_THROW(save(Dict{{"c", make_empty({2}, kComplex128)}}, p), TypeError);
  EXPECT_EQ(save_error(Dict{{"m", make_empty({2}, kFloat32, kMeta)}}),
            at + "tensor 'm' is on the meta device and has no data");
  EXPECT_EQ(save_error(Dict{{"bad\xff", pattern(kFloat32, {1})}}), at + "tensor name 'bad\\xff' is not valid UTF-8");
  EXPECT_EQ(error_of([&] {
              safetensors::save_file(Dict{}, p, {{"k", "\xc3"}});
            }),
            "[safetensors::save_file] file '" + p + "': __metadata__ entry 'k' is not valid UTF-8");
  EXPECT_FALSE(std::filesystem::exists(p));  // nothing written by a refused save

  const std::string missing = path("no/such/dir/x.safetensors");
  std::string e = error_of([&] { save(Dict{}, missing); });
  const std::string head = "[save] file '" + missing + "': cannot create '" + path("no/such/dir/.x.safetensors.") +
                           std::to_string(::getpid()) + ".";
  EXPECT_EQ(e.substr(0, head.size()), head);
  EXPECT_TRUE(e.ends_with(".tmp': No such file or directory")) << e;
}

// ---- what the reader refuses: every check, with its exact error ----

TEST_F(Safetensors, ReaderRejectsBadLengths) {
  std::vector<uint8_t> empty;
  EXPECT_EQ(load_error(empty),
            prefix(empty) + "header too small: the file has 0 bytes, fewer than the 8-byte header length");
  std::vector<uint8_t> seven(7, 0);
  EXPECT_EQ(load_error(seven),
            prefix(seven) + "header too small: the file has 7 bytes, fewer than the 8-byte header length");
  auto big = file_bytes("{}", "", 100'000'001);
  EXPECT_EQ(load_error(big), prefix(big) + "header too large: 100000001 bytes (the limit is 100000000)");
  auto huge = file_bytes("{}", "", UINT64_MAX);
  EXPECT_EQ(load_error(huge), prefix(huge) + "header too large: 18446744073709551615 bytes (the limit is 100000000)");
  auto past = file_bytes("{}      ", "", 9);
  EXPECT_EQ(load_error(past),
            prefix(past) + "invalid header length: 9 bytes, but only 8 bytes follow the 8-byte length");
  // The limit itself is allowed (then the JSON must fill it).
  EXPECT_EQ(load_error(file_bytes("{}      ", "", 100'000'000)).find("header too large"), std::string::npos);
}

TEST_F(Safetensors, ReaderRejectsBadJson) {
  struct Case {
    std::string header, problem;
  };
  const std::vector<Case> cases = {
      {"hello   ", "invalid JSON in header: "},
      {"{} x    ", "invalid JSON in header: "},
      {std::string("{}\0     ", 8), "invalid JSON in header: a NUL byte at offset 2"},
      {std::string("{\"a\0\":1}", 9), "invalid JSON in header: a NUL byte at offset 3"},
      {"{\"a\xff\":1}", "invalid UTF-8 in header: "},
      {"{\"\\ud800\":1}", "invalid JSON in header: "},
      {"\xef\xbb\xbf{}     ", "invalid JSON in header: it starts with a byte order mark"},
      {"[]      ", "the header is not a JSON object"},
      {"\"x\"     ", "the header is not a JSON object"},
      {"        ", "invalid JSON in header: "},
  };
  for (const auto& c : cases) {
    auto b = file_bytes(std::string_view(c.header.data(), c.header.size()));
    std::string e = load_error(b);
    EXPECT_EQ(e.substr(0, prefix(b).size() + c.problem.size()), prefix(b) + c.problem) << c.header;
  }
}

TEST_F(Safetensors, ReaderJsonErrorTexts) {
  auto b = file_bytes("{\"a\": tru}");
  EXPECT_EQ(load_error(b), prefix(b) +
                               "invalid JSON in header: parse error at line 1, column 10: syntax error while "
                               "parsing value - invalid literal; last read: '\"a\": tru}'");
  auto u = file_bytes("{\"a\xff\":1}");
  EXPECT_EQ(load_error(u), prefix(u) +
                               "invalid UTF-8 in header: parse error at line 1, column 4: syntax error while "
                               "parsing object key - invalid string: ill-formed UTF-8 byte; last read: "
                               "'\"a\\xff'; expected string literal");
}

TEST_F(Safetensors, ReaderRejectsDuplicateKeys) {
  std::string e = f32_entry("a", "[1]", "[0,4]");
  auto dup = file_bytes("{" + e + "," + e + "}", zeros(4));
  EXPECT_EQ(load_error(dup), prefix(dup) + "duplicate key 'a' in the header");
  auto dup_meta = file_bytes(R"({"__metadata__":{},"__metadata__":null})");
  EXPECT_EQ(load_error(dup_meta), prefix(dup_meta) + "duplicate key '__metadata__' in the header");
  auto dup_key = file_bytes(R"({"__metadata__":{"k":"1","j":"2","k":"3"}})");
  EXPECT_EQ(load_error(dup_key), prefix(dup_key) + "duplicate key 'k' in __metadata__");
  auto dup_field = file_bytes(R"({"a":{"dtype":"F32","shape":[1],"dtype":"F32","data_offsets":[0,4]}})", zeros(4));
  EXPECT_EQ(load_error(dup_field), prefix(dup_field) + "tensor 'a': duplicate field 'dtype'");
}

TEST_F(Safetensors, ReaderRejectsBadEntries) {
  struct Case {
    std::string header, data, problem;
  };
  const std::vector<Case> cases = {
      {R"({"__metadata__":"x"})", "", "__metadata__ must be an object of strings, got a string"},
      {R"({"__metadata__":[]})", "", "__metadata__ must be an object of strings, got a nested object or array"},
      {R"({"__metadata__":{"k":1}})", "", "__metadata__ value of 'k' must be a string, got a number"},
      {R"({"__metadata__":{"k":null}})", "", "__metadata__ value of 'k' must be a string, got null"},
      {R"({"__metadata__":{"k":{}}})", "", "__metadata__ value of 'k' must be a string, got a nested object or array"},
      {R"({"a":[0,4]})", "",
       "tensor 'a': expected an object with dtype, shape and data_offsets, got a nested "
       "object or array"},
      {R"({"a":3})", "", "tensor 'a': expected an object with dtype, shape and data_offsets, got a number"},
      {R"({"a":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}})", zeros(4), "tensor 'a': unknown dtype 'F33'"},
      {R"({"a":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}})", zeros(4), "tensor 'a': unknown dtype 'f32'"},
      {R"({"a":{"dtype":4,"shape":[1],"data_offsets":[0,4]}})", zeros(4),
       "tensor 'a': dtype must be a string, got a number"},
      {R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", zeros(4),
       "tensor 'a': shape must be an array of non-negative integers, got a negative number"},
      {R"({"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", zeros(4),
       "tensor 'a': shape must be an array of non-negative integers, got a non-integer number"},
      {R"({"a":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,4]}})", zeros(4),
       "tensor 'a': shape must be an array of non-negative integers, got a non-integer number"},
      {R"({"a":{"dtype":"F32","shape":[[1]],"data_offsets":[0,4]}})", zeros(4),
       "tensor 'a': shape must be an array of non-negative integers, got a nested object or array"},
      {R"({"a":{"dtype":"F32","shape":"1","data_offsets":[0,4]}})", zeros(4),
       "tensor 'a': shape must be an array of non-negative integers, got a string"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4]}})", zeros(4),
       "tensor 'a': data_offsets must be [begin, end], two non-negative integers"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}})", zeros(4),
       "tensor 'a': data_offsets must be [begin, end], two non-negative integers"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,-4]}})", zeros(4),
       "tensor 'a': data_offsets must be [begin, end], two non-negative integers"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":{"0":4}}})", zeros(4),
       "tensor 'a': data_offsets must be [begin, end], two non-negative integers"},
      {R"({"a":{"shape":[1],"data_offsets":[0,4]}})", zeros(4), "tensor 'a': missing field 'dtype'"},
      {R"({"a":{"dtype":"F32","data_offsets":[0,4]}})", zeros(4), "tensor 'a': missing field 'shape'"},
      {R"({"a":{"dtype":"F32","shape":[1]}})", zeros(4), "tensor 'a': missing field 'data_offsets'"},
  };
  for (const auto& c : cases) {
    auto b = file_bytes(c.header, c.data);
    EXPECT_EQ(load_error(b), prefix(b) + c.problem) << c.header;
    EXPECT_THROW(safetensors::load(b), ValueError);
  }
}

TEST_F(Safetensors, ReaderRejectsBadOffsetsAndSizes) {
  struct Case {
    std::string header, data, problem;
  };
  const std::vector<Case> cases = {
      {"{" + f32_entry("a", "[1]", "[4,0]") + "}", zeros(4), "tensor 'a': data_offsets [4, 0] end before they begin"},
      {"{" + f32_entry("a", "[1]", "[4,8]") + "}", zeros(8),
       "tensor 'a': data_offsets [4, 8] leave a gap after byte 0"},
      {"{" + f32_entry("a", "[2]", "[0,8]") + "," + f32_entry("b", "[1]", "[4,8]") + "}", zeros(8),
       "tensor 'b': data_offsets [4, 8] overlap the previous tensor, which ends at 8"},
      {"{" + f32_entry("b", "[1]", "[8,12]") + "," + f32_entry("a", "[1]", "[0,4]") + "}", zeros(12),
       "tensor 'b': data_offsets [8, 12] leave a gap after byte 4"},
      {"{" + f32_entry("a", "[1]", "[0,4]") + "}", zeros(3),
       "tensor 'a': data_offsets [0, 4] lie outside the data section (3 bytes)"},
      {"{" + f32_entry("a", "[1]", "[0,18446744073709551615]") + "}", zeros(4),
       "tensor 'a': data_offsets [0, 18446744073709551615] lie outside the data section (4 bytes)"},
      {"{" + f32_entry("a", "[2]", "[0,4]") + "}", zeros(4),
       "tensor 'a': data_offsets [0, 4] hold 4 bytes, but shape [2] of F32 needs 8"},
      {"{" + f32_entry("a", "[]", "[0,0]") + "}", "",
       "tensor 'a': data_offsets [0, 0] hold 0 bytes, but shape [] of F32 needs 4"},
      {"{" + f32_entry("a", "[4294967296,4294967296]", "[0,4]") + "}", zeros(4),
       "tensor 'a': overflow computing the byte size of shape [4294967296, 4294967296] with dtype F32"},
      {"{" + f32_entry("a", "[2305843009213693952,8]", "[0,4]") + "}", zeros(4),
       "tensor 'a': overflow computing the byte size of shape [2305843009213693952, 8] with dtype F32"},
      {"{" + f32_entry("a", "[1]", "[0,4]") + "}", zeros(5),
       "the tensors cover 4 bytes of the 5-byte data section: the file is not fully covered"},
      {"{}", zeros(1), "the tensors cover 0 bytes of the 1-byte data section: the file is not fully covered"},
      {R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", zeros(2),
       "tensor 'a': 3 elements of F4 do not fill whole bytes"},
  };
  for (const auto& c : cases) {
    auto b = file_bytes(c.header, c.data);
    EXPECT_EQ(load_error(b), prefix(b) + c.problem) << c.header;
  }
}

TEST_F(Safetensors, ReaderAcceptsWhatTheReferenceAccepts) {
  // Unknown fields (with any nesting) are ignored; entries in any header order; __metadata__ last.
  std::string json = R"({"b":{"dtype":"I8","shape":[2],"data_offsets":[4,6],"x":{"y":[1,[2,{"z":null}]]},"w":1},)" +
                     f32_entry("a", "[1]", "[0,4]") + R"(,"__metadata__":{"k":"v"}}   )";
  auto b = file_bytes(json, std::string("\x00\x00\x80\x3f\x05\xfb", 6));
  Dict d = safetensors::load(b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].key(), "a");
  EXPECT_EQ(d["a"].data_ptr<float>()[0], 1.0f);
  EXPECT_EQ(d["b"].data_ptr<int8_t>()[1], -5);
  // Empty tensors sharing an offset keep the header's order; the empty header; 0-d.
  auto e = file_bytes(R"({"z":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                      R"("a":{"dtype":"I64","shape":[3,0],"data_offsets":[0,0]}})");
  Dict de = safetensors::load(e);
  ASSERT_EQ(de.size(), 2u);
  EXPECT_EQ(de[0].key(), "z");
  EXPECT_EQ(de["a"].sizes().vec(), (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(safetensors::load(file_bytes("{}")).size(), 0u);
  // A zero dimension may sit beside any other in the format.
  auto wide = file_bytes(R"({"a":{"dtype":"F64","shape":[0,9223372036854775807],"data_offsets":[0,0]}})");
  EXPECT_EQ(safetensors::load(wide)["a"].numel(), 0);
}

TEST_F(Safetensors, ReaderRefusesWhatEmberCannotHold) {
  for (std::string dt : {"U16", "U32", "U64", "C64", "F8_E4M3", "F8_E5M2", "F4"}) {
    std::string json = R"({"a":{"dtype":")" + dt + R"(","shape":[2],"data_offsets":[0,)" +
                       std::to_string(dt == "F4"             ? 1
                                      : dt.starts_with("F8") ? 2
                                      : dt == "U16"          ? 4
                                      : dt == "U32"          ? 8
                                                             : 16) +
                       "]}}";
    auto b = file_bytes(json, zeros(dt == "F4"             ? 1
                                    : dt.starts_with("F8") ? 2
                                    : dt == "U16"          ? 4
                                    : dt == "U32"          ? 8
                                                           : 16));
    EXPECT_EQ(load_error(b), prefix(b) + "tensor 'a' has dtype " + dt + ", which Ember does not have");
    EXPECT_THROW(safetensors::load(b), NotImplementedError);
    // The format layer accepts them: load_metadata reads such a file.
    write_bytes(path("x.safetensors"), b);
    EXPECT_TRUE(safetensors::load_metadata(path("x.safetensors")).empty());
  }
  auto big = file_bytes(R"({"a":{"dtype":"F64","shape":[0,9223372036854775808],"data_offsets":[0,0]}})");
  EXPECT_EQ(load_error(big),
            prefix(big) + "tensor 'a': shape [0, 9223372036854775808] is too large for Ember's int64 sizes");
  auto big2 = file_bytes(R"({"a":{"dtype":"F64","shape":[0,4294967296,4294967296],"data_offsets":[0,0]}})");
  EXPECT_EQ(load_error(big2),
            prefix(big2) + "tensor 'a': shape [0, 4294967296, 4294967296] is too large for Ember's int64 sizes");
}

TEST_F(Safetensors, FileErrorsNameTheFile) {
  const std::string p = path("bad.safetensors");
  write_bytes(p, file_bytes("{\"a\":1}"));
  EXPECT_EQ(error_of([&] { load(p); }),
            "[load] file '" + p + "': tensor 'a': expected an object with dtype, shape and data_offsets, got a number");
  EXPECT_EQ(error_of([&] { safetensors::load_file(p); }),
            "[safetensors::load_file] file '" + p +
                "': tensor 'a': expected an object with dtype, shape and data_offsets, got a number");
  EXPECT_EQ(error_of([&] { safetensors::load_metadata(p); }),
            "[safetensors::load_metadata] file '" + p +
                "': tensor 'a': expected an object with dtype, shape and data_offsets, got a number");
  write_bytes(p, {1, 2, 3});
  EXPECT_EQ(error_of([&] { load(p); }),
            "[load] file '" + p + "': header too small: the file has 3 bytes, fewer than the 8-byte header length");
  write_bytes(p, {});
  EXPECT_EQ(error_of([&] { load(p); }),
            "[load] file '" + p + "': header too small: the file has 0 bytes, fewer than the 8-byte header length");
  const std::string missing = path("missing.safetensors");
  EXPECT_EQ(error_of([&] { load(missing); }), "[load] file '" + missing + "': cannot open: No such file or directory");
  EXPECT_EQ(error_of([&] { load(dir_.string()); }), "[load] file '" + dir_.string() + "': not a regular file");
  EXPECT_EQ(error_of([&] { save(Dict{}, dir_.string() + "/"); }),
            "[save] file '" + dir_.string() + "/': the path names a directory, not a file");
}

// ---- from_blob with a deleter (what the mapped tensors are made with) ----

TEST_F(Safetensors, FromBlobDeleterRunsOnceWhenTheLastTensorGoes) {
  auto* buf = new float[6]{0, 1, 2, 3, 4, 5};
  int calls = 0;
  void* seen = nullptr;
  Tensor row;
  {
    Tensor t = from_blob(
        buf, {2, 3},
        [&](void* p) {
          ++calls;
          seen = p;
          delete[] static_cast<float*>(p);
        },
        kFloat32);
    EXPECT_EQ(t.data_ptr(), buf);
    row = t.select(0, 1);  // a view shares the storage
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(row.data_ptr<float>()[2], 5.0f);
  row.reset();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, buf);

  int strided_calls = 0;
  float local[4] = {1, 2, 3, 4};
  {
    Tensor t = from_blob(
        local, {2, 2}, {1, 2}, [&](void*) { ++strided_calls; }, kFloat32);
    EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(t.data_ptr<float>()[1], 2.0f);
  }
  EXPECT_EQ(strided_calls, 1);
  // On an error the caller keeps ownership: the deleter does not run.
  auto count = [&](void*) { ++strided_calls; };
  EXPECT_EQ(error_of([&] { from_blob(local, {-1}, count, kFloat32); }), "[from_blob] negative size -1 at dimension 0");
  EXPECT_THROW(from_blob(local, {2}, count, dtype(kInt64).requires_grad(true)), TypeError);
  EXPECT_EQ(strided_calls, 1);
  EXPECT_EQ(error_of([&] { from_blob(local, {2}, Deleter(), kFloat32); }),
            "[from_blob] deleter: expected a callable, got an empty std::function");
}
