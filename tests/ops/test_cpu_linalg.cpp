// The matrix products (mm, mm.out, bmm, addmm, matmul) against a naive float64 triple loop:
// every supported dtype, transposed and sliced operands, empty dimensions, matmul's dimension
// cases with batch broadcasting, and the error messages. Reference values are read straight from
// memory through sizes and strides, never through the operators under test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;

namespace {

using ember::optest::values;
using ember::optest::write_elem;

std::string name(ScalarType t) { return std::string(dtype_name(t)); }

const std::vector<ScalarType> kDtypes = {kUInt8,    kInt8,    kInt16,  kInt32, kInt64,
                                         kFloat16, kBFloat16, kFloat32, kFloat64};

// Small values exactly representable in every dtype (bf16 included).
double sample(int64_t i, ScalarType dt, int seed) {
  const int64_t k = (i * 7 + seed * 13 + 3) % 11;  // 0..10
  if (dt == kUInt8) return static_cast<double>(k % 4);
  if (is_integral_type(dt, false)) return static_cast<double>(k % 5 - 2);
  return (static_cast<double>(k) - 5) * 0.5 + 0.25;
}

Tensor filled(std::vector<int64_t> shape, ScalarType dt, int seed) {
  Tensor t = ember::empty(shape, dt);
  char* p = static_cast<char*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) write_elem(p + i * t.itemsize(), dt, sample(i, dt, seed));
  return t;
}

enum class Kind { Contiguous, Transposed, ColSliced, RowPadded };
const Kind kKinds[] = {Kind::Contiguous, Kind::Transposed, Kind::ColSliced, Kind::RowPadded};
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Contiguous: return "contiguous";
    case Kind::Transposed: return "transposed";
    case Kind::ColSliced: return "col-sliced";
    default: return "row-padded";
  }
}

// Logical shape `shape` (>= 2-D) laid out as `kind`: transposed (last two dims swapped in
// memory), every other column (inner stride 2: must be copied), or the leading columns of a wider
// matrix (row stride > columns: passed by strides).
Tensor make(std::vector<int64_t> shape, ScalarType dt, Kind kind, int seed) {
  const size_t nd = shape.size();
  auto s = shape;
  switch (kind) {
    case Kind::Transposed:
      std::swap(s[nd - 1], s[nd - 2]);
      return filled(s, dt, seed).transpose(-1, -2);
    case Kind::ColSliced:
      s[nd - 1] *= 2;
      return filled(s, dt, seed).slice(-1, 0, std::nullopt, 2);
    case Kind::RowPadded:
      s[nd - 1] += 3;
      return filled(s, dt, seed).slice(-1, 0, shape[nd - 1]);
    default: return filled(s, dt, seed);
  }
}

// Naive float64 batched product: a [B, M, K] x b [B, K, N] as flat values; also sum |a||b|.
struct Ref {
  std::vector<double> v, mag;
};
Ref ref_bmm(const std::vector<double>& a, const std::vector<double>& b, int64_t B, int64_t M, int64_t K, int64_t N) {
  Ref r{std::vector<double>(static_cast<size_t>(B * M * N), 0.0), std::vector<double>(static_cast<size_t>(B * M * N), 0.0)};
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0, mag = 0;
        for (int64_t p = 0; p < K; ++p) {
          const double x = a[(bi * M + i) * K + p] * b[(bi * K + p) * N + j];
          acc += x;
          mag += std::fabs(x);
        }
        r.v[(bi * M + i) * N + j] = acc;
        r.mag[(bi * M + i) * N + j] = mag;
      }
  return r;
}

double as_dtype(double v, ScalarType t) {
  switch (t) {
    case kUInt8: return static_cast<uint8_t>(static_cast<int64_t>(v));
    case kInt8: return static_cast<int8_t>(static_cast<int64_t>(v));
    case kInt16: return static_cast<int16_t>(static_cast<int64_t>(v));
    case kInt32: return static_cast<int32_t>(static_cast<int64_t>(v));
    case kInt64: return static_cast<double>(static_cast<int64_t>(v));
    default: return v;
  }
}

