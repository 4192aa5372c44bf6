// The backends' shared pieces (Common.h): checks, staging, reductions, the operation queue, and
// the health monitor with the failure diagnosis of Note [Health monitor].
#include "Common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "ember/core/LocalState.h"
#include "ember/generated/Functions.h"

namespace ember::dist {

namespace {

bool movable_dtype(ScalarType t) {
  switch (t) {
    case kBool:
    case kUInt8:
    case kInt8:
    case kInt16:
    case kInt32:
    case kInt64:
    case kFloat16:
    case kBFloat16:
    case kFloat32:
    case kFloat64:
      return true;
    default:
      return false;
  }
}

}  // namespace

void check_single_tensor(const char* op, const char* arg, const std::vector<Tensor>& tensors) {
  EMBER_CHECK(tensors.size() == 1,
              "[{}] {}: expected a list of exactly one tensor (one per device; CPU has one), got {}", op, arg,
              tensors.size());
}

void check_cpu_dense(const char* op, const char* arg, const Tensor& t) {
  EMBER_CHECK(t.defined(), "[{}] {}: expected a defined tensor", op, arg);
  EMBER_CHECK(t.is_cpu(), "[{}] {}: expected a CPU tensor, got a tensor on {}", op, arg, t.device());
  EMBER_CHECK(t.layout() == kStrided, "[{}] {}: expected a dense (strided) tensor, got layout {}", op, arg, t.layout());
  EMBER_CHECK_TYPE(movable_dtype(t.dtype()),
                   "[{}] {}: expected a tensor of dtype bool, uint8, int8, int16, int32, int64, float16, bfloat16, "
                   "float32 or float64, got {}",
                   op, arg, t.dtype());
}

void check_same_dtype(const char* op, const char* arg, const Tensor& t, const Tensor& ref, const char* what) {
  EMBER_CHECK_TYPE(t.dtype() == ref.dtype(), "[{}] {}: expected dtype {} (as {}), got {}", op, arg, ref.dtype(), what,
                   t.dtype());
}

void check_same_dtype_shape(const char* op, const char* arg, const Tensor& t, const Tensor& ref, const char* what) {
  check_same_dtype(op, arg, t, ref, what);
  EMBER_CHECK(t.sizes() == ref.sizes(), "[{}] {}: expected shape [{}] (as {}), got [{}]", op, arg,
              fmt::join(ref.sizes(), ", "), what, fmt::join(t.sizes(), ", "));
}

void check_rank(const char* op, const char* arg, int64_t rank, int size) {
  EMBER_CHECK(rank >= 0 && rank < size, "[{}] {}: expected a rank in [0, {}), got {}", op, arg, size, rank);
}

void check_list_size(const char* op, const char* arg, size_t got, int size) {
  EMBER_CHECK(got == static_cast<size_t>(size), "[{}] {}: expected a list of {} tensors (the group's size), got {}", op,
              arg, size, got);
}

void check_reduce_op(const char* op, c10d::ReduceOp reduce, ScalarType dtype) {
  switch (static_cast<c10d::ReduceOp::RedOpType>(reduce)) {
    case c10d::ReduceOp::SUM:
    case c10d::ReduceOp::PRODUCT:
    case c10d::ReduceOp::MIN:
    case c10d::ReduceOp::MAX:
      return;
    case c10d::ReduceOp::AVG:
      EMBER_CHECK(is_floating_type(dtype),
                  "[{}] op: ReduceOp.AVG needs a floating-point tensor (the mean of integers is not an integer), got "
                  "{}",
                  op, dtype);
      return;
    case c10d::ReduceOp::BAND:
    case c10d::ReduceOp::BOR:
    case c10d::ReduceOp::BXOR:
      EMBER_CHECK(is_integral_type(dtype, true), "[{}] op: ReduceOp.{} needs an integer or bool tensor, got {}", op,
                  c10d::reduce_op_name(reduce), dtype);
      return;
  }
  throw ValueError(fmt::format("[{}] op: unknown ReduceOp {}", op, static_cast<int>(reduce.op_)));
}

Staged::Staged(const Tensor& t, bool copy_in) : orig(t) {
  if (t.is_contiguous()) {
    buf = t;
  } else if (copy_in) {
    NoGradGuard no_grad;
    buf = t.contiguous();
  } else {
    buf = empty_like_contiguous(t);
  }
}

void Staged::copy_back() const {
  if (buf.is_same(orig)) return;
  NoGradGuard no_grad;
  orig.copy_(buf);
}

Tensor empty_like_contiguous(const Tensor& t) {
  NoGradGuard no_grad;
  return empty(t.sizes(), TensorOptions().dtype(t.dtype()).device(t.device()));
}

size_t row_bytes(const Tensor& t) {
  if (t.dim() == 0 || t.size(0) == 0) return 0;
  return t.nbytes() / static_cast<size_t>(t.size(0));
}

// ---- Reductions. ---------------------------------------------------------------------------

namespace {

template <class T, class F>
ReduceFn elementwise(F f) {
  return [f](void* out, const void* a, const void* b, size_t n) {
    auto* o = static_cast<T*>(out);
    auto* x = static_cast<const T*>(a);
    auto* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) o[i] = static_cast<T>(f(x[i], y[i]));
  };
}

// Half and BFloat16: each step in float, rounded back (as PyTorch's c10::Half arithmetic).
template <class T, class F>
ReduceFn through_float(F f) {
  return [f](void* out, const void* a, const void* b, size_t n) {
    auto* o = static_cast<T*>(out);
    auto* x = static_cast<const T*>(a);
    auto* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) o[i] = T(f(static_cast<float>(x[i]), static_cast<float>(y[i])));
  };
}

