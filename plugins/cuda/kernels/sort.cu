// Sorting along lines (sort, argsort, topk), the order statistics picked from sorted lines
// (kthvalue, median, nanmedian, mode) and the binary searches of searchsorted and bucketize.
//
// Note [GPU sort]
// ~~~~~~~~~~~~~~~
// Each line's elements become (key, index) pairs: key an unsigned 64-bit integer whose order is
// the cpu's (Note [CPU sort order]): integers offset to unsigned, floats (float16 and bfloat16
// through float) by their bits with the sign folded, -0.0 as 0.0, every NaN one key above +inf;
// complemented for a descending sort, so NaN comes last ascending and first descending. Lines
// are padded to a power of two with pairs that order after every real one, and sorted by a
// bitonic network, one launch per step, each thread ordering one pair of pairs. Pairs compare by
// key, then index: a strict total order, so the result is the stable sort's whatever the network
// does, bit for bit the cpu's. The sorted indices then gather the values from the line (-0.0 and
// NaN payloads survive), or a thread per line picks its order statistic from the sorted keys.
#include <cstring>

#include "Loops.cuh"

namespace ember::gpu {
namespace {

constexpr uint64_t kPadKey = ~uint64_t{0};
constexpr uint64_t kNanKey = kPadKey - 1;

template <class T>
__device__ __forceinline__ uint64_t order_key(const char* p) {
  if constexpr (std::is_integral_v<T>) {
    const auto v = static_cast<int64_t>(*reinterpret_cast<const T*>(p));
    return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
  } else {
    using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
    F v;
    if constexpr (std::is_same_v<T, gpu_half> || std::is_same_v<T, gpu_bfloat16>)
      v = narrow_to_float(*reinterpret_cast<const T*>(p));
    else
      v = *reinterpret_cast<const T*>(p);
    if (isnan(v)) return kNanKey;
    if (v == F(0)) v = F(0);  // -0.0 orders as 0.0
    using B = std::conditional_t<sizeof(F) == 8, uint64_t, uint32_t>;
    B bits;
    memcpy(&bits, &v, sizeof(F));
    constexpr B sign = B{1} << (sizeof(F) * 8 - 1);
    return static_cast<uint64_t>(bits & sign ? ~bits : bits | sign);
  }
}

template <class T>
__global__ void keys_kernel(SortArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.lines * a.padded) {
    const int64_t line = e / a.padded, j = e % a.padded;
    if (j < a.n) {
      const uint64_t k = order_key<T>(a.in + (line * a.n + j) * a.itemsize);
      a.keys[e] = a.descending ? ~k : k;
      a.idx[e] = j;
    } else {
      a.keys[e] = kPadKey;
      a.idx[e] = INT64_MAX;
    }
  }
}

// One step (k, j) of the bitonic network over every line: element i and its partner i ^ j,
// ordered ascending where bit k of i is clear.
__global__ void bitonic_step_kernel(SortArgs a, int64_t k, int64_t j) {
  EMBER_GPU_GRID_STRIDE(e, a.lines * a.padded) {
    const int64_t i = e % a.padded, l = i ^ j;
    if (l <= i) continue;
    const int64_t base = e - i;
    uint64_t& ki = a.keys[base + i];
    uint64_t& kl = a.keys[base + l];
    int64_t& xi = a.idx[base + i];
    int64_t& xl = a.idx[base + l];
    const bool greater = ki > kl || (ki == kl && xi > xl);
    if (greater == ((i & k) == 0)) {
      const uint64_t tk = ki;
      ki = kl;
      kl = tk;
      const int64_t tx = xi;
      xi = xl;
      xl = tx;
    }
  }
}

// values[line, t] = in[line, idx[t]], indices[line, t] = idx[t] for t < k.
__global__ void take_sorted_kernel(SortArgs a, int64_t k) {
  EMBER_GPU_GRID_STRIDE(e, a.lines * k) {
    const int64_t line = e / k, t = e % k;
    const int64_t j = a.idx[line * a.padded + t];
    memcpy(a.values + e * a.itemsize, a.in + (line * a.n + j) * a.itemsize, static_cast<size_t>(a.itemsize));
    a.indices[e] = j;
  }
}

// The sorted position an order statistic takes in one (ascending) line.
__device__ int64_t pick_position(const SortArgs& a, const uint64_t* keys) {
  // the first NaN's position (n when none): keys are sorted, NaNs last
  int64_t lo = 0, hi = a.n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (keys[mid] >= kNanKey)
      hi = mid;
    else
      lo = mid + 1;
  }
  const int64_t numbers = lo;
  switch (a.pick) {
    case Pick::Kth:
      return a.k - 1;
    case Pick::Median:
      return numbers < a.n ? numbers : (a.n - 1) / 2;  // a NaN: the first one
    case Pick::NanMedian:
      return numbers == 0 ? -1 : (numbers - 1) / 2;  // all NaN: index 0
    default: {  // Mode: the longest run of equal keys, the first such run (smallest value)
      int64_t best = 0, at = 0;
      for (int64_t i = 0; i < a.n;) {
        int64_t j = i + 1;
        if (keys[i] != kNanKey)
          while (j < a.n && keys[j] == keys[i]) ++j;
        if (j - i > best) best = j - i, at = j - 1;  // the run's last index
        i = j;
      }
      return at;
    }
  }
}

