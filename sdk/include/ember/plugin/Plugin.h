#pragma once
// The plugin SDK: what a plugin source includes. Registration (EMBER_LIBRARY_IMPL and the
// Library API), the structured-kernel contract, the one intra-op pool, and EMBER_PLUGIN, which
// names the library as a plugin in an ELF note (Note [Plugin notes]).
#include "ember/core/Parallel.h"
#include "ember/dispatcher/ElfNotes.h"
#include "ember/dispatcher/Library.h"
#include "ember/plugin/Structured.h"

#define EMBER_PLUGIN_DEP_(d) ".asciz \"" d "\"\n"
// Names this library as plugin `name` (a string literal) with `version` and the plugins it
// needs loaded first, e.g. EMBER_PLUGIN("nn", "0.1.0", "cpu", "autograd"). One per plugin.
#define EMBER_PLUGIN(name, version, ...) \
  __asm__(EMBER_NOTE_HEADER_(3) ".long " EMBER_STRINGIFY(EMBER_PLUGIN_ABI_VERSION) "\n" \
          ".asciz \"" name "\"\n.asciz \"" version "\"\n"                        \
          EMBER_PLUGIN_DEPS_(__VA_ARGS__) ".asciz \"\"\n" EMBER_NOTE_FOOTER_);

// Up to 8 dependencies.
#define EMBER_PLUGIN_DEPS_(...) EMBER_PLUGIN_DEPS_N_(__VA_ARGS__ __VA_OPT__(, ) 8, 7, 6, 5, 4, 3, 2, 1, 0)(__VA_ARGS__)
#define EMBER_PLUGIN_DEPS_N_(a, b, c, d, e, f, g, h, N, ...) EMBER_PLUGIN_DEPS_##N
#define EMBER_PLUGIN_DEPS_0()
#define EMBER_PLUGIN_DEPS_1(a) EMBER_PLUGIN_DEP_(a)
#define EMBER_PLUGIN_DEPS_2(a, b) EMBER_PLUGIN_DEP_(a) EMBER_PLUGIN_DEP_(b)
#define EMBER_PLUGIN_DEPS_3(a, b, c) EMBER_PLUGIN_DEPS_2(a, b) EMBER_PLUGIN_DEP_(c)
#define EMBER_PLUGIN_DEPS_4(a, b, c, d) EMBER_PLUGIN_DEPS_3(a, b, c) EMBER_PLUGIN_DEP_(d)
#define EMBER_PLUGIN_DEPS_5(a, b, c, d, e) EMBER_PLUGIN_DEPS_4(a, b, c, d) EMBER_PLUGIN_DEP_(e)
#define EMBER_PLUGIN_DEPS_6(a, b, c, d, e, f) EMBER_PLUGIN_DEPS_5(a, b, c, d, e) EMBER_PLUGIN_DEP_(f)
#define EMBER_PLUGIN_DEPS_7(a, b, c, d, e, f, g) EMBER_PLUGIN_DEPS_6(a, b, c, d, e, f) EMBER_PLUGIN_DEP_(g)
#define EMBER_PLUGIN_DEPS_8(a, b, c, d, e, f, g, h) EMBER_PLUGIN_DEPS_7(a, b, c, d, e, f, g) EMBER_PLUGIN_DEP_(h)
