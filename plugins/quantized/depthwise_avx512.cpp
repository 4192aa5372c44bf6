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

#include "Depthwise.h"

namespace ember::qbackend {

namespace {
// Register i, dword 4k + j of a 64-channel block holds channel 16k + 4i + j.
inline int64_t lane_channel(int64_t i, int64_t d) { return 16 * (d / 4) + 4 * i + d % 4; }

// One 64-channel block `cb` of an output row for one pass `g` over 4 kernel rows, from the
// interleaved input `ibuf`. KW > 0: the kernel width, its weights held in registers across the row.
template <int KW>
void dw_block(const DwArgs& a, int64_t n, int64_t oy, int64_t g, int64_t cb, int64_t ncb, bool last, __mmask64 m,
              const uint8_t* ibuf, int32_t* abuf) {
  const int64_t kw = KW > 0 ? KW : a.kw;
  constexpr int kRegs = KW > 0 ? 4 * KW : 1;
  __m512i wr[kRegs];
  const auto* wv = reinterpret_cast<const __m512i*>(a.wpk + (g * kw * ncb + cb) * 256);
  if constexpr (KW > 0)
    for (int kx = 0; kx < KW; ++kx)
      for (int i = 0; i < 4; ++i) wr[4 * kx + i] = _mm512_loadu_si512(wv + kx * ncb * 4 + i);
  __m512 bias[4], scale[4];
  for (int i = 0; i < 4; ++i) {
    bias[i] = _mm512_loadu_ps(a.bias + cb * 64 + i * 16);
    scale[i] = _mm512_loadu_ps(a.scale + cb * 64 + i * 16);
  }
  const __m512 lo = _mm512_set1_ps(-1024.0f), hi = _mm512_set1_ps(1024.0f), zero = _mm512_setzero_ps();
  const __m512i zy = _mm512_set1_epi32(a.zy);
  for (int64_t ox = 0; ox < a.ow; ++ox) {
    __m512i acc[4];
    int32_t* ab = abuf + (ox * ncb + cb) * 64;
    for (int i = 0; i < 4; ++i) acc[i] = g == 0 ? _mm512_setzero_si512() : _mm512_loadu_si512(ab + i * 16);
    for (int64_t kx = 0; kx < kw; ++kx) {
      const auto* in = reinterpret_cast<const __m512i*>(ibuf + ((ox * a.sw + kx * a.dw) * ncb + cb) * 256);
      for (int i = 0; i < 4; ++i) {
        __m512i w;
        if constexpr (KW > 0)
          w = wr[4 * kx + i];
        else
          w = _mm512_loadu_si512(wv + kx * ncb * 4 + i);
        acc[i] = _mm512_dpbusd_epi32(acc[i], _mm512_loadu_si512(in + i), w);
      }
    }
    if (!last) {
      for (int i = 0; i < 4; ++i) _mm512_storeu_si512(ab + i * 16, acc[i]);
      continue;
    }
    __m512i q[4];
    for (int i = 0; i < 4; ++i) {
      __m512 f = _mm512_mul_ps(_mm512_add_ps(_mm512_cvtepi32_ps(acc[i]), bias[i]), scale[i]);
      if (a.relu) f = _mm512_max_ps(f, zero);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);         // keeps the int32 conversion in range
      q[i] = _mm512_add_epi32(_mm512_cvtps_epi32(f), zy);  // MXCSR default: half to even
    }
    const __m512i r = _mm512_packus_epi16(_mm512_packs_epi32(q[0], q[1]), _mm512_packs_epi32(q[2], q[3]));
    _mm512_mask_storeu_epi8(a.y + ((n * a.oh + oy) * a.ow + ox) * a.c + cb * 64, m, r);
  }
}
}  // namespace

