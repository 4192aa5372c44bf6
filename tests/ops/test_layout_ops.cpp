// The layout/dtype backends against the dense CPU kernels. See Note [Layout op harness].
//
// Note [Layout op harness]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The backend-generic harness (Note [Backend op harness]) compares a backend with the CPU on the
// same strided inputs. The sparse (SparseCPU/SparseCsrCPU) and quantized (QuantizedCPU) kernels
// are instead checked against the dense float CPU operator: each case is a function called once
// on dense CPU inputs (the reference) and once on the same inputs converted -- made COO
// (coalesced, or uncoalesced with every entry split in two), CSR, or quantized -- and sent to the
// device under test (EMBER_TEST_BACKEND: cpu by default, meta; a CUDA or HIP plugin runs the same
// cases by naming its device). A sparse result is compared after to_dense(), a quantized one
// after dequantize() within one quantization step of the output (max pooling exactly). Random
// patterns over several densities and dtypes (integers and float64 included). A backend without
// values (meta) compares sizes, dtypes and layouts, and may raise NotImplementedError where the
// result's nnz is the data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/quantized.h"

using namespace ember;

namespace {

struct Backend {
  std::string name;
  Device device;
  bool computes_values;
  std::string unavailable;  // why every case is skipped ("" when the device is there)
};

// EMBER_TEST_BACKEND names the device (cpu, meta, cuda, cuda:1); the plugin serving it is loaded by
// that name unless EMBER_TEST_BACKEND_PLUGIN names another (cuda-emulated serves cuda on the host).
const Backend& backend() {
  static const Backend b = [] {
    const char* env = std::getenv("EMBER_TEST_BACKEND");
    const std::string name = env && *env ? env : "cpu";
    if (name == "cpu") return Backend{name, Device(kCPU), true, ""};
    const char* plugin = std::getenv("EMBER_TEST_BACKEND_PLUGIN");
    plugins::load(plugin && *plugin ? plugin : name);
    if (name == "meta") return Backend{name, Device(kMeta), false, ""};
    const Device d(name);
    Backend gpu{name, d.has_index() ? d : Device(d.type(), 0), true, ""};
    if (device_count(d.type()) == 0)
      gpu.unavailable = "the " + name + " plugin loaded but reports no " + name + " device on this machine";
    return gpu;
  }();
  return b;
}

// ---- sparse ----------------------------------------------------------------------------------

enum class Fmt { Coo, CooUncoalesced, Csr };
const char* fmt_name(Fmt f) { return f == Fmt::Coo ? "coo" : f == Fmt::CooUncoalesced ? "coo-uncoalesced" : "csr"; }

// `dense` in format f with its first `sparse_dim` dimensions sparse (COO) on `dev`.
Tensor to_format(const Tensor& dense, Fmt f, int64_t sparse_dim, Device dev) {
  if (f == Fmt::Csr) return dense.to_sparse_csr().to(dev);
  const Tensor c = dense.to_sparse(sparse_dim);
  if (f == Fmt::Coo) return c.to(dev);
  // Every entry twice, in reverse order, with halves that sum to it (exact in every dtype).
  const Tensor ix = cat({c.indices().flip({1}), c.indices()}, 1);
  const Tensor half = c.values().div(2).to(dense.scalar_type());
  const Tensor v = cat({half.flip({0}), c.values().sub(half)}, 0);
  return sparse_coo_tensor(ix, v, dense.sizes()).to(dev);
}

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct SparseCase {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;  // the dense inputs
  std::vector<bool> sparse;                  // which inputs are made sparse
  Fn fn;                                     // called on the converted inputs
  Fn ref{};                                  // on the dense inputs (default: fn)
  bool csr = true;                           // has CSR kernels (2-D inputs)
  int64_t sparse_dim = -1;                   // COO sparse dims (-1: all)
  std::vector<ScalarType> dtypes = {kFloat32, kFloat64, kInt64, kInt32, kInt16, kUInt8};
};

Tensor sum_dims(const Tensor& t, std::vector<int64_t> dims) { return ember::sum(t, dims); }

// softmax over the specified entries (the others -inf), the dense reference of _sparse_softmax.
Tensor masked_softmax(const Tensor& d, int64_t dim, bool log) {
  const Tensor hidden = d.eq(0);
  const Tensor x = d.masked_fill(hidden, -INFINITY);
  return (log ? x.log_softmax(dim) : x.softmax(dim)).masked_fill(hidden, 0);
}

const std::vector<SparseCase>& sparse_cases() {
  static const std::vector<SparseCase> cases = [] {
    const std::vector<int64_t> m{7, 6};
    const std::vector<ScalarType> floats = {kFloat32, kFloat64, kFloat16, kBFloat16};
    std::vector<SparseCase> c;
    c.push_back({"add sparse+sparse", {m, m}, {true, true}, [](auto& a) { return a[0].add(a[1], 2); }});
    c.push_back({"add dense+sparse", {m, m}, {false, true}, [](auto& a) { return a[0].add(a[1]); }});
    c.push_back({"add_ sparse", {m, m}, {true, true}, [](auto& a) { return a[0].clone().add_(a[1]); }});
    c.push_back({"add_ dense+=sparse", {m, m}, {false, true}, [](auto& a) { return a[0].clone().add_(a[1], 3); }});
    c.push_back({"mul sparse*sparse", {m, m}, {true, true}, [](auto& a) { return a[0].mul(a[1]); }});
    c.push_back({"mul sparse*dense", {m, m}, {true, false}, [](auto& a) { return a[0].mul(a[1]); }, {}, false});
    c.push_back({"mul dense*sparse", {m, m}, {false, true}, [](auto& a) { return a[0].mul(a[1]); }, {}, false});
    c.push_back({"mul scalar", {m}, {true}, [](auto& a) { return a[0].mul(3); }});
    c.push_back({"mul_ scalar", {m}, {true}, [](auto& a) { return a[0].clone().mul_(-2); }});
    c.push_back({"zero_", {m}, {true}, [](auto& a) { return a[0].clone().zero_(); }});
    c.push_back({"sum", {m}, {true}, [](auto& a) { return a[0].sum(); }});
    c.push_back({"sum dim 0", {m}, {true}, [](auto& a) { return sum_dims(a[0], {0}); }});
    c.push_back({"sum dim 1", {m}, {true}, [](auto& a) { return sum_dims(a[0], {1}); }});
    c.push_back({"sum dims 0,1", {m}, {true}, [](auto& a) { return sum_dims(a[0], {0, 1}); }});
    // Hybrid COO: one sparse dim, two dense.
    c.push_back({"sum hybrid dims 0,2",
                 {{5, 3, 2}},
                 {true},
                 [](auto& a) {
                   return sum_dims(a[0], {0, 2});
                 },
                 {},
                 false,
                 1});
    c.push_back({"sum hybrid dim 1", {{5, 3, 2}}, {true}, [](auto& a) { return sum_dims(a[0], {1}); }, {}, false, 1});
    c.push_back({"to_dense hybrid",
                 {{5, 3, 2}},
                 {true},
                 [](auto& a) { return a[0].to_dense(); },
                 [](auto& a) { return a[0]; },
                 false,
                 1});
    c.push_back(
        {"coalesce", {m}, {true}, [](auto& a) { return a[0].coalesce(); }, [](auto& a) { return a[0]; }, false});
    c.push_back({"transpose", {m}, {true}, [](auto& a) { return a[0].t(); }, {}, false});
    c.push_back({"mm sparse@dense", {m, {6, 5}}, {true, false}, [](auto& a) { return ember::mm(a[0], a[1]); }});
    c.push_back({"mm dense@sparse", {{4, 7}, m}, {false, true}, [](auto& a) { return ember::mm(a[0], a[1]); }});
    c.push_back({"addmm", {{7, 1}, m, {6, 5}}, {false, true, false}, [](auto& a) {
                   return ember::addmm(a[0], a[1], a[2], 2, 3);
                 }});
    c.push_back({"sparse_mask",
                 {m, m},
                 {false, true},
                 [](auto& a) { return a[0].sparse_mask(a[1]); },
                 [](auto& a) { return a[0].mul(a[1].ne(0)); }});
    c.back().dtypes.push_back(kFloat16);
    c.push_back({"sparse_mask of sparse",
                 {m, m},
                 {true, true},
                 [](auto& a) { return a[0].sparse_mask(a[1]); },
                 [](auto& a) { return a[0].mul(a[1].ne(0)); }});
    // Half and bfloat16 products accumulate in float.
    for (const char* which : {"mm half", "addmm half"}) {
      const bool add = std::string(which) == "addmm half";
      c.push_back({which, {{7, 1}, m, {6, 5}}, {false, true, false}, [add](auto& a) {
                     return add ? ember::addmm(a[0], a[1], a[2], 2, 3) : ember::mm(a[1], a[2]);
                   }});
      c.back().dtypes = {kFloat16, kBFloat16};
    }
    for (int64_t dim : {0, 1}) {
      for (bool log : {false, true}) {
        c.push_back({std::string(log ? "log_softmax" : "softmax") + " dim " + std::to_string(dim),
                     {m},
                     {true},
                     [dim, log](auto& a) {
                       return log ? _sparse_log_softmax(a[0], dim, false) : _sparse_softmax(a[0], dim, false);
                     },
                     [dim, log](auto& a) {
                       // The dense reference in float for the 16-bit dtypes.
                       const ScalarType dt = a[0].scalar_type();
                       const bool narrow = dt == kFloat16 || dt == kBFloat16;
                       return masked_softmax(narrow ? a[0].to(kFloat32) : a[0], dim, log).to(dt);
                     },
                     false});
        c.back().dtypes = floats;
      }
    }
    return c;
  }();
  return cases;
}

// Values in [1, 4] at about `density` of the places (so a split entry never cancels).
Tensor random_pattern(std::vector<int64_t> shape, ScalarType dt, double density) {
  return ember::randint(1, 5, shape).mul(ember::rand(shape).lt(density)).to(dt);
}

double tolerance(ScalarType dt) {
  switch (dt) {
    case kFloat16:
      return 1e-2;
    case kBFloat16:
      return 5e-2;
    case kFloat32:
      return 1e-5;
    case kFloat64:
      return 1e-12;
    default:
      return 0;
  }
}

// "" when `got` (on the backend) matches `want` (dense, CPU); else what differs.
std::string compare(const Tensor& got, const Tensor& want, ScalarType dt) {
  std::ostringstream os;
  if (got.sizes() != want.sizes()) os << "sizes " << got.sizes() << " vs " << want.sizes();
  if (got.scalar_type() != want.scalar_type()) os << " dtype " << got.scalar_type() << " vs " << want.scalar_type();
  if (!os.str().empty() || !backend().computes_values) return os.str();
  const Tensor g = (got.layout() == kStrided ? got : got.to_dense()).cpu().to(kFloat64);
  const Tensor w = want.to(kFloat64);
  const double tol = tolerance(dt);
  const bool ok = tol == 0 ? g.equal(w) : g.allclose(w, tol, tol);
  if (!ok) os << "values differ: max |diff| " << g.sub(w).abs().max().item<double>();
  return os.str();
}

TEST(LayoutOps, SparseKernelsMatchDense) {
  const Backend& be = backend();
  if (!be.unavailable.empty()) GTEST_SKIP() << be.unavailable;
  manual_seed(2024);
  int runs = 0, not_implemented = 0;
  for (const SparseCase& sc : sparse_cases()) {
    for (ScalarType dt : sc.dtypes) {
      for (double density : {0.0, 0.3, 1.0}) {
        for (Fmt f : {Fmt::Coo, Fmt::CooUncoalesced, Fmt::Csr}) {
          if (f == Fmt::Csr && !sc.csr) continue;
          std::ostringstream what;
          what << sc.name << " | " << dt << " | density " << density << " | " << fmt_name(f) << " | " << be.name;
          SCOPED_TRACE(what.str());
          std::vector<Tensor> dense, args;
          for (size_t i = 0; i < sc.shapes.size(); ++i) {
            dense.push_back(sc.sparse[i] ? random_pattern(sc.shapes[i], dt, density)
                                         : ember::randint(-3, 4, sc.shapes[i]).to(dt));
            const int64_t sd = sc.sparse_dim < 0 ? dense[i].dim() : sc.sparse_dim;
            args.push_back(sc.sparse[i] ? to_format(dense[i], f, sd, be.device) : dense[i].to(be.device));
          }
          const Tensor want = sc.ref ? sc.ref(dense) : sc.fn(dense);
          ++runs;
          Tensor got;
          try {
            got = sc.fn(args);
          } catch (const NotImplementedError& e) {
            // Only a backend without values may give up, and only over the data-dependent nnz.
            const std::string msg = e.what();
            EXPECT_TRUE(!be.computes_values && msg.find("nnz") != std::string::npos) << msg;
            ++not_implemented;
            continue;
          }
          EXPECT_EQ(got.device(), be.device);
          EXPECT_EQ(compare(got, want, dt), "");
        }
      }
    }
  }
  EXPECT_GT(runs, 500);
  if (be.computes_values) {
    EXPECT_EQ(not_implemented, 0);
  }
}

// The layout of each result: sparse in, sparse out where LibTorch's is (add/mul of sparse
// operands, sum keeping a sparse dim, softmax), dense for dense + sparse and products.
TEST(LayoutOps, SparseResultLayouts) {
  if (!backend().unavailable.empty()) GTEST_SKIP() << backend().unavailable;
  const Tensor d = ember::ones({3, 3}).to(backend().device);
  const Tensor coo = ember::eye(3).to_sparse().to(backend().device),
               csr = ember::eye(3).to_sparse_csr().to(backend().device);
  EXPECT_EQ(coo.mul(d).layout(), kSparse);
  EXPECT_EQ(d.add(coo).layout(), kStrided);
  EXPECT_EQ(ember::mm(coo, d).layout(), kStrided);
  EXPECT_EQ(ember::mm(csr, d).layout(), kStrided);
  EXPECT_EQ(d.sparse_mask(csr).layout(), kSparseCsr);
  if (!backend().computes_values) return;  // the rest have a data-dependent nnz
  EXPECT_EQ(coo.add(coo).layout(), kSparse);
  EXPECT_EQ(csr.add(csr).layout(), kSparseCsr);
  EXPECT_EQ(ember::sum(coo, {0}).layout(), kSparse);
}

// Gradients through the sparse kernels on the device under test against the cpu's, for a COO or
// CSR leaf and dense leaves: each case's result (densified) is weighted and summed, and every
// leaf's gradient is compared (a sparse one after to_dense()).
TEST(LayoutOps, SparseGradientsMatchCpu) {
  const Backend& be = backend();
  if (!be.unavailable.empty()) GTEST_SKIP() << be.unavailable;
  if (be.device.is_cpu() || !be.computes_values) GTEST_SKIP() << "compares a device's gradients with the cpu's";
  using GradFn = std::function<Tensor(const Tensor& s, const Tensor& d, const Tensor& e)>;
  struct GradCase {
    std::string name;
    GradFn fn;
    bool csr;
  };
  const std::vector<GradCase> cases = {
      {"mm", [](auto& s, auto& d, auto&) { return ember::mm(s, d); }, true},
      {"addmm", [](auto& s, auto& d, auto&) { return ember::addmm(d.sum(0), s, d, 0.5, 2); }, true},
      {"dense @ sparse", [](auto& s, auto&, auto& e) { return ember::mm(e.t(), s); }, true},
      {"sum dim 1", [](auto& s, auto&, auto&) { return ember::sum(s, {1}).to_dense(); }, true},
      {"sum", [](auto& s, auto&, auto&) { return s.sum(); }, true},
      {"to_dense", [](auto& s, auto&, auto&) { return s.to_dense(); }, true},
      {"mul scalar, add", [](auto& s, auto&, auto&) { return s.mul(2).add(s).to_dense(); }, true},
      {"mul dense", [](auto& s, auto&, auto& e) { return s.mul(e).to_dense(); }, false},
      {"add into dense", [](auto& s, auto&, auto& e) { return e.add(s, 3); }, false},
      {"sparse_mask", [](auto& s, auto&, auto& e) { return e.sparse_mask(s).to_dense(); }, true},
      {"softmax dim 1", [](auto& s, auto&, auto&) { return _sparse_softmax(s, 1, false).to_dense(); }, false},
      {"log_softmax dim 0", [](auto& s, auto&, auto&) { return _sparse_log_softmax(s, 0, false).to_dense(); }, false},
  };
  manual_seed(99);
  const Tensor pattern = ember::randn({6, 5}, kFloat64).mul(ember::rand({6, 5}).lt(0.5));
  const Tensor mat = ember::randn({5, 3}, kFloat64), other = ember::randn({6, 5}, kFloat64);
  // The leaves' gradients on `dev`, on the cpu.
  auto grads = [&](const GradCase& gc, bool csr, Device dev) {
    Tensor s = (csr ? pattern.to_sparse_csr() : pattern.to_sparse()).to(dev).requires_grad_();
    // detach(): on the cpu, to() would return mat itself, and its requires_grad would outlive the case.
    Tensor d = mat.detach().to(dev).requires_grad_(), e = other.detach().to(dev).requires_grad_();
    const Tensor out = gc.fn(s, d, e);
    EXPECT_EQ(out.device(), dev);
    const Tensor weight = ember::arange(out.numel(), kFloat64).reshape(out.sizes()).mul(0.37).sin().to(dev);
    out.mul(weight).sum().backward();
    std::vector<Tensor> g;
    for (const Tensor& leaf : {s, d, e}) {
      const Tensor lg = leaf.grad();
      g.push_back(!lg.defined() ? lg : (lg.layout() == kStrided ? lg : lg.to_dense()).cpu());
    }
    return g;
  };
  for (const GradCase& gc : cases) {
    for (bool csr : {false, true}) {
      if (csr && !gc.csr) continue;
      SCOPED_TRACE(gc.name + (csr ? " | csr | " : " | coo | ") + be.name);
      const auto want = grads(gc, csr, Device(kCPU)), got = grads(gc, csr, be.device);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i].defined(), want[i].defined()) << "leaf " << i;
        if (want[i].defined()) {
          EXPECT_TRUE(got[i].allclose(want[i], 1e-10, 1e-10)) << "leaf " << i;
        }
      }
    }
  }
}

