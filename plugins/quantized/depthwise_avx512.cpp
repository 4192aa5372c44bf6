// The AVX-512 VNNI int8 depthwise kernel (Note [Int8 depthwise convolution] in Depthwise.h);
// compiled with -mavx512bw -mavx512vnni, called only where the CPU has both.
// g++ 12's AVX-512 intrinsics start from _mm512_undefined_*(), which -Wmaybe-uninitialized
// flags once inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cstring>
#include <vector>

#include "Depthwise.h"

namespace ember::qbackend {

namespace {
// Register i, dword 4k + j of a 64-channel block holds channel 16k + 4i + j.
inline int64_t lane_channel(int64_t i, int64_t d) { return 16 * (d / 4) + 4 * i + d % 4; }

struct Geometry {
  int64_t ncb, nq, wpad;  // 64-channel blocks, groups of 4 kernel columns, padded width
};
Geometry geometry(const DwArgs& a) { return {(a.c + 63) / 64, (a.kw + 3) / 4, a.w + 2 * a.pw}; }

// Block cb of an input row (zx everywhere when `row` is null), interleaved: at padded column j,
// register i, dword d, byte t: x[j + t * dw] (zx outside X).
void interleave_row(const DwArgs& a, const Geometry& ge, const uint8_t* row, int64_t cb, __mmask64 m, uint8_t* out) {
  const __m512i zsplat = _mm512_set1_epi8(static_cast<char>(a.zx));
  auto column = [&](int64_t j) {  // padded column j
    const int64_t ix = j - a.pw;
    return row && ix >= 0 && ix < a.w ? _mm512_maskz_loadu_epi8(m, row + ix * a.c + cb * 64) : zsplat;
  };
  if (a.dw == 1) {
    // Byte pairs (x[j], x[j + 1]) are shared by columns j and j - 2: a rolling window of them.
    __m512i x1 = column(0), x2 = column(1), x3 = column(2);
    __m512i pa_lo = _mm512_unpacklo_epi8(x1, x2), pa_hi = _mm512_unpackhi_epi8(x1, x2);
    __m512i pb_lo = _mm512_unpacklo_epi8(x2, x3), pb_hi = _mm512_unpackhi_epi8(x2, x3);
    x1 = x3;
    for (int64_t j = 0; j < ge.wpad; ++j) {
      const __m512i x4 = column(j + 3);
      const __m512i pc_lo = _mm512_unpacklo_epi8(x1, x4), pc_hi = _mm512_unpackhi_epi8(x1, x4);
      __m512i* dst = reinterpret_cast<__m512i*>(out + j * 256);
      _mm512_storeu_si512(dst + 0, _mm512_unpacklo_epi16(pa_lo, pc_lo));
      _mm512_storeu_si512(dst + 1, _mm512_unpackhi_epi16(pa_lo, pc_lo));
      _mm512_storeu_si512(dst + 2, _mm512_unpacklo_epi16(pa_hi, pc_hi));
      _mm512_storeu_si512(dst + 3, _mm512_unpackhi_epi16(pa_hi, pc_hi));
      pa_lo = pb_lo, pa_hi = pb_hi, pb_lo = pc_lo, pb_hi = pc_hi, x1 = x4;
    }
    return;
  }
  for (int64_t j = 0; j < ge.wpad; ++j) {
    __m512i* dst = reinterpret_cast<__m512i*>(out + j * 256);
    __m512i v[4];
    for (int t = 0; t < 4; ++t) {
      const int64_t ix = j + t * a.dw - a.pw;
      v[t] = row && ix >= 0 && ix < a.w ? _mm512_maskz_loadu_epi8(m, row + ix * a.c + cb * 64) : zsplat;
    }
    const __m512i ab_lo = _mm512_unpacklo_epi8(v[0], v[1]), ab_hi = _mm512_unpackhi_epi8(v[0], v[1]);
    const __m512i cd_lo = _mm512_unpacklo_epi8(v[2], v[3]), cd_hi = _mm512_unpackhi_epi8(v[2], v[3]);
    _mm512_storeu_si512(dst + 0, _mm512_unpacklo_epi16(ab_lo, cd_lo));
    _mm512_storeu_si512(dst + 1, _mm512_unpackhi_epi16(ab_lo, cd_lo));
    _mm512_storeu_si512(dst + 2, _mm512_unpacklo_epi16(ab_hi, cd_hi));
    _mm512_storeu_si512(dst + 3, _mm512_unpackhi_epi16(ab_hi, cd_hi));
  }
}

// Block cb of output row (n, oy) from the interleaved input rows rows[ky]. NT > 0: the number of
// (kernel row, column group) taps, their weights held in registers across the row.
template <int NT>
void dw_block(const DwArgs& a, const Geometry& ge, int64_t n, int64_t oy, int64_t cb, __mmask64 m,
              const uint8_t* const* rows) {
  const int64_t nt = NT > 0 ? NT : a.kh * ge.nq;
  constexpr int kRegs = NT > 0 ? 4 * NT : 1;
  __m512i wr[kRegs];
  const auto* wv = reinterpret_cast<const __m512i*>(a.wpk + cb * 256);  // tap u at wv[u * ncb * 4]
  if constexpr (NT > 0)
    for (int u = 0; u < NT; ++u)
      for (int i = 0; i < 4; ++i) wr[4 * u + i] = _mm512_loadu_si512(wv + u * ge.ncb * 4 + i);
  __m512 bias[4], scale[4];
  for (int i = 0; i < 4; ++i) {
    bias[i] = _mm512_loadu_ps(a.bias + cb * 64 + i * 16);
    scale[i] = _mm512_loadu_ps(a.scale + cb * 64 + i * 16);
  }
  const __m512 hi = _mm512_set1_ps(1024.0f), zero = _mm512_setzero_ps();
  const __m512i zy = _mm512_set1_epi32(a.zy);
  constexpr int kTaps = NT > 0 ? NT : 64;
  const uint8_t* tap_small[kTaps];
  std::vector<const uint8_t*> tap_big(NT > 0 || nt <= kTaps ? 0 : static_cast<size_t>(nt));
  const uint8_t** tap = tap_big.empty() ? tap_small : tap_big.data();
  for (int64_t u = 0; u < nt; ++u) tap[u] = rows[u / ge.nq] + 4 * (u % ge.nq) * a.dw * 256;
  const int64_t step = a.sw * 256;
  for (int64_t ox = 0; ox < a.ow; ++ox) {
    __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (int64_t u = 0; u < nt; ++u) {
      const auto* in = reinterpret_cast<const __m512i*>(tap[u] + ox * step);
      for (int i = 0; i < 4; ++i) {
        __m512i w;
        if constexpr (NT > 0)
          w = wr[4 * u + i];
        else
          w = _mm512_loadu_si512(wv + u * ge.ncb * 4 + i);
        acc[i] = _mm512_dpbusd_epi32(acc[i], _mm512_loadu_si512(in + i), w);
      }
    }
    __m512i q[4];
    for (int i = 0; i < 4; ++i) {
      __m512 f = _mm512_mul_ps(_mm512_add_ps(_mm512_cvtepi32_ps(acc[i]), bias[i]), scale[i]);
      if (a.relu) f = _mm512_max_ps(f, zero);
      // Above 1024 the int32 conversion could overflow; far below it gives INT_MIN, which + zy
      // still saturates to 0. MXCSR default rounding: half to even.
      q[i] = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_min_ps(f, hi)), zy);
    }
    const __m512i r = _mm512_packus_epi16(_mm512_packs_epi32(q[0], q[1]), _mm512_packs_epi32(q[2], q[3]));
    _mm512_mask_storeu_epi8(a.y + ((n * a.oh + oy) * a.ow + ox) * a.c + cb * 64, m, r);
  }
}
}  // namespace

