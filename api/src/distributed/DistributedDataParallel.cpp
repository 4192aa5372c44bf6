// DistributedDataParallel and its reducer (Note [DDP reducer] in
// ember/nn/parallel/DistributedDataParallel.h).
#include "ember/nn/parallel/DistributedDataParallel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <unordered_set>

#include "ember/distributed/Distributed.h"
#include "ember/ember.h"

namespace ember::nn::parallel {

namespace {

constexpr const char* kName = "DistributedDataParallel";

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A 1-d tensor holding a copy of `v`.
template <class T>
Tensor vector_tensor(const std::vector<T>& v, ScalarType dtype) {
  return ember::from_blob(const_cast<T*>(v.data()), {static_cast<int64_t>(v.size())}, TensorOptions().dtype(dtype))
      .clone();
}

size_t mb_to_bytes(double mb) { return static_cast<size_t>(mb * 1024.0 * 1024.0); }

// PyTorch's compute_bucket_assignment_by_size, then reversed (Note [DDP reducer]).
std::vector<std::vector<size_t>> assign_buckets(const std::vector<Tensor>& params, const std::vector<size_t>& limits) {
  struct Open {
    std::vector<size_t> indices;
    size_t bytes = 0;
    size_t limit = 0;  // index into limits
  };
  std::map<int, Open> open;  // per dtype
  std::vector<std::vector<size_t>> result;
  for (size_t i = 0; i < params.size(); ++i) {
    Open& b = open[static_cast<int>(params[i].scalar_type())];
    b.indices.push_back(i);
    b.bytes += params[i].nbytes();
    if (b.bytes >= limits[std::min(b.limit, limits.size() - 1)]) {
      result.push_back(std::move(b.indices));
      b.indices.clear();
      b.bytes = 0;
      ++b.limit;
    }
  }
  for (auto& [dtype, b] : open)
    if (!b.indices.empty()) result.push_back(std::move(b.indices));
  std::sort(result.begin(), result.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  std::reverse(result.begin(), result.end());
  return result;
}

// Broadcasts `tensors` from rank 0, one flat buffer per dtype.
void broadcast_coalesced(c10d::ProcessGroup& pg, const std::vector<Tensor>& tensors) {
  if (pg.getSize() == 1 || tensors.empty()) return;
  NoGradGuard no_grad;
  std::map<int, std::vector<Tensor>> by_dtype;
  for (const Tensor& t : tensors) by_dtype[static_cast<int>(t.scalar_type())].push_back(t.detach());
  for (auto& [dtype, group] : by_dtype) {
    std::vector<Tensor> flat_parts;
    for (const Tensor& t : group) flat_parts.push_back(t.reshape({-1}));
    std::vector<Tensor> flat{ember::cat(flat_parts)};
    pg.broadcast(flat)->wait();
    if (pg.getRank() == 0) continue;
    int64_t offset = 0;
    for (Tensor& t : group) {
      t.copy_(flat[0].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

}  // namespace

namespace detail {

class Reducer {
 public:
  Reducer(std::vector<Tensor> params, std::vector<std::string> names, const DistributedDataParallelOptions& opts,
          std::shared_ptr<c10d::ProcessGroup> pg)
      : params_(std::move(params)),
        names_(std::move(names)),
        pg_(std::move(pg)),
        find_unused_(opts.find_unused_parameters()),
        as_bucket_view_(opts.gradient_as_bucket_view()),
        backward_start_(std::make_shared<std::atomic<int64_t>>(0)) {
    const auto indices =
        assign_buckets(params_, {mb_to_bytes(opts.first_bucket_cap_mb()), mb_to_bytes(opts.bucket_cap_mb())});
    loc_.resize(params_.size());
    for (const auto& idx : indices) {
      Bucket b;
      b.params = idx;
      int64_t total = 0;
      for (size_t i : idx) total += params_[i].numel();
      const Tensor& first = params_[idx.front()];
      b.flat = ember::zeros({total}, TensorOptions().dtype(first.scalar_type()).device(first.device()));
      int64_t offset = 0;
      for (size_t s = 0; s < idx.size(); ++s) {
        const Tensor& p = params_[idx[s]];
        b.views.push_back(b.flat.narrow(0, offset, p.numel()).view(p.sizes()));
        offset += p.numel();
        loc_[idx[s]] = {buckets_.size(), s};
      }
      buckets_.push_back(std::move(b));
    }
    ready_.assign(params_.size(), 0);
    local_used_.assign(params_.size(), 0);
    // The AccumulateGrad node of each parameter: the leaf's meta holds it weakly, so keep it.
    AutoGradMode grad_on(true);
    for (size_t i = 0; i < params_.size(); ++i) {
      auto fn = params_[i].expand(params_[i].sizes()).grad_fn();
      EMBER_INTERNAL_ASSERT(fn && !fn->next_functions().empty(), "[{}] parameter {} has no gradient accumulator", kName,
                            names_[i]);
      std::shared_ptr<autograd::Node> acc = fn->next_functions()[0].first;
      EMBER_INTERNAL_ASSERT(acc && acc->name() == "AccumulateGrad", "[{}] parameter {} has no gradient accumulator",
                            kName, names_[i]);
      const unsigned h = acc->register_hook([this, i](const std::vector<Tensor>&, const std::vector<Tensor>&) {
        autograd_hook(i);
        return std::vector<Tensor>();
      });
      hooks_.emplace_back(std::move(acc), h);
    }
  }

  ~Reducer() {
    for (auto& [acc, h] : hooks_) acc->remove_hook(h);
    // Launched all_reduces still write into the buckets: let them finish.
    for (Bucket& b : buckets_)
      if (b.work) try {
          b.work->wait();
        } catch (...) {  // NOLINT(bugprone-empty-catch): the error belongs to the abandoned step
        }
  }

  std::vector<std::vector<size_t>> bucket_indices() const {
    std::vector<std::vector<size_t>> out;
    for (const Bucket& b : buckets_) out.push_back(b.params);
    return out;
  }

  DDPIterationTimings timings() {
    std::lock_guard<std::mutex> lock(mu_);
    return timings_;
  }

  void prepare_for_backward(const std::vector<Tensor>& outputs) {
    std::lock_guard<std::mutex> lock(mu_);
    if (require_finalize_) throw_unfinished();
    for (Bucket& b : buckets_) {
      // Left by a backward that failed midway: it still writes into the bucket.
      if (b.work) try {
          b.work->wait();
        } catch (...) {  // NOLINT(bugprone-empty-catch): reported by that backward
        }
      b.pending = b.params.size();
      b.work.reset();
    }
    std::fill(ready_.begin(), ready_.end(), 0);
    std::fill(local_used_.begin(), local_used_.end(), 0);
    next_bucket_ = 0;
    has_marked_unused_ = false;
    unused_.clear();
    timings_ = DDPIterationTimings{};
    timings_.buckets.resize(buckets_.size());
    backward_start_->store(0);
    std::vector<std::shared_ptr<autograd::Node>> roots;
    for (const Tensor& t : outputs)
      if (t.defined() && t.requires_grad())
        if (auto fn = t.grad_fn()) roots.push_back(std::move(fn));
    // The backward's start: when the gradient reaches the module's outputs.
    for (auto& fn : roots)
      fn->register_prehook([start = backward_start_](const std::vector<Tensor>&) {
        int64_t expected = 0;
        start->compare_exchange_strong(expected, now_ns());
        return std::vector<Tensor>();
      });
    if (find_unused_) {
      std::unordered_set<const autograd::Node*> seen;
      std::vector<std::shared_ptr<autograd::Node>> stack = roots;
      for (auto& fn : roots) seen.insert(fn.get());
      while (!stack.empty()) {
        auto fn = std::move(stack.back());
        stack.pop_back();
        for (auto& [next, nr] : fn->next_functions())
          if (next && seen.insert(next.get()).second) stack.push_back(next);
      }
      for (size_t i = 0; i < params_.size(); ++i)
        if (!seen.count(hooks_[i].first.get())) unused_.push_back(i);
    }
    expect_hooks_ = true;
    require_finalize_ = true;
  }

 private:
  struct Bucket {
    std::vector<size_t> params;
    Tensor flat;
    std::vector<Tensor> views;  // per slot, shaped as its parameter
    size_t pending = 0;
    std::shared_ptr<c10d::Work> work;
  };

  double since_start(int64_t t) const { return static_cast<double>(t - backward_start_->load()) / 1e6; }

  void autograd_hook(size_t i) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!expect_hooks_) return;  // no_sync, or a forward under no grad
    try {
      if (!has_marked_unused_) {
        has_marked_unused_ = true;
        int64_t expected = 0;
        backward_start_->compare_exchange_strong(expected, now_ns());
        timings_.first_grad_ms = since_start(now_ns());
        for (size_t u : unused_) mark_ready(u, false);
      }
      mark_ready(i, true);
    } catch (...) {
      expect_hooks_ = false;
      require_finalize_ = false;
      throw;
    }
  }

  void mark_ready(size_t i, bool used) {
    EMBER_CHECK(!ready_[i],
                "[{}] Expected to mark a variable ready only once. This error is caused by one of the following "
                "reasons: 1) Use of a module parameter outside the `forward` function (e.g. a backward run twice "
                "with retain_graph=True). 2) Reused parameters in multiple reentrant backward passes. Parameter "
                "at index {} with name {} has been marked as ready twice.",
                kName, i, names_[i]);
    ready_[i] = 1;
    local_used_[i] = used ? 1 : 0;
    auto [b, s] = loc_[i];
    Bucket& bucket = buckets_[b];
    {
      NoGradGuard no_grad;
      const Tensor& grad = params_[i].grad();
      Tensor& view = bucket.views[s];
      if (!grad.defined())
        view.zero_();
      else if (grad.data_ptr() != view.data_ptr())
        view.copy_(grad);
    }
    poll_finished();
    if (--bucket.pending == 0) {
      const double ready = since_start(now_ns());
      timings_.buckets[b].ready_ms = ready;
      while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) launch(next_bucket_++);
      if (next_bucket_ == buckets_.size()) {
        timings_.last_grad_ms = ready;  // when the last gradient was in, before its bucket went out
        finalize();
      }
    }
  }

  void launch(size_t b) {
    Bucket& bucket = buckets_[b];
    {
      NoGradGuard no_grad;
      bucket.flat.div_(pg_->getSize());
    }
    std::vector<Tensor> tensors{bucket.flat};
    timings_.buckets[b].launch_ms = since_start(now_ns());
    // Asynchronous even for the last bucket: finalize's Work::wait polls, which keeps this CPU
    // awake for the backend's threads (Note [Waiting for a collective] in ProcessGroup.h); run
    // on this thread instead, the collective would sleep inside Gloo and measured 1.6x slower here.
    bucket.work = pg_->allreduce(tensors);
  }

  void poll_finished() {
    for (size_t b = 0; b < next_bucket_; ++b)
      if (timings_.buckets[b].finish_ms < 0 && buckets_[b].work->isCompleted())
        timings_.buckets[b].finish_ms = since_start(now_ns());
  }

  void finalize() {
    std::shared_ptr<c10d::Work> used_work;
    std::vector<Tensor> used;
    if (find_unused_) {
      used.push_back(vector_tensor(local_used_, kInt));
      used_work = pg_->allreduce(used);
    }
    for (size_t b = 0; b < buckets_.size(); ++b) {
      buckets_[b].work->wait();
      if (timings_.buckets[b].finish_ms < 0) timings_.buckets[b].finish_ms = since_start(now_ns());
    }
    if (used_work) used_work->wait();
    NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      // Left as it was when no rank used it (PyTorch's rule for globally unused parameters).
      if (used_work && used[0][static_cast<int64_t>(i)].item<int>() == 0) continue;
      const Tensor& view = buckets_[loc_[i].first].views[loc_[i].second];
      Tensor& grad = params_[i].mutable_grad();
      if (as_bucket_view_) {
        if (!grad.defined() || grad.data_ptr() != view.data_ptr()) grad = view;
      } else if (grad.defined()) {
        grad.copy_(view);
      } else {
        grad = view.clone();
      }
    }
    for (Bucket& b : buckets_) b.work.reset();
    timings_.end_ms = since_start(now_ns());
    expect_hooks_ = false;
    require_finalize_ = false;
  }

  [[noreturn]] void throw_unfinished() const {
    std::vector<size_t> indices;
    std::vector<std::string> names;
    for (size_t i = 0; i < params_.size(); ++i)
      if (!ready_[i]) {
        indices.push_back(i);
        names.push_back(names_[i]);
      }
    const std::string hint =
        find_unused_
            ? "Since `find_unused_parameters=True` is enabled, this likely  means that not all `forward` outputs "
              "participate in computing loss. You can fix this by making sure all `forward` function outputs "
              "participate in calculating loss."
            : "You can enable unused parameter detection by passing the keyword argument "
              "`find_unused_parameters=True` to `DistributedDataParallel`, and by \nmaking sure all `forward` "
              "function outputs participate in calculating loss.";
    EMBER_THROW(ValueError,
                "[{}] Expected to have finished reduction in the prior iteration before starting a new one. This "
                "error indicates that your module has parameters that were not used in producing loss. {}\nIf you "
                "already have done the above, then the distributed data parallel module wasn't able to locate the "
                "output tensors in the return value of your module's `forward` function.\nParameters which did not "
                "receive grad for rank {}: {}\nParameter indices which did not receive grad for rank {}: {}",
                kName, hint, pg_->getRank(), fmt::join(names, ", "), pg_->getRank(), fmt::join(indices, " "));
  }

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::shared_ptr<c10d::ProcessGroup> pg_;
  bool find_unused_;
  bool as_bucket_view_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, size_t>> loc_;  // parameter -> (bucket, slot)
  std::vector<std::pair<std::shared_ptr<autograd::Node>, unsigned>> hooks_;

  std::mutex mu_;
  bool expect_hooks_ = false;      // armed by prepare_for_backward
  bool require_finalize_ = false;  // armed and not yet reduced
  bool has_marked_unused_ = false;
  size_t next_bucket_ = 0;
  std::vector<char> ready_;
  std::vector<int> local_used_;
  std::vector<size_t> unused_;
  std::shared_ptr<std::atomic<int64_t>> backward_start_;
  DDPIterationTimings timings_;
};

}  // namespace detail

NoSyncGuard::NoSyncGuard(DistributedDataParallelImpl& ddp) : ddp_(ddp), prev_(ddp.require_backward_grad_sync_) {
  ddp_.require_backward_grad_sync_ = false;
}
NoSyncGuard::~NoSyncGuard() { ddp_.require_backward_grad_sync_ = prev_; }

DistributedDataParallelImpl::DistributedDataParallelImpl(std::shared_ptr<Module> module,
                                                         DistributedDataParallelOptions options, int)
    : options_(std::move(options)) {
  EMBER_CHECK(module != nullptr, "[{}] module: expected a module, got a null pointer", kName);
  EMBER_CHECK(std::isfinite(options_.bucket_cap_mb()) && options_.bucket_cap_mb() >= 0,
              "[{}] bucket_cap_mb: expected a size >= 0 in MiB, got {}", kName, options_.bucket_cap_mb());
  EMBER_CHECK(std::isfinite(options_.first_bucket_cap_mb()) && options_.first_bucket_cap_mb() >= 0,
              "[{}] first_bucket_cap_mb: expected a size >= 0 in MiB, got {}", kName, options_.first_bucket_cap_mb());
  pg_ = options_.process_group() ? options_.process_group() : ember::distributed::resolve_group(nullptr);
  std::vector<Tensor> grad_params;
  std::vector<std::string> names;
  for (const auto& item : module->named_parameters())
    if (item.value().requires_grad()) {
      grad_params.push_back(item.value());
      names.push_back(item.key());
    }
  EMBER_CHECK(!grad_params.empty(),
              "[{}] module: DistributedDataParallel is not needed when a module doesn't have any parameter that "
              "requires a gradient.",
              kName);
  for (size_t i = 0; i < grad_params.size(); ++i)
    EMBER_CHECK(grad_params[i].is_leaf(), "[{}] module: parameter {} is not a leaf tensor", kName, names[i]);

  // Every rank must hold the same model: compare with rank 0's parameter count and sizes, and agree
  // on the outcome (an all_reduce) so every rank raises, none waits in a broadcast.
  const std::vector<Tensor> params = module->parameters();
  std::vector<int64_t> meta{static_cast<int64_t>(params.size())};
  for (const Tensor& p : params) meta.push_back(p.numel());
  if (pg_->getSize() > 1) {
    std::vector<Tensor> counts{vector_tensor(std::vector<int64_t>{static_cast<int64_t>(meta.size())}, kLong)};
    pg_->broadcast(counts)->wait();
    const int64_t n0 = counts[0].item<int64_t>();
    std::vector<Tensor> theirs{ember::zeros({n0}, TensorOptions().dtype(kLong))};
    if (n0 == static_cast<int64_t>(meta.size())) theirs[0] = vector_tensor(meta, kLong);
    pg_->broadcast(theirs)->wait();
    const bool same = n0 == static_cast<int64_t>(meta.size()) && ember::equal(theirs[0], vector_tensor(meta, kLong));
    std::vector<Tensor> bad{vector_tensor(std::vector<int>{same ? 0 : 1}, kInt)};
    pg_->allreduce(bad)->wait();
    EMBER_CHECK(bad[0].item<int>() == 0,
                "[{}] module: expected the same parameters on every rank (their count and sizes), but {} (this rank "
                "has {} parameters with sizes {})",
                kName,
                same ? std::string("another rank's differ from rank 0's")
                     : fmt::format("rank {}'s differ from rank 0's", pg_->getRank()),
                params.size(), fmt::join(std::vector<int64_t>(meta.begin() + 1, meta.end()), ", "));
  }
  register_module("module", module);
  module_ = std::move(module);
  std::vector<Tensor> state = params;
  for (const Tensor& b : module_->buffers()) state.push_back(b);
  broadcast_coalesced(*pg_, state);
  reducer_ = std::make_unique<detail::Reducer>(std::move(grad_params), std::move(names), options_, pg_);
}

DistributedDataParallelImpl::~DistributedDataParallelImpl() = default;

void DistributedDataParallelImpl::check_forwardable() const {
  if (any_.is_empty() && !sequential_)
    EMBER_THROW(TypeError,
                "[{}] forward: the module was given as a type without one forward (e.g. a std::shared_ptr<Module>); "
                "construct DistributedDataParallel from the module's own type, or call its forward yourself between "
                "pre_forward() and prepare_for_backward(outputs)",
                kName);
}

void DistributedDataParallelImpl::sync_buffers() {
  if (!options_.broadcast_buffers() || pg_->getSize() == 1) return;
  broadcast_coalesced(*pg_, module_->buffers());
}

void DistributedDataParallelImpl::pre_forward() { sync_buffers(); }

void DistributedDataParallelImpl::prepare_for_backward(const std::vector<Tensor>& outputs) {
  if (GradMode::is_enabled() && require_backward_grad_sync_) reducer_->prepare_for_backward(outputs);
}

std::vector<std::vector<size_t>> DistributedDataParallelImpl::bucket_indices() const {
  return reducer_->bucket_indices();
}

DDPIterationTimings DistributedDataParallelImpl::last_timings() const { return reducer_->timings(); }

void DistributedDataParallelImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::parallel::DistributedDataParallel(world_size=" << pg_->getSize()
         << ", bucket_cap_mb=" << options_.bucket_cap_mb() << ")";
}

}  // namespace ember::nn::parallel