// ---- quantized -------------------------------------------------------------------------------

struct QCase {
  std::string name;
  // The quantized call and its float reference on the dequantized inputs.
  std::function<Tensor(const std::vector<Tensor>&)> q, ref;
  std::vector<Tensor> inputs;  // quantized CPU tensors
  bool exact = false;          // no requantization (max pooling, relu, cat, views)
};

Tensor qrand(std::vector<int64_t> shape, double scale, int64_t zp, ScalarType qdt = kQUInt8) {
  return quantize_per_tensor(ember::randn(shape), scale, zp, qdt);
}

std::vector<QCase> quantized_cases() {
  manual_seed(77);
  std::vector<QCase> c;
  const Tensor x = qrand({2, 3, 8, 8}, 0.05, 120), y = qrand({2, 3, 8, 8}, 0.04, 100);
  c.push_back({"relu", [](auto& a) { return relu(a[0]); }, [](auto& a) { return relu(a[0]); }, {x}, true});
  c.push_back({"cat",
               [](auto& a) {
                 return cat({a[0], a[1]}, 1);
               },
               [](auto& a) {
                 return cat({a[0], a[1]}, 1);
               },
               {x, qrand({2, 2, 8, 8}, 0.05, 120)},
               true});
  c.push_back({"max_pool2d",
               [](auto& a) {
                 return max_pool2d(a[0], {3, 3}, {2, 2}, {1, 1});
               },
               [](auto& a) {
                 return max_pool2d(a[0], {3, 3}, {2, 2}, {1, 1});
               },
               {x},
               true});
  c.push_back({"avg_pool2d",
               [](auto& a) {
                 return avg_pool2d(a[0], {3, 3}, {2, 2}, {1, 1});
               },
               [](auto& a) {
                 return avg_pool2d(a[0], {3, 3}, {2, 2}, {1, 1});
               },
               {x}});
  c.push_back({"adaptive_avg_pool2d",
               [](auto& a) {
                 return adaptive_avg_pool2d(a[0], {3, 3});
               },
               [](auto& a) {
                 return adaptive_avg_pool2d(a[0], {3, 3});
               },
               {x}});
  c.push_back({"flatten", [](auto& a) { return a[0].flatten(1); }, [](auto& a) { return a[0].flatten(1); }, {x}, true});
  c.push_back({"add",
               [](auto& a) { return quantized::add(a[0], a[1], 0.08, 128); },
               [](auto& a) { return a[0].add(a[1]); },
               {x, y}});
  c.push_back({"add_relu",
               [](auto& a) { return quantized::add_relu(a[0], a[1], 0.08, 10); },
               [](auto& a) { return relu(a[0].add(a[1])); },
               {x, y}});
  c.push_back({"mul",
               [](auto& a) { return quantized::mul(a[0], a[1], 0.05, 128); },
               [](auto& a) { return a[0].mul(a[1]); },
               {x, y}});
  c.push_back({"mul_relu",
               [](auto& a) { return quantized::mul_relu(a[0], a[1], 0.05, 3); },
               [](auto& a) { return relu(a[0].mul(a[1])); },
               {x, y}});
  const Tensor bias = ember::randn({16});
  c.push_back({"linear",
               [bias](auto& a) { return quantized::linear(a[0], a[1], bias, 0.2, 110); },
               [bias](auto& a) { return ember::linear(a[0], a[1], bias); },
               {qrand({5, 24}, 0.03, 120), qrand({16, 24}, 0.02, 0, kQInt8)}});
  c.push_back({"linear_relu",
               [](auto& a) { return quantized::linear_relu(a[0], a[1], std::nullopt, 0.1, 0); },
               [](auto& a) { return relu(ember::linear(a[0], a[1], std::nullopt)); },
               {qrand({5, 24}, 0.03, 120), qrand({16, 24}, 0.02, 0, kQInt8)}});
  // Per-channel weights (one scale per output channel).
  const Tensor wscales = ember::rand({16}, kFloat64).mul(0.02).add(0.005);
  const Tensor wpc = quantize_per_channel(ember::randn({16, 24}), wscales, ember::zeros({16}, kInt64), 0, kQInt8);
  c.push_back({"linear per-channel",
               [bias](auto& a) { return quantized::linear(a[0], a[1], bias, 0.2, 110); },
               [bias](auto& a) { return ember::linear(a[0], a[1], bias); },
               {qrand({5, 24}, 0.03, 120), wpc}});
  const Tensor cb = ember::randn({4});
  c.push_back({"conv2d",
               [cb](auto& a) {
                 return quantized::conv2d(a[0], a[1], cb, {1, 1}, {1, 1}, {1, 1}, 1, 0.1, 120);
               },
               [cb](auto& a) {
                 return conv2d(a[0], a[1], cb, {1, 1}, {1, 1});
               },
               {x, qrand({4, 3, 3, 3}, 0.02, 0, kQInt8)}});
  const Tensor cpc =
      quantize_per_channel(ember::randn({4, 3, 3, 3}), ember::tensor({0.01, 0.02, 0.015, 0.03}, kFloat64),
                           ember::zeros({4}, kInt64), 0, kQInt8);
  c.push_back({"conv2d per-channel",
               [cb](auto& a) {
                 return quantized::conv2d(a[0], a[1], cb, {1, 1}, {1, 1}, {1, 1}, 1, 0.1, 120);
               },
               [cb](auto& a) {
                 return conv2d(a[0], a[1], cb, {1, 1}, {1, 1});
               },
               {x, cpc}});
  c.push_back({"conv2d_relu",
               [](auto& a) {
                 return quantized::conv2d_relu(a[0], a[1], std::nullopt, {2, 2}, {0, 0}, {1, 1}, 1, 0.1, 0);
               },
               [](auto& a) {
                 return relu(conv2d(a[0], a[1], std::nullopt, {2, 2}));
               },
               {x, qrand({4, 3, 3, 3}, 0.02, 0, kQInt8)}});
  // copy_ of floats into a quantized tensor quantizes them with its quantizer.
  const Tensor f = ember::randn({2, 3, 8, 8});
  c.push_back({"copy_", [f](auto& a) { return a[0].clone().copy_(f); }, [f](auto&) { return f; }, {x}});
  return c;
}

