// The indexing operators (index, index_put_, index_select, embedding, gather, scatter,
// scatter_add, masked_select, nonzero) and ember::indexing, against references read straight
// from memory (OpTestUtil.h).
#include "OpTestUtil.h"

namespace ember::optest {
namespace {

using namespace ember::indexing;

// The element of t at a multi-index, read through its strides.
double at(const Tensor& t, const std::vector<int64_t>& idx) {
  EXPECT_EQ(static_cast<int64_t>(idx.size()), t.dim());
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.stride(static_cast<int64_t>(d));
  return read_elem(static_cast<const char*>(t.data_ptr()) + off * static_cast<int64_t>(t.itemsize()), t.dtype());
}

// An int64 index tensor of the given shape (1-d by default).
Tensor ix(const std::vector<double>& v, std::vector<int64_t> shape = {}, ScalarType dt = kInt64) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return from_values(shape, dt, v);
}

// The same index values laid out with stride 2 (a non-contiguous index).
Tensor ix_strided(const std::vector<double>& v, ScalarType dt = kInt64) {
  std::vector<double> w;
  for (double x : v) w.insert(w.end(), {x, -99});
  Tensor t = from_values({static_cast<int64_t>(w.size())}, dt, w).slice(0, 0, std::nullopt, 2);
  EXPECT_FALSE(t.is_contiguous());
  return t;
}

std::string what(ScalarType dt, Kind k) { return fmt::format("{} {}", dt, kind_name(k)); }

void expect_shape(const Tensor& t, std::vector<int64_t> shape, const std::string& w) {
  EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), shape) << w;
}

// ---- nonzero -----------------------------------------------------------------------------------

TEST(CpuIndexing, NonzeroEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes)
    for (Kind k : kKinds) {
      Tensor x = make({3, 4}, dt, k, 1);
      Tensor r = ember::nonzero(x);
      EXPECT_EQ(r.dtype(), kInt64);
      std::vector<double> ref;
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j)
          if (at(x, {i, j}) != 0) ref.insert(ref.end(), {double(i), double(j)});
      expect_shape(r, {static_cast<int64_t>(ref.size() / 2), 2}, what(dt, k));
      expect_values(r, ref, what(dt, k));
    }
  // A 0-dim input gives [n, 0]; NaN counts as nonzero.
  expect_shape(ember::nonzero(from_values({}, kFloat32, {2})), {1, 0}, "0-dim");
  EXPECT_EQ(ember::nonzero(from_values({2}, kFloat64, {NAN, 0})).size(0), 1);
}

// ---- index_select / embedding ----------------------------------------------------------------

TEST(CpuIndexing, IndexSelectEveryDtypeLayoutAndDim) {
  const std::vector<double> iv = {2, 0, 2, 1};
  for (ScalarType dt : kDtypes)
    for (Kind k : kKinds)
      for (int64_t dim = 0; dim < 3; ++dim)
        for (ScalarType idt : {kInt64, kInt32}) {
          Tensor x = make({3, 4, 5}, dt, k, 2);
          Tensor index = dim == 1 ? ix_strided(iv, idt) : ix(iv, {}, idt);
          Tensor r = ember::index_select(x, dim, index);
          std::vector<int64_t> shape = {3, 4, 5};
          shape[dim] = 4;
          const std::string w = what(dt, k) + fmt::format(" dim {} {}", dim, idt);
          expect_shape(r, shape, w);
          EXPECT_EQ(r.dtype(), dt);
          std::vector<double> ref;
          for (int64_t a = 0; a < shape[0]; ++a)
            for (int64_t b = 0; b < shape[1]; ++b)
              for (int64_t c = 0; c < shape[2]; ++c) {
                std::vector<int64_t> p = {a, b, c};
                p[dim] = static_cast<int64_t>(iv[p[dim]]);
                ref.push_back(at(x, p));
              }
          expect_values(r, ref, w);
        }
}

