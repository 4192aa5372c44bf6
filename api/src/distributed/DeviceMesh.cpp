// DeviceMesh (ember/distributed/DeviceMesh.h): the rank layout, one group per mesh dimension
// for this rank's slice, coordinates and sub-meshes.
#include "ember/distributed/DeviceMesh.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "ember/core/Exception.h"

namespace ember::distributed {

struct DeviceMesh::Impl {
  std::string device_type;
  std::vector<int64_t> shape;
  std::vector<int64_t> ranks;
  std::vector<std::string> names;
  std::vector<ProcessGroup> groups;  // per mesh dim; null outside the mesh
  std::optional<std::vector<int64_t>> coord;
  int rank = -1;
  int64_t id = 0;
};

namespace {

struct Registry {
  std::mutex mu;
  int64_t next = 1;
  std::unordered_map<int64_t, std::weak_ptr<DeviceMesh::Impl>> meshes;
};
// Never destroyed: autograd nodes may look meshes up during static destruction.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// Gives the mesh its id; forgets the meshes that are gone.
void register_mesh(const std::shared_ptr<DeviceMesh::Impl>& impl) {
  auto& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mu);
  std::erase_if(reg.meshes, [](const auto& e) { return e.second.expired(); });
  impl->id = reg.next++;
  reg.meshes[impl->id] = impl;
}

int64_t product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", '" : "'") + names[i] + "'";
  return s;
}

}  // namespace

DeviceMesh::DeviceMesh(std::string device_type, std::vector<int64_t> mesh, std::vector<int64_t> shape,
                       std::vector<std::string> mesh_dim_names) {
  if (device_type != "cpu")
    throw NotImplementedError(
        fmt::format("[DeviceMesh] device_type: only 'cpu' meshes are implemented (the Gloo and MPI backends), got '{}'",
                    device_type));
  EMBER_CHECK(is_initialized(), "[DeviceMesh] expected an initialized default process group (call init_process_group)");
  if (shape.empty()) shape = {static_cast<int64_t>(mesh.size())};
  for (int64_t s : shape)
    EMBER_CHECK(s > 0, "[DeviceMesh] shape: expected positive sizes, got {}", fmt::join(shape, ", "));
  EMBER_CHECK(product(shape) == static_cast<int64_t>(mesh.size()),
              "[DeviceMesh] mesh: expected {} ranks for shape [{}], got {}", product(shape), fmt::join(shape, ", "),
              mesh.size());
  int world = get_world_size();
  std::unordered_set<int64_t> seen;
  for (int64_t r : mesh) {
    EMBER_CHECK(r >= 0 && r < world, "[DeviceMesh] mesh: expected world ranks in [0, {}), got {}", world, r);
    EMBER_CHECK(seen.insert(r).second, "[DeviceMesh] mesh: rank {} is listed twice", r);
  }
  if (!mesh_dim_names.empty()) {
    EMBER_CHECK(mesh_dim_names.size() == shape.size(), "[DeviceMesh] mesh_dim_names: expected {} names, got {}",
                shape.size(), mesh_dim_names.size());
    std::unordered_set<std::string> names(mesh_dim_names.begin(), mesh_dim_names.end());
    EMBER_CHECK(names.size() == mesh_dim_names.size(), "[DeviceMesh] mesh_dim_names: expected unique names, got {}",
                join_names(mesh_dim_names));
  }
  auto impl = std::make_shared<Impl>();
  impl->device_type = std::move(device_type);
  impl->shape = std::move(shape);
  impl->ranks = std::move(mesh);
  impl->names = std::move(mesh_dim_names);
  impl->rank = distributed::get_rank();
  const int64_t nd = static_cast<int64_t>(impl->shape.size());
  // Row-major strides of the rank layout.
  std::vector<int64_t> stride(nd, 1);
  for (int64_t d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * impl->shape[d + 1];
  auto pos = std::find(impl->ranks.begin(), impl->ranks.end(), impl->rank);
  if (pos != impl->ranks.end()) {
    int64_t flat = pos - impl->ranks.begin();
    std::vector<int64_t> c(nd);
    for (int64_t d = 0; d < nd; ++d) c[d] = (flat / stride[d]) % impl->shape[d];
    impl->coord = c;
  }
  // Every slice along every dim, in row-major order of the other dims: the same list on every
  // rank, checked whole before any group is created.
  std::vector<std::vector<std::vector<int>>> slices(nd);
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t n = impl->shape[d], count = product(impl->shape) / n;
    for (int64_t s = 0; s < count; ++s) {
      int64_t base = 0, rest = s;
      for (int64_t e = nd - 1; e >= 0; --e) {
        if (e == d) continue;
        base += (rest % impl->shape[e]) * stride[e];
        rest /= impl->shape[e];
      }
      std::vector<int> ranks(n);
      for (int64_t i = 0; i < n; ++i) ranks[i] = static_cast<int>(impl->ranks[base + i * stride[d]]);
      // new_group orders members by rank; a slice's coordinates must agree with its group ranks.
      for (int64_t i = 1; i < n; ++i)
        if (ranks[i] < ranks[i - 1])
          throw NotImplementedError(
              fmt::format("[DeviceMesh] mesh: ranks along mesh dimension {} must increase (process groups order "
                          "members by rank), got [{}]",
                          d, fmt::join(ranks, ", ")));
      slices[d].push_back(std::move(ranks));
    }
  }
  impl->groups.resize(nd);
  for (int64_t d = 0; d < nd; ++d) {
    for (const auto& ranks : slices[d]) {
      bool whole_world = static_cast<int>(ranks.size()) == world;
      for (size_t i = 0; whole_world && i < ranks.size(); ++i) whole_world = ranks[i] == static_cast<int>(i);
      ProcessGroup g = whole_world ? resolve_group() : new_group(ranks);
      if (std::find(ranks.begin(), ranks.end(), impl->rank) != ranks.end()) impl->groups[d] = g;
    }
  }
  register_mesh(impl);
  impl_ = std::move(impl);
}

