// bench/elementwise: Ember's elementwise ops and reductions beside LibTorch's, in one process,
// on the thread count given (argv[1], default 1), reported as time ratios ember / torch (< 1:
// Ember is faster) and as bandwidth against a raw loop over the same buffers.
//   small ops: add, mul_, relu, sum on 1, 100 and 1000 floats;
//   large: add of two 16M-float tensors (preallocated output and fresh output), relu on
//   64x32x26x26, sum / amax over 16M floats, softmax over 4096 rows of 4096;
//   the pointwise math families on 4M floats into a preallocated out, beside a raw loop of the
//   same std:: function over the same buffers (pct: raw time / ember time).
// Best and median of 7 repetitions of calls batched to ~0.1 s (BenchUtil.h).
#include <omp.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

std::string fmt_time(double s) {
  char buf[32];
  if (s < 1e-6) std::snprintf(buf, sizeof buf, "%.0f ns", s * 1e9);
  else if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  return buf;
}

// One row: ember and torch best / median, the ratio of bests, and (bytes > 0) ember's and the
// raw loop's bandwidth.
void row(const char* what, const Stat& e, const Stat& t, double bytes = 0, const Stat* raw = nullptr) {
  std::printf("%-34s %10s /%10s  %10s /%10s  %6.2f", what, fmt_time(e.best).c_str(), fmt_time(e.median).c_str(),
              fmt_time(t.best).c_str(), fmt_time(t.median).c_str(), e.best / t.best);
  if (bytes > 0) std::printf("  ember %5.1f GB/s", bytes / e.best * 1e-9);
  if (raw) std::printf("  raw %5.1f GB/s (%3.0f%%)", bytes / raw->best * 1e-9, 100 * raw->best / e.best);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  at::set_num_threads(threads);
  ember::set_num_threads(threads);
  ember::plugins::load("cpu");
  std::printf("threads %d (OMP_WAIT_POLICY=%s)\n", threads,
              std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "unset");
  std::printf("%-34s %22s  %22s  %6s\n", "", "ember best / median", "torch best / median", "e/t");

  for (int64_t n : {1, 100, 1000}) {
    ember::Tensor a = random_tensor({n}), b = random_tensor({n});
    at::Tensor ta = to_torch(a), tb = to_torch(b);
    const std::string sn = std::to_string(n);
    row(("add, " + sn).c_str(), measure([&] { keep(ember::add(a, b)); }), measure([&] { keep(at::add(ta, tb)); }));
    row(("mul_, " + sn).c_str(), measure([&] { a.mul_(1.0f); }), measure([&] { ta.mul_(1.0f); }));
    row(("relu, " + sn).c_str(), measure([&] { keep(ember::relu(a)); }), measure([&] { keep(at::relu(ta)); }));
    row(("sum, " + sn).c_str(), measure([&] { keep(a.sum()); }), measure([&] { keep(ta.sum()); }));
  }

  {
    const int64_t n = int64_t{1} << 24;
    ember::Tensor a = random_tensor({n}), b = random_tensor({n}), out = ember::empty({n});
    at::Tensor ta = to_torch(a), tb = to_torch(b), tout = at::empty({n});
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* po = out.data_ptr<float>();
    const Stat raw = measure([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t i = 0; i < n; ++i) po[i] = pa[i] + pb[i];
      keep(out);
    });
    const double bytes = 12.0 * static_cast<double>(n);
    row("add 16M, preallocated out", measure([&] { ember::add_out(out, a, b); }),
        measure([&] { at::add_out(tout, ta, tb); }), bytes, &raw);
    row("add 16M, fresh output", measure([&] { keep(ember::add(a, b)); }), measure([&] { keep(at::add(ta, tb)); }),
        bytes, &raw);
    // STREAM-read reference: 64 independent accumulators, so the loop is bound by memory, not by
    // the add latency.
    const Stat rawsum = measure([&] {
      float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
      {
        const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
        const int64_t b = n / nt * t, e = t == nt - 1 ? n : n / nt * (t + 1);
        float acc[64] = {};
        int64_t i = b;
        for (; i + 64 <= e; i += 64)
          for (int k = 0; k < 64; ++k) acc[k] += pa[i + k];
        for (; i < e; ++i) acc[0] += pa[i];
        for (float v : acc) total += v;
      }
      asm volatile("" : : "g"(total) : "memory");
    });
    row("sum 16M", measure([&] { keep(a.sum()); }), measure([&] { keep(ta.sum()); }), 4.0 * n, &rawsum);
    row("amax 16M", measure([&] { keep(ember::amax(a)); }), measure([&] { keep(at::amax(ta)); }), 4.0 * n, &rawsum);
    ember::Tensor m = a.view({4096, 4096});
    at::Tensor tm = ta.view({4096, 4096});
    row("softmax 4096x4096, dim 1", measure([&] { keep(ember::softmax(m, 1)); }),
        measure([&] { keep(at::softmax(tm, 1)); }), 8.0 * n, &raw);
    row("sum 4096x4096, dim 0", measure([&] { keep(m.sum(0)); }), measure([&] { keep(tm.sum(0)); }), 4.0 * n,
        &rawsum);
  }
  {
    // The pointwise-unary and pointwise-binary families: out= calls, so both sides write the same
    // preallocated buffer the raw loop writes.
    const int64_t n = int64_t{1} << 22;
    ember::Tensor a = random_tensor({n}), b = random_tensor({n}), out = ember::empty({n});
    // random_tensor() draws from [-1, 1): shifted copies for the functions with a narrower domain.
    ember::Tensor pos = a.abs() + 1.5f, unit = a * 0.99f;
    at::Tensor ta = to_torch(a), tb = to_torch(b), tpos = to_torch(pos), tunit = to_torch(unit), tout = at::empty({n});
    float* po = out.data_ptr<float>();
    struct U {
      const char* name;
      const ember::Tensor* x;
      const at::Tensor* tx;
      std::function<void(ember::Tensor&, const ember::Tensor&)> e;
      std::function<void(at::Tensor&, const at::Tensor&)> t;
      float (*raw)(float);
    };
#define EMBER_BENCH_U(op, x, tx) \
  U { #op, &x, &tx, [](ember::Tensor& o, const ember::Tensor& v) { ember::op##_out(o, v); }, \
      [](at::Tensor& o, const at::Tensor& v) { at::op##_out(o, v); }, [](float v) { return std::op(v); } }
    const std::vector<U> unary = {
        EMBER_BENCH_U(acos, unit, tunit),  EMBER_BENCH_U(asin, unit, tunit),  EMBER_BENCH_U(atan, a, ta),
        EMBER_BENCH_U(acosh, pos, tpos),   EMBER_BENCH_U(asinh, a, ta),       EMBER_BENCH_U(atanh, unit, tunit),
        EMBER_BENCH_U(tan, a, ta),         EMBER_BENCH_U(sinh, a, ta),        EMBER_BENCH_U(cosh, a, ta),
        EMBER_BENCH_U(expm1, a, ta),       EMBER_BENCH_U(log2, pos, tpos),    EMBER_BENCH_U(log10, pos, tpos),
        EMBER_BENCH_U(lgamma, pos, tpos),  EMBER_BENCH_U(ceil, a, ta),        EMBER_BENCH_U(floor, a, ta),
        EMBER_BENCH_U(trunc, a, ta),
        // round is half to even: nearbyint, not std::round.
        U{"round", &a, &ta, [](ember::Tensor& o, const ember::Tensor& v) { ember::round_out(o, v); },
          [](at::Tensor& o, const at::Tensor& v) { at::round_out(o, v); }, [](float v) { return std::nearbyint(v); }},
    };
#undef EMBER_BENCH_U
    for (const U& u : unary) {
      const float* px = u.x->data_ptr<float>();
      const Stat raw = measure([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < n; ++i) po[i] = u.raw(px[i]);
        keep(out);
      });
      row((std::string(u.name) + " 4M, out=").c_str(), measure([&] { u.e(out, *u.x); }),
          measure([&] { u.t(tout, *u.tx); }), 8.0 * static_cast<double>(n), &raw);
    }
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    struct Bin {
      const char* name;
      std::function<void()> e, t;
      float (*raw)(float, float);
    };
    const std::vector<Bin> binary = {
        {"atan2", [&] { ember::atan2_out(out, a, b); }, [&] { at::atan2_out(tout, ta, tb); },
         [](float x, float y) { return std::atan2(x, y); }},
        {"fmod", [&] { ember::fmod_out(out, a, b); }, [&] { at::fmod_out(tout, ta, tb); },
         [](float x, float y) { return std::fmod(x, y); }},
        {"remainder", [&] { ember::remainder_out(out, a, b); }, [&] { at::remainder_out(tout, ta, tb); },
         [](float x, float y) {
           float m = std::fmod(x, y);
           return m != 0 && (y < 0) != (m < 0) ? m + y : m;
         }},
        {"div floor", [&] { ember::div_out(out, a, b, "floor"); }, [&] { at::div_out(tout, ta, tb, "floor"); },
         [](float x, float y) { return std::floor(x / y); }},
        {"maximum", [&] { ember::maximum_out(out, a, b); }, [&] { at::maximum_out(tout, ta, tb); },
         [](float x, float y) { return x != x || x > y ? x : y; }},
        {"clamp_min tensor", [&] { ember::clamp_min_out(out, a, b); }, [&] { at::clamp_min_out(tout, ta, tb); },
         [](float x, float y) { return x != x || x > y ? x : y; }},
    };
    for (const Bin& op : binary) {
      const Stat raw = measure([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < n; ++i) po[i] = op.raw(pa[i], pb[i]);
        keep(out);
      });
      row((std::string(op.name) + " 4M, out=").c_str(), measure(op.e), measure(op.t), 12.0 * static_cast<double>(n),
          &raw);
    }
    const Stat raw_lrelu = measure([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t i = 0; i < n; ++i) po[i] = pa[i] > 0 ? pa[i] : pa[i] * 0.01f;
      keep(out);
    });
    row("leaky_relu 4M, out=", measure([&] { ember::leaky_relu_out(out, a); }),
        measure([&] { at::leaky_relu_out(tout, ta); }), 8.0 * static_cast<double>(n), &raw_lrelu);
    // The transcendental activations (SLEEF on dense float32).
    row("elu 4M, out=", measure([&] { ember::elu_out(out, a); }), measure([&] { at::elu_out(tout, ta); }),
        8.0 * static_cast<double>(n));
    row("softplus 4M, out=", measure([&] { ember::softplus_out(out, a); }),
        measure([&] { at::softplus_out(tout, ta); }), 8.0 * static_cast<double>(n));
    row("mish 4M, out=", measure([&] { ember::mish_out(out, a); }), measure([&] { at::mish_out(tout, ta); }),
        8.0 * static_cast<double>(n));
  }
  {
    // LibTorch's everyday functions that Ember composes from other operators (LibTorch has its own
    // kernel for most): functional calls, both sides allocating.
    const int64_t n = int64_t{1} << 22;
    ember::Tensor a = random_tensor({n}), b = random_tensor({n});
    ember::Tensor p = a.abs() * 0.9f + 0.05f;  // in (0, 1): logit's domain, xlogy's positive y
    at::Tensor ta = to_torch(a), tb = to_torch(b), tp = to_torch(p);
    struct F {
      const char* name;
      std::function<void()> e, t;
    };
    const std::vector<F> composites = {
        {"square", [&] { keep(ember::square(a)); }, [&] { keep(at::square(ta)); }},
        {"exp2", [&] { keep(ember::exp2(a)); }, [&] { keep(at::exp2(ta)); }},
        {"logit", [&] { keep(ember::logit(p)); }, [&] { keep(at::logit(tp)); }},
        {"xlogy", [&] { keep(ember::xlogy(a, p)); }, [&] { keep(at::xlogy(ta, tp)); }},
        {"logaddexp", [&] { keep(ember::logaddexp(a, b)); }, [&] { keep(at::logaddexp(ta, tb)); }},
        {"sinc", [&] { keep(ember::sinc(a)); }, [&] { keep(at::sinc(ta)); }},
        {"hardshrink", [&] { keep(ember::hardshrink(a)); }, [&] { keep(at::hardshrink(ta)); }},
        {"softshrink", [&] { keep(ember::softshrink(a)); }, [&] { keep(at::softshrink(ta)); }},
        {"log_sigmoid", [&] { keep(ember::log_sigmoid(a)); }, [&] { keep(at::log_sigmoid(ta)); }},
        {"relu6", [&] { keep(ember::relu6(a)); }, [&] { keep(at::relu6(ta)); }},
        {"selu", [&] { keep(ember::selu(a)); }, [&] { keep(at::selu(ta)); }},
        {"nansum", [&] { keep(ember::nansum(a)); }, [&] { keep(at::nansum(ta)); }},
        {"isclose", [&] { keep(ember::isclose(a, b)); }, [&] { keep(at::isclose(ta, tb)); }},
    };
    for (const F& f : composites)
      row((std::string(f.name) + " 4M").c_str(), measure(f.e), measure(f.t), 8.0 * static_cast<double>(n));
  }
  {
    ember::Tensor x = random_tensor({64, 32, 26, 26});
    at::Tensor tx = to_torch(x);
    row("relu 64x32x26x26", measure([&] { keep(ember::relu(x)); }), measure([&] { keep(at::relu(tx)); }),
        8.0 * static_cast<double>(x.numel()));
  }
  return 0;
}
