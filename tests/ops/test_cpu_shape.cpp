// The cpu plugin's shape operators: views (geometry and strides exactly as PyTorch, storage shared,
// nothing copied), cat/stack/repeat/flip against naive references over every dtype and layout,
// linspace and eye, list returns through the dispatcher (typed and boxed), and error messages.
// Reference values are read straight from memory through sizes and strides (values() below).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

// Row-major index helpers for the naive references.
std::vector<int64_t> unravel(int64_t i, IntArrayRef shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = shape[d] == 0 ? 0 : i % shape[d];
    i = shape[d] == 0 ? 0 : i / shape[d];
  }
  return idx;
}
int64_t ravel(const std::vector<int64_t>& idx, IntArrayRef shape) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + idx[d];
  return off;
}
int64_t numel_of(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}
using IndexMap = std::function<std::vector<int64_t>(const std::vector<int64_t>&)>;
// out[idx] = in[src(idx)] for every idx of out_shape, row-major, from in's raw memory.
std::vector<double> ref_map(const Tensor& in, IntArrayRef out_shape, const IndexMap& src) {
  const auto v = values(in);
  std::vector<double> out(static_cast<size_t>(numel_of(out_shape)));
  for (int64_t i = 0; i < numel_of(out_shape); ++i) out[i] = v[ravel(src(unravel(i, out_shape)), in.sizes())];
  return out;
}

using Shape = std::vector<int64_t>;

void expect_view_of(const Tensor& v, const Tensor& base, const std::string& what) {
  EXPECT_EQ(storage_of(v), storage_of(base)) << what;
  EXPECT_FALSE(v.is_same(base)) << what << ": a view is a new TensorImpl";
}

}  // namespace

// ---- views: geometry exactly as PyTorch --------------------------------------------------------

TEST(CpuShapeViews, PermuteSqueezeGeometry) {
  Tensor a = ember::arange(24, kFloat32).view({2, 3, 4});
  Tensor p = a.permute({2, 0, 1});
  EXPECT_EQ(p.sizes(), IntArrayRef({4, 2, 3}));
  EXPECT_EQ(p.strides(), IntArrayRef({1, 12, 4}));
  expect_view_of(p, a, "permute");
  EXPECT_EQ(ember::permute(a, {-1, -2, -3}).strides(), IntArrayRef({1, 4, 12}));
  EXPECT_EQ(ember::full({}, 1.0).permute({}).dim(), 0);

  Tensor o = ember::ones({2, 1, 3, 1});
  EXPECT_EQ(o.strides(), IntArrayRef({3, 3, 1, 1}));
  Tensor s = o.squeeze();
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(s.strides(), IntArrayRef({3, 1}));
  expect_view_of(s, o, "squeeze");
  EXPECT_EQ(o.squeeze(1).sizes(), IntArrayRef({2, 3, 1}));
  EXPECT_EQ(o.squeeze(1).strides(), IntArrayRef({3, 1, 1}));
  EXPECT_EQ(o.squeeze(-1).sizes(), IntArrayRef({2, 1, 3}));
  Tensor same = o.squeeze(0);  // not of size 1: an alias with the same geometry
  EXPECT_EQ(same.sizes(), o.sizes());
  EXPECT_EQ(same.strides(), o.strides());
  expect_view_of(same, o, "squeeze(0)");
  EXPECT_EQ(ember::ones({1, 1}).squeeze().dim(), 0);
  EXPECT_EQ(ember::full({}, 2.0).squeeze().dim(), 0);
  EXPECT_EQ(ember::full({}, 2.0).squeeze(0).dim(), 0);
  EXPECT_EQ(ember::squeeze(ember::ones({1, 3}), 0).sizes(), IntArrayRef({3}));
}

