#pragma once
// DTensor (torch.distributed.tensor): a global tensor laid out on a DeviceMesh, one placement per
// mesh dimension (Shard(dim), Replicate(), Partial(op)), each rank holding its local piece.
//
// Note [DTensor autograd]
// A DTensor's local tensor is an ordinary tensor with ordinary autograd history: ops on DTensors
// run the op on the local pieces, and each change of placement (redistribute, and the implicit
// ones the op rules make) is a custom autograd Function whose backward is the adjoint collective.
// The local gradient of a DTensor stands for the global gradient in the "gradient placement":
// Shard(d) -> Shard(d), Replicate -> Replicate (every rank holds the whole gradient), Partial ->
// Replicate (d(sum of pieces)/d(piece) is the identity). So the backward of a redistribution is the
// redistribution of the gradient from the output's gradient placement back to the input's:
// all_gather <-> chunk, reduce_scatter -> all_gather, all_reduce -> identity, all_to_all -> the
// reverse all_to_all. An op whose output is sharded or partial on a mesh dimension where one of its
// inputs is replicated (Replicate x Shard(1) matmul, a broadcast operand) leaves only that rank's
// share of the input's gradient on each rank: the op routes that input through an identity whose
// backward all-reduces (Megatron's "f"), so the replicated gradient stays whole. A loss computed
// identically on every rank from a full_tensor() then gives every rank the single-process gradients
// (sharded parameters their shard of them).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "ember/OrderedDict.h"
#include "ember/distributed/DeviceMesh.h"

namespace ember::nn {
class Module;
}  // namespace ember::nn

namespace ember::distributed {

// Splits the tensor along `dim` across the mesh dimension, as torch.chunk does (the last pieces may
// be smaller or empty).
struct Shard {
  explicit Shard(int64_t d) : dim(d) {}
  int64_t dim;
};
// Every rank holds the whole tensor.
struct Replicate {};
// Every rank holds a piece; the tensor is their reduction (SUM by default).
struct Partial {
  explicit Partial(ReduceOp op = ReduceOp::SUM) : reduce_op(op) {}
  ReduceOp reduce_op;
};

class EMBER_API Placement {
 public:
  Placement(Shard s) : v_(s) {}      // NOLINT(google-explicit-constructor)
  Placement(Replicate r) : v_(r) {}  // NOLINT(google-explicit-constructor)
  Placement(Partial p) : v_(p) {}    // NOLINT(google-explicit-constructor)
  Placement() : v_(Replicate{}) {}

  bool is_shard(std::optional<int64_t> dim = std::nullopt) const;
  bool is_replicate() const { return std::holds_alternative<Replicate>(v_); }
  bool is_partial() const { return std::holds_alternative<Partial>(v_); }
  int64_t shard_dim() const;   // a Shard's dim
  ReduceOp reduce_op() const;  // a Partial's op
  bool operator==(const Placement& o) const;
  bool operator!=(const Placement& o) const { return !(*this == o); }
  // "Shard(dim=0)", "Replicate()", "Partial(sum)" (PyTorch's repr).
  std::string to_string() const;

 private:
  std::variant<Shard, Replicate, Partial> v_;
};
using Placements = std::vector<Placement>;
EMBER_API std::ostream& operator<<(std::ostream& os, const Placement& p);
EMBER_API std::string to_string(const Placements& placements);

// What a DTensor is: its mesh and placements and the global tensor's metadata. Shard dims are
// stored non-negative.
struct EMBER_API DTensorSpec {
  DeviceMesh mesh;
  Placements placements;
  std::vector<int64_t> shape;   // global
  std::vector<int64_t> stride;  // global (contiguous for results of ops)
  ScalarType dtype = kFloat32;

