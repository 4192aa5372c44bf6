#pragma once
// Process groups (LibTorch's c10d::ProcessGroup and c10d::Work): the collective and
// point-to-point interface every communication backend implements. libember holds the interface,
// the backend registry and the torch.distributed functions (Distributed.h); the backends (Gloo,
// MPI) live in the `distributed` plugin, which registers them by name when it loads.
//
// Note [Collective failures]
// Every operation runs under a timeout (the group's, or the one in its options). A backend that
// sees a collective fail or time out asks the group's store which ranks have stopped answering
// (each rank's monitor publishes a heartbeat and the collective it is in), and throws
// DistBackendError naming the operation, its sequence number, this rank, and the ranks that are
// dead or stuck elsewhere, so a dead or hung peer gives every other rank an error, never a hang.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/dispatcher/Tensor.h"
#include "ember/distributed/Store.h"

namespace ember::c10d {

// LibTorch's c10d::ReduceOp: `c10d::ReduceOp::SUM` converts to and from it.
struct ReduceOp {
  enum RedOpType : uint8_t { SUM = 0, AVG = 1, PRODUCT = 2, MIN = 3, MAX = 4, BAND = 5, BOR = 6, BXOR = 7 };
  constexpr ReduceOp(RedOpType op = SUM) : op_(op) {}   // NOLINT(google-explicit-constructor)
  constexpr operator RedOpType() const { return op_; }  // NOLINT(google-explicit-constructor)
  RedOpType op_;
};
EMBER_API const char* reduce_op_name(ReduceOp op);

// What a Work handle runs (LibTorch's c10d::OpType), named in errors.
enum class OpType : uint8_t {
  BROADCAST,
  ALLREDUCE,
  REDUCE,
  ALLGATHER,
  _ALLGATHER_BASE,
  GATHER,
  SCATTER,
  REDUCE_SCATTER,
  _REDUCE_SCATTER_BASE,
  ALLTOALL_BASE,
  ALLTOALL,
  SEND,
  RECV,
  RECVANYSOURCE,
  BARRIER,
  UNKNOWN
};
// torch.distributed's name of the operation ("all_reduce", "broadcast", ...).
EMBER_API const char* op_type_name(OpType op);

// Zero: the group's timeout.
inline constexpr std::chrono::milliseconds kUnsetTimeout = std::chrono::milliseconds(-1);
// Every options struct also has PyTorch's `asyncOp`: false tells the backend the caller waits for the
// Work at once, so it may run the operation on the caller's thread.

struct BroadcastOptions {
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct ReduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct GatherOptions {
  int64_t rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct ScatterOptions {
  int64_t rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct AllToAllOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};
struct BarrierOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
  bool asyncOp = true;
};

// The handle of one operation (LibTorch's c10d::Work). A backend finishes it exactly once, with
// or without an exception; wait() rethrows that exception in the caller.
class EMBER_API Work {
 public:
  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

  explicit Work(int rank = -1, OpType opType = OpType::UNKNOWN, std::vector<Tensor> outputs = {});
  virtual ~Work();
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  virtual bool isCompleted();
  virtual bool isSuccess() const;
  virtual std::exception_ptr exception() const;
  // The tensors the operation wrote (its outputs), once it completed.
  virtual std::vector<Tensor> result();
  // Blocks until the operation completes and rethrows its failure. With a timeout, throws
  // DistBackendError when it has not completed by then (the operation itself is not stopped).
  // Returns true, as LibTorch.
  //
  // Note [Waiting for a collective]
  // wait() polls (yielding the CPU) for up to EMBER_DIST_SPIN_US microseconds (default 5000)
  // before it sleeps. A sleeping waiter lets its CPU go idle, and on a VM, waking the backend's
  // threads on an idle vCPU can cost a host scheduler tick (4 ms on the machines this was measured
  // on) per message; polling keeps the CPU awake, as MPI and NCCL do when they wait. A wait that
  // outlasts the budget sleeps, so a straggler costs at most that much CPU per wait.
  virtual bool wait(std::chrono::milliseconds timeout = kNoTimeout);
  // CPU backends complete on the host: nothing more to order.
  virtual void synchronize() {}
  virtual void abort();
  int sourceRank() const noexcept { return sourceRank_; }
  OpType retrieveOpType() const noexcept { return opType_; }

  // torch.distributed's (Python) spellings.
  bool is_completed() { return isCompleted(); }
  bool is_success() const { return isSuccess(); }

  // A handle that is already finished (a failure when `error` is set).
  static std::shared_ptr<Work> completed(std::vector<Tensor> outputs = {}, std::exception_ptr error = nullptr);

