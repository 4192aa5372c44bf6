// torch.distributed's functions (ember/distributed/Distributed.h): the default group and its
// store, init_process_group's rendezvous methods, new_group, and the collectives, which map
// global ranks to group ranks and hand the backend LibTorch's argument shapes.
#include "ember/distributed/Distributed.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <mutex>

#include "ember/dispatcher/Plugins.h"

namespace ember::distributed {

namespace {

struct State {
  std::mutex mu;
  ProcessGroup world;
  std::shared_ptr<Store> store;  // the rendezvous store, unprefixed
  std::string backend;
  std::chrono::milliseconds timeout = default_pg_timeout;
  int group_count = 0;               // names new groups, identically on every rank
  std::vector<ProcessGroup> groups;  // the non-default groups this rank belongs to
};
// Never destroyed: a group's threads may outlive static destruction at exit; an orderly end is
// destroy_process_group().
State& state() {
  static State* s = new State;
  return *s;
}

[[noreturn]] void throw_uninitialized(const char* fn) {
  throw ValueError(fmt::format(
      "[{}] Default process group has not been initialized, please make sure to call init_process_group.", fn));
}

int parse_int(const std::string& text, const char* what, const char* fn) {
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  EMBER_CHECK(ec == std::errc() && p == text.data() + text.size(), "[{}] {}: expected an integer, got '{}'", fn, what,
              text);
  return v;
}

std::string env_or_throw(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v)
    throw ValueError(fmt::format(
        "[init_process_group] Error initializing torch.distributed using env:// rendezvous: environment variable {} "
        "expected, but not set",
        name));
  return v;
}

// "scheme://rest?k=v&k=v": the part before '?' and the query's pairs.
std::pair<std::string, std::map<std::string, std::string>> split_query(const std::string& url) {
  std::map<std::string, std::string> q;
  auto qm = url.find('?');
  if (qm == std::string::npos) return {url, q};
  std::string rest = url.substr(qm + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    auto amp = rest.find('&', pos);
    std::string kv = rest.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    auto eq = kv.find('=');
    if (!kv.empty()) q[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return {url.substr(0, qm), q};
}

std::shared_ptr<Store> make_tcp_store(const std::string& host, int port, int rank, int world_size,
                                      std::chrono::milliseconds timeout) {
  EMBER_CHECK(port >= 0 && port <= 65535, "[init_process_group] port: expected 0..65535, got {}", port);
  c10d::TCPStoreOptions o;
  o.port = static_cast<uint16_t>(port);
  o.isServer = rank == 0;
  o.numWorkers = static_cast<size_t>(world_size);
  o.waitWorkers = true;
  o.timeout = timeout;
  return std::make_shared<c10d::TCPStore>(host, o);
}

ProcessGroup require(const ProcessGroup& group, const char* fn) {
  if (group) return group;
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.world) throw_uninitialized(fn);
  return s.world;
}

int to_group_rank(const ProcessGroup& pg, int global, const char* fn, const char* arg) {
  const auto& ranks = pg->getGlobalRanks();
  auto it = std::find(ranks.begin(), ranks.end(), global);
  EMBER_CHECK(it != ranks.end(), "[{}] {}: rank {} is not part of group '{}' (its world ranks: {})", fn, arg, global,
              pg->getGroupName(), fmt::join(ranks, ", "));
  return static_cast<int>(it - ranks.begin());
}

std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (async_op) return work;
  work->wait();
  return nullptr;
}

}  // namespace

