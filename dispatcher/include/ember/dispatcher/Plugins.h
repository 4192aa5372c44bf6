#pragma once
// Loading plugins at run time, and reading a plugin file's descriptor without loading it.
//
// Note [Plugin loading]
// ~~~~~~~~~~~~~~~~~~~~~
// plugins::load(x) takes a path (anything containing '/') or a plugin name. A name is looked
// up as lib<name>.so in each directory of search_path(), in order: the entries of
// EMBER_PLUGIN_PATH (':'-separated), then <directory of libember.so>/ember/plugins (the
// install tree and the build tree share this layout), then the build tree's plugin directory
// when it exists and is a different directory.
//
// Before any plugin code runs (dlopen runs static constructors), the loader reads the file's
// ELF notes (see Note [Plugin notes]) and refuses:
//   - a file that is not an ELF64 shared object (NotSharedLibrary) or has no Ember build
//     note (NotAPlugin);
//   - a different plugin ABI version (AbiMismatch, exact compare) or a build fingerprint whose
//     standard library, dual-ABI flag or Ember major.minor differ (FingerprintMismatch; the
//     compiler is shown, not compared);
//   - a dependency that cannot be found (MissingDependency) or a dependency cycle
//     (DependencyCycle). The whole dependency graph is resolved and checked before the first
//     library of it is opened; dependencies are then loaded first, in dependency order.
// The same file is loaded once: a file already loaded (compared by canonical path and by
// device and inode, so symlinks and hard links count) returns the existing PluginInfo.
// Dependencies are matched by plugin name: a loaded plugin of that name satisfies them.
//
// A plugin is opened RTLD_NOW | RTLD_LOCAL (plus RTLD_NODELETE when EMBER_PLUGIN_NODELETE=1,
// so sanitizers can symbolize leaks from it), and then its registration records run as one
// transaction (see Note [Registration is published per object]): no other thread sees any of
// it until all of it registered; if a block throws, everything the plugin registered is undone
// (never having been published), its functors are destroyed, the library is closed and load()
// throws RegistrationFailed (Conflict when another registrant already holds what it
// registered). Dependencies that loaded
// successfully before the failing plugin stay loaded. Plugins are never unloaded in this
// version: kernels, schemas and allocations may point into them for the life of the process.
//
// All of this is serialized by one process-wide (recursive) mutex; registration code may call
// back into plugins::is_loaded / loaded / load.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/Exception.h"
#include "ember/core/Macros.h"

namespace ember::plugins {

struct PluginInfo {
  std::string name, version, path;
  std::vector<std::string> dependencies;
};

enum class PluginErrorKind {
  NotFound,             // no such file, or no libember-<name>.so or lib<name>.so on the search path
  NotSharedLibrary,     // not an ELF64 shared object (text, truncated, 32-bit, executable...)
  NotAPlugin,           // a shared object without an Ember build note
  AbiMismatch,          // built for another EMBER_PLUGIN_ABI_VERSION
  FingerprintMismatch,  // built with another standard library, dual ABI or Ember version
  MissingDependency,    // a dependency is not on the search path
  DependencyCycle,      // dependencies form a cycle
  LoadFailed,           // dlopen refused it (undefined symbol, missing DT_NEEDED library...)
  RegistrationFailed,   // a registration block threw; everything it did was undone
  Conflict,             // it registered something another registrant already holds
};

EMBER_API const char* to_string(PluginErrorKind kind);

class EMBER_API PluginError : public Error {
 public:
  PluginError(PluginErrorKind kind, std::string msg);
  PluginErrorKind kind() const { return kind_; }

 private:
  PluginErrorKind kind_;
};

// Loads a plugin (and its dependencies) by path or name; see Note [Plugin loading].
EMBER_API PluginInfo load(std::string_view name_or_path);
// The loaded plugins, in load order.
EMBER_API std::vector<PluginInfo> loaded();
EMBER_API bool is_loaded(std::string_view name);
// The directories searched for a plugin name, in order.
EMBER_API std::vector<std::string> search_path();

struct AvailablePlugin {
  PluginInfo info;
  bool loaded = false;
  uint32_t abi_version = 0;
  std::string fingerprint;
  std::string problem;  // why it would not load; empty when loadable
};
// Every lib*.so on the search path, described from its notes without opening it.
EMBER_API std::vector<AvailablePlugin> available();

// What a file's Ember notes say (see Note [Plugin notes]).
struct PluginDescriptor {
  bool has_build_note = false;
  uint32_t abi_version = 0;
  std::string fingerprint;
  bool has_plugin_note = false;
  std::string name, version;
  std::vector<std::string> dependencies;
};
// Reads a file's Ember notes without loading it. Throws PluginError NotFound (cannot open) or
// NotSharedLibrary (not an ELF64 shared object of this byte order, or truncated).
EMBER_API PluginDescriptor read_descriptor(const std::string& path);

}  // namespace ember::plugins