double rel_tol(ScalarType t) {
  switch (t) {
    case kFloat16: return 4e-3;
    case kBFloat16: return 1.6e-2;
    case kFloat32: return 1e-5;
    case kFloat64: return 1e-12;
    default: return 0;
  }
}

void expect_close(const Tensor& got, const std::vector<double>& want, const std::vector<double>& mag,
                  const std::string& what) {
  const auto g = values(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  const double tol = rel_tol(got.dtype());
  for (size_t i = 0; i < g.size(); ++i) {
    const double w = as_dtype(want[i], got.dtype());
    EXPECT_NEAR(g[i], w, tol * std::max(1.0, mag[i])) << what << " at " << i;
  }
}

std::string where(ScalarType dt, Kind ka, Kind kb, int64_t M, int64_t K, int64_t N) {
  return name(dt) + " " + kind_name(ka) + " x " + kind_name(kb) + " " + std::to_string(M) + "x" +
         std::to_string(K) + "x" + std::to_string(N);
}

const std::vector<std::array<int64_t, 3>> kShapes = {{3, 4, 5}, {1, 7, 1}, {5, 1, 6}, {17, 33, 9}, {40, 130, 70}};

}  // namespace

TEST(CpuLinalg, MmEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes)
    for (auto [M, K, N] : kShapes)
      for (Kind ka : kKinds)
        for (Kind kb : kKinds) {
          const Tensor a = make({M, K}, dt, ka, 1), b = make({K, N}, dt, kb, 2);
          const Tensor c = ember::mm(a, b);
          const std::string w = where(dt, ka, kb, M, K, N);
          ASSERT_EQ(c.dtype(), dt) << w;
          ASSERT_EQ(c.sizes(), IntArrayRef({M, N})) << w;
          EXPECT_TRUE(c.is_contiguous()) << w;
          const Ref r = ref_bmm(values(a), values(b), 1, M, K, N);
          expect_close(c, r.v, r.mag, w);
        }
}

TEST(CpuLinalg, MmMethodAndLargeFloat) {
  const Tensor a = make({200, 300}, kFloat32, Kind::Transposed, 3), b = make({300, 150}, kFloat32, Kind::RowPadded, 4);
  const Ref r = ref_bmm(values(a), values(b), 1, 200, 300, 150);
  expect_close(a.mm(b), r.v, r.mag, "method");
  expect_close(a.mm(b), r.v, r.mag, "cached primitive");
}

TEST(CpuLinalg, IntegerProductsWrap) {
  // 100 * 100 * 3 = 30000 wraps in int8 and uint8 exactly as an integer computation would.
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64}) {
    const Tensor a = ember::full({2, 3}, 100, dt), b = ember::full({3, 2}, 100, dt);
    const auto got = values(ember::mm(a, b));
    for (double g : got) EXPECT_EQ(g, as_dtype(30000, dt)) << name(dt);
  }
}

TEST(CpuLinalg, MmOut) {
  for (ScalarType dt : {kInt32, kFloat16, kFloat32, kFloat64}) {
    const Tensor a = make({4, 6}, dt, Kind::Transposed, 1), b = make({6, 3}, dt, Kind::Contiguous, 2);
    Tensor out = ember::empty({0}, dt);
    Tensor& r = ember::mm_out(out, a, b);
    EXPECT_EQ(&r, &out);
    ASSERT_EQ(out.sizes(), IntArrayRef({4, 3}));
    const Ref ref = ref_bmm(values(a), values(b), 1, 4, 6, 3);
    expect_close(out, ref.v, ref.mag, name(dt));
    // out aliasing an input: the product is computed before out is written.
    Tensor sq = make({5, 5}, dt, Kind::Contiguous, 3);
    const auto sv = values(sq);
    const Ref ref2 = ref_bmm(sv, sv, 1, 5, 5, 5);
    ember::mm_outf(sq, sq, sq);
    expect_close(sq, ref2.v, ref2.mag, std::string("aliased ") + name(dt));
  }
  Tensor wrong = ember::empty({4, 3}, kFloat64);
  EXPECT_ERROR(TypeError, ember::mm_out(wrong, ember::ones({4, 6}), ember::ones({6, 3})), "[mm]", "float32",
               "float64");
}

