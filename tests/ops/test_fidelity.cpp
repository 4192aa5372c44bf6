// The same call means what it means in LibTorch 1.13: overload resolution (LibTorch's hand-written
// var(int dim) family), optional dims taken as OptionalIntArrayRef (braced lists that live for
// the call), memory-overlap errors of out= and in-place writes, cat({}), memory formats and the
// layouts LibTorch gives (conv2d, nonzero). Expected values and strides are LibTorch 1.13's,
// printed by a probe program against /usr/include/torch.
#include <type_traits>

#include "OpTestUtil.h"

namespace ember::optest {
namespace {

Tensor arange_f(int64_t n, IntArrayRef shape) { return arange(n, kFloat64).reshape(shape); }

// var over `dims` (unbiased), from the values: a float64 reference independent of the kernels.
std::vector<double> ref_var_dim1(const Tensor& x) {  // x is [a, b, c]: over dim 1
  const auto v = values(x);
  const int64_t a = x.size(0), b = x.size(1), c = x.size(2);
  std::vector<double> r;
  for (int64_t i = 0; i < a; ++i)
    for (int64_t k = 0; k < c; ++k) {
      double m = 0, s = 0;
      for (int64_t j = 0; j < b; ++j) m += v[(i * b + j) * c + k];
      m /= static_cast<double>(b);
      for (int64_t j = 0; j < b; ++j) s += (v[(i * b + j) * c + k] - m) * (v[(i * b + j) * c + k] - m);
      r.push_back(s / static_cast<double>(b - 1));
    }
  return r;
}

// ---- overloads ------------------------------------------------------------------------------------

TEST(Fidelity, VarOfAnIntReducesThatDim) {
  const Tensor x = arange_f(60, {3, 4, 5}).pow(2);
  const Tensor v = x.var(1);  // LibTorch: var(int dim), not var(bool unbiased)
  EXPECT_EQ(v.sizes(), IntArrayRef({3, 5}));
  expect_values(v, ref_var_dim1(x), "x.var(1)");
  EXPECT_EQ(ember::var(x, 1).sizes(), IntArrayRef({3, 5}));
  EXPECT_EQ(x.std(1).sizes(), IntArrayRef({3, 5}));
  EXPECT_EQ(ember::std(x, 1).sizes(), IntArrayRef({3, 5}));
  expect_values(x.std(1).pow(2), ref_var_dim1(x), "x.std(1)^2");
  auto [vm, mm] = ember::var_mean(x, 1);
  expect_values(vm, ref_var_dim1(x), "var_mean(x, 1)");
  EXPECT_EQ(mm.sizes(), IntArrayRef({3, 5}));
  auto [sm, sm_mean] = ember::std_mean(x, 1);
  EXPECT_EQ(sm.sizes(), IntArrayRef({3, 5}));
  EXPECT_EQ(sm_mean.sizes(), IntArrayRef({3, 5}));
  // A bool still means unbiased: the whole-tensor variance.
  EXPECT_EQ(x.var(true).dim(), 0);
  EXPECT_EQ(std::get<0>(ember::var_mean(x, false)).dim(), 0);
  EXPECT_NEAR(std::get<0>(ember::var_mean(x, false)).item<double>(), x.var(false).item<double>(), 1e-9);
}

TEST(Fidelity, ArgsortOfABoolIsTheStableSort) {
  const Tensor x = tensor({3.0, 1.0, 2.0, 1.0});
  const Tensor i = x.argsort(true);  // LibTorch: argsort(bool stable), not argsort(dim = 1)
  expect_values(i, {1, 3, 2, 0}, "x.argsort(true)");
  expect_values(ember::argsort(x, true, 0, true), {0, 2, 1, 3}, "argsort(stable, descending)");
}

// Overload sets at compile time: what each call resolves to (its return type and parameter count
// are not enough, so the calls go through function pointers of the exact LibTorch signature).
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().var(1)), Tensor>);
using VarInt = Tensor (*)(const Tensor&, int);
[[maybe_unused]] constexpr VarInt kVarInt = &ember::var;
using VarMeanDim = std::tuple<Tensor, Tensor> (*)(const Tensor&, OptionalIntArrayRef, bool, bool);
[[maybe_unused]] constexpr VarMeanDim kVarMeanDim = &ember::var_mean;