const DeviceMesh::Impl& DeviceMesh::impl(const char* fn) const {
  EMBER_CHECK(impl_ != nullptr, "[{}] expected a DeviceMesh, got an undefined one", fn);
  return *impl_;
}

const std::string& DeviceMesh::device_type() const { return impl("DeviceMesh.device_type").device_type; }
int64_t DeviceMesh::ndim() const { return static_cast<int64_t>(impl("DeviceMesh.ndim").shape.size()); }
const std::vector<int64_t>& DeviceMesh::shape() const { return impl("DeviceMesh.shape").shape; }
int64_t DeviceMesh::size(int64_t dim) const { return impl_->shape[_dim(dim, "DeviceMesh.size")]; }
int64_t DeviceMesh::size() const { return static_cast<int64_t>(impl("DeviceMesh.size").ranks.size()); }
const std::vector<int64_t>& DeviceMesh::mesh() const { return impl("DeviceMesh.mesh").ranks; }
const std::vector<std::string>& DeviceMesh::mesh_dim_names() const { return impl("DeviceMesh.mesh_dim_names").names; }
int DeviceMesh::get_rank() const { return impl("DeviceMesh.get_rank").rank; }
int64_t DeviceMesh::_id() const { return impl("DeviceMesh").id; }

int64_t DeviceMesh::_dim(int64_t dim, const char* fn) const {
  const int64_t nd = static_cast<int64_t>(impl(fn).shape.size());
  EMBER_CHECK(dim >= -nd && dim < nd, "[{}] mesh_dim: expected a dimension in [{}, {}) of a {}-D mesh, got {}", fn, -nd,
              nd, nd, dim);
  return dim < 0 ? dim + nd : dim;
}

int64_t DeviceMesh::_dim(const std::string& name, const char* fn) const {
  const auto& names = impl(fn).names;
  auto it = std::find(names.begin(), names.end(), name);
  if (names.empty())
    throw IndexError(fmt::format("[{}] mesh_dim_name: the mesh has no dimension names, got '{}'", fn, name));
  if (it == names.end())
    throw IndexError(fmt::format("[{}] mesh_dim_name: expected one of {}, got '{}'", fn, join_names(names), name));
  return it - names.begin();
}

ProcessGroup DeviceMesh::get_group(int64_t dim) const { return impl_->groups[_dim(dim, "DeviceMesh.get_group")]; }
ProcessGroup DeviceMesh::get_group(const std::string& name) const {
  return impl_->groups[_dim(name, "DeviceMesh.get_group")];
}
ProcessGroup DeviceMesh::get_group() const {
  EMBER_CHECK(ndim() == 1,
              "[DeviceMesh.get_group] mesh_dim: expected one for a {}-D mesh (only a 1-D mesh has a default)", ndim());
  return impl_->groups[0];
}
std::vector<ProcessGroup> DeviceMesh::get_all_groups() const { return impl("DeviceMesh.get_all_groups").groups; }

std::optional<std::vector<int64_t>> DeviceMesh::get_coordinate() const {
  return impl("DeviceMesh.get_coordinate").coord;
}

int64_t DeviceMesh::get_local_rank(int64_t dim) const {
  int64_t d = _dim(dim, "DeviceMesh.get_local_rank");
  EMBER_CHECK(impl_->coord.has_value(), "[DeviceMesh.get_local_rank] rank {} is not in the mesh {}", impl_->rank,
              to_string());
  return (*impl_->coord)[d];
}
int64_t DeviceMesh::get_local_rank(const std::string& name) const {
  return get_local_rank(_dim(name, "DeviceMesh.get_local_rank"));
}

DeviceMesh DeviceMesh::operator[](const std::string& name) const { return (*this)[std::vector<std::string>{name}]; }

