#pragma once
// Internal: running the EMBER_LIBRARY* records of loaded objects. See Note [Registration records].
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/dispatcher/Library.h"

namespace ember::detail {

// A registration block threw while its object's records were being run; everything the object
// registered was undone first. what(): "[register] EMBER_LIBRARY_IMPL(myops, CPU) at f.cpp:12
// in 'owner' failed: <the block's error>".
class RegistrationBlockError : public Error {
 public:
  RegistrationBlockError(std::string msg, bool conflict) : Error(std::move(msg)), conflict_(conflict) {}
  bool is_conflict() const { return conflict_; }  // the block's error was a RegistrationConflictError

 private:
  bool conflict_;
};

// Runs, as `owner`, every record of the loaded object whose load base is `base` that has not
// run yet (DEF blocks, then FRAGMENT, then IMPL). All or nothing: on failure it undoes what
// this call registered and throws RegistrationBlockError. Returns the number of blocks run.
// A run object's libraries stay registered for the life of the process.
size_t run_object_records(uintptr_t base, const std::string& owner);

// Does run_object_records for every loaded object not yet scanned; the owner is the object's
// plugin_name_from_file ("<program>" for the executable). Objects whose records fail are
// reported by the exception and not retried.
void run_all_linked_records();

// Build fingerprint / ABI this libember was compiled with (EMBER_BUILD_FINGERPRINT).
const char* build_fingerprint();

}  // namespace ember::detail

namespace ember::plugins::detail {
// Loads the default plugin set once (EMBER_DEFAULT_PLUGINS, else "cpu,meta,autograd,nn,sparse,quantized", and cuda
// where an NVIDIA driver is present; a missing default plugin is skipped, a broken one throws). Implemented by the
// plugin loader.
void load_default_plugins();
// "libember-foo.so" / "libfoo.so" / "libfoo.so.1" -> "foo" (Note [Plugin file names] in PluginLoader.cpp).
std::string plugin_name_from_file(const std::string& path);
}  // namespace ember::plugins::detail
