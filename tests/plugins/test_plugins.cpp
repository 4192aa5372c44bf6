// The plugin loader (see Note [Plugin loading]): good plugins and their dependencies, the same
// file under another path, and every way a plugin can be refused. Each refusal must name the
// plugin, the file or dependency, and what was expected, and must leave the registry and the
// loaded list exactly as they were.
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ember/dispatcher/Dispatcher.h"
#include "ember/dispatcher/Plugins.h"
#include "ember/dispatcher/Tensor.h"
#include "ember/dispatcher/ElfNotes.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using plugins::PluginError;
using plugins::PluginErrorKind;
using ::testing::HasSubstr;

const std::string kDir = EMBER_TEST_PLUGIN_DIR;

std::string plugin_file(const std::string& name) { return kDir + "/lib" + name + ".so"; }

// The registry and the loaded list, to compare before and after a refused load.
struct Snapshot {
  std::string dump;
  std::vector<std::string> loaded;
  static Snapshot take() {
    ensure_initialized();  // dump() alone does not run the start-up registrations
    Snapshot s{Dispatcher::singleton().dump(), {}};
    for (const auto& p : plugins::loaded()) s.loaded.push_back(p.name + " " + p.path);
    return s;
  }
};

void expect_unchanged(const Snapshot& before) {
  Snapshot after = Snapshot::take();
  EXPECT_EQ(before.dump, after.dump) << "the registry changed";
  EXPECT_EQ(before.loaded, after.loaded) << "the loaded list changed";
}

