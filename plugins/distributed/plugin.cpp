// The distributed plugin's descriptor and registration: each backend built into it registers its
// factory with libember's registry (ember/distributed/ProcessGroup.h) under torch.distributed's
// name, so init_process_group("gloo") finds it.
#include <string>
#include <vector>

#include "Backends.h"
#include "ember/dispatcher/Library.h"
#include "ember/distributed/ProcessGroup.h"
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("distributed", EMBER_VERSION_STRING)

namespace ember::dist {

void register_backends() {
  std::vector<std::string> done;
  try {
#ifdef EMBER_HAVE_GLOO
    c10d::register_backend("gloo", &make_gloo_process_group);
    done.emplace_back("gloo");
#endif
#ifdef EMBER_HAVE_MPI
    c10d::register_backend("mpi", &make_mpi_process_group);
    done.emplace_back("mpi");
#endif
  } catch (...) {
    for (auto& name : done) c10d::unregister_backend(name);
    throw;
  }
}

}  // namespace ember::dist

EMBER_LIBRARY_FRAGMENT(c10d, m) {
  (void)m;
  ember::dist::register_backends();
}
