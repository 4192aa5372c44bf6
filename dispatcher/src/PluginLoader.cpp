// The plugin loader. See Note [Plugin loading] in ember/dispatcher/Plugins.h.
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include <boost/dll/shared_library.hpp>
#include <fmt/ranges.h>

#include "ElfNoteReader.h"
#include "Registration.h"
#include "ember/dispatcher/Dispatcher.h"
#include "ember/dispatcher/Plugins.h"
#include "ember/dispatcher/ElfNotes.h"

#ifndef EMBER_PLUGIN_SUBDIR_FROM_LIB
#define EMBER_PLUGIN_SUBDIR_FROM_LIB "ember/plugins"
#endif

namespace fs = std::filesystem;

namespace ember::plugins {

PluginError::PluginError(PluginErrorKind kind, std::string msg)
    : Error(std::move(msg), "PluginError"), kind_(kind) {}

const char* to_string(PluginErrorKind kind) {
  switch (kind) {
    case PluginErrorKind::NotFound: return "NotFound";
    case PluginErrorKind::NotSharedLibrary: return "NotSharedLibrary";
    case PluginErrorKind::NotAPlugin: return "NotAPlugin";
    case PluginErrorKind::AbiMismatch: return "AbiMismatch";
    case PluginErrorKind::FingerprintMismatch: return "FingerprintMismatch";
    case PluginErrorKind::MissingDependency: return "MissingDependency";
    case PluginErrorKind::DependencyCycle: return "DependencyCycle";
    case PluginErrorKind::LoadFailed: return "LoadFailed";
    case PluginErrorKind::RegistrationFailed: return "RegistrationFailed";
    case PluginErrorKind::Conflict: return "Conflict";
  }
  return "?";
}

namespace {

constexpr const char* kWho = "[plugins::load]";

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};

std::optional<FileId> file_id(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

struct LoadedPlugin {
  PluginInfo info;
  std::string canonical;
  FileId id;
  boost::dll::shared_library lib;
};

struct State {
  std::recursive_mutex mu;  // recursive: registration code may call back into plugins::
  std::vector<std::unique_ptr<LoadedPlugin>> plugins;  // load order
  bool defaults_done = false;
  bool defaults_running = false;
};

// Never destroyed: plugins are never unloaded in this version (kernels, schemas and storages
// may point into them until the process ends), so their handles must outlive every static.
State& state() {
  static auto* s = new State;
  return *s;
}

// load() calls nested inside load() / load_default_plugins() on this thread.
thread_local int t_depth = 0;
struct DepthGuard {
  DepthGuard() { ++t_depth; }
  ~DepthGuard() { --t_depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};

std::vector<std::string> split(std::string_view s, std::string_view seps) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find_first_of(seps, pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view part = s.substr(pos, end - pos);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
    pos = end + 1;
  }
  return out;
}

// Note [Plugin file names]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Ember's own plugins are files libember-<name>.so: a bare lib<name>.so would collide with
// system libraries (libcuda.so is the NVIDIA driver's). A load by name looks for
// libember-<name>.so in each search directory, then lib<name>.so (third-party plugins); the
// plugin's name is its EMBER_PLUGIN note's, else the file name without either prefix.
constexpr std::string_view kEmberPrefix = "libember-";

PluginInfo info_from(const PluginDescriptor& d, const fs::path& path) {
  PluginInfo info;
  info.name = d.has_plugin_note && !d.name.empty() ? d.name : detail::plugin_name_from_file(path.string());
  info.version = d.has_plugin_note && !d.version.empty() ? d.version : "0";
  info.dependencies = d.dependencies;
  info.path = path.string();
  return info;
}

std::map<std::string, std::string> parse_fingerprint(std::string_view fp) {
  std::map<std::string, std::string> out;
  for (const auto& field : split(fp, ";")) {
    size_t eq = field.find('=');
    if (eq == std::string::npos) continue;
    out[field.substr(0, eq)] = field.substr(eq + 1);
  }
  return out;
}

// Why a descriptor cannot be loaded into this libember, as a clause ("built for Ember ABI 999,
// this libember has ABI 1"); nullopt when it can.
struct Problem {
  PluginErrorKind kind;
  std::string what;
};
std::optional<Problem> check_descriptor(const PluginDescriptor& d) {
  if (!d.has_build_note) {
    return Problem{PluginErrorKind::NotAPlugin,
                   d.has_plugin_note
                       ? "not an Ember plugin: it has an EMBER_PLUGIN note but no Ember build "
                         "note, which every EMBER_LIBRARY / EMBER_LIBRARY_IMPL block emits"
                       : "not an Ember plugin: it has no Ember build note (.note.ember type 2); "
                         "a plugin registers its operators with EMBER_LIBRARY / "
                         "EMBER_LIBRARY_IMPL from <ember/plugin/Plugin.h>"};
  }
  if (d.abi_version != EMBER_PLUGIN_ABI_VERSION) {
    return Problem{PluginErrorKind::AbiMismatch,
                   fmt::format("built for Ember ABI {}, this libember has ABI {}; rebuild it "
                               "against this Ember",
                               d.abi_version, EMBER_PLUGIN_ABI_VERSION)};
  }
  // The compiler is informational: GCC and Clang share the Itanium C++ ABI.
  const std::string ours = ember::detail::build_fingerprint();
  auto theirs_f = parse_fingerprint(d.fingerprint), ours_f = parse_fingerprint(ours);
  std::vector<std::string> diffs;
  for (const char* key : {"stdlib", "cxx11abi", "ember"}) {
    auto t = theirs_f.find(key), o = ours_f.find(key);
    std::string tv = t == theirs_f.end() ? "<missing>" : t->second;
    std::string ov = o == ours_f.end() ? "<missing>" : o->second;
    if (tv != ov) diffs.push_back(fmt::format("{}={}, this libember with {}={}", key, tv, key, ov));
  }
  if (!diffs.empty()) {
    return Problem{PluginErrorKind::FingerprintMismatch,
                   fmt::format("built with {} (plugin fingerprint '{}', libember '{}'); rebuild "
                               "it with the same standard library and Ember version",
                               fmt::join(diffs, "; "), d.fingerprint, ours)};
  }
  return std::nullopt;
}

fs::path normalized_dir(const std::string& s) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(s), ec);
  if (ec) p = s;
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();  // drop a trailing '/'
  return p;
}

