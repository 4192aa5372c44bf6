// The torch.distributed layer of libember with no real backend: the backend registry,
// init_process_group's argument and environment checks, group bookkeeping and rank mapping, Work.
// A recording backend stands in for Gloo/MPI (they have their own suites).
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "../unit/UnitTestUtil.h"
#include "ember/distributed.h"
#include "ember/ember.h"

namespace ember {
namespace {

using test::error_of;
namespace dist = ember::distributed;

// Records each call; every op completes at once.
struct Recorder final : c10d::ProcessGroup {
  explicit Recorder(const c10d::BackendArgs& a) : ProcessGroup(a.rank, a.size), args(a) {}
  const std::string getBackendName() const override { return "recorder"; }
  std::chrono::milliseconds getTimeout() const override { return args.timeout; }
  std::shared_ptr<c10d::Work> done(std::string what, int64_t root = -1) {
    last = std::move(what);
    last_root = root;
    return c10d::Work::completed();
  }
  std::shared_ptr<c10d::Work> broadcast(std::vector<Tensor>&, const c10d::BroadcastOptions& o) override {
    return done("broadcast", o.rootRank);
  }
  std::shared_ptr<c10d::Work> allreduce(std::vector<Tensor>& t, const c10d::AllreduceOptions& o) override {
    last_op = o.reduceOp;
    last_tensor = t.at(0);
    return done("allreduce");
  }
  std::shared_ptr<c10d::Work> reduce(std::vector<Tensor>&, const c10d::ReduceOptions& o) override {
    return done("reduce", o.rootRank);
  }
  std::shared_ptr<c10d::Work> allgather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&,
                                        const c10d::AllgatherOptions&) override {
    return done("allgather");
  }
  std::shared_ptr<c10d::Work> _allgather_base(Tensor&, Tensor&, const c10d::AllgatherOptions&) override {
    return done("_allgather_base");
  }
  std::shared_ptr<c10d::Work> gather(std::vector<std::vector<Tensor>>& out, std::vector<Tensor>&,
                                     const c10d::GatherOptions& o) override {
    last_list = out.size();
    return done("gather", o.rootRank);
  }
  std::shared_ptr<c10d::Work> scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>& in,
                                      const c10d::ScatterOptions& o) override {
    last_list = in.size();
    return done("scatter", o.rootRank);
  }
  std::shared_ptr<c10d::Work> reduce_scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&,
                                             const c10d::ReduceScatterOptions&) override {
    return done("reduce_scatter");
  }
  std::shared_ptr<c10d::Work> _reduce_scatter_base(Tensor&, Tensor&, const c10d::ReduceScatterOptions&) override {
    return done("_reduce_scatter_base");
  }
  std::shared_ptr<c10d::Work> alltoall_base(Tensor&, Tensor&, std::vector<int64_t>&, std::vector<int64_t>&,
                                            const c10d::AllToAllOptions&) override {
    return done("alltoall_base");
  }
  std::shared_ptr<c10d::Work> alltoall(std::vector<Tensor>&, std::vector<Tensor>&,
                                       const c10d::AllToAllOptions&) override {
    return done("alltoall");
  }
  std::shared_ptr<c10d::Work> barrier(const c10d::BarrierOptions&) override { return done("barrier"); }
  std::shared_ptr<c10d::Work> send(std::vector<Tensor>&, int dst, int) override { return done("send", dst); }
  std::shared_ptr<c10d::Work> recv(std::vector<Tensor>&, int src, int) override { return done("recv", src); }
  std::shared_ptr<c10d::Work> recvAnysource(std::vector<Tensor>&, int) override {
    last = "recvAnysource";
    struct FromTwo : c10d::Work {
      FromTwo() {
        setSourceRank(1);
        finish();
      }
    };
    return std::make_shared<FromTwo>();
  }

  c10d::BackendArgs args;
  std::string last;
  int64_t last_root = -1;
  size_t last_list = 0;
  c10d::ReduceOp last_op;
  Tensor last_tensor;
};

class DistApi : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!c10d::has_backend("recorder"))
      c10d::register_backend("recorder", [](const c10d::BackendArgs& a) { return std::make_shared<Recorder>(a); });
  }
  void TearDown() override {
    if (dist::is_initialized()) dist::destroy_process_group();
  }
  static Recorder& world() { return dynamic_cast<Recorder&>(*dist::resolve_group()); }
  void init(int rank, int size) {
    dist::InitProcessGroupOptions o;
    o.backend = "recorder";
    o.store = std::make_shared<c10d::HashStore>();
    o.rank = rank;
    o.world_size = size;
    dist::init_process_group(o);
  }
};

