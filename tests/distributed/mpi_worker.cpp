// The program test_mpi.cpp starts with mpirun: `mpi_worker <scenario>`. Each rank runs the
// scenario's checks against single-process reference values, prints "FAIL ..." for each one that
// does not hold and "PASS <scenario> rank <r>" at the end, and exits non-zero after a failure.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed.h"
#include "ember/ember.h"

#include "../unit/UnitTestUtil.h"

namespace dist = ember::distributed;
using ember::ScalarType;
using ember::Tensor;
using ember::c10d::ReduceOp;

namespace {

int g_rank = -1;
bool g_failed = false;

#define CHECK_W(cond, ...)                                                                  \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      g_failed = true;                                                                      \
      fmt::print("FAIL rank {} line {}: {}\n", g_rank, __LINE__, fmt::format(__VA_ARGS__)); \
      std::fflush(stdout);                                                                  \
    }                                                                                       \
  } while (0)

using ember::test::error_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

#define CHECK_ERROR(expr, part)                                                                   \
  do {                                                                                            \
    std::string msg_ = error_of([&] { expr; });                                                   \
    CHECK_W(contains(msg_, part), "expected an error containing \"{}\", got \"{}\"", part, msg_); \
  } while (0)

// Rank r's 6 input values: small, so every reduction is exact in every dtype.
std::vector<double> vals(int r, ScalarType dt) {
  std::vector<double> v(6);
  for (int i = 0; i < 6; ++i) v[i] = dt == ember::kBool ? (i + r) % 2 : (i % 3) + r + 1;
  return v;
}

Tensor make(const std::vector<double>& v, ScalarType dt, std::vector<int64_t> shape = {}) {
  std::vector<double> copy = v;
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return ember::from_blob(copy.data(), shape, ember::TensorOptions().dtype(ember::kFloat64)).to(dt).clone();
}