template <class T>
ReduceFn arithmetic(c10d::ReduceOp op) {
  using R = c10d::ReduceOp;
  switch (static_cast<R::RedOpType>(op)) {
    case R::SUM:
    case R::AVG:
      return elementwise<T>([](T a, T b) { return a + b; });
    case R::PRODUCT:
      return elementwise<T>([](T a, T b) { return a * b; });
    case R::MIN:
      return elementwise<T>([](T a, T b) { return std::min(a, b); });
    case R::MAX:
      return elementwise<T>([](T a, T b) { return std::max(a, b); });
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (static_cast<R::RedOpType>(op)) {
      case R::BAND:
        return elementwise<T>([](T a, T b) { return a & b; });
      case R::BOR:
        return elementwise<T>([](T a, T b) { return a | b; });
      case R::BXOR:
        return elementwise<T>([](T a, T b) { return a ^ b; });
      default:
        break;
    }
  }
  return nullptr;
}

template <class T>
ReduceFn half_like(c10d::ReduceOp op) {
  using R = c10d::ReduceOp;
  switch (static_cast<R::RedOpType>(op)) {
    case R::SUM:
    case R::AVG:
      return through_float<T>([](float a, float b) { return a + b; });
    case R::PRODUCT:
      return through_float<T>([](float a, float b) { return a * b; });
    case R::MIN:
      return through_float<T>([](float a, float b) { return std::min(a, b); });
    case R::MAX:
      return through_float<T>([](float a, float b) { return std::max(a, b); });
    default:
      return nullptr;
  }
}

// bool as PyTorch: SUM and MAX are "or", PRODUCT and MIN are "and".
ReduceFn boolean(c10d::ReduceOp op) {
  using R = c10d::ReduceOp;
  switch (static_cast<R::RedOpType>(op)) {
    case R::SUM:
    case R::MAX:
    case R::BOR:
      return elementwise<bool>([](bool a, bool b) { return a || b; });
    case R::PRODUCT:
    case R::MIN:
    case R::BAND:
      return elementwise<bool>([](bool a, bool b) { return a && b; });
    case R::BXOR:
      return elementwise<bool>([](bool a, bool b) { return a != b; });
    default:
      return nullptr;
  }
}

}  // namespace

