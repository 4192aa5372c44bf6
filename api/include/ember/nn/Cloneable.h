#pragma once
// Cloneable<Derived>: the base of modules that clone() can deep-copy (LibTorch's
// torch::nn::Cloneable). Derived implements reset(), which (re)creates every parameter, buffer
// and submodule; the constructor calls it.
//
// Note [Cloning modules]
// clone() copy-constructs Derived (so options and plain members carry over), clears what it
// registered, calls reset() to rebuild parameters, buffers and submodules, and then copies the
// original's state into what reset() built, in place: parameter and buffer data (cloned, or
// moved to `device`), requires_grad, training mode and hooks, submodule by submodule. Copying
// into reset()'s structure rather than replacing it keeps every member that reset() assigned
// (`weight`, `fc1`) pointing at the tensor or module registered under its name.
// One memo per outermost clone() call maps each original module and tensor to its copy, so what
// the original shares, and reset() shares again, stays shared in the copy: a submodule
// registered twice is one module in the copy, and a parameter tied across modules (reset()
// registering one tensor twice) is one tensor. Containers (Sequential, ModuleList, ...) clone
// their entries through the memo, so an entry held twice is cloned once. Sharing made after
// construction, which reset() does not rebuild, cannot be restored without re-pointing the
// members that reset() assigned: the copy gets independent copies there (LibTorch's result).
// A submodule whose rebuilt form does not match the original (another type, other names: one
// changed after construction) is cloned on its own and assigned over the rebuilt one, as LibTorch
// does. Gradients are not copied.
#include <memory>
#include <optional>
#include <unordered_map>

#include "ember/core/LocalState.h"
#include "ember/nn/Module.h"

namespace ember::nn {

namespace detail {

// The memo of one clone() call tree (thread-local; the outermost scope owns it).
class EMBER_API CloneScope {
 public:
  explicit CloneScope(const std::optional<Device>& device);
  ~CloneScope();
  CloneScope(const CloneScope&) = delete;
  CloneScope& operator=(const CloneScope&) = delete;

  std::shared_ptr<Module> find(const Module* original) const;
  void remember(const Module* original, std::shared_ptr<Module> copy);
  const Tensor* find(const Tensor& original) const;
  void remember(const Tensor& original, const Tensor& copy);
  const std::optional<Device>& device() const;
  // The copy of `original` made in this scope, or a new one (its data cloned, or moved to
  // device(); its requires_grad kept): for containers that clone their tensors by hand.
  Tensor clone_tensor(const Tensor& original);

  struct Memo;

 private:
  Memo* memo_;
  bool owner_;
};

}  // namespace detail

template <typename Derived>
class Cloneable : public virtual Module {
 public:
  using Module::Module;
  Cloneable() = default;
  Cloneable(const Cloneable&) = default;
  Cloneable(Cloneable&&) = default;
  Cloneable& operator=(const Cloneable&) = default;
  // Assignment copies: moving the virtual base Module could move it twice (GCC's
  // -Wvirtual-move-assign), and a derived module's move assignment falls back to the copy.
  Cloneable& operator=(Cloneable&&) = delete;

  // (Re)creates every parameter, buffer and submodule, from the options.
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    detail::CloneScope scope(device);
    if (auto done = scope.find(this)) return done;
    NoGradGuard no_grad;
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_for_clone();
    copy->reset();
    scope.remember(this, copy);
    copy->copy_state_for_clone(*this, scope);
    return copy;
  }

 private:
  // Becomes a clone of `other` (a submodule whose rebuilt form did not match).
  void clone_(Module& other, const std::optional<Device>& device) final {
    auto clone = std::dynamic_pointer_cast<Derived>(other.clone(device));
    EMBER_CHECK(clone != nullptr,
                "[clone] attempted to clone a submodule of type {} into one of type {}: reset() must rebuild "
                "submodules of the original's types",
                other.name(), this->name());
    static_cast<Derived&>(*this) = *clone;
  }
};

}  // namespace ember::nn
