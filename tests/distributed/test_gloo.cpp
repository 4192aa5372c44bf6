// The Gloo backend against single-process references. Most cases run the ranks as threads of
// this process over one HashStore (each thread its own gloo context and TCP pairs over
// loopback), which tests the backend exactly while keeping each test short; the cases about
// processes (env://, tcp://, file://, a killed rank) spawn dist_worker.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <functional>
#include <thread>

#include "Spawn.h"
#include "UnitTestUtil.h"
#include "ember/distributed.h"
#include "ember/ember.h"

using namespace ember;
using namespace std::chrono_literals;
using c10d::ReduceOp;
using ember::test::error_of;

namespace {

using RankFn = std::function<void(c10d::ProcessGroup& pg, int rank)>;

// Runs `fn` on `n` ranks (threads), each with its own Gloo group; returns each rank's error text
// ("" when it returned normally).
std::vector<std::string> run_ranks_collect(int n, const RankFn& fn, std::chrono::milliseconds timeout = 20s) {
  auto store = std::make_shared<c10d::HashStore>();
  std::vector<std::string> errors(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        c10d::BackendArgs a;
        a.store = std::make_shared<c10d::PrefixStore>("default_pg", store);
        a.rank = r;
        a.size = n;
        a.timeout = timeout;
        a.group_name = "default_pg";
        auto pg = c10d::create_process_group("gloo", a);
        fn(*pg, r);
      } catch (const ember::Error& e) {
        errors[r] = fmt::format("{}: {}", e.kind(), e.what());
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

void run_ranks(int n, const RankFn& fn) {
  auto errors = run_ranks_collect(n, fn);
  for (int r = 0; r < n; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

std::vector<double> vals(const Tensor& t) {
  NoGradGuard no_grad;
  const Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

Tensor make(const std::vector<double>& v, ScalarType dtype, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  std::vector<double> copy = v;
  return from_blob(copy.data(), shape, kFloat64).to(dtype).clone();
}

// Rank r's element i: small values every dtype holds exactly, whose products stay in int8.
double input_value(int r, int i, ScalarType dtype) {
  double v = ((r + i) % 3) + 1;
  if (dtype == kBool) return static_cast<double>(static_cast<int>(v) % 2);
  return v;
}

std::vector<double> inputs(int r, int n, ScalarType dtype) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(input_value(r, i, dtype));
  return v;
}

// The single-process reference of reducing every rank's inputs.
std::vector<double> reference(ReduceOp op, ScalarType dtype, int ranks, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    std::vector<long long> xs;
    for (int r = 0; r < ranks; ++r) xs.push_back(static_cast<long long>(input_value(r, i, dtype)));
    double acc = static_cast<double>(xs[0]);
    long long bits = xs[0];
    for (int r = 1; r < ranks; ++r) {
      double x = static_cast<double>(xs[r]);
      switch (static_cast<ReduceOp::RedOpType>(op)) {
        case ReduceOp::SUM:
        case ReduceOp::AVG:
          acc += x;
          break;
        case ReduceOp::PRODUCT:
          acc *= x;
          break;
        case ReduceOp::MIN:
          acc = std::min(acc, x);
          break;
        case ReduceOp::MAX:
          acc = std::max(acc, x);
          break;
        case ReduceOp::BAND:
          bits &= xs[r];
          break;
        case ReduceOp::BOR:
          bits |= xs[r];
          break;
        case ReduceOp::BXOR:
          bits ^= xs[r];
          break;
      }
    }
    if (op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR) acc = static_cast<double>(bits);
    if (op == ReduceOp::AVG) acc /= ranks;
    if (dtype == kBool) acc = acc != 0 ? 1 : 0;  // a sum of bools is "or", a product "and"
    out.push_back(acc);
  }
  return out;
}

const std::vector<ScalarType> kDtypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kUInt8, kInt32, kInt64, kBool};
const std::vector<ReduceOp> kOps = {ReduceOp::SUM, ReduceOp::AVG,  ReduceOp::PRODUCT, ReduceOp::MIN,
                                    ReduceOp::MAX, ReduceOp::BAND, ReduceOp::BOR,     ReduceOp::BXOR};

bool applicable(ReduceOp op, ScalarType dtype) {
  if (op == ReduceOp::AVG) return is_floating_type(dtype);
  if (op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR) return !is_floating_type(dtype);
  return true;
}

void all_reduce_everything(int ranks) {
  run_ranks(ranks, [&](c10d::ProcessGroup& pg, int r) {
    for (ScalarType dtype : kDtypes) {
      for (ReduceOp op : kOps) {
        if (!applicable(op, dtype)) continue;
        std::vector<Tensor> t{make(inputs(r, 5, dtype), dtype)};
        c10d::AllreduceOptions o;
        o.reduceOp = op;
        pg.allreduce(t, o)->wait();
        EXPECT_EQ(t[0].dtype(), dtype);
        EXPECT_EQ(vals(t[0]), reference(op, dtype, ranks, 5))
            << "rank " << r << " " << dtype << " " << c10d::reduce_op_name(op);
      }
    }
  });
}

}  // namespace

TEST(Gloo, AllReduceEveryOpAndDtypeOnTwoRanks) { all_reduce_everything(2); }
TEST(Gloo, AllReduceEveryOpAndDtypeOnThreeRanks) { all_reduce_everything(3); }

TEST(Gloo, AllReduceNonContiguousAndZeroDim) {
  run_ranks(2, [](c10d::ProcessGroup& pg, int r) {
    // A transposed 2x3 (non-contiguous): the result lands in the original strides.
    Tensor base = make({1, 2, 3, 4, 5, 6}, kFloat32, {2, 3});
    base = mul(base, Scalar(static_cast<double>(r + 1)));
    Tensor tt = base.t();
    ASSERT_FALSE(tt.is_contiguous());
    std::vector<Tensor> v{tt};
    pg.allreduce(v)->wait();
    EXPECT_EQ(vals(tt), (std::vector<double>{3, 12, 6, 15, 9, 18}));
    EXPECT_EQ(vals(base), (std::vector<double>{3, 6, 9, 12, 15, 18}));
    Tensor s = make({static_cast<double>(r + 2)}, kFloat64, {1}).reshape({});
    std::vector<Tensor> sv{s};
    c10d::AllreduceOptions o;
    o.reduceOp = ReduceOp::PRODUCT;
    pg.allreduce(sv, o)->wait();
    EXPECT_EQ(s.dim(), 0);
    EXPECT_EQ(vals(s), (std::vector<double>{6}));
  });
}

TEST(Gloo, AllReduceCoalescedMixedDtypes) {
  run_ranks(3, [](c10d::ProcessGroup& pg, int r) {
    std::vector<Tensor> ts{make(inputs(r, 3, kFloat32), kFloat32), make(inputs(r, 2, kInt64), kInt64),
                           make(inputs(r, 4, kFloat32), kFloat32).reshape({2, 2})};
    c10d::AllreduceOptions o;
    o.reduceOp = ReduceOp::MAX;
    pg.allreduce_coalesced(ts, o)->wait();
    EXPECT_EQ(vals(ts[0]), reference(ReduceOp::MAX, kFloat32, 3, 3));
    EXPECT_EQ(vals(ts[1]), reference(ReduceOp::MAX, kInt64, 3, 2));
    EXPECT_EQ(vals(ts[2]), reference(ReduceOp::MAX, kFloat32, 3, 4));
    EXPECT_EQ(ts[1].dtype(), kInt64);
  });
}

TEST(Gloo, BroadcastFromEveryRoot) {
  run_ranks(3, [](c10d::ProcessGroup& pg, int r) {
    for (int root = 0; root < 3; ++root) {
      for (ScalarType dtype : {kFloat32, kBFloat16, kInt64, kBool}) {
        std::vector<Tensor> t{make(inputs(r, 4, dtype), dtype)};
        c10d::BroadcastOptions o;
        o.rootRank = root;
        pg.broadcast(t, o)->wait();
        EXPECT_EQ(vals(t[0]), inputs(root, 4, dtype)) << "root " << root << " rank " << r;
      }
    }
    // Non-contiguous and 0-d.
    Tensor m = mul(make({1, 2, 3, 4}, kFloat64, {2, 2}), Scalar(static_cast<double>(r + 1))).t();
    std::vector<Tensor> mv{m};
    c10d::BroadcastOptions o;
    o.rootRank = 2;
    pg.broadcast(mv, o)->wait();
    EXPECT_EQ(vals(m), (std::vector<double>{3, 9, 6, 12}));
    Tensor s = make({static_cast<double>(r)}, kInt32, {1}).reshape({});
    std::vector<Tensor> sv{s};
    pg.broadcast(sv, o)->wait();
    EXPECT_EQ(vals(s), (std::vector<double>{2}));
  });
}

TEST(Gloo, ReduceToOneRankLeavesTheOthersUnchanged) {
  run_ranks(3, [](c10d::ProcessGroup& pg, int r) {
    for (ReduceOp op : {ReduceOp::SUM, ReduceOp::AVG, ReduceOp::MIN}) {
      std::vector<Tensor> t{make(inputs(r, 4, kFloat32), kFloat32)};
      c10d::ReduceOptions o;
      o.rootRank = 1;
      o.reduceOp = op;
      pg.reduce(t, o)->wait();
      if (r == 1) {
        EXPECT_EQ(vals(t[0]), reference(op, kFloat32, 3, 4));
      } else {
        EXPECT_EQ(vals(t[0]), inputs(r, 4, kFloat32));
      }
    }
  });
}

TEST(Gloo, AllGatherGatherScatter) {
  run_ranks(3, [](c10d::ProcessGroup& pg, int r) {
    const int n = 3;
    // all_gather (list)
    std::vector<std::vector<Tensor>> outs(1);
    for (int i = 0; i < n; ++i) outs[0].push_back(zeros({2}, TensorOptions().dtype(kInt64)));
    std::vector<Tensor> in{make(inputs(r, 2, kInt64), kInt64)};
    pg.allgather(outs, in)->wait();
    for (int i = 0; i < n; ++i) EXPECT_EQ(vals(outs[0][i]), inputs(i, 2, kInt64));
    // all_gather_into_tensor
    Tensor flat = zeros({3, 2}, TensorOptions().dtype(kFloat16));
    Tensor fin = make(inputs(r, 2, kFloat16), kFloat16);
    pg._allgather_base(flat, fin)->wait();
    std::vector<double> want;
    for (int i = 0; i < n; ++i)
      for (double v : inputs(i, 2, kFloat16)) want.push_back(v);
    EXPECT_EQ(vals(flat), want);
    // gather to rank 2
    std::vector<std::vector<Tensor>> g;
    if (r == 2) {
      g.resize(1);
      for (int i = 0; i < n; ++i) g[0].push_back(zeros({2}, TensorOptions().dtype(kFloat32)));
    }
    std::vector<Tensor> gin{make(inputs(r, 2, kFloat32), kFloat32)};
    c10d::GatherOptions go;
    go.rootRank = 2;
    pg.gather(g, gin, go)->wait();
    if (r == 2) {
      for (int i = 0; i < n; ++i) EXPECT_EQ(vals(g[0][i]), inputs(i, 2, kFloat32));
    }
    // scatter from rank 0 into a non-contiguous output
    std::vector<std::vector<Tensor>> s;
    if (r == 0) {
      s.resize(1);
      for (int i = 0; i < n; ++i)
        s[0].push_back(make({10.0 * i, 10.0 * i + 1, 10.0 * i + 2, 10.0 * i + 3}, kFloat64, {2, 2}));
    }
    Tensor out = zeros({2, 2}, TensorOptions().dtype(kFloat64)).t();
    std::vector<Tensor> sout{out};
    pg.scatter(sout, s)->wait();
    EXPECT_EQ(vals(out), (std::vector<double>{10.0 * r, 10.0 * r + 1, 10.0 * r + 2, 10.0 * r + 3}));
  });
}

TEST(Gloo, ReduceScatter) {
  run_ranks(3, [](c10d::ProcessGroup& pg, int r) {
    for (ReduceOp op : {ReduceOp::SUM, ReduceOp::MAX}) {
      // input_list[j] on rank r: inputs(r + j, 2)
      std::vector<std::vector<Tensor>> in(1);
      for (int j = 0; j < 3; ++j) in[0].push_back(make(inputs(r + j, 2, kInt32), kInt32));
      std::vector<Tensor> out{zeros({2}, TensorOptions().dtype(kInt32))};
      c10d::ReduceScatterOptions o;
      o.reduceOp = op;
      pg.reduce_scatter(out, in, o)->wait();
      std::vector<double> want(2, op == ReduceOp::SUM ? 0 : -1e9);
      for (int src = 0; src < 3; ++src)
        for (int i = 0; i < 2; ++i) {
          double x = input_value(src + r, i, kInt32);
          want[i] = op == ReduceOp::SUM ? want[i] + x : std::max(want[i], x);
        }
      EXPECT_EQ(vals(out[0]), want);
    }
    // reduce_scatter_tensor, AVG on float64: input rows are (r+1) * [1..6]
    Tensor in = mul(make({1, 2, 3, 4, 5, 6}, kFloat64, {3, 2}), Scalar(static_cast<double>(r + 1)));
    Tensor keep = in.clone();
    Tensor out = zeros({1, 2}, TensorOptions().dtype(kFloat64));
    c10d::ReduceScatterOptions o;
    o.reduceOp = ReduceOp::AVG;
    pg._reduce_scatter_base(out, in, o)->wait();
    EXPECT_EQ(vals(out), (std::vector<double>{2.0 * (2 * r + 1), 2.0 * (2 * r + 2)}));
    EXPECT_EQ(vals(in), vals(keep));  // the input is not overwritten
  });
}

TEST(Gloo, AllToAll) {
  run_ranks(3, [](c10d::ProcessGroup& pg, int r) {
    // Equal splits: rank r sends row j (value 10r + j) to rank j.
    Tensor in = make({10.0 * r, 10.0 * r + 1, 10.0 * r + 2}, kFloat32);
    Tensor out = zeros({3}, TensorOptions().dtype(kFloat32));
    std::vector<int64_t> none;
    pg.alltoall_base(out, in, none, none)->wait();
    EXPECT_EQ(vals(out), (std::vector<double>{0.0 + r, 10.0 + r, 20.0 + r}));
    // Uneven splits of 2-column rows: rank r sends j+1 rows to rank j.
    std::vector<int64_t> in_splits{1, 2, 3}, out_splits(3, r + 1);
    std::vector<double> iv;
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k <= j; ++k) iv.insert(iv.end(), {100.0 * r + j, -(100.0 * r + j)});
    Tensor vin = make(iv, kInt64, {6, 2});
    Tensor vout = zeros({3 * (r + 1), 2}, TensorOptions().dtype(kInt64));
    pg.alltoall_base(vout, vin, out_splits, in_splits)->wait();
    std::vector<double> want;
    for (int src = 0; src < 3; ++src)
      for (int k = 0; k <= r; ++k) want.insert(want.end(), {100.0 * src + r, -(100.0 * src + r)});
    EXPECT_EQ(vals(vout), want);
    // The list form, with a different size per pair.
    std::vector<Tensor> ins, outs;
    for (int j = 0; j < 3; ++j) {
      ins.push_back(full({r + j + 1}, Scalar(static_cast<double>(10 * r + j)), TensorOptions().dtype(kInt32)));
      outs.push_back(zeros({r + j + 1}, TensorOptions().dtype(kInt32)));
    }
    pg.alltoall(outs, ins)->wait();
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(vals(outs[j]), std::vector<double>(r + j + 1, 10.0 * j + r)) << "from " << j << " on " << r;
  });
}

TEST(Gloo, AsyncHandlesAndBarrier) {
  run_ranks(2, [](c10d::ProcessGroup& pg, int r) {
    if (r == 1) std::this_thread::sleep_for(300ms);
    std::vector<Tensor> t{make({1.0 + r}, kFloat32)};
    auto w = pg.allreduce(t);  // returns at once: rank 1 is still asleep
    if (r == 0) {
      EXPECT_FALSE(w->is_completed());
    }
    EXPECT_TRUE(w->wait());
    EXPECT_TRUE(w->is_completed());
    EXPECT_TRUE(w->is_success());
    EXPECT_EQ(vals(w->result()[0]), (std::vector<double>{3}));
    // Issued back to back, completed in order.
    std::vector<std::shared_ptr<c10d::Work>> ws;
    std::vector<Tensor> ts;
    for (int i = 0; i < 5; ++i) ts.push_back(make({static_cast<double>(i)}, kInt64));
    for (int i = 0; i < 5; ++i) {
      std::vector<Tensor> one{ts[i]};
      ws.push_back(pg.allreduce(one));
    }
    ws.push_back(pg.barrier());
    ws.back()->wait();
    for (int i = 0; i < 5; ++i) {
      EXPECT_TRUE(ws[i]->is_completed());
      EXPECT_EQ(vals(ts[i]), (std::vector<double>{2.0 * i}));
    }
  });
}

TEST(Gloo, SendRecvAndRecvFromAnySource) {
  run_ranks(3, [](c10d::ProcessGroup& pg, int r) {
    if (r == 0) {
      // Both sends posted before anything waits; a non-contiguous source.
      Tensor a = make({1, 2, 3, 4}, kFloat32, {2, 2}).t();
      std::vector<Tensor> av{a};
      auto w1 = pg.send(av, 1, 7);
      std::vector<Tensor> bv{make({9}, kInt64)};
      auto w2 = pg.send(bv, 2, 0);
      w1->wait();
      w2->wait();
      // Then one message from each peer, from whichever comes first.
      std::vector<int> seen;
      for (int k = 0; k < 2; ++k) {
        Tensor got = zeros({1}, TensorOptions().dtype(kInt32));
        std::vector<Tensor> gv{got};
        auto w = pg.recvAnysource(gv, 3);
        w->wait();
        seen.push_back(w->sourceRank());
        EXPECT_EQ(vals(got), (std::vector<double>{100.0 + w->sourceRank()}));
      }
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, (std::vector<int>{1, 2}));
    } else {
      if (r == 1) {
        Tensor got = zeros({2, 2}, TensorOptions().dtype(kFloat32)).t();  // received into strides
        std::vector<Tensor> gv{got};
        pg.recv(gv, 0, 7)->wait();
        EXPECT_EQ(vals(got), (std::vector<double>{1, 3, 2, 4}));
      } else {
        Tensor got = zeros({1}, TensorOptions().dtype(kInt64));
        std::vector<Tensor> gv{got};
        pg.recv(gv, 0, 0)->wait();
        EXPECT_EQ(vals(got), (std::vector<double>{9}));
      }
      std::vector<Tensor> back{make({100.0 + r}, kInt32)};
      pg.send(back, 0, 3)->wait();
    }
  });
}