std::vector<double> values_of(const Tensor& t) {
  Tensor d = t.to(ember::kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

void expect_values(const Tensor& t, const std::vector<double>& want, ScalarType dt, const std::string& what,
                   double tol = 0) {
  CHECK_W(t.dtype() == dt, "{}: dtype {} instead of {}", what, t.dtype(), dt);
  auto got = values_of(t);
  bool ok = got.size() == want.size();
  for (size_t i = 0; ok && i < got.size(); ++i)
    ok = std::abs(got[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i]));
  CHECK_W(ok, "{}: got [{}], expected [{}]", what, fmt::join(got, ", "), fmt::join(want, ", "));
}

bool is_float(ScalarType dt) { return ember::is_floating_type(dt); }

double tol_of(ScalarType dt) { return dt == ember::kFloat16 || dt == ember::kBFloat16 ? 1e-2 : 1e-6; }

// The reduction of every rank's values, in double (bool: sum is "or", product is "and").
std::vector<double> reference(ReduceOp op, ScalarType dt, int n, const std::function<std::vector<double>(int)>& of) {
  std::vector<double> acc = of(0);
  for (int r = 1; r < n; ++r) {
    auto v = of(r);
    for (size_t i = 0; i < acc.size(); ++i) {
      auto a = static_cast<int64_t>(acc[i]), b = static_cast<int64_t>(v[i]);
      switch (static_cast<ReduceOp::RedOpType>(op)) {
        case ReduceOp::SUM:
        case ReduceOp::AVG:
          acc[i] = dt == ember::kBool ? double(a || b) : acc[i] + v[i];
          break;
        case ReduceOp::PRODUCT:
          acc[i] = dt == ember::kBool ? double(a && b) : acc[i] * v[i];
          break;
        case ReduceOp::MIN:
          acc[i] = std::min(acc[i], v[i]);
          break;
        case ReduceOp::MAX:
          acc[i] = std::max(acc[i], v[i]);
          break;
        case ReduceOp::BAND:
          acc[i] = double(a & b);
          break;
        case ReduceOp::BOR:
          acc[i] = double(a | b);
          break;
        case ReduceOp::BXOR:
          acc[i] = double(a ^ b);
          break;
      }
    }
  }
  if (op == ReduceOp::AVG)
    for (auto& a : acc) a /= n;
  return acc;
}

const std::vector<ScalarType> kDtypes = {ember::kFloat32, ember::kFloat64, ember::kInt32,
                                         ember::kInt64,   ember::kInt8,    ember::kUInt8,
                                         ember::kBool,    ember::kFloat16, ember::kBFloat16};
const std::vector<ReduceOp> kOps = {ReduceOp::SUM, ReduceOp::AVG,  ReduceOp::PRODUCT, ReduceOp::MIN,
                                    ReduceOp::MAX, ReduceOp::BAND, ReduceOp::BOR,     ReduceOp::BXOR};

void scenario_collectives(int r, int n) {
  // all_reduce: every op on every dtype, against the reference.
  for (auto dt : kDtypes) {
    for (auto op : kOps) {
      const bool bitwise = op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR;
      Tensor t = make(vals(r, dt), dt, {2, 3});
      if ((op == ReduceOp::AVG && !is_float(dt)) || (bitwise && is_float(dt))) {
        CHECK_ERROR(dist::all_reduce(t, op), "[all_reduce] op: ReduceOp.");
        continue;
      }
      dist::all_reduce(t, op);
      auto want = reference(op, dt, n, [&](int k) { return vals(k, dt); });
      expect_values(t, want, dt, fmt::format("all_reduce {} {}", ember::c10d::reduce_op_name(op), dt), tol_of(dt));
      CHECK_W((t.sizes() == ember::IntArrayRef{2, 3}), "all_reduce changed the shape");
    }
  }
  // A non-contiguous tensor is reduced through a staging buffer and keeps its strides.
  {
    Tensor base = make(vals(r, ember::kFloat32), ember::kFloat32, {3, 2});
    Tensor t = base.t();
    auto want_base = reference(ReduceOp::SUM, ember::kFloat32, n, [&](int k) { return vals(k, ember::kFloat32); });
    dist::all_reduce(t, ReduceOp::MAX);
    CHECK_W(!t.is_contiguous(), "the transposed tensor became contiguous");
    expect_values(base, reference(ReduceOp::MAX, ember::kFloat32, n, [&](int k) { return vals(k, ember::kFloat32); }),
                  ember::kFloat32, "all_reduce of a transposed tensor");
  }
  // broadcast from the last rank, contiguous and not, float32 and float16.
  for (auto dt : {ember::kFloat32, ember::kFloat16, ember::kInt64}) {
    Tensor t = make(vals(r, dt), dt);
    dist::broadcast(t, n - 1);
    expect_values(t, vals(n - 1, dt), dt, fmt::format("broadcast {}", dt));
    Tensor base = make(vals(r, dt), dt, {3, 2});
    Tensor tt = base.t();
    dist::broadcast(tt, n - 1);
    expect_values(base, vals(n - 1, dt), dt, fmt::format("broadcast of a transposed {}", dt));
  }
  // reduce to rank 0: the root gets the reduction, the others keep their input.
  for (auto op : {ReduceOp::SUM, ReduceOp::MAX, ReduceOp::AVG}) {
    Tensor t = make(vals(r, ember::kFloat64), ember::kFloat64);
    dist::reduce(t, 0, op);
    auto want = r == 0 ? reference(op, ember::kFloat64, n, [&](int k) { return vals(k, ember::kFloat64); })
                       : vals(r, ember::kFloat64);
    expect_values(t, want, ember::kFloat64, fmt::format("reduce {}", ember::c10d::reduce_op_name(op)), 1e-12);
  }
  // all_gather / all_gather_into_tensor.
  for (auto dt : {ember::kInt32, ember::kBFloat16}) {
    std::vector<Tensor> outs;
    for (int k = 0; k < n; ++k) outs.push_back(ember::zeros({2, 3}, ember::TensorOptions().dtype(dt)));
    dist::all_gather(outs, make(vals(r, dt), dt, {2, 3}));
    for (int k = 0; k < n; ++k) expect_values(outs[k], vals(k, dt), dt, fmt::format("all_gather {} [{}]", dt, k));
  }
  {
    Tensor out = ember::zeros({2 * n, 3});
    dist::all_gather_into_tensor(out, make(vals(r, ember::kFloat32), ember::kFloat32, {2, 3}));
    std::vector<double> want;
    for (int k = 0; k < n; ++k)
      for (double v : vals(k, ember::kFloat32)) want.push_back(v);
    expect_values(out, want, ember::kFloat32, "all_gather_into_tensor");
  }
  // gather to rank 1, scatter from rank 0.
  {
    const int dst = 1 % n;
    std::vector<Tensor> list;
    for (int k = 0; k < n && r == dst; ++k)
      list.push_back(ember::zeros({6}, ember::TensorOptions().dtype(ember::kInt64)));
    dist::gather(make(vals(r, ember::kInt64), ember::kInt64), r == dst ? &list : nullptr, dst);
    for (int k = 0; k < static_cast<int>(list.size()); ++k)
      expect_values(list[k], vals(k, ember::kInt64), ember::kInt64, fmt::format("gather [{}]", k));
  }
  {
    std::vector<Tensor> list;
    for (int k = 0; k < n && r == 0; ++k) list.push_back(make(vals(k, ember::kFloat32), ember::kFloat32).mul(10));
    Tensor out = ember::zeros({6});
    dist::scatter(out, r == 0 ? &list : nullptr, 0);
    auto want = vals(r, ember::kFloat32);
    for (auto& v : want) v *= 10;
    expect_values(out, want, ember::kFloat32, "scatter");
  }
  // reduce_scatter and reduce_scatter_tensor: rank r gets the reduction of everyone's r-th input.
  auto rs_input = [](int k, int j) {  // rank k's j-th input
    auto v = vals(k, ember::kFloat32);
    for (auto& x : v) x += 100 * j;
    return v;
  };
  for (auto op : {ReduceOp::SUM, ReduceOp::AVG, ReduceOp::MIN}) {
    std::vector<Tensor> ins;
    for (int j = 0; j < n; ++j) ins.push_back(make(rs_input(r, j), ember::kFloat32));
    Tensor out = ember::zeros({6});
    dist::reduce_scatter(out, ins, op);
    auto want = reference(op, ember::kFloat32, n, [&](int k) { return rs_input(k, r); });
    expect_values(out, want, ember::kFloat32, fmt::format("reduce_scatter {}", ember::c10d::reduce_op_name(op)), 1e-6);
    Tensor out2 = ember::zeros({2, 3});
    dist::reduce_scatter_tensor(out2, ember::stack(ins).view({2 * n, 3}), op);
    expect_values(out2, want, ember::kFloat32, fmt::format("reduce_scatter_tensor {}", ember::c10d::reduce_op_name(op)),
                  1e-6);
  }
  // all_to_all_single, equal splits: rank r's row j (r*10+j, -(r*10+j)) goes to rank j.
  {
    std::vector<double> in, want;
    for (int j = 0; j < n; ++j) {
      in.insert(in.end(), {r * 10.0 + j, -(r * 10.0 + j)});
      want.insert(want.end(), {j * 10.0 + r, -(j * 10.0 + r)});
    }
    Tensor out = ember::zeros({n, 2});
    dist::all_to_all_single(out, make(in, ember::kFloat32, {n, 2}));
    expect_values(out, want, ember::kFloat32, "all_to_all_single (equal splits)");
  }
  // Uneven splits: rank r sends j+1 rows to rank j, so it receives r+1 rows from each.
  {
    std::vector<double> in, want;
    std::vector<int64_t> in_splits, out_splits;
    for (int j = 0; j < n; ++j) {
      in_splits.push_back(j + 1);
      out_splits.push_back(r + 1);
      for (int k = 0; k <= j; ++k) in.push_back(r * 100 + j * 10 + k);
      for (int k = 0; k <= r; ++k) want.push_back(j * 100 + r * 10 + k);
    }
    Tensor out = ember::zeros({n * (r + 1)}, ember::TensorOptions().dtype(ember::kInt32));
    dist::all_to_all_single(out, make(in, ember::kInt32), out_splits, in_splits);
    expect_values(out, want, ember::kInt32, "all_to_all_single (uneven splits)");
  }
  // all_to_all with lists: rank r sends rank j r+j+1 values r*100+j.
  {
    std::vector<Tensor> ins, outs;
    for (int j = 0; j < n; ++j) {
      ins.push_back(ember::full({r + j + 1}, r * 100 + j, ember::TensorOptions().dtype(ember::kInt64)));
      outs.push_back(ember::zeros({r + j + 1}, ember::TensorOptions().dtype(ember::kInt64)));
    }
    dist::all_to_all(outs, ins);
    for (int j = 0; j < n; ++j)
      expect_values(outs[j], std::vector<double>(r + j + 1, j * 100 + r), ember::kInt64,
                    fmt::format("all_to_all [{}]", j));
  }
  // allreduce_coalesced: one reduction over tensors of different shapes.
  {
    auto pg = dist::resolve_group();
    std::vector<Tensor> ts{make(vals(r, ember::kFloat32), ember::kFloat32, {2, 3}),
                           make({1.0 * r, 2.0 * r}, ember::kFloat32)};
    ember::c10d::AllreduceOptions o;
    o.reduceOp = ReduceOp::AVG;
    pg->allreduce_coalesced(ts, o)->wait();
    expect_values(ts[0], reference(ReduceOp::AVG, ember::kFloat32, n, [&](int k) { return vals(k, ember::kFloat32); }),
                  ember::kFloat32, "allreduce_coalesced [0]", 1e-6);
    expect_values(ts[1], {(n - 1) / 2.0, (n - 1) * 1.0}, ember::kFloat32, "allreduce_coalesced [1]", 1e-6);
  }
  // Empty tensors move nothing and succeed.
  {
    Tensor e = ember::zeros({0});
    dist::all_reduce(e);
    std::vector<Tensor> outs(n, ember::zeros({0}));
    dist::all_gather(outs, e);
    dist::broadcast(e, 0);
    CHECK_W(e.numel() == 0 && outs[0].numel() == 0, "empty tensors changed shape");
  }
  dist::barrier();
}

void scenario_p2p(int r, int n) {
  // A ring: isend to the next rank, then a blocking recv from the previous one.
  {
    auto w = dist::isend(make(vals(r, ember::kFloat32), ember::kFloat32), (r + 1) % n, nullptr, 7);
    Tensor got = ember::zeros({6});
    int from = dist::recv(got, (r + n - 1) % n, nullptr, 7);
    w->wait();
    CHECK_W(from == (r + n - 1) % n, "recv returned {}", from);
    expect_values(got, vals((r + n - 1) % n, ember::kFloat32), ember::kFloat32, "ring recv");
  }
  // Any source: rank 0 hears from every other rank, in whatever order.
  if (r == 0) {
    std::set<int> seen;
    for (int k = 1; k < n; ++k) {
      Tensor got = ember::zeros({6}, ember::TensorOptions().dtype(ember::kInt64));
      int from = dist::recv(got, std::nullopt, nullptr, 3);
      seen.insert(from);
      expect_values(got, vals(from, ember::kInt64), ember::kInt64, fmt::format("recv from any source ({})", from));
    }
    CHECK_W(static_cast<int>(seen.size()) == n - 1 && !seen.count(0), "any-source senders: {}", fmt::join(seen, ", "));
  } else {
    dist::send(make(vals(r, ember::kInt64), ember::kInt64), 0, nullptr, 3);
  }
  // Ranks 0 and 1 both send first, then receive: 4 MiB each way must not deadlock.
  if (r < 2) {
    const int64_t big = 1 << 20;
    Tensor out = ember::full({big}, static_cast<double>(r + 1));
    Tensor in = ember::zeros({big});
    auto ws = dist::isend(out, 1 - r);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the send has started alone
    auto wr = dist::irecv(in, 1 - r);
    wr->wait();
    ws->wait();
    CHECK_W(wr->is_completed() && wr->is_success(), "irecv not completed after wait");
    CHECK_W(in.sum().item<double>() == static_cast<double>(big) * (2 - r), "big recv sum {}", in.sum().item<double>());
    // A non-contiguous float16 receive, and a receive whose message is too short.
    if (r == 0) {
      dist::send(make(vals(0, ember::kFloat16), ember::kFloat16), 1);
      dist::send(make({1, 2, 3, 4}, ember::kFloat32), 1, nullptr, 9);
    } else {
      Tensor base = ember::zeros({3, 2}, ember::TensorOptions().dtype(ember::kFloat16));
      Tensor tt = base.t();
      dist::recv(tt, 0);
      Tensor want = make(vals(0, ember::kFloat16), ember::kFloat16, {2, 3});
      expect_values(tt.contiguous(), values_of(want), ember::kFloat16, "non-contiguous float16 recv");
      Tensor six = ember::zeros({6});
      CHECK_ERROR(dist::recv(six, 0, nullptr, 9),
                  "[recv] tensors[0]: expected 6 elements from rank 0, the message had 4");
    }
  }
  dist::barrier();
}

void scenario_groups(int r, int n) {
  auto g02 = dist::new_group({0, 2});
  CHECK_W((g02 != nullptr) == (r != 1), "new_group({{0, 2}}) on rank {}: {}", r, g02 ? "a group" : "null");
  if (g02) {
    CHECK_W(dist::get_rank(g02) == r / 2 && dist::get_world_size(g02) == 2, "g02 rank {} size {}", dist::get_rank(g02),
            dist::get_world_size(g02));
    CHECK_W(dist::get_backend(g02) == "mpi", "g02 backend {}", dist::get_backend(g02));
    Tensor t = make(vals(r, ember::kFloat32), ember::kFloat32);
    dist::all_reduce(t, ReduceOp::SUM, g02);
    auto want = vals(0, ember::kFloat32);
    auto v2 = vals(2, ember::kFloat32);
    for (size_t i = 0; i < want.size(); ++i) want[i] += v2[i];
    expect_values(t, want, ember::kFloat32, "all_reduce over ranks {0, 2}");
    Tensor b = make(vals(r, ember::kInt32), ember::kInt32);
    dist::broadcast(b, 2, g02);  // a world rank, as torch.distributed
    expect_values(b, vals(2, ember::kInt32), ember::kInt32, "broadcast from world rank 2 over {0, 2}");
  }
  auto g12 = dist::new_group({1, 2});
  CHECK_W((g12 != nullptr) == (r != 0), "new_group({{1, 2}}) on rank {}", r);
  // The two groups and the world, in flight at once.
  std::shared_ptr<dist::Work> w_sub;
  Tensor sub;
  if (g12) {
    sub = ember::full({4}, static_cast<double>(r));
    w_sub = dist::all_reduce(sub, ReduceOp::SUM, g12, true);
  }
  Tensor world = ember::full({4}, static_cast<double>(r));
  auto w_world = dist::all_reduce(world, ReduceOp::SUM, nullptr, true);
  if (g12) {
    if (r == 1) dist::send(ember::full({2}, 42.0), 2, g12);
    if (r == 2) {
      Tensor got = ember::zeros({2});
      CHECK_W(dist::recv(got, 1, g12) == 1, "recv in g12 source");
      expect_values(got, {42, 42}, ember::kFloat32, "recv in g12");
    }
  }
  w_world->wait();
  if (w_sub) w_sub->wait();
  expect_values(world, std::vector<double>(4, n * (n - 1) / 2.0), ember::kFloat32, "world all_reduce next to g12");
  if (g12) expect_values(sub, std::vector<double>(4, 3), ember::kFloat32, "all_reduce over {1, 2}");
  CHECK_ERROR(dist::broadcast(world, g12 ? 0 : 1, g12 ? g12 : g02), "is not part of group");
  dist::barrier();
}

void scenario_async(int r, int n) {
  std::vector<Tensor> ts;
  std::vector<std::shared_ptr<dist::Work>> ws;
  for (int i = 0; i < 4; ++i) {
    ts.push_back(ember::full({3}, static_cast<double>(r + i)));
    ws.push_back(dist::all_reduce(ts.back(), ReduceOp::SUM, nullptr, true));
  }
  CHECK_W(ws[0] != nullptr, "async_op returned no handle");
  for (int i = 3; i >= 0; --i) {
    CHECK_W(ws[i]->wait(), "wait returned false");
    CHECK_W(ws[i]->is_completed() && ws[i]->is_success(), "handle {} not completed", i);
    expect_values(ts[i], std::vector<double>(3, n * (n - 1) / 2.0 + n * i), ember::kFloat32,
                  fmt::format("async all_reduce {}", i));
    CHECK_W(ws[i]->retrieveOpType() == ember::c10d::OpType::ALLREDUCE, "op type");
  }
  // Two operations on one tensor run in call order: the second reduces the first's result.
  Tensor t = ember::ones({2});
  auto a = dist::all_reduce(t, ReduceOp::SUM, nullptr, true);
  auto b = dist::all_reduce(t, ReduceOp::SUM, nullptr, true);
  b->wait();
  CHECK_W(a->is_completed(), "the first operation is not done after the second");
  expect_values(t, {double(n * n), double(n * n)}, ember::kFloat32, "two all_reduces on one tensor");
  auto res = b->result();
  CHECK_W(res.size() == 1 && res[0].data_ptr() == t.data_ptr(), "result() is not the reduced tensor");
  auto bar = dist::barrier(nullptr, true);
  bar->wait();
  CHECK_W(bar->is_success(), "async barrier");
}

void scenario_errors(int r, int n) {
  using ember::c10d::AllToAllOptions;
  auto pg = dist::resolve_group();
  Tensor f = ember::ones({4});
  Tensor i32 = ember::ones({4}, ember::TensorOptions().dtype(ember::kInt32));
  CHECK_ERROR(
      dist::all_reduce(i32, ReduceOp::AVG),
      "[all_reduce] op: ReduceOp.AVG needs a floating-point tensor (the mean of integers is not an integer), got "
      "int32");
  CHECK_ERROR(dist::all_reduce(f, ReduceOp::BXOR),
              "[all_reduce] op: ReduceOp.BXOR needs an integer or bool tensor, got float32");
  Tensor c = ember::zeros({2}, ember::TensorOptions().dtype(ember::kComplex64));
  CHECK_ERROR(dist::all_reduce(c),
              "[all_reduce] tensors[0]: expected a tensor of dtype bool, uint8, int8, int16, int32, int64, float16, "
              "bfloat16, float32 or float64, got complex64");
  CHECK_ERROR(dist::broadcast(c, 0), "[broadcast] tensors[0]: expected a tensor of dtype bool");
  {
    std::vector<Tensor> two{f, f};
    CHECK_ERROR(pg->allreduce(two),
                "[all_reduce] tensors: expected a list of exactly one tensor (one per device; CPU has one), got 2");
    std::vector<Tensor> one{f};
    ember::c10d::BroadcastOptions bo;
    bo.rootRank = 5;
    CHECK_ERROR(pg->broadcast(one, bo), fmt::format("[broadcast] rootRank: expected a rank in [0, {}), got 5", n));
    CHECK_ERROR(pg->send(one, 1 - r, -1), "[send] tag: expected 0 <= tag <=");
    CHECK_ERROR(pg->send(one, n, 0), fmt::format("[send] dst: expected a rank in [0, {})", n));
  }
  {
    std::vector<Tensor> outs{ember::zeros({4})};
    CHECK_ERROR(
        dist::all_gather(outs, f),
        fmt::format("[all_gather] outputTensors[0]: expected a list of {} tensors (the group's size), got 1", n));
    std::vector<Tensor> bad(n, ember::zeros({4}));
    bad[n - 1] = ember::zeros({4}, ember::TensorOptions().dtype(ember::kInt64));
    CHECK_ERROR(
        dist::all_gather(bad, f),
        fmt::format("[all_gather] outputTensors[0][{}]: expected dtype float32 (as the input), got int64", n - 1));
    Tensor wrong = ember::zeros({4 * n + 1});
    CHECK_ERROR(dist::all_gather_into_tensor(wrong, f), "[all_gather_into_tensor] output: expected");
  }
  {
    Tensor out = ember::zeros({n + 1});
    Tensor in = ember::zeros({n + 1});
    CHECK_ERROR(dist::all_to_all_single(out, in), "does not divide equally across the group size");
    std::vector<int64_t> splits(n, 1);
    Tensor in2 = ember::zeros({n});
    Tensor out2 = ember::zeros({n});
    std::vector<int64_t> wrong(n, 2);
    CHECK_ERROR(dist::all_to_all_single(out2, in2, splits, wrong), "the split sizes add up to");
  }
  CHECK_W(dist::is_mpi_available(), "is_mpi_available() is false");
  CHECK_W(dist::get_backend() == "mpi", "backend {}", dist::get_backend());
  // Nothing was started or changed: the group still works.
  Tensor t = ember::full({4}, 1.0);
  dist::all_reduce(t);
  expect_values(t, std::vector<double>(4, n), ember::kFloat32, "all_reduce after the errors");
  CHECK_W(f.sum().item<double>() == 4, "a rejected call changed its tensor");
}

void scenario_timeout(int r, bool with_store) {
  Tensor t = ember::ones({2});
  dist::all_reduce(t);  // sequence number 1
  if (r == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(6));  // past rank 0's timeout
    dist::all_reduce(t);
    return;
  }
  auto pg = dist::resolve_group();
  std::vector<Tensor> v{t};
  ember::c10d::AllreduceOptions o;
  o.timeout = std::chrono::milliseconds(1000);
  auto t0 = std::chrono::steady_clock::now();
  auto w = pg->allreduce(v, o);
  std::string msg;
  try {
    w->wait();
  } catch (const ember::c10d::DistBackendError& e) {
    msg = e.what();
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("rank 0 saw after {:.2f} s: {}\n", s, msg);
  // The diagnosis waits for the peers' heartbeats (about 1.25 s) before the error is raised.
  CHECK_W(s >= 0.9 && s < (with_store ? 4.5 : 2), "the timeout took {:.2f} s", s);
  CHECK_W(contains(msg, "[all_reduce #2 on group 'default_pg'] rank 0 of 2 (mpi): ") &&
              contains(msg, "cause: did not complete within 1000 ms"),
          "timeout message: {}", msg);
  // With a store (init_method tcp://), the health monitor's records say which rank is missing.
  if (with_store)
    CHECK_W(contains(msg, "rank 1 "), "the diagnosis does not name rank 1: {}", msg);
  else
    CHECK_W(contains(msg, "the group has no store to ask which ranks stopped answering"), "timeout message: {}", msg);
  t0 = std::chrono::steady_clock::now();
  CHECK_ERROR(dist::broadcast(t, 0),
              "[broadcast] MPI backend: group 'default_pg' is unusable after an earlier operation failed");
  s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_W(s < 0.5, "the later operation took {:.2f} s to fail", s);
}

void scenario_kill(int r, int /*n*/) {
  Tensor t = ember::ones({8});
  for (int i = 0; i < 100000; ++i) {
    if (r == 1 && i == 50) {
      fmt::print("rank 1 kills itself (SIGKILL) at iteration {}\n", i);
      std::fflush(stdout);
      std::raise(SIGKILL);
    }
    try {
      dist::all_reduce(t);
      t.fill_(1);
    } catch (const std::exception& e) {
      fmt::print("rank {} caught at iteration {}: {}\n", r, i, e.what());
      std::fflush(stdout);
      std::exit(3);
    }
  }
  fmt::print("rank {} finished the loop\n", r);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: mpi_worker <collectives|p2p|groups|async|errors|timeout|kill> | timeout_store <port>\n");
    return 2;
  }
  const std::string scenario = argv[1];
  unsetenv("MASTER_ADDR");  // mpirun's ranks rendezvous through MPI, not a store
  dist::InitProcessGroupOptions opts;
  opts.backend = "mpi";
  opts.timeout = std::chrono::seconds(scenario == "kill" ? 60 : 30);
  if (scenario == "errors") {
    // Rank and size must agree with MPI's (nothing is initialized by a rejected call).
    const char* env_rank = std::getenv("OMPI_COMM_WORLD_RANK");
    int mpi_rank = env_rank ? std::atoi(env_rank) : 0;
    g_rank = mpi_rank;
    dist::InitProcessGroupOptions bad = opts;
    bad.rank = 1 - mpi_rank;
    CHECK_ERROR(dist::init_process_group(bad),
                fmt::format("[init_process_group] rank: the MPI backend takes the rank from MPI, which is {} in this "
                            "process, got {}",
                            mpi_rank, 1 - mpi_rank));
    bad = opts;
    bad.world_size = 5;
    CHECK_ERROR(dist::init_process_group(bad),
                "[init_process_group] world_size: the MPI backend takes the world size "
                "from MPI (mpirun -np), which is 2, got 5");
    CHECK_W(!dist::is_initialized(), "a rejected init_process_group left a group");
  }
  if (scenario == "timeout_store") {
    // A TCPStore rendezvous next to MPI's: the group gets a store, hence a health monitor.
    const char* env_rank = std::getenv("OMPI_COMM_WORLD_RANK");
    const char* env_size = std::getenv("OMPI_COMM_WORLD_SIZE");
    opts.init_method = fmt::format("tcp://127.0.0.1:{}", argc > 2 ? argv[2] : "0");
    opts.rank = env_rank ? std::atoi(env_rank) : -1;
    opts.world_size = env_size ? std::atoi(env_size) : -1;
  }
  dist::init_process_group(opts);
  const int r = dist::get_rank(), n = dist::get_world_size();
  g_rank = r;
  if (scenario == "collectives")
    scenario_collectives(r, n);
  else if (scenario == "p2p")
    scenario_p2p(r, n);
  else if (scenario == "groups")
    scenario_groups(r, n);
  else if (scenario == "async")
    scenario_async(r, n);
  else if (scenario == "errors")
    scenario_errors(r, n);
  else if (scenario == "timeout" || scenario == "timeout_store")
    scenario_timeout(r, scenario == "timeout_store");
  else if (scenario == "kill")
    scenario_kill(r, n);
  else {
    fmt::print(stderr, "unknown scenario {}\n", scenario);
    return 2;
  }
  if (!g_failed) fmt::print("PASS {} rank {}\n", scenario, r);
  std::fflush(stdout);
  return g_failed ? 1 : 0;
}