// ---- OptionalIntArrayRef ---------------------------------------------------------------------------

TEST(Fidelity, OptionalDimsTakeBracedLists) {
  const Tensor x = arange_f(60, {3, 4, 5}).pow(2);
  EXPECT_EQ(x.var({0, 2}).sizes(), IntArrayRef({4}));
  // {1} with two more arguments: the list must outlive the call (it dangled as an optional<IntArrayRef>).
  const Tensor v = x.var({1}, false, true);
  EXPECT_EQ(v.sizes(), IntArrayRef({3, 1, 5}));
  std::vector<double> biased = ref_var_dim1(x);
  for (double& e : biased) e *= 3.0 / 4.0;
  expect_values(v, biased, "x.var({1}, false, true)");
  EXPECT_EQ(x.std({1}, false, true).sizes(), IntArrayRef({3, 1, 5}));
  EXPECT_EQ(std::get<0>(ember::var_mean(x, {1}, false, true)).sizes(), IntArrayRef({3, 1, 5}));
  EXPECT_EQ(std::get<1>(ember::std_mean(x, {0, 2}, true, true)).sizes(), IntArrayRef({1, 4, 1}));
  EXPECT_EQ(ember::var(x, {2}, 0, true).sizes(), IntArrayRef({3, 4, 1}));
  EXPECT_EQ(ember::linalg_vector_norm(x, 2, {0, 2}).sizes(), IntArrayRef({4}));
  EXPECT_EQ(ember::linalg_vector_norm(x, 2, {1}, true).sizes(), IntArrayRef({3, 1, 5}));
  // A vector (temporary or not), one int64_t, std::nullopt and {} (every dim).
  EXPECT_EQ(x.var(std::vector<int64_t>{2}, true, false).sizes(), IntArrayRef({3, 4}));
  const int64_t d = 0;
  EXPECT_EQ(x.var(OptionalIntArrayRef(d), true, true).sizes(), IntArrayRef({1, 4, 5}));
  EXPECT_EQ(x.var(std::nullopt, true, false).dim(), 0);
  EXPECT_EQ(x.var({}, true, false).dim(), 0);
}

TEST(Fidelity, OptionalIntArrayRefConversions) {
  OptionalIntArrayRef none;
  EXPECT_FALSE(none.has_value());
  EXPECT_FALSE(OptionalIntArrayRef(std::nullopt).has_value());
  const std::vector<int64_t> v{1, 2, 3};
  OptionalIntArrayRef from_vec(v);
  ASSERT_TRUE(from_vec.has_value());
  EXPECT_EQ(*from_vec, IntArrayRef({1, 2, 3}));
  const std::optional<IntArrayRef> o = IntArrayRef(v);
  EXPECT_EQ(OptionalIntArrayRef(o).value(), IntArrayRef({1, 2, 3}));
  const std::optional<IntArrayRef> back = from_vec;
  EXPECT_EQ(back->size(), 3u);
  SmallVector<int64_t, 5> sv(2, 7);
  EXPECT_EQ(OptionalIntArrayRef(sv)->size(), 2u);
  static_assert(!std::is_convertible_v<double*, OptionalIntArrayRef>);
}

// ---- memory overlap --------------------------------------------------------------------------------

constexpr const char* kPartial =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.";
constexpr const char* kInternal =
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation.";

TEST(Fidelity, PartialOverlapRaises) {
  for (ScalarType dt : {kFloat32, kFloat64, kInt64}) {
    Tensor x = arange(10, dt);
    Tensor hi = x.slice(0, 1), lo = x.slice(0, 0, 9);
    EXPECT_ERROR(ValueError, add_out(hi, lo, lo), "[add]", kPartial);
    EXPECT_ERROR(ValueError, hi.add_(lo), "[add_]", kPartial);
    EXPECT_ERROR(ValueError, lo.add_(hi), "[add_]", kPartial);
    EXPECT_ERROR(ValueError, hi.copy_(lo), "[copy_]", kPartial);
    EXPECT_ERROR(ValueError, mul_out(hi, lo, x.slice(0, 0, 9).clone()), kPartial);
    // Nothing was written.
    expect_values(x, values(arange(10, dt)), "x after the refused writes");
  }
  Tensor y = arange(10, kFloat32);
  Tensor hi = y.slice(0, 1), lo = y.slice(0, 0, 9);
  EXPECT_ERROR(ValueError, neg_out(hi, lo), kPartial);
  EXPECT_ERROR(ValueError, exp_out(hi, lo), kPartial);
  EXPECT_ERROR(ValueError, where_out(hi, lo > 2, lo, lo), kPartial);
}

