// bench/order_nn: the order statistics, unique, searchsorted, einsum and the Core ATen nn kernels
// (cdist, group norm, softmax) beside LibTorch 1.13's, in one process, on one thread (run it
// pinned: taskset -c 1), reported as time ratios ember / torch (< 1: Ember is faster). Best and
// median of 7 repetitions of calls batched to ~0.1 s (BenchUtil.h).
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

#include "BenchTorch.h"
#include "ember/ember.h"

namespace {

using bench::random_tensor;
using bench::to_torch;

using bench::measure;
using Stat = bench::Times;

template <class T>
void keep(const T& t) {
  asm volatile("" : : "g"(t.data_ptr()) : "memory");
}

void row(const char* what, const Stat& e, const Stat& t) {
  std::printf("%-44s %10.3f ms /%10.3f ms  %10.3f ms /%10.3f ms  %6.2f\n", what, e.best * 1e3, e.median * 1e3,
              t.best * 1e3, t.median * 1e3, e.best / t.best);
}

}  // namespace

int main() {
  ember::set_num_threads(1);
  at::set_num_threads(1);
  std::printf("%-44s %27s  %27s  %6s\n", "op (1 thread)", "ember best / median", "torch best / median", "ratio");

  const ember::Tensor x = random_tensor({256, 4096});
  const at::Tensor tx = to_torch(x);
  row("median.dim [256, 4096] dim 1", measure([&] { keep(std::get<0>(ember::median(x, 1))); }),
      measure([&] { keep(std::get<0>(at::median(tx, 1))); }));
  row("kthvalue k=100 [256, 4096] dim 1", measure([&] { keep(std::get<0>(ember::kthvalue(x, 100, 1))); }),
      measure([&] { keep(std::get<0>(at::kthvalue(tx, 100, 1))); }));
  row("median (all) 1M", measure([&] { keep(ember::median(x)); }), measure([&] { keep(at::median(tx)); }));

  const ember::Tensor ints = (random_tensor({1 << 20}, 3) * 2000).to(ember::kInt64);
  const at::Tensor tints = to_torch(random_tensor({1 << 20}, 3)).mul(2000).to(at::kLong);
  row("_unique2 1M int64 (inverse, counts)",
      measure([&] { keep(std::get<0>(ember::_unique2(ints, true, true, true))); }),
      measure([&] { keep(std::get<0>(at::_unique2(tints, true, true, true))); }));

  const ember::Tensor bounds = ember::arange(4096, ember::kFloat32) / 4096.0 - 0.5;
  const at::Tensor tbounds = at::arange(4096, at::kFloat) / 4096.0 - 0.5;
  const ember::Tensor vals = random_tensor({1 << 20}, 5);
  const at::Tensor tvals = to_torch(vals);
  row("searchsorted 1M in 4096", measure([&] { keep(ember::searchsorted(bounds, vals)); }),
      measure([&] { keep(at::searchsorted(tbounds, tvals)); }));

  const ember::Tensor a = random_tensor({64, 128, 64}), b = random_tensor({64, 64, 128}, 2);
  const at::Tensor ta = to_torch(a), tb = to_torch(b);
  row("einsum bij,bjk->bik [64,128,64]x[64,64,128]", measure([&] {
        keep(ember::einsum("bij,bjk->bik", {a, b}));
      }),
      measure([&] {
        keep(at::einsum("bij,bjk->bik", {ta, tb}));
      }));
  row("einsum ij,jk,kl->il [128,64]x[64,128]x[128,64]", measure([&] {
        keep(ember::einsum("ij,jk,kl->il", {a.select(0, 0), b.select(0, 0), a.select(0, 1)}));
      }),
      measure([&] {
        keep(at::einsum("ij,jk,kl->il", {ta.select(0, 0), tb.select(0, 0), ta.select(0, 1)}));
      }));

  const ember::Tensor p1 = random_tensor({512, 64}), p2 = random_tensor({512, 64}, 7);
  const at::Tensor tp1 = to_torch(p1), tp2 = to_torch(p2);
  for (double p : {2.0, 1.0, 3.0}) {
    const std::string what = "cdist p=" + std::to_string(static_cast<int>(p)) + " [512,64]x[512,64]";
    row(what.c_str(), measure([&] { keep(ember::cdist(p1, p2, p)); }), measure([&] { keep(at::cdist(tp1, tp2, p)); }));
  }
  row("pdist p=2 [512, 64]", measure([&] { keep(ember::pdist(p1)); }), measure([&] { keep(at::pdist(tp1)); }));

  const ember::Tensor g = random_tensor({32, 64, 32, 32}), gw = random_tensor({64}, 2), gb = random_tensor({64}, 3);
  const at::Tensor tg = to_torch(g), tgw = to_torch(gw), tgb = to_torch(gb);
  row("native_group_norm [32,64,32,32] 8 groups",
      measure([&] { keep(std::get<0>(ember::native_group_norm(g, gw, gb, 32, 64, 1024, 8, 1e-5))); }),
      measure([&] { keep(std::get<0>(at::native_group_norm(tg, tgw, tgb, 32, 64, 1024, 8, 1e-5))); }));
  const auto [ey, em, er] = ember::native_group_norm(g, gw, gb, 32, 64, 1024, 8, 1e-5);
  const auto [ty, tm, tr] = at::native_group_norm(tg, tgw, tgb, 32, 64, 1024, 8, 1e-5);
  row("native_group_norm_backward (same)", measure([&] {
        keep(std::get<0>(ember::native_group_norm_backward(g, g, em, er, gw, 32, 64, 1024, 8, {true, true, true})));
      }),
      measure([&] {
        keep(std::get<0>(at::native_group_norm_backward(tg, tg, tm, tr, tgw, 32, 64, 1024, 8, {true, true, true})));
      }));
  row("_softmax [256, 4096] dim 1", measure([&] { keep(ember::_softmax(x, 1, false)); }),
      measure([&] { keep(at::_softmax(tx, 1, false)); }));
  row("_softmax [256, 4096] dim 0", measure([&] { keep(ember::_softmax(x, 0, false)); }),
      measure([&] { keep(at::_softmax(tx, 0, false)); }));
  const ember::Tensor y = ember::_softmax(x, 1, false);
  const at::Tensor ty2 = at::_softmax(tx, 1, false);
  row("_softmax_backward_data [256, 4096] dim 1",
      measure([&] { keep(ember::_softmax_backward_data(x, y, 1, ember::kFloat32)); }),
      measure([&] { keep(at::_softmax_backward_data(tx, ty2, 1, at::kFloat)); }));
  return 0;
}