TEST(Gloo, BadArgumentsRaiseNamedErrorsAtOnce) {
  run_ranks(2, [](c10d::ProcessGroup& pg, int r) {
    (void)r;
    Tensor f = make({1, 2}, kFloat32);
    Tensor i = make({1, 2}, kInt32);
    std::vector<Tensor> two{f, f};
    EXPECT_EQ(error_of([&] { pg.allreduce(two); }),
              "[all_reduce] tensors: expected a list of exactly one tensor (one per device; CPU has one), got 2");
    std::vector<Tensor> undefined{Tensor()};
    EXPECT_EQ(error_of([&] { pg.allreduce(undefined); }), "[all_reduce] tensor: expected a defined tensor");
    std::vector<Tensor> iv{i};
    c10d::AllreduceOptions avg;
    avg.reduceOp = ReduceOp::AVG;
    EXPECT_EQ(error_of([&] { pg.allreduce(iv, avg); }),
              "[all_reduce] op: ReduceOp.AVG needs a floating-point tensor (the mean of integers is not an integer), "
              "got int32");
    std::vector<Tensor> fv{f};
    c10d::AllreduceOptions band;
    band.reduceOp = ReduceOp::BAND;
    EXPECT_EQ(error_of([&] { pg.allreduce(fv, band); }),
              "[all_reduce] op: ReduceOp.BAND needs an integer or bool tensor, got float32");
    std::vector<Tensor> cv{zeros({2}, TensorOptions().dtype(kComplex64))};
    EXPECT_EQ(error_of([&] { pg.allreduce(cv); }),
              "[all_reduce] tensor: expected a tensor of dtype bool, uint8, int8, int16, int32, int64, float16, "
              "bfloat16, float32 or float64, got complex64");
    c10d::BroadcastOptions bo;
    bo.rootRank = 2;
    EXPECT_EQ(error_of([&] { pg.broadcast(fv, bo); }), "[broadcast] src: expected a rank in [0, 2), got 2");
    std::vector<std::vector<Tensor>> outs(1, std::vector<Tensor>{f});
    EXPECT_EQ(error_of([&] { pg.allgather(outs, fv); }),
              "[all_gather] tensor_list: expected a list of 2 tensors (the group's size), got 1");
    outs[0].push_back(i);
    EXPECT_EQ(error_of([&] { pg.allgather(outs, fv); }),
              "[all_gather] tensor_list[1]: expected dtype float32 (as the input tensor), got int32");
    outs[0][1] = make({1, 2, 3}, kFloat32);
    EXPECT_EQ(error_of([&] { pg.allgather(outs, fv); }),
              "[all_gather] tensor_list[1]: expected shape [2] (as the input tensor), got [3]");
    Tensor big = zeros({3}, TensorOptions().dtype(kFloat32));
    EXPECT_EQ(error_of([&] { pg._allgather_base(big, f); }),
              "[all_gather_into_tensor] output_tensor: expected 4 elements (world size 2 times the input's 2), got 3");
    Tensor rows = zeros({3, 2}, TensorOptions().dtype(kFloat32));
    Tensor rows_out = zeros({3, 2}, TensorOptions().dtype(kFloat32));
    std::vector<int64_t> none, bad{1, 1};
    EXPECT_EQ(error_of([&] { pg.alltoall_base(rows_out, rows, none, none); }),
              "[all_to_all_single] input: dim 0 (3) must be divisible by the world size (2) when no split sizes are "
              "given");
    EXPECT_EQ(error_of([&] { pg.alltoall_base(rows_out, rows, bad, bad); }),
              "[all_to_all_single] input_split_sizes: expected sizes summing to dim 0 of input (3), got [1, 1]");
    EXPECT_EQ(error_of([&] { pg.send(fv, r, 0); }),
              fmt::format("[send] dst: expected a rank other than this one ({})", r));
    EXPECT_EQ(error_of([&] { pg.recv(fv, 5, 0); }), "[recv] src: expected a rank in [0, 2), got 5");
    // Nothing was queued by the failed calls: the sequence stays aligned.
    pg.allreduce(fv)->wait();
    EXPECT_EQ(vals(f), (std::vector<double>{2, 4}));
  });
}

