// DTensor (ember/distributed/DTensor.h): placements and specs, the collectives that change a
// placement on one mesh dimension, redistribute's plan, distribute_tensor, the op rules and
// distribute_module. Autograd: Note [DTensor autograd] in the header.
#include "ember/distributed/DTensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ember/api/Autograd.h"
#include "ember/core/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/nn/Module.h"

namespace ember::distributed {

// ---- Placement ---------------------------------------------------------------------------------

bool Placement::is_shard(std::optional<int64_t> dim) const {
  auto* s = std::get_if<Shard>(&v_);
  return s && (!dim || s->dim == *dim);
}
int64_t Placement::shard_dim() const {
  auto* s = std::get_if<Shard>(&v_);
  EMBER_CHECK(s != nullptr, "[Placement.dim] expected a Shard placement, got {}", to_string());
  return s->dim;
}
ReduceOp Placement::reduce_op() const {
  auto* p = std::get_if<Partial>(&v_);
  EMBER_CHECK(p != nullptr, "[Placement.reduce_op] expected a Partial placement, got {}", to_string());
  return p->reduce_op;
}
bool Placement::operator==(const Placement& o) const {
  if (v_.index() != o.v_.index()) return false;
  if (is_shard()) return shard_dim() == o.shard_dim();
  if (is_partial()) return reduce_op() == o.reduce_op();
  return true;
}
std::string Placement::to_string() const {
  if (is_shard()) return fmt::format("Shard(dim={})", shard_dim());
  if (is_partial()) {
    std::string op = c10d::reduce_op_name(reduce_op());
    std::transform(op.begin(), op.end(), op.begin(), [](unsigned char c) { return std::tolower(c); });
    return "Partial(" + op + ")";
  }
  return "Replicate()";
}
std::ostream& operator<<(std::ostream& os, const Placement& p) { return os << p.to_string(); }
std::string to_string(const Placements& placements) {
  std::string s = "(";
  for (size_t i = 0; i < placements.size(); ++i) s += (i ? ", " : "") + placements[i].to_string();
  return s + (placements.size() == 1 ? ",)" : ")");
}

namespace {

using autograd::AutogradContext;
using autograd::variable_list;

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    st[d] = st[d + 1] * std::max<int64_t>(shape[d + 1], 1);
  return st;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// torch.chunk's piece i of a length-L dim split k ways.
int64_t chunk_size(int64_t L, int64_t k, int64_t i) {
  int64_t c = ceil_div(L, k);
  return std::clamp<int64_t>(L - i * c, 0, c);
}
int64_t chunk_offset(int64_t L, int64_t k, int64_t i) { return std::min(i * ceil_div(L, k), L); }

std::vector<int64_t> coordinate(const DeviceMesh& mesh, const char* fn) {
  auto co = mesh.get_coordinate();
  EMBER_CHECK(co.has_value(), "[{}] rank {} is not in the mesh {}", fn, mesh.get_rank(), mesh.to_string());
  return *co;
}

// Checks the placements against the mesh and a tensor of `ndim` dims; Shard dims made non-negative.
Placements normalize(Placements p, const DeviceMesh& mesh, int64_t ndim, const char* fn) {
  EMBER_CHECK(mesh.defined(), "[{}] device_mesh: expected a DeviceMesh, got an undefined one", fn);
  EMBER_CHECK(static_cast<int64_t>(p.size()) == mesh.ndim(),
              "[{}] placements: expected one placement per mesh dimension ({}), got {}", fn, mesh.ndim(), p.size());
  for (auto& pl : p) {
    if (!pl.is_shard()) continue;
    int64_t d = pl.shard_dim();
    EMBER_CHECK(d >= -ndim && d < ndim, "[{}] placements: Shard(dim={}) is out of range for a {}-D tensor", fn, d,
                ndim);
    if (d < 0) pl = Shard(d + ndim);
  }
  return p;
}

// The local shape (and offset) of `shape` under `placements` at `coord`.
void local_shape_offset(const std::vector<int64_t>& shape, const DeviceMesh& mesh, const Placements& placements,
                        const std::vector<int64_t>& coord, std::vector<int64_t>* out_shape,
                        std::vector<int64_t>* out_offset) {
  std::vector<int64_t> s = shape, off(shape.size(), 0);
  for (size_t m = 0; m < placements.size(); ++m) {
    if (!placements[m].is_shard()) continue;
    int64_t d = placements[m].shard_dim(), k = mesh.size(static_cast<int64_t>(m));
    off[d] += chunk_offset(s[d], k, coord[m]);
    s[d] = chunk_size(s[d], k, coord[m]);
  }
  if (out_shape) *out_shape = s;
  if (out_offset) *out_offset = off;
}

// The gradient placement of a placement (Note [DTensor autograd]).
Placement grad_placement(const Placement& p) { return p.is_partial() ? Placement(Replicate()) : p; }

// Placements travel through autograd contexts as integers.
int64_t encode(const Placement& p) {
  if (p.is_shard()) return 1 + 4 * p.shard_dim();
  if (p.is_partial()) return 2 + 4 * static_cast<int64_t>(p.reduce_op().op_);
  return 0;
}
Placement decode(int64_t v) {
  if (v % 4 == 1) return Shard(v / 4);
  if (v % 4 == 2) return Partial(static_cast<ReduceOp::RedOpType>(v / 4));
  return Replicate();
}

// ---- collectives on one mesh dimension ----------------------------------------------------------

struct Dim {
  ProcessGroup group;
  int64_t k;  // group size
  int64_t i;  // my index
};
Dim mesh_dim(const DeviceMesh& mesh, int64_t m, const char* fn) {
  return {mesh.get_group(m), mesh.size(m), coordinate(mesh, fn)[m]};
}

// `x` padded with zeros to `len` along `dim`.
Tensor pad_to(const Tensor& x, int64_t dim, int64_t len) {
  int64_t have = x.size(dim);
  if (have == len) return x;
  std::vector<int64_t> ps(x.sizes().begin(), x.sizes().end());
  ps[dim] = len - have;
  return cat({x, zeros(ps, x.options())}, dim);
}

// Shard(d) -> Replicate: everyone's pieces of the length-L dim, padded to equal size for the
// collective and cut back.
Tensor gather_dim(const Tensor& x, int64_t d, int64_t L, const Dim& md) {
  int64_t c = ceil_div(L, md.k);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape[d] = L;
  if (c == 0) return zeros(shape, x.options());
  Tensor buf = pad_to(x, d, c).transpose(0, d).contiguous();
  std::vector<int64_t> os(buf.sizes().begin(), buf.sizes().end());
  os[0] = c * md.k;
  Tensor out = empty(os, x.options());
  all_gather_into_tensor(out, buf, md.group);
  std::vector<Tensor> pieces;
  for (int64_t r = 0; r < md.k; ++r) pieces.push_back(narrow(out, 0, r * c, chunk_size(L, md.k, r)));
  return cat(pieces, 0).transpose(0, d).contiguous();
}

// Replicate -> Shard(d): my chunk.
Tensor chunk_dim(const Tensor& x, int64_t d, const Dim& md) {
  int64_t L = x.size(d);
  return narrow(x, d, chunk_offset(L, md.k, md.i), chunk_size(L, md.k, md.i)).contiguous();
}

Tensor all_reduce_copy(const Tensor& x, ReduceOp op, const Dim& md) {
  Tensor y = x.clone().contiguous();
  all_reduce(y, op, md.group);
  return y;
}

// Partial -> Shard(d): reduce, keeping my chunk.
Tensor reduce_scatter_dim(const Tensor& x, int64_t d, ReduceOp op, const Dim& md) {
  int64_t L = x.size(d), c = ceil_div(L, md.k);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape[d] = chunk_size(L, md.k, md.i);
  if (c == 0) return zeros(shape, x.options());
  Tensor in = pad_to(x, d, c * md.k).transpose(0, d).contiguous();
  std::vector<int64_t> os(in.sizes().begin(), in.sizes().end());
  os[0] = c;
  Tensor out = empty(os, x.options());
  reduce_scatter_tensor(out, in, op, md.group);
  return narrow(out, 0, 0, shape[d]).transpose(0, d).contiguous();
}

// Shard(i) -> Shard(j): one all_to_all of equal padded blocks. Li, Lj: the dims' full lengths.
Tensor all_to_all_dims(const Tensor& x, int64_t di, int64_t dj, int64_t Li, int64_t Lj, const Dim& md) {
  int64_t ci = ceil_div(Li, md.k), cj = ceil_div(Lj, md.k);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape[di] = Li;
  shape[dj] = chunk_size(Lj, md.k, md.i);
  if (ci == 0 || cj == 0) return zeros(shape, x.options());
  Tensor xp = pad_to(x, di, ci);
  std::vector<Tensor> blocks;
  for (int64_t q = 0; q < md.k; ++q)
    blocks.push_back(pad_to(narrow(xp, dj, chunk_offset(Lj, md.k, q), chunk_size(Lj, md.k, q)), dj, cj));
  Tensor in = stack(blocks, 0).contiguous();
  Tensor out = empty(in.sizes(), x.options());
  all_to_all_single(out, in, {}, {}, md.group);
  std::vector<Tensor> pieces;
  for (int64_t p = 0; p < md.k; ++p)
    pieces.push_back(narrow(narrow(out.select(0, p), di, 0, chunk_size(Li, md.k, p)), dj, 0, shape[dj]));
  return cat(pieces, di).contiguous();
}

// Replicate -> Partial(op): pieces whose reduction is x.
Tensor partition_value(const Tensor& x, ReduceOp op, const Dim& md) {
  switch (op) {
    case ReduceOp::SUM:
      return md.i == 0 ? x.clone() : zeros_like(x);
    case ReduceOp::PRODUCT:
      return md.i == 0 ? x.clone() : ones_like(x);
    default:  // AVG, MIN, MAX, bitwise: every piece equal to x
      return x.clone();
  }
}

// Changes mesh dimension m's placement of this rank's piece `x`. `logical`: the shape of the
// piece with mesh dimension m replicated.
Tensor transition(const Tensor& x, const DeviceMesh& mesh, int64_t m, const Placement& from, const Placement& to,
                  const std::vector<int64_t>& logical) {
  if (from == to) return x;
  Dim md = mesh_dim(mesh, m, "DTensor.redistribute");
  if (from.is_replicate()) {
    if (to.is_shard()) return chunk_dim(x, to.shard_dim(), md);
    return partition_value(x, to.reduce_op(), md);
  }
  if (from.is_shard()) {
    int64_t d = from.shard_dim();
    if (to.is_shard()) {
      int64_t e = to.shard_dim();
      return all_to_all_dims(x, d, e, logical[d], logical[e], md);
    }
    Tensor full = gather_dim(x, d, logical[d], md);
    return to.is_replicate() ? full : partition_value(full, to.reduce_op(), md);
  }
  ReduceOp op = from.reduce_op();
  if (to.is_shard()) return reduce_scatter_dim(x, to.shard_dim(), op, md);
  Tensor full = all_reduce_copy(x, op, md);
  return to.is_replicate() ? full : partition_value(full, to.reduce_op(), md);
}

// One mesh dimension's change of placement, differentiable.
struct RedistributeStep : autograd::Function<RedistributeStep> {
  static constexpr bool is_once_differentiable = true;
  static Tensor forward(AutogradContext* ctx, Tensor x, int64_t mesh_id, int64_t m, int64_t from, int64_t to,
                        std::vector<int64_t> logical) {
    ctx->saved_data["mesh"] = mesh_id;
    ctx->saved_data["m"] = m;
    ctx->saved_data["from"] = from;
    ctx->saved_data["to"] = to;
    ctx->saved_data["logical"] = logical;
    return transition(x, DeviceMesh::_find(mesh_id), m, decode(from), decode(to), logical);
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    Placement from = decode(ctx->saved_data["from"].toInt()), to = decode(ctx->saved_data["to"].toInt());
    for (const Placement& p : {from, to})
      if (p.is_partial() && p.reduce_op() != ReduceOp::SUM)
        throw NotImplementedError(fmt::format(
            "[DTensor.redistribute backward] the gradient of a redistribution from {} to {} (only Partial(sum) "
            "is differentiable)",
            from.to_string(), to.to_string()));
    DeviceMesh mesh = DeviceMesh::_find(ctx->saved_data["mesh"].toInt());
    std::vector<int64_t> logical = ctx->saved_data["logical"].toIntVector();
    Tensor gx = transition(g[0].contiguous(), mesh, ctx->saved_data["m"].toInt(), grad_placement(to),
                           grad_placement(from), logical);
    return {gx, Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

// Identity forward, all-reduce of the gradient over `dims` (Megatron's "f"): a replicated input
// of an op whose output is sharded or partial there.
struct AllReduceGrad : autograd::Function<AllReduceGrad> {
  static constexpr bool is_once_differentiable = true;
  static Tensor forward(AutogradContext* ctx, Tensor x, int64_t mesh_id, std::vector<int64_t> dims) {
    ctx->saved_data["mesh"] = mesh_id;
    ctx->saved_data["dims"] = dims;
    return x.clone();
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    DeviceMesh mesh = DeviceMesh::_find(ctx->saved_data["mesh"].toInt());
    Tensor gx = g[0].clone().contiguous();
    for (int64_t m : ctx->saved_data["dims"].toIntVector()) all_reduce(gx, ReduceOp::SUM, mesh.get_group(m));
    return {gx, Tensor(), Tensor()};
  }
};

// from_local(run_check): the replicated mesh dims take coordinate 0's values; identity gradient.
struct BroadcastReplicas : autograd::Function<BroadcastReplicas> {
  static Tensor forward(AutogradContext*, Tensor x, int64_t mesh_id, std::vector<int64_t> dims) {
    DeviceMesh mesh = DeviceMesh::_find(mesh_id);
    Tensor y = x.clone().contiguous();
    for (int64_t m : dims) {
      ProcessGroup g = mesh.get_group(m);
      broadcast(y, get_global_rank(g, 0), g);
    }
    return y;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], Tensor(), Tensor()}; }
};

// The shard dims a placement touches.
void shard_dims(const Placement& p, std::set<int64_t>& out) {
  if (p.is_shard()) out.insert(p.shard_dim());
}

// This rank's piece of `src` re-laid out as `dst` (normalized), through RedistributeStep.
Tensor redistribute_local(const Tensor& local, const DTensorSpec& src, const Placements& dst) {
  const DeviceMesh& mesh = src.mesh;
  const int64_t nm = mesh.ndim();
  const auto coord = coordinate(mesh, "DTensor.redistribute");
  Placements cur = src.placements;
  std::set<int64_t> change;
  for (int64_t m = 0; m < nm; ++m)
    if (cur[m] != dst[m]) change.insert(m);
  if (change.empty()) return local;
  // A mesh dim may change on its own unless a tensor dim it touches is sharded by another mesh dim
  // too (nested shards): then those mesh dims are gathered, last first, and split again, first first.
  auto touched = [&](int64_t m) {
    std::set<int64_t> t;
    shard_dims(cur[m], t);
    shard_dims(dst[m], t);
    return t;
  };
  bool direct = true;
  for (;;) {
    bool grew = false;
    for (int64_t m : std::set<int64_t>(change)) {
      for (int64_t o = 0; o < nm; ++o) {
        if (o == m) continue;
        auto a = touched(m), b = touched(o);
        bool overlap = std::any_of(a.begin(), a.end(), [&](int64_t d) { return b.count(d) > 0; });
        if (!overlap) continue;
        direct = false;
        if (change.insert(o).second) grew = true;
      }
    }
    if (!grew) break;
  }
  const int64_t id = mesh._id();
  auto logical_for = [&](int64_t m) {
    Placements p = cur;
    p[m] = Replicate();
    std::vector<int64_t> s;
    local_shape_offset(src.shape, mesh, p, coord, &s, nullptr);
    return s;
  };
  Tensor x = local;
  auto step = [&](int64_t m, const Placement& to) {
    if (cur[m] == to) return;
    x = RedistributeStep::apply(x, id, m, encode(cur[m]), encode(to), logical_for(m));
    cur[m] = to;
  };
  if (direct) {
    for (int64_t m : change) step(m, dst[m]);
  } else {
    for (auto it = change.rbegin(); it != change.rend(); ++it) step(*it, Replicate());
    for (int64_t m : change) step(m, dst[m]);
  }
  return x;
}

DTensorSpec make_spec(const DeviceMesh& mesh, Placements p, std::vector<int64_t> shape, ScalarType dtype) {
  DTensorSpec s;
  s.mesh = mesh;
  s.placements = std::move(p);
  s.stride = contiguous_strides(shape);
  s.shape = std::move(shape);
  s.dtype = dtype;
  return s;
}

// Routes `x` through AllReduceGrad over the mesh dims where it is replicated and the op's output
// is not (Note [DTensor autograd]).
Tensor guard_replicated(const Tensor& x, const DeviceMesh& mesh, const Placements& in, const Placements& out) {
  if (!GradMode::is_enabled() || !x.requires_grad()) return x;
  std::vector<int64_t> dims;
  for (size_t m = 0; m < in.size(); ++m)
    if (in[m].is_replicate() && !out[m].is_replicate()) dims.push_back(static_cast<int64_t>(m));
  if (dims.empty()) return x;
  return AllReduceGrad::apply(x, mesh._id(), dims);
}

void check_same_mesh(const DTensor& a, const DTensor& b, const char* op) {
  EMBER_CHECK(a.defined() && b.defined(), "[{}] expected defined DTensors", op);
  if (a.device_mesh() != b.device_mesh())
    throw NotImplementedError(fmt::format("[{}] operands on different meshes ({} and {})", op,
                                          a.device_mesh().to_string(), b.device_mesh().to_string()));
}

// Partial(op) that is not a sum (or any Partial when `keep_sum` is false) all-reduced first.
DTensor resolve_partial(const DTensor& a, bool keep_sum) {
  Placements p = a.placements();
  bool changed = false;
  for (auto& pl : p)
    if (pl.is_partial() && !(keep_sum && pl.reduce_op() == ReduceOp::SUM)) {
      pl = Replicate();
      changed = true;
    }
  return changed ? a.redistribute(p) : a;
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(x == y || x == 1 || y == 1, "[{}] other: shapes [{}] and [{}] are not broadcastable", op,
                fmt::join(a, ", "), fmt::join(b, ", "));
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// Elementwise binary op rule (see the header). `linear`: Partial(sum) operands may stay partial.
DTensor binary(const char* op, const DTensor& a0, const DTensor& b0, bool linear,
               const std::function<Tensor(const Tensor&, const Tensor&)>& f) {
  check_same_mesh(a0, b0, op);
  const DeviceMesh& mesh = a0.device_mesh();
  const int64_t nm = mesh.ndim();
  std::vector<int64_t> out_shape = broadcast_shapes(a0.sizes(), b0.sizes(), op);
  const int64_t nd = static_cast<int64_t>(out_shape.size());
  DTensor a = resolve_partial(a0, linear);
  // The first operand's placements in the output's dims; a Shard on a dim it broadcasts is undone.
  const int64_t off_a = nd - a.dim();
  Placements target(nm), pa = a.placements();
  for (int64_t m = 0; m < nm; ++m) {
    const Placement& p = pa[m];
    if (p.is_shard() && a.size(p.shard_dim()) == 1 && out_shape[p.shard_dim() + off_a] != 1) {
      pa[m] = Replicate();
      target[m] = Replicate();
    } else {
      target[m] = p.is_shard() ? Placement(Shard(p.shard_dim() + off_a)) : p;
    }
  }
  auto want = [&](const DTensor& x) {
    const int64_t off = nd - x.dim();
    Placements w(nm);
    for (int64_t m = 0; m < nm; ++m) {
      if (target[m].is_shard()) {
        int64_t d = target[m].shard_dim() - off;
        bool broadcast = d < 0 || (x.size(d) == 1 && out_shape[target[m].shard_dim()] != 1);
        w[m] = broadcast ? Placement(Replicate()) : Placement(Shard(d));
      } else {
        w[m] = target[m];
      }
    }
    return w;
  };
  a = a.redistribute(want(a));
  DTensor b = b0.redistribute(want(b0));
  Tensor la = guard_replicated(a.to_local(), mesh, a.placements(), target);
  Tensor lb = guard_replicated(b.to_local(), mesh, b.placements(), target);
  Tensor out = f(la, lb);
  return DTensor(out, make_spec(mesh, target, out_shape, out.scalar_type()));
}

DTensor unary(const DTensor& a0, bool linear, const std::function<Tensor(const Tensor&)>& f) {
  EMBER_CHECK(a0.defined(), "[DTensor op] expected a defined DTensor");
  DTensor a = resolve_partial(a0, linear);
  Tensor out = f(a.to_local());
  return DTensor(out, make_spec(a.device_mesh(), a.placements(), a.sizes(), out.scalar_type()));
}

}  // namespace

// ---- DTensorSpec -------------------------------------------------------------------------------

std::vector<int64_t> DTensorSpec::local_shape() const {
  std::vector<int64_t> s;
  local_shape_offset(shape, mesh, placements, coordinate(mesh, "DTensorSpec.local_shape"), &s, nullptr);
  return s;
}
std::vector<int64_t> DTensorSpec::local_offset() const {
  std::vector<int64_t> o;
  local_shape_offset(shape, mesh, placements, coordinate(mesh, "DTensorSpec.local_offset"), nullptr, &o);
  return o;
}
std::vector<int64_t> DTensorSpec::mesh_dims_sharding(int64_t dim) const {
  std::vector<int64_t> r;
  for (size_t m = 0; m < placements.size(); ++m)
    if (placements[m].is_shard(dim)) r.push_back(static_cast<int64_t>(m));
  return r;
}
bool DTensorSpec::operator==(const DTensorSpec& o) const {
  return mesh == o.mesh && placements == o.placements && shape == o.shape && stride == o.stride && dtype == o.dtype;
}

// ---- DTensor -----------------------------------------------------------------------------------

DTensor::DTensor(Tensor local, DTensorSpec spec) : local_(std::move(local)), spec_(std::move(spec)) {
  EMBER_CHECK(local_.defined(), "[DTensor] local_tensor: expected a defined tensor");
  spec_.placements = normalize(spec_.placements, spec_.mesh, static_cast<int64_t>(spec_.shape.size()), "DTensor");
  std::vector<int64_t> want = spec_.local_shape();
  std::vector<int64_t> have(local_.sizes().begin(), local_.sizes().end());
  EMBER_CHECK(have == want, "[DTensor] local_tensor: expected shape [{}] (rank {}'s piece of [{}] placed {}), got [{}]",
              fmt::join(want, ", "), spec_.mesh.get_rank(), fmt::join(spec_.shape, ", "),
              distributed::to_string(spec_.placements), fmt::join(have, ", "));
  spec_.dtype = local_.scalar_type();
}

DTensor DTensor::from_local(const Tensor& local, const DeviceMesh& mesh, Placements placements, bool run_check,
                            std::optional<std::vector<int64_t>> shape, std::optional<std::vector<int64_t>> stride) {
  EMBER_CHECK(local.defined(), "[DTensor.from_local] local_tensor: expected a defined tensor");
  placements = normalize(std::move(placements), mesh, local.dim(), "DTensor.from_local");
  std::vector<int64_t> gs;
  if (shape) {
    gs = *shape;
    EMBER_CHECK(gs.size() == static_cast<size_t>(local.dim()),
                "[DTensor.from_local] shape: expected {} dims (the local tensor's), got [{}]", local.dim(),
                fmt::join(gs, ", "));
  } else {
    gs.assign(local.sizes().begin(), local.sizes().end());
    for (size_t m = 0; m < placements.size(); ++m)
      if (placements[m].is_shard()) gs[placements[m].shard_dim()] *= mesh.size(static_cast<int64_t>(m));
  }
  DTensorSpec spec = make_spec(mesh, placements, gs, local.scalar_type());
  if (stride) {
    EMBER_CHECK(stride->size() == gs.size(), "[DTensor.from_local] stride: expected {} entries, got {}", gs.size(),
                stride->size());
    spec.stride = *stride;
  }
  Tensor l = local;
  if (run_check) {
    std::vector<int64_t> dims;
    for (size_t m = 0; m < placements.size(); ++m)
      if (placements[m].is_replicate()) dims.push_back(static_cast<int64_t>(m));
    if (!dims.empty()) l = BroadcastReplicas::apply(local, mesh._id(), dims);
  }
  return DTensor(l, std::move(spec));
}

const Tensor& DTensor::to_local() const {
  EMBER_CHECK(defined(), "[DTensor.to_local] expected a defined DTensor");
  return local_;
}
const DTensorSpec& DTensor::spec() const { return spec_; }
const DeviceMesh& DTensor::device_mesh() const { return spec_.mesh; }
const Placements& DTensor::placements() const { return spec_.placements; }
const std::vector<int64_t>& DTensor::sizes() const { return spec_.shape; }
const std::vector<int64_t>& DTensor::strides() const { return spec_.stride; }
int64_t DTensor::dim() const { return static_cast<int64_t>(spec_.shape.size()); }
int64_t DTensor::size(int64_t d) const {
  const int64_t n = dim();
  EMBER_CHECK(d >= -n && d < n, "[DTensor.size] dim: expected a dimension in [{}, {}), got {}", -n, n, d);
  return spec_.shape[d < 0 ? d + n : d];
}
int64_t DTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : spec_.shape) n *= s;
  return n;
}
ScalarType DTensor::scalar_type() const { return spec_.dtype; }
bool DTensor::requires_grad() const { return local_.defined() && local_.requires_grad(); }
DTensor& DTensor::requires_grad_(bool on) {
  to_local().requires_grad_(on);
  return *this;
}
DTensor DTensor::grad() const {
  const Tensor& g = to_local().grad();
  if (!g.defined()) return DTensor();
  DTensorSpec s = spec_;
  for (auto& p : s.placements) p = grad_placement(p);
  return DTensor(g, std::move(s));
}
DTensor DTensor::detach() const { return DTensor(to_local().detach(), spec_); }

DTensor DTensor::t() const {
  EMBER_CHECK(dim() == 2, "[DTensor.t] expected a 2-D DTensor, got {}-D", dim());
  DTensorSpec s = spec_;
  std::swap(s.shape[0], s.shape[1]);
  std::swap(s.stride[0], s.stride[1]);
  for (auto& p : s.placements)
    if (p.is_shard()) p = Shard(1 - p.shard_dim());
  return DTensor(local_.t(), std::move(s));
}

Tensor DTensor::full_tensor() const {
  EMBER_CHECK(defined(), "[DTensor.full_tensor] expected a defined DTensor");
  return redistribute(Placements(spec_.placements.size(), Replicate())).to_local();
}

DTensor DTensor::redistribute(Placements placements) const { return redistribute(spec_.mesh, std::move(placements)); }

DTensor DTensor::redistribute(const DeviceMesh& mesh, Placements placements) const {
  EMBER_CHECK(defined(), "[DTensor.redistribute] expected a defined DTensor");
  if (mesh != spec_.mesh)
    throw NotImplementedError(
        fmt::format("[DTensor.redistribute] device_mesh: redistributing from {} to another mesh {}",
                    spec_.mesh.to_string(), mesh.to_string()));
  placements = normalize(std::move(placements), spec_.mesh, dim(), "DTensor.redistribute");
  if (placements == spec_.placements) return *this;
  Tensor l = redistribute_local(local_, spec_, placements);
  DTensorSpec s = spec_;
  s.placements = std::move(placements);
  return DTensor(l, std::move(s));
}

std::string DTensor::to_string() const {
  if (!defined()) return "DTensor(undefined)";
  return fmt::format("DTensor(local_tensor={}, device_mesh={}, placements={}, shape=[{}])", local_.toString(),
                     spec_.mesh.to_string(), distributed::to_string(spec_.placements), fmt::join(spec_.shape, ", "));
}
std::ostream& operator<<(std::ostream& os, const DTensor& t) { return os << t.to_string(); }

// ---- distribute_tensor ---------------------------------------------------------------------------

DTensor distribute_tensor(const Tensor& tensor, const DeviceMesh& mesh, Placements placements) {
  EMBER_CHECK(tensor.defined(), "[distribute_tensor] tensor: expected a defined tensor");
  placements = normalize(std::move(placements), mesh, tensor.dim(), "distribute_tensor");
  const auto coord = coordinate(mesh, "distribute_tensor");
  Tensor x;
  {
    NoGradGuard no_grad;
    x = tensor.detach().clone().contiguous();
    for (int64_t m = 0; m < mesh.ndim(); ++m) {
      const Placement& p = placements[m];
      Dim md{mesh.get_group(m), mesh.size(m), coord[m]};
      const int src = get_global_rank(md.group, 0);
      if (p.is_shard()) {
        int64_t d = p.shard_dim(), L = x.size(d), c = ceil_div(L, md.k);
        if (c == 0) continue;  // every piece is empty
        std::vector<Tensor> list;
        if (md.i == 0) {
          Tensor padded = pad_to(x, d, c * md.k);
          for (int64_t r = 0; r < md.k; ++r) list.push_back(narrow(padded, d, r * c, c).contiguous());
        }
        std::vector<int64_t> os(x.sizes().begin(), x.sizes().end());
        os[d] = c;
        Tensor out = empty(os, x.options());
        scatter(out, md.i == 0 ? &list : nullptr, src, md.group);
        x = narrow(out, d, 0, chunk_size(L, md.k, md.i)).contiguous();
      } else {
        broadcast(x, src, md.group);
        if (p.is_partial()) x = partition_value(x, p.reduce_op(), md);
      }
    }
  }
  std::vector<int64_t> shape(tensor.sizes().begin(), tensor.sizes().end());
  DTensor out(x, make_spec(mesh, std::move(placements), std::move(shape), tensor.scalar_type()));
  if (tensor.requires_grad()) out.requires_grad_(true);
  return out;
}

// ---- ops ---------------------------------------------------------------------------------------

DTensor add(const DTensor& a, const DTensor& b, const Scalar& alpha) {
  return binary("add", a, b, true, [&](const Tensor& x, const Tensor& y) { return ember::add(x, y, alpha); });
}
DTensor sub(const DTensor& a, const DTensor& b, const Scalar& alpha) {
  return binary("sub", a, b, true, [&](const Tensor& x, const Tensor& y) { return ember::sub(x, y, alpha); });
}
DTensor mul(const DTensor& a, const DTensor& b) {
  return binary("mul", a, b, false, [](const Tensor& x, const Tensor& y) { return ember::mul(x, y); });
}
DTensor div(const DTensor& a, const DTensor& b) {
  return binary("div", a, b, false, [](const Tensor& x, const Tensor& y) { return ember::div(x, y); });
}
DTensor add(const DTensor& a, const Scalar& b) {
  return unary(a, false, [&](const Tensor& x) { return ember::add(x, b); });
}
DTensor sub(const DTensor& a, const Scalar& b) {
  return unary(a, false, [&](const Tensor& x) { return ember::sub(x, b); });
}
DTensor mul(const DTensor& a, const Scalar& b) {
  return unary(a, true, [&](const Tensor& x) { return ember::mul(x, b); });
}
DTensor div(const DTensor& a, const Scalar& b) {
  return unary(a, true, [&](const Tensor& x) { return ember::div(x, b); });
}
DTensor neg(const DTensor& a) {
  return unary(a, true, [](const Tensor& x) { return ember::neg(x); });
}
DTensor relu(const DTensor& a) {
  return unary(a, false, [](const Tensor& x) { return ember::relu(x); });
}
DTensor gelu(const DTensor& a, std::string_view approximate) {
  return unary(a, false, [&](const Tensor& x) { return ember::gelu(x, approximate); });
}
DTensor tanh(const DTensor& a) {
  return unary(a, false, [](const Tensor& x) { return ember::tanh(x); });
}
DTensor sigmoid(const DTensor& a) {
  return unary(a, false, [](const Tensor& x) { return ember::sigmoid(x); });
}

DTensor matmul(const DTensor& a0, const DTensor& b0) {
  check_same_mesh(a0, b0, "matmul");
  const DeviceMesh& mesh = a0.device_mesh();
  const int64_t nm = mesh.ndim();
  DTensor a = resolve_partial(a0, true), b = resolve_partial(b0, true);
  Placements pa(nm), pb(nm), out(nm);
  const bool ruled = a.dim() >= 2 && b.dim() == 2;
  const int64_t ka = a.dim() - 1;
  for (int64_t m = 0; m < nm; ++m) {
    const Placement &x = a.placements()[m], &y = b.placements()[m];
    pa[m] = pb[m] = out[m] = Replicate();
    if (!ruled) continue;
    if (x.is_shard() && x.shard_dim() < ka && y.is_replicate()) {
      pa[m] = x;
      out[m] = x;  // rows or batch dims keep their index
    } else if (x.is_replicate() && y.is_shard(1)) {
      pb[m] = y;
      out[m] = Shard(a.dim() - 1);
    } else if (x.is_shard(ka) && y.is_shard(0)) {
      pa[m] = x;
      pb[m] = y;
      out[m] = Partial();
    } else if (x.is_partial() && y.is_replicate()) {
      pa[m] = x;
      out[m] = x;
    } else if (x.is_replicate() && y.is_partial()) {
      pb[m] = y;
      out[m] = y;
    }
  }
  a = a.redistribute(pa);
  b = b.redistribute(pb);
  Tensor la = guard_replicated(a.to_local(), mesh, pa, out);
  Tensor lb = guard_replicated(b.to_local(), mesh, pb, out);
  Tensor r = ember::matmul(la, lb);
  // The global shape: the local product's with the sharded dims' global lengths.
  std::vector<int64_t> shape(r.sizes().begin(), r.sizes().end());
  if (ruled) {
    for (int64_t d = 0; d < a.dim() - 1; ++d) shape[d] = a.size(d);
    shape.back() = b.size(1);
  }
  return DTensor(r, make_spec(mesh, out, shape, r.scalar_type()));
}

DTensor mm(const DTensor& a, const DTensor& b) {
  EMBER_CHECK(a.defined() && b.defined(), "[mm] expected defined DTensors");
  EMBER_CHECK(a.dim() == 2, "[mm] self: expected a 2-D DTensor, got {}-D", a.dim());
  EMBER_CHECK(b.dim() == 2, "[mm] mat2: expected a 2-D DTensor, got {}-D", b.dim());
  EMBER_CHECK(a.size(1) == b.size(0), "[mm] mat2: expected {} rows (self's columns), got {}", a.size(1), b.size(0));
  return matmul(a, b);
}

DTensor linear(const DTensor& input, const DTensor& weight, const std::optional<DTensor>& bias) {
  EMBER_CHECK(weight.defined() && weight.dim() == 2, "[linear] weight: expected a 2-D DTensor, got {}-D",
              weight.defined() ? weight.dim() : 0);
  EMBER_CHECK(input.defined() && input.dim() >= 1 && input.size(-1) == weight.size(1),
              "[linear] input: expected a last dim of {} (weight's in_features), got shape [{}]", weight.size(1),
              input.defined() ? fmt::format("{}", fmt::join(input.sizes(), ", ")) : std::string());
  DTensor out = matmul(input, weight.t());
  if (bias && bias->defined()) out = add(out, *bias);
  return out;
}

DTensor sum(const DTensor& a) {
  std::vector<int64_t> dims(a.dim());
  for (int64_t d = 0; d < a.dim(); ++d) dims[d] = d;
  return sum(a, dims, false);
}

DTensor sum(const DTensor& a0, const std::vector<int64_t>& dim_in, bool keepdim) {
  EMBER_CHECK(a0.defined(), "[sum] expected a defined DTensor");
  const int64_t nd = a0.dim();
  std::set<int64_t> dims;
  for (int64_t d : dim_in) {
    EMBER_CHECK(d >= -nd && d < nd, "[sum] dim: expected dims in [{}, {}), got {}", -nd, nd, d);
    EMBER_CHECK(dims.insert(d < 0 ? d + nd : d).second, "[sum] dim: dim {} appears twice", d);
  }
  DTensor a = resolve_partial(a0, true);
  Placements out = a.placements();
  for (auto& p : out) {
    if (!p.is_shard()) continue;
    int64_t d = p.shard_dim();
    if (dims.count(d)) {
      p = Partial();
    } else if (!keepdim) {
      p = Shard(d - static_cast<int64_t>(std::distance(dims.begin(), dims.lower_bound(d))));
    }
  }
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < nd; ++d) {
    if (!dims.count(d))
      shape.push_back(a.size(d));
    else if (keepdim)
      shape.push_back(1);
  }
  std::vector<int64_t> dl(dims.begin(), dims.end());
  Tensor r = dl.empty() ? a.to_local().clone() : ember::sum(a.to_local(), dl, keepdim);
  return DTensor(r, make_spec(a.device_mesh(), out, shape, r.scalar_type()));
}