void init_process_group(const InitProcessGroupOptions& opts) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  EMBER_CHECK(!s.world, "[init_process_group] trying to initialize the default process group twice!");
  EMBER_CHECK(!opts.backend.empty(), "[init_process_group] backend: expected a backend name (\"gloo\", \"mpi\", ...)");
  EMBER_CHECK(opts.timeout.count() > 0, "[init_process_group] timeout: expected a positive duration, got {} ms",
              opts.timeout.count());
  std::string backend = opts.backend;
  std::transform(backend.begin(), backend.end(), backend.begin(), [](unsigned char c) { return std::tolower(c); });
  int rank = opts.rank, world_size = opts.world_size;
  std::shared_ptr<Store> store = opts.store;
  if (store) {
    EMBER_CHECK(rank >= 0 && world_size > 0,
                "[init_process_group] world_size ({}) and rank ({}) must be specified if store is given", world_size,
                rank);
  } else {
    std::string method = opts.init_method.empty() ? "env://" : opts.init_method;
    bool mpi_native = backend == "mpi" && opts.init_method.empty() && !std::getenv("MASTER_ADDR");
    if (!mpi_native) {
      auto [base, query] = split_query(method);
      if (query.count("rank")) rank = parse_int(query["rank"], "rank (in init_method)", "init_process_group");
      if (query.count("world_size"))
        world_size = parse_int(query["world_size"], "world_size (in init_method)", "init_process_group");
      if (base.rfind("env://", 0) == 0) {
        if (rank < 0) rank = parse_int(env_or_throw("RANK"), "RANK", "init_process_group");
        if (world_size < 0) world_size = parse_int(env_or_throw("WORLD_SIZE"), "WORLD_SIZE", "init_process_group");
        std::string addr = env_or_throw("MASTER_ADDR");
        int port = parse_int(env_or_throw("MASTER_PORT"), "MASTER_PORT", "init_process_group");
        EMBER_CHECK(rank >= 0 && rank < world_size, "[init_process_group] rank: expected 0 <= rank < {}, got {}",
                    world_size, rank);
        store = make_tcp_store(addr, port, rank, world_size, opts.timeout);
      } else if (base.rfind("tcp://", 0) == 0) {
        std::string hp = base.substr(6);
        auto colon = hp.rfind(':');
        EMBER_CHECK(colon != std::string::npos && colon + 1 < hp.size(),
                    "[init_process_group] init_method: expected tcp://host:port, got '{}'", method);
        EMBER_CHECK(rank >= 0 && world_size > 0,
                    "[init_process_group] init_method '{}': rank and world_size must be given (as arguments or in "
                    "the query)",
                    method);
        EMBER_CHECK(rank < world_size, "[init_process_group] rank: expected 0 <= rank < {}, got {}", world_size, rank);
        std::string host = hp.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        store = make_tcp_store(host, parse_int(hp.substr(colon + 1), "port (in init_method)", "init_process_group"),
                               rank, world_size, opts.timeout);
      } else if (base.rfind("file://", 0) == 0) {
        std::string path = base.substr(7);
        EMBER_CHECK(!path.empty(), "[init_process_group] init_method: expected file:///path, got '{}'", method);
        EMBER_CHECK(rank >= 0 && world_size > 0,
                    "[init_process_group] init_method '{}': rank and world_size must be given (as arguments or in "
                    "the query)",
                    method);
        EMBER_CHECK(rank < world_size, "[init_process_group] rank: expected 0 <= rank < {}, got {}", world_size, rank);
        store = std::make_shared<c10d::FileStore>(path, world_size);
        store->setTimeout(opts.timeout);
      } else {
        throw ValueError(fmt::format(
            "[init_process_group] init_method: expected env://, tcp://host:port or file:///path, got '{}'", method));
      }
    }
  }
  c10d::BackendArgs args;
  args.store = store ? std::make_shared<c10d::PrefixStore>("default_pg", store) : nullptr;
  args.rank = rank;
  args.size = world_size;
  args.timeout = opts.timeout;
  args.group_name = opts.group_name.empty() ? "default_pg" : opts.group_name;
  auto pg = c10d::create_process_group(backend, args);
  s.world = std::move(pg);
  s.store = std::move(store);
  s.backend = backend;
  s.timeout = opts.timeout;
  s.group_count = 0;
}

void init_process_group(const std::string& backend, const std::string& init_method, int world_size, int rank,
                        std::chrono::milliseconds timeout) {
  InitProcessGroupOptions o;
  o.backend = backend;
  o.init_method = init_method;
  o.world_size = world_size;
  o.rank = rank;
  o.timeout = timeout;
  init_process_group(o);
}

bool is_initialized() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.world != nullptr;
}

void destroy_process_group(const ProcessGroup& group) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!group || group == s.world) {
    if (!s.world) throw_uninitialized("destroy_process_group");
    s.groups.clear();
    s.world.reset();
    s.store.reset();
    s.backend.clear();
    return;
  }
  auto it = std::find(s.groups.begin(), s.groups.end(), group);
  EMBER_CHECK(it != s.groups.end(), "[destroy_process_group] group: expected a live group, got group '{}'",
              group->getGroupName());
  s.groups.erase(it);
}

bool is_backend_available(const std::string& backend) {
  if (c10d::has_backend(backend)) return true;
  try {
    plugins::load("distributed");
  } catch (const std::exception&) {
    return false;
  }
  return c10d::has_backend(backend);
}
bool is_available() { return true; }
bool is_gloo_available() { return is_backend_available("gloo"); }
bool is_mpi_available() { return is_backend_available("mpi"); }
bool is_nccl_available() { return is_backend_available("nccl"); }
bool is_torchelastic_launched() { return std::getenv("TORCHELASTIC_RUN_ID") != nullptr; }

