#pragma once
// An in-process process group for tests: N ranks are N threads sharing one ThreadWorld. Each
// rank's k-th collective meets the other ranks' k-th; the last rank to arrive computes the result
// and completes every rank's Work, so a collective is truly asynchronous (wait() blocks until the
// slowest rank arrived). Only broadcast and all_reduce (SUM) are served; the rest throw.
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/distributed.h"
#include "ember/ember.h"

namespace ember::test {

class ThreadWork : public c10d::Work {
 public:
  using c10d::Work::Work;
  void done() { finish(); }
};

struct ThreadWorld {
  explicit ThreadWorld(int size) : size(size) {}
  struct Pending {
    std::vector<Tensor> tensors;
    std::vector<std::shared_ptr<ThreadWork>> works;
    int root = 0;
  };
  int size;
  std::mutex mu;
  std::map<int64_t, Pending> pending;  // by sequence number
};

class ThreadGroup : public c10d::ProcessGroup {
 public:
  ThreadGroup(std::shared_ptr<ThreadWorld> world, int rank) : ProcessGroup(rank, world->size), world_(world) {}
  const std::string getBackendName() const override { return "threads"; }
  std::chrono::milliseconds getTimeout() const override { return std::chrono::seconds(30); }

  std::shared_ptr<c10d::Work> broadcast(std::vector<Tensor>& t, const c10d::BroadcastOptions& o) override {
    return join(t[0], c10d::OpType::BROADCAST, static_cast<int>(o.rootRank));
  }
  std::shared_ptr<c10d::Work> allreduce(std::vector<Tensor>& t, const c10d::AllreduceOptions& o) override {
    EMBER_CHECK(o.reduceOp == c10d::ReduceOp::SUM, "[ThreadGroup] only SUM");
    return join(t[0], c10d::OpType::ALLREDUCE, -1);
  }
  int64_t collectives() const { return seq_; }

#define EMBER_THREADGROUP_UNSUPPORTED(...) \
  { throw NotImplementedError("[ThreadGroup] not supported"); }
  std::shared_ptr<c10d::Work> reduce(std::vector<Tensor>&, const c10d::ReduceOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> allgather(std::vector<std::vector<Tensor>>&,
                                                                            std::vector<Tensor>&,
                                                                            const c10d::AllgatherOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> _allgather_base(
          Tensor&, Tensor&, const c10d::AllgatherOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> gather(std::vector<std::vector<Tensor>>&,
                                                                         std::vector<Tensor>&,
                                                                         const c10d::GatherOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> scatter(std::vector<Tensor>&,
                                                                          std::vector<std::vector<Tensor>>&,
                                                                          const c10d::ScatterOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> reduce_scatter(
          std::vector<Tensor>&, std::vector<std::vector<Tensor>>&, const c10d::ReduceScatterOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> _reduce_scatter_base(
          Tensor&, Tensor&, const c10d::ReduceScatterOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> alltoall_base(Tensor&, Tensor&, std::vector<int64_t>&,
                                                                                std::vector<int64_t>&,
                                                                                const c10d::AllToAllOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> alltoall(std::vector<Tensor>&, std::vector<Tensor>&,
                                                                           const c10d::AllToAllOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> barrier(const c10d::BarrierOptions&) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> send(std::vector<Tensor>&, int, int) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> recv(std::vector<Tensor>&, int, int) override
      EMBER_THREADGROUP_UNSUPPORTED() std::shared_ptr<c10d::Work> recvAnysource(std::vector<Tensor>&, int) override
      EMBER_THREADGROUP_UNSUPPORTED()
#undef EMBER_THREADGROUP_UNSUPPORTED

          private : std::shared_ptr<c10d::Work> join(const Tensor& t, c10d::OpType op, int root) {
    auto work = std::make_shared<ThreadWork>(rank_, op, std::vector<Tensor>{t});
    std::lock_guard<std::mutex> lock(world_->mu);
    auto& p = world_->pending[seq_++];
    p.tensors.resize(size_);
    p.works.resize(size_);
    p.tensors[rank_] = t;
    p.works[rank_] = work;
    p.root = root;
    bool all = true;
    for (auto& w : p.works) all = all && w != nullptr;
    if (all) {
      NoGradGuard no_grad;
      Tensor result = root >= 0 ? p.tensors[root].clone() : p.tensors[0].clone();
      if (root < 0)
        for (int r = 1; r < size_; ++r) result.add_(p.tensors[r]);
      for (auto& x : p.tensors) x.copy_(result);
      for (auto& w : p.works) w->done();
      world_->pending.erase(seq_ - 1);
    }
    return work;
  }

  std::shared_ptr<ThreadWorld> world_;
  int64_t seq_ = 0;
};

}  // namespace ember::test
