#pragma once
// ELF notes a plugin carries, readable from the file without dlopen (so a mismatched plugin's
// code never runs, and `ember inspect plugins` lists plugins without loading them).
//
// Note [Plugin notes]
// ~~~~~~~~~~~~~~~~~~~
// All notes are named "Ember" and live in the allocated section .note.ember:
//   type 1 (records)  two int64: __start_ember_libs / __stop_ember_libs relative to the desc.
//                     Link-time constants, so the note needs no dynamic relocation. Only
//                     meaningful in memory (see Note [Registration records]).
//   type 2 (build)    uint32 ABI version, then the build fingerprint (NUL-terminated):
//                     "compiler=gcc-12;stdlib=libstdc++;cxx11abi=1;ember=0.1". Emitted by every
//                     registration block, so a plain MODULE library using EMBER_LIBRARY* has it.
//   type 3 (plugin)   uint32 ABI version, then NUL-terminated strings: name, version, each
//                     dependency, and an empty string. Emitted by EMBER_PLUGIN (ember/plugin/
//                     Plugin.h; optional: a library without it is named after its file and has
//                     no dependencies).
// The loader compares the ABI version exactly and, of the fingerprint, the standard library,
// its dual-ABI flag and Ember's major.minor; the compiler is shown, not compared (GCC and Clang
// share the Itanium ABI).
#include "ember/core/Version.h"

#if defined(__clang__)
#define EMBER_FP_COMPILER "clang-" EMBER_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define EMBER_FP_COMPILER "gcc-" EMBER_STRINGIFY(__GNUC__)
#else
#define EMBER_FP_COMPILER "unknown"
#endif
#include <cstddef>  // defines _GLIBCXX_USE_CXX11_ABI / _LIBCPP_VERSION
#if defined(_LIBCPP_VERSION)
#define EMBER_FP_STDLIB "libc++"
#define EMBER_FP_CXX11ABI "1"
#else
#define EMBER_FP_STDLIB "libstdc++"
#define EMBER_FP_CXX11ABI EMBER_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#endif
#define EMBER_BUILD_FINGERPRINT                                                           \
  "compiler=" EMBER_FP_COMPILER ";stdlib=" EMBER_FP_STDLIB ";cxx11abi=" EMBER_FP_CXX11ABI \
  ";ember=" EMBER_STRINGIFY(EMBER_VERSION_MAJOR) "." EMBER_STRINGIFY(EMBER_VERSION_MINOR)

#define EMBER_NOTE_HEADER_(type)           \
  ".pushsection .note.ember,\"a\",@note\n" \
  ".balign 4\n"                            \
  ".long 6\n"                              \
  ".long 2f - 1f\n"                        \
  ".long " #type                           \
  "\n"                                     \
  ".asciz \"Ember\"\n"                     \
  ".balign 4\n"                            \
  "1:\n"
#define EMBER_NOTE_FOOTER_ "2:\n.balign 4\n.popsection\n"

#define EMBER_NOTE_RECORDS_AND_BUILD_ \
  __asm__(EMBER_NOTE_HEADER_(1) ".quad __start_ember_libs - 1b\n"                 \
          ".quad __stop_ember_libs - 1b\n" EMBER_NOTE_FOOTER_                     \
          EMBER_NOTE_HEADER_(2) ".long " EMBER_STRINGIFY(EMBER_PLUGIN_ABI_VERSION) "\n" \
          ".asciz \"" EMBER_BUILD_FINGERPRINT "\"\n" EMBER_NOTE_FOOTER_);

namespace ember::detail {
enum class NoteType : unsigned { Records = 1, Build = 2, Plugin = 3 };
}  // namespace ember::detail
