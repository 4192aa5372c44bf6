#pragma once
// torch.distributed's functions in C++ (ember::distributed): the default group, init_process_group
// with torchrun's environment, new_group, and the collectives on a group (the default one when
// `group` is null). A collective returns its Work handle when async_op is true and null after
// waiting for it otherwise, as torch.distributed returns a handle or None.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/distributed/ProcessGroup.h"
#include "ember/distributed/Store.h"

namespace ember::distributed {

using c10d::ReduceOp;
using c10d::Store;
using c10d::Work;
using ProcessGroup = std::shared_ptr<c10d::ProcessGroup>;

// torch.distributed.default_pg_timeout (30 minutes).
inline constexpr std::chrono::milliseconds default_pg_timeout = std::chrono::minutes(30);

struct InitProcessGroupOptions {
  // "gloo", "mpi", "nccl", or any registered backend.
  std::string backend = "gloo";
  // "env://" (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE), "tcp://host:port" or "file:///path";
  // ignored when `store` is given. Empty: "env://".
  std::string init_method;
  std::chrono::milliseconds timeout = default_pg_timeout;
  int world_size = -1;  // -1: from the environment (or MPI)
  int rank = -1;
  std::shared_ptr<Store> store;
  std::string group_name;
};

EMBER_API void init_process_group(const InitProcessGroupOptions& opts);
// init_process_group("gloo", "tcp://127.0.0.1:29500", 2, rank).
EMBER_API void init_process_group(const std::string& backend, const std::string& init_method = "", int world_size = -1,
                                  int rank = -1, std::chrono::milliseconds timeout = default_pg_timeout);
EMBER_API bool is_initialized();
// Destroys `group`, or every group and the default one when null.
EMBER_API void destroy_process_group(const ProcessGroup& group = nullptr);
EMBER_API bool is_available();
EMBER_API bool is_backend_available(const std::string& backend);
EMBER_API bool is_gloo_available();
EMBER_API bool is_mpi_available();
EMBER_API bool is_nccl_available();
EMBER_API bool is_torchelastic_launched();

// The group's rank of this process, or -1 when it is not a member.
EMBER_API int get_rank(const ProcessGroup& group = nullptr);
EMBER_API int get_world_size(const ProcessGroup& group = nullptr);
EMBER_API std::string get_backend(const ProcessGroup& group = nullptr);
// The world rank of `group`'s member `group_rank`, and back.
EMBER_API int get_global_rank(const ProcessGroup& group, int group_rank);
EMBER_API int get_group_rank(const ProcessGroup& group, int global_rank);
// The group itself (the default group when null); throws when none is initialized.
EMBER_API ProcessGroup resolve_group(const ProcessGroup& group = nullptr);
// The default group's store (PrefixStore'd per group by new_group).
EMBER_API std::shared_ptr<Store> get_default_store();

// A group of the given world ranks (every rank must call it, with the same ranks, as PyTorch);
// null for the ranks outside it. Empty ranks: all.
EMBER_API ProcessGroup new_group(const std::vector<int>& ranks = {},
                                 std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                                 const std::string& backend = "");

EMBER_API std::shared_ptr<Work> broadcast(Tensor& tensor, int src, const ProcessGroup& group = nullptr,
                                          bool async_op = false);
EMBER_API std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM,
                                           const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op = ReduceOp::SUM,
                                       const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor,
                                           const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API std::shared_ptr<Work> all_gather_into_tensor(Tensor& output_tensor, const Tensor& input_tensor,
                                                       const ProcessGroup& group = nullptr, bool async_op = false);
// gather_list is used on `dst` only.
EMBER_API std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>* gather_list, int dst = 0,
                                       const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API std::shared_ptr<Work> scatter(Tensor& tensor, const std::vector<Tensor>* scatter_list, int src = 0,
                                        const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API std::shared_ptr<Work> reduce_scatter(Tensor& output, std::vector<Tensor>& input_list,
                                               ReduceOp op = ReduceOp::SUM, const ProcessGroup& group = nullptr,
                                               bool async_op = false);
EMBER_API std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::SUM,
                                                      const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API std::shared_ptr<Work> all_to_all(std::vector<Tensor>& output_tensor_list,
                                           std::vector<Tensor>& input_tensor_list, const ProcessGroup& group = nullptr,
                                           bool async_op = false);
EMBER_API std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input,
                                                  std::vector<int64_t> output_split_sizes = {},
                                                  std::vector<int64_t> input_split_sizes = {},
                                                  const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API std::shared_ptr<Work> barrier(const ProcessGroup& group = nullptr, bool async_op = false);
EMBER_API void send(const Tensor& tensor, int dst, const ProcessGroup& group = nullptr, int tag = 0);
// Returns the sender's rank.
EMBER_API int recv(Tensor& tensor, std::optional<int> src = std::nullopt, const ProcessGroup& group = nullptr,
                   int tag = 0);
EMBER_API std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const ProcessGroup& group = nullptr, int tag = 0);
EMBER_API std::shared_ptr<Work> irecv(Tensor& tensor, std::optional<int> src = std::nullopt,
                                      const ProcessGroup& group = nullptr, int tag = 0);

}  // namespace ember::distributed
