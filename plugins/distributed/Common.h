#pragma once
// What the distributed plugin's backends share (Gloo and MPI): argument checks with
// torch.distributed's messages, staging of non-contiguous tensors, element-wise reductions for
// every dtype and ReduceOp, an ordered operation queue, and the health monitor with the failure
// diagnosis of Note [Collective failures] (ember/distributed/ProcessGroup.h).
//
// Note [Health monitor]
// Each group of each rank runs a monitor thread that publishes to the group's store, every
// kMonitorInterval, "ember/monitor/<rank>" = "<heartbeat> <seq> <state> <op>": a counter that moves
// while the process lives, and the collective it is in (state "in"), last finished ("done"),
// failed in ("failed"), or "exited" after the group was destroyed. Operations only update memory;
// the store is written by the thread (and at once on a failure), so collectives pay nothing.
// On a failure, diagnose() reads every rank's record, waits kDiagnoseWait, reads again: a counter
// that did not move is a dead or frozen rank; a live rank at another sequence number is busy
// elsewhere (stuck in another op, or not yet arrived). Store reads run on a helper thread with a
// deadline, since the store's server may be the dead rank (world rank 0 serves a TCPStore).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ember/dispatcher/Tensor.h"
#include "ember/distributed/ProcessGroup.h"

namespace ember::dist {

// ---- Argument checks (ValueError/TypeError led by "[<op>] <argument>:"). -------------------

// Exactly one tensor in the list (one per device; CPU backends have one device).
void check_single_tensor(const char* op, const char* arg, const std::vector<Tensor>& tensors);
// A defined, dense CPU tensor of a dtype the backends move and reduce.
void check_cpu_dense(const char* op, const char* arg, const Tensor& t);
// `t` has `ref`'s dtype and shape (`what` names the reference in the message).
void check_same_dtype_shape(const char* op, const char* arg, const Tensor& t, const Tensor& ref, const char* what);
void check_same_dtype(const char* op, const char* arg, const Tensor& t, const Tensor& ref, const char* what);
// 0 <= rank < size.
void check_rank(const char* op, const char* arg, int64_t rank, int size);
// A list of exactly `size` tensors.
void check_list_size(const char* op, const char* arg, size_t got, int size);
// `op` can reduce `dtype`: AVG only floating types, BAND/BOR/BXOR only integer and bool types.
void check_reduce_op(const char* op, c10d::ReduceOp reduce, ScalarType dtype);

// ---- Staging. ---------------------------------------------------------------------------

// A contiguous buffer for `t`: `t` itself when it is contiguous, else a contiguous copy (with
// `copy_in`) or an uninitialized one; copy_back() writes the buffer into `t` when they differ.
struct Staged {
  Tensor orig;
  Tensor buf;
  Staged() = default;
  Staged(const Tensor& t, bool copy_in);
  void* data() const { return buf.data_ptr(); }
  size_t nbytes() const { return buf.nbytes(); }
  void copy_back() const;
};
// A fresh contiguous tensor shaped like `t` (scratch space).
Tensor empty_like_contiguous(const Tensor& t);
// Bytes of dim-0 slice `i` of a contiguous tensor of `rows` rows.
size_t row_bytes(const Tensor& t);

// ---- Reductions. ---------------------------------------------------------------------------

// out[i] = a[i] (op) b[i] for n elements of `dtype` (out may alias a or b). AVG reduces as SUM
// (divide afterwards with divide_by). Half and BFloat16 reduce through float.
using ReduceFn = std::function<void(void* out, const void* a, const void* b, size_t n)>;
ReduceFn make_reduce_fn(ScalarType dtype, c10d::ReduceOp op);
// data[i] /= divisor for n floating elements (the AVG of a SUM).
void divide_by(void* data, ScalarType dtype, size_t n, int divisor);

// ---- Work and the operation queue. --------------------------------------------------------

// A Work the backend finishes from its worker thread.
class BackendWork : public c10d::Work {
 public:
  using c10d::Work::Work;
  void complete(std::exception_ptr error = nullptr) { finish(std::move(error)); }
  void set_source_rank(int rank) { setSourceRank(rank); }
};

// One worker thread that runs the pushed functions in push order (a group's operations must
// reach the wire in the order the program issued them). stop() runs what is queued, then joins.
class OpQueue {
 public:
  OpQueue();
  ~OpQueue();
  OpQueue(const OpQueue&) = delete;
  OpQueue& operator=(const OpQueue&) = delete;
  void push(std::function<void()> fn);
  // Nothing queued and nothing running (so the caller may run the next operation itself).
  bool idle();
  void stop();

 private:
  void run();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  bool running_ = false;
  std::thread thread_;
};

// ---- Health monitor and diagnosis (Note [Health monitor]). -------------------------------

inline constexpr std::chrono::milliseconds kMonitorInterval{500};
// Longer than two intervals, so a live rank has certainly published in between.
inline constexpr std::chrono::milliseconds kDiagnoseWait{1250};
// How long a diagnosis waits for the store to answer one round of reads.
inline constexpr std::chrono::milliseconds kStoreReadDeadline{3000};

// Names one operation in errors: "[all_reduce #12 on group 'default_pg'] rank 1 of 3 (gloo)".
struct OpInfo {
  std::string op;  // op_type_name(...)
  uint64_t seq = 0;
  bool collective = true;  // false: point-to-point (not counted in the collective sequence)
  int peer = -1;           // point-to-point: the other rank (-1: any)
  std::string group;
  int rank = 0;
  int size = 1;
  std::string backend;
  std::vector<int> global_ranks;  // empty: the world
  std::string prefix() const;
};

class HealthMonitor {
 public:
  // Starts publishing at once. `store` is the group's (already prefixed) store.
  HealthMonitor(std::shared_ptr<c10d::Store> store, int rank, int size,
                std::chrono::milliseconds interval = kMonitorInterval);
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  // The operation this rank is now in / finished / failed in.
  void enter(uint64_t seq, const std::string& op);
  void leave(uint64_t seq, const std::string& op);
  void failed(uint64_t seq, const std::string& op);
  // Publishes "exited" and stops the thread (bounded: a hung store is left behind).
  void stop();

  // Why `info` failed, from the peers' records: "rank 2 is not responding (dead or frozen; last
  // seen in broadcast #11)", "rank 2 is in all_reduce #13", ... Never throws. Takes about
  // kDiagnoseWait.
  std::string diagnose(const OpInfo& info) const;

 private:
  struct Shared;
  std::shared_ptr<Shared> s_;
  std::thread thread_;
  std::chrono::milliseconds interval_;
};

// The DistBackendError of a failed operation: "<prefix>: <diagnosis>; cause: <cause>".
c10d::DistBackendError failure_error(const OpInfo& info, const std::string& diagnosis, const std::string& cause);

}  // namespace ember::dist
