// Interop with PyPI's safetensors (the reference writer and reader) through tests/serialize/interop.py:
// its files load in Ember, Ember's files pass its checks, and Ember writes the same bytes.
// Skips without that Python (scripts/setup.sh's setup_python_venv).
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>

#include "SerializeTestUtil.h"

using namespace ember;
using namespace ember::sttest;

namespace {

struct Set {
  std::string name;
  Dict tensors;
  safetensors::Metadata metadata;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// interop.py's sets().
std::vector<Set> sets() {
  Set every{"every", Dict(), {{"format", "pt"}}};
  for (const auto& [dt, name] : shared_dtypes()) every.tensors.insert(lower(name) + "_2x3", pattern(dt, {2, 3}));
  every.tensors.insert("scalar_f64", pattern(kFloat64, {}));
  every.tensors.insert("scalar_bool", pattern(kBool, {}));
  every.tensors.insert("empty_f32", pattern(kFloat32, {0}));
  every.tensors.insert("empty_i64", pattern(kInt64, {2, 0}));
  every.tensors.insert("wide_f32", pattern(kFloat32, {33, 64}));
  Set names{"names", Dict(), {{"note", "a \"quoted\"\nvalue \xe2\x98\x83"}}};
  for (const char* n : {"q\"b", "back\\slash", "new\nline", "tab\tx", "ctrl\x01", "del\x7f",
                        "\xc3\xbcn\xc3\xaf\xe2\x98\x83", "slash/x", "", "model.layers.0.weight"})
    names.tensors.insert(n, pattern(kUInt8, {1}));
  Set plain{"plain", Dict(), {}};
  plain.tensors.insert("w", pattern(kFloat32, {3, 4}));
  plain.tensors.insert("b", pattern(kFloat32, {4}));
  plain.tensors.insert("steps", pattern(kInt64, {}));
  return {every, names, plain};
}

// The reference writer's order: dtype descending in its enum order, then name (bytes).
std::vector<std::string> file_order(const Dict& d) {
  auto rank = [](ScalarType t) {
    const ScalarType order[] = {kBool, kUInt8, kInt8, kInt16, kFloat16, kBFloat16, kInt32, kFloat32, kFloat64, kInt64};
    return std::find(std::begin(order), std::end(order), t) - std::begin(order);
  };
  std::vector<std::string> keys = d.keys();
  std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
    auto ra = rank(d[a].dtype()), rb = rank(d[b].dtype());
    return ra != rb ? ra > rb : a < b;
  });
  return keys;
}

class Interop : public TempDirTest {
 protected:
  void SetUp() override {
    const char* py = std::getenv("EMBER_TEST_PYTHON");
    if (!py || !*py) py = EMBER_TEST_PYTHON_DEFAULT;  // configured by CMake
    if (!*py || ::access(py, X_OK) != 0)
      GTEST_SKIP() << "no Python with safetensors and numpy (EMBER_TEST_PYTHON, or CMake's EMBER_TEST_PYTHON): run "
                      "scripts/setup.sh (setup_python_venv) or scripts/test.sh";
    python_ = py;
    TempDirTest::SetUp();
  }

  // Runs interop.py; returns its exit status and puts its output in `out`.
  int run(const std::string& command, std::string& out) {
    std::string cmd = "'" + python_ + "' '" EMBER_SERIALIZE_INTEROP_PY "' " + command + " '" + dir_.string() + "' 2>&1";
    FILE* f = ::popen(cmd.c_str(), "r");
    if (!f) return -1;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    int status = ::pclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  void python_writes() {
    std::string out;
    ASSERT_EQ(run("write", out), 0) << out;
  }

  std::string python_;
};

}  // namespace

TEST_F(Interop, PythonFilesLoadInEmber) {
  python_writes();
  for (const Set& s : sets()) {
    const std::string p = path("py_" + s.name + ".safetensors");
    Dict back = load(p);
    EXPECT_EQ(back.keys(), file_order(s.tensors)) << s.name;
    for (const auto& item : s.tensors) {
      ASSERT_TRUE(back.contains(item.key())) << s.name << ": " << item.key();
      EXPECT_TRUE(same_tensor(back[item.key()], item.value())) << s.name << ": " << item.key();
    }
    EXPECT_EQ(safetensors::load_metadata(p), s.metadata) << s.name;
  }
}

TEST_F(Interop, EmberFilesPassTheReferenceReader) {
  for (const Set& s : sets()) {
    // Non-contiguous copies of the same values must give the same file.
    Dict strided;
    for (const auto& item : s.tensors) {
      const Tensor& t = item.value();
      strided.insert(item.key(), t.dim() == 2 ? t.t().contiguous().t() : t);
    }
    safetensors::save_file(strided, path("ember_" + s.name + ".safetensors"), s.metadata);
  }
  std::string out;
  EXPECT_EQ(run("check", out), 0) << out;
  EXPECT_EQ(out, "ok\n");
}

TEST_F(Interop, EmberWritesTheReferencesBytes) {
  python_writes();
  for (const Set& s : sets()) {
    const auto reference = read_bytes(path("py_" + s.name + ".safetensors"));
    ASSERT_FALSE(reference.empty());
    EXPECT_EQ(safetensors::save(s.tensors, s.metadata), reference) << s.name;
    // Load and save again: the same bytes.
    const std::string p = path("py_" + s.name + ".safetensors");
    safetensors::save_file(load(p), path("again.safetensors"), safetensors::load_metadata(p));
    EXPECT_EQ(read_bytes(path("again.safetensors")), reference) << s.name;
  }
}
