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
  ThresholdBackward,  // a (the gradient) where b (self) > alpha (the threshold), else 0
  Atan2,
  Fmod,
  Remainder,
  Pow,
  ClampMin,  // clamp_lo(a, b) of ember/native/PointwiseMath.h (a tensor bound)
  ClampMax,
  Lerp,         // lerp(a, b, alpha)
  MaskedScale,  // b != 0 ? a * alpha : 0 (dropout)
};
bool launch_binary(Binary kind, Dt compute, const Iter& it, Value alpha, gpuStream_t stream);

// Elementwise kinds with Scalar parameters (p[0..2], converted to the compute dtype's kind) or
// three inputs, each ember/native/PointwiseMath.h's value function of that name.
enum class Pointwise : int8_t {
  Clamp,          // clamp_value(a, p0, p1)
  Hardtanh,       // clamp_hi(clamp_lo(a, p0), p1): hardtanh and clamp_min/clamp_max with a Scalar
  LeakyRelu,      // p0 the slope
  Elu,            // p0 alpha, p1 scale, p2 input_scale
  Softplus,       // p0 beta, p1 threshold
  Hardswish,      //
  Hardsigmoid,    //
  Mish,           //
  NanToNum,       // p0 nan, p1 posinf, p2 neginf
  RoundDecimals,  // p0 10^|decimals|, p1 1 when decimals < 0
  PowScalar,      // pow_scalar_value(a, p0)
  Angle,          // angle_value(a)
  ClampBoth,      // clamp_both(a, lo, hi): three inputs
  Addcmul,        // a + p0 * b * c: three inputs
};
bool launch_pointwise(Pointwise kind, Dt compute, const Iter& it, const Value* p, gpuStream_t stream);

// out = cond ? a : b (inputs: cond (bool), a, b).
bool launch_where(Dt compute, const Iter& it, gpuStream_t stream);
// out = value, in out's dtype (one operand).
bool launch_fill(Dt compute, const Iter& it, Value value, gpuStream_t stream);
// out = in, converting between any two non-complex dtypes.
bool launch_copy(const Iter& it, gpuStream_t stream);

// Reductions (Note [GPU reductions] in reduce.cu): the input's kept dimensions (one output
// element per index, innermost first) and reduced ones, with their byte strides.
enum class Reduction : int8_t { Sum, Mean, Max, Min, ArgMax, ArgMin, Prod };
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
// [a, b), normal with mean a and std b, bernoulli with probability a, integers from + (64 random
// bits mod range) (range 0: 2^64) in any real dtype.
enum class RandomKind : int8_t { Uniform, Normal, Bernoulli, Integer };
struct RandomArgs {
  char* out = nullptr;
  int64_t n = 0;
  int8_t dtype = Float;
  uint64_t seed = 0, offset = 0;
  double a = 0, b = 1;
  int64_t from = 0;
  uint64_t range = 0;
};
// The Philox blocks a fill of n elements takes (the CPU kernels' counts): what the host reserves.
#if defined(__CUDACC__) || defined(__HIPCC__)
__host__ __device__
#endif
    inline int64_t
    random_blocks(RandomKind kind, int8_t dtype, int64_t n) {
  const int64_t per =
      kind == RandomKind::Normal || kind == RandomKind::Integer || (kind == RandomKind::Uniform && dtype == Double) ? 2
                                                                                                                    : 4;
  return (n + per - 1) / per;
}
bool launch_random(RandomKind kind, const RandomArgs& args, gpuStream_t stream);
bool launch_softmax_backward(const SoftmaxArgs& args, gpuStream_t stream);

// Normalization (Note [GPU normalization] in norm.cu): a contiguous Float or Double tensor seen as
// [A, R, B], with statistics per r over its (A, B) elements. The weight and bias index of
// element (a, r, b) is (r % w_rmod) * w_rmul + (w_bdiv ? b / w_bdiv : 0).
//   Moments:  s1[r] = mean of x, s2[r] = its biased variance (NaN for an empty row)
//   GradSums: s1[r] = sum of dy w, s2[r] = sum of dy w x
//   Forward:  out = x scale + shift, scale = rstd[r] w and shift = bias - mean[r] scale rounded
//             to the dtype first (batch and group norm, as the cpu's)
//   ForwardCentered: out = (x - mean[r]) rstd[r] w + bias in the dtype (layer norm, as the cpu's)
//   Backward: out = dy w k1[r] + x k2[r] + k3[r]
// w and bias are optional (1 and 0); the per-row arrays are double.
enum class NormMode : int8_t { Moments, GradSums, Forward, ForwardCentered, Backward };
struct NormArgs {
  int64_t A = 1, R = 1, B = 1;
  int64_t w_rmod = 1, w_rmul = 0, w_bdiv = 0;
  const char* x = nullptr;
  const char* dy = nullptr;
  const double* w = nullptr;
  const double* bias = nullptr;
  char* out = nullptr;
  double* s1 = nullptr;
  double* s2 = nullptr;
  const double* mean = nullptr;
  const double* rstd = nullptr;
  const double* k1 = nullptr;
  const double* k2 = nullptr;
  const double* k3 = nullptr;
  int8_t dtype = Float;
};
bool launch_norm(NormMode mode, const NormArgs& args, gpuStream_t stream);

