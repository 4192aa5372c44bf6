// Note [CPU vector math], AVX2 copy (compiled with -mavx2 -mfma).
#define EMBER_VM_NS avx2
#define EMBER_VM_W 8
#define EMBER_VM_NATIVE __m256
#define EMBER_VM_SLEEF(f) Sleef_##f##f8_u10avx2
#define EMBER_VM_SLEEF_EXACT(f) Sleef_##f##f8_avx2
#include "VecMathImpl.h"