TEST_F(DistApi, RegistryRefusesDuplicatesAndNamesMissingBackends) {
  EXPECT_NE(error_of([] {
              c10d::register_backend("recorder", [](const c10d::BackendArgs&) { return nullptr; });
            }).find("backend 'recorder' is already registered"),
            std::string::npos);
  EXPECT_TRUE(c10d::has_backend("recorder"));
  auto msg = error_of([] { c10d::create_process_group("no_such_backend", {}); });
  EXPECT_NE(msg.find("backend 'no_such_backend' is not available"), std::string::npos) << msg;
  msg = error_of([] { c10d::create_process_group("nccl", {}); });
  EXPECT_NE(msg.find("NCCL communicates CUDA tensors and comes with the CUDA backend"), std::string::npos) << msg;
  EXPECT_FALSE(dist::is_nccl_available());
}

TEST_F(DistApi, UninitializedCallsSayWhatToDo) {
  EXPECT_FALSE(dist::is_initialized());
  auto msg = error_of([] { dist::get_rank(); });
  EXPECT_NE(msg.find("[get_rank] Default process group has not been initialized"), std::string::npos) << msg;
  Tensor t = ember::ones({2});
  msg = error_of([&] { dist::all_reduce(t); });
  EXPECT_NE(msg.find("[all_reduce] Default process group has not been initialized"), std::string::npos) << msg;
}

TEST_F(DistApi, InitChecksItsArguments) {
  dist::InitProcessGroupOptions o;
  o.backend = "recorder";
  o.store = std::make_shared<c10d::HashStore>();
  EXPECT_NE(error_of([&] {
              dist::init_process_group(o);
            }).find("world_size (-1) and rank (-1) must be specified if store is given"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              dist::init_process_group("recorder", "udp://x", 2, 0);
            }).find("init_method: expected env://, tcp://host:port or file:///path, got 'udp://x'"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { dist::init_process_group("recorder", "tcp://127.0.0.1", 2, 0); }).find("expected tcp://host:port"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              dist::init_process_group("recorder", "tcp://127.0.0.1:1?rank=x", 2);
            }).find("rank (in init_method): expected an integer, got 'x'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              dist::init_process_group("recorder", "tcp://127.0.0.1:1", 2, 2);
            }).find("rank: expected 0 <= rank < 2, got 2"),
            std::string::npos);
  ::unsetenv("RANK");
  ::setenv("WORLD_SIZE", "2", 1);
  EXPECT_NE(error_of([] {
              dist::init_process_group("recorder");
            }).find("using env:// rendezvous: environment variable RANK expected, but not set"),
            std::string::npos);
  ::unsetenv("WORLD_SIZE");
  EXPECT_FALSE(dist::is_initialized());  // every failure left nothing behind
  init(0, 1);
  EXPECT_NE(error_of([&] { init(0, 1); }).find("trying to initialize the default process group twice!"),
            std::string::npos);
}

TEST_F(DistApi, DefaultGroupAndRankQueries) {
  init(1, 3);
  EXPECT_TRUE(dist::is_initialized());
  EXPECT_EQ(dist::get_rank(), 1);
  EXPECT_EQ(dist::get_world_size(), 3);
  EXPECT_EQ(dist::get_backend(), "recorder");
  EXPECT_EQ(dist::resolve_group()->getGroupName(), "default_pg");
  EXPECT_EQ(dist::resolve_group()->getGlobalRanks(), (std::vector<int>{0, 1, 2}));
  // The group's store is the given one behind the "default_pg/" prefix.
  world().args.store->set("k", std::string("v"));
  EXPECT_EQ(dist::get_default_store()->get_string("default_pg/k"), "v");
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
}

TEST_F(DistApi, CollectivesMapGlobalRanksToGroupRanks) {
  init(2, 4);
  auto g = dist::new_group({3, 2});  // sorted: world ranks [2, 3]
  ASSERT_NE(g, nullptr);
  auto& r = dynamic_cast<Recorder&>(*g);
  EXPECT_EQ(r.getRank(), 0);
  EXPECT_EQ(r.getSize(), 2);
  EXPECT_EQ(r.getGroupName(), "1");
  EXPECT_EQ(r.getGlobalRanks(), (std::vector<int>{2, 3}));
  EXPECT_EQ(dist::get_global_rank(g, 1), 3);
  EXPECT_EQ(dist::get_group_rank(g, 3), 1);
  Tensor t = ember::ones({2});
  dist::broadcast(t, 3, g);
  EXPECT_EQ(r.last, "broadcast");
  EXPECT_EQ(r.last_root, 1);
  dist::reduce(t, 2, c10d::ReduceOp::MAX, g);
  EXPECT_EQ(r.last_root, 0);
  auto msg = error_of([&] { dist::broadcast(t, 0, g); });
  EXPECT_NE(msg.find("[broadcast] src: rank 0 is not part of group '1' (its world ranks: 2, 3)"), std::string::npos)
      << msg;
  dist::send(t, 3, g);
  EXPECT_EQ(r.last_root, 1);
  EXPECT_NE(error_of([&] { dist::send(t, 2, g); }).find("Invalid destination rank"), std::string::npos);
  EXPECT_EQ(dist::recv(t, std::nullopt, g), 3);  // the backend's source rank 1 is world rank 3
  // A rank outside a group gets null; the name counter still moves on every rank.
  EXPECT_EQ(dist::new_group({0, 1}), nullptr);
  auto g3 = dist::new_group();
  EXPECT_EQ(g3->getGroupName(), "3");
  EXPECT_NE(error_of([] { dist::new_group({0, 0}); }).find("rank 0 is listed twice"), std::string::npos);
  EXPECT_NE(error_of([] { dist::new_group({4}); }).find("expected ranks in [0, 4), got 4"), std::string::npos);
}