TEST(Gloo, TimeoutNamesTheRankThatDidNotArrive) {
  // Rank 2 takes part in the broadcast, then does not join the all_reduce in time.
  auto t0 = std::chrono::steady_clock::now();
  auto errors = run_ranks_collect(3, [](c10d::ProcessGroup& pg, int r) {
    std::vector<Tensor> t{make({1}, kFloat32)};
    pg.broadcast(t)->wait();
    if (r == 2) {
      std::this_thread::sleep_for(3500ms);
      return;
    }
    c10d::AllreduceOptions o;
    o.timeout = 1000ms;
    pg.allreduce(t, o)->wait();
  });
  auto elapsed = std::chrono::steady_clock::now() - t0;
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(errors[r].rfind(
                  fmt::format("DistBackendError: [all_reduce #2 on group 'default_pg'] rank {} of 3 (gloo): ", r), 0),
              0u)
        << errors[r];
    EXPECT_NE(errors[r].find("rank 2 has not reached all_reduce #2 (alive; last finished broadcast #1)"),
              std::string::npos)
        << errors[r];
    EXPECT_NE(errors[r].find("; cause: "), std::string::npos) << errors[r];
  }
  EXPECT_EQ(errors[2], "");
  EXPECT_LT(elapsed, 10s);
}