// As LibTorch: out is written in place with its own strides (a contiguous out of the compute dtype
// directly, keeping its storage), resized from another shape, and refused when expanded; out's
// dtype is checked before the dtype's support.
TEST(CpuLinalg, MmOutWritesIntoOut) {
  for (ScalarType dt : {kInt64, kInt32, kFloat16, kFloat32, kFloat64}) {
    for (Kind ka : kKinds) {
      const Tensor a = make({4, 6}, dt, ka, 1), b = make({6, 3}, dt, Kind::Transposed, 2);
      const Ref ref = ref_bmm(values(a), values(b), 1, 4, 6, 3);
      const std::string w = name(dt) + " " + kind_name(ka);
      // A view into a larger buffer: the product lands in it, the rest is untouched.
      Tensor buf = ember::full({20}, 7, dt);
      Tensor out = buf.narrow(0, 4, 12).view({4, 3});
      ember::mm_out(out, a, b);
      EXPECT_EQ(out.data_ptr(), static_cast<char*>(buf.data_ptr()) + 4 * buf.itemsize()) << w;
      expect_close(out, ref.v, ref.mag, w);
      for (int64_t i : {0, 1, 2, 3, 16, 17, 18, 19}) EXPECT_EQ(values(buf)[static_cast<size_t>(i)], 7) << w;
      // Transposed and column-sliced outs keep their strides.
      for (Kind ko : {Kind::Transposed, Kind::ColSliced}) {
        Tensor o = make({4, 3}, dt, ko, 5);
        const std::vector<int64_t> st(o.strides().begin(), o.strides().end());
        ember::mm_out(o, a, b);
        EXPECT_EQ(o.strides(), IntArrayRef(st)) << w << " into " << kind_name(ko);
        expect_close(o, ref.v, ref.mag, w + " into " + kind_name(ko));
      }
      // Another shape: resized to a contiguous [4, 3].
      Tensor o = ember::empty({2, 2}, dt);
      ember::mm_out(o, a, b);
      EXPECT_EQ(o.strides(), IntArrayRef({3, 1})) << w;
      expect_close(o, ref.v, ref.mag, w + " resized");
    }
  }
  // A contiguous out of the compute dtype is the libraries' destination: no temporary is allocated.
  for (ScalarType dt : {kInt64, kFloat32, kFloat64}) {
    // (The integer loop reads contiguous operands; the float libraries take transposed ones as they are.)
    const Tensor a = make({40, 60}, dt, Kind::Contiguous, 1);
    const Tensor b = make({60, 30}, dt, dt == kInt64 ? Kind::Contiguous : Kind::Transposed, 2);
    Tensor out = ember::empty({40, 30}, dt);
    const Ref ref = ref_bmm(values(a), values(b), 1, 40, 60, 30);
    const auto before = cpu_allocator_stats().allocations;
    ember::mm_out(out, a, b);
    EXPECT_EQ(cpu_allocator_stats().allocations, before) << name(dt);
    expect_close(out, ref.v, ref.mag, name(dt) + " direct");
  }
  Tensor expanded = ember::zeros({1, 3}).expand({4, 3});
  EXPECT_ERROR(ValueError, ember::mm_out(expanded, ember::ones({4, 6}), ember::ones({6, 3})), "[mm]",
               "more than one element of the written-to tensor");
  EXPECT_EQ(values(expanded), std::vector<double>(12, 0.0));
  const Tensor t = ember::ones({2, 3}, kBool), u = ember::ones({3, 4}, kBool);
  Tensor f64 = ember::empty({2, 4}, kFloat64), bools = ember::empty({0}, kBool);
  EXPECT_ERROR(TypeError, ember::mm_out(f64, t, u), "[mm]", "bool", "float64");
  EXPECT_ERROR(NotImplementedError, ember::mm_out(bools, t, u), "[mm]", "bool");
  EXPECT_EQ(bools.sizes(), IntArrayRef({0}));  // not resized by a call that fails
}