// Runs load(arg), expects a PluginError of `kind`, and returns its message.
std::string load_error(const std::string& arg, PluginErrorKind kind) {
  try {
    plugins::load(arg);
  } catch (const PluginError& e) {
    EXPECT_EQ(plugins::to_string(e.kind()), std::string(plugins::to_string(kind))) << e.what();
    EXPECT_STREQ(static_cast<const Error&>(e).kind(), "PluginError");
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected PluginError " << plugins::to_string(kind) << ", got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "load('" << arg << "') succeeded; expected " << plugins::to_string(kind);
  return {};
}

const plugins::PluginInfo* find_loaded(const std::vector<plugins::PluginInfo>& list, const std::string& name) {
  for (const auto& p : list)
    if (p.name == name) return &p;
  return nullptr;
}

// A fresh directory under the system temp directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("ember_plugin_test_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string source_line_of(const std::string& file, const std::string& needle) {
  std::ifstream in(std::string(EMBER_TEST_PLUGIN_SRC_DIR) + "/" + file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return file + ":" + std::to_string(n);
  ADD_FAILURE() << needle << " not found in " << file;
  return file;
}

Tensor float_tensor(std::initializer_list<float> values) {
  Tensor t = make_empty({static_cast<int64_t>(values.size())}, kFloat32);
  std::copy(values.begin(), values.end(), t.data_ptr<float>());
  return t;
}

TEST(Plugins, LoadByPathLoadsDependenciesFirst) {
  plugins::PluginInfo info = plugins::load(plugin_file("good"));
  EXPECT_EQ(info.name, "good");
  EXPECT_EQ(info.version, "2.0.0");
  EXPECT_EQ(info.path, plugin_file("good"));
  EXPECT_EQ(info.dependencies, std::vector<std::string>{"good_dep"});

  auto list = plugins::loaded();
  auto dep = std::find_if(list.begin(), list.end(), [](auto& p) { return p.name == "good_dep"; });
  auto good = std::find_if(list.begin(), list.end(), [](auto& p) { return p.name == "good"; });
  ASSERT_NE(dep, list.end());
  ASSERT_NE(good, list.end());
  EXPECT_LT(dep - list.begin(), good - list.begin()) << "a dependency loads before its user";
  EXPECT_EQ(dep->version, "1.2.3");
  EXPECT_EQ(dep->path, plugin_file("good_dep"));
  EXPECT_TRUE(dep->dependencies.empty());
  EXPECT_TRUE(plugins::is_loaded("good"));
  EXPECT_TRUE(plugins::is_loaded("good_dep"));
  EXPECT_FALSE(plugins::is_loaded("no_such_plugin"));
}

TEST(Plugins, LoadedPluginsOperatorsCanBeCalled) {
  plugins::load("good_dep");
  Tensor t = make_empty({2}, kFloat32);
  auto id = Dispatcher::singleton().findSchemaOrThrow("tdep::id", "").typed<Tensor(const Tensor&)>();
  Tensor r = id.call(t);
  EXPECT_TRUE(r.is_same(t));

  plugins::load("good");
  auto twice = Dispatcher::singleton().findSchemaOrThrow("tgood::twice", "").typed<Tensor(const Tensor&)>();
  Tensor y = twice.call(float_tensor({1.5f, -2.0f}));
  ASSERT_EQ(y.numel(), 2);
  EXPECT_EQ(y.data_ptr<float>()[0], 3.0f);
  EXPECT_EQ(y.data_ptr<float>()[1], -4.0f);
}

TEST(Plugins, SameFileThroughASymlinkOrAnotherNameLoadsOnce) {
  plugins::PluginInfo first = plugins::load(plugin_file("good"));
  Snapshot before = Snapshot::take();

  TempDir tmp;
  fs::path link = tmp.path / "libgood_alias.so";
  fs::create_symlink(plugin_file("good"), link);
  plugins::PluginInfo again = plugins::load(link.string());
  EXPECT_EQ(again.name, "good");
  EXPECT_EQ(again.path, first.path);

  // A hard link is the same file too (it may not be possible across file systems).
  fs::path hard = tmp.path / "libgood_hard.so";
  std::error_code ec;
  fs::create_hard_link(plugin_file("good"), hard, ec);
  if (!ec) {
    EXPECT_EQ(plugins::load(hard.string()).path, first.path);
  }

  EXPECT_EQ(plugins::load("good").path, first.path);
  EXPECT_EQ(plugins::load(kDir + "/../test_plugins/./libgood.so").path, first.path);
  expect_unchanged(before);
}

TEST(Plugins, LibraryWithoutPluginNoteIsNamedAfterItsFile) {
  plugins::PluginInfo info = plugins::load(plugin_file("plain"));
  EXPECT_EQ(info.name, "plain");
  EXPECT_EQ(info.version, "0");
  EXPECT_TRUE(info.dependencies.empty());
  EXPECT_TRUE(plugins::is_loaded("plain"));
  // Once the checks pass, its code runs (so the tests below prove that refused ones' did not).
  EXPECT_NE(std::getenv("EMBER_TEST_PLAIN_CTOR_RAN"), nullptr);
  EXPECT_TRUE(Dispatcher::singleton().findSchema("tplain::p").has_value());
}

TEST(Plugins, SameNameFromAnotherFileIsAConflict) {
  plugins::load(plugin_file("plain"));
  Snapshot before = Snapshot::take();
  TempDir tmp;
  fs::path copy = tmp.path / "libplain.so";
  fs::copy_file(plugin_file("plain"), copy);
  std::string msg = load_error(copy.string(), PluginErrorKind::Conflict);
  EXPECT_THAT(msg, HasSubstr("plugin 'plain'"));
  EXPECT_THAT(msg, HasSubstr(copy.string()));
  EXPECT_THAT(msg, HasSubstr(plugin_file("plain")));
  expect_unchanged(before);
}

TEST(Plugins, NotAPlugin) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("not_a_plugin"), PluginErrorKind::NotAPlugin);
  EXPECT_THAT(msg, HasSubstr("[plugins::load]"));
  EXPECT_THAT(msg, HasSubstr(plugin_file("not_a_plugin")));
  EXPECT_THAT(msg, HasSubstr("not an Ember plugin"));
  EXPECT_THAT(msg, HasSubstr("EMBER_LIBRARY"));
  expect_unchanged(before);
}

