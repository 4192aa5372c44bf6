#pragma once
// Ember's version (CMake reads these lines) and the plugin ABI version.
#define EMBER_VERSION_MAJOR 0
#define EMBER_VERSION_MINOR 1
#define EMBER_VERSION_PATCH 0
// Bumped whenever a plugin built against an older libember could misbehave with this one
// (layout of Tensor/TensorImpl/IValue/DispatchTable, the record or note formats, ...).
#define EMBER_PLUGIN_ABI_VERSION 3

#define EMBER_STRINGIFY_IMPL(x) #x
#define EMBER_STRINGIFY(x) EMBER_STRINGIFY_IMPL(x)
#define EMBER_VERSION_STRING          \
  EMBER_STRINGIFY(EMBER_VERSION_MAJOR) \
  "." EMBER_STRINGIFY(EMBER_VERSION_MINOR) "." EMBER_STRINGIFY(EMBER_VERSION_PATCH)
