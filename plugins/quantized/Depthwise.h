#pragma once
// The int8 depthwise convolution kernel (groups == C == OC), used by quantized::conv2d in place
// of oneDNN 2.6's int8 depthwise kernel, which is slower than its f32 one.
//
// Note [Int8 depthwise convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// X is uint8 NHWC (unpadded), W int8 (C, 1, KH, KW), Y uint8 NHWC. Per channel c:
//   acc = sum over taps of x * w, where a tap outside X reads X's zero point zx,
//   y = clamp(zy + nearbyint(act(s[c] * (float(acc) + b[c]))), 0, 255)
// with s[c] = sx * sw[c] / sy and b[c] = bias[c] / (sx * sw[c]) - zx * sum(w[c]) (the zero point
// folded as the oneDNN path folds it, Note [Quantized linear]); act is ReLU or the identity.
// Both kernels do these float operations in this order (round half to even), so they agree bit
// for bit; oneDNN's kernel (EMBER_QUANTIZED_DEPTHWISE=onednn) folds the zero point the same way and
// gave the same integers on every test output; the contract is within one step.
// The AVX-512 VNNI kernel works on 64-channel blocks. Each input row is interleaved once per block
// (bytes [c][4 kernel columns] at every padded column j: x[j], x[j + dw], x[j + 2 dw], x[j + 3 dw],
// the u8x4 groups vpdpbusd sums; wider kernels take several groups, missing columns have zero
// weights) and cached while the output rows that read it are computed; each output pixel then
// takes KH * ceil(KW / 4) vpdpbusd per 16 channels, weights held in registers for 3x3. The
// unpacks leave channel 16k + 4i + j in dword 4k + j of register i (k: 128-bit lane); packed
// weights and per-channel floats use that order, and packs_epi32/packus_epi16 restore the
// natural order on output. A 3-wide kernel wastes a quarter of the multiplies (the 4th column).
#include <cstdint>

namespace ember::qbackend {

struct DwArgs {
  const uint8_t* x;  // NHWC image 0
  int64_t h, w, c;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
  const int8_t* wpk;   // weights: (C, KH, KW) portable, dw_pack_avx512's layout otherwise
  const float* bias;   // b[c] above (permuted for AVX-512)
  const float* scale;  // s[c]
  int32_t zx, zy;
  bool relu;
  uint8_t* y;  // NHWC output image 0
};

// One output row (image n, row oy), all channels.
void dw_row_portable(const DwArgs& a, int64_t n, int64_t oy);
#if defined(__x86_64__)
// Output rows [r0, r1) of the flattened (N, OH).
void dw_rows_avx512(const DwArgs& a, int64_t r0, int64_t r1);
// w (C, KH, KW) -> the AVX-512 layout (KH * (KW + 3) / 4 * C64 * 4 bytes); floats (C) -> (C64), permuted.
void dw_pack_avx512(const int8_t* w, int64_t c, int64_t kh, int64_t kw, int8_t* out);
void dw_permute_avx512(const float* in, int64_t c, float* out);
#endif

}  // namespace ember::qbackend