TEST(Plugins, NotASharedLibrary) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("garbage"), PluginErrorKind::NotSharedLibrary);
  EXPECT_THAT(msg, HasSubstr(plugin_file("garbage")));
  EXPECT_THAT(msg, HasSubstr("not a shared library"));
  EXPECT_THAT(msg, HasSubstr("ELF"));
  // By name too: the search finds the file, the check refuses it.
  load_error("garbage", PluginErrorKind::NotSharedLibrary);

  TempDir tmp;
  {
    std::ofstream(tmp.path / "libempty.so");
    msg = load_error((tmp.path / "libempty.so").string(), PluginErrorKind::NotSharedLibrary);
    EXPECT_THAT(msg, HasSubstr("too short"));
  }
  {
    // A real plugin cut short: a valid header, section headers past the end.
    std::ifstream in(plugin_file("good"), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    bytes.resize(200);
    std::ofstream(tmp.path / "libtruncated.so", std::ios::binary).write(bytes.data(), 200);
    msg = load_error((tmp.path / "libtruncated.so").string(), PluginErrorKind::NotSharedLibrary);
    EXPECT_THAT(msg, HasSubstr("truncated"));
  }
  {
    // A real plugin whose header names another machine (AArch64 on x86-64, and the reverse).
    std::ifstream in(plugin_file("good"), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.data(), sizeof eh);
    eh.e_machine = eh.e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
    std::memcpy(bytes.data(), &eh, sizeof eh);
    std::ofstream(tmp.path / "libforeign.so", std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    msg = load_error((tmp.path / "libforeign.so").string(), PluginErrorKind::NotSharedLibrary);
    EXPECT_THAT(msg, HasSubstr("built for another machine"));
    EXPECT_THAT(msg, HasSubstr("e_machine"));
  }
  msg = load_error(tmp.path.string() + "/", PluginErrorKind::NotSharedLibrary);
  EXPECT_THAT(msg, HasSubstr("directory"));
  EXPECT_EQ(std::getenv("EMBER_TEST_CTOR_RAN"), nullptr);
  expect_unchanged(before);
}

TEST(Plugins, NotFound) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(kDir + "/libdoes_not_exist.so", PluginErrorKind::NotFound);
  EXPECT_THAT(msg, HasSubstr(kDir + "/libdoes_not_exist.so"));

  msg = load_error("does_not_exist", PluginErrorKind::NotFound);
  EXPECT_THAT(msg, HasSubstr("'does_not_exist'"));
  EXPECT_THAT(msg, HasSubstr("libdoes_not_exist.so"));
  for (const auto& dir : plugins::search_path()) EXPECT_THAT(msg, HasSubstr(dir));
  EXPECT_THAT(msg, HasSubstr("EMBER_PLUGIN_PATH"));
  expect_unchanged(before);
}

TEST(Plugins, AbiMismatchIsRefusedBeforeAnyPluginCodeRuns) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("abi_mismatch"), PluginErrorKind::AbiMismatch);
  EXPECT_THAT(msg, HasSubstr("plugin 'abi_mismatch'"));
  EXPECT_THAT(msg, HasSubstr(plugin_file("abi_mismatch")));
  EXPECT_THAT(msg, HasSubstr("Ember ABI 999"));
  EXPECT_THAT(msg, HasSubstr("has ABI " EMBER_STRINGIFY(EMBER_PLUGIN_ABI_VERSION)));
  load_error("abi_mismatch", PluginErrorKind::AbiMismatch);  // again, by name
  EXPECT_EQ(std::getenv("EMBER_TEST_CTOR_RAN"), nullptr) << "the plugin's constructor ran";
  EXPECT_FALSE(plugins::is_loaded("abi_mismatch"));
  expect_unchanged(before);
}

TEST(Plugins, FingerprintMismatchIsRefusedBeforeAnyPluginCodeRuns) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("fingerprint_mismatch"), PluginErrorKind::FingerprintMismatch);
  EXPECT_THAT(msg, HasSubstr("plugin 'fingerprint_mismatch'"));
  EXPECT_THAT(msg, HasSubstr(plugin_file("fingerprint_mismatch")));
  EXPECT_THAT(msg, HasSubstr("stdlib=libc++"));
  EXPECT_THAT(msg, HasSubstr("stdlib=libstdc++"));
  EXPECT_EQ(std::getenv("EMBER_TEST_CTOR_RAN"), nullptr) << "the plugin's constructor ran";
  expect_unchanged(before);
}

TEST(Plugins, MissingDependency) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("missing_dep"), PluginErrorKind::MissingDependency);
  EXPECT_THAT(msg, HasSubstr("plugin 'missing_dep'"));
  EXPECT_THAT(msg, HasSubstr(plugin_file("missing_dep")));
  EXPECT_THAT(msg, HasSubstr("'no_such_plugin'"));
  EXPECT_THAT(msg, HasSubstr(kDir));  // the search path
  EXPECT_EQ(std::getenv("EMBER_TEST_CTOR_RAN"), nullptr);
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tmissing::f").has_value());
  expect_unchanged(before);
}

