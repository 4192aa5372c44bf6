#pragma once
// The interface between the cuda plugin's host code (TensorIter, dtype rules, errors: .cpp files
// compiled by the C++ compiler) and its device kernels (.cu files, compiled by nvcc or hipcc).
//
// Note [GPU kernel interface]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Kernel files include only this header and the vendor header: no Ember header reaches the
// device compiler, so the kernels build unchanged with nvcc and hipcc, quickly, and the host
// half keeps one copy of the metadata (Note [Kernel metadata helpers]). The host builds the
// iteration (shape, byte strides, data pointers and dtypes of the operands, outputs first) and
// calls a launcher; a launcher returns false when its kind has no kernel for the compute dtype,
// and the host raises the error naming the operator.
#include <cstdint>

#include "Vendor.h"

namespace ember::gpu {

constexpr int kMaxDims = 16;
constexpr int kMaxArgs = 4;

// ember::ScalarType's codes (checked against it on the host).
enum Dt : int8_t { Bool, UInt8, Int8, Int16, Int32, Int64, Half, BFloat16, Float, Double, ComplexFloat, ComplexDouble };

struct Iter {
  int ndim = 0;   // iteration dimensions, innermost first
  int nargs = 0;  // outputs first, then inputs
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxArgs][kMaxDims] = {};  // bytes
  char* data[kMaxArgs] = {};
  int8_t dtype[kMaxArgs] = {};
};

// A Scalar argument, converted on the host to the compute dtype's kind.
struct Value {
  double f = 0;
  int64_t i = 0;
};

// ember::native::UnaryKind's value; `compute` the dtype the kind computes in.
bool launch_unary(int kind, Dt compute, const Iter& it, gpuStream_t stream);

enum class Binary : int8_t {
  Add,  // a + alpha * b (Sub is Add with -alpha)
  Mul,
  Div,
  DivTrunc,
  DivFloor,
  Maximum,
  Minimum,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,
  LogicalOr,
  LogicalXor,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
};
bool launch_binary(Binary kind, Dt compute, const Iter& it, Value alpha, gpuStream_t stream);

// out = cond ? a : b (inputs: cond (bool), a, b).
bool launch_where(Dt compute, const Iter& it, gpuStream_t stream);
// out = value, in out's dtype (one operand).
bool launch_fill(Dt compute, const Iter& it, Value value, gpuStream_t stream);
// out = in, converting between any two non-complex dtypes.
bool launch_copy(const Iter& it, gpuStream_t stream);

// Reductions (Note [GPU reductions] in reduce.cu): the input's kept dimensions (one output
// element per index, innermost first) and reduced ones, with their byte strides.
enum class Reduction : int8_t { Sum, Mean, Max, Min, ArgMax, ArgMin };
struct ReduceArgs {
  int n_kept = 0, n_red_dims = 0;
  int64_t n_out = 1, n_red = 1;
  int64_t kept_sizes[kMaxDims] = {}, in_kept_strides[kMaxDims] = {}, out_strides[kMaxDims] = {};
  int64_t red_sizes[kMaxDims] = {}, in_red_strides[kMaxDims] = {};
  const char* in = nullptr;
  char* out = nullptr;
  int8_t in_dtype = 0, out_dtype = 0;
  int8_t acc_dtype = 0;  // Float, Double or Int64
};
bool launch_reduce(Reduction kind, const ReduceArgs& args, gpuStream_t stream);

// C = alpha * A B + beta * C over a batch (Note [Native GEMM] in gemm.cu); strides in elements,
// C row-major (sc_col 1). dtype: Float, Double, Half, BFloat16 or an integer (int64 accumulation).
struct GemmArgs {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  const char* a = nullptr;
  const char* b = nullptr;
  char* c = nullptr;
  int64_t sa_batch = 0, sa_row = 0, sa_col = 0;
  int64_t sb_batch = 0, sb_row = 0, sb_col = 0;
  int64_t sc_batch = 0, sc_row = 0;
  double alpha = 1, beta = 0;
  int8_t dtype = Float;
};
bool launch_gemm(const GemmArgs& args, gpuStream_t stream);

// softmax / log_softmax along `dim` of contiguous [outer, dim, inner] tensors (Note [GPU
// softmax] in softmax.cu); backward: `in` is the forward's output, `grad` the output's gradient.
// Float, Double, Half or BFloat16.
struct SoftmaxArgs {
  int64_t outer = 1, dim = 1, inner = 1;
  const char* in = nullptr;
  const char* grad = nullptr;
  char* out = nullptr;
  int8_t in_dtype = Float, out_dtype = Float;
  bool log = false;
  int in_size = 0, out_size = 0;  // set by the launcher
};
bool launch_softmax(const SoftmaxArgs& args, gpuStream_t stream);

// Random fills of a contiguous output (Note [GPU random numbers] in random.cu): uniform in
// [a, b), normal with mean a and std b, bernoulli with probability a.
enum class RandomKind : int8_t { Uniform, Normal, Bernoulli };
struct RandomArgs {
  char* out = nullptr;
  int64_t n = 0;
  int8_t dtype = Float;
  uint64_t seed = 0, offset = 0;
  double a = 0, b = 1;
};
// The Philox blocks a fill of n elements takes (the CPU kernels' counts): what the host reserves.
#if defined(__CUDACC__) || defined(__HIPCC__)
__host__ __device__
#endif
    inline int64_t
    random_blocks(RandomKind kind, int8_t dtype, int64_t n) {
  const int64_t per = kind == RandomKind::Normal || (kind == RandomKind::Uniform && dtype == Double) ? 2 : 4;
  return (n + per - 1) / per;
}
bool launch_random(RandomKind kind, const RandomArgs& args, gpuStream_t stream);
bool launch_softmax_backward(const SoftmaxArgs& args, gpuStream_t stream);

}  // namespace ember::gpu