std::optional<fs::path> find_by_name(const std::vector<std::string>& dirs, std::string_view name) {
  for (const auto& dir : dirs) {
    for (const char* pattern : {"libember-{}.so", "lib{}.so"}) {  // Note [Plugin file names]
      fs::path p = fs::path(dir) / fmt::format(fmt::runtime(pattern), name);
      std::error_code ec;
      if (fs::is_regular_file(p, ec)) return p;  // follows symlinks
    }
  }
  return std::nullopt;
}

LoadedPlugin* find_loaded_by_name(State& s, std::string_view name) {
  for (auto& p : s.plugins)
    if (p->info.name == name) return p.get();
  return nullptr;
}

LoadedPlugin* find_loaded_by_file(State& s, const std::string& canonical, const FileId& id) {
  for (auto& p : s.plugins)
    if (p->canonical == canonical || p->id == id) return p.get();
  return nullptr;
}

// One plugin of a load() call, checked and waiting to be opened.
struct Candidate {
  fs::path path;
  std::string canonical;
  FileId id;
  PluginInfo info;
};

// Resolves a load() request into the plugins to open, dependencies first, checking every one
// from its notes before any is opened.
class Planner {
 public:
  explicit Planner(State& s) : s_(s) {}

  const std::vector<std::string>& dirs() {
    if (!dirs_) dirs_ = search_path();
    return *dirs_;
  }

