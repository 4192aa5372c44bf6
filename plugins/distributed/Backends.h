#pragma once
// The backends of the distributed plugin.
#include <memory>

#include "ember/distributed/ProcessGroup.h"

namespace ember::dist {
// Registers every backend this build has; undoes its own registrations when one fails.
void register_backends();

#ifdef EMBER_HAVE_GLOO
std::shared_ptr<c10d::ProcessGroup> make_gloo_process_group(const c10d::BackendArgs& args);
#endif
#ifdef EMBER_HAVE_MPI
std::shared_ptr<c10d::ProcessGroup> make_mpi_process_group(const c10d::BackendArgs& args);
#endif
}  // namespace ember::dist
