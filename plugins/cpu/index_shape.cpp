// Shape and tensor-manipulation kernels: select/slice/diagonal_scatter, masked_scatter, copy,
// fill, _local_scalar_dense, tril/triu, roll and repeat_interleave(repeats). Their checks are
// ember/native/IndexShapeRules.h, which the meta kernels (plugins/meta/index_shape.cpp) run too.
//
// Result layouts follow LibTorch 1.13: the view scatters and fill keep self's strides (its clone /
// empty_like with preserve_format); copy, masked_scatter, tril/triu and roll are contiguous.
#include <cstring>

#include "CPUKernels.h"
#include "Loops.h"
#include "ember/generated/Functions.h"
#include "ember/native/IndexShapeRules.h"

namespace ember::cpu {
namespace {

// result = clone(self) with src copied into the view of result that `view_of` makes.
template <class ViewOf>
Tensor view_scatter(const char* op, const Tensor& self, const Tensor& src, ViewOf&& view_of) {
  check_cpu(op, self, src);
  Tensor view = view_of(self);
  native::check_view_scatter(op, kCPU, self, src, view);
  Tensor r = ember::empty_like(self);
  cpu::copy_(r, self, false);
  view = view_of(r);
  cpu::copy_(view, src, false);
  return r;
}

// out = result (resized to self's shape, of self's dtype).
Tensor& write_same_out(const char* op, const Tensor& self, const Tensor& result, Tensor& out) {
  native::prepare_same_out(op, kCPU, self, out);
  return cpu::copy_(out, result, false);
}

// Calls row(b, i) for every row i of every matrix b of a (..., m, n) tensor, rows split over threads.
template <class F>
void for_matrix_rows(int64_t batch, int64_t m, int64_t n, const F& row) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1));
  parallel_for(0, batch * m, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) row(k / m, k % m);
  });
}

// Offset (in elements) of matrix b of t under t's batch strides (every dim but the last two).
int64_t batch_offset(const Tensor& t, int64_t b) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 3; d >= 0; --d) {
    off += (b % t.size(d)) * t.stride(d);
    b /= t.size(d);
  }
  return off;
}

// dst = tril(src, k) (Lower) or triu(src, k); dst and src have the same shape and are either the
// same tensor (in place: only the dropped part is written) or do not overlap. Each row keeps one
// contiguous run of columns: [0, i + k + 1) for tril, [i + k, n) for triu.
void tri(const Tensor& src, Tensor& dst, int64_t k, bool lower) {
  const int64_t nd = src.dim(), m = src.size(nd - 2), n = src.size(nd - 1);
  if (src.numel() == 0) return;
  const int64_t batch = src.numel() / (m * n);
  const bool inplace = src.is_same(dst);
  const auto isz = static_cast<int64_t>(src.itemsize());
  const char* s = static_cast<const char*>(src.data_ptr());
  char* d = static_cast<char*>(dst.data_ptr());
  const int64_t srs = src.stride(nd - 2), scs = src.stride(nd - 1), drs = dst.stride(nd - 2), dcs = dst.stride(nd - 1);
  for_matrix_rows(batch, m, n, [&](int64_t b, int64_t i) {
    const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + k, 0, n);
    const int64_t hi = lower ? std::clamp<int64_t>(i + k + 1, 0, n) : n;
    const char* srow = s + (batch_offset(src, b) + i * srs) * isz;
    char* drow = d + (batch_offset(dst, b) + i * drs) * isz;
    auto zero = [&](int64_t j0, int64_t j1) {  // all-zero bits is 0 in every dtype
      if (j1 <= j0) return;
      if (dcs == 1) {
        std::memset(drow + j0 * isz, 0, static_cast<size_t>((j1 - j0) * isz));
      } else {
        for (int64_t j = j0; j < j1; ++j) std::memset(drow + j * dcs * isz, 0, static_cast<size_t>(isz));
      }
    };
    zero(0, lo);
    zero(hi, n);
    if (inplace || hi <= lo) return;
    if (scs == 1 && dcs == 1) {
      std::memcpy(drow + lo * isz, srow + lo * isz, static_cast<size_t>((hi - lo) * isz));
    } else {
      for (int64_t j = lo; j < hi; ++j)
        std::memcpy(drow + j * dcs * isz, srow + j * scs * isz, static_cast<size_t>(isz));
    }
  });
}