TEST(CpuIndexing, IndexSelectOutAndNegativeDim) {
  Tensor x = make({4, 6}, kFloat32, Kind::Contiguous, 3);
  Tensor out = ember::empty({0}, kFloat32);
  ember::index_select_out(out, x, -1, ix({5, 0}));
  expect_shape(out, {4, 2}, "out");
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(at(out, {i, 0}), at(x, {i, 5}));
    EXPECT_EQ(at(out, {i, 1}), at(x, {i, 0}));
  }
  // A 0-dim index gives a size-1 dim, as a 1-element 1-d one.
  expect_shape(x.index_select(0, from_values({}, kInt64, {3})), {1, 6}, "0-dim index");
}

TEST(CpuIndexing, EmbeddingCopiesRows) {
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kUInt8})
    for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced}) {
      Tensor w = make({7, 20}, dt, k, 4);  // 20 columns: a row is a memcpy when contiguous
      Tensor idx = ix({3, 0, 6, 3, 1, 2}, {2, 3});
      Tensor r = ember::embedding(w, idx);
      expect_shape(r, {2, 3, 20}, what(dt, k));
      std::vector<double> ref;
      for (double i : values(idx))
        for (int64_t j = 0; j < 20; ++j) ref.push_back(at(w, {static_cast<int64_t>(i), j}));
      expect_values(r, ref, what(dt, k));
    }
  Tensor w = make({5, 3}, kFloat32, Kind::Contiguous, 1);
  expect_values(ember::embedding(w, ix({4, 1}, {}, kInt32)), {at(w, {4, 0}), at(w, {4, 1}), at(w, {4, 2}),
                                                              at(w, {1, 0}), at(w, {1, 1}), at(w, {1, 2})},
                "int32 indices");
  EXPECT_FALSE(storage_of(ember::embedding(w, ix({0}))) == storage_of(w));
}

// ---- gather / scatter --------------------------------------------------------------------------

TEST(CpuIndexing, GatherEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes)
    for (Kind k : kKinds)
      for (int64_t dim : {0, 1, -1}) {
        Tensor x = make({3, 4}, dt, k, 5);
        const int64_t d = dim < 0 ? dim + 2 : dim;
        const int64_t n = x.size(d);
        // index [2, 3] (smaller than x apart from dim); transposed half the time.
        std::vector<double> iv;
        for (int64_t i = 0; i < 6; ++i) iv.push_back(static_cast<double>((i * 5 + 1) % n));
        Tensor index = k == Kind::Transposed ? ix(iv, {3, 2}).t() : ix(iv, {2, 3});
        Tensor r = ember::gather(x, dim, index);
        const std::string w = what(dt, k) + fmt::format(" dim {}", dim);
        expect_shape(r, {2, 3}, w);
        std::vector<double> ref;
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 3; ++j) {
            const auto v = static_cast<int64_t>(at(index, {i, j}));
            ref.push_back(d == 0 ? at(x, {v, j}) : at(x, {i, v}));
          }
        expect_values(r, ref, w);
      }
}

TEST(CpuIndexing, ScatterSrcValueAndAdd) {
  for (ScalarType dt : kDtypes)
    for (Kind k : kKinds) {
      const std::string w = what(dt, k);
      Tensor self = make({3, 5}, dt, k, 6);
      Tensor src = make({2, 4}, dt, Kind::Sliced, 7);
      // dim 1: distinct targets within each row, so the result does not depend on write order.
      Tensor index = ix({4, 0, 2, 1, 3, 1, 0, 2}, {2, 4});
      Tensor r = ember::scatter(self, 1, index, src);
      EXPECT_FALSE(storage_of(r) == storage_of(self));
      std::vector<double> ref = values(self);
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 4; ++j) ref[i * 5 + static_cast<int64_t>(at(index, {i, j}))] = at(src, {i, j});
      expect_values(r, ref, "scatter.src " + w);

      Tensor rv = ember::scatter(self, 1, index, 1);
      ref = values(self);
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 4; ++j) ref[i * 5 + static_cast<int64_t>(at(index, {i, j}))] = 1;
      expect_values(rv, ref, "scatter.value " + w);

      // dim 0 with duplicate targets: scatter_add sums them.
      Tensor dup = ix({2, 2, 0, 2, 2, 0, 2, 1}, {2, 4});
      Tensor ra = ember::scatter_add(self, 0, dup, src);
      ref = values(self);
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          double& e = ref[static_cast<int64_t>(at(dup, {i, j})) * 5 + j];
          e = dt == kBool ? double(e != 0 || at(src, {i, j}) != 0) : as_dtype(e + at(src, {i, j}), dt);
        }
      expect_values(ra, ref, "scatter_add " + w);
    }
}

