// The cpu plugin's operators against a naive float64 reference: every dtype, contiguous and
// non-contiguous inputs (transposed, sliced, expanded with stride 0), broadcasting, type
// promotion, aliasing, and the error messages. Reference values are read straight from memory
// through sizes and strides (values() in OpTestUtil.h), never through the operators under test.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

// ---- factories ------------------------------------------------------------------------------

TEST(CpuFactories, EmptyShapesDtypesStrides) {
  Tensor t = ember::empty({2, 3, 4});
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(t.strides(), IntArrayRef({12, 4, 1}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  for (ScalarType dt : kDtypes) {
    Tensor e = ember::empty({5}, dt);
    EXPECT_EQ(e.dtype(), dt);
    EXPECT_EQ(e.nbytes(), 5 * element_size(dt));
  }
  Tensor z = ember::empty({0, 3});
  EXPECT_EQ(z.numel(), 0);
  EXPECT_NE(z.data_ptr(), nullptr);
  Tensor s = ember::empty({});
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_ERROR(ValueError, ember::empty({2, -1}), "[empty]", "-1");
  EXPECT_ERROR(NotImplementedError, ember::empty({2}, TensorOptions().layout(kSparse)), "[empty]", "sparse");
}

TEST(CpuFactories, EmptyStrided) {
  Tensor t = ember::empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(t.strides(), IntArrayRef({1, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.unsafeGetTensorImpl()->storage()->nbytes(), 6 * sizeof(float));
  Tensor e = ember::empty_strided({2, 0}, {0, 1}, kInt64);
  EXPECT_EQ(e.numel(), 0);
  EXPECT_ERROR(ValueError, ember::empty_strided({2, 3}, {1}), "[empty_strided]");
}

TEST(CpuFactories, ZerosOnesFullEveryDtype) {
  for (ScalarType dt : kDtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor z = ember::zeros({2, 3}, dt);
    Tensor o = ember::ones({2, 3}, dt);
    Tensor f = ember::full({3}, 1, dt);
    EXPECT_EQ(z.dtype(), dt);
    EXPECT_EQ(o.dtype(), dt);
    expect_values(z, std::vector<double>(6, 0), "zeros");
    expect_values(o, std::vector<double>(6, 1), "ones");
    expect_values(f, std::vector<double>(3, 1), "full");
  }
  // full's dtype follows the value when none is given.
  EXPECT_EQ(ember::full({2}, true).dtype(), kBool);
  EXPECT_EQ(ember::full({2}, 7).dtype(), kInt64);
  EXPECT_EQ(ember::full({2}, 2.5).dtype(), kFloat32);
  EXPECT_EQ(ember::full({2}, 2.5, kFloat64).dtype(), kFloat64);
  expect_values(ember::full({2, 2}, -3.5), std::vector<double>(4, -3.5), "full float");
  // A value that does not fit the dtype is refused (c10's checked conversion).
  EXPECT_ERROR(ValueError, ember::full({2}, 300, kUInt8), "[fill_]", "300", "uint8");
  EXPECT_ERROR(ValueError, ember::full({2}, 1e6, kFloat16), "[fill_]", "float16");
  EXPECT_ERROR(ValueError, ember::full({2}, 2.5e10, kInt32), "int32");
  expect_values(ember::full({1}, -1, kUInt8), {255}, "uint8 wraps -1 as c10 does");
}

TEST(CpuFactories, Arange) {
  Tensor a = ember::arange(5);
  EXPECT_EQ(a.dtype(), kInt64);
  expect_values(a, {0, 1, 2, 3, 4}, "arange(5)");
  Tensor b = ember::arange(0, 1, 0.25);
  EXPECT_EQ(b.dtype(), kFloat32);
  expect_values(b, {0, 0.25, 0.5, 0.75}, "arange(0,1,0.25)");
  EXPECT_EQ(ember::arange(0, 1, 0.1).numel(), 10);
  EXPECT_EQ(ember::arange(1, 2.5, 0.5).numel(), 3);
  expect_values(ember::arange(10, 0, -3), {10, 7, 4, 1}, "negative step");
  EXPECT_EQ(ember::arange(10, 0, -3).dtype(), kInt64);
  expect_values(ember::arange(2, 5, TensorOptions(kFloat64)), {2, 3, 4}, "dtype option");
  EXPECT_EQ(ember::arange(2, 5, TensorOptions(kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(ember::arange(3, 3).numel(), 0);
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64})
    expect_values(ember::arange(0, 4, TensorOptions(dt)), {0, 1, 2, 3}, std::string(dtype_name(dt)));
  EXPECT_ERROR(ValueError, ember::arange(0, 5, 0), "[arange]", "step must be nonzero");
  EXPECT_ERROR(ValueError, ember::arange(0, 5, -1), "[arange]", "inconsistent with step sign");
  EXPECT_ERROR(ValueError, ember::arange(5, 0, 1), "[arange]", "inconsistent with step sign");
}

// LibTorch's torch::tensor forms beside the braced lists: one value (0-dim) and a vector or
// ArrayRef (1-d copy), with the same dtype rule (float/double: the default dtype; int/int64_t:
// kInt64; other element types kept).
TEST(CpuFactories, TensorFromValueAndVector) {
  Tensor s = ember::tensor(2.5);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.dtype(), kFloat32);
  EXPECT_EQ(s.item().toDouble(), 2.5);
  EXPECT_EQ(ember::tensor(7).dtype(), kInt64);
  EXPECT_EQ(ember::tensor(true).dtype(), kBool);
  EXPECT_EQ(ember::tensor(2.5, kFloat64).dtype(), kFloat64);
  std::vector<double> v{1.5, -2.0, 3.25};
  Tensor t = ember::tensor(v);
  EXPECT_EQ(t.sizes(), IntArrayRef({3}));
  EXPECT_EQ(t.dtype(), kFloat32);
  expect_values(t, {1.5, -2.0, 3.25}, "tensor(vector<double>)");
  v[0] = 9;  // a copy, not a view
  EXPECT_EQ(t[0].item().toDouble(), 1.5);
  std::vector<int32_t> iv{4, 5};
  EXPECT_EQ(ember::tensor(iv).dtype(), kInt64);
  expect_values(ember::tensor(ArrayRef<int32_t>(iv), kFloat64), {4, 5}, "tensor(ArrayRef<int>, kFloat64)");
  std::vector<uint8_t> bytes{1, 255};
  EXPECT_EQ(ember::tensor(bytes).dtype(), kUInt8);
  EXPECT_EQ(ember::tensor(std::vector<float>{}).sizes(), IntArrayRef({0}));
}

TEST(CpuFactories, LikeFactoriesKeepOptionsAndStrides) {
  Tensor base = make({2, 3}, kFloat64, Kind::Transposed);
  for (auto* f : {+[](const Tensor& t) { return ember::empty_like(t); },
                  +[](const Tensor& t) { return ember::zeros_like(t); },
                  +[](const Tensor& t) { return ember::ones_like(t); },
                  +[](const Tensor& t) { return ember::full_like(t, 4); }}) {
    Tensor r = f(base);
    EXPECT_EQ(r.sizes(), base.sizes());
    EXPECT_EQ(r.dtype(), kFloat64);
    EXPECT_EQ(r.strides(), base.strides());  // LibTorch's preserve_format for dense inputs
    EXPECT_NE(storage_of(r), storage_of(base));
  }
  expect_values(ember::zeros_like(base), std::vector<double>(6, 0), "zeros_like");
  expect_values(ember::ones_like(base), std::vector<double>(6, 1), "ones_like");
  expect_values(ember::full_like(base, 4), std::vector<double>(6, 4), "full_like");
  Tensor i = ember::ones_like(base, kInt32);
  EXPECT_EQ(i.dtype(), kInt32);
  // Not dense (expanded): contiguous result.
  Tensor e = ember::empty_like(make({3, 4}, kFloat32, Kind::Expanded));
  EXPECT_TRUE(e.is_contiguous());
  // full_like keeps self's dtype rather than the value's.
  EXPECT_EQ(ember::full_like(ember::ones({2}, kInt32), 7).dtype(), kInt32);
}

TEST(CpuFactories, FillAndZeroEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes) {
    for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor t = make({3, 4}, dt, k);
      const uint64_t v0 = t._version();
      Tensor& r = t.fill_(1);
      EXPECT_EQ(&r, &t);
      EXPECT_GT(t._version(), v0);
      expect_values(t, std::vector<double>(12, 1), "fill_");
      t.zero_();
      expect_values(t, std::vector<double>(12, 0), "zero_");
    }
  }
  // Filling a view writes through to its base and leaves the rest alone.
  Tensor base = ember::zeros({2, 4});
  base.slice(1, 1, 3).fill_(2.5);
  expect_values(base, {0, 2.5, 2.5, 0, 0, 2.5, 2.5, 0}, "fill_ through a view");
  // An expanded tensor can be filled (one value everywhere), as in LibTorch.
  Tensor ex = ember::zeros({1, 3}).expand({4, 3});
  ex.fill_(7);
  expect_values(ex, std::vector<double>(12, 7), "fill_ expanded");
}

// ---- binary arithmetic ----------------------------------------------------------------------

namespace {

struct ArithCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  std::function<double(double, double)> ref;
  bool nonzero_rhs = false;
};

std::vector<ArithCase> arith_cases() {
  return {
      {"add", [](const Tensor& a, const Tensor& b) { return ember::add(a, b); }, [](double x, double y) { return x + y; }},
      {"add_alpha", [](const Tensor& a, const Tensor& b) { return ember::add(a, b, 2); },
       [](double x, double y) { return x + 2 * y; }},
      {"sub", [](const Tensor& a, const Tensor& b) { return ember::sub(a, b); }, [](double x, double y) { return x - y; }},
      {"sub_alpha", [](const Tensor& a, const Tensor& b) { return ember::sub(a, b, 3); },
       [](double x, double y) { return x - 3 * y; }},
      {"mul", [](const Tensor& a, const Tensor& b) { return ember::mul(a, b); }, [](double x, double y) { return x * y; }},
      {"div", [](const Tensor& a, const Tensor& b) { return ember::div(a, b); }, [](double x, double y) { return x / y; },
       true},
  };
}

const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> kShapePairs = {
    {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{4, 1, 3}, {2, 1}}, {{}, {2, 3}}, {{3, 5}, {}}, {{0, 3}, {3}}, {{1}, {4, 2}},
};

}  // namespace

TEST(CpuBinary, ArithmeticEveryDtypeLayoutAndBroadcast) {
  for (const auto& op : arith_cases()) {
    for (ScalarType dt : kDtypes) {
      const bool is_sub = std::string(op.name).rfind("sub", 0) == 0;
      if (is_sub && dt == kBool) continue;  // an error, tested below
      for (const auto& [sa, sb] : kShapePairs) {
        for (Kind ka : kKinds) {
          for (Kind kb : kKinds) {
            SCOPED_TRACE(std::string(op.name) + " " + std::string(dtype_name(dt)) + " " + kind_name(ka) + "/" +
                         kind_name(kb) + " " + ::testing::PrintToString(sa) + " " + ::testing::PrintToString(sb));
            Tensor a = make(sa, dt, ka, 1);
            Tensor b = make(sb, dt, kb, 2, op.nonzero_rhs);
            Tensor r = op.fn(a, b);
            const bool div = std::string(op.name) == "div";
            const ScalarType want = div && !is_floating_type(dt) ? kFloat32 : dt;
            ASSERT_EQ(r.dtype(), want);
            EXPECT_EQ(r.sizes(), IntArrayRef(broadcast(sa, sb)));
            auto ref = ref_binary(a, b, op.ref);
            if (dt == kBool && !div)  // bool arithmetic is logical: any nonzero is true
              for (auto& v : ref) v = v != 0;
            expect_values(r, ref, op.name);
          }
        }
      }
    }
  }
}

TEST(CpuBinary, OutputLayoutFollowsInputs) {
  // As LibTorch's TensorIterator: the output of transposed inputs is laid out like them.
  Tensor a = make({3, 4}, kFloat32, Kind::Transposed), b = make({3, 4}, kFloat32, Kind::Transposed);
  Tensor r = a + b;
  EXPECT_EQ(r.strides(), IntArrayRef({1, 3}));
  expect_values(r, ref_binary(a, b, std::plus<double>()), "transposed add");
  // Mixed layouts: contiguous wins when the first input is contiguous.
  Tensor c = make({3, 4}, kFloat32, Kind::Contiguous);
  EXPECT_TRUE((c + a).is_contiguous());
  // A fresh contiguous result for plain inputs.
  EXPECT_TRUE((c + c).is_contiguous());
}

TEST(CpuBinary, PromotionAllDtypePairs) {
  for (ScalarType da : kDtypes) {
    for (ScalarType db : kDtypes) {
      SCOPED_TRACE(std::string(dtype_name(da)) + " + " + std::string(dtype_name(db)));
      Tensor a = make({2, 3}, da, Kind::Contiguous, 1);
      Tensor b = make({3}, db, Kind::Sliced, 2, true);
      const ScalarType want = torch_promote(da, db);
      Tensor r = ember::mul(a, b);
      ASSERT_EQ(r.dtype(), want);
      expect_values(r, ref_binary(a, b, [&](double x, double y) {
                      return want == kBool ? double(x != 0 && y != 0) : as_dtype(x, want) * as_dtype(y, want);
                    }), "mul promoted");
      Tensor q = ember::div(a, b);
      EXPECT_EQ(q.dtype(), is_floating_type(want) ? want : kFloat32);
      Tensor c = ember::lt(a, b);
      EXPECT_EQ(c.dtype(), kBool);
      expect_values(c, ref_binary(a, b, [&](double x, double y) { return double(as_dtype(x, want) < as_dtype(y, want)); }),
                    "lt promoted");
    }
  }
}

TEST(CpuBinary, PromotionWithScalarsAndZeroDimTensors) {
  Tensor i32 = ember::ones({2}, kInt32), u8 = ember::ones({2}, kUInt8), b = ember::ones({2}, kBool);
  Tensor f16 = ember::ones({2}, kFloat16), f32 = ember::ones({2});
  // A Scalar counts only by category.
  EXPECT_EQ((i32 + 2.5).dtype(), kFloat32);
  EXPECT_EQ((u8 + 1000).dtype(), kUInt8);
  EXPECT_EQ((b + 1).dtype(), kInt64);
  EXPECT_EQ((b + true).dtype(), kBool);
  EXPECT_EQ((f16 + 2.5).dtype(), kFloat16);
  EXPECT_EQ((i32 * 3).dtype(), kInt32);
  EXPECT_EQ((i32 / 2).dtype(), kFloat32);
  // A 0-dim tensor counts only when its category is higher.
  EXPECT_EQ((i32 + ember::full({}, 2.5, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ((f32 + ember::full({}, 2.5, kFloat64)).dtype(), kFloat32);
  EXPECT_EQ((f16 + ember::full({}, 2, kInt64)).dtype(), kFloat16);
  EXPECT_EQ((ember::full({}, 1, kInt64) + ember::full({}, 2, kInt32)).dtype(), kInt64);
  EXPECT_EQ((ember::full({}, 1.5, kFloat64) + 1.5).dtype(), kFloat64);
  // The default dtype decides for floating Scalars with integral tensors.
  set_default_dtype(kFloat64);
  EXPECT_EQ((i32 + 2.5).dtype(), kFloat64);
  EXPECT_EQ((i32 / 2).dtype(), kFloat64);
  set_default_dtype(kFloat32);
  // Values: the Scalar converts to the common dtype (wrapping for integers, as LibTorch).
  expect_values(u8 + 300, {45, 45}, "uint8 + 300");
  expect_values(i32 + 2.5, {3.5, 3.5}, "int32 + 2.5");
  expect_values(f16 * 0.1, {0.1, 0.1}, "float16 * 0.1");
}

// PyTorch's rule for operands of different priority (dimensioned tensor > zero-dim tensor >
// Scalar), stated independently of the table: the lower-priority operand decides only when its
// category (bool < integral < floating) is higher, and then by its own dtype (a Scalar's is
// int64 or the default dtype); otherwise the higher-priority operand's dtype stands.
int category(ScalarType t) { return t == kBool ? 0 : is_floating_type(t) ? 2 : 1; }
ScalarType priority_promote(ScalarType high, ScalarType low) {
  return category(low) > category(high) ? low : high;
}

TEST(CpuBinary, PromotionExhaustiveAcrossPriorities) {
  const std::vector<Scalar> scalars = {Scalar(true), Scalar(int64_t{3}), Scalar(1.5)};
  auto scalar_dtype = [](const Scalar& s) { return s.isBoolean() ? kBool : s.isFloatingPoint() ? kFloat32 : kInt64; };
  for (ScalarType dt : kDtypes) {
    Tensor d = make({2, 3}, dt, Kind::Contiguous, 1);
    Tensor z = make({}, dt, Kind::Contiguous, 2);
    for (ScalarType zt : kDtypes) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " with zero-dim " + std::string(dtype_name(zt)));
      Tensor zz = make({}, zt, Kind::Contiguous, 3);
      // Dimensioned with zero-dim, both orders; zero-dim with zero-dim uses the plain table.
      const ScalarType want = priority_promote(dt, zt);
      ASSERT_EQ(ember::mul(d, zz).dtype(), want);
      ASSERT_EQ(ember::mul(zz, d).dtype(), want);
      expect_values(ember::mul(d, zz), ref_binary(d, zz, [&](double x, double y) {
                      return want == kBool ? double(x != 0 && y != 0) : as_dtype(x, want) * as_dtype(y, want);
                    }), "mul dim x zero-dim");
      ASSERT_EQ(ember::mul(z, zz).dtype(), torch_promote(dt, zt));
    }
    for (const Scalar& s : scalars) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " with Scalar " + s.str());
      const ScalarType st = scalar_dtype(s);
      ASSERT_EQ(ember::mul(d, s).dtype(), priority_promote(dt, st));
      ASSERT_EQ(ember::mul(z, s).dtype(), priority_promote(dt, st));
      // A zero-dim tensor of the Scalar's dtype promotes as the Scalar does against a dimensioned one.
      ASSERT_EQ(ember::mul(d, ember::scalar_tensor(s, st)).dtype(), priority_promote(dt, st));
    }
  }
}