  // The shape of this rank's piece and its offset in the global tensor (torch.chunk splits along
  // each Shard, mesh dimension by mesh dimension).
  std::vector<int64_t> local_shape() const;
  std::vector<int64_t> local_offset() const;
  // Mesh dimensions that shard tensor dim `dim`.
  std::vector<int64_t> mesh_dims_sharding(int64_t dim) const;
  bool operator==(const DTensorSpec& o) const;
};

class EMBER_API DTensor {
 public:
  DTensor() = default;
  // Wraps `local` as this rank's piece of the tensor `spec` describes (its shape must be
  // spec.local_shape()). Nothing is communicated.
  DTensor(Tensor local, DTensorSpec spec);

  // The DTensor whose piece on this rank is `local` (torch's DTensor.from_local). The global shape
  // is `shape` when given, else the local one with every sharded dim multiplied by the mesh
  // dimension's size (even shards). run_check broadcasts coordinate 0's values to the replicated
  // mesh dimensions and checks the local shapes agree with the global shape. Differentiable: the
  // result's local tensor is `local` itself.
  static DTensor from_local(const Tensor& local, const DeviceMesh& mesh, Placements placements, bool run_check = false,
                            std::optional<std::vector<int64_t>> shape = std::nullopt,
                            std::optional<std::vector<int64_t>> stride = std::nullopt);

  bool defined() const noexcept { return local_.defined(); }
  // This rank's piece (with its autograd history; no copy).
  const Tensor& to_local() const;
  // The global tensor on every rank (redistribute to Replicate everywhere). Differentiable.
  Tensor full_tensor() const;
  // The same global tensor with new placements on `mesh` (only the same mesh is implemented).
  // Differentiable (Note [DTensor autograd]).
  DTensor redistribute(const DeviceMesh& mesh, Placements placements) const;
  DTensor redistribute(Placements placements) const;

  const DTensorSpec& spec() const;
  const DeviceMesh& device_mesh() const;
  const Placements& placements() const;
  const std::vector<int64_t>& sizes() const;
  const std::vector<int64_t>& strides() const;
  int64_t size(int64_t dim) const;
  int64_t dim() const;
  int64_t numel() const;
  ScalarType scalar_type() const;

  bool requires_grad() const;
  DTensor& requires_grad_(bool on = true);
  // The local tensor's gradient as a DTensor in the gradient placement (Note [DTensor autograd]);
  // undefined when there is none.
  DTensor grad() const;
  DTensor detach() const;
  // The 2-D transpose (placements follow the dims).
  DTensor t() const;

  std::string to_string() const;