__global__ void pick_kernel(SortArgs a) {
  EMBER_GPU_GRID_STRIDE(line, a.lines) {
    const uint64_t* keys = a.keys + line * a.padded;
    const int64_t* idx = a.idx + line * a.padded;
    const int64_t pos = pick_position(a, keys);
    const int64_t j = pos < 0 ? 0 : idx[pos];
    memcpy(a.values + line * a.itemsize, a.in + (line * a.n + j) * a.itemsize, static_cast<size_t>(a.itemsize));
    a.indices[line] = j;
  }
}

template <class C>
__global__ void search_kernel(SearchArgs a) {
  EMBER_GPU_GRID_STRIDE(i, a.n) {
    const int64_t row = a.one_d ? 0 : i / a.inner;
    const int64_t* sr = a.sorter ? a.sorter + row * a.M : nullptr;
    const C v = load<C>(a.values + i * a.itemsize, a.dtype);
    int64_t lo = 0, hi = a.M;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const C m = load<C>(a.boundaries + (row * a.M + (sr ? sr[mid] : mid)) * a.itemsize, a.dtype);
      if (a.right ? !(m > v) : !(m >= v))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (a.out_int32)
      reinterpret_cast<int32_t*>(a.out)[i] = static_cast<int32_t>(lo);
    else
      reinterpret_cast<int64_t*>(a.out)[i] = lo;
  }
}

template <class T>
void launch_keys(const SortArgs& a, gpuStream_t stream) {
  EMBER_GPU_LAUNCH(keys_kernel<T>, grid_size(a.lines * a.padded), kBlockSize, 0, stream, a);
}

}  // namespace

bool launch_sort(const SortArgs& a, gpuStream_t stream) {
  if (a.lines * a.n == 0) return true;
  switch (a.dtype) {
    case Bool:
    case UInt8:
      launch_keys<uint8_t>(a, stream);
      break;
    case Int8:
      launch_keys<int8_t>(a, stream);
      break;
    case Int16:
      launch_keys<int16_t>(a, stream);
      break;
    case Int32:
      launch_keys<int32_t>(a, stream);
      break;
    case Int64:
      launch_keys<int64_t>(a, stream);
      break;
    case Half:
      launch_keys<gpu_half>(a, stream);
      break;
    case BFloat16:
      launch_keys<gpu_bfloat16>(a, stream);
      break;
    case Float:
      launch_keys<float>(a, stream);
      break;
    case Double:
      launch_keys<double>(a, stream);
      break;
    default:
      return false;
  }
  const int grid = grid_size(a.lines * a.padded);
  for (int64_t k = 2; k <= a.padded; k *= 2)
    for (int64_t j = k / 2; j > 0; j /= 2) EMBER_GPU_LAUNCH(bitonic_step_kernel, grid, kBlockSize, 0, stream, a, k, j);
  if (a.pick == Pick::None) {
    if (a.k > 0) EMBER_GPU_LAUNCH(take_sorted_kernel, grid_size(a.lines * a.k), kBlockSize, 0, stream, a, a.k);
  } else {
    EMBER_GPU_LAUNCH(pick_kernel, grid_size(a.lines), kBlockSize, 0, stream, a);
  }
  return true;
}

// Floating dtypes compare in double, integers in int64: both exact for every value of the dtype.
bool launch_search(const SearchArgs& a, gpuStream_t stream) {
  if (a.n == 0) return true;
  if (a.dtype == ComplexFloat || a.dtype == ComplexDouble) return false;
  const bool floating = a.dtype == Half || a.dtype == BFloat16 || a.dtype == Float || a.dtype == Double;
  if (floating)
    EMBER_GPU_LAUNCH(search_kernel<double>, grid_size(a.n), kBlockSize, 0, stream, a);
  else
    EMBER_GPU_LAUNCH(search_kernel<int64_t>, grid_size(a.n), kBlockSize, 0, stream, a);
  return true;
}

}  // namespace ember::gpu
