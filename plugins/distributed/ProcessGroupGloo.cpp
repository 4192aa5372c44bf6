// The Gloo backend (LibTorch's ProcessGroupGloo) on Debian's libgloo: a full mesh of TCP pairs
// set up through the group's store; collectives run in call order on one worker thread and
// finish their Work from there; point-to-point operations are posted at once from the caller
// (so isend/irecv pairs cannot deadlock) and completed by a second thread. Failures are explained
// by the health monitor (Common.h, Note [Health monitor]).
#include <arpa/inet.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <cstdlib>
#include <cstring>
#include <map>

#include "Backends.h"
#include "Common.h"
#include "GlooStore.h"
#include "ember/core/LocalState.h"

namespace ember::dist {

namespace {

using c10d::OpType;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string numeric_host(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {};
  const void* addr = sa->sa_family == AF_INET
                         ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(sa)->sin_addr)
                         : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  if (!inet_ntop(sa->sa_family, addr, buf, sizeof buf)) return {};
  return buf;
}

// The local address from which `host` is reached: connect() a UDP socket (sends nothing) and
// read its name.
std::string address_towards(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), "9", &hints, &res) != 0) return {};
  std::string out;
  for (addrinfo* a = res; a && out.empty(); a = a->ai_next) {
    int fd = socket(a->ai_family, SOCK_DGRAM, 0);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 && getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0)
      out = numeric_host(reinterpret_cast<sockaddr*>(&local));
    close(fd);
  }
  freeaddrinfo(res);
  return out;
}

// The hostname's address when this machine can bind it.
std::string hostname_address() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(name, nullptr, &hints, &res) != 0) return {};
  std::string out;
  for (addrinfo* a = res; a && out.empty(); a = a->ai_next) {
    int fd = socket(a->ai_family, SOCK_STREAM, 0);
    if (fd < 0) continue;
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0) out = numeric_host(a->ai_addr);
    close(fd);
  }
  freeaddrinfo(res);
  return out;
}

// PyTorch's choice of the address peers connect to: GLOO_SOCKET_IFNAME's interface, else the
// address routing to MASTER_ADDR, else the hostname's, else loopback.
std::shared_ptr<gloo::transport::Device> make_device() {
  gloo::transport::tcp::attr attr;
  std::string why;
  if (const char* ifn = std::getenv("GLOO_SOCKET_IFNAME"); ifn && *ifn) {
    std::string name = ifn;
    attr.iface = name.substr(0, name.find(','));  // PyTorch accepts a list; one device here
    why = fmt::format("interface '{}' (GLOO_SOCKET_IFNAME)", attr.iface);
  } else {
    std::string host;
    if (const char* m = std::getenv("MASTER_ADDR"); m && *m) host = address_towards(m);
    if (host.empty()) host = hostname_address();
    if (host.empty()) host = "127.0.0.1";
    attr.hostname = host;
    why = fmt::format("address {}", host);
  }
  try {
    return gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throw c10d::DistNetworkError(
        fmt::format("[init_process_group] gloo: cannot create a TCP device on {}: {}", why, e.what()));
  }
}

// gloo writes to its sockets with writev(), so a peer that died would kill this process with
// SIGPIPE instead of failing the operation. Ignore SIGPIPE unless the program chose a handler
// (Python, hence PyTorch, runs with it ignored).
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
  });
}

milliseconds effective(milliseconds op, milliseconds group) { return op.count() > 0 ? op : group; }

// gloo's typed setters for an element size (the data is moved as raw elements of that size).
template <class F>
void with_element(size_t esz, F&& f) {
  switch (esz) {
    case 1:
      f(uint8_t{});
      return;
    case 2:
      f(uint16_t{});
      return;
    case 4:
      f(uint32_t{});
      return;
    case 8:
      f(uint64_t{});
      return;
    default:
      throw ValueError(fmt::format("[gloo] element size {} is not supported", esz));
  }
}

template <class T>
T* typed(void* p) {
  return static_cast<T*>(p);
}

}  // namespace

class ProcessGroupGloo final : public c10d::ProcessGroup {
 public:
  explicit ProcessGroupGloo(const c10d::BackendArgs& args);
  ~ProcessGroupGloo() override;

  const std::string getBackendName() const override { return "gloo"; }
  milliseconds getTimeout() const override { return timeout_; }