TEST(CpuIndexing, ScatterInPlaceWritesSelf) {
  Tensor self = ember::zeros({2, 3}, kFloat32);
  void* p = self.data_ptr();
  const auto v0 = self._version();
  Tensor& r = self.scatter_add_(1, ix({0, 0, 2, 1, 1, 1}, {2, 3}), ember::ones({2, 3}, kFloat32));
  EXPECT_TRUE(r.is_same(self));
  EXPECT_EQ(self.data_ptr(), p);
  EXPECT_GT(self._version(), v0);
  expect_values(self, {2, 0, 1, 0, 3, 0}, "scatter_add_");
  self.scatter_(0, ix({1, 0}, {1, 2}), 9.5);
  expect_values(self, {2, 9.5, 1, 9.5, 3, 0}, "scatter_.value");
}

// ---- masked_select -----------------------------------------------------------------------------

TEST(CpuIndexing, MaskedSelectBroadcastsMask) {
  for (ScalarType dt : kDtypes)
    for (Kind k : kKinds)
      for (ScalarType mdt : {kBool, kUInt8}) {
        Tensor x = make({3, 4}, dt, k, 8);
        Tensor mask = from_values({4}, mdt, {1, 0, 1, 1});
        Tensor r = ember::masked_select(x, mask);
        std::vector<double> ref;
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 4; ++j)
            if (j != 1) ref.push_back(at(x, {i, j}));
        expect_shape(r, {9}, what(dt, k));
        expect_values(r, ref, what(dt, k));
      }
  // self broadcasts too: [3] against a [2, 3] mask.
  Tensor x = from_values({3}, kInt32, {5, 6, 7});
  expect_values(x.masked_select(from_values({2, 3}, kBool, {1, 0, 0, 0, 1, 1})), {5, 6, 7}, "self broadcast");
}

// ---- advanced indexing: result shapes ---------------------------------------------------------

