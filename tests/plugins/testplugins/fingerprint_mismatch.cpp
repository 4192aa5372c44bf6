// The right ABI version, but built against libc++. Its constructor must never run.
#include <ember/dispatcher/ElfNotes.h>

#include <cstdlib>

__asm__(EMBER_NOTE_HEADER_(2) ".long " EMBER_STRINGIFY(EMBER_PLUGIN_ABI_VERSION) "\n"
        ".asciz \"compiler=gcc-12;stdlib=libc++;cxx11abi=1;ember=0.1\"\n" EMBER_NOTE_FOOTER_);

__attribute__((constructor)) static void fingerprint_mismatch_ctor() {
  setenv("EMBER_TEST_CTOR_RAN", "fingerprint_mismatch", 1);
}