TEST(CpuShapeViews, NarrowDiagonalUnfoldGeometry) {
  Tensor a = ember::arange(24, kFloat32).view({2, 3, 4});
  Tensor n = a.narrow(1, 1, 2);
  EXPECT_EQ(n.sizes(), IntArrayRef({2, 2, 4}));
  EXPECT_EQ(n.strides(), IntArrayRef({12, 4, 1}));
  EXPECT_EQ(n.storage_offset(), 4);
  expect_view_of(n, a, "narrow");
  Tensor nn = ember::narrow(a, -1, -2, 2);
  EXPECT_EQ(nn.storage_offset(), 2);
  EXPECT_EQ(nn.sizes(), IntArrayRef({2, 3, 2}));
  EXPECT_EQ(a.narrow(2, 4, 0).sizes(), IntArrayRef({2, 3, 0}));  // start == size is allowed

  Tensor m = ember::arange(12, kFloat32).view({3, 4});
  Tensor d = m.diagonal();
  EXPECT_EQ(d.sizes(), IntArrayRef({3}));
  EXPECT_EQ(d.strides(), IntArrayRef({5}));
  expect_view_of(d, m, "diagonal");
  expect_values(d, {0, 5, 10}, "diagonal");
  Tensor d1 = m.diagonal(1);
  EXPECT_EQ(d1.storage_offset(), 1);
  expect_values(d1, {1, 6, 11}, "diagonal(1)");
  Tensor dm = ember::diagonal(m, -1);
  EXPECT_EQ(dm.storage_offset(), 4);
  expect_values(dm, {4, 9}, "diagonal(-1)");
  EXPECT_EQ(m.diagonal(5).numel(), 0);
  EXPECT_EQ(m.diagonal(5).storage_offset(), 0);
  Tensor d3 = a.diagonal(0, 1, 2);
  EXPECT_EQ(d3.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(d3.strides(), IntArrayRef({12, 5}));
  Tensor d4 = a.diagonal(1, -1, 0);  // dim1 = 2, dim2 = 0
  EXPECT_EQ(d4.sizes(), IntArrayRef({3, 1}));
  EXPECT_EQ(d4.strides(), IntArrayRef({4, 13}));
  EXPECT_EQ(d4.storage_offset(), 12);
  expect_values(d4, {12, 16, 20}, "diagonal(1, -1, 0)");

  Tensor r = ember::arange(7, kFloat32);
  Tensor u = r.unfold(0, 2, 1);
  EXPECT_EQ(u.sizes(), IntArrayRef({6, 2}));
  EXPECT_EQ(u.strides(), IntArrayRef({1, 1}));
  expect_view_of(u, r, "unfold");
  Tensor u2 = r.unfold(0, 3, 2);
  EXPECT_EQ(u2.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(u2.strides(), IntArrayRef({2, 1}));
  expect_values(u2, {0, 1, 2, 2, 3, 4, 4, 5, 6}, "unfold(0, 3, 2)");
  Tensor u3 = m.unfold(1, 2, 2);
  EXPECT_EQ(u3.sizes(), IntArrayRef({3, 2, 2}));
  EXPECT_EQ(u3.strides(), IntArrayRef({4, 2, 1}));
  Tensor u4 = m.unfold(-2, 2, 1);
  EXPECT_EQ(u4.sizes(), IntArrayRef({2, 4, 2}));
  EXPECT_EQ(u4.strides(), IntArrayRef({4, 1, 4}));
  Tensor u0 = ember::full({}, 5.0).unfold(0, 1, 1);
  EXPECT_EQ(u0.sizes(), IntArrayRef({1}));
  EXPECT_EQ(u0.strides(), IntArrayRef({1}));
  EXPECT_EQ(r.unfold(0, 0, 3).sizes(), IntArrayRef({3, 0}));
}

TEST(CpuShapeViews, SplitChunkFlatten) {
  Tensor r = ember::arange(10, kFloat32);
  std::vector<Tensor> sp = r.split(3);
  ASSERT_EQ(sp.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(sp[i].size(0), i < 3 ? 3 : 1);
    EXPECT_EQ(sp[i].storage_offset(), static_cast<int64_t>(3 * i));
    expect_view_of(sp[i], r, "split");
  }
  Tensor m = ember::arange(10, kFloat32).view({2, 5});
  auto sm = ember::split(m, 2, 1);
  ASSERT_EQ(sm.size(), 3u);
  EXPECT_EQ(sm[2].sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(sm[2].strides(), IntArrayRef({5, 1}));
  EXPECT_EQ(sm[1].storage_offset(), 2);
  expect_values(sm[1], {2, 3, 7, 8}, "split dim 1");
  EXPECT_EQ(m.split(5, -1).size(), 1u);
  EXPECT_EQ(m.split(100).size(), 1u);
  auto se = ember::ones({0, 2}).split(0);
  ASSERT_EQ(se.size(), 1u);
  EXPECT_EQ(se[0].sizes(), IntArrayRef({0, 2}));

  auto ch = r.chunk(3);
  ASSERT_EQ(ch.size(), 3u);
  EXPECT_EQ(ch[0].size(0), 4);
  EXPECT_EQ(ch[2].size(0), 2);
  expect_view_of(ch[2], r, "chunk");
  EXPECT_EQ(ember::arange(5).chunk(4).size(), 3u);  // PyTorch may return fewer chunks
  EXPECT_EQ(ember::chunk(m, 2, 1).size(), 2u);
  EXPECT_EQ(ember::chunk(m, 2, 1)[1].sizes(), IntArrayRef({2, 2}));
  auto ce = ember::ones({0}).chunk(3);
  ASSERT_EQ(ce.size(), 3u);
  for (const auto& c : ce) EXPECT_EQ(c.numel(), 0);

  Tensor a = ember::arange(24, kFloat32).view({2, 3, 4});
  Tensor f = a.flatten();
  EXPECT_EQ(f.sizes(), IntArrayRef({24}));
  expect_view_of(f, a, "flatten");
  Tensor f1 = ember::flatten(a, 1);
  EXPECT_EQ(f1.sizes(), IntArrayRef({2, 12}));
  EXPECT_EQ(f1.strides(), IntArrayRef({12, 1}));
  EXPECT_EQ(a.flatten(0, 1).sizes(), IntArrayRef({6, 4}));
  EXPECT_EQ(a.flatten(-2, -1).sizes(), IntArrayRef({2, 12}));
  EXPECT_TRUE(a.flatten(1, 1).is_same(a));  // PyTorch returns self
  EXPECT_EQ(ember::full({}, 3.0).flatten().sizes(), IntArrayRef({1}));
  Tensor ft = a.transpose(0, 2).flatten();  // not viewable: a copy, as reshape
  EXPECT_NE(storage_of(ft), storage_of(a));
  expect_values(ft, values(a.transpose(0, 2)), "flatten copy");
  // Views write through to their base.
  a.narrow(0, 1, 1).diagonal(0, 1, 2).fill_(-1);
  EXPECT_EQ(values(a)[12], -1);
  EXPECT_EQ(values(a)[17], -1);
  EXPECT_EQ(values(a)[22], -1);
}

TEST(CpuShapeViews, EveryDtypeAndLayoutAgainstReference) {
  for (ScalarType dt : kDtypes) {
    for (Kind kind : kKinds) {
      const std::string what = std::string(dtype_name(dt)) + " " + kind_name(kind);
      Tensor x = make({3, 4, 5}, dt, kind, 1);
      Tensor p = x.permute({1, 2, 0});
      expect_view_of(p, x, what);
      EXPECT_EQ(p.strides(), IntArrayRef({x.stride(1), x.stride(2), x.stride(0)})) << what;
      expect_values(p, ref_map(x, p.sizes(), [](auto i) { return Shape{i[2], i[0], i[1]}; }), what + " permute");
      Tensor n = x.narrow(2, 1, 3);
      expect_view_of(n, x, what);
      expect_values(n, ref_map(x, n.sizes(), [](auto i) { return Shape{i[0], i[1], i[2] + 1}; }), what + " narrow");
      Tensor d = x.diagonal(1, 2, 0);  // the offset moves along dim2: d[j, k] = x[k + 1, j, k]
      EXPECT_EQ(d.sizes(), IntArrayRef({4, 2})) << what;
      expect_values(d, ref_map(x, d.sizes(), [](auto i) { return Shape{i[1] + 1, i[0], i[1]}; }), what + " diagonal");
      Tensor u = x.unfold(1, 2, 2);  // u[a, b, c, k] = x[a, 2b + k, c]
      expect_view_of(u, x, what);
      expect_values(u,
                    ref_map(x, u.sizes(),
                            [](auto i) {
                              return Shape{i[0], 2 * i[1] + i[3], i[2]};
                            }),
                    what + " unfold");
      auto sp = x.split(2, 2);
      ASSERT_EQ(sp.size(), 3u);
      for (size_t k = 0; k < sp.size(); ++k) {
        expect_view_of(sp[k], x, what);
        const auto off = static_cast<int64_t>(2 * k);
        expect_values(sp[k],
                      ref_map(x, sp[k].sizes(),
                              [&](auto i) {
                                return Shape{i[0], i[1], i[2] + off};
                              }),
                      what + " split");
      }
      auto ch = x.chunk(2, 0);
      ASSERT_EQ(ch.size(), 2u);
      expect_values(ch[1],
                    ref_map(x, ch[1].sizes(),
                            [](auto i) {
                              return Shape{i[0] + 2, i[1], i[2]};
                            }),
                    what + " chunk");
      Tensor sq = x.unsqueeze(1).squeeze(1);
      EXPECT_EQ(sq.strides(), x.strides()) << what;
      expect_view_of(sq, x, what);
      Tensor f = x.flatten(1);
      expect_values(f, values(x), what + " flatten");
      if (kind == Kind::Contiguous) expect_view_of(f, x, what + " flatten");
    }
  }
}

TEST(CpuShapeViews, Errors) {
  Tensor a = ember::arange(24, kFloat32).view({2, 3, 4});
  EXPECT_ERROR(ValueError, a.permute({0, 1}), "[permute]", "input.dim() = 3", "len(dims) = 2");
  EXPECT_ERROR(ValueError, a.permute({0, 1, -3}), "[permute]", "dim 0 appears multiple times");
  EXPECT_ERROR(IndexError, a.permute({0, 1, 3}), "[permute]", "out of range");
  EXPECT_ERROR(IndexError, a.squeeze(3), "[squeeze]", "out of range");
  EXPECT_ERROR(IndexError, a.narrow(0, 1, 2), "[narrow]", "start (1) + length (2) exceeds dimension size (2)");
  EXPECT_ERROR(IndexError, a.narrow(1, 5, 0), "[narrow]", "start 5 out of range");
  EXPECT_ERROR(ValueError, a.narrow(1, 0, -1), "[narrow]", "length must be non-negative");
  EXPECT_ERROR(IndexError, ember::full({}, 1.0).narrow(0, 0, 1), "[narrow]", "0-dim");
  EXPECT_ERROR(ValueError, a.diagonal(0, 1, -2), "[diagonal]", "cannot be identical");
  EXPECT_ERROR(IndexError, ember::ones({3}).diagonal(), "[diagonal]", "at least 2 dimensions");
  EXPECT_ERROR(ValueError, a.unfold(1, 4, 1), "[unfold]", "maximum size for tensor at dimension 1 is 3");
  EXPECT_ERROR(ValueError, a.unfold(1, 2, 0), "[unfold]", "step is 0");
  EXPECT_ERROR(ValueError, a.split(-1), "[split]", "split_size=-1");
  EXPECT_ERROR(ValueError, a.split(0), "[split]", "dimension size of 2");
  EXPECT_ERROR(ValueError, ember::full({}, 1.0).split(1), "[split]", "1-dimensional");
  EXPECT_ERROR(ValueError, a.chunk(0), "[chunk]", "greater than 0, got: 0");
  EXPECT_ERROR(IndexError, a.chunk(2, 3), "[chunk]", "out of range");
  EXPECT_ERROR(ValueError, a.flatten(2, 1), "[flatten]", "start_dim cannot come after end_dim");
}

// ---- list returns through the dispatcher ---------------------------------------------------

TEST(CpuShapeViews, ListReturnsTypedAndBoxed) {
  Tensor r = ember::arange(7, kFloat32);
  auto op = Dispatcher::singleton()
                .findSchemaOrThrow("aten::split", "Tensor")
                .typed<std::vector<Tensor>(const Tensor&, int64_t, int64_t)>();
  auto parts = op.call(r, 3, 0);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].numel(), 1);
  IValue boxed = ember::ops::call("aten::chunk", r, 2);  // dim takes its default
  ASSERT_TRUE(boxed.isTensorList());
  ASSERT_EQ(boxed.toTensorVector().size(), 2u);
  expect_values(boxed.toTensorVector()[1], {4, 5, 6}, "boxed chunk");
  EXPECT_EQ(storage_of(boxed.toTensorVector()[1]), storage_of(r));
  IValue c = ember::ops::call("aten::cat", std::vector<Tensor>{r, r}, 0);
  expect_values(c.toTensor(), {0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6}, "boxed cat");
}

// ---- copies ------------------------------------------------------------------------------------

TEST(CpuShapeCopies, CatEveryDtypePairAndLayout) {
  for (ScalarType da : kDtypes) {
    for (ScalarType db : kDtypes) {
      Tensor a = make({2, 3}, da, Kind::Transposed, 1);
      Tensor b = make({2, 4}, db, Kind::Sliced, 2);
      Tensor c = ember::cat({a, b}, 1);
      const std::string what = std::string(dtype_name(da)) + "+" + std::string(dtype_name(db));
      EXPECT_EQ(c.dtype(), torch_promote(da, db)) << what;
      EXPECT_EQ(c.sizes(), IntArrayRef({2, 7})) << what;
      EXPECT_TRUE(c.is_contiguous()) << what;
      const auto va = values(a), vb = values(b);
      std::vector<double> ref;
      for (int64_t i = 0; i < 2; ++i) {
        for (int64_t j = 0; j < 3; ++j) ref.push_back(va[i * 3 + j]);
        for (int64_t j = 0; j < 4; ++j) ref.push_back(vb[i * 4 + j]);
      }
      expect_values(c, ref, what);
    }
  }
  for (ScalarType dt : kDtypes) {
    for (Kind kind : kKinds) {
      const std::string what = std::string(dtype_name(dt)) + " " + kind_name(kind);
      Tensor a = make({3, 2, 4}, dt, kind, 3), b = make({1, 2, 4}, dt, kind, 4), e = ember::empty({0, 2, 4}, dt);
      Tensor c = ember::cat({a, e, b});
      EXPECT_EQ(c.sizes(), IntArrayRef({4, 2, 4})) << what;
      auto ref = values(a);
      for (double v : values(b)) ref.push_back(v);
      expect_values(c, ref, what + " dim 0");
      EXPECT_NE(storage_of(c), storage_of(a)) << what;
      Tensor c2 = ember::cat({a, a}, -1);
      expect_values(c2, ref_map(a, c2.sizes(), [](auto i) { return Shape{i[0], i[1], i[2] % 4}; }), what + " dim -1");
    }
  }
  // PyTorch's legacy rule: a 1-d empty tensor is skipped whatever the others' shapes, but still
  // takes part in type promotion.
  Tensor x = ember::ones({2, 2}, kInt32);
  Tensor cs = ember::cat({ember::empty({0}, kFloat64), x, ember::empty({0}, kInt8)}, 1);
  EXPECT_EQ(cs.dtype(), kFloat64);
  EXPECT_EQ(cs.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(ember::cat({ember::empty({0}), ember::empty({0})}).sizes(), IntArrayRef({0}));
  EXPECT_EQ(ember::cat({x}).sizes(), IntArrayRef({2, 2}));
  EXPECT_NE(storage_of(ember::cat({x})), storage_of(x));  // always a copy
}

TEST(CpuShapeCopies, CatErrors) {
  Tensor a = ember::ones({2, 3}), b = ember::ones({2, 4}), c = ember::ones({3, 3});
  EXPECT_ERROR(ValueError, ember::cat({a, a, c}, 1), "[cat]", "Sizes of tensors must match except in dimension 1",
               "Expected size 2 but got size 3", "tensor number 2", "[2, 3]", "[3, 3]");
  EXPECT_ERROR(ValueError, ember::cat({a, b}, 0), "[cat]", "tensor number 1", "[2, 3]", "[2, 4]");
  EXPECT_ERROR(ValueError, ember::cat({a, ember::ones({2, 3, 1})}), "[cat]", "same number of dimensions",
               "got 2 and 3");
  EXPECT_ERROR(ValueError, ember::cat({a, ember::full({}, 1.0)}), "[cat]", "zero-dimensional tensor (at position 1)");
  // An empty list carries no dispatch key: the call runs on the CPU, whose check says what
  // LibTorch says.
  EXPECT_ERROR(ValueError, ember::cat(std::vector<Tensor>{}), "[cat] torch.cat(): expected a non-empty list of Tensors");
  EXPECT_ERROR(IndexError, ember::cat({a, a}, 2), "[cat]", "out of range");
}

TEST(CpuShapeCopies, Stack) {
  for (ScalarType dt : {kBool, kUInt8, kInt32, kFloat16, kFloat32, kFloat64}) {
    for (Kind kind : kKinds) {
      const std::string what = std::string(dtype_name(dt)) + " " + kind_name(kind);
      Tensor a = make({2, 3}, dt, kind, 5), b = make({2, 3}, dt, kind, 6);
      const auto va = values(a), vb = values(b);
      for (int64_t dim : {0, 1, 2, -1, -3}) {
        Tensor s = ember::stack({a, b}, dim);
        const int64_t d = dim < 0 ? dim + 3 : dim;
        Shape want = {2, 3};
        want.insert(want.begin() + d, 2);
        EXPECT_EQ(s.sizes(), IntArrayRef(want)) << what << " dim " << dim;
        std::vector<double> ref;
        for (int64_t i = 0; i < s.numel(); ++i) {
          auto idx = unravel(i, s.sizes());
          const int64_t which = idx[d];
          idx.erase(idx.begin() + d);
          ref.push_back((which == 0 ? va : vb)[ravel(idx, a.sizes())]);
        }
        expect_values(s, ref, what + " stack dim " + std::to_string(dim));
      }
    }
  }
  EXPECT_EQ(ember::stack({ember::ones({2}, kInt8), ember::ones({2}, kFloat32)}).dtype(), kFloat32);
  EXPECT_EQ(ember::stack({ember::full({}, 1.0), ember::full({}, 2.0)}).sizes(), IntArrayRef({2}));
  EXPECT_ERROR(ValueError, ember::stack({ember::ones({2, 3}), ember::ones({3, 2})}), "[stack]", "equal size",
               "[2, 3] at entry 0", "[3, 2] at entry 1");
  EXPECT_ERROR(ValueError, ember::stack(std::vector<Tensor>{}), "[stack]", "non-empty");
  EXPECT_ERROR(IndexError, ember::stack({ember::ones({2})}, 2), "[stack]", "out of range");
}

TEST(CpuShapeCopies, Repeat) {
  for (ScalarType dt : kDtypes) {
    for (Kind kind : kKinds) {
      const std::string what = std::string(dtype_name(dt)) + " " + kind_name(kind);
      Tensor x = make({2, 3}, dt, kind, 7);
      for (const Shape& reps : {Shape{1, 1}, Shape{2, 3}, Shape{3, 1, 2}, Shape{2, 1, 1, 1}}) {
        Tensor r = x.repeat(reps);
        const size_t lead = reps.size() - 2;
        Shape want(reps.size());
        for (size_t i = 0; i < reps.size(); ++i) want[i] = reps[i] * (i < lead ? 1 : x.size(i - lead));
        EXPECT_EQ(r.sizes(), IntArrayRef(want)) << what;
        EXPECT_NE(storage_of(r), storage_of(x)) << what;
        expect_values(r,
                      ref_map(x, r.sizes(),
                              [&](auto i) {
                                return Shape{i[lead] % 2, i[lead + 1] % 3};
                              }),
                      what + " repeat");
      }
    }
  }
  Tensor s = ember::full({}, 4.0);
  expect_values(s.repeat({3}), {4, 4, 4}, "0-dim repeat");
  EXPECT_EQ(s.repeat({}).dim(), 0);
  EXPECT_EQ(ember::ones({2, 3}).repeat({0, 2}).sizes(), IntArrayRef({0, 6}));
  EXPECT_ERROR(ValueError, ember::ones({2, 3}).repeat({2}), "[repeat]", "can not be smaller");
  EXPECT_ERROR(ValueError, ember::ones({2, 3}).repeat({2, -1}), "[repeat]", "non-negative");
}

TEST(CpuShapeCopies, Flip) {
  for (ScalarType dt : kDtypes) {
    for (Kind kind : kKinds) {
      const std::string what = std::string(dtype_name(dt)) + " " + kind_name(kind);
      Tensor x = make({3, 4, 2}, dt, kind, 8);
      Tensor f0 = ember::flip(x, {0});
      expect_values(f0, ref_map(x, f0.sizes(), [](auto i) { return Shape{2 - i[0], i[1], i[2]}; }), what + " {0}");
      Tensor f = x.flip({-1, 1});
      EXPECT_NE(storage_of(f), storage_of(x)) << what;
      expect_values(f,
                    ref_map(x, f.sizes(),
                            [](auto i) {
                              return Shape{i[0], 3 - i[1], 1 - i[2]};
                            }),
                    what + " {-1, 1}");
      Tensor fa = x.flip({0, 1, 2});
      expect_values(fa,
                    ref_map(x, fa.sizes(),
                            [](auto i) {
                              return Shape{2 - i[0], 3 - i[1], 1 - i[2]};
                            }),
                    what + " all");
      expect_values(x.flip({}), values(x), what + " none");
    }
  }
  // The result keeps a dense input's layout (LibTorch's preserve format).
  Tensor t = ember::arange(6, kFloat32).view({2, 3}).t();
  EXPECT_EQ(t.flip({0}).strides(), IntArrayRef({1, 3}));
  EXPECT_EQ(ember::full({}, 2.0).flip({0}).dim(), 0);
  EXPECT_EQ(ember::ones({0, 2}).flip({0}).sizes(), IntArrayRef({0, 2}));
  EXPECT_ERROR(ValueError, t.flip({0, -2}), "[flip]", "dim 0 appears multiple times");
  EXPECT_ERROR(IndexError, t.flip({2}), "[flip]", "out of range");
}

// ---- factories ---------------------------------------------------------------------------------

TEST(CpuShapeFactories, Linspace) {
  Tensor a = ember::linspace(0, 1, 5);
  EXPECT_EQ(a.dtype(), kFloat32);  // integers too give the default dtype
  expect_values(a, {0, 0.25, 0.5, 0.75, 1}, "linspace(0, 1, 5)");
  expect_values(ember::linspace(-1, 1, 4, kFloat64), {-1, -1.0 / 3, 1.0 / 3, 1}, "float64");
  expect_values(ember::linspace(1, -1, 3), {1, 0, -1}, "decreasing");
  // Integers: step in double, truncated; the second half counts back from the end.
  expect_values(ember::linspace(0, 10, 4, kInt64), {0, 3, 6, 10}, "int64");
  expect_values(ember::linspace(0, 10, 4, TensorOptions(kUInt8)), {0, 3, 6, 10}, "uint8");
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64}) {
    Tensor l = ember::linspace(2, 8, 7, dt);
    EXPECT_EQ(l.dtype(), dt);
    expect_values(l, {2, 3, 4, 5, 6, 7, 8}, "linspace " + std::string(dtype_name(dt)));
  }
  // float32 ends exactly at end.
  Tensor p = ember::linspace(0.1, 0.7, 7);
  EXPECT_EQ(p.data_ptr<float>()[6], 0.7f);
  EXPECT_EQ(p.data_ptr<float>()[0], 0.1f);
  expect_values(ember::linspace(3, 9, 1), {3}, "one step");
  EXPECT_EQ(ember::linspace(3, 9, 0).sizes(), IntArrayRef({0}));
  EXPECT_ERROR(ValueError, ember::linspace(0, 1, -1), "[linspace]", "non-negative");
  EXPECT_ERROR(ValueError, ember::linspace(0, 1, 3, kBool), "[linspace]");
}