// Convolution as an implicit GEMM (Note [Implicit GEMM convolution] in conv.cu), in the forward
// convolution's terms (ember/native/NNRules.h's ConvGeom): input (N, C, D, H, W), weight
// (O, C / G, kD, kH, kW), output (N, O, oD, oH, oW), all contiguous and of one dtype (Float,
// Double, Half, BFloat16).
//   Forward:    out = conv(input, weight) (+ bias[O] when given)
//   InputGrad:  out (input's shape) = the gradient from grad_out (the output's shape) and weight
//               (+ bias[C] when given: a transposed convolution's)
//   WeightGrad: out (weight's shape) = the gradient from grad_out and input
enum class ConvMode : int8_t { Forward, InputGrad, WeightGrad };
struct ConvArgs {
  int64_t N = 0, C = 0, D = 1, H = 1, W = 1;
  int64_t O = 0, kD = 1, kH = 1, kW = 1, G = 1;
  int64_t sD = 1, sH = 1, sW = 1, pD = 0, pH = 0, pW = 0, dD = 1, dH = 1, dW = 1;
  int64_t oD = 1, oH = 1, oW = 1;
  const char* input = nullptr;
  const char* weight = nullptr;
  const char* grad_out = nullptr;
  const char* bias = nullptr;
  char* out = nullptr;
  int8_t dtype = Float;
};
bool launch_conv(ConvMode mode, const ConvArgs& args, gpuStream_t stream);

// Max pooling over planes of D x H x W (ember/native/NNRules.h's PoolGeom), contiguous: the
// forward writes out and the flat index (d * H * W + h * W + w) of each window's maximum (the
// cpu's rule: the first maximum, or the last NaN); the backward sums grad_out into grad_in at
// the indices.
struct PoolArgs {
  int64_t planes = 0, D = 1, H = 1, W = 1;
  int64_t kD = 1, kH = 1, kW = 1, sD = 1, sH = 1, sW = 1, pD = 0, pH = 0, pW = 0, dD = 1, dH = 1, dW = 1;
  int64_t oD = 1, oH = 1, oW = 1;
  const char* in = nullptr;  // forward: self; backward: grad_out
  char* out = nullptr;       // forward: the result; backward: grad_in
  int64_t* indices = nullptr;
  int8_t dtype = Float;
  bool adaptive = false;  // max pooling over the adaptive windows (see AvgPoolArgs); k, s, p, d unused
};
bool launch_max_pool(const PoolArgs& args, gpuStream_t stream);
bool launch_max_pool_backward(const PoolArgs& args, gpuStream_t stream);
// Average pooling with PyTorch's windows and divisors (count_include_pad, divisor_override; or
// the adaptive windows [floor(i in / out), ceil((i + 1) in / out))): the forward over `in` into
// `out`, or the backward (`in` the output's gradient, `out` the input's; a gather, no atomics).
struct AvgPoolArgs {
  PoolArgs p;
  bool adaptive = false, count_include_pad = true, backward = false;
  int64_t divisor = 0;  // divisor_override, 0 when none
};
bool launch_avg_pool(const AvgPoolArgs& args, gpuStream_t stream);

