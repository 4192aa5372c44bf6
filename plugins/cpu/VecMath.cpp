// The ISA choice of Note [CPU vector math].
#include "VecMath.h"

#include "Loops.h"

namespace ember::cpu {

#define EMBER_VM_DECLARE(ns)                                               \
  namespace ns {                                                           \
  void unary(VecOp op, const float* x, float* y, int64_t n);               \
  float max(const float* x, int64_t n);                                    \
  float exp_sum(const float* x, float m, float* y, int64_t n);             \
  }
EMBER_VM_DECLARE(avx2)
EMBER_VM_DECLARE(avx512)
#undef EMBER_VM_DECLARE

bool vec_unary_f32(VecOp op, const float* x, float* y, int64_t n) {
  switch (cpu_isa()) {
    case Isa::Avx512: avx512::unary(op, x, y, n); return true;
    case Isa::Avx2: avx2::unary(op, x, y, n); return true;
    default: return false;
  }
}

bool vec_max_f32(const float* x, int64_t n, float* result) {
  switch (cpu_isa()) {
    case Isa::Avx512: *result = avx512::max(x, n); return true;
    case Isa::Avx2: *result = avx2::max(x, n); return true;
    default: return false;
  }
}

bool vec_exp_sum_f32(const float* x, float m, float* y, int64_t n, float* result) {
  switch (cpu_isa()) {
    case Isa::Avx512: *result = avx512::exp_sum(x, m, y, n); return true;
    case Isa::Avx2: *result = avx2::exp_sum(x, m, y, n); return true;
    default: return false;
  }
}

}  // namespace ember::cpu