TEST(CpuLinalg, BmmEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes)
    for (Kind ka : kKinds)
      for (Kind kb : kKinds) {
        const int64_t B = 3, M = 5, K = 7, N = 4;
        const Tensor a = make({B, M, K}, dt, ka, 1), b = make({B, K, N}, dt, kb, 2);
        const Tensor c = ember::bmm(a, b);
        ASSERT_EQ(c.sizes(), IntArrayRef({B, M, N}));
        ASSERT_EQ(c.dtype(), dt);
        const Ref r = ref_bmm(values(a), values(b), B, M, K, N);
        expect_close(c, r.v, r.mag, where(dt, ka, kb, M, K, N));
      }
  // A batch of one matrix expanded (batch stride 0), and a batch-sliced input.
  for (ScalarType dt : {kFloat32, kFloat64, kInt64, kBFloat16}) {
    const Tensor a = make({1, 4, 6}, dt, Kind::Contiguous, 1).expand({3, 4, 6});
    const Tensor b = make({6, 6, 2}, dt, Kind::Contiguous, 2).slice(0, 0, std::nullopt, 2);
    const Ref r = ref_bmm(values(a), values(b), 3, 4, 6, 2);
    expect_close(a.bmm(b), r.v, r.mag, std::string("expanded ") + name(dt));
  }
}