TEST(Gloo, DestroyingTheGroupFinishesQueuedWorkAndAbortsAnUnmatchedRecv) {
  // Rank 1 destroys its group while rank 0 keeps its own: rank 1's unmatched recv is aborted, and
  // rank 0's, whose peer is gone, fails naming that peer. (Were both destroyed at once, which of
  // the two errors a rank sees would depend on which closed its connections first.)
  std::vector<std::shared_ptr<c10d::Work>> queued(2), unmatched(2);
  std::vector<Tensor> results(2);
  std::string peer_gone;
  auto t0 = std::chrono::steady_clock::now();
  run_ranks(2, [&](c10d::ProcessGroup& pg, int r) {
    results[r] = make({1.0 + r}, kFloat32);
    std::vector<Tensor> t{results[r]};
    queued[r] = pg.allreduce(t);  // still queued or running when rank 1's group goes
    std::vector<Tensor> never{zeros({1}, TensorOptions().dtype(kFloat32))};
    unmatched[r] = pg.recv(never, 1 - r, 99);
    if (r == 0) peer_gone = error_of([&] { unmatched[0]->wait(); });
  });
  for (int r = 0; r < 2; ++r) {
    EXPECT_TRUE(queued[r]->is_completed());
    EXPECT_EQ(vals(results[r]), (std::vector<double>{3}));
    ASSERT_TRUE(unmatched[r]->is_completed());
  }
  EXPECT_EQ(error_of([&] { unmatched[1]->wait(); }),
            "[recv (peer rank 0) on group 'default_pg'] rank 1 of 2 (gloo): the process group was destroyed before "
            "the operation completed");
  EXPECT_EQ(peer_gone.rfind("[recv (peer rank 1) on group 'default_pg'] rank 0 of 2 (gloo): rank 1 has destroyed its "
                            "process group (after all_reduce #1); cause: ",
                            0),
            0u)
      << peer_gone;
  EXPECT_EQ(error_of([&] { unmatched[0]->wait(); }), peer_gone);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);  // not the 20 s timeout
}

