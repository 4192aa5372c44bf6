#pragma once
// DeviceMesh (torch.distributed.device_mesh): the world's ranks laid out as an n-D array, with one
// process group per mesh dimension for the slice this rank is in. DTensor (DTensor.h) places a
// tensor on a mesh, one placement per mesh dimension.
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ember/distributed/Distributed.h"

namespace ember::distributed {

class EMBER_API DeviceMesh {
 public:
  // `mesh`: world ranks in row-major order, laid out as `shape` (empty: 1-D). Every rank of the
  // world constructs the same mesh: each creates, with new_group, the group of every slice along
  // every mesh dimension in the same order (a 1-D slice that is the whole world reuses the default
  // group), as PyTorch. A rank outside the mesh gets no coordinate and no groups.
  DeviceMesh(std::string device_type, std::vector<int64_t> mesh, std::vector<int64_t> shape = {},
             std::vector<std::string> mesh_dim_names = {});
  DeviceMesh() = default;

  bool defined() const noexcept { return impl_ != nullptr; }
  const std::string& device_type() const;
  int64_t ndim() const;
  // The mesh's shape (PyTorch's mesh.shape).
  const std::vector<int64_t>& shape() const;
  // The number of ranks along `dim`, or in the whole mesh.
  int64_t size(int64_t dim) const;
  int64_t size() const;
  // The world ranks, row-major.
  const std::vector<int64_t>& mesh() const;
  const std::vector<std::string>& mesh_dim_names() const;
  // The group of this rank's slice along `dim` (null when this rank is outside the mesh).
  ProcessGroup get_group(int64_t dim) const;
  ProcessGroup get_group(const std::string& mesh_dim_name) const;
  // Only a 1-D mesh has a group without naming a dimension.
  ProcessGroup get_group() const;
  std::vector<ProcessGroup> get_all_groups() const;
  // This rank's index along every mesh dimension; nullopt outside the mesh.
  std::optional<std::vector<int64_t>> get_coordinate() const;
  // This rank's index along `dim` (its rank in get_group(dim)).
  int64_t get_local_rank(int64_t dim) const;
  int64_t get_local_rank(const std::string& mesh_dim_name) const;
  // The world rank of this process.
  int get_rank() const;
  // The sub-mesh of the named dimensions that contains this rank (mesh["tp"], mesh[{"dp", "tp"}]);
  // it shares the parent's groups and creates none.
  DeviceMesh operator[](const std::string& mesh_dim_name) const;
  DeviceMesh operator[](const std::vector<std::string>& mesh_dim_names) const;

  // Same device type, shape, ranks and dimension names.
  bool operator==(const DeviceMesh& other) const;
  bool operator!=(const DeviceMesh& other) const { return !(*this == other); }
  // "DeviceMesh('cpu', [[0, 1], [2, 3]], mesh_dim_names=('dp', 'tp'))"
  std::string to_string() const;

  // Resolves a dimension (negative counts from the end) or a dimension name; `fn` leads errors.
  int64_t _dim(int64_t dim, const char* fn) const;
  int64_t _dim(const std::string& name, const char* fn) const;
  // A number naming this mesh's groups for the lifetime of the process (autograd nodes find the
  // mesh by it in backward without keeping it alive).
  int64_t _id() const;
  static DeviceMesh _find(int64_t id);

  struct Impl;

 private:
  explicit DeviceMesh(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const Impl& impl(const char* fn) const;
  std::shared_ptr<Impl> impl_;
};

EMBER_API std::ostream& operator<<(std::ostream& os, const DeviceMesh& mesh);

// A mesh of the world's ranks 0..N-1 shaped `mesh_shape` (torch.distributed.init_device_mesh);
// the default process group must be initialized and N must be its size.
EMBER_API DeviceMesh init_device_mesh(const std::string& device_type, const std::vector<int64_t>& mesh_shape,
                                      const std::vector<std::string>& mesh_dim_names = {});

}  // namespace ember::distributed
