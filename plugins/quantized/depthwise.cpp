// The portable int8 depthwise kernel (Note [Int8 depthwise convolution] in Depthwise.h): the
// reference for the AVX-512 one and the path on CPUs without AVX-512 VNNI.
#include <algorithm>
#include <cmath>

#include "Depthwise.h"

namespace ember::qbackend {

void dw_row_portable(const DwArgs& a, int64_t n, int64_t oy) {
  for (int64_t ox = 0; ox < a.ow; ++ox) {
    uint8_t* out = a.y + ((n * a.oh + oy) * a.ow + ox) * a.c;
    for (int64_t ch = 0; ch < a.c; ++ch) {
      int32_t acc = 0;
      for (int64_t ky = 0; ky < a.kh; ++ky) {
        const int64_t iy = oy * a.sh - a.ph + ky * a.dh;
        for (int64_t kx = 0; kx < a.kw; ++kx) {
          const int64_t ix = ox * a.sw - a.pw + kx * a.dw;
          const int32_t xv =
              iy >= 0 && iy < a.h && ix >= 0 && ix < a.w ? a.x[((n * a.h + iy) * a.w + ix) * a.c + ch] : a.zx;
          acc += xv * a.wpk[(ch * a.kh + ky) * a.kw + kx];
        }
      }
      float f = (static_cast<float>(acc) + a.bias[ch]) * a.scale[ch];
      if (a.relu) f = std::max(f, 0.0f);
      f = std::min(std::max(f, -1024.0f), 1024.0f);
      const int32_t q = static_cast<int32_t>(std::nearbyint(f)) + a.zy;
      out[ch] = static_cast<uint8_t>(std::clamp(q, 0, 255));
    }
  }
}

}  // namespace ember::qbackend