TEST(CpuBinary, ScalarOverloadsEveryDtype) {
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4}, dt, k, 3);
      if (dt != kBool) {
        const Scalar s = is_floating_type(dt) ? Scalar(1.5) : Scalar(int64_t{2});
        const double sv = s.toDouble();
        expect_values(a + s, ref_binary(a, a, [&](double x, double) { return x + sv; }), "add scalar");
        expect_values(ember::add(a, s, 2), ref_binary(a, a, [&](double x, double) { return x + 2 * sv; }), "add alpha");
        expect_values(a - s, ref_binary(a, a, [&](double x, double) { return x - sv; }), "sub scalar");
        expect_values(a * s, ref_binary(a, a, [&](double x, double) { return x * sv; }), "mul scalar");
        Tensor q = a / s;
        EXPECT_EQ(q.dtype(), is_floating_type(dt) ? dt : kFloat32);
        expect_values(q, ref_binary(a, a, [&](double x, double) { return x / sv; }), "div scalar");
      } else {
        expect_values(a * true, values(a), "bool mul true");
        expect_values(a + false, values(a), "bool add false");
      }
      Tensor e = ember::eq(a, 1);
      EXPECT_EQ(e.dtype(), kBool);
      expect_values(e, ref_binary(a, a, [](double x, double) { return double(x == 1); }), "eq scalar");
      expect_values(ember::lt(a, 0.5), ref_binary(a, a, [](double x, double) { return double(x < 0.5); }), "lt scalar");
    }
  }
}

