#pragma once
// Internal: reading a file's Ember ELF notes (see Note [Plugin notes]) without loading it.
#include <string>
#include <string_view>

#include "ember/dispatcher/Plugins.h"

namespace ember::plugins::detail {

// plugins::read_descriptor, with errors led by `who` (e.g. "[plugins::load]") so they read as
// coming from the caller.
PluginDescriptor read_descriptor(const std::string& path, std::string_view who);

}  // namespace ember::plugins::detail