  std::shared_ptr<c10d::Work> broadcast(std::vector<Tensor>& tensors, const c10d::BroadcastOptions& opts) override;
  std::shared_ptr<c10d::Work> allreduce(std::vector<Tensor>& tensors, const c10d::AllreduceOptions& opts) override;
  std::shared_ptr<c10d::Work> allreduce_coalesced(std::vector<Tensor>& tensors,
                                                  const c10d::AllreduceOptions& opts) override;
  std::shared_ptr<c10d::Work> reduce(std::vector<Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  std::shared_ptr<c10d::Work> allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                        std::vector<Tensor>& inputTensors, const c10d::AllgatherOptions& opts) override;
  std::shared_ptr<c10d::Work> _allgather_base(Tensor& output, Tensor& input,
                                              const c10d::AllgatherOptions& opts) override;
  std::shared_ptr<c10d::Work> gather(std::vector<std::vector<Tensor>>& outputTensors, std::vector<Tensor>& inputTensors,
                                     const c10d::GatherOptions& opts) override;
  std::shared_ptr<c10d::Work> scatter(std::vector<Tensor>& outputTensors,
                                      std::vector<std::vector<Tensor>>& inputTensors,
                                      const c10d::ScatterOptions& opts) override;
  std::shared_ptr<c10d::Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                             std::vector<std::vector<Tensor>>& inputTensors,
                                             const c10d::ReduceScatterOptions& opts) override;
  std::shared_ptr<c10d::Work> _reduce_scatter_base(Tensor& output, Tensor& input,
                                                   const c10d::ReduceScatterOptions& opts) override;
  std::shared_ptr<c10d::Work> alltoall_base(Tensor& output, Tensor& input, std::vector<int64_t>& outputSplitSizes,
                                            std::vector<int64_t>& inputSplitSizes,
                                            const c10d::AllToAllOptions& opts) override;
  std::shared_ptr<c10d::Work> alltoall(std::vector<Tensor>& outputTensors, std::vector<Tensor>& inputTensors,
                                       const c10d::AllToAllOptions& opts) override;
  std::shared_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;
  std::shared_ptr<c10d::Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) override;
  std::shared_ptr<c10d::Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) override;
  std::shared_ptr<c10d::Work> recvAnysource(std::vector<Tensor>& tensors, int tag) override;

 private:
  // The body of a collective, on the worker thread: (gloo tag, timeout).
  using Body = std::function<void(uint32_t, milliseconds)>;
  // `caller_waits` (the options' asyncOp is false): when nothing is queued, the caller's thread runs
  // the operation itself, saving two thread hand-offs (about half a millisecond on this kind of VM).
  std::shared_ptr<c10d::Work> enqueue(OpType type, std::vector<Tensor> outputs, milliseconds timeout, bool caller_waits,
                                      Body body);
  std::shared_ptr<c10d::Work> post_p2p(OpType type, Tensor& tensor, int peer, int tag);
  OpInfo info_for(OpType type, uint64_t seq) const;
  void allreduce_buffer(void* data, size_t numel, ScalarType dtype, c10d::ReduceOp op, uint32_t tag,
                        milliseconds timeout);

  std::shared_ptr<c10d::Store> store_;
  milliseconds timeout_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  std::unique_ptr<HealthMonitor> monitor_;
  std::mutex enqueue_mu_;  // sequence numbers follow queue order
  uint64_t seq_ = 0;
  std::unique_ptr<OpQueue> queue_;
  std::unique_ptr<OpQueue> p2p_queue_;
  // Posted point-to-point buffers not yet completed: destruction aborts them (an unmatched recv
  // would otherwise hold it for the whole timeout).
  std::mutex p2p_mu_;
  std::vector<std::weak_ptr<gloo::transport::UnboundBuffer>> p2p_pending_;
};

ProcessGroupGloo::ProcessGroupGloo(const c10d::BackendArgs& args)
    : c10d::ProcessGroup(args.rank, args.size), store_(args.store), timeout_(args.timeout) {
  EMBER_CHECK(store_ != nullptr, "[init_process_group] backend 'gloo': expected a store for the rendezvous");
  EMBER_CHECK(args.size >= 1 && args.rank >= 0 && args.rank < args.size,
              "[init_process_group] backend 'gloo': expected 0 <= rank < world_size, got rank {} of {}", args.rank,
              args.size);
  EMBER_CHECK(timeout_.count() > 0, "[init_process_group] backend 'gloo': expected a positive timeout, got {} ms",
              timeout_.count());
  ignore_sigpipe_once();
  auto device = make_device();
  context_ = std::make_shared<gloo::rendezvous::Context>(rank_, size_);
  context_->setTimeout(timeout_);
  GlooStore adapter(store_);
  try {
    context_->connectFullMesh(adapter, device);
  } catch (const ember::Error&) {
    throw;  // the store's own error (a peer never arrived) already says what and where
  } catch (const std::exception& e) {
    throw c10d::DistBackendError(fmt::format(
        "[init_process_group] rank {} of {} (gloo): connecting to the other ranks failed: {}", rank_, size_, e.what()));
  }
  monitor_ = std::make_unique<HealthMonitor>(store_, rank_, size_);
  queue_ = std::make_unique<OpQueue>();
  p2p_queue_ = std::make_unique<OpQueue>();
}

ProcessGroupGloo::~ProcessGroupGloo() {
  // Queued collectives finish first (each has a timeout), as LibTorch's destructor waits for them.
  queue_->stop();
  {
    std::lock_guard<std::mutex> lock(p2p_mu_);
    for (auto& weak : p2p_pending_) {
      if (auto buf = weak.lock()) {
        buf->abortWaitSend();
        buf->abortWaitRecv();
      }
    }
  }
  p2p_queue_->stop();
  monitor_->stop();
}