TEST(CpuBinary, InPlaceAndOutVariants) {
  for (ScalarType dt : kDtypes) {
    if (dt == kBool) continue;
    for (Kind kb : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(kb));
      Tensor a = make({3, 4}, dt, Kind::Contiguous, 1);
      Tensor b = make({3, 4}, dt, kb, 2, true);
      const auto ref_add = ref_binary(a, b, [](double x, double y) { return x + 2 * y; });
      const auto ref_mul = ref_binary(a, b, std::multiplies<double>());
      const uint64_t v0 = a._version();
      Tensor a2 = a.clone();
      Tensor& r = a.add_(b, 2);
      EXPECT_EQ(&r, &a);
      EXPECT_TRUE(r.is_same(a));
      EXPECT_GT(a._version(), v0);
      expect_values(a, ref_add, "add_");
      a2.mul_(b);
      expect_values(a2, ref_mul, "mul_");
      Tensor out = ember::empty({3, 4}, dt);
      Tensor& o = ember::add_out(out, make({3, 4}, dt, Kind::Contiguous, 1), b, 2);
      EXPECT_TRUE(o.is_same(out));
      expect_values(out, ref_add, "add_out");
      // In place on a non-contiguous self.
      Tensor t = make({3, 4}, dt, Kind::Transposed, 1);
      const auto ref_t = ref_binary(t, b, [](double x, double y) { return x - y; });
      t.sub_(b);
      EXPECT_EQ(t.strides(), IntArrayRef({1, 3}));
      expect_values(t, ref_t, "sub_ transposed self");
    }
  }
  // In place with broadcasting of other, and Scalar in-place overloads.
  Tensor a = ember::ones({2, 3});
  a.add_(ember::arange(3, kFloat32));
  expect_values(a, {1, 2, 3, 1, 2, 3}, "add_ broadcast");
  a.mul_(2).sub_(1).div_(2);
  expect_values(a, {0.5, 1.5, 2.5, 0.5, 1.5, 2.5}, "scalar in-place chain");
  // float16 self with a float32 other: computed in float, stored in float16.
  Tensor h = ember::ones({2}, kFloat16);
  h.add_(ember::full({2}, 0.5));
  EXPECT_EQ(h.dtype(), kFloat16);
  expect_values(h, {1.5, 1.5}, "float16 add_ float32");
  // out= of a wider dtype, and an out= tensor of the wrong shape is resized.
  Tensor o64 = ember::empty({0}, kFloat64);
  ember::mul_out(o64, ember::full({2, 2}, 1.5), ember::full({2}, 2.0));
  EXPECT_EQ(o64.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(o64.dtype(), kFloat64);
  expect_values(o64, {3, 3, 3, 3}, "mul_out resized");
  Tensor dv = ember::empty({2}, kFloat32);
  ember::div_out(dv, ember::full({2}, 3, kInt64), ember::full({2}, 2, kInt64));
  expect_values(dv, {1.5, 1.5}, "div_out of integers");
}