DeviceMesh DeviceMesh::operator[](const std::vector<std::string>& names) const {
  const Impl& p = impl("DeviceMesh.__getitem__");
  EMBER_CHECK(!names.empty(), "[DeviceMesh.__getitem__] mesh_dim_names: expected at least one name");
  std::vector<int64_t> dims;
  for (const auto& n : names) {
    int64_t d = _dim(n, "DeviceMesh.__getitem__");
    EMBER_CHECK(dims.empty() || d > dims.back(),
                "[DeviceMesh.__getitem__] mesh_dim_names: expected distinct names in the mesh's order ({}), got {}",
                join_names(p.names), join_names(names));
    dims.push_back(d);
  }
  EMBER_CHECK(p.coord.has_value(), "[DeviceMesh.__getitem__] rank {} is not in the mesh {}", p.rank, to_string());
  const int64_t nd = static_cast<int64_t>(p.shape.size());
  std::vector<int64_t> stride(nd, 1);
  for (int64_t d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * p.shape[d + 1];
  auto impl = std::make_shared<Impl>();
  impl->device_type = p.device_type;
  impl->rank = p.rank;
  // The slice through this rank: other dims fixed at its coordinate.
  int64_t base = 0;
  for (int64_t d = 0; d < nd; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) base += (*p.coord)[d] * stride[d];
  std::vector<int64_t> sub_shape, sub_coord;
  for (int64_t d : dims) {
    sub_shape.push_back(p.shape[d]);
    sub_coord.push_back((*p.coord)[d]);
    impl->names.push_back(p.names[d]);
    impl->groups.push_back(p.groups[d]);
  }
  const int64_t n = product(sub_shape), k = static_cast<int64_t>(dims.size());
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t off = base, rest = flat;
    for (int64_t i = k - 1; i >= 0; --i) {
      off += (rest % sub_shape[i]) * stride[dims[i]];
      rest /= sub_shape[i];
    }
    impl->ranks.push_back(p.ranks[off]);
  }
  impl->shape = std::move(sub_shape);
  impl->coord = std::move(sub_coord);
  register_mesh(impl);
  return DeviceMesh(std::move(impl));
}

DeviceMesh DeviceMesh::_find(int64_t id) {
  auto& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mu);
  auto it = reg.meshes.find(id);
  std::shared_ptr<Impl> impl = it == reg.meshes.end() ? nullptr : it->second.lock();
  if (!impl) {
    if (it != reg.meshes.end()) reg.meshes.erase(it);
    throw ValueError("[DTensor backward] the DeviceMesh of this graph was destroyed before backward");
  }
  return DeviceMesh(std::move(impl));
}

bool DeviceMesh::operator==(const DeviceMesh& other) const {
  if (impl_ == other.impl_) return true;
  if (!impl_ || !other.impl_) return false;
  return impl_->device_type == other.impl_->device_type && impl_->shape == other.impl_->shape &&
         impl_->ranks == other.impl_->ranks && impl_->names == other.impl_->names;
}

std::string DeviceMesh::to_string() const {
  if (!impl_) return "DeviceMesh(undefined)";
  // Nested brackets for the n-D layout.
  std::string body;
  const auto& shape = impl_->shape;
  const int64_t nd = static_cast<int64_t>(shape.size());
  std::vector<int64_t> stride(nd, 1);
  for (int64_t d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  for (size_t i = 0; i < impl_->ranks.size(); ++i) {
    // A dim's bracket spans stride[d] * shape[d] ranks.
    int64_t opens = 0;
    for (int64_t d = 0; d < nd; ++d)
      if (static_cast<int64_t>(i) % (stride[d] * shape[d]) == 0) ++opens;
    if (i) body += ", ";
    body += std::string(opens, '[') + std::to_string(impl_->ranks[i]);
    int64_t closes = 0;
    for (int64_t d = 0; d < nd; ++d)
      if (static_cast<int64_t>(i + 1) % (stride[d] * shape[d]) == 0) ++closes;
    body += std::string(closes, ']');
  }
  std::string s = fmt::format("DeviceMesh('{}', {}", impl_->device_type, body);
  if (!impl_->names.empty()) {
    s += ", mesh_dim_names=(" + join_names(impl_->names);
    if (impl_->names.size() == 1) s += ",";
    s += ")";
  }
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const DeviceMesh& mesh) { return os << mesh.to_string(); }

DeviceMesh init_device_mesh(const std::string& device_type, const std::vector<int64_t>& mesh_shape,
                            const std::vector<std::string>& mesh_dim_names) {
  EMBER_CHECK(is_initialized(),
              "[init_device_mesh] expected an initialized default process group (call init_process_group)");
  EMBER_CHECK(!mesh_shape.empty(), "[init_device_mesh] mesh_shape: expected at least one dimension");
  for (int64_t s : mesh_shape)
    EMBER_CHECK(s > 0, "[init_device_mesh] mesh_shape: expected positive sizes, got [{}]", fmt::join(mesh_shape, ", "));
  const int64_t n = product(mesh_shape);
  EMBER_CHECK(n == get_world_size(),
              "[init_device_mesh] mesh_shape: expected {} ranks in all (the world size), got [{}]", get_world_size(),
              fmt::join(mesh_shape, ", "));
  std::vector<int64_t> ranks(n);
  std::iota(ranks.begin(), ranks.end(), int64_t{0});
  return DeviceMesh(device_type, std::move(ranks), mesh_shape, mesh_dim_names);
}

}  // namespace ember::distributed