OpInfo ProcessGroupGloo::info_for(OpType type, uint64_t seq) const {
  OpInfo info;
  info.op = c10d::op_type_name(type);
  info.seq = seq;
  info.group = groupName_;
  info.rank = rank_;
  info.size = size_;
  info.backend = "gloo";
  info.global_ranks = globalRanks_;
  return info;
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::enqueue(OpType type, std::vector<Tensor> outputs, milliseconds timeout,
                                                      bool caller_waits, Body body) {
  auto work = std::make_shared<BackendWork>(rank_, type, std::move(outputs));
  std::lock_guard<std::mutex> lock(enqueue_mu_);
  uint64_t seq = ++seq_;
  OpInfo info = info_for(type, seq);
  auto run = [this, work, info = std::move(info), body = std::move(body), timeout] {
    monitor_->enter(info.seq, info.op);
    try {
      NoGradGuard no_grad;
      body(static_cast<uint32_t>(info.seq), timeout);
      monitor_->leave(info.seq, info.op);
      work->complete();
    } catch (const ember::Error&) {
      monitor_->leave(info.seq, info.op);
      work->complete(std::current_exception());
    } catch (const std::exception& e) {
      // gloo's IoException (a peer closed or timed out), EnforceNotMet (peers disagree on sizes).
      monitor_->failed(info.seq, info.op);
      std::string diagnosis = monitor_->diagnose(info);
      work->complete(std::make_exception_ptr(failure_error(info, diagnosis, e.what())));
    }
  };
  // enqueue_mu_ is held: no other operation can be queued while this one runs inline.
  if (caller_waits && queue_->idle())
    run();
  else
    queue_->push(std::move(run));
  return work;
}

void ProcessGroupGloo::allreduce_buffer(void* data, size_t numel, ScalarType dtype, c10d::ReduceOp op, uint32_t tag,
                                        milliseconds timeout) {
  if (numel == 0) return;
  gloo::AllreduceOptions o(context_);
  with_element(element_size(dtype), [&](auto t) {
    using T = decltype(t);
    o.template setOutput<T>(typed<T>(data), numel);
  });
  o.setReduceFunction(make_reduce_fn(dtype, op));
  o.setTag(tag);
  o.setTimeout(timeout);
  gloo::allreduce(o);
  if (op == c10d::ReduceOp::AVG) divide_by(data, dtype, numel, size_);
}

// ---- broadcast, all_reduce, reduce -----------------------------------------------------------

std::shared_ptr<c10d::Work> ProcessGroupGloo::broadcast(std::vector<Tensor>& tensors,
                                                        const c10d::BroadcastOptions& opts) {
  const char* op = "broadcast";
  check_single_tensor(op, "tensors", tensors);
  check_cpu_dense(op, "tensor", tensors[0]);
  check_rank(op, "src", opts.rootRank, size_);
  EMBER_CHECK(opts.rootTensor == 0, "[broadcast] rootTensor: expected 0 (one tensor per rank), got {}",
              opts.rootTensor);
  const int root = static_cast<int>(opts.rootRank);
  auto staged = std::make_shared<Staged>(tensors[0], rank_ == root);
  return enqueue(OpType::BROADCAST, tensors, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, staged, root](uint32_t tag, milliseconds timeout) {
                   if (staged->nbytes() == 0) return;
                   gloo::BroadcastOptions o(context_);
                   o.setRoot(root);
                   // In place: the root sends its output buffer (an input of the same memory races gloo's own copy).
                   o.setOutput<uint8_t>(typed<uint8_t>(staged->data()), staged->nbytes());
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::broadcast(o);
                   staged->copy_back();
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::allreduce(std::vector<Tensor>& tensors,
                                                        const c10d::AllreduceOptions& opts) {
  const char* op = "all_reduce";
  check_single_tensor(op, "tensors", tensors);
  check_cpu_dense(op, "tensor", tensors[0]);
  check_reduce_op(op, opts.reduceOp, tensors[0].dtype());
  auto staged = std::make_shared<Staged>(tensors[0], true);
  auto reduce_op = opts.reduceOp;
  return enqueue(OpType::ALLREDUCE, tensors, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, staged, reduce_op](uint32_t tag, milliseconds timeout) {
                   allreduce_buffer(staged->data(), static_cast<size_t>(staged->buf.numel()), staged->buf.dtype(),
                                    reduce_op, tag, timeout);
                   staged->copy_back();
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::allreduce_coalesced(std::vector<Tensor>& tensors,
                                                                  const c10d::AllreduceOptions& opts) {
  const char* op = "all_reduce_coalesced";
  EMBER_CHECK(!tensors.empty(), "[all_reduce_coalesced] tensors: expected at least one tensor");
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_cpu_dense(op, fmt::format("tensors[{}]", i).c_str(), tensors[i]);
    check_reduce_op(op, opts.reduceOp, tensors[i].dtype());
  }
  // One flat buffer per dtype, in order of first appearance.
  struct Group {
    ScalarType dtype;
    std::vector<size_t> members;
  };
  auto groups = std::make_shared<std::vector<Group>>();
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto it =
        std::find_if(groups->begin(), groups->end(), [&](const Group& g) { return g.dtype == tensors[i].dtype(); });
    if (it == groups->end()) {
      groups->push_back({tensors[i].dtype(), {}});
      it = groups->end() - 1;
    }
    it->members.push_back(i);
  }
  auto staged = std::make_shared<std::vector<Staged>>();
  for (auto& t : tensors) staged->emplace_back(t, true);
  auto reduce_op = opts.reduceOp;
  return enqueue(OpType::ALLREDUCE, tensors, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, staged, groups, reduce_op](uint32_t tag, milliseconds timeout) {
                   for (const auto& g : *groups) {
                     size_t bytes = 0;
                     for (size_t i : g.members) bytes += (*staged)[i].nbytes();
                     std::vector<uint8_t> flat(bytes);
                     size_t off = 0;
                     for (size_t i : g.members) {
                       std::memcpy(flat.data() + off, (*staged)[i].data(), (*staged)[i].nbytes());
                       off += (*staged)[i].nbytes();
                     }
                     // Distinct dtypes need distinct tags: the 8 high bits count the buffers.
                     uint32_t t = tag ^ (static_cast<uint32_t>(&g - groups->data()) << 24);
                     allreduce_buffer(flat.data(), bytes / element_size(g.dtype), g.dtype, reduce_op, t, timeout);
                     off = 0;
                     for (size_t i : g.members) {
                       std::memcpy((*staged)[i].data(), flat.data() + off, (*staged)[i].nbytes());
                       off += (*staged)[i].nbytes();
                       (*staged)[i].copy_back();
                     }
                   }
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::reduce(std::vector<Tensor>& tensors, const c10d::ReduceOptions& opts) {
  const char* op = "reduce";
  check_single_tensor(op, "tensors", tensors);
  check_cpu_dense(op, "tensor", tensors[0]);
  check_rank(op, "dst", opts.rootRank, size_);
  EMBER_CHECK(opts.rootTensor == 0, "[reduce] rootTensor: expected 0 (one tensor per rank), got {}", opts.rootTensor);
  check_reduce_op(op, opts.reduceOp, tensors[0].dtype());
  const int root = static_cast<int>(opts.rootRank);
  auto staged = std::make_shared<Staged>(tensors[0], true);
  auto reduce_op = opts.reduceOp;
  return enqueue(OpType::REDUCE, tensors, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, staged, root, reduce_op](uint32_t tag, milliseconds timeout) {
                   size_t numel = static_cast<size_t>(staged->buf.numel());
                   if (numel == 0) return;
                   ScalarType dtype = staged->buf.dtype();
                   gloo::ReduceOptions o(context_);
                   // Non-roots keep their tensor: gloo writes partial results into the output.
                   Tensor scratch = rank_ == root ? Tensor() : empty_like_contiguous(staged->buf);
                   with_element(element_size(dtype), [&](auto t) {
                     using T = decltype(t);
                     if (rank_ == root) {
                       o.template setOutput<T>(typed<T>(staged->data()), numel);
                     } else {
                       o.template setInput<T>(typed<T>(staged->data()), numel);
                       o.template setOutput<T>(typed<T>(scratch.data_ptr()), numel);
                     }
                   });
                   o.setRoot(root);
                   o.setReduceFunction(make_reduce_fn(dtype, reduce_op));
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::reduce(o);
                   if (rank_ == root) {
                     if (reduce_op == c10d::ReduceOp::AVG) divide_by(staged->data(), dtype, numel, size_);
                     staged->copy_back();
                   }
                 });
}

// ---- gathers and scatters --------------------------------------------------------------------

std::shared_ptr<c10d::Work> ProcessGroupGloo::allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                                        std::vector<Tensor>& inputTensors,
                                                        const c10d::AllgatherOptions& opts) {
  const char* op = "all_gather";
  check_single_tensor(op, "input tensors", inputTensors);
  check_cpu_dense(op, "tensor", inputTensors[0]);
  EMBER_CHECK(outputTensors.size() == 1, "[all_gather] tensor_list: expected one output list (one per device), got {}",
              outputTensors.size());
  check_list_size(op, "tensor_list", outputTensors[0].size(), size_);
  for (size_t i = 0; i < outputTensors[0].size(); ++i) {
    std::string arg = fmt::format("tensor_list[{}]", i);
    check_cpu_dense(op, arg.c_str(), outputTensors[0][i]);
    check_same_dtype_shape(op, arg.c_str(), outputTensors[0][i], inputTensors[0], "the input tensor");
  }
  auto in = std::make_shared<Staged>(inputTensors[0], true);
  auto outs = std::make_shared<std::vector<Staged>>();
  for (auto& t : outputTensors[0]) outs->emplace_back(t, false);
  return enqueue(OpType::ALLGATHER, outputTensors[0], effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, in, outs](uint32_t tag, milliseconds timeout) {
                   size_t n = in->nbytes();
                   if (n == 0) return;
                   std::vector<uint8_t> flat(n * static_cast<size_t>(size_));
                   gloo::AllgatherOptions o(context_);
                   o.setInput<uint8_t>(typed<uint8_t>(in->data()), n);
                   o.setOutput<uint8_t>(flat.data(), flat.size());
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::allgather(o);
                   for (int r = 0; r < size_; ++r) {
                     std::memcpy((*outs)[r].data(), flat.data() + n * r, n);
                     (*outs)[r].copy_back();
                   }
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::_allgather_base(Tensor& output, Tensor& input,
                                                              const c10d::AllgatherOptions& opts) {
  const char* op = "all_gather_into_tensor";
  check_cpu_dense(op, "input_tensor", input);
  check_cpu_dense(op, "output_tensor", output);
  check_same_dtype(op, "output_tensor", output, input, "input_tensor");
  EMBER_CHECK(output.numel() == input.numel() * size_,
              "[all_gather_into_tensor] output_tensor: expected {} elements (world size {} times the input's {}), got "
              "{}",
              input.numel() * size_, size_, input.numel(), output.numel());
  auto in = std::make_shared<Staged>(input, true);
  auto out = std::make_shared<Staged>(output, false);
  return enqueue(OpType::_ALLGATHER_BASE, {output}, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, in, out](uint32_t tag, milliseconds timeout) {
                   if (in->nbytes() == 0) return;
                   gloo::AllgatherOptions o(context_);
                   o.setInput<uint8_t>(typed<uint8_t>(in->data()), in->nbytes());
                   o.setOutput<uint8_t>(typed<uint8_t>(out->data()), out->nbytes());
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::allgather(o);
                   out->copy_back();
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::gather(std::vector<std::vector<Tensor>>& outputTensors,
                                                     std::vector<Tensor>& inputTensors,
                                                     const c10d::GatherOptions& opts) {
  const char* op = "gather";
  check_single_tensor(op, "input tensors", inputTensors);
  check_cpu_dense(op, "tensor", inputTensors[0]);
  check_rank(op, "dst", opts.rootRank, size_);
  const int root = static_cast<int>(opts.rootRank);
  auto outs = std::make_shared<std::vector<Staged>>();
  std::vector<Tensor> results;
  if (rank_ == root) {
    EMBER_CHECK(outputTensors.size() == 1,
                "[gather] gather_list: expected one output list on the destination rank, got {}", outputTensors.size());
    check_list_size(op, "gather_list", outputTensors[0].size(), size_);
    for (size_t i = 0; i < outputTensors[0].size(); ++i) {
      std::string arg = fmt::format("gather_list[{}]", i);
      check_cpu_dense(op, arg.c_str(), outputTensors[0][i]);
      check_same_dtype_shape(op, arg.c_str(), outputTensors[0][i], inputTensors[0], "the input tensor");
    }
    for (auto& t : outputTensors[0]) outs->emplace_back(t, false);
    results = outputTensors[0];
  } else {
    EMBER_CHECK(outputTensors.empty() || (outputTensors.size() == 1 && outputTensors[0].empty()),
                "[gather] gather_list: expected no output list on a rank other than the destination ({})", root);
  }
  auto in = std::make_shared<Staged>(inputTensors[0], true);
  return enqueue(OpType::GATHER, results, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, in, outs, root](uint32_t tag, milliseconds timeout) {
                   size_t n = in->nbytes();
                   if (n == 0) return;
                   std::vector<uint8_t> flat(rank_ == root ? n * static_cast<size_t>(size_) : 0);
                   gloo::GatherOptions o(context_);
                   o.setRoot(root);
                   o.setInput<uint8_t>(typed<uint8_t>(in->data()), n);
                   if (rank_ == root) o.setOutput<uint8_t>(flat.data(), flat.size());
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::gather(o);
                   if (rank_ == root) {
                     for (int r = 0; r < size_; ++r) {
                       std::memcpy((*outs)[r].data(), flat.data() + n * r, n);
                       (*outs)[r].copy_back();
                     }
                   }
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::scatter(std::vector<Tensor>& outputTensors,
                                                      std::vector<std::vector<Tensor>>& inputTensors,
                                                      const c10d::ScatterOptions& opts) {
  const char* op = "scatter";
  check_single_tensor(op, "output tensors", outputTensors);
  check_cpu_dense(op, "tensor", outputTensors[0]);
  check_rank(op, "src", opts.rootRank, size_);
  const int root = static_cast<int>(opts.rootRank);
  auto ins = std::make_shared<std::vector<Staged>>();
  if (rank_ == root) {
    EMBER_CHECK(inputTensors.size() == 1, "[scatter] scatter_list: expected one input list on the source rank, got {}",
                inputTensors.size());
    check_list_size(op, "scatter_list", inputTensors[0].size(), size_);
    for (size_t i = 0; i < inputTensors[0].size(); ++i) {
      std::string arg = fmt::format("scatter_list[{}]", i);
      check_cpu_dense(op, arg.c_str(), inputTensors[0][i]);
      check_same_dtype_shape(op, arg.c_str(), inputTensors[0][i], outputTensors[0], "the output tensor");
    }
    for (auto& t : inputTensors[0]) ins->emplace_back(t, true);
  } else {
    EMBER_CHECK(inputTensors.empty() || (inputTensors.size() == 1 && inputTensors[0].empty()),
                "[scatter] scatter_list: expected no input list on a rank other than the source ({})", root);
  }
  auto out = std::make_shared<Staged>(outputTensors[0], false);
  return enqueue(OpType::SCATTER, outputTensors, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, ins, out, root](uint32_t tag, milliseconds timeout) {
                   size_t n = out->nbytes();
                   if (n == 0) return;
                   gloo::ScatterOptions o(context_);
                   o.setRoot(root);
                   if (rank_ == root) {
                     std::vector<uint8_t*> ptrs;
                     for (auto& s : *ins) ptrs.push_back(typed<uint8_t>(s.data()));
                     o.setInputs<uint8_t>(ptrs, n);
                   }
                   o.setOutput<uint8_t>(typed<uint8_t>(out->data()), n);
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::scatter(o);
                   out->copy_back();
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::reduce_scatter(std::vector<Tensor>& outputTensors,
                                                             std::vector<std::vector<Tensor>>& inputTensors,
                                                             const c10d::ReduceScatterOptions& opts) {
  const char* op = "reduce_scatter";
  check_single_tensor(op, "output tensors", outputTensors);
  check_cpu_dense(op, "output", outputTensors[0]);
  EMBER_CHECK(inputTensors.size() == 1, "[reduce_scatter] input_list: expected one input list (one per device), got {}",
              inputTensors.size());
  check_list_size(op, "input_list", inputTensors[0].size(), size_);
  for (size_t i = 0; i < inputTensors[0].size(); ++i) {
    std::string arg = fmt::format("input_list[{}]", i);
    check_cpu_dense(op, arg.c_str(), inputTensors[0][i]);
    check_same_dtype_shape(op, arg.c_str(), inputTensors[0][i], outputTensors[0], "the output tensor");
  }
  check_reduce_op(op, opts.reduceOp, outputTensors[0].dtype());
  auto ins = std::make_shared<std::vector<Staged>>();
  for (auto& t : inputTensors[0]) ins->emplace_back(t, true);
  auto out = std::make_shared<Staged>(outputTensors[0], false);
  auto reduce_op = opts.reduceOp;
  // gloo 0.5 has no reduce-scatter with options: all-reduce the concatenation, keep our chunk.
  return enqueue(OpType::REDUCE_SCATTER, outputTensors, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, ins, out, reduce_op](uint32_t tag, milliseconds timeout) {
                   size_t n = out->nbytes();
                   if (n == 0) return;
                   std::vector<uint8_t> flat(n * static_cast<size_t>(size_));
                   for (int r = 0; r < size_; ++r) std::memcpy(flat.data() + n * r, (*ins)[r].data(), n);
                   ScalarType dtype = out->buf.dtype();
                   allreduce_buffer(flat.data(), flat.size() / element_size(dtype), dtype, reduce_op, tag, timeout);
                   std::memcpy(out->data(), flat.data() + n * rank_, n);
                   out->copy_back();
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::_reduce_scatter_base(Tensor& output, Tensor& input,
                                                                   const c10d::ReduceScatterOptions& opts) {
  const char* op = "reduce_scatter_tensor";
  check_cpu_dense(op, "input", input);
  check_cpu_dense(op, "output", output);
  check_same_dtype(op, "output", output, input, "input");
  EMBER_CHECK(input.numel() == output.numel() * size_,
              "[reduce_scatter_tensor] input: expected {} elements (world size {} times the output's {}), got {}",
              output.numel() * size_, size_, output.numel(), input.numel());
  check_reduce_op(op, opts.reduceOp, output.dtype());
  auto in = std::make_shared<Staged>(input, true);
  auto out = std::make_shared<Staged>(output, false);
  auto reduce_op = opts.reduceOp;
  return enqueue(OpType::_REDUCE_SCATTER_BASE, {output}, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, in, out, reduce_op](uint32_t tag, milliseconds timeout) {
                   size_t n = out->nbytes();
                   if (n == 0) return;
                   // A copy: the input is not ours to overwrite.
                   std::vector<uint8_t> flat(typed<uint8_t>(in->data()), typed<uint8_t>(in->data()) + in->nbytes());
                   ScalarType dtype = out->buf.dtype();
                   allreduce_buffer(flat.data(), flat.size() / element_size(dtype), dtype, reduce_op, tag, timeout);
                   std::memcpy(out->data(), flat.data() + n * rank_, n);
                   out->copy_back();
                 });
}

// ---- all-to-all -----------------------------------------------------------------------------

namespace {

// Split sizes (rows of dim 0) for all_to_all_single: given ones are checked, empty ones are equal.
std::vector<int64_t> resolve_splits(const char* arg, const std::vector<int64_t>& splits, const Tensor& t, int size) {
  const int64_t rows = t.size(0);
  if (splits.empty()) {
    EMBER_CHECK(rows % size == 0,
                "[all_to_all_single] {}: dim 0 ({}) must be divisible by the world size ({}) when no split sizes are "
                "given",
                arg, rows, size);
    return std::vector<int64_t>(size, rows / size);
  }
  EMBER_CHECK(splits.size() == static_cast<size_t>(size),
              "[all_to_all_single] {}_split_sizes: expected {} sizes (the world size), got {}", arg, size,
              splits.size());
  int64_t sum = 0;
  for (int64_t s : splits) {
    EMBER_CHECK(s >= 0, "[all_to_all_single] {}_split_sizes: expected non-negative sizes, got [{}]", arg,
                fmt::join(splits, ", "));
    sum += s;
  }
  EMBER_CHECK(sum == rows, "[all_to_all_single] {}_split_sizes: expected sizes summing to dim 0 of {} ({}), got [{}]",
              arg, arg, rows, fmt::join(splits, ", "));
  return splits;
}

}  // namespace

std::shared_ptr<c10d::Work> ProcessGroupGloo::alltoall_base(Tensor& output, Tensor& input,
                                                            std::vector<int64_t>& outputSplitSizes,
                                                            std::vector<int64_t>& inputSplitSizes,
                                                            const c10d::AllToAllOptions& opts) {
  const char* op = "all_to_all_single";
  check_cpu_dense(op, "input", input);
  check_cpu_dense(op, "output", output);
  check_same_dtype(op, "output", output, input, "input");
  EMBER_CHECK(input.dim() >= 1 && output.dim() >= 1,
              "[all_to_all_single] input: expected tensors of at least one dimension, got {}-d input and {}-d output",
              input.dim(), output.dim());
  EMBER_CHECK(input.sizes().slice(1) == output.sizes().slice(1),
              "[all_to_all_single] output: expected the input's shape past dim 0 [{}], got [{}]",
              fmt::join(input.sizes().slice(1), ", "), fmt::join(output.sizes().slice(1), ", "));
  auto in_splits = resolve_splits("input", inputSplitSizes, input, size_);
  auto out_splits = resolve_splits("output", outputSplitSizes, output, size_);
  int64_t row = 1;
  for (int64_t d : input.sizes().slice(1)) row *= d;
  const int64_t esz = static_cast<int64_t>(input.element_size());
  std::vector<int64_t> in_bytes, out_bytes;
  for (int r = 0; r < size_; ++r) {
    in_bytes.push_back(in_splits[r] * row * esz);
    out_bytes.push_back(out_splits[r] * row * esz);
  }
  auto in = std::make_shared<Staged>(input, true);
  auto out = std::make_shared<Staged>(output, false);
  return enqueue(OpType::ALLTOALL_BASE, {output}, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, in, out, in_bytes, out_bytes](uint32_t tag, milliseconds timeout) {
                   if (in->nbytes() == 0 && out->nbytes() == 0) return;
                   gloo::AlltoallvOptions o(context_);
                   o.setInput<uint8_t>(typed<uint8_t>(in->data()), in_bytes);
                   o.setOutput<uint8_t>(typed<uint8_t>(out->data()), out_bytes);
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::alltoallv(o);
                   out->copy_back();
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::alltoall(std::vector<Tensor>& outputTensors,
                                                       std::vector<Tensor>& inputTensors,
                                                       const c10d::AllToAllOptions& opts) {
  const char* op = "all_to_all";
  check_list_size(op, "input_tensor_list", inputTensors.size(), size_);
  check_list_size(op, "output_tensor_list", outputTensors.size(), size_);
  for (int r = 0; r < size_; ++r) {
    std::string in_arg = fmt::format("input_tensor_list[{}]", r), out_arg = fmt::format("output_tensor_list[{}]", r);
    check_cpu_dense(op, in_arg.c_str(), inputTensors[r]);
    check_cpu_dense(op, out_arg.c_str(), outputTensors[r]);
    check_same_dtype(op, in_arg.c_str(), inputTensors[r], inputTensors[0], "input_tensor_list[0]");
    check_same_dtype(op, out_arg.c_str(), outputTensors[r], inputTensors[0], "input_tensor_list[0]");
  }
  auto ins = std::make_shared<std::vector<Staged>>();
  auto outs = std::make_shared<std::vector<Staged>>();
  for (auto& t : inputTensors) ins->emplace_back(t, true);
  for (auto& t : outputTensors) outs->emplace_back(t, false);
  return enqueue(OpType::ALLTOALL, outputTensors, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this, ins, outs](uint32_t tag, milliseconds timeout) {
                   std::vector<int64_t> in_bytes, out_bytes;
                   size_t in_total = 0, out_total = 0;
                   for (auto& s : *ins) in_bytes.push_back(static_cast<int64_t>(s.nbytes())), in_total += s.nbytes();
                   for (auto& s : *outs) out_bytes.push_back(static_cast<int64_t>(s.nbytes())), out_total += s.nbytes();
                   if (in_total == 0 && out_total == 0) return;
                   std::vector<uint8_t> in_flat(in_total), out_flat(out_total);
                   size_t off = 0;
                   for (auto& s : *ins) std::memcpy(in_flat.data() + off, s.data(), s.nbytes()), off += s.nbytes();
                   gloo::AlltoallvOptions o(context_);
                   o.setInput<uint8_t>(in_flat.data(), in_bytes);
                   o.setOutput<uint8_t>(out_flat.data(), out_bytes);
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::alltoallv(o);
                   off = 0;
                   for (auto& s : *outs) {
                     std::memcpy(s.data(), out_flat.data() + off, s.nbytes());
                     off += s.nbytes();
                     s.copy_back();
                   }
                 });
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::barrier(const c10d::BarrierOptions& opts) {
  // The queue is ordered, so the barrier also waits for this rank's earlier operations.
  return enqueue(OpType::BARRIER, {}, effective(opts.timeout, timeout_), !opts.asyncOp,
                 [this](uint32_t tag, milliseconds timeout) {
                   gloo::BarrierOptions o(context_);
                   o.setTag(tag);
                   o.setTimeout(timeout);
                   gloo::barrier(o);
                 });
}

// ---- point-to-point -------------------------------------------------------------------------

std::shared_ptr<c10d::Work> ProcessGroupGloo::post_p2p(OpType type, Tensor& tensor, int peer, int tag) {
  const char* op = c10d::op_type_name(type);
  EMBER_CHECK(tag >= 0, "[{}] tag: expected a non-negative tag, got {}", op, tag);
  const bool sending = type == OpType::SEND;
  auto staged = std::make_shared<Staged>(tensor, sending);
  auto work = std::make_shared<BackendWork>(rank_, type, std::vector<Tensor>{tensor});
  OpInfo info;
  info.op = op;
  info.collective = false;
  info.peer = peer;
  info.group = groupName_;
  info.rank = rank_;
  info.size = size_;
  info.backend = "gloo";
  info.global_ranks = globalRanks_;
  // Below the collectives' slots (gloo puts a non-zero prefix in the high byte), as LibTorch.
  const uint64_t slot = static_cast<uint64_t>(tag);
  std::shared_ptr<gloo::transport::UnboundBuffer> buf =
      context_->createUnboundBuffer(staged->nbytes() ? staged->data() : nullptr, staged->nbytes());
  if (sending) {
    buf->send(peer, slot);
  } else if (peer >= 0) {
    buf->recv(peer, slot);
  } else {
    std::vector<int> sources;
    for (int r = 0; r < size_; ++r)
      if (r != rank_) sources.push_back(r);
    buf->recv(sources, slot);
  }
  {
    std::lock_guard<std::mutex> lock(p2p_mu_);
    std::erase_if(p2p_pending_, [](const auto& w) { return w.expired(); });
    p2p_pending_.push_back(buf);
  }
  milliseconds timeout = timeout_;
  p2p_queue_->push([this, work, staged, buf, sending, info, timeout] {
    try {
      int from = -1;
      bool ok = sending ? buf->waitSend(&from, timeout) : buf->waitRecv(&from, timeout);
      if (!ok)
        throw c10d::DistBackendError(
            fmt::format("{}: the process group was destroyed before the operation completed", info.prefix()));
      if (!sending) {
        NoGradGuard no_grad;
        staged->copy_back();
        work->set_source_rank(from);
      }
      work->complete();
    } catch (const ember::Error&) {
      work->complete(std::current_exception());
    } catch (const std::exception& e) {
      std::string diagnosis = monitor_->diagnose(info);
      work->complete(std::make_exception_ptr(failure_error(info, diagnosis, e.what())));
    }
  });
  return work;
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::send(std::vector<Tensor>& tensors, int dstRank, int tag) {
  check_single_tensor("send", "tensors", tensors);
  check_cpu_dense("send", "tensor", tensors[0]);
  check_rank("send", "dst", dstRank, size_);
  EMBER_CHECK(dstRank != rank_, "[send] dst: expected a rank other than this one ({})", rank_);
  return post_p2p(OpType::SEND, tensors[0], dstRank, tag);
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::recv(std::vector<Tensor>& tensors, int srcRank, int tag) {
  check_single_tensor("recv", "tensors", tensors);
  check_cpu_dense("recv", "tensor", tensors[0]);
  check_rank("recv", "src", srcRank, size_);
  EMBER_CHECK(srcRank != rank_, "[recv] src: expected a rank other than this one ({})", rank_);
  return post_p2p(OpType::RECV, tensors[0], srcRank, tag);
}

std::shared_ptr<c10d::Work> ProcessGroupGloo::recvAnysource(std::vector<Tensor>& tensors, int tag) {
  check_single_tensor("recv", "tensors", tensors);
  check_cpu_dense("recv", "tensor", tensors[0]);
  EMBER_CHECK(size_ > 1, "[recv] src: a group of one rank has no other rank to receive from");
  return post_p2p(OpType::RECVANYSOURCE, tensors[0], -1, tag);
}

std::shared_ptr<c10d::ProcessGroup> make_gloo_process_group(const c10d::BackendArgs& args) {
  return std::make_shared<ProcessGroupGloo>(args);
}

}  // namespace ember::dist