void dw_pack_avx512(const int8_t* w, int64_t c, int64_t kh, int64_t kw, int8_t* out) {
  const int64_t ncb = (c + 63) / 64, nq = (kw + 3) / 4;
  std::memset(out, 0, static_cast<size_t>(kh * nq * ncb * 256));
  for (int64_t ky = 0; ky < kh; ++ky)
    for (int64_t q = 0; q < nq; ++q)
      for (int64_t cb = 0; cb < ncb; ++cb)
        for (int64_t i = 0; i < 4; ++i)
          for (int64_t d = 0; d < 16; ++d)
            for (int64_t t = 0; t < 4; ++t) {
              const int64_t ch = cb * 64 + lane_channel(i, d), kx = 4 * q + t;
              if (ch < c && kx < kw)
                out[((ky * nq + q) * ncb + cb) * 256 + i * 64 + 4 * d + t] = w[(ch * kh + ky) * kw + kx];
            }
}

void dw_permute_avx512(const float* in, int64_t c, float* out) {
  const int64_t ncb = (c + 63) / 64;
  for (int64_t cb = 0; cb < ncb; ++cb)
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t d = 0; d < 16; ++d) {
        const int64_t ch = cb * 64 + lane_channel(i, d);
        out[cb * 64 + i * 16 + d] = ch < c ? in[ch] : 0.0f;
      }
}

