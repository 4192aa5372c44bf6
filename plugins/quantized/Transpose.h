#pragma once
// A uint8 transpose shared by the conv (NCHW -> NHWC input) and the NCHW pools (which pool
// small planes channels-last).
#include <emmintrin.h>

#include <cstdint>

namespace ember::qbackend {

// out[p * C + c] = in[c * ld + p] for p < HW, a range of positions of one uint8 image: 16x16
// tiles transposed in SSE2 registers (four rounds of unpacks leave column c in register
// bitrev4(c)), edges scalar. About 3x faster than oneDNN's u8 nchw->nhwc reorder on this CPU.
inline void transpose_image(const uint8_t* in, uint8_t* out, int64_t C, int64_t HW, int64_t ld) {
  static constexpr int kBitrev4[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  int64_t c0 = 0;
  for (; c0 + 16 <= C; c0 += 16) {
    int64_t p0 = 0;
    for (; p0 + 16 <= HW; p0 += 16) {
      __m128i v[16], n[16];
      for (int i = 0; i < 16; ++i) v[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + (c0 + i) * ld + p0));
      for (int j = 0; j < 8; ++j)
        n[j] = _mm_unpacklo_epi8(v[2 * j], v[2 * j + 1]), n[j + 8] = _mm_unpackhi_epi8(v[2 * j], v[2 * j + 1]);
      for (int j = 0; j < 8; ++j)
        v[j] = _mm_unpacklo_epi16(n[2 * j], n[2 * j + 1]), v[j + 8] = _mm_unpackhi_epi16(n[2 * j], n[2 * j + 1]);
      for (int j = 0; j < 8; ++j)
        n[j] = _mm_unpacklo_epi32(v[2 * j], v[2 * j + 1]), n[j + 8] = _mm_unpackhi_epi32(v[2 * j], v[2 * j + 1]);
      for (int j = 0; j < 8; ++j)
        v[j] = _mm_unpacklo_epi64(n[2 * j], n[2 * j + 1]), v[j + 8] = _mm_unpackhi_epi64(n[2 * j], n[2 * j + 1]);
      for (int i = 0; i < 16; ++i)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (p0 + kBitrev4[i]) * C + c0), v[i]);
    }
    for (; p0 < HW; ++p0)
      for (int64_t i = 0; i < 16; ++i) out[p0 * C + c0 + i] = in[(c0 + i) * ld + p0];
  }
  for (int64_t c = c0; c < C; ++c)
    for (int64_t p = 0; p < HW; ++p) out[p * C + c] = in[c * ld + p];
}

}  // namespace ember::qbackend