ReduceFn make_reduce_fn(ScalarType dtype, c10d::ReduceOp op) {
  ReduceFn fn;
  switch (dtype) {
    case kBool:
      fn = boolean(op);
      break;
    case kUInt8:
      fn = arithmetic<uint8_t>(op);
      break;
    case kInt8:
      fn = arithmetic<int8_t>(op);
      break;
    case kInt16:
      fn = arithmetic<int16_t>(op);
      break;
    case kInt32:
      fn = arithmetic<int32_t>(op);
      break;
    case kInt64:
      fn = arithmetic<int64_t>(op);
      break;
    case kFloat16:
      fn = half_like<Half>(op);
      break;
    case kBFloat16:
      fn = half_like<BFloat16>(op);
      break;
    case kFloat32:
      fn = arithmetic<float>(op);
      break;
    case kFloat64:
      fn = arithmetic<double>(op);
      break;
    default:
      break;
  }
  EMBER_CHECK(fn != nullptr, "[reduce] op: ReduceOp.{} is not defined for dtype {}", c10d::reduce_op_name(op), dtype);
  return fn;
}

void divide_by(void* data, ScalarType dtype, size_t n, int divisor) {
  auto div = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    for (size_t i = 0; i < n; ++i) p[i] = T(static_cast<float>(p[i]) / static_cast<float>(divisor));
  };
  switch (dtype) {
    case kFloat16:
      div(static_cast<Half*>(data));
      return;
    case kBFloat16:
      div(static_cast<BFloat16*>(data));
      return;
    case kFloat32: {
      auto* p = static_cast<float*>(data);
      for (size_t i = 0; i < n; ++i) p[i] /= static_cast<float>(divisor);
      return;
    }
    case kFloat64: {
      auto* p = static_cast<double*>(data);
      for (size_t i = 0; i < n; ++i) p[i] /= static_cast<double>(divisor);
      return;
    }
    default:
      throw ValueError(fmt::format("[divide_by] dtype: expected a floating type, got {}", dtype));
  }
}

// ---- OpQueue. ------------------------------------------------------------------------------

OpQueue::OpQueue() : thread_([this] { run(); }) {}

OpQueue::~OpQueue() { stop(); }

void OpQueue::push(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    EMBER_CHECK(!stopping_, "[ProcessGroup] the group was destroyed; no operation can be queued");
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

bool OpQueue::idle() {
  std::lock_guard<std::mutex> lock(mu_);
  EMBER_CHECK(!stopping_, "[ProcessGroup] the group was destroyed; no operation can be queued");
  return queue_.empty() && !running_;
}

void OpQueue::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void OpQueue::run() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      fn = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
    }
    fn();  // finishes its Work itself, failures included
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
  }
}

// ---- Health monitor. -----------------------------------------------------------------------

std::string OpInfo::prefix() const {
  std::string where =
      collective ? fmt::format("{} #{}", op, seq) : (peer >= 0 ? fmt::format("{} (peer rank {})", op, peer) : op);
  return fmt::format("[{} on group '{}'] rank {} of {} ({})", where, group, rank, size, backend);
}

namespace {

struct Record {
  bool present = false;
  uint64_t heartbeat = 0;
  uint64_t seq = 0;
  std::string state;  // "idle", "in", "done", "failed", "exited"
  std::string op;
};

Record parse_record(const std::vector<uint8_t>& v) {
  Record r;
  std::istringstream in(std::string(v.begin(), v.end()));
  if (in >> r.heartbeat >> r.seq >> r.state) {
    std::getline(in >> std::ws, r.op);
    r.present = true;
  }
  return r;
}

std::string monitor_key(int rank) { return fmt::format("ember/monitor/{}", rank); }

}  // namespace