void dw_rows_avx512(const DwArgs& a, int64_t r0, int64_t r1) {
  const Geometry ge = geometry(a);
  const int64_t tail = a.c - (ge.ncb - 1) * 64, nt = a.kh * ge.nq, row_bytes = ge.wpad * 256;
  const __mmask64 tail_mask = tail == 64 ? ~__mmask64{0} : (__mmask64{1} << tail) - 1;
  // One 64-channel block at a time, its interleaved input rows each built once and used by every
  // output row that reads it (a few KB each: they stay in L1): slot (n * H + iy) % ekh (one output
  // row's kernel rows land in distinct slots), and one slot of zx for rows outside X.
  const int64_t ekh = (a.kh - 1) * a.dh + 1;
  std::vector<uint8_t> buf(static_cast<size_t>((ekh + 1) * row_bytes));
  std::vector<int64_t> tag(static_cast<size_t>(ekh));
  uint8_t* pad_row = buf.data() + ekh * row_bytes;
  interleave_row(a, ge, nullptr, 0, ~__mmask64{0}, pad_row);
  std::vector<const uint8_t*> rows(static_cast<size_t>(a.kh));
  for (int64_t cb = 0; cb < ge.ncb; ++cb) {
    const __mmask64 m = cb + 1 == ge.ncb ? tail_mask : ~__mmask64{0};
    std::fill(tag.begin(), tag.end(), -1);
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / a.oh, oy = r % a.oh;
      for (int64_t ky = 0; ky < a.kh; ++ky) {
        const int64_t iy = oy * a.sh - a.ph + ky * a.dh;
        if (iy < 0 || iy >= a.h) {
          rows[static_cast<size_t>(ky)] = pad_row;
          continue;
        }
        const int64_t id = n * a.h + iy, slot = id % ekh;
        uint8_t* b = buf.data() + slot * row_bytes;
        if (tag[static_cast<size_t>(slot)] != id) {
          interleave_row(a, ge, a.x + id * a.w * a.c, cb, m, b);
          tag[static_cast<size_t>(slot)] = id;
        }
        rows[static_cast<size_t>(ky)] = b;
      }
      if (nt == 3)
        dw_block<3>(a, ge, n, oy, cb, m, rows.data());
      else if (nt == 1)
        dw_block<1>(a, ge, n, oy, cb, m, rows.data());
      else
        dw_block<0>(a, ge, n, oy, cb, m, rows.data());
    }
  }
}

}  // namespace ember::qbackend