TEST(CpuBinary, ErrorsNameTheOpAndTheProblem) {
  Tensor a = ember::ones({2, 3}), b = ember::ones({4});
  EXPECT_ERROR(ValueError, ember::add(a, b), "[add]", "[2, 3]", "[4]", "broadcast");
  EXPECT_ERROR(ValueError, ember::mul(ember::ones({3, 2}), ember::ones({3})), "[mul]", "[3, 2]", "[3]");
  EXPECT_ERROR(ValueError, ember::lt(a, b), "[lt]", "[2, 3]", "[4]");
  // In place: the result shape must be self's.
  Tensor s = ember::ones({3});
  EXPECT_ERROR(ValueError, s.add_(ember::ones({2, 3})), "[add_]", "output with shape [3]", "[2, 3]");
  // Result dtype that the output cannot hold.
  Tensor i = ember::ones({2}, kInt64);
  EXPECT_ERROR(TypeError, i.add_(ember::ones({2})), "[add_]", "float32", "int64");
  EXPECT_ERROR(TypeError, i.div_(2), "[div_]", "can't be cast");
  Tensor out = ember::empty({2}, kInt32);
  EXPECT_ERROR(TypeError, ember::add_out(out, ember::ones({2}), ember::ones({2})), "[add]", "float32", "int32");
  Tensor bo = ember::empty({2}, kBool);
  EXPECT_ERROR(TypeError, ember::mul_out(bo, i, i), "[mul]", "bool");
  // Bool subtraction, and alpha rules.
  Tensor bt = ember::ones({2}, kBool);
  EXPECT_ERROR(TypeError, ember::sub(bt, bt), "[sub]", "two bool tensors");
  EXPECT_ERROR(TypeError, ember::sub(bt, 1), "[sub]", "with a bool tensor");
  EXPECT_ERROR(TypeError, ember::sub(i, true), "[sub]", "bool");
  EXPECT_ERROR(TypeError, ember::add(i, i, 2.5), "[add]", "alpha");
  EXPECT_ERROR(TypeError, ember::add(a, a, true), "[add]", "boolean alpha");
  // Written-to tensor with overlapping elements.
  Tensor ex = ember::zeros({1, 3}).expand({2, 3});
  EXPECT_ERROR(ValueError, ex.add_(1), "[add_]", "more than one element");
  // Undefined arguments.
  EXPECT_ERROR(ValueError, ember::add(Tensor(), a), "[add]", "defined");
  // Complex numbers are not ordered: the message names op and dtype.
  Tensor c = ember::zeros({2}, kComplex64);
  EXPECT_ERROR(NotImplementedError, ember::lt(c, c), "[lt]", "complex64");
}

TEST(CpuBinary, MixedDevicesNameBothDevices) {
  auto op = Dispatcher::singleton().findSchemaOrThrow("aten::add", "Tensor")
                .typed<Tensor(const Tensor&, const Tensor&, const Scalar&)>();
  Tensor a = ember::ones({2});
  Tensor m = meta_tensor({2});
  EXPECT_ERROR(ValueError, op.redispatch(DispatchKeySet(DispatchKey::CPU), a, m, 1), "[add]", "cpu", "meta");
  auto cp = Dispatcher::singleton().findSchemaOrThrow("aten::copy_", "").typed<Tensor&(Tensor&, const Tensor&, bool)>();
  EXPECT_ERROR(ValueError, cp.redispatch(DispatchKeySet(DispatchKey::CPU), a, m, false), "[copy_]", "cpu", "meta");
}

TEST(CpuBinary, AliasingAndOverlap) {
  // Same tensor on both sides, in place.
  Tensor a = ember::arange(4, kFloat32);
  a.mul_(a);
  expect_values(a, {0, 1, 4, 9}, "a.mul_(a)");
  // Partial overlap (dense operands sharing some elements) raises, as LibTorch; nothing is written.
  Tensor x = ember::arange(6, kFloat32);
  EXPECT_ERROR(ValueError, x.slice(0, 1).add_(x.slice(0, 0, 5)), "[add_]", "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location");
  expect_values(x, {0, 1, 2, 3, 4, 5}, "refused overlapping add_");
  Tensor y = ember::arange(6, kFloat32);
  Tensor yo = y.slice(0, 0, 5);
  EXPECT_ERROR(ValueError, ember::add_out(yo, y.slice(0, 1), y.slice(0, 1)), "[add]", "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location");
  // In place with a broadcast view of self: its row overlaps part of self (LibTorch raises too).
  Tensor m = ember::arange(6, kFloat32).view({2, 3});
  EXPECT_ERROR(ValueError, m.add_(m.select(0, 0)), "[add_]", "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location");
  // Overlap that is too hard to tell (non-dense operands) is computed as if read first.
  Tensor w = ember::arange(6, kFloat32);
  w.slice(0, 0, 6, 2).add_(w.slice(0, 1, 6, 2));
  expect_values(w, {1, 1, 5, 3, 9, 5}, "interleaved add_");
}