// gather, scatter and scatter_add_ over the index's shape (outermost first; strides in elements):
// gather writes other[i] = self[i with dim replaced by index[i]], scatter writes other[i] there
// (of duplicate indices, one write lands), scatter_add adds other[i] there. Indices are in range
// (the host checks). gather and scatter move any dtype by its size; scatter_add takes Float,
// Double, Int32, Int64 (device atomics), Half and BFloat16 (each add rounded, as the cpu's).
struct GatherArgs {
  int ndim = 0, dim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t self_strides[kMaxDims] = {}, index_strides[kMaxDims] = {}, other_strides[kMaxDims] = {};
  char* self = nullptr;
  const int64_t* index = nullptr;
  char* other = nullptr;
  int8_t dtype = Float;
  int itemsize = 4;
};
bool launch_gather(const GatherArgs& args, gpuStream_t stream);
bool launch_scatter(const GatherArgs& args, gpuStream_t stream);
bool launch_scatter_add(const GatherArgs& args, gpuStream_t stream);
// scatter_reduce's steps over the same walk: self[at] = step(self[at], other[i]) as one atomic
// step (a compare-and-swap), for any real dtype, with the cpu's steps: NaN propagates through
// amax/amin; float16/bfloat16 compute in float and round each step; bool reduces with or (sum,
// amax) and and (prod, amin). The order of the steps, and so a float sum's or product's last bits,
// may differ from the cpu's.
enum class ScatterOp : int8_t { Sum, Prod, Amax, Amin };
bool launch_scatter_reduce(ScatterOp op, const GatherArgs& args, gpuStream_t stream);

// Index maps (Note [GPU index maps] in shape.cu): mapped element i (the mapped tensor's sizes,
// outermost first; strides in elements) reads source element j, where along dimension d
//   Offset:    j = i - shift (outside [0, n): the fill bytes; constant padding, a negative pad crops)
//   Reflect:   i - shift reflected at the edges (reflection padding)
//   Replicate: i - shift clamped to the edges (replication padding)
//   Roll:      (i - shift) mod n, shift in [0, n)
//   Flip:      n - 1 - i
// and, with a band, elements outside it (the last two dims' col - row <= diagonal for Lower,
// >= for Upper) are zero. launch_remap moves elements by their size (1 to 16 bytes);
// launch_remap_add adds each mapped element into its source one instead (Float or Double).
enum class MapMode : int8_t { Offset, Reflect, Replicate, Roll, Flip };
enum class Band : int8_t { None, Lower, Upper };
struct RemapArgs {
  int ndim = 0;
  int64_t numel = 0;  // the mapped tensor's elements
  int64_t sizes[kMaxDims] = {}, mapped_strides[kMaxDims] = {};
  int64_t source_sizes[kMaxDims] = {}, source_strides[kMaxDims] = {};
  int64_t shift[kMaxDims] = {};
  int8_t mode[kMaxDims] = {};
  char* mapped = nullptr;
  char* source = nullptr;
  int itemsize = 4;
  uint64_t fill[2] = {};
  Band band = Band::None;
  int64_t diagonal = 0;
  int8_t dtype = Float;
};
bool launch_remap(const RemapArgs& args, gpuStream_t stream);
bool launch_remap_add(const RemapArgs& args, gpuStream_t stream);

// Note [GPU range fills]: a contiguous 1-d out of n elements, as the cpu's factories compute it:
//   Arange:   start + step i, in int64 (integer dtypes), float (float16/bfloat16) or double
//   Linspace: start + step i for i < n / 2, else end - step (n - 1 - i), step = (end - start) /
//             (n - 1) in double (integer dtypes), float (float16/bfloat16) or the dtype.
// The Values are to_value's of the dtype (integers truncated); any real dtype but bool.
enum class RangeKind : int8_t { Arange, Linspace };
struct RangeArgs {
  RangeKind kind = RangeKind::Arange;
  char* out = nullptr;
  int64_t n = 0;
  int8_t dtype = Float;
  Value start, step, end;
};
bool launch_range(const RangeArgs& args, gpuStream_t stream);

// cumsum / cumprod (Note [GPU scans] in scan.cu) along the n elements of each line of a contiguous
// [outer, n, inner] input, into a contiguous output of the same shape; in int64 that wraps
// (integral) or double, loaded from and stored to each side's dtype (any real dtype).
struct ScanArgs {
  int64_t outer = 1, n = 1, inner = 1;
  const char* in = nullptr;
  char* out = nullptr;
  int8_t in_dtype = Float, out_dtype = Float;
  int in_itemsize = 4, out_itemsize = 4;
  bool prod = false, integral = false;
};
bool launch_scan(const ScanArgs& args, gpuStream_t stream);

// nonzero's coordinates: `inclusive` the inclusive prefix count of the nonzero elements of a
// tensor of `sizes` (outermost first) in row-major order, `count` its last value; writes the
// [count, ndim] result in LibTorch's column-major layout (coordinate d of hit k at d * count + k).
struct NonzeroArgs {
  int ndim = 0;
  int64_t numel = 0, count = 0;
  int64_t sizes[kMaxDims] = {};
  const int64_t* inclusive = nullptr;
  int64_t* out = nullptr;
};
bool launch_nonzero(const NonzeroArgs& args, gpuStream_t stream);

