#pragma once
// The seam between core and the autograd plugin.
//
// Note [AutogradHooks]
// ~~~~~~~~~~~~~~~~~~~~
// Core never links autograd. The autograd plugin installs one AutogradHooks table at
// registration; Tensor::backward, requires_grad_, grad() and autograd::grad call through it.
// The table is plain data with a version and its size, so a plugin built against an older
// table still loads (fields past struct_size are treated as absent). Without the plugin, each
// entry point throws NotImplementedError naming the plugin to load.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember {

struct AutogradHooks {
  static constexpr uint32_t kVersion = 1;
  uint32_t version = kVersion;
  uint32_t struct_size = sizeof(AutogradHooks);
  // Creates the meta of a tensor that starts requiring grad.
  std::unique_ptr<AutogradMetaInterface> (*make_meta)(TensorImpl* self) = nullptr;
  void (*backward)(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph) = nullptr;
  std::vector<Tensor> (*grad)(const std::vector<Tensor>& outputs,
                              const std::vector<Tensor>& inputs,
                              const std::vector<Tensor>& grad_outputs,
                              std::optional<bool> retain_graph, bool create_graph,
                              bool allow_unused) = nullptr;
};

// Installed by the autograd plugin (null to remove). The table must outlive its use.
EMBER_API void set_autograd_hooks(const AutogradHooks* hooks);
// Null when no autograd plugin is loaded.
EMBER_API const AutogradHooks* autograd_hooks();
// The hooks, or NotImplementedError "[what] needs the autograd plugin ..." when absent.
EMBER_API const AutogradHooks& require_autograd_hooks(const char* what);

}  // namespace ember