TEST(Fidelity, ExactAliasAndInterleavedWritesAreFine) {
  Tensor x = arange(10, kFloat64);
  x.add_(x);  // the same elements: fine
  expect_values(x, {0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, "x.add_(x)");
  x.slice(0, 1).mul_(2);  // a Scalar: no input overlaps
  Tensor z = arange(10, kFloat64).reshape({2, 5});
  z.t().add_(z.t());
  expect_values(z, {0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, "z.t().add_(z.t())");
  // Interleaved halves are not dense: too hard to tell, so LibTorch computes (and so do we).
  Tensor w = arange(10, kFloat64);
  w.slice(0, 0, 10, 2).add_(w.slice(0, 1, 10, 2));
  expect_values(w, {1, 1, 5, 3, 9, 5, 13, 7, 17, 9}, "w[::2] += w[1::2]");
  // A reduction into part of its input is not checked (LibTorch's neither).
  Tensor s = arange(10, kFloat64);
  Tensor o = s.slice(0, 2, 5);
  sum_out(o, s.reshape({2, 5}).slice(1, 0, 3), {0});
  expect_values(o, {5, 7, 9}, "sum_out into its input");
}

TEST(Fidelity, InternalOverlapRaises) {
  Tensor e = zeros({1}).expand({4});
  EXPECT_ERROR(ValueError, e.add_(1), "[add_]", kInternal);
  Tensor y = zeros({4});
  EXPECT_ERROR(ValueError, add_out(e, y, y), kInternal);
  EXPECT_ERROR(ValueError, e.copy_(ones({4})), kInternal);
  // fill_ and zero_ write one value: allowed, as LibTorch.
  e.fill_(2);
  e.zero_();
}

TEST(Fidelity, CatOfNothing) {
  EXPECT_ERROR(ValueError, cat(std::vector<Tensor>{}), "[cat] torch.cat(): expected a non-empty list of Tensors");
  EXPECT_ERROR(ValueError, cat({}, 1), "[cat] torch.cat(): expected a non-empty list of Tensors");
}

// ---- memory formats ----------------------------------------------------------------------------------

TEST(Fidelity, MemoryFormatEnum) {
  EXPECT_EQ(to_string(MemoryFormat::ChannelsLast), "ChannelsLast");
  EXPECT_EQ(fmt::format("{} {} {}", MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast3d),
            "Contiguous Preserve ChannelsLast3d");
  EXPECT_EQ(static_cast<int>(MemoryFormat::ChannelsLast), 2);  // LibTorch's values (boxed as int)
}

TEST(Fidelity, EmptyInAMemoryFormat) {
  EXPECT_EQ(empty({2, 3, 4, 5}, {}, MemoryFormat::ChannelsLast).strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(empty({2, 3, 4, 5, 6}, kFloat64, MemoryFormat::ChannelsLast3d).strides(), IntArrayRef({360, 1, 90, 18, 3}));
  EXPECT_EQ(empty({2, 3, 0, 5}, {}, MemoryFormat::ChannelsLast).strides(), IntArrayRef({0, 1, 15, 3}));
  EXPECT_EQ(empty({2, 3}, {}, MemoryFormat::Contiguous).strides(), IntArrayRef({3, 1}));
  EXPECT_ERROR(ValueError, empty({2, 3, 4}, {}, MemoryFormat::ChannelsLast),
               "[empty] required rank 4 tensor to use channels_last format");
  EXPECT_ERROR(ValueError, empty({2, 3}, {}, MemoryFormat::ChannelsLast3d),
               "[empty] required rank 5 tensor to use channels_last_3d format");
  EXPECT_ERROR(ValueError, empty({2, 3}, {}, MemoryFormat::Preserve), "[empty] unsupported memory format Preserve");
  EXPECT_ERROR(ValueError, empty({-1, 3, 1, 5}, {}, MemoryFormat::ChannelsLast), "negative dimension -1");
}

TEST(Fidelity, ContiguityInAFormat) {
  const Tensor a = randn({2, 3, 4, 5});
  const Tensor cl = a.contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl.strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_FALSE(cl.is_contiguous());
  EXPECT_TRUE(cl.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(cl.suggest_memory_format(), MemoryFormat::ChannelsLast);
  EXPECT_EQ(a.suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_FALSE(a.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(values(cl), values(a));
  EXPECT_TRUE(cl.contiguous(MemoryFormat::ChannelsLast).is_same(cl));  // already: itself
  EXPECT_TRUE(a.contiguous(MemoryFormat::Preserve).is_same(a));
  EXPECT_ERROR(ValueError, a.slice(3, 0, 4).contiguous(MemoryFormat::Preserve),
               "preserve memory format is unsupported by the contiguous operator");
  EXPECT_ERROR(ValueError, a.contiguous(MemoryFormat::ChannelsLast3d),
               "required rank 5 tensor to use channels_last_3d format");
  // LibTorch's ambiguous cases: [1, 3, 1, 1] and [2, 1, 4, 5] are both layouts at once.
  const Tensor n111 = zeros({1, 3, 1, 1});
  EXPECT_TRUE(n111.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(n111.suggest_memory_format(), MemoryFormat::Contiguous);
  const Tensor c1 = zeros({2, 1, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(c1.strides(), IntArrayRef({20, 20, 5, 1}));
  EXPECT_EQ(c1.suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_EQ(randn({2, 3, 4, 5, 6}).contiguous(MemoryFormat::ChannelsLast3d).suggest_memory_format(),
            MemoryFormat::ChannelsLast3d);
}

TEST(Fidelity, PreserveFormatCopies) {
  const Tensor a = randn({2, 3, 4, 5});
  const Tensor cl = a.contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl.clone().strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(cl.clone(MemoryFormat::Contiguous).strides(), IntArrayRef({60, 20, 5, 1}));
  EXPECT_EQ(a.clone(MemoryFormat::ChannelsLast).strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(values(a.clone(MemoryFormat::ChannelsLast)), values(a));
  EXPECT_EQ(empty_like(cl).strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(empty_like(a.transpose(0, 1)).strides(), IntArrayRef({20, 60, 5, 1}));
  EXPECT_EQ(empty_like(cl.slice(3, 0, 4)).strides(), IntArrayRef({48, 1, 12, 3}));  // not dense: same order
  const Tensor t = a.transpose(0, 2).slice(0, 0, 3, 2);
  EXPECT_EQ(empty_like(t).strides(), IntArrayRef({5, 10, 30, 1}));
  EXPECT_EQ(t.clone().strides(), IntArrayRef({5, 10, 30, 1}));
  EXPECT_EQ(values(t.clone()), values(t));
  EXPECT_EQ(zeros_like(cl).strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(ones_like(cl, {}, MemoryFormat::Contiguous).strides(), IntArrayRef({60, 20, 5, 1}));
  EXPECT_EQ(full_like(a, 2.0, {}, MemoryFormat::ChannelsLast).strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(cl.to(kFloat64).strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(cl.to(kFloat64, false, false, MemoryFormat::Contiguous).strides(), IntArrayRef({60, 20, 5, 1}));
  EXPECT_EQ(a.to(a, false, false, MemoryFormat::ChannelsLast).strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(a.to(TensorOptions().dtype(kFloat64), false, false, MemoryFormat::ChannelsLast).strides(),
            IntArrayRef({60, 1, 15, 3}));
  EXPECT_TRUE(cl.to(kCPU).is_same(cl));  // nothing to change: self
  EXPECT_TRUE(a.to(kFloat32, false, false, MemoryFormat::Contiguous).is_same(a));
  EXPECT_FALSE(a.to(kFloat32, false, true).is_same(a));  // copy=true
}

TEST(Fidelity, Resize) {
  Tensor r = zeros({2, 3});
  r.resize_({4, 5});
  EXPECT_EQ(r.sizes(), IntArrayRef({4, 5}));
  EXPECT_EQ(r.strides(), IntArrayRef({5, 1}));
  r.resize_({2, 3, 4, 5}, MemoryFormat::ChannelsLast);
  EXPECT_EQ(r.strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_ERROR(ValueError, r.resize_({-1}), "[resize_]", "negative dimension -1");
  EXPECT_ERROR(ValueError, r.resize_({2, 3}, MemoryFormat::Preserve), "[resize_] Unsupported memory format Preserve");
  EXPECT_ERROR(ValueError, r.resize_({2, 3}, MemoryFormat::ChannelsLast),
               "required rank 4 tensor to use channels_last format");
  // The data is kept; a view grows its storage; the same sizes keep the strides.
  Tensor d = arange(6, kFloat64);
  d.resize_({2, 2});
  expect_values(d, {0, 1, 2, 3}, "d.resize_({2, 2})");
  d.resize_({8});
  expect_values(d.slice(0, 0, 6), {0, 1, 2, 3, 4, 5}, "grown");
  Tensor t = zeros({2, 3}).t();
  t.resize_({3, 2});
  EXPECT_EQ(t.strides(), IntArrayRef({1, 3}));
  t.resize_({3, 2}, MemoryFormat::Contiguous);
  EXPECT_EQ(t.strides(), IntArrayRef({2, 1}));
  Tensor base = zeros({2, 3});
  Tensor v = base.slice(1, 0, 2);
  v.resize_({3, 3});
  EXPECT_EQ(v.strides(), IntArrayRef({3, 1}));
}

TEST(Fidelity, ConvolutionKeepsChannelsLast) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Tensor a = randn({2, 3, 5, 6}, dt), w = randn({4, 3, 3, 3}, dt);
    const Tensor cl = a.contiguous(MemoryFormat::ChannelsLast);
    const Tensor ref = convolution(a, w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1);
    EXPECT_EQ(ref.strides(), IntArrayRef({48, 12, 4, 1}));
    const Tensor y = convolution(cl, w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1);
    EXPECT_EQ(y.strides(), IntArrayRef({48, 1, 16, 4}));
    expect_values(y, values(ref), "channels-last convolution");
    const Tensor yw = convolution(a, w.contiguous(MemoryFormat::ChannelsLast), std::nullopt, {1, 1}, {1, 1}, {1, 1},
                                  false, {0, 0}, 1);
    EXPECT_EQ(yw.strides(), IntArrayRef({120, 1, 24, 4}));
    // Transposed and 3-d convolutions stay contiguous (LibTorch 1.13's rule).
    const Tensor yt = convolution(cl, randn({3, 4, 3, 3}, dt), std::nullopt, {1, 1}, {0, 0}, {1, 1}, true, {0, 0}, 1);
    EXPECT_EQ(yt.strides(), IntArrayRef({224, 56, 8, 1}));
  }
}

TEST(Fidelity, NonzeroIsColumnMajor) {
  const Tensor e = eye(3);
  const Tensor nz = nonzero(e);
  EXPECT_EQ(nz.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(nz.strides(), IntArrayRef({1, 3}));
  expect_values(nz, {0, 0, 1, 1, 2, 2}, "nonzero(eye(3))");
  const Tensor m = tensor({{0.0, 1.0, 0.0}, {2.0, 0.0, 3.0}});
  expect_values(nonzero(m), {0, 1, 1, 0, 1, 2}, "nonzero(m)");
  EXPECT_EQ(nonzero(ones({2, 3, 4})).strides(), IntArrayRef({1, 24}));
  EXPECT_EQ(nonzero(zeros({0})).strides(), IntArrayRef({1, 0}));
  EXPECT_EQ(nonzero(full({}, 3.0)).sizes(), IntArrayRef({1, 0}));
  // Boolean-mask indexing reads nonzero's columns.
  expect_values(m.index({m > 0}), {1, 2, 3}, "m[m > 0]");
}

}  // namespace
}  // namespace ember::optest