DTensor operator+(const DTensor& a, const DTensor& b) { return add(a, b); }
DTensor operator-(const DTensor& a, const DTensor& b) { return sub(a, b); }
DTensor operator*(const DTensor& a, const DTensor& b) { return mul(a, b); }
DTensor operator/(const DTensor& a, const DTensor& b) { return div(a, b); }
DTensor operator+(const DTensor& a, const Scalar& b) { return add(a, b); }
DTensor operator-(const DTensor& a, const Scalar& b) { return sub(a, b); }
DTensor operator*(const DTensor& a, const Scalar& b) { return mul(a, b); }
DTensor operator/(const DTensor& a, const Scalar& b) { return div(a, b); }
DTensor operator-(const DTensor& a) { return neg(a); }

// ---- distribute_module ----------------------------------------------------------------------------

DTensor DistributedModule::parameter(const std::string& name) const {
  if (const DTensor* t = parameters.find(name)) return *t;
  throw IndexError(fmt::format("[DistributedModule.parameter] name: no parameter '{}' (have: {})", name,
                               fmt::join(parameters.keys(), ", ")));
}
DTensor DistributedModule::buffer(const std::string& name) const {
  if (const DTensor* t = buffers.find(name)) return *t;
  throw IndexError(
      fmt::format("[DistributedModule.buffer] name: no buffer '{}' (have: {})", name, fmt::join(buffers.keys(), ", ")));
}