TEST(CpuIndexing, AdvancedIndexResultShapes) {
  Tensor x = make({2, 3, 4, 5}, kFloat32, Kind::Contiguous, 9);
  Tensor i1 = ix({2, 0}), i2 = ix({4, -1});
  // Separated advanced indices go first: x[:, i1, :, i2] -> [2 (B), 2, 4].
  Tensor r = x.index({Slice(), i1, Slice(), i2});
  expect_shape(r, {2, 2, 4}, "x[:, i1, :, i2]");
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t c = 0; c < 4; ++c) {
        const auto j = static_cast<int64_t>(at(i1, {b})), l = (static_cast<int64_t>(at(i2, {b})) + 5) % 5;
        EXPECT_EQ(at(r, {b, a, c}), at(x, {a, j, c, l}));
      }
  // x[i1, :, i1] -> [2, 3, 5].
  Tensor r2 = x.index({ix({1, 0}), Slice(), ix({3, 2})});
  expect_shape(r2, {2, 3, 5}, "x[i, :, j]");
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t c = 0; c < 5; ++c) EXPECT_EQ(at(r2, {b, a, c}), at(x, {1 - b, a, 3 - b, c}));
  // Adjacent ones stay in place: x[:, i, j] -> [2, 2, 5].
  Tensor r3 = x.index({Slice(), i1, ix({1, 3})});
  expect_shape(r3, {2, 2, 5}, "x[:, i, j]");
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 5; ++c)
        EXPECT_EQ(at(r3, {a, b, c}), at(x, {a, static_cast<int64_t>(at(i1, {b})), b == 0 ? 1 : 3, c}));
  // Index tensors broadcast: [2, 1] with [3] -> [2, 3] (then the trailing [4, 5]).
  Tensor r4 = x.index({ix({1, 0}, {2, 1}), ix({0, 2, 1})});
  expect_shape(r4, {2, 3, 4, 5}, "broadcast");
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 4; ++c)
        EXPECT_EQ(at(r4, {a, b, c, 1}), at(x, {1 - a, b == 0 ? 0 : b == 1 ? 2 : 1, c, 1}));
  // An int after a tensor index selects first: x[i1, 0] is x[:, 0][i1]; x[..., i2] -> [2, 3, 4, 2].
  expect_shape(x.index({ix({1, 0, 1}), 0}), {3, 4, 5}, "x[i, 0]");
  expect_shape(x.index({"...", i2}), {2, 3, 4, 2}, "x[..., i]");
  expect_shape(x.index({Ellipsis, i2, None}), {2, 3, 4, 2, 1}, "x[..., i, None]");
  // A 2-d index tensor: x[idx2d] -> [2, 2, 3, 4, 5].
  expect_shape(x.index({ix({0, 1, 1, 0}, {2, 2})}), {2, 2, 3, 4, 5}, "2-d index");
  // bool scalars add a dim: true keeps it, false empties it.
  expect_shape(x.index({true}), {1, 2, 3, 4, 5}, "x[True]");
  expect_shape(x.index({false}), {0, 2, 3, 4, 5}, "x[False]");
  // More of PyTorch's mixes (shapes as LibTorch 1.13 gives them).
  Tensor b2 = ix({1, 0}, {2, 1});
  expect_shape(x.index({None, b2, Ellipsis, i2, None}), {2, 2, 1, 3, 4, 1}, "x[None, b2, ..., i2, None]");
  expect_shape(x.index({Slice(), 1, true, ix({3, 0})}), {2, 2, 5}, "x[:, 1, True, i]");
  expect_shape(x.index({from_values({}, kInt64, {1}), from_values({}, kBool, {1})}), {1, 3, 4, 5},
               "x[tensor(1), tensor(True)]");
  expect_shape(x.index({ix({1, 0}, {2, 1}), Slice(), ix({3, 0}, {1, 2})}), {2, 2, 3, 5}, "x[i[:, None], :, j[None]]");
  expect_shape(x.index({false, 0}), {0, 3, 4, 5}, "x[False, 0]");
  // A 0-dim integer tensor acts as an integer (a view).
  Tensor sel = x.index({from_values({}, kInt64, {1})});
  expect_shape(sel, {3, 4, 5}, "0-dim tensor index");
  EXPECT_EQ(storage_of(sel), storage_of(x));
}

TEST(CpuIndexing, AdvancedIndexEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes)
    for (Kind k : kKinds) {
      Tensor x = make({4, 6}, dt, k, 10);
      Tensor i = ix_strided({3, -4, 1});
      Tensor r = x.index({Slice(), i});  // column gather through a non-contiguous index
      expect_shape(r, {4, 3}, what(dt, k));
      std::vector<double> ref;
      for (int64_t a = 0; a < 4; ++a)
        for (int64_t b : {3, 2, 1}) ref.push_back(at(x, {a, b}));
      expect_values(r, ref, what(dt, k));
      Tensor rows = ember::index(x, {ix({3, 3, 0})});  // rows, through the generated function
      ref.clear();
      for (int64_t a : {3, 3, 0})
        for (int64_t b = 0; b < 6; ++b) ref.push_back(at(x, {a, b}));
      expect_values(rows, ref, "rows " + what(dt, k));
    }
}

