#pragma once
// Internal: the registry operations behind Library. Each returns the function that undoes it.
#include <functional>
#include <string>

#include "ember/dispatcher/Library.h"

namespace ember::detail {

using Undo = std::function<void()>;

Undo registry_claim_namespace(const std::string& ns, const Provenance& prov);
Undo registry_def(FunctionSchema schema, const Provenance& prov);
// `op` is "ns::name" or "ns::name.overload".
Undo registry_impl(const std::string& op, DispatchKey key, CppFunction f, const Provenance& prov);
Undo registry_fallback(DispatchKey key, CppFunction f, const Provenance& prov);

// Start-up (ensure_initialized) is ending: frees the tables replaced so far. See Note [Dispatch
// tables are published, never edited].
void registry_startup_done();

}  // namespace ember::detail