TEST(CpuLinalg, Addmm) {
  const int64_t M = 4, K = 5, N = 3;
  for (ScalarType dt : kDtypes) {
    const bool fl = is_floating_type(dt);
    const std::vector<std::pair<Scalar, Scalar>> coefs =
        fl ? std::vector<std::pair<Scalar, Scalar>>{{Scalar(1), Scalar(1)}, {Scalar(0.5), Scalar(-2.0)}, {Scalar(0), Scalar(1.5)}}
           : std::vector<std::pair<Scalar, Scalar>>{{Scalar(1), Scalar(1)}, {Scalar(2), Scalar(3)}, {Scalar(0), Scalar(2)}};
    for (const std::vector<int64_t>& sshape : std::vector<std::vector<int64_t>>{{M, N}, {N}, {1, N}, {M, 1}, {}})
      for (auto [beta, alpha] : coefs) {
        const Tensor self = filled(sshape, dt, 5);
        const Tensor m1 = make({M, K}, dt, Kind::Transposed, 1), m2 = make({K, N}, dt, Kind::Contiguous, 2);
        const Tensor r = ember::addmm(self, m1, m2, beta, alpha);
        ASSERT_EQ(r.sizes(), IntArrayRef({M, N}));
        const Ref p = ref_bmm(values(m1), values(m2), 1, M, K, N);
        const auto sv = values(self.expand({M, N}));
        std::vector<double> want(p.v.size()), mag(p.v.size());
        const double b = beta.toDouble(), a = alpha.toDouble();
        for (size_t i = 0; i < want.size(); ++i) {
          want[i] = b * sv[i] + a * p.v[i];
          mag[i] = std::fabs(b * sv[i]) + std::fabs(a) * p.mag[i];
        }
        expect_close(r, want, mag, name(dt) + " beta " + std::to_string(b));
        expect_close(self.addmm(m1, m2, beta, alpha), want, mag, "method");
      }
  }
  // beta = 0 ignores self entirely, NaN and inf included.
  for (ScalarType dt : {kFloat16, kBFloat16, kFloat32, kFloat64}) {
    const Tensor self = ember::full({M, N}, std::numeric_limits<double>::quiet_NaN(), dt);
    const Tensor m1 = make({M, K}, dt, Kind::Contiguous, 1), m2 = make({K, N}, dt, Kind::Contiguous, 2);
    const Tensor r = ember::addmm(self, m1, m2, 0, 2);
    const Ref p = ref_bmm(values(m1), values(m2), 1, M, K, N);
    std::vector<double> want(p.v.size()), mag(p.v.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = 2 * p.v[i], mag[i] = 2 * p.mag[i];
    expect_close(r, want, mag, std::string("nan self ") + name(dt));
  }
  EXPECT_ERROR(ValueError, ember::addmm(ember::ones({5}), ember::ones({4, 2}), ember::ones({2, 3})), "[addmm]",
               "[5]", "[4, 3]");
  EXPECT_ERROR(TypeError, ember::addmm(ember::ones({3}, kFloat64), ember::ones({4, 2}), ember::ones({2, 3})),
               "[addmm]", "float64", "float32");
}

TEST(CpuLinalg, EmptyDimensions) {
  for (ScalarType dt : kDtypes) {
    // K = 0: zeros.
    const Tensor z = ember::mm(ember::empty({3, 0}, dt), ember::empty({0, 4}, dt));
    ASSERT_EQ(z.sizes(), IntArrayRef({3, 4}));
    for (double v : values(z)) EXPECT_EQ(v, 0) << name(dt);
    const Tensor zb = ember::bmm(ember::empty({2, 3, 0}, dt), ember::empty({2, 0, 4}, dt));
    ASSERT_EQ(zb.sizes(), IntArrayRef({2, 3, 4}));
    for (double v : values(zb)) EXPECT_EQ(v, 0) << name(dt);
    // addmm with K = 0 is beta * self.
    const Tensor za = ember::addmm(ember::ones({3, 4}, dt), ember::empty({3, 0}, dt), ember::empty({0, 4}, dt), 2, 1);
    for (double v : values(za)) EXPECT_EQ(v, 2) << name(dt);
    // M, N or the batch 0: an empty result.
    EXPECT_EQ(ember::mm(ember::empty({0, 5}, dt), ember::empty({5, 4}, dt)).sizes(), IntArrayRef({0, 4}));
    EXPECT_EQ(ember::mm(ember::empty({3, 5}, dt), ember::empty({5, 0}, dt)).sizes(), IntArrayRef({3, 0}));
    EXPECT_EQ(ember::bmm(ember::empty({0, 3, 5}, dt), ember::empty({0, 5, 2}, dt)).sizes(), IntArrayRef({0, 3, 2}));
    EXPECT_EQ(ember::matmul(ember::empty({0}, dt), ember::empty({0}, dt)).dim(), 0);
    EXPECT_EQ(values(ember::matmul(ember::empty({0}, dt), ember::empty({0}, dt)))[0], 0);
  }
}

namespace {

// numpy/PyTorch matmul semantics in float64, straight from the values.
void ref_matmul(const Tensor& at, const Tensor& bt, std::vector<int64_t>& shape, Ref& out) {
  std::vector<int64_t> as(at.sizes().begin(), at.sizes().end()), bs(bt.sizes().begin(), bt.sizes().end());
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  const std::vector<int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const auto batch = ember::optest::broadcast(ab, bb);
  int64_t nb = 1;
  for (int64_t x : batch) nb *= x;
  const auto av = values(at), bv = values(bt);
  // Gather each broadcast batch's matrices.
  std::vector<double> A(static_cast<size_t>(nb * M * K)), B(static_cast<size_t>(nb * K * N));
  auto src_batch = [&](int64_t flat, const std::vector<int64_t>& own) {
    int64_t off = 0, rem = flat;
    std::vector<int64_t> idx(batch.size());
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) idx[d] = rem % batch[d], rem /= batch[d];
    const size_t lead = batch.size() - own.size();
    for (size_t d = 0; d < own.size(); ++d) off = off * own[d] + (own[d] == 1 ? 0 : idx[lead + d]);
    return off;
  };
  for (int64_t bi = 0; bi < nb; ++bi) {
    const int64_t sa = src_batch(bi, ab), sb = src_batch(bi, bb);
    for (int64_t i = 0; i < M * K; ++i) A[bi * M * K + i] = av[sa * M * K + i];
    for (int64_t i = 0; i < K * N; ++i) B[bi * K * N + i] = bv[sb * K * N + i];
  }
  out = ref_bmm(A, B, nb, M, K, N);
  shape = batch;
  if (!a1) shape.push_back(M);
  if (!b1) shape.push_back(N);
}

}  // namespace

