// The MPI process-group backend (LibTorch's ProcessGroupMPI) on Open MPI: init_process_group("mpi")
// under mpirun takes rank and size from MPI_COMM_WORLD; new_group builds its communicator with
// MPI_Comm_create_group, so only the members take part.
//
// Note [MPI worker]
// MPI is initialized once per process with MPI_THREAD_SERIALIZED, and every MPI call of every
// group is made under one process-wide mutex. Each group has one worker thread that runs its
// operations in call order: it starts the head operation as a nonblocking MPI call
// (MPI_Iallreduce, ...) and polls it with MPI_Test, taking the mutex only around each call, so
// no thread ever sits inside MPI and groups make progress side by side. A send or receive does
// not hold up the queue once started (a send followed by a receive on both sides must not
// deadlock); the worker polls it alongside. MPI has no timeouts, so the worker fails an operation
// that passes its deadline (the options' timeout, else the group's) with DistBackendError and
// marks the group broken: the MPI call cannot be cancelled, so later operations fail at once and
// the process calls MPI_Abort at exit (MPI_Finalize would wait on the abandoned call forever).
// Otherwise the process calls MPI_Finalize at exit, after stopping every group's worker.
#include <fmt/format.h>
#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <numeric>
#include <set>
#include <thread>

#include "Backends.h"
#include "Common.h"
#include "ember/core/LocalState.h"
#include "ember/generated/Functions.h"

namespace ember::dist {
namespace {

using c10d::DistBackendError;
using c10d::OpType;
using c10d::ReduceOp;
using c10d::Work;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

class ProcessGroupMPI;

// Process-wide MPI state. Never destroyed: the exit handler runs after static destructors of
// objects built later than it was registered.
struct MpiState {
  std::mutex call_mu;  // held around every MPI call (MPI_THREAD_SERIALIZED)
  std::mutex groups_mu;
  std::set<ProcessGroupMPI*> groups;
  std::atomic<bool> broken{false};  // a group abandoned an MPI call: abort at exit
  bool initialized_here = false;
  bool exit_handler_done = false;
  int tag_ub = 32767;  // MPI_TAG_UB (at least 32767)
};
MpiState& mpi_state() {
  static auto* s = new MpiState;
  return *s;
}

std::string mpi_error_text(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return fmt::format("MPI error code {}", rc);
  return std::string(buf, static_cast<size_t>(len));
}

void check_mpi(int rc, const char* fn, const char* call) {
  if (rc != MPI_SUCCESS) throw DistBackendError(fmt::format("[{}] {} failed: {}", fn, call, mpi_error_text(rc)));
}

void exit_handler();

void ensure_mpi_initialized() {
  auto& s = mpi_state();
  std::lock_guard<std::mutex> lock(s.call_mu);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    throw DistBackendError("[init_process_group] backend 'mpi': MPI was already finalized in this process");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "init_process_group",
              "MPI_Init_thread");
    s.initialized_here = true;
    std::atexit(exit_handler);
  }
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_SERIALIZED)
    throw DistBackendError(
        fmt::format("[init_process_group] backend 'mpi': the MPI library gives thread level {} but the backend needs "
                    "MPI_THREAD_SERIALIZED ({}): its worker threads make MPI calls",
                    provided, static_cast<int>(MPI_THREAD_SERIALIZED)));
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) s.tag_ub = *ub;
}

// ---- dtypes and reductions ----

// How a dtype travels: its MPI type, and for reductions the dtype the reduction runs in
// (float16 and bfloat16 reduce in float32; their bits travel as uint16 otherwise).
std::optional<MPI_Datatype> transport_type(ScalarType t) {
  switch (t) {
    case kFloat32:
      return MPI_FLOAT;
    case kFloat64:
      return MPI_DOUBLE;
    case kInt8:
      return MPI_INT8_T;
    case kUInt8:
    case kBool:
      return MPI_UINT8_T;
    case kInt16:
      return MPI_INT16_T;
    case kInt32:
      return MPI_INT32_T;
    case kInt64:
      return MPI_INT64_T;
    case kFloat16:
    case kBFloat16:
      return MPI_UINT16_T;
    default:
      return std::nullopt;
  }
}

// After check_cpu_dense (Common.h), which admits exactly the dtypes transport_type maps.
MPI_Datatype mpi_type(const Tensor& t) { return *transport_type(t.dtype()); }

struct ReducePlan {
  MPI_Op op;
  ScalarType compute;  // the dtype the reduction runs in
  MPI_Datatype type;
  bool average;  // divide by the group size afterwards
};

// After check_cpu_dense on the tensor.
ReducePlan reduce_plan(ReduceOp op, ScalarType dtype, const char* fn) {
  check_reduce_op(fn, op, dtype);
  ReducePlan p{MPI_SUM, dtype, *transport_type(dtype), false};
  if (dtype == kFloat16 || dtype == kBFloat16) {
    p.compute = kFloat32;
    p.type = MPI_FLOAT;
  }
  const bool is_bool = dtype == kBool;  // 0/1 bytes: sum is "or", product is "and", as PyTorch
  switch (static_cast<ReduceOp::RedOpType>(op)) {
    case ReduceOp::SUM:
      p.op = is_bool ? MPI_LOR : MPI_SUM;
      break;
    case ReduceOp::AVG:
      p.op = MPI_SUM;
      p.average = true;
      break;
    case ReduceOp::PRODUCT:
      p.op = is_bool ? MPI_LAND : MPI_PROD;
      break;
    case ReduceOp::MIN:
      p.op = MPI_MIN;
      break;
    case ReduceOp::MAX:
      p.op = MPI_MAX;
      break;
    case ReduceOp::BAND:
      p.op = MPI_BAND;
      break;
    case ReduceOp::BOR:
      p.op = MPI_BOR;
      break;
    case ReduceOp::BXOR:
      p.op = MPI_BXOR;
      break;
  }
  return p;
}