TEST(CpuBinary, IntegerWrapAndSpecialValues) {
  expect_values(ember::full({1}, 127, kInt8) + 1, {-128}, "int8 wraps");
  expect_values(ember::full({1}, 0, kUInt8) - 1, {255}, "uint8 wraps");
  expect_values(ember::full({1}, std::numeric_limits<int64_t>::max(), kInt64) + 1,
                {static_cast<double>(std::numeric_limits<int64_t>::min())}, "int64 wraps");
  expect_values(ember::full({1}, 65536, kInt32) * ember::full({1}, 65536, kInt32), {0}, "int32 mul wraps");
  Tensor q = ember::div(ember::tensor({1, -1, 0}), ember::zeros({3}, kInt64));
  EXPECT_EQ(q.dtype(), kFloat32);
  auto v = values(q);
  EXPECT_EQ(v[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(v[2]));
  Tensor nan = ember::full({2}, std::numeric_limits<double>::quiet_NaN());
  expect_values(ember::eq(nan, nan), {0, 0}, "nan == nan");
  expect_values(ember::ne(nan, nan), {1, 1}, "nan != nan");
  // float16 arithmetic rounds once from float.
  expect_values(ember::full({1}, 2048, kFloat16) + 1, {2048}, "float16 2048 + 1");
}

TEST(CpuBinary, ComparisonsEveryDtypeLayoutAndBroadcast) {
  struct Cmp {
    const char* name;
    Tensor (*fn)(const Tensor&, const Tensor&);
    bool (*ref)(double, double);
  };
  const Cmp cmps[] = {
      {"eq", [](const Tensor& a, const Tensor& b) { return ember::eq(a, b); }, [](double x, double y) { return x == y; }},
      {"ne", [](const Tensor& a, const Tensor& b) { return ember::ne(a, b); }, [](double x, double y) { return x != y; }},
      {"lt", [](const Tensor& a, const Tensor& b) { return ember::lt(a, b); }, [](double x, double y) { return x < y; }},
      {"le", [](const Tensor& a, const Tensor& b) { return ember::le(a, b); }, [](double x, double y) { return x <= y; }},
      {"gt", [](const Tensor& a, const Tensor& b) { return ember::gt(a, b); }, [](double x, double y) { return x > y; }},
      {"ge", [](const Tensor& a, const Tensor& b) { return ember::ge(a, b); }, [](double x, double y) { return x >= y; }},
  };
  for (const auto& c : cmps) {
    for (ScalarType dt : kDtypes) {
      for (const auto& [sa, sb] : kShapePairs) {
        for (Kind ka : kKinds) {
          for (Kind kb : {Kind::Contiguous, Kind::Transposed, Kind::Expanded}) {
            SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)) + " " + kind_name(ka) + "/" +
                         kind_name(kb));
            Tensor a = make(sa, dt, ka, 1), b = make(sb, dt, kb, 4);
            Tensor r = c.fn(a, b);
            ASSERT_EQ(r.dtype(), kBool);
            EXPECT_EQ(r.sizes(), IntArrayRef(broadcast(sa, sb)));
            expect_values(r, ref_binary(a, b, [&](double x, double y) { return double(c.ref(x, y)); }), c.name);
          }
        }
      }
    }
  }
  // Promotion inside comparisons: 2 < 2.5 compares in float.
  expect_values(ember::lt(ember::full({1}, 2, kInt64), 2.5), {1}, "int < 2.5");
  expect_values(ember::eq(ember::full({1}, 2, kInt64), ember::full({1}, 2.0, kFloat16)), {1}, "int == half");
}

// In place and out= write 0/1 in the output's own dtype (values and dtypes from libtorch 1.13).
TEST(CpuBinary, ComparisonsInPlaceAndOut) {
  const Tensor a = ember::tensor({1.5, 2.0, 3.0}), b = ember::full({3}, 2.0);
  Tensor of = ember::empty({3}, kFloat32);
  Tensor& r = ember::eq_out(of, a, b);
  EXPECT_EQ(r.unsafeGetTensorImpl(), of.unsafeGetTensorImpl());
  EXPECT_EQ(of.dtype(), kFloat32);
  expect_values(of, {0, 1, 0}, "eq_out float32");
  Tensor ol = ember::empty({3}, kInt64);
  ember::lt_out(ol, a, b);
  EXPECT_EQ(ol.dtype(), kInt64);
  expect_values(ol, {1, 0, 0}, "lt_out int64");
  Tensor oi = ember::empty({0}, kInt32);  // resized to the result's shape
  ember::ge_out(oi, a, 2);
  EXPECT_EQ(oi.sizes(), IntArrayRef({3}));
  EXPECT_EQ(oi.dtype(), kInt32);
  expect_values(oi, {0, 1, 1}, "ge_out int32, Scalar");
  Tensor o2 = ember::empty({2, 3}, kFloat64);  // another shape: resized too
  ember::gt_out(o2, a, b.expand({3}));
  EXPECT_EQ(o2.sizes(), IntArrayRef({3}));
  expect_values(o2, {0, 0, 1}, "gt_out float64 of another shape");
  Tensor ob = ember::empty({3}, kBool);  // the same-shape fast path
  ember::ne_out(ob, a, 2.0);
  expect_values(ob, {1, 0, 1}, "ne_out bool, Scalar");
  ember::le_out(ob, a, b);
  expect_values(ob, {1, 1, 0}, "le_out bool");

  Tensor x = ember::tensor({1, 2, 3});  // int64
  Tensor& xr = x.le_(2);
  EXPECT_EQ(xr.unsafeGetTensorImpl(), x.unsafeGetTensorImpl());
  EXPECT_EQ(x.dtype(), kInt64);
  expect_values(x, {1, 1, 0}, "le_ int64, int Scalar");
  Tensor x2 = ember::tensor({1, 2, 3});
  x2.le_(2.5);  // compares in float, writes int64
  expect_values(x2, {1, 1, 0}, "le_ int64, float Scalar");
  Tensor f = ember::tensor({1.0, 2.0, 3.0});
  f.gt_(ember::tensor({2}));  // other broadcast and int64
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values(f, {0, 0, 1}, "gt_ float32");
  Tensor i = ember::tensor({1, 2, 3}).to(kInt32);
  i.lt_(ember::tensor({1.5, 2.5, 2.5}));
  EXPECT_EQ(i.dtype(), kInt32);
  expect_values(i, {1, 1, 0}, "lt_ int32 against float");
  Tensor bl = ember::tensor({true, false, true});  // the fast path, in place on bool
  bl.eq_(ember::tensor({true, true, false}));
  expect_values(bl, {1, 0, 0}, "eq_ bool");
  Tensor bh = ember::tensor({true, false});
  bh.ne_(0.5);
  EXPECT_EQ(bh.dtype(), kBool);
  expect_values(bh, {1, 1}, "ne_ bool, float Scalar");

  Tensor y = ember::tensor({1.0, 2.0, 3.0});
  EXPECT_ERROR(ValueError, y.eq_(ember::ones({2, 3})), "[eq_]", "output with shape [3]",
               "doesn't match the broadcast shape [2, 3]");
  expect_values(y, {1, 2, 3}, "eq_ error leaves self unchanged");
  EXPECT_ERROR(ValueError, y.ge_(ember::ones({2, 3})), "[ge_]", "[2, 3]");
  Tensor ow = ember::empty({3}, kInt64);
  EXPECT_ERROR(ValueError, ember::ne_out(ow, ember::ones({2}), ember::ones({3})), "[ne]", "[2]", "[3]");
}

