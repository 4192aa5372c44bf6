#pragma once
// Distributed training: rendezvous stores and process groups (ember::c10d), torch.distributed's
// functions (ember::distributed), DistributedDataParallel (ember::nn::parallel) and DeviceMesh /
// DTensor (ember::distributed). The backends (Gloo, MPI) are in the `distributed` plugin, loaded
// when a group is first created.
#include "ember/distributed/Distributed.h"
#include "ember/distributed/ProcessGroup.h"
#include "ember/distributed/Store.h"
#include "ember/nn/parallel/DistributedDataParallel.h"