struct HealthMonitor::Shared {
  std::shared_ptr<c10d::Store> store;
  int rank = 0;
  int size = 1;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool thread_done = false;
  uint64_t heartbeat = 0;
  uint64_t seq = 0;
  std::string state = "idle";
  std::string op = "-";
  std::mutex publish_mu;  // one writer of this rank's key at a time

  void publish() {
    std::string value;
    {
      std::lock_guard<std::mutex> lock(mu);
      value = fmt::format("{} {} {} {}", ++heartbeat, seq, state, op);
    }
    std::lock_guard<std::mutex> lock(publish_mu);
    try {
      store->set(monitor_key(rank), value);
    } catch (...) {
      // The store may be gone with its host; the diagnosis of the peers reports that.
    }
  }
};

HealthMonitor::HealthMonitor(std::shared_ptr<c10d::Store> store, int rank, int size, std::chrono::milliseconds interval)
    : s_(std::make_shared<Shared>()), interval_(interval) {
  s_->store = std::move(store);
  s_->rank = rank;
  s_->size = size;
  s_->publish();
  auto s = s_;
  thread_ = std::thread([s, interval] {
    std::unique_lock<std::mutex> lock(s->mu);
    while (!s->cv.wait_for(lock, interval, [&] { return s->stop; })) {
      lock.unlock();
      s->publish();
      lock.lock();
    }
    s->thread_done = true;
    s->cv.notify_all();
  });
}

HealthMonitor::~HealthMonitor() { stop(); }

void HealthMonitor::enter(uint64_t seq, const std::string& op) {
  std::lock_guard<std::mutex> lock(s_->mu);
  s_->seq = seq;
  s_->state = "in";
  s_->op = op;
}

void HealthMonitor::leave(uint64_t seq, const std::string& op) {
  std::lock_guard<std::mutex> lock(s_->mu);
  s_->seq = seq;
  s_->state = "done";
  s_->op = op;
}

void HealthMonitor::failed(uint64_t seq, const std::string& op) {
  {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->seq = seq;
    s_->state = "failed";
    s_->op = op;
  }
  s_->publish();  // at once: peers diagnosing now must not blame this rank
}

void HealthMonitor::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->stop = true;
    s_->state = "exited";
  }
  s_->cv.notify_all();
  bool done;
  {
    std::unique_lock<std::mutex> lock(s_->mu);
    done = s_->cv.wait_for(lock, 2 * kStoreReadDeadline, [&] { return s_->thread_done; });
  }
  if (done) {
    thread_.join();
    s_->publish();
  } else {
    thread_.detach();  // blocked on a hung store; it holds its own state
  }
}

