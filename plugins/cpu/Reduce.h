#pragma once
// Internal to the CPU plugin: the row machinery of Note [CPU row reductions] (reduction.cpp),
// shared with sort.cpp. The reduction kernels are declared in the generated CPUFunctions.h.
#include <optional>
#include <tuple>

#include "Loops.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::cpu {

// ---- the row machinery of Note [CPU row reductions] -----------------------------------------

// Which dimensions of `self` the list `dims` reduces (every one when the list is empty).
using native::reduced_mask;

// When `red` marks exactly the first k dimensions of a contiguous, non-empty CPU `self` (or, with
// leading = false, the last k), 0 < k < dim: the reduction is over the columns (rows) of a dense
// matrix, and this returns that matrix's row count. Else 0.
inline int64_t dense_matrix_rows(const Tensor& self, const SmallVector<bool, 8>& red, bool leading) {
  const auto nd = static_cast<int64_t>(red.size());
  int64_t k = 0;
  while (k < nd && red[leading ? k : nd - 1 - k]) ++k;
  if (k == 0 || k == nd || self.numel() == 0 || !self.is_contiguous() || !self.is_cpu()) return 0;
  for (int64_t i = k; i < nd; ++i)
    if (red[leading ? i : nd - 1 - i]) return 0;
  int64_t rows = 1;
  for (int64_t d = 0; d < (leading ? k : nd - k); ++d) rows *= self.size(d);
  return rows;
}

struct Rows {
  Tensor in;  // contiguous: `outer` rows of `len` elements
  int64_t outer = 1;
  int64_t len = 1;
  DimVector out_shape;
};

// self viewed as rows (kept dimensions first, reduced ones last; copied only when that view is
// not contiguous). `nonempty`: the reduction has no identity (max, argmax, ...), so a zero-size
// reduced dimension is an error, worded as PyTorch's.
Rows prepare(const Tensor& self, IntArrayRef dims, bool keepdim, const char* op, bool nonempty);

// A copy of self in dtype (PyTorch converts before reducing when a dtype is given).
Tensor converted(const Tensor& self, std::optional<ScalarType> dtype);

inline IntArrayRef one_dim(const int64_t& d) { return IntArrayRef(&d, 1); }

// A view of t with dimension w moved last: the layout of Rows::in for a reduction over w alone,
// so per-row results of a along-dim op are copied into a tensor of self's shape through it.
Tensor dim_last_view(const Tensor& t, int64_t w);

// Values are compared in their own type, float16 and bfloat16 through float.
template <class T>
using CmpOf = std::conditional_t<is_reduced_float_v<T>, float, T>;

template <class T>
EMBER_ALWAYS_INLINE bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// ---- out= arguments ------------------------------------------------------------------------

// Note [CPU out= results]
// ~~~~~~~~~~~~~~~~~~~~~~~
// An out= kernel computes into its out argument, as LibTorch's do: the kernel takes the tensor
// its final values go to from result_tensor(), which is `out` itself (resized first as
// resize_output does: kept when it has the result's shape) when out is then contiguous, of the
// result's dtype and shares no storage with the input (which is read while out is written).
// Otherwise the kernel writes a fresh contiguous tensor (its loops write dense rows), which
// write_out() copies into out through out's strides. Accumulators rounded into the result
// (double, int64) stay the kernels' own.
struct OutArg {
  Tensor* out = nullptr;  // null: a functional call
  const Tensor* input = nullptr;
  const char* op = "";
};

// A contiguous tensor of `shape` and `dtype` for a kernel's result: *o->out when it can take the
// values directly, else a fresh one.
Tensor result_tensor(const OutArg* o, IntArrayRef shape, ScalarType dtype);

// Throws TypeError unless out (argument `name`) is a defined CPU tensor of dtype `expected`.
void check_out(const char* op, const Tensor& out, ScalarType expected, const char* name = "out");
// out = result: nothing to do when the kernel wrote out itself; else out is resized to result's
// shape (resize_output), checked writable and written through its own strides, converting the dtype.
Tensor& write_out(Tensor& out, const Tensor& result, const char* op);

// sum.cpp: sum over dim (Note [CPU sum accumulation]); with `acc_out` in its accumulator dtype
// (float64 for floating inputs, int64 otherwise), so mean divides before rounding once.
Tensor sum_impl(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype, bool acc_out,
                const OutArg* o);

// Writes f(row, len) (a double) per row of r into a result of dtype out_dt; the row is
// r.in's element type T (visited), so nothing is converted up front.
template <class F>
Tensor reduce_rows_double(const Rows& r, ScalarType out_dt, const char* op, F f, const OutArg* o = nullptr) {
  Tensor acc = out_dt == kFloat64 ? result_tensor(o, r.out_shape, kFloat64) : empty_cpu(r.out_shape, kFloat64);
  auto* q = static_cast<double*>(acc.data_ptr());
  visit_dtype(r.in.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(r.in.data_ptr());
    for (int64_t i = 0; i < r.outer; ++i) q[i] = f(p + i * r.len, r.len);
  });
  if (out_dt == kFloat64) return acc;
  Tensor out = result_tensor(o, r.out_shape, out_dt);
  cast_fn(kFloat64, out_dt)(static_cast<const char*>(acc.data_ptr()), int64_t{8}, static_cast<char*>(out.data_ptr()),
                            static_cast<int64_t>(out.itemsize()), out.numel());
  return out;
}

}  // namespace ember::cpu