TEST(Plugins, RefusedDependencyLoadsNothing) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error("bad_dep_user", PluginErrorKind::AbiMismatch);
  EXPECT_THAT(msg, HasSubstr("plugin 'abi_mismatch'"));
  EXPECT_THAT(msg, HasSubstr("needed by plugin 'bad_dep_user'"));
  EXPECT_EQ(std::getenv("EMBER_TEST_CTOR_RAN"), nullptr);
  expect_unchanged(before);
}

TEST(Plugins, DependencyCycle) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error("cycle_a", PluginErrorKind::DependencyCycle);
  EXPECT_THAT(msg, HasSubstr("'cycle_a' -> 'cycle_b' -> 'cycle_a'"));
  EXPECT_FALSE(plugins::is_loaded("cycle_a"));
  EXPECT_FALSE(plugins::is_loaded("cycle_b"));
  expect_unchanged(before);
}

TEST(Plugins, ThrowingRegistrationIsUndone) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("throws"), PluginErrorKind::RegistrationFailed);
  EXPECT_THAT(msg, HasSubstr("plugin 'throws'"));
  EXPECT_THAT(msg, HasSubstr(plugin_file("throws")));
  EXPECT_THAT(msg, HasSubstr("boom"));
  EXPECT_THAT(msg, HasSubstr(source_line_of("throws.cpp", "EMBER_LIBRARY_IMPL(tthrow")));
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tthrow::a").has_value());
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tthrow::b").has_value());
  EXPECT_FALSE(plugins::is_loaded("throws"));
  expect_unchanged(before);

  // Nothing of the failed attempt lingers: a retry fails the same way.
  msg = load_error(plugin_file("throws"), PluginErrorKind::RegistrationFailed);
  EXPECT_THAT(msg, HasSubstr("boom"));
  expect_unchanged(before);
}

// Polls findSchema(op) on another thread while `load` runs; returns what it saw.
struct Watcher {
  std::atomic<bool> stop{false};
  std::atomic<int> seen{0};
  std::string failure;  // written by the watcher thread, read after join
  std::thread thread;
  template <class OnSeen>
  Watcher(const char* op, OnSeen on_seen) {
    thread = std::thread([this, op, on_seen] {
      while (!stop.load()) {
        auto h = Dispatcher::singleton().findSchema(op);
        if (!h) continue;
        ++seen;
        try {
          on_seen(*h);
        } catch (const std::exception& e) {
          failure = e.what();
        }
        return;
      }
    });
  }
  void join() {
    stop = true;
    thread.join();
  }
};

TEST(Plugins, ALoadingPluginIsSeenWholeOrNotAtAll) {
  // Once a lookup finds one of its operators, every operator and kernel of the plugin is there.
  Tensor x = float_tensor({1.f, 2.f});
  Watcher w("tslow::a", [&](const OperatorHandle& a) {
    auto b = Dispatcher::singleton().findSchemaOrThrow("tslow::b", "");
    EMBER_CHECK(a.typed<Tensor(const Tensor&)>().call(x).is_same(x), "a");
    EMBER_CHECK(b.typed<Tensor(const Tensor&)>().call(x).is_same(x), "b");
  });
  Dispatcher::Stats before = Dispatcher::singleton().stats();
  plugins::load(plugin_file("slow"));
  Dispatcher::Stats after = Dispatcher::singleton().stats();
  for (int i = 0; i < 500 && w.seen == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  w.join();
  EXPECT_EQ(w.seen, 1);
  EXPECT_EQ(w.failure, "");
  // Three blocks, two operators: each operator's table is built once, when the plugin is done.
  EXPECT_EQ(after.tables_built - before.tables_built, 2u);
  EXPECT_EQ(after.operators - before.operators, 2u);
  EXPECT_EQ(after.retired_tables, before.retired_tables);
}

TEST(Plugins, AFailedPluginIsNeverSeenAndItsFunctorsGoBeforeItIsUnloaded) {
  Snapshot before = Snapshot::take();
  Dispatcher::Stats stats_before = Dispatcher::singleton().stats();
  Watcher w("tlate::a", [](const OperatorHandle&) {});
  std::string msg = load_error(plugin_file("throws_late"), PluginErrorKind::RegistrationFailed);
  w.join();
  EXPECT_THAT(msg, HasSubstr("late boom"));
  EXPECT_EQ(w.seen, 0) << "another thread saw an operator of a plugin that failed to load";
  // The kernel's functor (plugin code) was destroyed before the plugin was unloaded, not kept.
  const char* probes = std::getenv("EMBER_TEST_PROBES");
  EXPECT_STREQ(probes ? probes : "<unset>", "0");
  Dispatcher::Stats stats_after = Dispatcher::singleton().stats();
  EXPECT_EQ(stats_after.tables_built, stats_before.tables_built);
  EXPECT_EQ(stats_after.retired_functors, stats_before.retired_functors);
  expect_unchanged(before);
}

TEST(Plugins, ConflictingSchemaNamesBothPlugins) {
  plugins::load(plugin_file("good"));
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("conflict"), PluginErrorKind::Conflict);
  EXPECT_THAT(msg, HasSubstr("'good'"));
  EXPECT_THAT(msg, HasSubstr("'conflict'"));
  EXPECT_THAT(msg, HasSubstr("tgood::twice"));
  // What the block registered before the conflicting def is undone too.
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tgood::conflict_only").has_value());
  EXPECT_FALSE(plugins::is_loaded("conflict"));
  expect_unchanged(before);
}

