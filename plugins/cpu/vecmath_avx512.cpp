// Note [CPU vector math], AVX-512 copy (compiled with -mavx512f -mavx512dq -mfma).
#define EMBER_VM_NS avx512
#define EMBER_VM_W 16
#define EMBER_VM_NATIVE __m512
#define EMBER_VM_SLEEF(f) Sleef_##f##f16_u10avx512f
#define EMBER_VM_SLEEF_EXACT(f) Sleef_##f##f16_avx512f
#include "VecMathImpl.h"