  // The plugin in `file`: already loaded (its info) or planned (appended to order()).
  PluginInfo visit(const fs::path& file) {
    std::error_code ec;
    fs::path abs = fs::absolute(file, ec);
    if (ec) abs = file;
    abs = abs.lexically_normal();
    if (!fs::exists(abs, ec)) {
      throw PluginError(PluginErrorKind::NotFound,
                        fmt::format("{} no plugin file at '{}'", kWho, abs.string()));
    }
    std::string canonical = fs::canonical(abs, ec).string();
    if (ec) canonical = abs.string();
    auto id = file_id(abs);
    if (!id) {
      throw PluginError(PluginErrorKind::NotFound,
                        fmt::format("{} cannot stat plugin file '{}'", kWho, abs.string()));
    }
    if (auto* l = find_loaded_by_file(s_, canonical, *id)) return l->info;
    for (const auto& c : order_)
      if (c.canonical == canonical || c.id == *id) return c.info;
    for (const auto& [name, c] : stack_) {
      if (c == canonical) {
        throw PluginError(PluginErrorKind::DependencyCycle,
                          fmt::format("{} plugin dependency cycle: {} -> '{}'", kWho,
                                      chain(), abs.string()));
      }
    }

    // Nothing of the file runs before these checks pass.
    PluginDescriptor d = detail::read_descriptor(abs.string(), kWho);
    PluginInfo info = info_from(d, abs);
    if (auto p = check_descriptor(d)) {
      if (p->kind == PluginErrorKind::NotAPlugin)
        throw PluginError(p->kind, fmt::format("{} '{}' is {}", kWho, info.path, p->what));
      throw PluginError(p->kind, fmt::format("{} plugin '{}' ({}) was {}", kWho, info.name,
                                             info.path, p->what));
    }
    // Plugins are known by name (dependencies, is_loaded): two files may not share one.
    const std::string* other = nullptr;
    if (auto* l = find_loaded_by_name(s_, info.name)) other = &l->info.path;
    for (const auto& c : order_)
      if (c.info.name == info.name) other = &c.info.path;
    if (other) {
      throw PluginError(PluginErrorKind::Conflict,
                        fmt::format("{} plugin '{}' ({}) has the same name as plugin '{}' from "
                                    "another file ({})",
                                    kWho, info.name, info.path, info.name, *other));
    }

    stack_.emplace_back(info.name, canonical);
    for (const auto& dep : info.dependencies) visit_dependency(info, dep);
    stack_.pop_back();
    order_.push_back(Candidate{abs, canonical, *id, info});
    return info;
  }

  const std::vector<Candidate>& order() const { return order_; }

 private:
  void visit_dependency(const PluginInfo& of, const std::string& dep) {
    for (const auto& [name, c] : stack_) {
      if (name == dep) {
        throw PluginError(PluginErrorKind::DependencyCycle,
                          fmt::format("{} plugin dependency cycle: {} -> '{}'", kWho, chain(), dep));
      }
    }
    if (find_loaded_by_name(s_, dep)) return;
    for (const auto& c : order_)
      if (c.info.name == dep) return;
    auto file = find_by_name(dirs(), dep);
    if (!file) {
      throw PluginError(
          PluginErrorKind::MissingDependency,
          fmt::format("{} plugin '{}' ({}) needs plugin '{}', but no lib{}.so is in the plugin "
                      "search path ({}); set EMBER_PLUGIN_PATH to the directory that holds it",
                      kWho, of.name, of.path, dep, dep, fmt::join(dirs(), ":")));
    }
    PluginInfo got;
    try {
      got = visit(*file);
    } catch (const PluginError& e) {
      if (e.kind() == PluginErrorKind::DependencyCycle) throw;  // the chain names everyone
      throw PluginError(e.kind(), fmt::format("{} (needed by plugin '{}' ({}))", e.what(),
                                              of.name, of.path));
    }
    if (got.name != dep) {
      throw PluginError(PluginErrorKind::MissingDependency,
                        fmt::format("{} plugin '{}' ({}) needs plugin '{}', but {} is plugin '{}'",
                                    kWho, of.name, of.path, dep, file->string(), got.name));
    }
  }

  std::string chain() const {
    std::vector<std::string> names;
    for (const auto& [name, c] : stack_) names.push_back("'" + name + "'");
    return fmt::format("{}", fmt::join(names, " -> "));
  }

  State& s_;
  std::optional<std::vector<std::string>> dirs_;
  std::vector<std::pair<std::string, std::string>> stack_;  // (name, canonical) being resolved
  std::vector<Candidate> order_;
};

