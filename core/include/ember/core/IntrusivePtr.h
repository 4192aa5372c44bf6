#pragma once
// Intrusive reference counting: one atomic in the object, one pointer in the handle, so a
// Tensor is a single pointer and copying it is one atomic add.
#include <atomic>
#include <cstdint>
#include <utility>

#include "ember/core/Macros.h"

namespace ember {

class EMBER_API IntrusiveTarget {
 public:
  IntrusiveTarget() = default;
  IntrusiveTarget(const IntrusiveTarget&) = delete;
  IntrusiveTarget& operator=(const IntrusiveTarget&) = delete;
  virtual ~IntrusiveTarget() = default;
  uint32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

  void retain_() const { refcount_.fetch_add(1, std::memory_order_relaxed); }
  void release_() const {
    if (refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  mutable std::atomic<uint32_t> refcount_{0};
};

template <class T>
class IntrusivePtr {
 public:
  constexpr IntrusivePtr() noexcept = default;
  constexpr IntrusivePtr(std::nullptr_t) noexcept {}  // NOLINT
  // Takes a new reference.
  explicit IntrusivePtr(T* p) noexcept : p_(p) {
    if (p_) p_->retain_();
  }
  IntrusivePtr(const IntrusivePtr& o) noexcept : p_(o.p_) {
    if (p_) p_->retain_();
  }
// GCC 12 warns that p_ "may be used uninitialized" when a disengaged std::optional of a handle
// (std::optional<Generator>) is moved through an inlined call: a known false positive (gcc#80635).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
#pragma GCC diagnostic pop
  template <class U>
  IntrusivePtr(IntrusivePtr<U>&& o) noexcept : p_(o.release()) {}  // NOLINT
  template <class U>
  IntrusivePtr(const IntrusivePtr<U>& o) noexcept : IntrusivePtr(o.get()) {}  // NOLINT
  ~IntrusivePtr() {
    if (p_) p_->release_();
  }
  IntrusivePtr& operator=(const IntrusivePtr& o) noexcept {
    IntrusivePtr(o).swap(*this);
    return *this;
  }
  IntrusivePtr& operator=(IntrusivePtr&& o) noexcept {
    IntrusivePtr(std::move(o)).swap(*this);
    return *this;
  }
  void swap(IntrusivePtr& o) noexcept { std::swap(p_, o.p_); }
  void reset() noexcept { IntrusivePtr().swap(*this); }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  uint32_t use_count() const noexcept { return p_ ? p_->use_count() : 0; }
  // Gives up ownership without releasing.
  T* release() noexcept {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  // Adopts a pointer whose reference the caller already owns.
  static IntrusivePtr reclaim(T* p) noexcept {
    IntrusivePtr r;
    r.p_ = p;
    return r;
  }
  bool operator==(const IntrusivePtr& o) const noexcept { return p_ == o.p_; }

 private:
  T* p_ = nullptr;
};

// Always inlined: on a hot path (a kernel's fresh output) an out-of-line copy per argument list
// costs a call and the constructor's arguments passed twice.
template <class T, class... A>
EMBER_ALWAYS_INLINE IntrusivePtr<T> make_intrusive(A&&... a) {
  return IntrusivePtr<T>(new T(std::forward<A>(a)...));
}

}  // namespace ember