DistributedModule distribute_module(const std::shared_ptr<nn::Module>& module, const DeviceMesh& mesh,
                                    const PartitionFn& partition_fn, const InputFn& input_fn,
                                    const OutputFn& output_fn) {
  EMBER_CHECK(module != nullptr, "[distribute_module] module: expected a module, got a null pointer");
  EMBER_CHECK(mesh.defined(), "[distribute_module] device_mesh: expected a DeviceMesh, got an undefined one");
  coordinate(mesh, "distribute_module");
  // Every placement is decided and checked before anything is communicated or changed.
  struct Item {
    std::string name;
    Tensor tensor;
    Placements placements;
    bool is_param;
  };
  std::vector<Item> items;
  for (const auto& entry : module->named_modules()) {
    const std::string& mname = entry.key();
    nn::Module& sub = *entry.value();
    std::map<std::string, Placements> plan;
    if (partition_fn) plan = partition_fn(mname, sub, mesh);
    auto params = sub.named_parameters(false);
    auto bufs = sub.named_buffers(false);
    for (const auto& [n, p] : plan) {
      (void)p;
      EMBER_CHECK(params.contains(n) || bufs.contains(n),
                  "[distribute_module] partition_fn: module '{}' has no parameter or buffer '{}'", mname, n);
    }
    auto add_items = [&](const OrderedDict<std::string, Tensor>& d, bool is_param) {
      for (const auto& e : d) {
        if (!e.value().defined()) continue;
        auto it = plan.find(e.key());
        Placements pl = it != plan.end() ? it->second : Placements(mesh.ndim(), Replicate());
        std::string full = mname.empty() ? e.key() : mname + "." + e.key();
        pl = normalize(std::move(pl), mesh, e.value().dim(), "distribute_module");
        items.push_back({full, e.value(), std::move(pl), is_param});
      }
    };
    add_items(params, true);
    add_items(bufs, false);
  }
  DistributedModule out;
  out.module = module;
  out.mesh = mesh;
  std::unordered_map<const TensorImpl*, DTensorSpec> done;  // a tied tensor is distributed once
  for (auto& it : items) {
    const TensorImpl* key = it.tensor.unsafeGetTensorImpl();
    auto found = done.find(key);
    DTensorSpec spec;
    if (found != done.end()) {
      spec = found->second;
    } else {
      DTensor d = distribute_tensor(it.tensor.detach(), mesh, it.placements);
      {
        NoGradGuard no_grad;
        it.tensor.set_data(d.to_local());  // the parameter keeps its identity and holds its piece
      }
      spec = d.spec();
      done.emplace(key, spec);
    }
    (it.is_param ? out.parameters : out.buffers).insert(it.name, DTensor(it.tensor, spec));
  }
  if (input_fn)
    module->register_forward_pre_hook(
        [input_fn, mesh](nn::Module& m, const std::vector<Tensor>& in) { return input_fn(m, in, mesh); });
  if (output_fn)
    module->register_forward_hook(
        [output_fn, mesh](nn::Module& m, const std::vector<Tensor>&, const std::vector<Tensor>& outs) {
          return output_fn(m, outs, mesh);
        });
  return out;
}

}  // namespace ember::distributed