// ---- validation (Common.h's checks, with the argument names composed here) ----

void check_tensor(const Tensor& t, const char* fn, const std::string& arg) { check_cpu_dense(fn, arg.c_str(), t); }

const Tensor& single(const std::vector<Tensor>& ts, const char* fn, const char* arg) {
  check_single_tensor(fn, arg, ts);
  check_tensor(ts[0], fn, fmt::format("{}[0]", arg));
  return ts[0];
}

int count_of(int64_t numel, const char* fn, const std::string& arg) {
  EMBER_CHECK(numel <= INT_MAX, "[{}] {}: {} elements are more than one MPI call moves (at most {})", fn, arg, numel,
              INT_MAX);
  return static_cast<int>(numel);
}

void check_root(int64_t root, int size, const char* fn, const char* arg) { check_rank(fn, arg, root, size); }

void check_like(const Tensor& t, const Tensor& like, const char* fn, const std::string& arg, const char* what) {
  check_tensor(t, fn, arg);
  check_same_dtype_shape(fn, arg.c_str(), t, like, what);
}

// ---- staging ----

// A contiguous buffer of `t`'s values in `dtype`: `t` itself when it already is one.
Tensor stage_in(const Tensor& t, ScalarType dtype) {
  Tensor d = t.detach();
  if (d.is_contiguous() && d.dtype() == dtype) return d;
  return d.to(dtype).contiguous();
}

// A contiguous buffer to receive `t`'s values in `dtype` (uninitialized unless it is `t`).
Tensor stage_out(const Tensor& t, ScalarType dtype) {
  Tensor d = t.detach();
  if (d.is_contiguous() && d.dtype() == dtype) return d;
  return empty(d.sizes(), TensorOptions().dtype(dtype));
}

void write_back(const Tensor& t, const Tensor& buf) {
  Tensor d = t.detach();
  if (d.data_ptr() == buf.data_ptr() && d.dtype() == buf.dtype() && d.is_contiguous()) return;
  d.copy_(buf);
}

// `ts` flattened into one contiguous `dtype` buffer, back to back.
Tensor pack(const std::vector<Tensor>& ts, ScalarType dtype) {
  int64_t total = 0;
  for (auto& t : ts) total += t.numel();
  Tensor flat = empty({total}, TensorOptions().dtype(dtype));
  int64_t off = 0;
  for (auto& t : ts) {
    if (t.numel() > 0) flat.narrow(0, off, t.numel()).copy_(t.detach().reshape({-1}));
    off += t.numel();
  }
  return flat;
}

void unpack(const Tensor& flat, const std::vector<Tensor>& ts) {
  int64_t off = 0;
  for (auto& t : ts) {
    if (t.numel() > 0) t.detach().copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
    off += t.numel();
  }
}

// ---- work ----

// A started operation: its request and what to do once it completes (copy back, average).
struct Pending {
  MPI_Request request = MPI_REQUEST_NULL;
  std::function<void(const MPI_Status&, BackendWork&)> done;
};

struct Entry {
  std::shared_ptr<BackendWork> work;
  OpInfo info;  // names it in errors and in the health monitor's records
  std::function<Pending()> start;
  bool p2p = false;
  Clock::time_point deadline;
  milliseconds timeout;
  Pending pending;
};

// Runs `fn` (an MPI call) under the process-wide lock and throws on its error code.
template <class F>
void locked(const char* fn, const char* call, F&& f) {
  std::lock_guard<std::mutex> lock(mpi_state().call_mu);
  check_mpi(f(), fn, call);
}

class ProcessGroupMPI : public c10d::ProcessGroup {
 public:
  ProcessGroupMPI(MPI_Comm comm, int rank, int size, milliseconds timeout, std::shared_ptr<c10d::Store> store)
      : ProcessGroup(rank, size), comm_(comm), timeout_(timeout), store_(std::move(store)) {
    if (store_) monitor_ = std::make_unique<HealthMonitor>(store_, rank_, size_);
    {
      auto& s = mpi_state();
      std::lock_guard<std::mutex> lock(s.groups_mu);
      s.groups.insert(this);
    }
    worker_ = std::thread([this] { run(); });
  }

  ~ProcessGroupMPI() override {
    {
      auto& s = mpi_state();
      std::lock_guard<std::mutex> lock(s.groups_mu);
      s.groups.erase(this);
    }
    shutdown();
    if (!broken() && comm_ != MPI_COMM_NULL) {
      std::lock_guard<std::mutex> lock(mpi_state().call_mu);
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Comm_free(&comm_);
    }
  }

