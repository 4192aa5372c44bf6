// Claims Ember plugin ABI 999. Its constructor must never run: the loader refuses it from
// its notes, before dlopen.
#include <ember/dispatcher/ElfNotes.h>

#include <cstdlib>

__asm__(EMBER_NOTE_HEADER_(2) ".long 999\n"
        ".asciz \"" EMBER_BUILD_FINGERPRINT "\"\n" EMBER_NOTE_FOOTER_);

__attribute__((constructor)) static void abi_mismatch_ctor() {
  setenv("EMBER_TEST_CTOR_RAN", "abi_mismatch", 1);
}