TEST_F(DistApi, AsyncOpReturnsTheHandleAndSyncReturnsNull) {
  init(0, 2);
  Tensor t = ember::ones({3});
  auto w = dist::all_reduce(t, c10d::ReduceOp::AVG, nullptr, /*async_op=*/true);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->is_completed());
  EXPECT_TRUE(w->wait());
  EXPECT_EQ(world().last_op, c10d::ReduceOp::AVG);
  EXPECT_TRUE(world().last_tensor.is_same(t));  // the caller's tensor, not a copy
  EXPECT_EQ(dist::all_reduce(t), nullptr);
  std::vector<Tensor> list{ember::zeros({3}), ember::zeros({3})};
  dist::gather(t, &list, 0);
  EXPECT_EQ(world().last_list, 1u);
  EXPECT_NE(error_of([&] { dist::gather(t, &list, 1); }).find("expected no list on a rank other than the destination"),
            std::string::npos);
  EXPECT_NE(error_of([&] { dist::scatter(t, nullptr, 0); }).find("scatter_list: expected a list of 2 tensors"),
            std::string::npos);
}

TEST(DistWork, WaitRethrowsAndTimesOut) {
  auto ok = c10d::Work::completed();
  EXPECT_TRUE(ok->isSuccess());
  auto bad = c10d::Work::completed({}, std::make_exception_ptr(c10d::DistBackendError("peer gone")));
  EXPECT_TRUE(bad->isCompleted());
  EXPECT_FALSE(bad->isSuccess());
  EXPECT_EQ(error_of([&] { bad->wait(); }), "peer gone");
  struct Pending : c10d::Work {
    Pending() : Work(1, c10d::OpType::ALLREDUCE) {}
    void done() { finish(); }
  };
  auto p = std::make_shared<Pending>();
  EXPECT_EQ(error_of([&] { p->wait(std::chrono::milliseconds(20)); }),
            "[Work::wait] all_reduce on rank 1 did not complete within 20 ms");
  std::thread t([&] { p->done(); });
  EXPECT_TRUE(p->wait());
  t.join();
  EXPECT_STREQ(c10d::reduce_op_name(c10d::ReduceOp::BXOR), "BXOR");
}

TEST(DistHashStore, SemanticsAndTimeouts) {
  c10d::HashStore s;
  s.set("a", std::string("1"));
  EXPECT_EQ(s.add("a", 4), 5);
  EXPECT_EQ(s.get_string("a"), "5");
  EXPECT_EQ(s.add("n", -2), -2);
  s.set("x", std::string("abc"));
  EXPECT_NE(error_of([&] { s.add("x", 1); }).find("key 'x' holds a value that is not an integer"), std::string::npos);
  auto cs = s.compare_set("c", "", "v");  // absent and expected empty: set
  EXPECT_EQ(std::string(cs.begin(), cs.end()), "v");
  cs = s.compare_set("c", "w", "z");  // mismatch: unchanged, returns the current value
  EXPECT_EQ(std::string(cs.begin(), cs.end()), "v");
  cs = s.compare_set("d", "w", "z");  // absent, expected non-empty: returns expected
  EXPECT_EQ(std::string(cs.begin(), cs.end()), "w");
  EXPECT_FALSE(s.check({"d"}));
  EXPECT_TRUE(s.check({"a", "c"}));
  EXPECT_EQ(s.num_keys(), 4);
  EXPECT_TRUE(s.delete_key("a"));
  EXPECT_FALSE(s.delete_key("a"));
  EXPECT_EQ(error_of([&] {
              s.wait({"q", "c"}, std::chrono::milliseconds(10));
            }),
            "[HashStore::wait] timed out after 10 ms waiting for keys ['q', 'c']");
  std::thread t([&] { s.set("late", std::string("1")); });
  s.wait({"late"});
  t.join();
  c10d::PrefixStore p("pre", std::make_shared<c10d::HashStore>());
  p.set("k", std::string("v"));
  EXPECT_EQ(p.getUnderlyingStore()->get_string("pre/k"), "v");
  EXPECT_TRUE(p.check({"k"}));
}

}  // namespace
}  // namespace ember