  // Runs what is queued, then stops the worker (the exit handler and the destructor).
  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
    if (monitor_) monitor_->stop();
  }

  const std::string getBackendName() const override { return "mpi"; }
  milliseconds getTimeout() const override { return timeout_; }

  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, const c10d::BroadcastOptions& opts) override {
    const char* fn = "broadcast";
    Tensor t = single(tensors, fn, "tensors");
    MPI_Datatype type = mpi_type(t);
    check_root(opts.rootRank, size_, fn, "rootRank");
    EMBER_CHECK(opts.rootTensor == 0, "[{}] rootTensor: expected 0 (one tensor per rank), got {}", fn, opts.rootTensor);
    int count = count_of(t.numel(), fn, "tensors[0]");
    int root = static_cast<int>(opts.rootRank);
    return enqueue(OpType::BROADCAST, opts.timeout, {t}, [=, this] {
      Tensor buf = rank_ == root ? stage_in(t, t.dtype()) : stage_out(t, t.dtype());
      Pending p;
      locked(fn, "MPI_Ibcast", [&] { return MPI_Ibcast(buf.data_ptr(), count, type, root, comm_, &p.request); });
      p.done = [t, buf](const MPI_Status&, BackendWork&) { write_back(t, buf); };
      return p;
    });
  }

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, const c10d::AllreduceOptions& opts) override {
    const char* fn = "all_reduce";
    Tensor t = single(tensors, fn, "tensors");
    ReducePlan plan = reduce_plan(opts.reduceOp, t.dtype(), fn);
    int count = count_of(t.numel(), fn, "tensors[0]");
    return enqueue(OpType::ALLREDUCE, opts.timeout, {t}, [=, this] {
      Tensor buf = stage_in(t, plan.compute);
      Pending p;
      locked(fn, "MPI_Iallreduce", [&] {
        return MPI_Iallreduce(MPI_IN_PLACE, buf.data_ptr(), count, plan.type, plan.op, comm_, &p.request);
      });
      p.done = [t, buf, plan, n = size_](const MPI_Status&, BackendWork&) {
        if (plan.average) buf.div_(n);
        write_back(t, buf);
      };
      return p;
    });
  }

  std::shared_ptr<Work> allreduce_coalesced(std::vector<Tensor>& tensors, const c10d::AllreduceOptions& opts) override {
    const char* fn = "all_reduce_coalesced";
    EMBER_CHECK(!tensors.empty(), "[{}] tensors: expected at least one tensor", fn);
    for (size_t i = 0; i < tensors.size(); ++i) {
      check_tensor(tensors[i], fn, fmt::format("tensors[{}]", i));
      EMBER_CHECK_TYPE(tensors[i].dtype() == tensors[0].dtype(),
                       "[{}] tensors[{}]: expected dtype {} (like tensors[0]; one reduction covers them all), got {}",
                       fn, i, tensors[0].dtype(), tensors[i].dtype());
    }
    ReducePlan plan = reduce_plan(opts.reduceOp, tensors[0].dtype(), fn);
    int64_t total = 0;
    for (auto& t : tensors) total += t.numel();
    int count = count_of(total, fn, "tensors");
    std::vector<Tensor> ts = tensors;
    return enqueue(OpType::ALLREDUCE, opts.timeout, ts, [=, this] {
      Tensor flat = pack(ts, plan.compute);
      Pending p;
      locked(fn, "MPI_Iallreduce", [&] {
        return MPI_Iallreduce(MPI_IN_PLACE, flat.data_ptr(), count, plan.type, plan.op, comm_, &p.request);
      });
      p.done = [ts, flat, plan, n = size_](const MPI_Status&, BackendWork&) {
        if (plan.average) flat.div_(n);
        unpack(flat, ts);
      };
      return p;
    });
  }

  std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors, const c10d::ReduceOptions& opts) override {
    const char* fn = "reduce";
    Tensor t = single(tensors, fn, "tensors");
    ReducePlan plan = reduce_plan(opts.reduceOp, t.dtype(), fn);
    check_root(opts.rootRank, size_, fn, "rootRank");
    EMBER_CHECK(opts.rootTensor == 0, "[{}] rootTensor: expected 0 (one tensor per rank), got {}", fn, opts.rootTensor);
    int count = count_of(t.numel(), fn, "tensors[0]");
    int root = static_cast<int>(opts.rootRank);
    return enqueue(OpType::REDUCE, opts.timeout, {t}, [=, this] {
      Tensor buf = stage_in(t, plan.compute);
      const bool at_root = rank_ == root;
      Pending p;
      locked(fn, "MPI_Ireduce", [&] {
        return MPI_Ireduce(at_root ? MPI_IN_PLACE : buf.data_ptr(), at_root ? buf.data_ptr() : nullptr, count,
                           plan.type, plan.op, root, comm_, &p.request);
      });
      p.done = [t, buf, plan, at_root, n = size_](const MPI_Status&, BackendWork&) {
        if (!at_root) return;  // as LibTorch's MPI backend: only the root's tensor changes
        if (plan.average) buf.div_(n);
        write_back(t, buf);
      };
      return p;
    });
  }

  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputTensors, std::vector<Tensor>& inputTensors,
                                  const c10d::AllgatherOptions& opts) override {
    const char* fn = "all_gather";
    Tensor in = single(inputTensors, fn, "inputTensors");
    MPI_Datatype type = mpi_type(in);
    EMBER_CHECK(outputTensors.size() == 1, "[{}] outputTensors: expected one list (one per device), got {}", fn,
                outputTensors.size());
    std::vector<Tensor> outs = outputTensors[0];
    check_list_size(fn, "outputTensors[0]", outs.size(), size_);
    for (size_t i = 0; i < outs.size(); ++i)
      check_like(outs[i], in, fn, fmt::format("outputTensors[0][{}]", i), "the input");
    int count = count_of(in.numel() * size_, fn, "outputTensors[0]") / size_;
    return enqueue(OpType::ALLGATHER, opts.timeout, outs, [=, this] {
      Tensor src = stage_in(in, in.dtype());
      Tensor flat = empty({in.numel() * size_}, TensorOptions().dtype(in.dtype()));
      Pending p;
      locked(fn, "MPI_Iallgather", [&] {
        return MPI_Iallgather(src.data_ptr(), count, type, flat.data_ptr(), count, type, comm_, &p.request);
      });
      p.done = [src, flat, outs](const MPI_Status&, BackendWork&) { unpack(flat, outs); };
      return p;
    });
  }

  std::shared_ptr<Work> _allgather_base(Tensor& output, Tensor& input, const c10d::AllgatherOptions& opts) override {
    const char* fn = "all_gather_into_tensor";
    check_tensor(input, fn, "input");
    check_tensor(output, fn, "output");
    MPI_Datatype type = mpi_type(input);
    EMBER_CHECK_TYPE(output.dtype() == input.dtype(), "[{}] output: expected dtype {} (like the input), got {}", fn,
                     input.dtype(), output.dtype());
    EMBER_CHECK(output.numel() == input.numel() * size_,
                "[{}] output: expected {} elements (the group size {} times the input's {}), got {}", fn,
                input.numel() * size_, size_, input.numel(), output.numel());
    count_of(output.numel(), fn, "output");
    int count = static_cast<int>(input.numel());
    Tensor in = input, out = output;
    return enqueue(OpType::_ALLGATHER_BASE, opts.timeout, {out}, [=, this] {
      Tensor src = stage_in(in, in.dtype());
      Tensor dst = stage_out(out, out.dtype());
      Pending p;
      locked(fn, "MPI_Iallgather", [&] {
        return MPI_Iallgather(src.data_ptr(), count, type, dst.data_ptr(), count, type, comm_, &p.request);
      });
      p.done = [src, dst, out](const MPI_Status&, BackendWork&) { write_back(out, dst); };
      return p;
    });
  }

  std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputTensors, std::vector<Tensor>& inputTensors,
                               const c10d::GatherOptions& opts) override {
    const char* fn = "gather";
    Tensor in = single(inputTensors, fn, "inputTensors");
    MPI_Datatype type = mpi_type(in);
    check_root(opts.rootRank, size_, fn, "rootRank");
    int root = static_cast<int>(opts.rootRank);
    std::vector<Tensor> outs;
    if (rank_ == root) {
      EMBER_CHECK(outputTensors.size() == 1, "[{}] outputTensors: expected one list on the root (rank {}), got {}", fn,
                  root, outputTensors.size());
      outs = outputTensors[0];
      check_list_size(fn, "outputTensors[0]", outs.size(), size_);
      for (size_t i = 0; i < outs.size(); ++i)
        check_like(outs[i], in, fn, fmt::format("outputTensors[0][{}]", i), "the input");
    } else {
      EMBER_CHECK(outputTensors.empty(), "[{}] outputTensors: expected none on a rank other than the root ({})", fn,
                  root);
    }
    int count = count_of(in.numel() * size_, fn, "inputTensors[0]") / size_;
    return enqueue(OpType::GATHER, opts.timeout, outs, [=, this] {
      Tensor src = stage_in(in, in.dtype());
      Tensor flat;
      if (rank_ == root) flat = empty({in.numel() * size_}, TensorOptions().dtype(in.dtype()));
      Pending p;
      locked(fn, "MPI_Igather", [&] {
        return MPI_Igather(src.data_ptr(), count, type, flat.defined() ? flat.data_ptr() : nullptr, count, type, root,
                           comm_, &p.request);
      });
      p.done = [src, flat, outs](const MPI_Status&, BackendWork&) {
        if (flat.defined()) unpack(flat, outs);
      };
      return p;
    });
  }

  std::shared_ptr<Work> scatter(std::vector<Tensor>& outputTensors, std::vector<std::vector<Tensor>>& inputTensors,
                                const c10d::ScatterOptions& opts) override {
    const char* fn = "scatter";
    Tensor out = single(outputTensors, fn, "outputTensors");
    MPI_Datatype type = mpi_type(out);
    check_root(opts.rootRank, size_, fn, "rootRank");
    int root = static_cast<int>(opts.rootRank);
    std::vector<Tensor> ins;
    if (rank_ == root) {
      EMBER_CHECK(inputTensors.size() == 1, "[{}] inputTensors: expected one list on the root (rank {}), got {}", fn,
                  root, inputTensors.size());
      ins = inputTensors[0];
      check_list_size(fn, "inputTensors[0]", ins.size(), size_);
      for (size_t i = 0; i < ins.size(); ++i)
        check_like(ins[i], out, fn, fmt::format("inputTensors[0][{}]", i), "the output");
    } else {
      EMBER_CHECK(inputTensors.empty(), "[{}] inputTensors: expected none on a rank other than the root ({})", fn,
                  root);
    }
    int count = count_of(out.numel() * size_, fn, "outputTensors[0]") / size_;
    return enqueue(OpType::SCATTER, opts.timeout, {out}, [=, this] {
      Tensor flat;
      if (rank_ == root) flat = pack(ins, out.dtype());
      Tensor dst = stage_out(out, out.dtype());
      Pending p;
      locked(fn, "MPI_Iscatter", [&] {
        return MPI_Iscatter(flat.defined() ? flat.data_ptr() : nullptr, count, type, dst.data_ptr(), count, type, root,
                            comm_, &p.request);
      });
      p.done = [flat, dst, out](const MPI_Status&, BackendWork&) { write_back(out, dst); };
      return p;
    });
  }

  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                       std::vector<std::vector<Tensor>>& inputTensors,
                                       const c10d::ReduceScatterOptions& opts) override {
    const char* fn = "reduce_scatter";
    Tensor out = single(outputTensors, fn, "outputTensors");
    ReducePlan plan = reduce_plan(opts.reduceOp, out.dtype(), fn);
    EMBER_CHECK(inputTensors.size() == 1, "[{}] inputTensors: expected one list (one per device), got {}", fn,
                inputTensors.size());
    std::vector<Tensor> ins = inputTensors[0];
    check_list_size(fn, "inputTensors[0]", ins.size(), size_);
    for (size_t i = 0; i < ins.size(); ++i)
      check_like(ins[i], out, fn, fmt::format("inputTensors[0][{}]", i), "the output");
    int count = count_of(out.numel() * size_, fn, "inputTensors[0]") / size_;
    return enqueue(OpType::REDUCE_SCATTER, opts.timeout, {out}, [=, this] {
      Tensor flat = pack(ins, plan.compute);
      return start_reduce_scatter(fn, flat, out, plan, count);
    });
  }

  std::shared_ptr<Work> _reduce_scatter_base(Tensor& output, Tensor& input,
                                             const c10d::ReduceScatterOptions& opts) override {
    const char* fn = "reduce_scatter_tensor";
    check_tensor(input, fn, "input");
    check_tensor(output, fn, "output");
    ReducePlan plan = reduce_plan(opts.reduceOp, output.dtype(), fn);
    EMBER_CHECK_TYPE(input.dtype() == output.dtype(), "[{}] input: expected dtype {} (like the output), got {}", fn,
                     output.dtype(), input.dtype());
    EMBER_CHECK(input.numel() == output.numel() * size_,
                "[{}] input: expected {} elements (the group size {} times the output's {}), got {}", fn,
                output.numel() * size_, size_, output.numel(), input.numel());
    count_of(input.numel(), fn, "input");
    int count = static_cast<int>(output.numel());
    Tensor in = input, out = output;
    return enqueue(OpType::_REDUCE_SCATTER_BASE, opts.timeout, {out}, [=, this] {
      Tensor src = stage_in(in, plan.compute);
      return start_reduce_scatter(fn, src, out, plan, count);
    });
  }

  std::shared_ptr<Work> alltoall_base(Tensor& output, Tensor& input, std::vector<int64_t>& outputSplitSizes,
                                      std::vector<int64_t>& inputSplitSizes,
                                      const c10d::AllToAllOptions& opts) override {
    const char* fn = "all_to_all_single";
    check_tensor(input, fn, "input");
    check_tensor(output, fn, "output");
    MPI_Datatype type = mpi_type(input);
    EMBER_CHECK_TYPE(output.dtype() == input.dtype(), "[{}] output: expected dtype {} (like the input), got {}", fn,
                     input.dtype(), output.dtype());
    auto counts_in = split_counts(input, inputSplitSizes, fn, "input", "input_split_sizes");
    auto counts_out = split_counts(output, outputSplitSizes, fn, "output", "output_split_sizes");
    Tensor in = input, out = output;
    return enqueue(OpType::ALLTOALL_BASE, opts.timeout, {out}, [=, this] {
      Tensor src = stage_in(in, in.dtype());
      Tensor dst = stage_out(out, out.dtype());
      return start_alltoallv(fn, src, dst, type, counts_in, counts_out,
                             [out, dst](const MPI_Status&, BackendWork&) { write_back(out, dst); });
    });
  }

  std::shared_ptr<Work> alltoall(std::vector<Tensor>& outputTensors, std::vector<Tensor>& inputTensors,
                                 const c10d::AllToAllOptions& opts) override {
    const char* fn = "all_to_all";
    check_list_size(fn, "input_tensor_list", inputTensors.size(), size_);
    check_list_size(fn, "output_tensor_list", outputTensors.size(), size_);
    check_tensor(inputTensors[0], fn, "input_tensor_list[0]");
    MPI_Datatype type = mpi_type(inputTensors[0]);
    const ScalarType dtype = inputTensors[0].dtype();
    std::vector<int> counts_in(size_), counts_out(size_);
    int64_t total_in = 0, total_out = 0;
    for (int i = 0; i < size_; ++i) {
      for (auto [list, name] :
           {std::pair{&inputTensors, "input_tensor_list"}, {&outputTensors, "output_tensor_list"}}) {
        const Tensor& t = (*list)[i];
        check_tensor(t, fn, fmt::format("{}[{}]", name, i));
        EMBER_CHECK_TYPE(t.dtype() == dtype, "[{}] {}[{}]: expected dtype {} (like input_tensor_list[0]), got {}", fn,
                         name, i, dtype, t.dtype());
      }
      total_in += inputTensors[i].numel();
      total_out += outputTensors[i].numel();
      counts_in[i] = static_cast<int>(inputTensors[i].numel());
      counts_out[i] = static_cast<int>(outputTensors[i].numel());
    }
    count_of(total_in, fn, "input_tensor_list");
    count_of(total_out, fn, "output_tensor_list");
    std::vector<Tensor> ins = inputTensors, outs = outputTensors;
    return enqueue(OpType::ALLTOALL, opts.timeout, outs, [=, this] {
      Tensor src = pack(ins, dtype);
      Tensor dst = empty({total_out}, TensorOptions().dtype(dtype));
      return start_alltoallv(fn, src, dst, type, counts_in, counts_out,
                             [outs, dst](const MPI_Status&, BackendWork&) { unpack(dst, outs); });
    });
  }

  std::shared_ptr<Work> barrier(const c10d::BarrierOptions& opts) override {
    return enqueue(OpType::BARRIER, opts.timeout, {}, [this] {
      Pending p;
      locked("barrier", "MPI_Ibarrier", [&] { return MPI_Ibarrier(comm_, &p.request); });
      return p;
    });
  }

  std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) override {
    const char* fn = "send";
    Tensor t = single(tensors, fn, "tensors");
    MPI_Datatype type = mpi_type(t);
    check_peer(dstRank, fn, "dst");
    check_tag(tag, fn);
    int count = count_of(t.numel(), fn, "tensors[0]");
    return enqueue(
        OpType::SEND, c10d::kUnsetTimeout, {},
        [=, this] {
          Tensor buf = stage_in(t, t.dtype());
          Pending p;
          locked(fn, "MPI_Isend",
                 [&] { return MPI_Isend(buf.data_ptr(), count, type, dstRank, tag, comm_, &p.request); });
          p.done = [buf](const MPI_Status&, BackendWork&) {};
          return p;
        },
        true, dstRank);
  }

  std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) override {
    check_peer(srcRank, "recv", "src");
    return start_recv(tensors, srcRank, tag, OpType::RECV);
  }

  std::shared_ptr<Work> recvAnysource(std::vector<Tensor>& tensors, int tag) override {
    return start_recv(tensors, MPI_ANY_SOURCE, tag, OpType::RECVANYSOURCE);
  }

 private:
  bool broken() {
    std::lock_guard<std::mutex> lock(mu_);
    return broken_ != nullptr;
  }

  void check_peer(int peer, const char* fn, const char* arg) {
    EMBER_CHECK(peer >= 0 && peer < size_, "[{}] {}: expected a rank in [0, {}) of group '{}', got {}", fn, arg, size_,
                groupName_, peer);
  }

  void check_tag(int tag, const char* fn) {
    const int max_tag = mpi_state().tag_ub;
    EMBER_CHECK(tag >= 0 && tag <= max_tag, "[{}] tag: expected 0 <= tag <= {} (MPI_TAG_UB), got {}", fn, max_tag, tag);
  }

  std::shared_ptr<Work> start_recv(std::vector<Tensor>& tensors, int src, int tag, OpType op) {
    const char* fn = "recv";
    Tensor t = single(tensors, fn, "tensors");
    MPI_Datatype type = mpi_type(t);
    check_tag(tag, fn);
    int count = count_of(t.numel(), fn, "tensors[0]");
    return enqueue(
        op, c10d::kUnsetTimeout, {t},
        [=, this] {
          Tensor buf = stage_out(t, t.dtype());
          Pending p;
          locked(fn, "MPI_Irecv", [&] { return MPI_Irecv(buf.data_ptr(), count, type, src, tag, comm_, &p.request); });
          p.done = [t, buf, count, type, fn](const MPI_Status& st, BackendWork& w) {
            int got = 0;
            MPI_Get_count(&st, type, &got);
            if (got != count)
              throw DistBackendError(
                  fmt::format("[{}] tensors[0]: expected {} elements from rank {}, the message had {}", fn, count,
                              st.MPI_SOURCE, got));
            w.set_source_rank(st.MPI_SOURCE);
            write_back(t, buf);
          };
          return p;
        },
        true, src == MPI_ANY_SOURCE ? -1 : src);
  }

  Pending start_reduce_scatter(const char* fn, const Tensor& src, const Tensor& out, const ReducePlan& plan,
                               int count) {
    Tensor dst = stage_out(out, plan.compute);
    auto counts = std::make_shared<std::vector<int>>(size_, count);  // must outlive the call
    Pending p;
    locked(fn, "MPI_Ireduce_scatter", [&] {
      return MPI_Ireduce_scatter(src.data_ptr(), dst.data_ptr(), counts->data(), plan.type, plan.op, comm_, &p.request);
    });
    p.done = [src, dst, out, counts, plan, n = size_](const MPI_Status&, BackendWork&) {
      if (plan.average) dst.div_(n);
      write_back(out, dst);
    };
    return p;
  }

  // Element counts per rank of `t` split along dim 0 by `splits` (equal parts when empty).
  std::vector<int> split_counts(const Tensor& t, const std::vector<int64_t>& splits, const char* fn, const char* arg,
                                const char* splits_arg) {
    EMBER_CHECK(t.dim() >= 1, "[{}] {}: expected at least one dimension to split, got a 0-d tensor", fn, arg);
    const int64_t rows = t.size(0);
    const int64_t row = rows == 0 ? 0 : t.numel() / rows;
    count_of(t.numel(), fn, arg);
    std::vector<int> counts(size_);
    if (splits.empty()) {
      EMBER_CHECK(rows % size_ == 0, "[{}] {}: dim 0 ({}) does not divide equally across the group size {}", fn, arg,
                  rows, size_);
      for (auto& c : counts) c = static_cast<int>(rows / size_ * row);
      return counts;
    }
    EMBER_CHECK(static_cast<int>(splits.size()) == size_, "[{}] {}: expected {} split sizes (the group size), got {}",
                fn, splits_arg, size_, splits.size());
    int64_t sum = 0;
    for (size_t i = 0; i < splits.size(); ++i) {
      EMBER_CHECK(splits[i] >= 0, "[{}] {}[{}]: expected a size >= 0, got {}", fn, splits_arg, i, splits[i]);
      sum += splits[i];
      counts[i] = static_cast<int>(splits[i] * row);
    }
    EMBER_CHECK(sum == rows, "[{}] {}: the split sizes add up to {}, but {}'s dim 0 is {}", fn, splits_arg, sum, arg,
                rows);
    return counts;
  }

  Pending start_alltoallv(const char* fn, const Tensor& src, const Tensor& dst, MPI_Datatype type,
                          const std::vector<int>& counts_in, const std::vector<int>& counts_out,
                          std::function<void(const MPI_Status&, BackendWork&)> done) {
    // The count and displacement arrays must outlive the nonblocking call.
    auto arrays = std::make_shared<std::vector<int>>();
    arrays->reserve(4 * size_);
    auto displs = [](const std::vector<int>& c) {
      std::vector<int> d(c.size(), 0);
      for (size_t i = 1; i < c.size(); ++i) d[i] = d[i - 1] + c[i - 1];
      return d;
    };
    auto di = displs(counts_in), dout = displs(counts_out);
    arrays->insert(arrays->end(), counts_in.begin(), counts_in.end());
    arrays->insert(arrays->end(), di.begin(), di.end());
    arrays->insert(arrays->end(), counts_out.begin(), counts_out.end());
    arrays->insert(arrays->end(), dout.begin(), dout.end());
    int* a = arrays->data();
    Pending p;
    locked(fn, "MPI_Ialltoallv", [&] {
      return MPI_Ialltoallv(src.data_ptr(), a, a + size_, type, dst.data_ptr(), a + 2 * size_, a + 3 * size_, type,
                            comm_, &p.request);
    });
    p.done = [src, dst, arrays, done = std::move(done)](const MPI_Status& st, BackendWork& w) { done(st, w); };
    return p;
  }

  std::shared_ptr<Work> enqueue(OpType op, milliseconds timeout, std::vector<Tensor> outputs,
                                std::function<Pending()> start, bool p2p = false, int peer = -1) {
    const milliseconds t = timeout == c10d::kUnsetTimeout || timeout.count() <= 0 ? timeout_ : timeout;
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_) std::rethrow_exception(unusable_error(op));
    Entry e;
    e.work = std::make_shared<BackendWork>(rank_, op, std::move(outputs));
    e.info.op = c10d::op_type_name(op);
    e.info.seq = p2p ? 0 : ++seq_;
    e.info.collective = !p2p;
    e.info.peer = peer;
    e.info.group = groupName_;
    e.info.rank = rank_;
    e.info.size = size_;
    e.info.backend = "mpi";
    e.info.global_ranks = globalRanks_;
    e.start = std::move(start);
    e.p2p = p2p;
    e.timeout = t;
    e.deadline = Clock::now() + t;
    auto work = e.work;
    queue_.push_back(std::move(e));
    cv_.notify_all();
    return work;
  }

  // The error of an operation issued after the group broke.
  std::exception_ptr unusable_error(OpType op) {
    std::string why;
    try {
      std::rethrow_exception(broken_);
    } catch (const std::exception& e) {
      why = e.what();
    }
    return std::make_exception_ptr(
        DistBackendError(fmt::format("[{}] MPI backend: group '{}' is unusable after an earlier operation failed: {}",
                                     c10d::op_type_name(op), groupName_, why)));
  }

  // The DistBackendError of a failed operation, with the store's diagnosis when there is a store.
  std::exception_ptr failure(const Entry& e, const std::string& cause) {
    if (monitor_ && e.info.collective) monitor_->failed(e.info.seq, e.info.op);
    std::string diagnosis =
        monitor_ ? monitor_->diagnose(e.info)
                 : "the group has no store to ask which ranks stopped answering (mpirun starts it without one), "
                   "so a peer may be dead, hung, or in another operation";
    return std::make_exception_ptr(failure_error(e.info, diagnosis, cause));
  }

  // Marks the group broken by `error` and fails every other operation with it.
  void break_group(std::exception_ptr error, std::deque<Entry>& active) {
    std::deque<Entry> queued;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!broken_) broken_ = error;
      queued.swap(queue_);
    }
    mpi_state().broken = true;
    for (auto* list : {&active, &queued})
      for (auto& e : *list) e.work->complete(unusable_error(e.work->retrieveOpType()));
    active.clear();
  }

  // Note [MPI worker]: starts operations in call order, polls them, enforces deadlines.
  void run() {
    std::deque<Entry> active;  // started: sends and receives, then at most one collective (last)
    int idle_polls = 0;
    for (;;) {
      bool collective_active = !active.empty() && !active.back().p2p;
      std::deque<Entry> to_start;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (active.empty()) cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_ && queue_.empty() && active.empty()) return;
        // Start queued operations up to and including the next collective.
        while (!collective_active && !queue_.empty()) {
          collective_active = !queue_.front().p2p;
          to_start.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      for (auto& e : to_start) {
        try {
          NoGradGuard no_grad;
          if (monitor_ && !e.p2p) monitor_->enter(e.info.seq, e.info.op);
          e.pending = e.start();
          e.start = nullptr;
          active.push_back(std::move(e));
        } catch (const ember::Error&) {
          // Staging failed before anything reached MPI: this operation alone fails.
          if (monitor_ && !e.p2p) monitor_->leave(e.info.seq, e.info.op);
          e.work->complete(std::current_exception());
        } catch (const std::exception& ex) {
          auto err = failure(e, ex.what());
          e.work->complete(err);
          if (!e.p2p) {  // the peers may have started it: the communicator's state is unknown
            break_group(err, active);
            return;
          }
        }
      }
      bool progressed = false;
      for (auto it = active.begin(); it != active.end();) {
        int flag = 0;
        MPI_Status status{};
        int rc;
        {
          std::lock_guard<std::mutex> lock(mpi_state().call_mu);
          rc = MPI_Test(&it->pending.request, &flag, &status);
        }
        if (rc != MPI_SUCCESS) {
          Entry e = std::move(*it);
          it = active.erase(it);
          auto err = failure(e, fmt::format("MPI_Test failed: {}", mpi_error_text(rc)));
          e.work->complete(err);
          if (!e.p2p) {
            break_group(err, active);
            return;
          }
          progressed = true;
          continue;
        }
        if (flag) {
          Entry e = std::move(*it);
          it = active.erase(it);
          progressed = true;
          if (monitor_ && !e.p2p) monitor_->leave(e.info.seq, e.info.op);
          try {
            NoGradGuard no_grad;
            if (e.pending.done) e.pending.done(status, *e.work);
            e.work->complete();
          } catch (...) {
            e.work->complete(std::current_exception());
          }
          continue;
        }
        if (Clock::now() > it->deadline) {
          Entry e = std::move(*it);
          active.erase(it);
          auto err = failure(e, fmt::format("did not complete within {} ms; MPI cannot cancel it, so the group is now "
                                            "unusable (later operations fail at once, and the process calls "
                                            "MPI_Abort at exit)",
                                            e.timeout.count()));
          e.work->complete(err);
          break_group(err, active);
          return;
        }
        ++it;
      }
      if (progressed) {
        idle_polls = 0;
      } else if (!active.empty()) {
        // Spin briefly (each round of a collective needs a test), then back off to 1 ms.
        if (++idle_polls < 200) {
          std::this_thread::yield();
        } else {
          const bool busy = !active.back().p2p;  // a collective holds up the queue
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait_for(lock, std::chrono::microseconds(std::min(1000, 10 * (idle_polls - 199))),
                       [&] { return !queue_.empty() && !busy; });
        }
      }
    }
  }

  MPI_Comm comm_;
  milliseconds timeout_;
  std::shared_ptr<c10d::Store> store_;
  std::unique_ptr<HealthMonitor> monitor_;  // with a store only (Note [Health monitor])
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> queue_;
  bool stop_ = false;
  std::exception_ptr broken_;
  uint64_t seq_ = 0;  // collectives issued (sends and receives are not counted)
  std::thread worker_;
};

