#pragma once
// ember::nn::parallel::DistributedDataParallel: PyTorch's torch.nn.parallel.DistributedDataParallel
// for modules of ember::nn. Every rank holds a replica; construction broadcasts rank 0's parameters
// and buffers, forward runs the replica (broadcasting buffers first), and backward averages the
// gradients over the process group, bucket by bucket while backward still runs.
//
//   auto ddp = DistributedDataParallel(model, DistributedDataParallelOptions().bucket_cap_mb(4));
//   optim::SGD opt(ddp->parameters(), 0.1);
//   loss_fn(ddp(x), y).backward();  // p.grad: the mean over the ranks
//   { auto guard = ddp->no_sync(); loss_fn(ddp(x2), y2).backward(); }  // accumulates locally
//
// Note [DDP reducer]
// ~~~~~~~~~~~~~~~~~~
// The parameters that require grad are grouped into buckets (PyTorch's
// compute_bucket_assignment_by_size): in registration order, one open bucket per dtype, a bucket
// closing once it holds first_bucket_cap_mb (the first of each dtype) or bucket_cap_mb bytes;
// the bucket list is then reversed, as gradients arrive roughly in reverse registration order.
// Each bucket owns one flat buffer. A post hook on each parameter's AccumulateGrad node (kept
// alive by the reducer) copies the accumulated p.grad into its slot once backward produced it;
// when all of a bucket's slots are filled, it and every later-ready bucket in list order are
// divided by the world size and launched as an asynchronous all_reduce (always in list order, so
// every rank issues the same collectives in the same order), overlapping the rest of backward.
// The hook that fills the last slot waits for all buckets and writes the means back into p.grad
// (or points p.grad at its bucket slot with gradient_as_bucket_view).
//
// forward() arms the hooks (grad mode on and not under no_sync). A backward that leaves some
// parameter without a gradient never finishes the reduction; the next armed forward then throws
// PyTorch's "Expected to have finished reduction in the prior iteration" error naming them. With
// find_unused_parameters, forward walks the graph from its outputs (grad_fn / next_functions) and
// the first hook of backward marks the unreached parameters ready (their slots hold their current
// grad or zeros); a second small all_reduce tells which parameters no rank used, whose grad is
// left as it was (PyTorch's rule).
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/distributed/ProcessGroup.h"
#include "ember/nn/Arg.h"
#include "ember/nn/Module.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/modules/AnyModule.h"

namespace ember::nn::parallel {

struct DistributedDataParallelOptions {
  // The group to average over; null: the default group (init_process_group).
  EMBER_ARG(std::shared_ptr<c10d::ProcessGroup>, process_group);
  EMBER_ARG(double, bucket_cap_mb) = 25.0;
  // The first bucket (the parameters registered first, whose gradients come last) is small, so
  // little communication is left once backward ends (PyTorch's _DEFAULT_FIRST_BUCKET_BYTES).
  EMBER_ARG(double, first_bucket_cap_mb) = 1.0;
  EMBER_ARG(bool, broadcast_buffers) = true;
  EMBER_ARG(bool, find_unused_parameters) = false;
  EMBER_ARG(bool, gradient_as_bucket_view) = false;
};

// When one bucket's gradients were ready, its all_reduce launched and seen finished, in
// milliseconds since the backward reached the module's outputs.
struct DDPBucketTiming {
  double ready_ms = -1;
  double launch_ms = -1;
  double finish_ms = -1;
};
// One synced backward's timings (Note [DDP reducer]).
struct DDPIterationTimings {
  double first_grad_ms = -1;  // the first parameter's gradient arrived
  double last_grad_ms = -1;   // the last one arrived (all buckets launched)
  double end_ms = -1;         // every bucket reduced and the grads written back
  std::vector<DDPBucketTiming> buckets;
};

namespace detail {
class Reducer;
template <typename M>
concept HasForward = requires {
  &M::forward;
};
}  // namespace detail

class DistributedDataParallelImpl;

// Backward accumulates into p.grad without communication while it lives
// (DistributedDataParallel.no_sync()); the next synced backward reduces the accumulated grads.
class EMBER_API NoSyncGuard {
 public:
  explicit NoSyncGuard(DistributedDataParallelImpl& ddp);
  ~NoSyncGuard();
  NoSyncGuard(const NoSyncGuard&) = delete;
  NoSyncGuard& operator=(const NoSyncGuard&) = delete;

 private:
  DistributedDataParallelImpl& ddp_;
  bool prev_;
};

class EMBER_API DistributedDataParallelImpl : public Module {
 public:
  // `module` is registered as the submodule "module" (state_dict keys start with "module.").
  // A module whose type has one forward can be called through forward(); a bare
  // std::shared_ptr<Module> only through its own forward plus prepare_for_backward().
  template <typename M>
  explicit DistributedDataParallelImpl(std::shared_ptr<M> module, DistributedDataParallelOptions options = {})
      : DistributedDataParallelImpl(std::static_pointer_cast<Module>(module), std::move(options), 0) {
    if constexpr (detail::HasForward<M>) any_ = AnyModule(module);
  }
  template <typename M>
  explicit DistributedDataParallelImpl(const ModuleHolder<M>& module, DistributedDataParallelOptions options = {})
      : DistributedDataParallelImpl(module.ptr(), std::move(options)) {}
  ~DistributedDataParallelImpl() override;

  // The wrapped module's forward: buffers are broadcast from rank 0 first (broadcast_buffers),
  // and with grad mode on (not under no_sync) the reducer is armed for the backward of the
  // result's tensors. Arguments must have forward's exact types, as for AnyModule.
  template <typename ReturnType = Tensor, typename... Args>
  ReturnType forward(Args&&... args) {
    check_forwardable();
    pre_forward();
    ReturnType out = any_.forward<ReturnType>(std::forward<Args>(args)...);
    if constexpr (::ember::nn::detail::hookable_result_v<ReturnType>)
      prepare_for_backward(::ember::nn::detail::result_tensors(out));
    else
      prepare_for_backward({});
    return out;
  }

  // For modules called directly: broadcast buffers before forward, then hand the outputs here.
  void pre_forward();
  void prepare_for_backward(const std::vector<Tensor>& outputs);

  const std::shared_ptr<Module>& module() const noexcept { return module_; }
  const DistributedDataParallelOptions& options() const noexcept { return options_; }
  const std::shared_ptr<c10d::ProcessGroup>& process_group() const noexcept { return pg_; }

  NoSyncGuard no_sync() { return NoSyncGuard(*this); }
  bool require_backward_grad_sync() const noexcept { return require_backward_grad_sync_; }
  void set_require_backward_grad_sync(bool on) noexcept { require_backward_grad_sync_ = on; }

  // Introspection: the parameters (indices into the module's parameters that require grad, in
  // registration order) of each bucket, in launch order; and the last synced backward's timings.
  std::vector<std::vector<size_t>> bucket_indices() const;
  DDPIterationTimings last_timings() const;

  void pretty_print(std::ostream& stream) const override;

 private:
  DistributedDataParallelImpl(std::shared_ptr<Module> module, DistributedDataParallelOptions options, int);
  void check_forwardable() const;
  void sync_buffers();

  friend class NoSyncGuard;
  std::shared_ptr<Module> module_;
  AnyModule any_;
  DistributedDataParallelOptions options_;
  std::shared_ptr<c10d::ProcessGroup> pg_;
  std::unique_ptr<detail::Reducer> reducer_;
  bool require_backward_grad_sync_ = true;
};

EMBER_MODULE(DistributedDataParallel);

}  // namespace ember::nn::parallel
