// Work, the ProcessGroup base and the backend registry (ember/distributed/ProcessGroup.h).
#include "ember/distributed/ProcessGroup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <shared_mutex>
#include <thread>

#include "ember/dispatcher/Plugins.h"

namespace ember::c10d {

const char* reduce_op_name(ReduceOp op) {
  switch (static_cast<ReduceOp::RedOpType>(op)) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
    case ReduceOp::BAND:
      return "BAND";
    case ReduceOp::BOR:
      return "BOR";
    case ReduceOp::BXOR:
      return "BXOR";
  }
  return "UNKNOWN";
}

const char* op_type_name(OpType op) {
  switch (op) {
    case OpType::BROADCAST:
      return "broadcast";
    case OpType::ALLREDUCE:
      return "all_reduce";
    case OpType::REDUCE:
      return "reduce";
    case OpType::ALLGATHER:
      return "all_gather";
    case OpType::_ALLGATHER_BASE:
      return "all_gather_into_tensor";
    case OpType::GATHER:
      return "gather";
    case OpType::SCATTER:
      return "scatter";
    case OpType::REDUCE_SCATTER:
      return "reduce_scatter";
    case OpType::_REDUCE_SCATTER_BASE:
      return "reduce_scatter_tensor";
    case OpType::ALLTOALL_BASE:
      return "all_to_all_single";
    case OpType::ALLTOALL:
      return "all_to_all";
    case OpType::SEND:
      return "send";
    case OpType::RECV:
      return "recv";
    case OpType::RECVANYSOURCE:
      return "recv (any source)";
    case OpType::BARRIER:
      return "barrier";
    case OpType::UNKNOWN:
      break;
  }
  return "unknown";
}

Work::Work(int rank, OpType opType, std::vector<Tensor> outputs)
    : rank_(rank), opType_(opType), outputs_(std::move(outputs)) {}
Work::~Work() = default;

bool Work::isCompleted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::isSuccess() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !exception_;
}

std::exception_ptr Work::exception() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return exception_;
}

std::vector<Tensor> Work::result() {
  wait();
  std::lock_guard<std::mutex> lock(mutex_);
  return outputs_;
}

namespace {
// How long wait() polls before it sleeps: EMBER_DIST_SPIN_US, default 5 ms.
std::chrono::microseconds spin_budget() {
  static const std::chrono::microseconds budget = [] {
    const char* v = std::getenv("EMBER_DIST_SPIN_US");
    return std::chrono::microseconds(v && *v ? std::max(0L, std::atol(v)) : 5000L);
  }();
  return budget;
}
}  // namespace

bool Work::wait(std::chrono::milliseconds timeout) {
  // Polls before it sleeps: Note [Waiting for a collective] (ProcessGroup.h).
  std::chrono::microseconds spin = spin_budget();
  if (timeout != kNoTimeout) spin = std::min<std::chrono::microseconds>(spin, timeout);
  for (const auto until = std::chrono::steady_clock::now() + spin; std::chrono::steady_clock::now() < until;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (completed_) break;
    }
    std::this_thread::yield();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout == kNoTimeout) {
    cv_.wait(lock, [&] { return completed_; });
  } else if (!cv_.wait_for(lock, timeout, [&] { return completed_; })) {
    throw DistBackendError(fmt::format("[Work::wait] {} on rank {} did not complete within {} ms",
                                       op_type_name(opType_), rank_, timeout.count()));
  }
  if (exception_) std::rethrow_exception(exception_);
  return true;
}

void Work::abort() {
  throw NotImplementedError(fmt::format("[Work::abort] {} cannot be aborted by this backend", op_type_name(opType_)));
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
    completed_ = true;
    exception_ = std::move(error);
  }
  cv_.notify_all();
}

std::shared_ptr<Work> Work::completed(std::vector<Tensor> outputs, std::exception_ptr error) {
  auto w = std::make_shared<Work>(-1, OpType::UNKNOWN, std::move(outputs));
  w->finish(std::move(error));
  return w;
}

ProcessGroup::~ProcessGroup() = default;

std::shared_ptr<Work> ProcessGroup::allreduce_coalesced(std::vector<Tensor>& tensors, const AllreduceOptions& opts) {
  // One flat buffer per dtype would be faster; backends with a native coalesced path override.
  std::vector<std::shared_ptr<Work>> works;
  for (auto& t : tensors) {
    std::vector<Tensor> one{t};
    works.push_back(allreduce(one, opts));
  }
  for (auto& w : works) w->wait();
  return Work::completed(tensors);
}

namespace {
struct Registry {
  std::shared_mutex mu;
  std::map<std::string, BackendFactory> factories;
};
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void register_backend(const std::string& name, BackendFactory factory) {
  EMBER_CHECK(!name.empty(), "[register_backend] name: expected a non-empty backend name");
  EMBER_CHECK(static_cast<bool>(factory), "[register_backend] factory: expected a callable for backend '{}'", name);
  auto& r = registry();
  std::unique_lock lock(r.mu);
  EMBER_CHECK(!r.factories.count(name), "[register_backend] backend '{}' is already registered", name);
  r.factories.emplace(name, std::move(factory));
}

void unregister_backend(const std::string& name) {
  auto& r = registry();
  std::unique_lock lock(r.mu);
  r.factories.erase(name);
}

bool has_backend(const std::string& name) {
  auto& r = registry();
  std::shared_lock lock(r.mu);
  return r.factories.count(name) != 0;
}

std::vector<std::string> registered_backends() {
  auto& r = registry();
  std::shared_lock lock(r.mu);
  std::vector<std::string> names;
  for (auto& [n, f] : r.factories) names.push_back(n);
  return names;
}

std::shared_ptr<ProcessGroup> create_process_group(const std::string& name, const BackendArgs& args) {
  if (!has_backend(name)) {
    std::string why;
    try {
      plugins::load("distributed");
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!has_backend(name) && name == "nccl")
      throw NotImplementedError(
          "[init_process_group] backend 'nccl' is not available: NCCL communicates CUDA tensors and comes with the "
          "CUDA backend, which this build does not have; use 'gloo' or 'mpi' for CPU tensors");
    if (!has_backend(name)) {
      std::string known = fmt::format("{}", fmt::join(registered_backends(), ", "));
      if (why.empty())
        throw NotImplementedError(fmt::format(
            "[init_process_group] backend '{}' is not available: the distributed plugin was built without it "
            "(registered backends: {})",
            name, known.empty() ? "none" : known));
      throw NotImplementedError(fmt::format(
          "[init_process_group] backend '{}' is not available: loading the distributed plugin failed: {}", name, why));
    }
  }
  BackendFactory factory;
  {
    auto& r = registry();
    std::shared_lock lock(r.mu);
    factory = r.factories.at(name);
  }
  auto pg = factory(args);
  EMBER_CHECK(pg != nullptr, "[init_process_group] backend '{}' returned no process group", name);
  pg->setGroupName(args.group_name);
  if (args.global_ranks.empty()) {
    // The backend's size: args.size is -1 when the backend takes it from its launcher (MPI).
    std::vector<int> ranks(static_cast<size_t>(pg->getSize()));
    for (int i = 0; i < pg->getSize(); ++i) ranks[i] = i;
    pg->setGlobalRanks(std::move(ranks));
  } else {
    pg->setGlobalRanks(args.global_ranks);
  }
  return pg;
}

}  // namespace ember::c10d