int get_rank(const ProcessGroup& group) { return require(group, "get_rank")->getRank(); }
int get_world_size(const ProcessGroup& group) { return require(group, "get_world_size")->getSize(); }
std::string get_backend(const ProcessGroup& group) { return require(group, "get_backend")->getBackendName(); }

int get_global_rank(const ProcessGroup& group, int group_rank) {
  auto pg = require(group, "get_global_rank");
  const auto& ranks = pg->getGlobalRanks();
  EMBER_CHECK_INDEX(group_rank >= 0 && group_rank < static_cast<int>(ranks.size()),
                    "[get_global_rank] group_rank: expected 0 <= group_rank < {}, got {}", ranks.size(), group_rank);
  return ranks[group_rank];
}

int get_group_rank(const ProcessGroup& group, int global_rank) {
  return to_group_rank(require(group, "get_group_rank"), global_rank, "get_group_rank", "global_rank");
}

ProcessGroup resolve_group(const ProcessGroup& group) { return require(group, "resolve_group"); }

std::shared_ptr<Store> get_default_store() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.world) throw_uninitialized("get_default_store");
  return s.store;
}

ProcessGroup new_group(const std::vector<int>& ranks_in, std::optional<std::chrono::milliseconds> timeout,
                       const std::string& backend_in) {
  auto& s = state();
  std::unique_lock<std::mutex> lock(s.mu);
  if (!s.world) throw_uninitialized("new_group");
  const int world = s.world->getSize(), me = s.world->getRank();
  std::vector<int> ranks = ranks_in;
  if (ranks.empty())
    for (int r = 0; r < world; ++r) ranks.push_back(r);
  std::sort(ranks.begin(), ranks.end());
  for (size_t i = 0; i < ranks.size(); ++i) {
    EMBER_CHECK(ranks[i] >= 0 && ranks[i] < world, "[new_group] ranks: expected ranks in [0, {}), got {}", world,
                ranks[i]);
    EMBER_CHECK(i == 0 || ranks[i] != ranks[i - 1], "[new_group] ranks: rank {} is listed twice", ranks[i]);
  }
  std::string name = std::to_string(++s.group_count);
  auto it = std::find(ranks.begin(), ranks.end(), me);
  if (it == ranks.end()) return nullptr;
  c10d::BackendArgs args;
  args.store = s.store ? std::make_shared<c10d::PrefixStore>(name, s.store) : nullptr;
  args.rank = static_cast<int>(it - ranks.begin());
  args.size = static_cast<int>(ranks.size());
  args.timeout = timeout.value_or(s.timeout);
  args.group_name = name;
  args.global_ranks = ranks;
  std::string backend = backend_in.empty() ? s.backend : backend_in;
  lock.unlock();  // creating a group waits for its peers
  auto pg = c10d::create_process_group(backend, args);
  lock.lock();
  s.groups.push_back(pg);
  return pg;
}

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "broadcast");
  c10d::BroadcastOptions o;
  o.rootRank = to_group_rank(pg, src, "broadcast", "src");
  o.asyncOp = async_op;
  std::vector<Tensor> v{tensor};
  return finish(pg->broadcast(v, o), async_op);
}

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "all_reduce");
  c10d::AllreduceOptions o;
  o.reduceOp = op;
  o.asyncOp = async_op;
  std::vector<Tensor> v{tensor};
  return finish(pg->allreduce(v, o), async_op);
}

std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op, const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "reduce");
  c10d::ReduceOptions o;
  o.reduceOp = op;
  o.rootRank = to_group_rank(pg, dst, "reduce", "dst");
  o.asyncOp = async_op;
  std::vector<Tensor> v{tensor};
  return finish(pg->reduce(v, o), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor, const ProcessGroup& group,
                                 bool async_op) {
  auto pg = require(group, "all_gather");
  std::vector<std::vector<Tensor>> out{tensor_list};
  std::vector<Tensor> in{tensor};
  c10d::AllgatherOptions o;
  o.asyncOp = async_op;
  return finish(pg->allgather(out, in, o), async_op);
}

std::shared_ptr<Work> all_gather_into_tensor(Tensor& output_tensor, const Tensor& input_tensor,
                                             const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "all_gather_into_tensor");
  Tensor in = input_tensor;
  c10d::AllgatherOptions o;
  o.asyncOp = async_op;
  return finish(pg->_allgather_base(output_tensor, in, o), async_op);
}

