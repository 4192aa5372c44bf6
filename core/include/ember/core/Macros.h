#pragma once
// Export and hint macros shared by every public header.

#if defined(EMBER_BUILDING_LIBRARY)
#define EMBER_API __attribute__((visibility("default")))
#else
#define EMBER_API __attribute__((visibility("default")))
#endif

#define EMBER_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMBER_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define EMBER_NOINLINE __attribute__((noinline))
#define EMBER_ALWAYS_INLINE inline __attribute__((always_inline))

#define EMBER_CONCAT_IMPL(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_IMPL(a, b)