TEST(CpuIndexing, BoolMaskIndex) {
  for (ScalarType dt : {kFloat32, kInt16, kBool, kBFloat16})
    for (Kind k : {Kind::Contiguous, Kind::Transposed}) {
      Tensor x = make({2, 3, 4}, dt, k, 11);
      Tensor mask = from_values({2, 3}, kBool, {1, 0, 1, 0, 0, 1});
      Tensor r = x.index({mask});
      expect_shape(r, {3, 4}, what(dt, k));
      std::vector<double> ref;
      for (auto [a, b] : {std::pair<int64_t, int64_t>{0, 0}, {0, 2}, {1, 2}})
        for (int64_t c = 0; c < 4; ++c) ref.push_back(at(x, {a, b, c}));
      expect_values(r, ref, what(dt, k));
      // A mask over a later dim: x[:, :, m] -> [2, 3, 2].
      Tensor m2 = from_values({4}, kUInt8, {0, 1, 0, 1});
      Tensor r2 = x.index({Slice(), Slice(), m2});
      expect_shape(r2, {2, 3, 2}, "x[:, :, m]");
      EXPECT_EQ(at(r2, {1, 2, 1}), at(x, {1, 2, 3}));
      // A boolean mask tensor as the comparison result, as in x[x > 0].
      Tensor pos = x.index({x > 0});
      EXPECT_EQ(pos.dim(), 1);
    }
}

// ---- basic indexing: views ---------------------------------------------------------------------

TEST(CpuIndexing, BasicIndicesAreViews) {
  Tensor x = make({4, 5, 6}, kFloat32, Kind::Contiguous, 12);
  const auto* base = static_cast<const float*>(x.data_ptr());
  Tensor a = x.index({1});
  expect_shape(a, {5, 6}, "x[1]");
  EXPECT_EQ(storage_of(a), storage_of(x));
  EXPECT_EQ(a.data_ptr(), base + 30);
  Tensor b = x.index({Slice(1, None), 2});
  expect_shape(b, {3, 6}, "x[1:, 2]");
  EXPECT_EQ(b.data_ptr(), base + 30 + 12);
  EXPECT_EQ(b.stride(0), 30);
  Tensor c = x.index({Slice(None, None, 2), None, Ellipsis, -1});
  expect_shape(c, {2, 1, 5}, "x[::2, None, ..., -1]");
  EXPECT_EQ(c.data_ptr(), base + 5);
  EXPECT_EQ(c.stride(0), 60);
  EXPECT_EQ(at(c, {1, 0, 3}), at(x, {2, 3, 5}));
  Tensor d = x.index({Ellipsis});
  EXPECT_FALSE(d.is_same(x));
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  Tensor e = x.index({Slice(-2), Slice(1, -1), Slice(4, 100)});
  expect_shape(e, {2, 3, 2}, "negative and clamped bounds");
  EXPECT_EQ(e.data_ptr(), base + 60 + 6 + 4);
  // Any integer type indexes.
  EXPECT_EQ(x.index({size_t{3}, int64_t{-1}, int16_t{2}}).data_ptr(), base + 3 * 30 + 4 * 6 + 2);
  // a[0][1] is x.index({0, 1}), a view.
  Tensor f = x[2][3];
  expect_shape(f, {6}, "x[2][3]");
  EXPECT_EQ(f.data_ptr(), base + 2 * 30 + 3 * 6);
  EXPECT_EQ(values(f), values(x.index({2, 3})));
  // Advanced indices copy.
  Tensor g = x.index({ix({1})});
  EXPECT_NE(storage_of(g), storage_of(x));
}

// ---- index_put_ --------------------------------------------------------------------------------