bool env_is(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v && value == v;
}

// Opens one checked plugin and runs its registration records; nothing stays behind on failure.
void open_and_register(State& s, const Candidate& c) {
  namespace mode = boost::dll::load_mode;
  auto flags = mode::rtld_now | mode::rtld_local;
  // Under sanitizers a plugin must stay mapped so leak reports can name its frames.
  if (env_is("EMBER_PLUGIN_NODELETE", "1")) flags = flags | static_cast<mode::type>(RTLD_NODELETE);

  boost::dll::shared_library lib;
  boost::dll::fs::error_code ec;
  ::dlerror();
  lib.load(boost::dll::fs::path(c.canonical), ec, flags);
  if (ec || !lib.is_loaded()) {
    const char* why = ::dlerror();
    throw PluginError(PluginErrorKind::LoadFailed,
                      fmt::format("{} plugin '{}' ({}) could not be loaded: {}", kWho, c.info.name,
                                  c.info.path, why ? why : ec.message()));
  }
  link_map* lm = nullptr;
  if (::dlinfo(lib.native(), RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr) {
    lib.unload();
    throw PluginError(PluginErrorKind::LoadFailed,
                      fmt::format("{} plugin '{}' ({}): dlinfo could not find its load address",
                                  kWho, c.info.name, c.info.path));
  }
  if (lm->l_name == nullptr || lm->l_name[0] == '\0') {
    // Boost.DLL falls back to dlopen(NULL) when asked for the running executable.
    lib.unload();
    throw PluginError(PluginErrorKind::LoadFailed,
                      fmt::format("{} '{}' is the running program, not a plugin", kWho,
                                  c.info.path));
  }

  try {
    ember::detail::run_object_records(static_cast<uintptr_t>(lm->l_addr), c.info.name);
  } catch (const ember::detail::RegistrationBlockError& e) {
    lib.unload();
    throw PluginError(e.is_conflict() ? PluginErrorKind::Conflict
                                      : PluginErrorKind::RegistrationFailed,
                      fmt::format("{} plugin '{}' ({}) failed to register and was unloaded; "
                                  "nothing it registered remains: {}",
                                  kWho, c.info.name, c.info.path, e.what()));
  } catch (const std::exception& e) {
    lib.unload();
    throw PluginError(PluginErrorKind::RegistrationFailed,
                      fmt::format("{} plugin '{}' ({}) failed to register and was unloaded: {}",
                                  kWho, c.info.name, c.info.path, e.what()));
  }
  s.plugins.push_back(
      std::make_unique<LoadedPlugin>(LoadedPlugin{c.info, c.canonical, c.id, std::move(lib)}));
}

}  // namespace

std::vector<std::string> search_path() {
  std::vector<std::string> dirs;
  auto add = [&](const fs::path& p) {
    for (const auto& d : dirs) {
      std::error_code ec;
      if (d == p.string() || fs::equivalent(d, p, ec)) return;
    }
    dirs.push_back(p.string());
  };
  if (const char* env = std::getenv("EMBER_PLUGIN_PATH")) {
    for (const auto& entry : split(env, ":")) add(normalized_dir(entry));
  }
  // The plugins installed with this libember sit in <its directory>/ember/plugins.
  static const char anchor = 0;
  Dl_info dl{};
  fs::path lib_dir;
  if (::dladdr(&anchor, &dl) != 0 && dl.dli_fname != nullptr && dl.dli_fname[0] != '\0') {
    std::error_code ec;
    fs::path lib = fs::weakly_canonical(fs::absolute(dl.dli_fname, ec), ec);
    if (!ec) {
      lib_dir = lib.parent_path();
      add(lib_dir / EMBER_PLUGIN_SUBDIR_FROM_LIB);
    }
  }
#if defined(EMBER_BUILD_TREE_PLUGIN_DIR) && defined(EMBER_BUILD_TREE_LIB_DIR)
  // The build tree's plugins, only for the libember of that build tree: an installed copy must
  // never pick up plugins from the tree it was built in.
  {
    std::error_code ec;
    if (!lib_dir.empty() && fs::equivalent(lib_dir, EMBER_BUILD_TREE_LIB_DIR, ec) &&
        fs::is_directory(EMBER_BUILD_TREE_PLUGIN_DIR, ec))
      add(normalized_dir(EMBER_BUILD_TREE_PLUGIN_DIR));
  }
#endif
  return dirs;
}

