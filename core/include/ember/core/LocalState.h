#pragma once
// Thread-local dispatch state: the key include/exclude sets and grad mode.
//
// Note [Initial-exec TLS for dispatch state]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every dispatch reads this state, from code inlined into plugins and programs. It is defined
// once, in libember, constant-initialized (constinit: no TLS wrapper call) and declared with the
// initial-exec model, so a read is one %fs-relative load instead of a __tls_get_addr call.
// libember is linked at program start, so its TLS block is static.
#include "ember/core/DispatchKey.h"

namespace ember {

struct LocalState {
  DispatchKeySet included;
  DispatchKeySet excluded;
  bool grad_enabled = true;
  bool inference_mode = false;
};

namespace detail {
extern EMBER_API constinit thread_local LocalState tls_local_state
    __attribute__((tls_model("initial-exec")));
}  // namespace detail

inline LocalState& local_state() { return detail::tls_local_state; }

struct GradMode {
  static bool is_enabled() { return detail::tls_local_state.grad_enabled; }
  static void set_enabled(bool on) { detail::tls_local_state.grad_enabled = on; }
};

// Python's torch.set_grad_enabled / is_grad_enabled, for this thread (AutoGradMode is the scoped
// form).
inline void set_grad_enabled(bool on) { GradMode::set_enabled(on); }
inline bool is_grad_enabled() { return GradMode::is_enabled(); }

// Disables gradient recording in a scope (LibTorch's NoGradGuard).
class NoGradGuard {
 public:
  NoGradGuard() : prev_(GradMode::is_enabled()) { GradMode::set_enabled(false); }
  ~NoGradGuard() { GradMode::set_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

class AutoGradMode {
 public:
  explicit AutoGradMode(bool on) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(on); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

// Adds keys to (or removes them from) every dispatch of this thread in a scope.
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet ks)
      : prev_(detail::tls_local_state.included) {
    detail::tls_local_state.included = prev_ | ks;
  }
  ~IncludeDispatchKeyGuard() { detail::tls_local_state.included = prev_; }
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet prev_;
};

class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet ks)
      : prev_(detail::tls_local_state.excluded) {
    detail::tls_local_state.excluded = prev_ | ks;
  }
  ~ExcludeDispatchKeyGuard() { detail::tls_local_state.excluded = prev_; }
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet prev_;
};

// No gradients and no autograd layer at all in a scope (LibTorch's InferenceMode).
class InferenceMode {
 public:
  explicit InferenceMode(bool on = true) : prev_(detail::tls_local_state) {
    if (on) {
      auto& s = detail::tls_local_state;
      s.grad_enabled = false;
      s.inference_mode = true;
      s.excluded = s.excluded | DispatchKeySet::of(Functionality::Autograd);
    }
  }
  ~InferenceMode() { detail::tls_local_state = prev_; }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return detail::tls_local_state.inference_mode; }

 private:
  LocalState prev_;
};

}  // namespace ember