TEST(CpuLinalg, MatmulDimCases) {
  const int64_t M = 3, K = 4, N = 5;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{K}, {K}},                    // dot
      {{M, K}, {K}},                 // mv
      {{K}, {K, N}},                 // vector-matrix
      {{M, K}, {K, N}},              // mm
      {{2, M, K}, {K}},              // folded batch x vector
      {{2, 3, M, K}, {K, N}},        // folded batch x matrix
      {{K}, {2, K, N}},              // vector x batch
      {{M, K}, {2, K, N}},           // matrix x batch
      {{2, M, K}, {2, K, N}},        // bmm
      {{2, 1, M, K}, {3, K, N}},     // broadcast batch dims
      {{1, 3, M, K}, {2, 1, K, N}},  // broadcast on both sides
      {{2, 3, M, K}, {K, 1}},        // N = 1
      {{1, K}, {2, 1, K, N}},
  };
  for (ScalarType dt : {kInt32, kFloat16, kBFloat16, kFloat32, kFloat64})
    for (const auto& [sa, sb] : cases)
      for (Kind kind : {Kind::Contiguous, Kind::Transposed}) {
        const Tensor a = sa.size() >= 2 ? make(sa, dt, kind, 1) : filled(sa, dt, 1);
        const Tensor b = sb.size() >= 2 ? make(sb, dt, kind, 2) : filled(sb, dt, 2);
        std::vector<int64_t> shape;
        Ref r;
        ref_matmul(a, b, shape, r);
        const Tensor c = ember::matmul(a, b);
        const std::string w = name(dt) + " " + kind_name(kind) + " " +
                              std::to_string(sa.size()) + "-D x " + std::to_string(sb.size()) + "-D";
        ASSERT_EQ(c.sizes(), IntArrayRef(shape)) << w;
        ASSERT_EQ(c.dtype(), dt) << w;
        expect_close(c, r.v, r.mag, w);
        expect_close(a.matmul(b), r.v, r.mag, w + " (method)");
      }
}

TEST(CpuLinalg, Errors) {
  const Tensor a = ember::ones({2, 3}), b = ember::ones({4, 5});
  EXPECT_ERROR(ValueError, ember::mm(a, b), "[mm]", "[2, 3]", "[4, 5]", "cannot be multiplied");
  EXPECT_ERROR(ValueError, ember::mm(ember::ones({2, 3, 4}), b), "[mm]", "[2, 3, 4]", "[4, 5]", "2-D");
  EXPECT_ERROR(ValueError, ember::mm(ember::ones({3}), b), "[mm]", "[3]", "[4, 5]");
  EXPECT_ERROR(TypeError, ember::mm(a, ember::ones({3, 5}, kFloat64)), "[mm]", "float32", "float64", "[2, 3]", "[3, 5]");
  EXPECT_ERROR(NotImplementedError, ember::mm(ember::ones({2, 2}, kBool), ember::ones({2, 2}, kBool)), "[mm]",
               "bool");
  EXPECT_ERROR(ValueError, ember::bmm(ember::ones({2, 2, 3}), ember::ones({3, 3, 4})), "[bmm]", "[2, 2, 3]",
               "[3, 3, 4]");
  EXPECT_ERROR(ValueError, ember::bmm(ember::ones({2, 2, 3}), ember::ones({2, 4, 4})), "[bmm]", "[2, 2, 3]",
               "[2, 4, 4]");
  EXPECT_ERROR(ValueError, ember::bmm(a, b), "[bmm]", "3-D");
  EXPECT_ERROR(ValueError, ember::matmul(ember::ones(IntArrayRef{}), b), "[matmul]", "1-D");
  EXPECT_ERROR(ValueError, ember::matmul(ember::ones({3}), ember::ones({4})), "[matmul]", "[3]", "[4]");
  EXPECT_ERROR(ValueError, ember::matmul(ember::ones({2, 2, 3}), ember::ones({3, 4, 4})), "[matmul]", "[2, 2, 3]",
               "[3, 4, 4]");
  EXPECT_ERROR(ValueError, ember::matmul(ember::ones({2, 2, 3}), ember::ones({3, 3, 4})), "[matmul]");
}

TEST(CpuLinalg, ConcurrentCalls) {
  const Tensor a = make({64, 96}, kFloat32, Kind::Contiguous, 1), b = make({96, 48}, kFloat32, Kind::Transposed, 2);
  const Ref r = ref_bmm(values(a), values(b), 1, 64, 96, 48);
  std::vector<std::thread> ts;
  std::vector<Tensor> outs(4);
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      for (int j = 0; j < 20; ++j) outs[i] = ember::mm(a, b);
    });
  for (auto& t : ts) t.join();
  for (const Tensor& o : outs) expect_close(o, r.v, r.mag, "thread");
}