Tensor tri_functional(const char* op, const Tensor& self, int64_t k, bool lower) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  native::check_tri(op, self);
  Tensor r = empty_cpu(self.sizes(), self.dtype());
  tri(self, r, k, lower);
  return r;
}

Tensor& tri_inplace(const char* op, Tensor& self, int64_t k, bool lower) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  native::check_tri(op, self);
  native::check_writable(op, self);
  tri(self, self, k, lower);
  return self;
}

Tensor& tri_out(const char* op, const Tensor& self, int64_t k, bool lower, Tensor& out) {
  check_defined(op, self, "self");
  check_cpu(op, self);
  native::check_tri(op, self);
  native::prepare_same_out(op, kCPU, self, out);
  if (same_storage(out, self)) {
    const Tensor r = tri_functional(op, self, k, lower);
    return cpu::copy_(out, r, false);
  }
  tri(self, out, k, lower);
  return out;
}

}  // namespace

// ---- the view scatters -------------------------------------------------------------------------

#include "ember/native/ViewScatterEntryPoints.inc"

// ---- masked_scatter ----------------------------------------------------------------------------

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const DimVector shape = native::check_masked_scatter_functional(kCPU, self, mask, source);
  Tensor r = empty_cpu(shape, self.dtype());
  cpu::copy_(r, self, false);
  return cpu::masked_scatter_(r, mask, source);
}
Tensor& masked_scatter_out(const Tensor& self, const Tensor& mask, const Tensor& source, Tensor& out) {
  const Tensor r = cpu::masked_scatter(self, mask, source);
  check_defined("masked_scatter", out, "out");
  check_cpu("masked_scatter", out);
  native::check_out_dtype("masked_scatter", out, self.dtype());
  native::resize_output(out, r.sizes(), "masked_scatter");
  native::check_out_writable("masked_scatter", out);
  return cpu::copy_(out, r, false);
}

// ---- copy, fill, _local_scalar_dense -----------------------------------------------------------

Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking) {
  check_defined("copy", self, "self");
  check_defined("copy", src, "src");
  Tensor r = empty_cpu(self.sizes(), self.dtype());
  return cpu::copy_(r, src, non_blocking);
}
Tensor& copy_out(const Tensor& self, const Tensor& src, bool non_blocking, Tensor& out) {
  return write_same_out("copy", self, cpu::copy(self, src, non_blocking), out);
}

Tensor fill_scalar(const Tensor& self, const Scalar& value) {
  check_defined("fill", self, "self");
  Tensor r = ember::empty_like(self);
  return cpu::fill_(r, value);
}

Tensor& fill__tensor(Tensor& self, const Tensor& value) {
  check_defined("fill_", self, "self");
  check_defined("fill_", value, "value");
  native::check_fill_value(value);
  check_cpu("fill_", self, value);
  return cpu::fill_(self, load_scalar(value.data_ptr(), value.dtype()));
}

Scalar _local_scalar_dense(const Tensor& self) {
  check_defined("_local_scalar_dense", self, "self");
  check_cpu("_local_scalar_dense", self);
  EMBER_CHECK(self.numel() == 1, "[_local_scalar_dense] a Tensor with {} elements cannot be converted to Scalar",
              self.numel());
  return load_scalar(self.data_ptr(), self.dtype());
}

// ---- tril, triu --------------------------------------------------------------------------------

Tensor tril(const Tensor& self, int64_t diagonal) { return tri_functional("tril", self, diagonal, true); }
Tensor& tril_(Tensor& self, int64_t diagonal) { return tri_inplace("tril_", self, diagonal, true); }
Tensor& tril_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return tri_out("tril", self, diagonal, true, out);
}
Tensor triu(const Tensor& self, int64_t diagonal) { return tri_functional("triu", self, diagonal, false); }
Tensor& triu_(Tensor& self, int64_t diagonal) { return tri_inplace("triu_", self, diagonal, false); }
Tensor& triu_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return tri_out("triu", self, diagonal, false, out);
}