void exit_handler() {
  auto& s = mpi_state();
  std::vector<ProcessGroupMPI*> groups;
  {
    std::lock_guard<std::mutex> lock(s.groups_mu);
    if (s.exit_handler_done) return;
    s.exit_handler_done = true;
    groups.assign(s.groups.begin(), s.groups.end());
  }
  for (auto* g : groups) g->shutdown();
  std::lock_guard<std::mutex> lock(s.call_mu);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (s.broken) {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (s.initialized_here) MPI_Finalize();
}

}  // namespace

std::shared_ptr<c10d::ProcessGroup> make_mpi_process_group(const c10d::BackendArgs& args) {
  const char* fn = args.global_ranks.empty() ? "init_process_group" : "new_group";
  ensure_mpi_initialized();
  auto& s = mpi_state();
  int wrank = 0, wsize = 0;
  {
    std::lock_guard<std::mutex> lock(s.call_mu);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  }
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = wrank, size = wsize;
  if (args.global_ranks.empty()) {
    EMBER_CHECK(args.size < 0 || args.size == wsize,
                "[{}] world_size: the MPI backend takes the world size from MPI (mpirun -np), which is {}, got {}", fn,
                wsize, args.size);
    EMBER_CHECK(args.rank < 0 || args.rank == wrank,
                "[{}] rank: the MPI backend takes the rank from MPI, which is {} in this process, got {}", fn, wrank,
                args.rank);
    std::lock_guard<std::mutex> lock(s.call_mu);
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm), fn, "MPI_Comm_dup");
  } else {
    const auto& ranks = args.global_ranks;
    EMBER_CHECK(static_cast<int>(ranks.size()) == args.size && args.rank >= 0 && args.rank < args.size,
                "[{}] ranks: expected {} ranks including this process's group rank {}, got {}", fn, args.size,
                args.rank, ranks.size());
    for (int r : ranks)
      EMBER_CHECK(r >= 0 && r < wsize, "[{}] ranks: expected world ranks in [0, {}) (MPI's world size), got {}", fn,
                  wsize, r);
    EMBER_CHECK(ranks[args.rank] == wrank,
                "[{}] ranks: group rank {} is world rank {}, but this process is MPI rank {}", fn, args.rank,
                ranks[args.rank], wrank);
    std::lock_guard<std::mutex> lock(s.call_mu);
    MPI_Group world_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    check_mpi(MPI_Comm_group(MPI_COMM_WORLD, &world_group), fn, "MPI_Comm_group");
    int rc = MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
    MPI_Group_free(&world_group);
    check_mpi(rc, fn, "MPI_Group_incl");
    // The tag tells apart creations in flight at once; every member creates groups in the same order.
    const int tag = static_cast<int>(std::hash<std::string>{}(args.group_name) % 32768);
    rc = MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &comm);
    MPI_Group_free(&group);
    check_mpi(rc, fn, "MPI_Comm_create_group");
    rank = args.rank;
    size = args.size;
  }
  {
    std::lock_guard<std::mutex> lock(s.call_mu);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  }
  return std::make_shared<ProcessGroupMPI>(comm, rank, size, args.timeout, args.store);
}

}  // namespace ember::dist