TEST(CpuShapeFactories, Eye) {
  Tensor e = ember::eye(3);
  EXPECT_EQ(e.dtype(), kFloat32);
  expect_values(e, {1, 0, 0, 0, 1, 0, 0, 0, 1}, "eye(3)");
  for (ScalarType dt : kDtypes) {
    Tensor r = ember::eye(2, 4, dt);
    EXPECT_EQ(r.dtype(), dt);
    expect_values(r, {1, 0, 0, 0, 0, 1, 0, 0}, "eye(2, 4) " + std::string(dtype_name(dt)));
    expect_values(ember::eye(3, 2, TensorOptions(dt)), {1, 0, 0, 1, 0, 0}, "eye(3, 2) " + std::string(dtype_name(dt)));
  }
  EXPECT_EQ(ember::eye(0).sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(ember::eye(2, 0).sizes(), IntArrayRef({2, 0}));
  EXPECT_ERROR(ValueError, ember::eye(-1), "[eye]", "n must be greater or equal to 0, got -1");
  EXPECT_ERROR(ValueError, ember::eye(2, -3), "[eye]", "m must be greater or equal to 0, got -3");
}

TEST(CpuShapeViews, ViewsServeEveryStridedBackend) {
  // Registered at CompositeExplicitAutograd/CompositeImplicitAutograd, the views need no kernel of
  // the tensor's own backend: a dataless Meta tensor gets them too.
  Tensor m = meta_tensor({2, 1, 3, 4});
  Tensor p = m.permute({3, 0, 1, 2});
  EXPECT_EQ(p.device().type(), kMeta);
  EXPECT_EQ(p.sizes(), IntArrayRef({4, 2, 1, 3}));
  EXPECT_EQ(p.strides(), IntArrayRef({1, 12, 12, 4}));
  EXPECT_EQ(m.squeeze().sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(m.squeeze(1).strides(), IntArrayRef({12, 4, 1}));
  EXPECT_EQ(m.diagonal(0, 2, 3).sizes(), IntArrayRef({2, 1, 3}));
  EXPECT_EQ(m.unfold(3, 2, 2).sizes(), IntArrayRef({2, 1, 3, 2, 2}));
  EXPECT_EQ(m.split(1, 2).size(), 3u);
  EXPECT_EQ(m.chunk(2, 3)[1].storage_offset(), 2);
  EXPECT_EQ(m.narrow(2, 1, 2).sizes(), IntArrayRef({2, 1, 2, 4}));
  EXPECT_EQ(m.flatten(1, 2).sizes(), IntArrayRef({2, 3, 4}));
}