// ---- copies and conversions ---------------------------------------------------------------------

TEST(CpuCopy, EveryDtypePairAndLayout) {
  for (ScalarType from : kDtypes) {
    for (ScalarType to : kDtypes) {
      for (Kind ks : kKinds) {
        SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)) + " " + kind_name(ks));
        Tensor src = make({3, 4}, from, ks, 5);
        Tensor dst = ember::empty({3, 4}, to);
        Tensor& r = dst.copy_(src);
        EXPECT_EQ(&r, &dst);
        expect_values(dst, values(src), "copy_");
        Tensor dstt = ember::empty({4, 3}, to).t();  // non-contiguous destination
        dstt.copy_(src);
        expect_values(dstt, values(src), "copy_ into transposed");
      }
    }
  }
  // Conversions follow c10: floats truncate toward zero, -1.0 -> 255 for uint8, nonzero -> true.
  Tensor f = ember::tensor({-1.75, 2.5, 0.0, 300.0}, kFloat64);
  expect_values(f.to(kInt32), {-1, 2, 0, 300}, "float -> int32");
  expect_values(f.slice(0, 0, 3).to(kUInt8), {255, 2, 0}, "float -> uint8");
  expect_values(f.to(kBool), {1, 1, 0, 1}, "float -> bool");
  expect_values(ember::tensor({1.0009765625}, kFloat64).to(kFloat16), {1.0009765625}, "float64 -> float16 exact");
}

TEST(CpuCopy, BroadcastOverlapAndErrors) {
  Tensor d = ember::zeros({2, 3});
  d.copy_(ember::arange(3, kFloat32));
  expect_values(d, {0, 1, 2, 0, 1, 2}, "broadcast copy_");
  d.copy_(ember::full({}, 9));
  expect_values(d, std::vector<double>(6, 9), "0-dim copy_");
  // Partially overlapping source and destination raise, as LibTorch (its own transpose too).
  Tensor x = ember::arange(6, kFloat32);
  EXPECT_ERROR(ValueError, x.slice(0, 1).copy_(x.slice(0, 0, 5)), "[copy_]", "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location");
  Tensor y = ember::arange(6, kFloat32);
  EXPECT_ERROR(ValueError, y.slice(0, 0, 5).copy_(y.slice(0, 1)), "[copy_]", "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location");
  expect_values(y, {0, 1, 2, 3, 4, 5}, "refused copy_");
  Tensor z = ember::arange(4, kFloat32).view({2, 2});
  EXPECT_ERROR(ValueError, z.copy_(z.t()), "[copy_]", "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location");
  Tensor s = ember::arange(3, kFloat32);
  EXPECT_TRUE(s.copy_(s).is_same(s));
  EXPECT_ERROR(ValueError, ember::zeros({2, 3}).copy_(ember::ones({4})), "[copy_]", "[2, 3]", "[4]");
  EXPECT_ERROR(ValueError, ember::zeros({3}).copy_(ember::ones({2, 3})), "[copy_]", "[3]", "[2, 3]");
  EXPECT_ERROR(ValueError, ember::zeros({1, 3}).expand({2, 3}).copy_(ember::ones({2, 3})), "[copy_]",
               "more than one element");
}

TEST(CpuCopy, ToCloneContiguousCpu) {
  Tensor a = make({2, 3}, kFloat32, Kind::Contiguous, 1);
  // No change: the very same tensor.
  EXPECT_TRUE(a.to(kFloat32).is_same(a));
  EXPECT_TRUE(a.to(Device(kCPU)).is_same(a));
  EXPECT_TRUE(a.cpu().is_same(a));
  EXPECT_TRUE(a.contiguous().is_same(a));
  // copy=true, or a dtype change: a new tensor.
  Tensor c = a.to(kFloat32, false, true);
  EXPECT_FALSE(c.is_same(a));
  EXPECT_NE(storage_of(c), storage_of(a));
  expect_values(c, values(a), "to copy=true");
  for (ScalarType dt : kDtypes) {
    Tensor r = a.to(dt);
    EXPECT_EQ(r.dtype(), dt);
    expect_values(r, values(a), std::string("to ") + std::string(dtype_name(dt)));
    Tensor r2 = a.to(Device(kCPU), dt);
    EXPECT_EQ(r2.dtype(), dt);
  }
  // _to_copy and clone keep a dense layout; contiguous() makes one.
  Tensor t = make({3, 4}, kInt16, Kind::Transposed, 2);
  Tensor cl = t.clone();
  EXPECT_EQ(cl.strides(), t.strides());
  EXPECT_NE(storage_of(cl), storage_of(t));
  expect_values(cl, values(t), "clone");
  Tensor tf = t.to(kFloat64);
  EXPECT_EQ(tf.strides(), t.strides());
  Tensor ct = t.contiguous();
  EXPECT_TRUE(ct.is_contiguous());
  EXPECT_EQ(ct.strides(), IntArrayRef({4, 1}));
  expect_values(ct, values(t), "contiguous");
  Tensor sl = make({3, 4}, kFloat32, Kind::Sliced);
  Tensor sc = sl.clone();
  EXPECT_TRUE(sc.is_contiguous());  // not dense: LibTorch's preserve_format falls back to contiguous
  expect_values(sc, values(sl), "clone of sliced");
  Tensor cpy = ember::_to_copy(a, TensorOptions(kFloat64));
  EXPECT_EQ(cpy.dtype(), kFloat64);
}

// ---- reductions -------------------------------------------------------------------------------

TEST(CpuReduce, SumEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 1);
      const auto v = values(a);
      double total = 0;
      for (double x : v) total += x;
      Tensor s = a.sum();
      const ScalarType want = is_floating_type(dt) ? dt : kInt64;
      EXPECT_EQ(s.dtype(), want);
      EXPECT_EQ(s.dim(), 0);
      expect_values(s, {total}, "sum()");
      // Over each dimension and pairs of dimensions, with and without keepdim.
      for (std::vector<int64_t> dims : {std::vector<int64_t>{0}, {1}, {2}, {-1}, {0, 2}, {2, 0}, {0, 1, 2}}) {
        for (bool keep : {false, true}) {
          Tensor r = a.sum(dims, keep);
          EXPECT_EQ(r.dtype(), want);
          std::vector<bool> red(3, false);
          for (int64_t d : dims) red[d < 0 ? d + 3 : d] = true;
          std::vector<int64_t> shape;
          for (int d = 0; d < 3; ++d)
            if (!red[d]) shape.push_back(a.size(d));
            else if (keep) shape.push_back(1);
          EXPECT_EQ(r.sizes(), IntArrayRef(shape));
          // Reference: accumulate into the kept coordinates.
          std::vector<double> ref(static_cast<size_t>(r.numel()), 0);
          int idx = 0;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 4; ++j)
              for (int l = 0; l < 5; ++l, ++idx) {
                int64_t o = 0;
                const int c[3] = {i, j, l};
                for (int d = 0; d < 3; ++d)
                  if (!red[d]) o = o * a.size(d) + c[d];
                ref[o] += v[idx];
              }
          expect_values(r, ref, "sum(dims)");
        }
      }
    }
  }
}

