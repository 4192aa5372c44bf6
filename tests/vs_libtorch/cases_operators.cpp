// The C++ operators on tensors (LibTorch's TensorOperators.h and TensorBody.h): each binary operator
// for (Tensor, Tensor), (Tensor, Scalar) and (Scalar, Tensor), the unary ones and the compound
// assignments, where the dtype a Scalar on the left gives is the point.
#include "vs_record.h"

namespace {
vs::Tensor f() { return (vs::arange(12, vs::kFloat32) * 0.75 - 4).reshape({3, 4}).t(); }  // [4, 3], transposed
vs::Tensor g() { return vs::arange(1, 13, vs::kFloat32).reshape({4, 3}) * 0.5; }
vs::Tensor i() { return (vs::arange(12, vs::kInt64) - 5).reshape({4, 3}); }
vs::Tensor j() { return vs::arange(1, 13, vs::kInt64).reshape({4, 3}); }
vs::Tensor b() { return vs::arange(12, vs::kInt64).reshape({4, 3}).remainder(3).gt(0); }
}  // namespace

VS_CASE("operators.arithmetic") {
  r.tensor("add", f() + g());
  r.tensor("add_s", f() + 2);
  r.tensor("s_add", 2 + i());
  r.tensor("sub", f() - g());
  r.tensor("sub_s", i() - 1.5);
  r.tensor("s_sub_int", 2.5 - i());  // fills an int64 tensor with 2.5 first: 2 - i
  r.tensor("s_sub_float", 2.5 - f());
  r.tensor("mul", i() * j());
  r.tensor("s_mul", 0.5 * i());
  r.tensor("div", i() / j());
  r.tensor("s_div_float", 3 / g());
  r.raises("s_div_int", [&] { return 3 / j(); });  // true division into an int64 tensor
  r.tensor("rem", i() % j());
  r.tensor("rem_s", f() % 1.5);
  r.tensor("s_rem", 7 % j());
  r.tensor("s_rem_float", 7.5 % g());
  r.tensor("neg", -f());
  r.tensor("neg_int", -i());
  r.raises("neg_bool", [&] { return -b(); });
}

VS_CASE("operators.bitwise_compare") {
  r.tensor("and", i() & j());
  r.tensor("and_s", i() & 6);
  r.tensor("s_and", 6 & i());
  r.tensor("or", b() | b().logical_not());
  r.tensor("s_or", 8 | i());
  r.tensor("xor", i() ^ j());
  r.tensor("xor_s", b() ^ true);
  r.tensor("not", ~i());
  r.tensor("not_bool", ~b());
  r.raises("not_float", [&] { return ~f(); });
  r.raises("and_float", [&] { return f() & g(); });
  r.tensor("lt_s", 1 < f());
  r.tensor("le_s", 1 <= i());
  r.tensor("gt_s", 0 > f());
  r.tensor("ge_s", 0 >= i());
  r.tensor("eq_s", 2 == j());
  r.tensor("ne_s", 2 != j());
  r.tensor("lt", f() < g());
}

VS_CASE("operators.compound") {
  vs::Tensor a = i();
  a &= j();
  r.tensor("and_eq", a);
  vs::Tensor o = i();
  o |= vs::full_like(o, 16);
  r.tensor("or_eq", o);
  vs::Tensor x = b();
  x ^= b().logical_not();
  r.tensor("xor_eq", x);
  vs::Tensor m = f().contiguous();
  m *= 2;
  m -= g();
  m /= 4;
  m += 1;
  r.tensor("arith_eq", m);
  r.raises("div_eq_int", [&] {
    vs::Tensor k = j();
    k /= 2;
  });
}