// ---- Processes (dist_worker) ----------------------------------------------------------------

namespace {

std::vector<ember::test::RankResult> spawn(std::vector<std::string> args, int ranks,
                                           std::chrono::seconds deadline = 60s, std::vector<std::string> env = {}) {
  args.insert(args.begin(), EMBER_DIST_WORKER);
  ember::test::SpawnOptions o;
  o.deadline = deadline;
  o.env = std::move(env);
  return ember::test::spawn_ranks(args, ranks, o);
}

void expect_all_ok(const std::vector<ember::test::RankResult>& res) {
  for (size_t r = 0; r < res.size(); ++r) {
    EXPECT_EQ(res[r].exit_code, 0) << "rank " << r << ":\n" << res[r].output;
    EXPECT_NE(res[r].output.find("ok"), std::string::npos) << "rank " << r << ":\n" << res[r].output;
  }
}

}  // namespace

TEST(GlooProcesses, EnvInitCollectivesSubgroupAndRecvFromAnySource) { expect_all_ok(spawn({"collectives"}, 3)); }

TEST(GlooProcesses, TcpInitMethod) {
  int port = ember::test::free_port();
  expect_all_ok(spawn({"init", fmt::format("tcp://127.0.0.1:{}", port)}, 2));
}

TEST(GlooProcesses, FileInitMethod) {
  std::string path = fmt::format("/tmp/ember_gloo_file_init_{}", getpid());
  std::remove(path.c_str());
  expect_all_ok(spawn({"init", "file://" + path}, 2));
  std::remove(path.c_str());
}