PluginInfo load(std::string_view name_or_path) {
  // Loading a plugin uses the dispatcher: linked libraries and the default plugins go first,
  // unless this call is itself part of that start-up (or of another load) on this thread.
  if (t_depth == 0) ember::ensure_initialized();
  DepthGuard depth;
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);

  Planner plan(s);
  PluginInfo result;
  if (name_or_path.find('/') != std::string_view::npos) {
    result = plan.visit(fs::path(name_or_path));
  } else {
    if (name_or_path.empty())
      throw PluginError(PluginErrorKind::NotFound, fmt::format("{} empty plugin name", kWho));
    if (auto* l = find_loaded_by_name(s, name_or_path)) return l->info;
    auto file = find_by_name(plan.dirs(), name_or_path);
    if (!file) {
      throw PluginError(
          PluginErrorKind::NotFound,
          fmt::format("{} plugin '{}' not found: no lib{}.so in the plugin search path ({}); set "
                      "EMBER_PLUGIN_PATH to the directory that holds it, or pass a path",
                      kWho, name_or_path, name_or_path, fmt::join(plan.dirs(), ":")));
    }
    result = plan.visit(*file);
    if (result.name != name_or_path) {
      throw PluginError(PluginErrorKind::NotFound,
                        fmt::format("{} plugin '{}' not found: {} is plugin '{}'", kWho,
                                    name_or_path, file->string(), result.name));
    }
  }
  if (plan.order().empty()) return result;  // that file is loaded already

  // Dependencies first. One that loaded stays loaded if a later one fails: its registrations
  // are complete and valid on their own.
  for (const auto& c : plan.order()) open_and_register(s, c);

  // The plugins may have pulled in other shared libraries that carry registration records.
  try {
    ember::detail::run_all_linked_records();
  } catch (const ember::detail::RegistrationBlockError& e) {
    throw PluginError(e.is_conflict() ? PluginErrorKind::Conflict
                                      : PluginErrorKind::RegistrationFailed,
                      fmt::format("{} plugin '{}' ({}) loaded, but a library it pulled in failed "
                                  "to register: {}",
                                  kWho, result.name, result.path, e.what()));
  }
  return result;
}

std::vector<PluginInfo> loaded() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  std::vector<PluginInfo> out;
  out.reserve(s.plugins.size());
  for (const auto& p : s.plugins) out.push_back(p->info);
  return out;
}

bool is_loaded(std::string_view name) {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  return find_loaded_by_name(s, name) != nullptr;
}