TEST(Plugins, ConflictingKernelNamesBothPlugins) {
  plugins::load(plugin_file("good"));
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("conflict_kernel"), PluginErrorKind::Conflict);
  EXPECT_THAT(msg, HasSubstr("'good'"));
  EXPECT_THAT(msg, HasSubstr("'conflict_kernel'"));
  EXPECT_FALSE(plugins::is_loaded("conflict_kernel"));
  expect_unchanged(before);
}

TEST(Plugins, UndefinedSymbolFailsToLoad) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("undefined_symbol"), PluginErrorKind::LoadFailed);
  EXPECT_THAT(msg, HasSubstr("plugin 'undefined_symbol'"));
  EXPECT_THAT(msg, HasSubstr(plugin_file("undefined_symbol")));
  EXPECT_THAT(msg, HasSubstr("undefined symbol"));
  EXPECT_THAT(msg, HasSubstr("ember_symbol_that_is_nowhere"));
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tundef::f").has_value());
  expect_unchanged(before);
}

TEST(Plugins, KernelsForADeviceTypeRegisteredByName) {
  plugins::load(plugin_file("mydev"));
  const std::optional<DeviceType> t = find_device_type("mydev");
  ASSERT_TRUE(t.has_value());
  const DispatchKey dense = make_dispatch_key(Functionality::Dense, *t);
  const DispatchKey autograd = make_dispatch_key(Functionality::Autograd, *t);
  auto op = Dispatcher::singleton().findSchemaOrThrow("tmydev::mark", "");
  // Registered under the keys the names resolved to, with provenance.
  const std::string dump = op.dump_table();
  EXPECT_THAT(dump, HasSubstr("mydev: 'mydev'"));
  EXPECT_THAT(dump, HasSubstr("Autogradmydev: 'mydev'"));
  EXPECT_THAT(dump, HasSubstr(source_line_of("mydev.cpp", "return fill(x, 1)")));
  EXPECT_THAT(dump, HasSubstr(source_line_of("mydev.cpp", "return fill(x, 2)")));
  EXPECT_EQ(to_string(dense), "mydev");

  auto mark = op.typed<Tensor(const Tensor&)>();
  Tensor x = make_empty({3}, kFloat32, Device(*t, 0));
  EXPECT_EQ(x.key_set(), DispatchKeySet(dense));
  Tensor y = mark.call(x);
  EXPECT_EQ(y.device(), Device(*t, 0));
  EXPECT_EQ(y.data_ptr<float>()[2], 1.0f);  // the dense kernel
  x.unsafeGetTensorImpl()->add_keys(DispatchKeySet::of(Functionality::Autograd));
  EXPECT_EQ(x.key_set(), DispatchKeySet(dense) | DispatchKeySet(autograd));
  EXPECT_EQ(mark.call(x).data_ptr<float>()[0], 2.0f);  // the Autograd kernel
  // Not for CPU: the kernels are mydev's only.
  EXPECT_THROW(mark.call(make_empty({1}, kFloat32)), NotImplementedError);
}

