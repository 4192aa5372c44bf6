// bench/resample: the resampling operators beside LibTorch 1.13 in one process, one thread, as
// ratios (best of 7 batches of ~0.1 s each side):
//   - F::interpolate on 8x32x64x64 float32 (NCHW) to 128x128 (2x up) and 45x45 (down) in every
//     2-D mode, 1-D linear and 3-D trilinear/nearest on comparable sizes;
//   - the bilinear backward (a scatter);
//   - grid_sample 8x32x64x64 at a 64x64 affine grid, bilinear/nearest/bicubic, and its backward;
//   - unfold (im2col) 8x64x56x56 with 3x3 blocks, and fold (col2im) back.
// Run with OMP_NUM_THREADS=1, e.g. OMP_NUM_THREADS=1 taskset -c 1 build-bench/bin/bench_resample
#include <torch/torch.h>

#include <cstdio>
#include <vector>

#include "BenchTorch.h"
#include "ember/ember.h"

namespace {

using bench::random_tensor;
using bench::to_torch;
using bench::time_it;

namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;

// Both sides' timings, their ratio, and the largest difference of their results.
template <class E, class T>
void row(const char* what, E&& ember_fn, T&& torch_fn) {
  const double diff = (to_torch(ember_fn().contiguous()) - torch_fn()).abs().max().template item<double>();
  const bench::Times e = time_it(ember_fn), t = time_it(torch_fn);
  std::printf("%-40s %8.3f / %-8.3f %8.3f / %-8.3f %8.2f   %.1e\n", what, e.best * 1e3, e.median * 1e3, t.best * 1e3,
              t.median * 1e3, e.best / t.best, diff);
}

}  // namespace

int main() {
  at::set_num_threads(1);
  ember::set_num_threads(1);
  ember::plugins::load("cpu");
  std::printf("%-40s %-19s %-19s %8s   %s\n", "op", "ember ms best/med", "torch ms best/med", "ember/torch",
              "max diff");

  const ember::Tensor x = random_tensor({8, 32, 64, 64}, 1);
  const at::Tensor tx = to_torch(x);
  struct Mode {
    const char* name;
    EF::InterpolateFuncOptions::mode_t e;
    TF::InterpolateFuncOptions::mode_t t;
    bool interp;
  };
  for (const Mode& m : {Mode{"nearest", ember::kNearest, torch::kNearest, false},
                        Mode{"bilinear", ember::kBilinear, torch::kBilinear, true},
                        Mode{"bicubic", ember::kBicubic, torch::kBicubic, true}}) {
    for (int64_t s : {128, 45}) {
      auto eo = EF::InterpolateFuncOptions().size(std::vector<int64_t>{s, s}).mode(m.e);
      auto to = TF::InterpolateFuncOptions().size(std::vector<int64_t>{s, s}).mode(m.t);
      if (m.interp) eo.align_corners(false), to.align_corners(false);
      const std::string what = std::string("interpolate ") + m.name + " 64->" + std::to_string(s);
      row(
          what.c_str(), [&] { return EF::interpolate(x, eo); }, [&] { return TF::interpolate(tx, to); });
    }
  }
  {
    const ember::Tensor x1 = random_tensor({8, 32, 4096}, 2);
    const at::Tensor t1 = to_torch(x1);
    row(
        "interpolate linear 1d 4096->8192", [&] { return ember::upsample_linear1d(x1, {8192}, false); },
        [&] { return at::upsample_linear1d(t1, at::IntArrayRef{8192}, false); });
    const ember::Tensor x3 = random_tensor({2, 16, 16, 32, 32}, 3);
    const at::Tensor t3 = to_torch(x3);
    row(
        "interpolate trilinear 3d 2x up",
        [&] {
          return ember::upsample_trilinear3d(x3, {32, 64, 64}, false);
        },
        [&] {
          return at::upsample_trilinear3d(t3, {32, 64, 64}, false);
        });
    row(
        "interpolate nearest 3d 2x up",
        [&] {
          return ember::upsample_nearest3d(x3, {32, 64, 64});
        },
        [&] {
          return at::upsample_nearest3d(t3, {32, 64, 64});
        });
  }
  {
    const ember::Tensor g = random_tensor({8, 32, 128, 128}, 4);
    const at::Tensor tg = to_torch(g);
    row(
        "upsample_bilinear2d_backward 128->64",
        [&] {
          return ember::upsample_bilinear2d_backward(g, {128, 128}, {8, 32, 64, 64}, false);
        },
        [&] {
          return at::upsample_bilinear2d_backward(tg, {128, 128}, {8, 32, 64, 64}, false);
        });
  }
  {
    const ember::Tensor theta = random_tensor({8, 2, 3}, 5) + ember::tensor({1., 0., 0., 0., 1., 0.}).view({1, 2, 3});
    const ember::Tensor grid = EF::affine_grid(theta, {8, 32, 64, 64}, false);
    const at::Tensor tgrid = to_torch(grid);
    const char* names[] = {"bilinear", "nearest", "bicubic"};
    for (int64_t mode = 0; mode < 3; ++mode) {
      const std::string what = std::string("grid_sample ") + names[mode];
      row(
          what.c_str(), [&] { return ember::grid_sampler_2d(x, grid, mode, 0, false); },
          [&] { return at::grid_sampler_2d(tx, tgrid, mode, 0, false); });
    }
    const ember::Tensor go = random_tensor({8, 32, 64, 64}, 6);
    const at::Tensor tgo = to_torch(go);
    row(
        "grid_sample bilinear backward (input, grid)",
        [&] {
          return std::get<1>(ember::grid_sampler_2d_backward(go, x, grid, 0, 0, false, {true, true}));
        },
        [&] {
          return std::get<1>(at::grid_sampler_2d_backward(tgo, tx, tgrid, 0, 0, false, {true, true}));
        });
  }
  {
    const ember::Tensor im = random_tensor({8, 64, 56, 56}, 7);
    const at::Tensor tim = to_torch(im);
    row(
        "unfold 3x3 pad 1 (im2col)",
        [&] {
          return ember::im2col(im, {3, 3}, {1, 1}, {1, 1}, {1, 1});
        },
        [&] {
          return at::im2col(tim, {3, 3}, {1, 1}, {1, 1}, {1, 1});
        });
    const ember::Tensor col = ember::im2col(im, {3, 3}, {1, 1}, {1, 1}, {1, 1});
    const at::Tensor tcol = to_torch(col);
    row(
        "fold 3x3 pad 1 (col2im)",
        [&] {
          return ember::col2im(col, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
        },
        [&] {
          return at::col2im(tcol, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
        });
  }
  return 0;
}