 private:
  Tensor local_;
  DTensorSpec spec_;
};
EMBER_API std::ostream& operator<<(std::ostream& os, const DTensor& t);

// Scatters `tensor` from mesh coordinate 0 (group rank 0 along each mesh dimension, so in the end
// from the mesh's first rank): Shard splits as torch.chunk, Replicate broadcasts. Every rank
// passes a tensor of the global shape and dtype; only the first rank's values matter. The result
// is a leaf that requires grad when `tensor` does.
EMBER_API DTensor distribute_tensor(const Tensor& tensor, const DeviceMesh& mesh, Placements placements);

// ---- ops (placement rules in DTensor.cpp) ------------------------------------------------------
// Elementwise: operands whose placements differ from the first's are redistributed to the
// first's (a broadcast operand stays Replicate on a dimension it does not have); Partial survives
// only linear ops (add/sub of Partials, neg, mul/div by a scalar) and is all-reduced before the rest.
EMBER_API DTensor add(const DTensor& a, const DTensor& b, const Scalar& alpha = 1);
EMBER_API DTensor sub(const DTensor& a, const DTensor& b, const Scalar& alpha = 1);
EMBER_API DTensor mul(const DTensor& a, const DTensor& b);
EMBER_API DTensor div(const DTensor& a, const DTensor& b);
EMBER_API DTensor add(const DTensor& a, const Scalar& b);
EMBER_API DTensor sub(const DTensor& a, const Scalar& b);
EMBER_API DTensor mul(const DTensor& a, const Scalar& b);
EMBER_API DTensor div(const DTensor& a, const Scalar& b);
EMBER_API DTensor neg(const DTensor& a);
EMBER_API DTensor relu(const DTensor& a);
EMBER_API DTensor gelu(const DTensor& a, std::string_view approximate = "none");
EMBER_API DTensor tanh(const DTensor& a);
EMBER_API DTensor sigmoid(const DTensor& a);
// Matmul (self [..., n, k] x other [k, m]): Shard(row or batch) x Replicate -> the same Shard;
// Replicate x Shard(1) -> Shard(last); Shard(k) x Shard(0) -> Partial; Partial x Replicate and
// Replicate x Partial -> Partial; otherwise both are redistributed to Replicate.
EMBER_API DTensor matmul(const DTensor& a, const DTensor& b);
EMBER_API DTensor mm(const DTensor& a, const DTensor& b);
// input @ weight.t() + bias.
EMBER_API DTensor linear(const DTensor& input, const DTensor& weight,
                         const std::optional<DTensor>& bias = std::nullopt);
// A Shard on a reduced dim becomes Partial(sum).
EMBER_API DTensor sum(const DTensor& a);
EMBER_API DTensor sum(const DTensor& a, const std::vector<int64_t>& dim, bool keepdim = false);

EMBER_API DTensor operator+(const DTensor& a, const DTensor& b);
EMBER_API DTensor operator-(const DTensor& a, const DTensor& b);
EMBER_API DTensor operator*(const DTensor& a, const DTensor& b);
EMBER_API DTensor operator/(const DTensor& a, const DTensor& b);
EMBER_API DTensor operator+(const DTensor& a, const Scalar& b);
EMBER_API DTensor operator-(const DTensor& a, const Scalar& b);
EMBER_API DTensor operator*(const DTensor& a, const Scalar& b);
EMBER_API DTensor operator/(const DTensor& a, const Scalar& b);
EMBER_API DTensor operator-(const DTensor& a);

// ---- distribute_module --------------------------------------------------------------------------
// Returns the placements of `module`'s own parameters and buffers by name (those left out are
// replicated); called for every submodule with its dotted name ("" for the root).
using PartitionFn = std::function<std::map<std::string, Placements>(const std::string& module_name, nn::Module& module,
                                                                    const DeviceMesh& mesh)>;
// Forward's tensor inputs (or outputs) in, the tensors forward receives (or returns) out: run as a
// forward pre-hook (forward hook) of the root module.
using InputFn =
    std::function<std::vector<Tensor>(nn::Module& module, const std::vector<Tensor>& inputs, const DeviceMesh& mesh)>;
using OutputFn =
    std::function<std::vector<Tensor>(nn::Module& module, const std::vector<Tensor>& outputs, const DeviceMesh& mesh)>;

// What distribute_module made: the DTensor of every parameter and buffer under its dotted name.
// Module holds plain tensors, so each DTensor's local tensor IS the module's parameter (it was
// given its piece in place, keeping its identity): the module's optimizer and gradients work on
// the pieces, and parameter(name) sees them as DTensors.
struct EMBER_API DistributedModule {
  std::shared_ptr<nn::Module> module;
  DeviceMesh mesh;
  OrderedDict<std::string, DTensor> parameters;
  OrderedDict<std::string, DTensor> buffers;

  // The parameter `name` as a DTensor (its gradient included); IndexError names the known ones.
  DTensor parameter(const std::string& name) const;
  DTensor buffer(const std::string& name) const;
};

// torch.distributed.tensor.distribute_module: every parameter and buffer becomes a DTensor,
// Replicate by default (broadcast from the mesh's first rank) or as partition_fn places it; input_fn
// and output_fn (when set) wrap forward's inputs and outputs.
EMBER_API DistributedModule distribute_module(const std::shared_ptr<nn::Module>& module, const DeviceMesh& mesh,
                                              const PartitionFn& partition_fn = nullptr,
                                              const InputFn& input_fn = nullptr, const OutputFn& output_fn = nullptr);

}  // namespace ember::distributed