// repeat_interleave(repeats): out[j] = i for j in [inclusive[i - 1], inclusive[i]), `inclusive`
// the inclusive prefix sums of the n repeats.
struct RepeatArgs {
  int64_t n = 0;
  const int64_t* inclusive = nullptr;
  int64_t* out = nullptr;
};
bool launch_repeat_index(const RepeatArgs& args, gpuStream_t stream);

// Advanced indexing (index, index_put_, take, index_add_/index_copy_/index_fill_): element e of the
// result shape (outermost first) is self element
//   sum_d i_d self_strides[d] + sum_k wrap(index[k][sum_d i_d index_strides[k][d]]) index_self_stride[k]
// (wrap adds index_size[k] to a negative value; values are in range: the host checks), and element
// other[sum_d i_d other_strides[d]] (strides in elements). Gather writes other from self, Put
// self from other (of duplicate positions, one write lands), Accumulate adds other into self with
// device atomics (Float, Double, Int32, Int64; Half and BFloat16 rounding each add, as the cpu's);
// Gather and Put move any dtype by its size.
constexpr int kMaxIndices = 8;
enum class IndexMode : int8_t { Gather, Put, Accumulate };
struct IndexArgs {
  int ndim = 0, nindex = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {}, self_strides[kMaxDims] = {}, other_strides[kMaxDims] = {};
  const int64_t* index[kMaxIndices] = {};
  int64_t index_strides[kMaxIndices][kMaxDims] = {};
  int64_t index_size[kMaxIndices] = {}, index_self_stride[kMaxIndices] = {};
  char* self = nullptr;
  char* other = nullptr;
  int itemsize = 4;
  int8_t dtype = Float;
};
bool launch_index(IndexMode mode, const IndexArgs& args, gpuStream_t stream);

// Sorting (Note [GPU sort] in sort.cu) of `lines` contiguous lines of n elements of `in` (any
// real dtype), through scratch keys/idx of lines x padded (padded: a power of two >= n). Pick
// None writes the first k sorted values and their indices per line (contiguous lines of k);
// the others one value and index per line: Kth the k-th smallest (k from 1), Median (NaN when
// the line has one), NanMedian (NaNs left out) and Mode (the most frequent, smallest on ties,
// its last index); those sort ascending.
enum class Pick : int8_t { None, Kth, Median, NanMedian, Mode };
struct SortArgs {
  int64_t lines = 0, n = 0, padded = 1, k = 0;
  const char* in = nullptr;
  int itemsize = 4;
  int8_t dtype = Float;
  bool descending = false;
  Pick pick = Pick::None;
  uint64_t* keys = nullptr;
  int64_t* idx = nullptr;
  char* values = nullptr;
  int64_t* indices = nullptr;
};
bool launch_sort(const SortArgs& args, gpuStream_t stream);

// Upsampling (ember/native/ResampleTables.h's tables) of a contiguous (planes, D, H, W) `in` to a
// contiguous (planes, oD, oH, oW) `out`: along dimension d, output index o reads taps[d] source
// indices index[d][k * out[d] + o] with weights weight[d][...] (of dtype: Float or Double).
// Forward: dst (out-shaped) from src; backward: src the output's gradient, dst the input's
// (zeroed), added into with atomics. Nearest: one tap, no weights; its forward moves any dtype by
// its size.
struct UpsampleArgs {
  int64_t planes = 0, in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t taps[3] = {1, 1, 1};
  const int64_t* index[3] = {};
  const char* weight[3] = {};
  const char* src = nullptr;
  char* dst = nullptr;
  int8_t dtype = Float;
  int itemsize = 4;
  bool nearest = false, backward = false;
};
bool launch_upsample(const UpsampleArgs& args, gpuStream_t stream);

// grid_sampler_2d (Note [Grid sampler rules] in ember/native/ResampleMath.h) of a contiguous input
// (N, C, H, W) through a contiguous grid (N, oH, oW, 2), Float or Double: the forward writes the
// contiguous out (N, C, oH, oW), a thread per output pixel summing its taps per channel in the
// cpu's order; the backward (grad_out the output's gradient) adds into the zeroed grad_input with
// atomics (when given) and writes grad_grid (when given). mode and padding are PyTorch's codes.
struct GridSampleArgs {
  int64_t N = 0, C = 0, H = 0, W = 0, oH = 0, oW = 0;
  int64_t mode = 0, padding = 0;
  bool align = false;
  const char* input = nullptr;
  const char* grid = nullptr;
  const char* grad_out = nullptr;
  char* out = nullptr;
  char* grad_input = nullptr;
  char* grad_grid = nullptr;
  int8_t dtype = Float;
};
bool launch_grid_sample(const GridSampleArgs& args, bool backward, gpuStream_t stream);