std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>* gather_list, int dst, const ProcessGroup& group,
                             bool async_op) {
  auto pg = require(group, "gather");
  c10d::GatherOptions o;
  o.rootRank = to_group_rank(pg, dst, "gather", "dst");
  o.asyncOp = async_op;
  std::vector<std::vector<Tensor>> out;
  if (pg->getRank() == o.rootRank) {
    EMBER_CHECK(gather_list != nullptr, "[gather] gather_list: expected a list of {} tensors on the destination rank",
                pg->getSize());
    out.push_back(*gather_list);
  } else {
    EMBER_CHECK(gather_list == nullptr || gather_list->empty(),
                "[gather] gather_list: expected no list on a rank other than the destination ({})", dst);
  }
  std::vector<Tensor> in{tensor};
  return finish(pg->gather(out, in, o), async_op);
}

std::shared_ptr<Work> scatter(Tensor& tensor, const std::vector<Tensor>* scatter_list, int src,
                              const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "scatter");
  c10d::ScatterOptions o;
  o.rootRank = to_group_rank(pg, src, "scatter", "src");
  o.asyncOp = async_op;
  std::vector<std::vector<Tensor>> in;
  if (pg->getRank() == o.rootRank) {
    EMBER_CHECK(scatter_list != nullptr, "[scatter] scatter_list: expected a list of {} tensors on the source rank",
                pg->getSize());
    in.push_back(*scatter_list);
  } else {
    EMBER_CHECK(scatter_list == nullptr || scatter_list->empty(),
                "[scatter] scatter_list: expected no list on a rank other than the source ({})", src);
  }
  std::vector<Tensor> out{tensor};
  return finish(pg->scatter(out, in, o), async_op);
}

std::shared_ptr<Work> reduce_scatter(Tensor& output, std::vector<Tensor>& input_list, ReduceOp op,
                                     const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "reduce_scatter");
  c10d::ReduceScatterOptions o;
  o.reduceOp = op;
  o.asyncOp = async_op;
  std::vector<Tensor> out{output};
  std::vector<std::vector<Tensor>> in{input_list};
  return finish(pg->reduce_scatter(out, in, o), async_op);
}

std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op, const ProcessGroup& group,
                                            bool async_op) {
  auto pg = require(group, "reduce_scatter_tensor");
  c10d::ReduceScatterOptions o;
  o.reduceOp = op;
  o.asyncOp = async_op;
  Tensor in = input;
  return finish(pg->_reduce_scatter_base(output, in, o), async_op);
}

std::shared_ptr<Work> all_to_all(std::vector<Tensor>& output_tensor_list, std::vector<Tensor>& input_tensor_list,
                                 const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "all_to_all");
  c10d::AllToAllOptions o;
  o.asyncOp = async_op;
  return finish(pg->alltoall(output_tensor_list, input_tensor_list, o), async_op);
}

std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input, std::vector<int64_t> output_split_sizes,
                                        std::vector<int64_t> input_split_sizes, const ProcessGroup& group,
                                        bool async_op) {
  auto pg = require(group, "all_to_all_single");
  Tensor in = input;
  c10d::AllToAllOptions o;
  o.asyncOp = async_op;
  return finish(pg->alltoall_base(output, in, output_split_sizes, input_split_sizes, o), async_op);
}

std::shared_ptr<Work> barrier(const ProcessGroup& group, bool async_op) {
  auto pg = require(group, "barrier");
  c10d::BarrierOptions o;
  o.asyncOp = async_op;
  return finish(pg->barrier(o), async_op);
}

std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const ProcessGroup& group, int tag) {
  auto pg = require(group, "send");
  int d = to_group_rank(pg, dst, "send", "dst");
  EMBER_CHECK(d != pg->getRank(),
              "[send] dst: Invalid destination rank: should not be the same as rank of the current process ({})", dst);
  std::vector<Tensor> v{tensor};
  return pg->send(v, d, tag);
}

void send(const Tensor& tensor, int dst, const ProcessGroup& group, int tag) { isend(tensor, dst, group, tag)->wait(); }

std::shared_ptr<Work> irecv(Tensor& tensor, std::optional<int> src, const ProcessGroup& group, int tag) {
  auto pg = require(group, "recv");
  std::vector<Tensor> v{tensor};
  if (!src) return pg->recvAnysource(v, tag);
  int s = to_group_rank(pg, *src, "recv", "src");
  EMBER_CHECK(s != pg->getRank(),
              "[recv] src: Invalid source rank: should not be the same as rank of the current process ({})", *src);
  return pg->recv(v, s, tag);
}

int recv(Tensor& tensor, std::optional<int> src, const ProcessGroup& group, int tag) {
  auto pg = require(group, "recv");
  auto w = irecv(tensor, src, pg, tag);
  w->wait();
  if (src) return *src;
  return pg->getGlobalRanks().at(static_cast<size_t>(w->sourceRank()));
}

}  // namespace ember::distributed