TEST(Plugins, KernelsForAnUnknownDeviceTypeFailTheLoad) {
  Snapshot before = Snapshot::take();
  std::string msg = load_error(plugin_file("unknown_device"), PluginErrorKind::RegistrationFailed);
  EXPECT_THAT(msg, HasSubstr("EMBER_LIBRARY_IMPL_DEVICE(tunkdev, \"nosuchdev\")"));
  EXPECT_THAT(msg, HasSubstr(source_line_of("unknown_device.cpp", "EMBER_LIBRARY_IMPL_DEVICE(tunkdev")));
  EXPECT_THAT(msg, HasSubstr("unknown device type 'nosuchdev' (known: cpu, cuda, hip, meta"));
  EXPECT_THAT(msg, HasSubstr("register it with ember::register_device_type(\"nosuchdev\")"));
  EXPECT_FALSE(Dispatcher::singleton().findSchema("tunkdev::f").has_value());  // the def is undone too
  EXPECT_FALSE(plugins::is_loaded("unknown_device"));
  expect_unchanged(before);
}

TEST(Plugins, SearchPath) {
  const char* saved = std::getenv("EMBER_PLUGIN_PATH");
  std::string keep = saved ? saved : "";
  setenv("EMBER_PLUGIN_PATH", "/opt/a:/opt/b/::/opt/a", 1);
  auto dirs = plugins::search_path();
  setenv("EMBER_PLUGIN_PATH", keep.c_str(), 1);

  ASSERT_GE(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], "/opt/a");
  EXPECT_EQ(dirs[1], "/opt/b");
  // Then the plugins directory beside libember (the build tree has the install's layout).
  EXPECT_TRUE(fs::path(dirs[2]).filename() == "plugins" && fs::path(dirs[2]).parent_path().filename() == "ember")
      << dirs[2];
  EXPECT_EQ(std::count(dirs.begin(), dirs.end(), "/opt/a"), 1);
}

TEST(Plugins, DefaultPluginsAreOffInThisTest) {
  ensure_initialized();  // what the first use of the dispatcher runs
  for (const char* name : {"cpu", "autograd", "nn"}) EXPECT_FALSE(plugins::is_loaded(name)) << name;
}

TEST(Plugins, AvailableReadsNotesWithoutLoading) {
  plugins::load(plugin_file("good"));
  auto list = plugins::available();
  auto find = [&](const std::string& name) -> const plugins::AvailablePlugin* {
    for (const auto& a : list)
      if (a.info.path == plugin_file(name)) return &a;
    return nullptr;
  };
  for (const char* name : {"good", "good_dep", "plain", "abi_mismatch", "fingerprint_mismatch", "not_a_plugin",
                           "garbage", "missing_dep", "bad_dep_user", "cycle_a"})
    ASSERT_NE(find(name), nullptr) << name << " not listed";

  const auto* good = find("good");
  EXPECT_EQ(good->info.name, "good");
  EXPECT_EQ(good->info.version, "2.0.0");
  EXPECT_EQ(good->info.dependencies, std::vector<std::string>{"good_dep"});
  EXPECT_TRUE(good->loaded);
  EXPECT_EQ(good->abi_version, uint32_t{EMBER_PLUGIN_ABI_VERSION});
  EXPECT_EQ(good->fingerprint, EMBER_BUILD_FINGERPRINT);
  EXPECT_EQ(good->problem, "");
  EXPECT_TRUE(find("good_dep")->loaded);
  EXPECT_EQ(find("plain")->info.name, "plain");
  EXPECT_EQ(find("plain")->problem, "");
  EXPECT_EQ(find("plain")->loaded, plugins::is_loaded("plain"));

  EXPECT_FALSE(find("abi_mismatch")->loaded);
  EXPECT_EQ(find("abi_mismatch")->abi_version, 999u);
  EXPECT_THAT(find("abi_mismatch")->problem, HasSubstr("999"));
  EXPECT_THAT(find("fingerprint_mismatch")->problem, HasSubstr("libc++"));
  EXPECT_THAT(find("not_a_plugin")->problem, HasSubstr("not an Ember plugin"));
  EXPECT_THAT(find("garbage")->problem, HasSubstr("not a shared library"));
  EXPECT_THAT(find("missing_dep")->problem, HasSubstr("no_such_plugin"));
  EXPECT_THAT(find("bad_dep_user")->problem, HasSubstr("abi_mismatch"));
  EXPECT_THAT(find("cycle_a")->problem, HasSubstr("cycle_b"));
  EXPECT_EQ(std::getenv("EMBER_TEST_CTOR_RAN"), nullptr) << "available() ran plugin code";
}