// The quantized kernels are the cpu's: a quantized tensor on a device is refused by name, whether
// moved there or quantized there.
TEST(LayoutOps, QuantizedOnADeviceRaises) {
  const Backend& be = backend();
  if (!be.unavailable.empty()) GTEST_SKIP() << be.unavailable;
  if (be.device.is_cpu() || !be.computes_values) GTEST_SKIP() << "the cpu has the quantized kernels";
  const Tensor q = quantize_per_tensor(ember::randn({4}), 0.1, 0, kQUInt8);
  const std::string tail = " quantized tensors on " + be.device.str() +
                           " are not supported: the quantized kernels are the cpu's (QuantizedCPU)";
  try {
    (void)q.to(be.device);
    ADD_FAILURE() << "moving a quantized tensor did not raise";
  } catch (const NotImplementedError& e) {
    EXPECT_EQ(std::string(e.what()), "[_empty_affine_quantized]" + tail);
  }
  try {
    (void)quantize_per_tensor(ember::randn({4}).to(be.device), 0.1, 0, kQUInt8);
    ADD_FAILURE() << "quantizing on the device did not raise";
  } catch (const NotImplementedError& e) {
    EXPECT_EQ(std::string(e.what()), "[quantize_per_tensor]" + tail);
  }
}

TEST(LayoutOps, QuantizedKernelsMatchFloatWithinOneStep) {
  const Backend& be = backend();
  if (!be.computes_values || be.device.type() != kCPU) GTEST_SKIP() << "no quantized kernels on " << be.name;
  for (const QCase& qc : quantized_cases()) {
    SCOPED_TRACE(qc.name + " | " + be.name);
    std::vector<Tensor> args, deq;
    for (const Tensor& t : qc.inputs) {
      args.push_back(t.to(be.device));
      deq.push_back(t.dequantize());
    }
    const Tensor got = qc.q(args);
    ASSERT_TRUE(got.is_quantized());
    EXPECT_EQ(got.device().type(), be.device.type());
    const Tensor want = qc.ref(deq);
    const Tensor g = got.cpu().dequantize();
    ASSERT_EQ(g.sizes(), want.sizes());
    // Inputs already on the grid come through unchanged; requantized outputs are within one step
    // (0.5 for rounding, the rest for the kernels' float/integer arithmetic), and clamped where
    // the reference leaves the output's range.
    const double step = got.q_scale();
    const int64_t zp = got.q_zero_point();
    const double lo = (0 - zp) * step, hi = (255 - zp) * step;
    const Tensor clamped = want.clamp(lo, hi);
    const double err = g.sub(clamped).abs().max().item<double>();
    if (qc.exact)
      EXPECT_EQ(err, 0) << "not exact";
    else
      EXPECT_LE(err, step * (1 + 1e-6));
    // int_repr and dequantize agree: (q - zero_point) * scale.
    EXPECT_TRUE(got.int_repr().cpu().to(kFloat64).sub(zp).mul(step).allclose(g.to(kFloat64), 0, 1e-6));
  }
}

}  // namespace