// ---- roll --------------------------------------------------------------------------------------

// Each row of the (contiguous) result along the last dim comes from one row of self, found by
// shifting every outer index back; the row itself is two runs (a memcpy each when self's last dim
// is dense).
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  check_defined("roll", self, "self");
  check_cpu("roll", self);
  const DimVector wrapped = native::check_roll(self, shifts, dims);
  if (dims.empty()) {  // the flattened tensor, shaped back
    const Tensor flat = ember::reshape(self, {self.numel()});
    const int64_t d0 = 0;
    return cpu::roll(flat, shifts, IntArrayRef(&d0, 1)).view(self.sizes());
  }
  Tensor r = empty_cpu(self.sizes(), self.dtype());
  if (self.numel() == 0) return r;
  const int64_t nd = self.dim();
  DimVector shift(static_cast<size_t>(nd), 0);
  for (size_t i = 0; i < wrapped.size(); ++i) shift[wrapped[i]] += shifts[i];
  for (int64_t d = 0; d < nd; ++d) shift[d] = ((shift[d] % self.size(d)) + self.size(d)) % self.size(d);
  const int64_t n = self.size(nd - 1), rows = self.numel() / n, s_last = shift[nd - 1];
  const int64_t ls = self.stride(nd - 1);
  const auto isz = static_cast<int64_t>(self.itemsize());
  const char* src = static_cast<const char*>(self.data_ptr());
  char* dst = static_cast<char*>(r.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t off = 0, rem = row;
      for (int64_t d = nd - 2; d >= 0; --d) {
        const int64_t o = rem % self.size(d);
        rem /= self.size(d);
        int64_t i = o - shift[d];
        if (i < 0) i += self.size(d);
        off += i * self.stride(d);
      }
      const char* srow = src + off * isz;
      char* drow = dst + row * n * isz;
      // result[j] = self[(j - s) mod n]: [0, s) from [n - s, n), [s, n) from [0, n - s).
      if (ls == 1) {
        std::memcpy(drow, srow + (n - s_last) * isz, static_cast<size_t>(s_last * isz));
        std::memcpy(drow + s_last * isz, srow, static_cast<size_t>((n - s_last) * isz));
      } else {
        for (int64_t j = 0; j < n; ++j) {
          int64_t i = j - s_last;
          if (i < 0) i += n;
          std::memcpy(drow + j * isz, srow + i * ls * isz, static_cast<size_t>(isz));
        }
      }
    }
  });
  return r;
}

// ---- repeat_interleave(repeats) ----------------------------------------------------------------

Tensor repeat_interleave_tensor(const Tensor& repeats, std::optional<int64_t> output_size) {
  native::check_repeat_interleave(repeats, output_size);
  check_cpu("repeat_interleave", repeats);
  return visit_dtype(repeats.dtype(), "repeat_interleave", [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      const Tensor rc = repeats.is_contiguous() ? repeats : materialize(repeats);
      const T* p = static_cast<const T*>(rc.data_ptr());
      const int64_t n = rc.numel();
      int64_t total = 0;
      for (int64_t i = 0; i < n; ++i) {
        EMBER_CHECK(p[i] >= 0, "[repeat_interleave] repeats can not be negative");
        total += p[i];
      }
      EMBER_CHECK(!output_size || *output_size == total,
                  "[repeat_interleave] allocated size does not match required size: output_size is {}, the repeats "
                  "sum to {}",
                  output_size.value_or(0), total);
      Tensor out = empty_cpu({total}, repeats.dtype());
      T* o = static_cast<T*>(out.data_ptr());
      for (int64_t i = 0; i < n; ++i) o = std::fill_n(o, p[i], static_cast<T>(i));
      return out;
    } else {
      throw_unsupported_dtype("repeat_interleave", repeats.dtype());
    }
  });
}

}  // namespace ember::cpu