TEST(CpuIndexing, IndexPutWritesThroughViewsAndAccumulates) {
  for (ScalarType dt : kDtypes) {
    Tensor x = ember::zeros({3, 4}, dt);
    x.index_put_({Slice(), 1}, 1);  // basic: fill_ on the view
    x.index_put_({ix({2, 0}), ix({3, -4})}, from_values({2}, dt, {1, 1}));
    std::vector<double> ref(12, 0);
    for (int64_t i = 0; i < 3; ++i) ref[i * 4 + 1] = 1;
    ref[2 * 4 + 3] = 1;
    ref[0] = 1;
    expect_values(x, ref, fmt::format("{}", dt));
    // accumulate with duplicates adds every one.
    Tensor acc = ember::zeros({4}, dt);
    ember::index_put_(acc, {ix({1, 3, 1, 1})}, from_values({4}, dt, {1, 1, 1, 1}), true);
    const double three = dt == kBool ? 1 : 3;
    expect_values(acc, {0, three, 0, 1}, fmt::format("accumulate {}", dt));
  }
  // Value broadcasting, a mask, a Tensor rhs with leading 1s, and a non-contiguous self.
  Tensor x = make({4, 3}, kFloat64, Kind::Transposed, 13);
  std::vector<double> ref = values(x);
  x.index_put_({ix({0, 3})}, from_values({1, 1, 3}, kFloat64, {7, 8, 9}));
  for (int64_t j = 0; j < 3; ++j) ref[j] = ref[9 + j] = 7 + j;
  expect_values(x, ref, "broadcast rows");
  Tensor mask = x > 7.5;
  x.index_put_({mask}, -1.0);
  for (double& v : ref) v = v > 7.5 ? -1 : v;
  expect_values(x, ref, "mask");
  x.index_put_({Slice(0, 2)}, from_values({1, 3}, kFloat64, {4, 5, 6}));
  for (int64_t j = 0; j < 6; ++j) ref[j] = 4 + j % 3;
  expect_values(x, ref, "copy_ with leading 1s");
  // index_put (out of place) leaves self alone.
  Tensor y = ember::index_put(x, {ix({1})}, from_values({}, kFloat64, {0}));
  expect_values(x, ref, "index_put keeps self");
  EXPECT_EQ(at(y, {1, 2}), 0);
}

// ---- index_fill_ / masked_scatter_ ------------------------------------------------------------

TEST(CpuIndexing, IndexFillAndMaskedScatter) {
  for (ScalarType dt : kDtypes)
    for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced}) {
      const std::string w = what(dt, k);
      Tensor x = make({3, 4}, dt, k, 15);
      std::vector<double> ref = values(x);
      x.index_fill_(1, ix_strided({-1, 1}), 1);
      for (int64_t i = 0; i < 3; ++i) ref[i * 4 + 3] = ref[i * 4 + 1] = 1;
      expect_values(x, ref, "index_fill_ " + w);

      Tensor y = make({3, 4}, dt, k, 16);
      ref = values(y);
      Tensor src = make({2, 5}, dt, Kind::Contiguous, 17);
      const std::vector<double> sv = values(src);
      Tensor mask = from_values({4}, kBool, {0, 1, 1, 0});  // broadcast over the rows
      y.masked_scatter_(mask, src);
      size_t next = 0;
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j : {1, 2}) ref[i * 4 + j] = sv[next++];
      expect_values(y, ref, "masked_scatter_ " + w);
    }
  Tensor x = ember::zeros({2, 2});
  EXPECT_ERROR(IndexError, x.index_fill_(0, ix({2}), 1), "[index_fill_]", "index 2 is out of bounds for dimension 0");
  EXPECT_ERROR(ValueError, x.masked_scatter_(ember::ones({2, 2}, kBool), ember::ones({3})), "[masked_scatter_]",
               "at least 4 elements", "got 3");
  EXPECT_ERROR(ValueError, x.masked_scatter_(ember::ones({3, 2, 2}, kBool), ember::ones({12})), "[masked_scatter_]",
               "does not broadcast to self's shape [2, 2]");
}

// ---- errors ------------------------------------------------------------------------------------