TEST(Plugins, ReadDescriptor) {
  auto good = plugins::read_descriptor(plugin_file("good"));
  EXPECT_TRUE(good.has_build_note);
  EXPECT_EQ(good.abi_version, uint32_t{EMBER_PLUGIN_ABI_VERSION});
  EXPECT_EQ(good.fingerprint, EMBER_BUILD_FINGERPRINT);
  EXPECT_TRUE(good.has_plugin_note);
  EXPECT_EQ(good.name, "good");
  EXPECT_EQ(good.version, "2.0.0");
  EXPECT_EQ(good.dependencies, std::vector<std::string>{"good_dep"});

  auto plain = plugins::read_descriptor(plugin_file("plain"));
  EXPECT_TRUE(plain.has_build_note);
  EXPECT_FALSE(plain.has_plugin_note);

  auto none = plugins::read_descriptor(plugin_file("not_a_plugin"));
  EXPECT_FALSE(none.has_build_note);
  EXPECT_FALSE(none.has_plugin_note);

  try {
    plugins::read_descriptor(plugin_file("garbage"));
    ADD_FAILURE() << "garbage read";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.kind(), PluginErrorKind::NotSharedLibrary);
  }
  try {
    plugins::read_descriptor(kDir + "/libnope.so");
    ADD_FAILURE() << "missing file read";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.kind(), PluginErrorKind::NotFound);
    EXPECT_THAT(e.what(), HasSubstr(kDir + "/libnope.so"));
  }
}

// Damaged files (cut short, bytes flipped in the headers and notes) give a descriptor or a
// PluginError, never a crash (run it under ASan to see out-of-bounds reads).
TEST(Plugins, ReadDescriptorSurvivesDamagedFiles) {
  std::ifstream in(plugin_file("good"), std::ios::binary);
  const std::vector<char> orig((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(orig.size(), 4096u);
  TempDir tmp;
  const std::string path = (tmp.path / "libdamaged.so").string();
  std::mt19937 rng(1234);
  int refused = 0;
  for (int iter = 0; iter < 600; ++iter) {
    std::vector<char> bytes = orig;
    if (iter % 3 == 0) bytes.resize(rng() % bytes.size());
    for (int k = 0, n = 1 + static_cast<int>(rng() % 16); k < n && !bytes.empty(); ++k) {
      size_t size = bytes.size();
      size_t region = iter % 4 == 0 ? 64 : iter % 4 == 1 ? 1024 : size;
      size_t pos = rng() % std::min(size, region);
      if (iter % 4 == 2) pos = size - 1 - pos % std::min<size_t>(size, 4096);  // section headers
      bytes[pos] = static_cast<char>(rng());
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
    try {
      plugins::read_descriptor(path);
    } catch (const PluginError& e) {
      ++refused;
      EXPECT_TRUE(e.kind() == PluginErrorKind::NotSharedLibrary) << e.what();
    }
  }
  EXPECT_GT(refused, 0);
}

TEST(Plugins, ConcurrentLoadsOfOnePluginLoadItOnce) {
  std::vector<std::thread> threads;
  std::vector<plugins::PluginInfo> got(4);
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = plugins::load(i % 2 ? "good" : plugin_file("good")); });
  for (auto& t : threads) t.join();
  for (const auto& info : got) EXPECT_EQ(info.path, plugin_file("good"));
  auto list = plugins::loaded();
  EXPECT_EQ(std::count_if(list.begin(), list.end(), [](auto& p) { return p.name == "good"; }), 1);
  EXPECT_NE(find_loaded(list, "good_dep"), nullptr);
}

}  // namespace
}  // namespace ember

int main(int argc, char** argv) {
  // Only the test plugins take part: no default plugins, and dependencies found by name here.
  setenv("EMBER_DEFAULT_PLUGINS", "", 1);
  setenv("EMBER_PLUGIN_PATH", EMBER_TEST_PLUGIN_DIR, 1);
  unsetenv("EMBER_TEST_CTOR_RAN");
  unsetenv("EMBER_TEST_PROBES");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