TEST(CpuReduce, SumDtypeArgumentAccuracyAndErrors) {
  Tensor i = ember::full({4}, 100, kInt8);
  EXPECT_EQ(i.sum().dtype(), kInt64);
  expect_values(i.sum(), {400}, "int8 sums in int64");
  expect_values(ember::ones({5}, kBool).sum(), {5}, "bool counts");
  Tensor f = i.sum(std::optional<ScalarType>(kFloat64));
  EXPECT_EQ(f.dtype(), kFloat64);
  expect_values(i.sum(std::vector<int64_t>{0}, false, kInt8), {-112}, "sum with dtype int8 wraps");
  // Float sums accumulate in double: 10M float32 ones are exact, and 0.1s stay close.
  expect_values(ember::ones({10000000}).sum(), {1e7}, "1e7 ones");
  Tensor tenths = ember::full({1 << 20}, 0.1);
  EXPECT_NEAR(tenths.sum().item<double>(), static_cast<double>(0.1f) * (1 << 20), 1e-3);
  Tensor h = ember::full({4096}, 1.0, kFloat16);
  EXPECT_EQ(h.sum().item<double>(), 4096.0);  // exact in float16 because accumulation is wider
  // Empty and 0-dim.
  expect_values(ember::empty({0}).sum(), {0}, "empty sum");
  expect_values(ember::zeros({2, 0}).sum(std::vector<int64_t>{1}), {0, 0}, "sum over empty dim");
  expect_values(ember::full({}, 3.5).sum(), {3.5}, "0-dim sum");
  expect_values(ember::full({}, 3.5).sum(std::vector<int64_t>{0}), {3.5}, "0-dim sum(dim=0)");
  EXPECT_ERROR(ValueError, ember::ones({2, 3}).sum(std::vector<int64_t>{1, -1}), "[sum]", "appears multiple times");
  EXPECT_ERROR(IndexError, ember::ones({2, 3}).sum(std::vector<int64_t>{2}), "[sum]", "out of range");
}

TEST(CpuReduce, ItemEqualAllclose) {
  for (ScalarType dt : kDtypes) {
    Tensor one = ember::full({1, 1}, 1, dt);
    EXPECT_EQ(one.item().toDouble(), 1.0) << dtype_name(dt);
  }
  EXPECT_TRUE(ember::full({}, true).item().isBoolean());
  EXPECT_TRUE(ember::full({}, 3).item().isIntegral(false));
  EXPECT_TRUE(ember::full({}, 3.5).item().isFloatingPoint());
  EXPECT_EQ(ember::full({}, 7, kInt32).item<int>(), 7);
  EXPECT_ERROR(ValueError, ember::ones({2}).item(), "[item]", "2 elements");

  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      Tensor a = make({3, 4}, dt, k, 1);
      Tensor b = make({3, 4}, dt, Kind::Contiguous, 1);
      EXPECT_EQ(ember::equal(a, b), values(a) == values(b)) << dtype_name(dt) << " " << kind_name(k);
      EXPECT_TRUE(ember::equal(a, a.clone()));
      EXPECT_TRUE(ember::allclose(a, a.clone()));
    }
  }
  EXPECT_FALSE(ember::equal(ember::ones({2}), ember::ones({3})));
  EXPECT_FALSE(ember::equal(ember::ones({2}), ember::zeros({2})));
  Tensor nan = ember::full({2}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(ember::equal(nan, nan));
  // Two dtypes compare in their promoted dtype (LibTorch 1.13's values).
  EXPECT_TRUE(ember::equal(ember::ones({2}), ember::ones({2}, kInt64)));
  const Tensor tenth = ember::full({2}, 0.1);
  EXPECT_TRUE(ember::equal(tenth, tenth.to(kFloat64)));
  EXPECT_FALSE(ember::equal(tenth, ember::full({2}, 0.1, kFloat64)));  // float32 0.1 != float64 0.1
  EXPECT_FALSE(ember::equal(ember::full({2}, 0.5), ember::zeros({2}, kInt64)));
  EXPECT_TRUE(ember::equal(ember::full({2}, 1, kBool), ember::ones({2}, kUInt8)));
  for (Kind k : kKinds) {
    Tensor a = make({3, 4}, kFloat16, k, 2);
    Tensor b = a.to(kFloat32).contiguous();
    EXPECT_TRUE(ember::equal(a, b)) << kind_name(k);
    EXPECT_EQ(ember::equal(a, a.to(kBFloat16)), values(a.to(kBFloat16)) == values(a)) << kind_name(k);
    b.view({-1}).narrow(0, 11, 1).fill_(100);
    EXPECT_FALSE(ember::equal(a, b)) << kind_name(k);
  }

  Tensor x = ember::full({3}, 1.0), y = ember::full({3}, 1.0 + 1e-6);
  EXPECT_TRUE(ember::allclose(x, y));
  EXPECT_FALSE(ember::allclose(x, ember::full({3}, 1.001)));
  EXPECT_TRUE(ember::allclose(x, ember::full({3}, 1.001), 1e-2));
  EXPECT_TRUE(ember::allclose(x, ember::full({}, 1.0)));  // broadcasts
  EXPECT_FALSE(ember::allclose(nan, nan));
  EXPECT_TRUE(ember::allclose(nan, nan, 1e-5, 1e-8, true));
  Tensor inf = ember::full({1}, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ember::allclose(inf, inf));
  EXPECT_FALSE(ember::allclose(inf, ember::full({1}, -std::numeric_limits<double>::infinity())));
  EXPECT_TRUE(ember::allclose(ember::full({2}, 5, kInt64), ember::full({2}, 5, kInt64)));
  EXPECT_ERROR(TypeError, ember::allclose(x, ember::ones({3}, kInt64)), "[allclose]", "float32", "int64");
  EXPECT_ERROR(ValueError, ember::allclose(x, x, -1.0), "[allclose]", "rtol");
}

// ---- views --------------------------------------------------------------------------------------