namespace {

// Every rank's record, read on a helper thread (the store may hang with its host). Returns false
// with `error` set when the store failed or did not answer by the deadline.
bool read_records(const std::shared_ptr<c10d::Store>& store, int size, std::vector<Record>& out, std::string& error) {
  struct Result {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::vector<Record> records;
    std::string error;
  };
  auto res = std::make_shared<Result>();
  std::thread([store, size, res] {
    std::vector<Record> recs(size);
    std::string err;
    try {
      for (int r = 0; r < size; ++r)
        if (store->check({monitor_key(r)})) recs[r] = parse_record(store->get(monitor_key(r)));
    } catch (const std::exception& e) {
      err = e.what();
      if (err.empty()) err = "unknown error";
    }
    std::lock_guard<std::mutex> lock(res->mu);
    res->records = std::move(recs);
    res->error = std::move(err);
    res->done = true;
    res->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(res->mu);
  if (!res->cv.wait_for(lock, kStoreReadDeadline, [&] { return res->done; })) {
    error = fmt::format("it did not answer within {} ms", kStoreReadDeadline.count());
    return false;
  }
  if (!res->error.empty()) {
    error = res->error;
    return false;
  }
  out = std::move(res->records);
  return true;
}

std::string where(const Record& r) {
  if (r.seq == 0) return "its set-up (before any collective)";
  return fmt::format("{} #{}", r.op, r.seq);
}

// "the rendezvous store" plus who serves it, when that is known.
std::string store_host(const std::shared_ptr<c10d::Store>& store) {
  const c10d::Store* s = store.get();
  while (auto* p = dynamic_cast<const c10d::PrefixStore*>(s)) s = p->getUnderlyingStore().get();
  if (auto* tcp = dynamic_cast<const c10d::TCPStore*>(s))
    return fmt::format("the rendezvous store ({}:{}, served by world rank 0, which may be dead)", tcp->getHost(),
                       tcp->getPort());
  return "the rendezvous store";
}

}  // namespace

std::string HealthMonitor::diagnose(const OpInfo& info) const {
  try {
    auto name = [&](int r) {
      if (info.global_ranks.empty() || static_cast<int>(info.global_ranks.size()) != info.size ||
          info.global_ranks[r] == r)
        return fmt::format("rank {}", r);
      return fmt::format("rank {} (world rank {})", r, info.global_ranks[r]);
    };
    std::vector<Record> first, second;
    std::string err;
    if (!read_records(s_->store, s_->size, first, err))
      return fmt::format("{} is unreachable ({})", store_host(s_->store), err);
    std::this_thread::sleep_for(std::max(kDiagnoseWait, interval_ * 5 / 2));
    if (!read_records(s_->store, s_->size, second, err))
      return fmt::format("{} became unreachable ({})", store_host(s_->store), err);

    std::vector<std::string> dead, busy, left, failed;
    for (int r = 0; r < s_->size; ++r) {
      if (r == s_->rank) continue;
      if (info.collective == false && info.peer >= 0 && r != info.peer) continue;
      const Record& a = first[r];
      const Record& b = second[r];
      if (!b.present) {
        dead.push_back(fmt::format("{} never published a heartbeat (it may not have started)", name(r)));
        continue;
      }
      if (b.state == "exited") {
        left.push_back(fmt::format("{} has destroyed its process group (after {})", name(r), where(b)));
        continue;
      }
      if (b.state == "failed") {  // failed too; the root cause is elsewhere
        failed.push_back(fmt::format("{}", r));
        continue;
      }
      if (a.present && a.heartbeat == b.heartbeat) {
        dead.push_back(fmt::format("{} is not responding (dead or frozen; last seen in {})", name(r), where(b)));
        continue;
      }
      if (!info.collective) continue;  // alive: a point-to-point peer may legitimately be elsewhere
      if (b.seq == info.seq && b.state == "in") continue;
      if (b.state == "in")
        busy.push_back(fmt::format("{} is stuck in {}", name(r), where(b)));
      else if (b.seq < info.seq)
        busy.push_back(
            fmt::format("{} has not reached {} #{} (alive; last finished {})", name(r), info.op, info.seq, where(b)));
      else
        busy.push_back(fmt::format("{} is past it (alive; last finished {})", name(r), where(b)));
    }
    std::vector<std::string> parts;
    parts.insert(parts.end(), dead.begin(), dead.end());
    parts.insert(parts.end(), busy.begin(), busy.end());
    parts.insert(parts.end(), left.begin(), left.end());
    if (parts.empty()) {
      if (!failed.empty())
        return fmt::format("no peer is dead or elsewhere; rank(s) {} already failed in {}", fmt::join(failed, ", "),
                           info.collective ? fmt::format("{} #{}", info.op, info.seq) : info.op);
      if (!info.collective) return "the peer is alive (it has not posted the matching operation in time)";
      return fmt::format("every peer is alive and in {} #{} or failed in it too", info.op, info.seq);
    }
    return fmt::format("{}", fmt::join(parts, "; "));
  } catch (const std::exception& e) {
    return fmt::format("no diagnosis ({})", e.what());
  }
}

c10d::DistBackendError failure_error(const OpInfo& info, const std::string& diagnosis, const std::string& cause) {
  return c10d::DistBackendError(fmt::format("{}: {}; cause: {}", info.prefix(), diagnosis, cause));
}

}  // namespace ember::dist