TEST(CpuIndexing, Errors) {
  Tensor x = make({3, 4}, kFloat32, Kind::Contiguous, 14);
  EXPECT_ERROR(IndexError, x.index({Slice(), ix({4})}), "[index]", "index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_ERROR(IndexError, x.index({ix({-4})}), "index -4 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR(IndexError, ember::index(x, {ix({0}, {}, kInt32)}), "[index]", "long, byte or bool", "got int32");
  EXPECT_ERROR(IndexError, x.index({0, 1, 2}), "too many indices for tensor of dimension 2");
  EXPECT_ERROR(IndexError, ember::index(x, {ix({0}), ix({0}), ix({0})}), "[index]", "too many indices");
  EXPECT_ERROR(IndexError, x.index({Ellipsis, 0, Ellipsis}), "single ellipsis");
  EXPECT_ERROR(IndexError, x.index({ix({0, 1}), ix({0, 1, 2})}), "shape mismatch", "[2], [3]");
  EXPECT_ERROR(IndexError, x.index({from_values({4}, kBool, {1, 0, 0, 1})}), "the shape of the mask [4] at index 0",
               "[3, 4] at index 0");
  EXPECT_ERROR(ValueError, x.index_put_({ix({0, 1})}, ember::ones({3}, kFloat32)), "[index_put_]",
               "value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]");
  EXPECT_ERROR(TypeError, x.index_put_({ix({0})}, ember::ones({4}, kFloat64)), "[index_put_]", "expected dtype float32 (self's), got float64");
  EXPECT_ERROR(ValueError, x.index(ArrayRef<TensorIndex>{}), "empty index list");
  EXPECT_ERROR(ValueError, Slice(0, 2, 0), "slice step cannot be zero");
  EXPECT_ERROR(TypeError, TensorIndex(".."), "\"...\"");

  EXPECT_ERROR(IndexError, x.index_select(1, ix({1, 4})), "[index_select]", "index 4 is out of bounds for dimension 1");
  EXPECT_ERROR(IndexError, x.index_select(0, ix({-1})), "[index_select]", "index -1");
  EXPECT_ERROR(TypeError, x.index_select(0, ix({0}, {}, kInt16)), "[index_select]", "int64 or int32", "got int16");
  EXPECT_ERROR(ValueError, x.index_select(0, ix({0, 1}, {1, 2})), "[index_select]", "1-d or 0-d", "2 dims");
  EXPECT_ERROR(IndexError, x.index_select(2, ix({0})), "[index_select]", "dimension out of range");
  EXPECT_ERROR(IndexError, ember::embedding(x, ix({3})), "[embedding]", "index 3 is out of bounds");
  EXPECT_ERROR(ValueError, ember::embedding(ember::ones({3}), ix({0})), "[embedding]", "2-d", "1 dims");

  EXPECT_ERROR(TypeError, x.gather(0, ix({0}, {1, 1}, kInt32)), "[gather]", "expected dtype int64, got int32");
  EXPECT_ERROR(ValueError, x.gather(0, ix({0, 0}, {2})), "[gather]", "same number of dimensions");
  EXPECT_ERROR(ValueError, x.gather(0, ix({0, 0, 0, 0, 0}, {1, 5})), "[gather]", "size 5 does not fit self [3, 4] at dimension 1");
  EXPECT_ERROR(IndexError, x.gather(1, ix({4}, {1, 1})), "[gather]", "index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_ERROR(IndexError, x.gather(0, ix({-1}, {1, 1})), "[gather]", "index -1");
  EXPECT_ERROR(TypeError, x.scatter(0, ix({0}, {1, 1}), ember::ones({1, 1}, kFloat64)), "[scatter_]", "'src'",
               "expected dtype float32 (self's), got float64");
  EXPECT_ERROR(ValueError, x.scatter(0, ix({0, 0}, {1, 2}), ember::ones({1, 1}, kFloat32)), "[scatter_]",
               "does not fit src");
  EXPECT_ERROR(IndexError, x.scatter_add(0, ix({3}, {1, 1}), ember::ones({1, 1}, kFloat32)), "[scatter_add_]",
               "index 3 is out of bounds for dimension 0 with size 3");
  Tensor expanded = ember::zeros({1, 4}, kFloat32).expand({3, 4});
  EXPECT_ERROR(ValueError, ember::index_put_(expanded, {ix({0})}, ember::ones({4})), "[index_put_]", "clone()");
  EXPECT_ERROR(ValueError, expanded.scatter_(0, ix({0}, {1, 1}), 1), "[scatter_]", "single memory location");
  EXPECT_ERROR(TypeError, x.masked_select(ember::ones({4}, kFloat32)), "[masked_select]", "bool or uint8");
  EXPECT_ERROR(ValueError, x.masked_select(ember::ones({3}, kBool)), "[masked_select]", "cannot be broadcast");
}

}  // namespace
}  // namespace ember::optest