TEST(CpuViews, ViewsShareStorageAndHaveTheRightGeometry) {
  Tensor a = ember::arange(24, kFloat32).view({2, 3, 4});
  EXPECT_EQ(a.sizes(), IntArrayRef({2, 3, 4}));
  const void* st = storage_of(a);

  Tensor v = a.view({6, -1});
  EXPECT_EQ(v.sizes(), IntArrayRef({6, 4}));
  EXPECT_EQ(storage_of(v), st);
  Tensor s = a.select(1, 2);
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(s.strides(), IntArrayRef({12, 1}));
  EXPECT_EQ(s.storage_offset(), 8);
  EXPECT_EQ(storage_of(s), st);
  expect_values(a.select(-1, -1), {3, 7, 11, 15, 19, 23}, "select negative");
  Tensor sl = a.slice(2, 1, std::nullopt, 2);
  EXPECT_EQ(sl.sizes(), IntArrayRef({2, 3, 2}));
  EXPECT_EQ(sl.strides(), IntArrayRef({12, 4, 2}));
  EXPECT_EQ(sl.storage_offset(), 1);
  expect_values(a.slice(0, -1), values(a.select(0, 1).unsqueeze(0)), "slice negative start");
  EXPECT_EQ(a.slice(1, 5, 10).size(1), 0);  // clamped
  EXPECT_EQ(a.slice(1, -100, 100).size(1), 3);
  Tensor tr = a.transpose(0, 2);
  EXPECT_EQ(tr.sizes(), IntArrayRef({4, 3, 2}));
  EXPECT_EQ(tr.strides(), IntArrayRef({1, 4, 12}));
  EXPECT_EQ(storage_of(tr), st);
  Tensor m = ember::arange(6, kFloat32).view({2, 3});
  EXPECT_EQ(m.t().sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(m.t().strides(), IntArrayRef({1, 3}));
  EXPECT_EQ(ember::ones({3}).t().sizes(), IntArrayRef({3}));
  Tensor u = m.unsqueeze(1);
  EXPECT_EQ(u.sizes(), IntArrayRef({2, 1, 3}));
  EXPECT_EQ(u.strides(), IntArrayRef({3, 3, 1}));
  EXPECT_EQ(m.unsqueeze(-1).sizes(), IntArrayRef({2, 3, 1}));
  EXPECT_EQ(m.unsqueeze(-1).strides(), IntArrayRef({3, 1, 1}));
  Tensor e = ember::arange(3, kFloat32).expand({2, 3});
  EXPECT_EQ(e.strides(), IntArrayRef({0, 1}));
  expect_values(e, {0, 1, 2, 0, 1, 2}, "expand");
  EXPECT_EQ(ember::ones({3, 1}).expand({-1, 4}).sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(ember::full({}, 2.0).expand({2, 2}).strides(), IntArrayRef({0, 0}));
  Tensor as = m.as_strided({2, 2}, {1, 2}, 1);
  expect_values(as, {1, 3, 2, 4}, "as_strided");
  EXPECT_EQ(storage_of(as), storage_of(m));

  // Writes through a view reach the base.
  a.select(0, 1).select(0, 0).fill_(-1);
  expect_values(a.select(0, 1).select(0, 0), {-1, -1, -1, -1}, "write through view");
  EXPECT_EQ(values(a)[12], -1);
}

TEST(CpuViews, ViewRulesReshapeAndErrors) {
  Tensor a = ember::arange(12, kFloat32).view({3, 4});
  // A transposed tensor cannot be flattened by view; reshape copies.
  Tensor t = a.t();
  EXPECT_ERROR(ValueError, t.view({12}), "[view]", "view size is not compatible");
  Tensor r = t.reshape({12});
  EXPECT_NE(storage_of(r), storage_of(a));
  expect_values(r, values(t), "reshape copy");
  // reshape is a view when the strides allow it.
  Tensor rv = a.reshape({2, -1});
  EXPECT_EQ(storage_of(rv), storage_of(a));
  EXPECT_EQ(rv.sizes(), IntArrayRef({2, 6}));
  // view splits a dimension of a transposed tensor when strides allow it.
  Tensor tv = t.view({2, 2, 3});
  EXPECT_EQ(tv.strides(), IntArrayRef({2, 1, 4}));
  EXPECT_EQ(a.slice(1, 0, 2).view({3, 2, 1}).sizes(), IntArrayRef({3, 2, 1}));
  EXPECT_EQ(ember::ones({}).view({1, 1}).sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(ember::ones({0, 3}).view({3, 0}).sizes(), IntArrayRef({3, 0}));
  EXPECT_ERROR(ValueError, a.view({5, -1}), "[view]", "[5, -1]", "12");
  EXPECT_ERROR(ValueError, a.view({-1, -1}), "[view]", "only one dimension can be inferred");
  EXPECT_ERROR(ValueError, ember::ones({0}).view({-1, 0}), "[view]", "ambiguous");
  EXPECT_ERROR(IndexError, a.select(2, 0), "[select]", "out of range");
  EXPECT_ERROR(IndexError, a.select(0, 3), "[select]", "index 3", "[3, 4]");
  EXPECT_ERROR(IndexError, ember::full({}, 1.0).select(0, 0), "[select]", "0-dim");
  EXPECT_ERROR(ValueError, a.slice(0, 0, 2, 0), "[slice]", "step must be positive");
  EXPECT_ERROR(IndexError, a.transpose(0, 2), "[transpose]", "out of range");
  EXPECT_ERROR(ValueError, ember::ones({2, 2, 2}).t(), "[t]", "3D");
  EXPECT_ERROR(ValueError, a.expand({4}), "[expand]", "number of sizes");
  EXPECT_ERROR(ValueError, a.expand({3, 5}), "[expand]", "must match the existing size", "[3, 5]");
  EXPECT_ERROR(ValueError, a.expand({-1, 3, 4}), "[expand]", "non-existing dimension");
  EXPECT_ERROR(ValueError, a.as_strided({4, 4}, {4, 1}), "[as_strided]", "out of bounds");
}

// ---- the caching allocator -------------------------------------------------------------------

TEST(CpuAllocator, ReusesBlocksAndEmptiesTheCache) {
  { Tensor warm = ember::empty({1000}); }
  const auto s0 = cpu_allocator_stats();
  for (int i = 0; i < 100; ++i) {
    Tensor t = ember::empty({1000});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  }
  const auto s1 = cpu_allocator_stats();
  EXPECT_GE(s1.allocations - s0.allocations, 100u);
  EXPECT_GE(s1.cache_hits - s0.cache_hits, 100u);
  // Large blocks are cached too, by rounded size.
  void* p = nullptr;
  {
    Tensor big = ember::empty({3 << 20});  // 12 MiB
    p = big.data_ptr();
  }
  EXPECT_GE(cpu_allocator_stats().bytes_cached, size_t{12} << 20);
  {
    Tensor big2 = ember::empty({3 << 20});
    EXPECT_EQ(big2.data_ptr(), p);
  }
  cpu_allocator_empty_cache();
  EXPECT_LT(cpu_allocator_stats().bytes_cached, size_t{12} << 20);
  // Zero bytes: a valid pointer.
  Allocator* a = cpu_allocator();
  DataPtr z = a->allocate(0);
  EXPECT_NE(z.ptr, nullptr);
  z.deleter(z.ptr, z.ctx);
}

TEST(CpuAllocator, ThreadExitFlushesToTheGlobalPool) {
  cpu_allocator_empty_cache();
  std::thread([] {
    std::vector<Tensor> ts;
    for (int i = 0; i < 8; ++i) ts.push_back(ember::empty({256}));
  }).join();
  // The exited thread's blocks are in the global pool now, reusable by anyone.
  EXPECT_GE(cpu_allocator_stats().bytes_cached, 8u * 1024);
  // Tensors made on one thread and freed on another.
  std::vector<Tensor> made;
  std::thread([&] {
    for (int i = 0; i < 64; ++i) made.push_back(ember::ones({100}));
  }).join();
  for (auto& t : made) EXPECT_EQ(t.sum().item<double>(), 100.0);
  made.clear();
}