// im2col / col2im (F::unfold / F::fold, Note [CPU im2col] in the cpu plugin): planes = N C images
// of H x W, blocks bH x bW; col[plane, (i kW + j), bh bW + bw] = image[plane, bh sH - pH + i dH,
// bw sW - pW + j dW] (0 outside). im2col moves elements by their size; col2im gives each image
// element the sum of its column entries in (i, j) order (Float or Double), as the cpu's.
struct ColArgs {
  int64_t planes = 0, H = 0, W = 0, kH = 1, kW = 1, dH = 1, dW = 1, pH = 0, pW = 0, sH = 1, sW = 1, bH = 0, bW = 0;
  const char* in = nullptr;
  char* out = nullptr;
  int8_t dtype = Float;
  int itemsize = 4;
};
bool launch_im2col(const ColArgs& args, gpuStream_t stream);
bool launch_col2im(const ColArgs& args, gpuStream_t stream);

// cdist / pdist (Note [Distance p cases] in ember/native/DistanceMath.h) on contiguous float64
// operands, a thread per result element summing in the cpu's order:
//   CdistForward:  out[k, i, j] = dist(a[k, i], b[k, j]), a (batch, P, M), b (batch, R, M)
//   CdistBackward: out[k, i, m] = sum over j of grad[k, i, j] d dist(a[k, i], b[k, j]) / d a[k, i, m]
//                  (dist the forward's result, (batch, P, R))
//   PdistForward:  out[pair(i, j)] = dist(a[i], a[j]) for i < j < P, a (P, M); pairs row by row
//   PdistBackward: out[i, m] = sum over j != i of grad[pair] d dist(a[i], a[j]) / d a[i, m]
enum class DistMode : int8_t { CdistForward, CdistBackward, PdistForward, PdistBackward };
struct DistArgs {
  int64_t batch = 1, P = 0, R = 0, M = 0;
  double p = 2;
  const double* a = nullptr;
  const double* b = nullptr;
  const double* grad = nullptr;
  const double* dist = nullptr;
  double* out = nullptr;
};
bool launch_distance(DistMode mode, const DistArgs& args, gpuStream_t stream);

// _embedding_bag's forward (Note [Embedding bag outputs] in the cpu plugin) over float64 weight
// rows (rows, D), int64 indices idx (n) and offsets (n_offsets, non-decreasing, the first 0; bag b
// is [offsets[b], b + 1 < n_offsets ? offsets[b + 1] : n)), a thread per (bag, column) in the
// cpu's order: out[b, c] the sum (each row times psw[i] when given), mean or max of the bag's rows
// but padding_idx's (0 for an empty bag); max_index[b, c] the row of the max (max mode);
// bag_size[b] the rows reduced. offset2bag[i]: the last bag b < B with offsets[b] <= i (0 with no bags).
struct BagArgs {
  int64_t B = 0, n = 0, D = 0, n_offsets = 0, padding_idx = -1, mode = 0;  // mode: 0 sum, 1 mean, 2 max
  const int64_t* idx = nullptr;
  const int64_t* offsets = nullptr;
  const double* weight = nullptr;
  const double* psw = nullptr;
  double* out = nullptr;
  int64_t* max_index = nullptr;
  int64_t* bag_size = nullptr;
  int64_t* offset2bag = nullptr;
};
bool launch_embedding_bag(const BagArgs& args, gpuStream_t stream);

// searchsorted / bucketize (the cpu's binary searches: left, the first i with boundaries[i] >= v;
// right, the first with boundaries[i] > v; NaN goes past the end): values and boundaries
// contiguous in one dtype, boundaries 1-d (one_d) or one row of M per `inner` values; sorter
// (optional) the int64 order of each row.
struct SearchArgs {
  int64_t n = 0, M = 0, inner = 1;
  bool one_d = true, right = false, out_int32 = false;
  const char* boundaries = nullptr;
  const char* values = nullptr;
  const int64_t* sorter = nullptr;
  char* out = nullptr;
  int8_t dtype = Float;
  int itemsize = 4;
};
bool launch_search(const SearchArgs& args, gpuStream_t stream);

}  // namespace ember::gpu