 protected:
  // For backends: marks the operation done (with `error` on failure) and wakes waiters.
  void finish(std::exception_ptr error = nullptr);
  void setSourceRank(int rank) noexcept { sourceRank_ = rank; }

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool completed_ = false;
  std::exception_ptr exception_;
  int rank_;
  OpType opType_;
  int sourceRank_ = -1;
  std::vector<Tensor> outputs_;
};

// The interface of a communication backend (LibTorch's c10d::ProcessGroup, whose method names
// and argument conventions it keeps). Tensors are CPU tensors for the CPU backends; any strides
// (a backend copies a non-contiguous tensor through a contiguous buffer and back). The vectors
// hold one tensor per device, so one tensor here: a backend rejects more with ValueError.
class EMBER_API ProcessGroup {
 public:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int getRank() const noexcept { return rank_; }
  int getSize() const noexcept { return size_; }
  virtual const std::string getBackendName() const = 0;
  // The group's default timeout.
  virtual std::chrono::milliseconds getTimeout() const = 0;
  // The name init_process_group/new_group gave the group ("default_pg", "1", ...).
  const std::string& getGroupName() const noexcept { return groupName_; }
  void setGroupName(std::string name) { groupName_ = std::move(name); }
  // The world ranks of this group's members, in group-rank order (0..size-1 for the world).
  const std::vector<int>& getGlobalRanks() const noexcept { return globalRanks_; }
  void setGlobalRanks(std::vector<int> ranks) { globalRanks_ = std::move(ranks); }

  virtual std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts = {}) = 0;
  // Reduces several small tensors in one operation (DDP's buckets of scalars).
  virtual std::shared_ptr<Work> allreduce_coalesced(std::vector<Tensor>& tensors, const AllreduceOptions& opts = {});
  virtual std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts = {}) = 0;
  // outputTensors[0] holds getSize() tensors shaped like inputTensors[0].
  virtual std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                          std::vector<Tensor>& inputTensors, const AllgatherOptions& opts = {}) = 0;
  // `output` is getSize() inputs stacked along dim 0 (torch.distributed.all_gather_into_tensor).
  virtual std::shared_ptr<Work> _allgather_base(Tensor& output, Tensor& input, const AllgatherOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputTensors,
                                       std::vector<Tensor>& inputTensors, const GatherOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> scatter(std::vector<Tensor>& outputTensors,
                                        std::vector<std::vector<Tensor>>& inputTensors,
                                        const ScatterOptions& opts = {}) = 0;
  // inputTensors[0] holds getSize() tensors; rank r receives the reduction of everyone's r-th.
  virtual std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                               std::vector<std::vector<Tensor>>& inputTensors,
                                               const ReduceScatterOptions& opts = {}) = 0;
  // `input` is getSize() chunks of `output`'s shape stacked along dim 0.
  virtual std::shared_ptr<Work> _reduce_scatter_base(Tensor& output, Tensor& input,
                                                     const ReduceScatterOptions& opts = {}) = 0;
  // Splits along dim 0; empty split lists mean equal splits.
  virtual std::shared_ptr<Work> alltoall_base(Tensor& output, Tensor& input, std::vector<int64_t>& outputSplitSizes,
                                              std::vector<int64_t>& inputSplitSizes,
                                              const AllToAllOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> alltoall(std::vector<Tensor>& outputTensors, std::vector<Tensor>& inputTensors,
                                         const AllToAllOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> barrier(const BarrierOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) = 0;
  virtual std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) = 0;
  // Work::sourceRank() tells which rank sent.
  virtual std::shared_ptr<Work> recvAnysource(std::vector<Tensor>& tensors, int tag) = 0;

 protected:
  int rank_;
  int size_;
  std::string groupName_;
  std::vector<int> globalRanks_;
};

// What a backend factory receives (init_process_group, new_group).
struct BackendArgs {
  std::shared_ptr<Store> store;  // already prefixed for this group
  int rank = 0;                  // in the group
  int size = 1;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  std::string group_name;
  std::vector<int> global_ranks;  // the members' world ranks, in group-rank order
};
using BackendFactory = std::function<std::shared_ptr<ProcessGroup>(const BackendArgs&)>;

// Backends register by name (torch.distributed.Backend.register_backend). Registering a taken
// name throws ValueError and changes nothing.
EMBER_API void register_backend(const std::string& name, BackendFactory factory);
EMBER_API void unregister_backend(const std::string& name);
EMBER_API bool has_backend(const std::string& name);
EMBER_API std::vector<std::string> registered_backends();
// Creates a group of backend `name`, loading the `distributed` plugin first when no such
// backend is registered; NotImplementedError names the backend and why it is missing.
EMBER_API std::shared_ptr<ProcessGroup> create_process_group(const std::string& name, const BackendArgs& args);

}  // namespace ember::c10d