void dw_pack_avx512(const int8_t* w, int64_t c, int64_t kh, int64_t kw, int8_t* out) {
  const int64_t ncb = (c + 63) / 64, ng = (kh + 3) / 4;
  std::memset(out, 0, static_cast<size_t>(ng * kw * ncb * 256));
  for (int64_t g = 0; g < ng; ++g)
    for (int64_t kx = 0; kx < kw; ++kx)
      for (int64_t cb = 0; cb < ncb; ++cb)
        for (int64_t i = 0; i < 4; ++i)
          for (int64_t d = 0; d < 16; ++d)
            for (int64_t t = 0; t < 4; ++t) {
              const int64_t ch = cb * 64 + lane_channel(i, d), ky = 4 * g + t;
              if (ch < c && ky < kh)
                out[((g * kw + kx) * ncb + cb) * 256 + i * 64 + 4 * d + t] = w[(ch * kh + ky) * kw + kx];
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

void dw_row_avx512(const DwArgs& a, int64_t n, int64_t oy, uint8_t* ibuf, int32_t* abuf) {
  const int64_t ncb = (a.c + 63) / 64, ng = (a.kh + 3) / 4, wpad = a.w + 2 * a.pw;
  const int64_t tail = a.c - (ncb - 1) * 64;
  const __mmask64 tail_mask = tail == 64 ? ~__mmask64{0} : (__mmask64{1} << tail) - 1;
  const __m512i zsplat = _mm512_set1_epi8(static_cast<char>(a.zx));
  for (int64_t g = 0; g < ng; ++g) {
    // The 4 input rows of this pass (rows outside X, or past the kernel, read zx).
    const uint8_t* rows[4];
    for (int t = 0; t < 4; ++t) {
      const int64_t ky = 4 * g + t, iy = oy * a.sh - a.ph + ky * a.dh;
      rows[t] = ky < a.kh && iy >= 0 && iy < a.h ? a.x + ((n * a.h + iy) * a.w) * a.c : nullptr;
    }
    // Interleave: ibuf[(col * ncb + cb) * 256 + i * 64 ...], zx splat in the padding columns.
    for (int64_t col = 0; col < wpad; ++col) {
      const int64_t ix = col - a.pw;
      __m512i* dst = reinterpret_cast<__m512i*>(ibuf + col * ncb * 256);
      if (ix < 0 || ix >= a.w) {
        for (int64_t q = 0; q < ncb * 4; ++q) _mm512_storeu_si512(dst + q, zsplat);
        continue;
      }
      for (int64_t cb = 0; cb < ncb; ++cb) {
        const __mmask64 m = cb + 1 == ncb ? tail_mask : ~__mmask64{0};
        __m512i v[4];
        for (int t = 0; t < 4; ++t) v[t] = rows[t] ? _mm512_maskz_loadu_epi8(m, rows[t] + ix * a.c + cb * 64) : zsplat;
        const __m512i ab_lo = _mm512_unpacklo_epi8(v[0], v[1]), ab_hi = _mm512_unpackhi_epi8(v[0], v[1]);
        const __m512i cd_lo = _mm512_unpacklo_epi8(v[2], v[3]), cd_hi = _mm512_unpackhi_epi8(v[2], v[3]);
        _mm512_storeu_si512(dst + cb * 4 + 0, _mm512_unpacklo_epi16(ab_lo, cd_lo));
        _mm512_storeu_si512(dst + cb * 4 + 1, _mm512_unpackhi_epi16(ab_lo, cd_lo));
        _mm512_storeu_si512(dst + cb * 4 + 2, _mm512_unpacklo_epi16(ab_hi, cd_hi));
        _mm512_storeu_si512(dst + cb * 4 + 3, _mm512_unpackhi_epi16(ab_hi, cd_hi));
      }
    }
    const bool last = g + 1 == ng;
    for (int64_t cb = 0; cb < ncb; ++cb) {
      const __mmask64 m = cb + 1 == ncb ? tail_mask : ~__mmask64{0};
      if (a.kw == 3)
        dw_block<3>(a, n, oy, g, cb, ncb, last, m, ibuf, abuf);
      else if (a.kw == 5)
        dw_block<5>(a, n, oy, g, cb, ncb, last, m, ibuf, abuf);
      else
        dw_block<0>(a, n, oy, g, cb, ncb, last, m, ibuf, abuf);
    }
  }
}

}  // namespace ember::qbackend