TEST(GlooProcesses, KilledRankIsNamedByEveryOtherRank) {
  auto t0 = std::chrono::steady_clock::now();
  // Killed after ~1 s, so that its monitor has published an all_reduce.
  auto res = spawn({"killed", "2", "40"}, 3, 40s);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(res[2].exit_code, 128 + SIGKILL);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(res[r].exit_code, 1) << res[r].output;
    EXPECT_NE(res[r].output.find("DistBackendError: [all_reduce #"), std::string::npos) << res[r].output;
    EXPECT_NE(res[r].output.find(fmt::format("on group 'default_pg'] rank {} of 3 (gloo): ", r)), std::string::npos)
        << res[r].output;
    EXPECT_NE(res[r].output.find("rank 2 is not responding (dead or frozen; last seen in all_reduce #"),
              std::string::npos)
        << res[r].output;
  }
  // Failure within a few seconds (diagnosis ~1.3 s, rank 0 lingers 3 s for its peers).
  EXPECT_LT(elapsed, 15s);
}

TEST(GlooProcesses, KilledStoreHostIsReported) {
  auto res = spawn({"killed", "0"}, 2, 40s);
  EXPECT_EQ(res[0].exit_code, 128 + SIGKILL);
  EXPECT_EQ(res[1].exit_code, 1) << res[1].output;
  EXPECT_NE(res[1].output.find("DistBackendError: [all_reduce #"), std::string::npos) << res[1].output;
  EXPECT_NE(res[1].output.find("served by world rank 0, which may be dead) is unreachable"), std::string::npos)
      << res[1].output;
}

TEST(GlooProcesses, RankSleepingPastTheTimeoutIsNamed) {
  auto res = spawn({"sleeper", "1"}, 3, 40s);
  for (int r : {0, 2}) {
    EXPECT_EQ(res[r].exit_code, 1) << res[r].output;
    EXPECT_NE(res[r].output.find(
                  fmt::format("DistBackendError: [all_reduce #2 on group 'default_pg'] rank {} of 3 (gloo): ", r)),
              std::string::npos)
        << res[r].output;
    EXPECT_NE(res[r].output.find("rank 1 has not reached all_reduce #2 (alive; last finished broadcast #1)"),
              std::string::npos)
        << res[r].output;
  }
  EXPECT_NE(res[1].exit_code, 0) << res[1].output;  // it wakes to a broken group
}