std::vector<AvailablePlugin> available() {
  std::vector<std::pair<std::string, FileId>> loaded_files;
  {
    State& s = state();
    std::lock_guard<std::recursive_mutex> lock(s.mu);
    for (const auto& p : s.plugins) loaded_files.emplace_back(p->canonical, p->id);
  }
  std::vector<AvailablePlugin> out;
  std::vector<FileId> seen;
  std::map<std::string, size_t> first_by_name;  // name -> the entry a load by name finds
  for (const auto& dir : search_path()) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::string f = it->path().filename().string();
      std::error_code file_ec;
      if (f.size() > 6 && f.compare(0, 3, "lib") == 0 && f.compare(f.size() - 3, 3, ".so") == 0 &&
          fs::is_regular_file(it->path(), file_ec))
        files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto id = file_id(file);
      if (!id || std::find(seen.begin(), seen.end(), *id) != seen.end()) continue;
      seen.push_back(*id);

      AvailablePlugin a;
      a.info.path = file.string();
      a.info.name = detail::plugin_name_from_file(file.string());
      std::error_code canon_ec;
      std::string canonical = fs::canonical(file, canon_ec).string();
      for (const auto& [c, i] : loaded_files)
        if (c == canonical || i == *id) a.loaded = true;
      try {
        PluginDescriptor d = detail::read_descriptor(file.string(), "[plugins::available]");
        a.info = info_from(d, file);
        a.abi_version = d.abi_version;
        a.fingerprint = d.fingerprint;
        if (auto p = check_descriptor(d)) a.problem = p->what;
      } catch (const PluginError& e) {
        // The problem is shown beside the name and path: drop "[who] 'path' is ".
        std::string_view what = e.what();
        for (const std::string& lead : {std::string("[plugins::available] "),
                                        "'" + a.info.path + "' is "}) {
          if (what.substr(0, lead.size()) == lead) what.remove_prefix(lead.size());
        }
        a.problem = what;
      }
      // A load by name finds lib<name>.so in the first directory that has it.
      if (auto [it, fresh] = first_by_name.emplace(detail::plugin_name_from_file(file.string()), out.size());
          !fresh && !a.loaded && a.problem.empty())
        a.problem = fmt::format("shadowed by '{}', earlier on the search path",
                                out[it->second].info.path);
      out.push_back(std::move(a));
    }
  }
  // Dependencies must be loaded already or loadable by name, without a cycle.
  std::vector<int> state_of(out.size(), 0);  // 0 unvisited, 1 in progress, 2 done
  std::vector<std::string> chain;
  std::function<void(size_t)> check = [&](size_t i) {
    AvailablePlugin& a = out[i];
    state_of[i] = 1;
    chain.push_back(a.info.name);
    for (const auto& dep : a.info.dependencies) {
      if (!a.problem.empty() || a.loaded) break;
      if (is_loaded(dep)) continue;
      auto it = first_by_name.find(dep);
      if (it == first_by_name.end()) {
        a.problem = fmt::format("needs plugin '{}', which is not on the search path", dep);
      } else if (state_of[it->second] == 1) {
        a.problem = fmt::format("dependency cycle: {} -> {}", fmt::join(chain, " -> "), dep);
      } else {
        if (state_of[it->second] == 0) check(it->second);
        if (!out[it->second].problem.empty())
          a.problem = fmt::format("needs plugin '{}', which cannot be loaded", dep);
      }
    }
    chain.pop_back();
    state_of[i] = 2;
  };
  for (size_t i = 0; i < out.size(); ++i)
    if (state_of[i] == 0) check(i);
  return out;
}

namespace detail {

std::string plugin_name_from_file(const std::string& path) {
  std::string f = fs::path(path).filename().string();
  if (f.size() > kEmberPrefix.size() && f.compare(0, kEmberPrefix.size(), kEmberPrefix) == 0)
    f.erase(0, kEmberPrefix.size());
  else if (f.size() > 3 && f.compare(0, 3, "lib") == 0)
    f.erase(0, 3);
  for (size_t so = f.find(".so"); so != std::string::npos; so = f.find(".so", so + 1)) {
    if (so + 3 == f.size() || f[so + 3] == '.') {
      f.resize(so);
      break;
    }
  }
  return f.empty() ? fs::path(path).filename().string() : f;
}

void load_default_plugins() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  if (s.defaults_done || s.defaults_running) return;
  s.defaults_running = true;
  DepthGuard depth;
  struct Running {
    State& s;
    ~Running() { s.defaults_running = false; }
  } running{s};

  const char* env = std::getenv("EMBER_DEFAULT_PLUGINS");  // set but empty: none
  std::string defaults = "cpu,meta,autograd,nn,sparse,quantized";
  // cuda joins the set where an NVIDIA driver is present: loading it costs ~0.4 s (cudart,
  // cuBLAS), not worth paying on a machine that has no GPU.
  std::error_code ec;
  if (fs::exists("/dev/nvidiactl", ec) || fs::exists("/proc/driver/nvidia/version", ec)) defaults += ",cuda";
  auto names = split(env ? env : defaults, ",:");
  std::vector<std::string> dirs;
  if (!names.empty()) dirs = search_path();
  for (const auto& name : names) {
    if (find_loaded_by_name(s, name)) continue;
    if (!find_by_name(dirs, name)) continue;  // not built or not installed: not an error
    load(name);
  }
  s.defaults_done = true;
}

}  // namespace detail
}  // namespace ember::plugins
