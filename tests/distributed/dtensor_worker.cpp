// One rank of the DTensor tests (test_dtensor.cpp): `ember_dtensor_worker CASE`. Each case checks
// DTensors against the same computation on whole tensors in this process (every rank knows the
// global tensors), prints every mismatch and exits non-zero when any.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include "ember/distributed.h"
#include "ember/ember.h"

#include "../unit/UnitTestUtil.h"

using namespace ember;
using namespace ember::distributed;

namespace {

int g_failed = 0;
int g_rank = 0;

void check(bool ok, const std::string& what, int line) {
  if (ok) return;
  fmt::print("rank {} line {}: FAILED {}\n", g_rank, line, what);
  ++g_failed;
}

void check_close(const Tensor& got, const Tensor& want, const std::string& what, int line) {
  bool ok = got.defined() && want.defined() && got.sizes() == want.sizes() &&
            allclose(got.to(kFloat64), want.to(kFloat64), 1e-5, 1e-5);
  if (ok) return;
  fmt::print("rank {} line {}: FAILED {}\n  got  {}\n  want {}\n", g_rank, line, what,
             got.defined() ? got.toString() : "undefined", want.defined() ? want.toString() : "undefined");
  ++g_failed;
}

using ember::test::error_of;

#define CHECK(...) check((__VA_ARGS__), #__VA_ARGS__, __LINE__)
#define CHECK_CLOSE(got, want, what) check_close((got), (want), (what), __LINE__)
#define CHECK_HAS(text, part) \
  check(std::string(text).find(part) != std::string::npos, fmt::format("'{}' contains '{}'", text, part), __LINE__)

// A global tensor with distinct values.
Tensor G(std::vector<int64_t> shape, double scale = 0.25, double shift = 1.0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return sub(mul(arange(n, kFloat32), scale), shift).reshape(shape);
}

// This rank's piece of `global` under (non-partial) `placements`: torch.chunk along each Shard,
// mesh dimension by mesh dimension (a coordinate past the last chunk gets an empty piece).
Tensor expected_local(const Tensor& global, const DeviceMesh& mesh, const Placements& placements) {
  auto co = *mesh.get_coordinate();
  Tensor t = global;
  for (size_t m = 0; m < placements.size(); ++m) {
    if (!placements[m].is_shard()) continue;
    int64_t d = placements[m].shard_dim();
    auto pieces = chunk(t, mesh.size(static_cast<int64_t>(m)), d);
    t = co[m] < static_cast<int64_t>(pieces.size()) ? pieces[co[m]] : narrow(t, d, 0, 0);
  }
  return t;
}

// The gradient placement of a placement: Partial's is Replicate.
Placements grad_placements(Placements p) {
  for (auto& x : p)
    if (x.is_partial()) x = Replicate();
  return p;
}

// A DTensor leaf requiring grad holding `global` as `placements` (a Partial is split into pieces
// that sum to it: rank r > 0 holds r + 1 everywhere).
DTensor make_dt(const Tensor& global, const DeviceMesh& mesh, const Placements& placements) {
  bool partial = false;
  for (auto& p : placements) partial |= p.is_partial();
  if (!partial) {
    DTensor d = distribute_tensor(global, mesh, placements);
    d.requires_grad_();
    return d;
  }
  // One Partial mesh dim at a time is enough for these tests: the other dims take their pieces.
  Placements other = placements;
  int64_t pm = -1;
  for (size_t m = 0; m < other.size(); ++m)
    if (other[m].is_partial()) {
      other[m] = Replicate();
      pm = static_cast<int64_t>(m);
    }
  Tensor whole = expected_local(global, mesh, other);
  int64_t i = mesh.get_local_rank(pm), k = mesh.size(pm);
  Tensor piece = i == 0 ? sub(whole, double((k + 2) * (k - 1) / 2)) : full(whole.sizes(), double(i + 1));
  piece = piece.contiguous().requires_grad_();
  std::vector<int64_t> shape(global.sizes().begin(), global.sizes().end());
  return DTensor::from_local(piece, mesh, placements, false, shape);
}

std::string P(const Placements& p) { return to_string(p); }

// ---- cases -------------------------------------------------------------------------------------

// Every pair of placements on a 1-D mesh, even and uneven shapes and an empty shard: values,
// full_tensor and the gradient back through the redistribution.
void case_redistribute() {
  DeviceMesh mesh = init_device_mesh("cpu", {2});
  std::vector<Placement> all{Shard(0), Shard(1), Replicate(), Partial()};
  for (std::vector<int64_t> shape : {std::vector<int64_t>{4, 6}, {5, 3}, {1, 4}}) {
    Tensor g = G(shape), w = G(shape, 0.5, -0.5);
    for (const auto& src : all) {
      for (const auto& dst : all) {
        std::string what = fmt::format("[{}] {} -> {}", fmt::join(shape, ","), src.to_string(), dst.to_string());
        DTensor x = make_dt(g, mesh, {src});
        DTensor y = x.redistribute(mesh, {dst});
        CHECK(y.placements() == Placements{dst});
        CHECK(y.sizes() == shape);
        if (!dst.is_partial()) CHECK_CLOSE(y.to_local(), expected_local(g, mesh, {dst}), what + " local");
        CHECK_CLOSE(y.full_tensor(), g, what + " full_tensor");
        Tensor loss = sum(mul(y.full_tensor(), w));
        loss.backward();
        CHECK_CLOSE(x.to_local().grad(), expected_local(w, mesh, grad_placements({src})), what + " grad");
        CHECK(x.grad().placements() == grad_placements({src}));
      }
    }
  }
  // Errors: the placements' count and dims, another mesh.
  DTensor d = distribute_tensor(G({4, 6}), mesh, {Shard(0)});
  CHECK_HAS(error_of([&] {
              d.redistribute({Shard(0), Replicate()});
            }),
            "[DTensor.redistribute] placements: expected one placement per mesh dimension (1), got 2");
  CHECK_HAS(error_of([&] { d.redistribute({Shard(2)}); }),
            "[DTensor.redistribute] placements: Shard(dim=2) is out of range for a 2-D tensor");
  DeviceMesh named("cpu", {0, 1}, {2}, {"x"});
  CHECK_HAS(error_of([&] { d.redistribute(named, {Replicate()}); }),
            "[DTensor.redistribute] device_mesh: redistributing from DeviceMesh('cpu', [0, 1]) to another mesh "
            "DeviceMesh('cpu', [0, 1], mesh_dim_names=('x',))");
  CHECK(Placement(Partial(ReduceOp::MAX)) == Partial(ReduceOp::MAX) &&
        !(Placement(Partial()) == Partial(ReduceOp::MAX)));
  CHECK(Placement(Shard(1)).to_string() == "Shard(dim=1)" && Placement(Partial()).to_string() == "Partial(sum)");
  CHECK_HAS(error_of([&] {
              DTensor(G({3, 6}), d.spec());
            }),
            fmt::format("[DTensor] local_tensor: expected shape [2, 6] (rank {}'s piece of [4, 6] placed "
                        "(Shard(dim=0),)), got [3, 6]",
                        g_rank));
  // Only sums differentiate: a Partial(max) reduction's backward says so.
  Tensor piece = full({2}, double(g_rank)).requires_grad_();
  DTensor pm = DTensor::from_local(piece, mesh, {Partial(ReduceOp::MAX)});
  Tensor r = pm.full_tensor();
  CHECK_CLOSE(r, full({2}, 1.0), "Partial(max) full_tensor");
  CHECK_HAS(error_of([&] { sum(r).backward(); }), "from Partial(max) to Replicate()");
}

// distribute_tensor takes mesh coordinate 0's values; from_local's shapes and run_check.
void case_distribute() {
  DeviceMesh mesh = init_device_mesh("cpu", {2});
  CHECK(mesh.ndim() == 1 && mesh.size(0) == 2 && mesh.get_coordinate() == std::vector<int64_t>{g_rank});
  CHECK(mesh.get_group(0) != nullptr && mesh.get_group(0)->getSize() == 2);
  CHECK(mesh.to_string() == "DeviceMesh('cpu', [0, 1])");
  for (std::vector<int64_t> shape : {std::vector<int64_t>{4, 6}, {5, 3}, {3, 5}}) {
    Tensor g = G(shape);
    Tensor mine = add(g, 100.0 * g_rank);  // values on other ranks are ignored
    for (Placements p : {Placements{Shard(0)}, Placements{Shard(1)}, Placements{Replicate()}}) {
      DTensor d = distribute_tensor(mine, mesh, p);
      std::string what = fmt::format("distribute [{}] {}", fmt::join(shape, ","), P(p));
      CHECK(d.placements() == p && d.sizes() == shape);
      CHECK_CLOSE(d.to_local(), expected_local(g, mesh, p), what);
      CHECK_CLOSE(d.full_tensor(), g, what + " full");
      CHECK(!d.requires_grad());
    }
    DTensor dp = distribute_tensor(mine, mesh, {Partial()});
    CHECK_CLOSE(dp.to_local(), g_rank == 0 ? g : zeros_like(g), "distribute Partial piece");
    CHECK_CLOSE(dp.full_tensor(), g, "distribute Partial full");
  }
  CHECK(distribute_tensor(G({4}).requires_grad_(), mesh, {Shard(0)}).to_local().is_leaf());
  CHECK(distribute_tensor(G({4}).requires_grad_(), mesh, {Shard(0)}).requires_grad());
  // from_local: even global shape by default, an explicit one for uneven shards.
  DTensor a = DTensor::from_local(G({2, 3}), mesh, {Shard(0)});
  CHECK((a.sizes() == std::vector<int64_t>{4, 3}) && (a.strides() == std::vector<int64_t>{3, 1}));
  Tensor uneven = g_rank == 0 ? G({3, 3}) : G({2, 3});
  DTensor u = DTensor::from_local(uneven, mesh, {Shard(0)}, false, std::vector<int64_t>{5, 3});
  CHECK_CLOSE(u.full_tensor(), cat({G({3, 3}), G({2, 3})}, 0), "from_local uneven");
  CHECK_HAS(error_of([&] {
              DTensor::from_local(uneven, mesh, {Shard(0)}, false, std::vector<int64_t>{7, 3});
            }),
            fmt::format("[DTensor] local_tensor: expected shape [{}, 3] (rank {}'s piece of [7, 3] placed "
                        "(Shard(dim=0),)), got [{}, 3]",
                        4 - g_rank, g_rank, 3 - g_rank));
  // run_check: replicated dims take coordinate 0's values.
  DTensor rc = DTensor::from_local(add(G({3}), double(g_rank)), mesh, {Replicate()}, true);
  CHECK_CLOSE(rc.to_local(), G({3}), "from_local run_check");
  CHECK_HAS(error_of([&] {
              distribute_tensor(G({4}), mesh, {Shard(0), Shard(0)});
            }),
            "[distribute_tensor] placements: expected one placement per mesh dimension (1), got 2");
  CHECK_HAS(error_of([&] { distribute_tensor(G({4}), mesh, {Shard(-2)}); }),
            "[distribute_tensor] placements: Shard(dim=-2) is out of range for a 1-D tensor");
  CHECK_HAS(error_of([&] { (void)mesh.get_group("tp"); }),
            "[DeviceMesh.get_group] mesh_dim_name: the mesh has no dimension names, got 'tp'");
  CHECK_HAS(error_of([&] { (void)mesh.size(1); }),
            "[DeviceMesh.size] mesh_dim: expected a dimension in [-1, 1) of a 1-D mesh, got 1");
  CHECK_HAS(error_of([&] { init_device_mesh("cpu", {3}); }),
            "[init_device_mesh] mesh_shape: expected 2 ranks in all (the world size), got [3]");
  CHECK_HAS(error_of([&] { DeviceMesh("cuda", {0, 1}); }), "[DeviceMesh] device_type: only 'cpu' meshes");
  CHECK_HAS(error_of([&] { DeviceMesh("cpu", {1, 0}); }), "ranks along mesh dimension 0 must increase");
}

// Reference: the op on whole tensors, with autograd, for values and gradients.
struct Ref {
  Tensor out;
  std::vector<Tensor> grads;
};
Ref reference(const std::vector<Tensor>& globals, const Tensor& w,
              const std::function<Tensor(const std::vector<Tensor>&)>& f) {
  std::vector<Tensor> leaves;
  for (auto& g : globals) leaves.push_back(g.clone().requires_grad_());
  Tensor out = f(leaves);
  sum(mul(out, w)).backward();
  Ref r{out.detach(), {}};
  for (auto& l : leaves) r.grads.push_back(l.grad());
  return r;
}

// One op on DTensors against the reference: output placements, values, input gradients.
void check_op(const std::string& name, const DeviceMesh& mesh, const std::vector<Tensor>& globals,
              const std::vector<Placements>& in, const Placements& want_out,
              const std::function<DTensor(const std::vector<DTensor>&)>& f,
              const std::function<Tensor(const std::vector<Tensor>&)>& ref_f) {
  std::vector<DTensor> xs;
  for (size_t i = 0; i < globals.size(); ++i) xs.push_back(make_dt(globals[i], mesh, in[i]));
  DTensor out = f(xs);
  Tensor w = G(out.sizes(), 0.125, -0.5);
  Ref ref = reference(globals, w, ref_f);
  std::string ins;
  for (auto& p : in) ins += P(p);
  std::string what = fmt::format("{} {} -> {}", name, ins, P(want_out));
  check(out.placements() == want_out, fmt::format("{}: placements {}", what, P(out.placements())), __LINE__);
  if (std::none_of(want_out.begin(), want_out.end(), [](const Placement& p) { return p.is_partial(); }))
    CHECK_CLOSE(out.to_local(), expected_local(ref.out, mesh, want_out), what + " local");
  CHECK_CLOSE(out.full_tensor(), ref.out, what + " value");
  sum(mul(out.full_tensor(), w)).backward();
  for (size_t i = 0; i < xs.size(); ++i)
    CHECK_CLOSE(xs[i].to_local().grad(), expected_local(ref.grads[i], mesh, grad_placements(in[i])),
                fmt::format("{} grad of input {}", what, i));
}

using V = std::vector<DTensor>;
using T = std::vector<Tensor>;

void case_ops() {
  DeviceMesh mesh = init_device_mesh("cpu", {2});
  const Placements S0{Shard(0)}, S1{Shard(1)}, R{Replicate()}, Pa{Partial()}, S2{Shard(2)};
  Tensor a = G({4, 6}), b = G({4, 6}, 0.5, 2.0), c = G({5, 3}, 0.3), bias = G({6}, 0.1, 0.2);
  // Elementwise: the second operand follows the first.
  check_op(
      "add", mesh, {a, b}, {S0, R}, S0, [](const V& x) { return x[0] + x[1]; },
      [](const T& x) { return add(x[0], x[1]); });
  check_op(
      "sub", mesh, {a, b}, {R, S1}, R, [](const V& x) { return x[0] - x[1]; },
      [](const T& x) { return sub(x[0], x[1]); });
  check_op(
      "mul", mesh, {a, b}, {S1, S0}, S1, [](const V& x) { return x[0] * x[1]; },
      [](const T& x) { return mul(x[0], x[1]); });
  check_op(
      "div", mesh, {a, add(b, 20.0)}, {S0, S0}, S0, [](const V& x) { return x[0] / x[1]; },
      [](const T& x) { return div(x[0], x[1]); });
  check_op(
      "add alpha", mesh, {a, b}, {Pa, Pa}, Pa, [](const V& x) { return add(x[0], x[1], 3); },
      [](const T& x) { return add(x[0], x[1], 3); });
  check_op(
      "add", mesh, {a, b}, {Pa, R}, Pa, [](const V& x) { return x[0] + x[1]; },
      [](const T& x) { return add(x[0], x[1]); });
  check_op(
      "add", mesh, {a, b}, {R, Pa}, R, [](const V& x) { return x[0] + x[1]; },
      [](const T& x) { return add(x[0], x[1]); });
  check_op(
      "sub", mesh, {a, b}, {Pa, S0}, Pa, [](const V& x) { return x[0] - x[1]; },
      [](const T& x) { return sub(x[0], x[1]); });
  check_op(
      "mul", mesh, {a, b}, {Pa, R}, R, [](const V& x) { return x[0] * x[1]; },
      [](const T& x) { return mul(x[0], x[1]); });
  // Broadcasting: a bias replicated against sharded rows, and sharded along the shared dim.
  check_op(
      "add bias", mesh, {c, G({3}, 0.1)}, {S0, R}, S0, [](const V& x) { return x[0] + x[1]; },
      [](const T& x) { return add(x[0], x[1]); });
  check_op(
      "add bias", mesh, {a, bias}, {S1, R}, S1, [](const V& x) { return x[0] + x[1]; },
      [](const T& x) { return add(x[0], x[1]); });
  check_op(
      "mul bias first", mesh, {bias, a}, {S0, R}, S1, [](const V& x) { return x[0] * x[1]; },
      [](const T& x) { return mul(x[0], x[1]); });
  // Scalars and unary ops.
  check_op(
      "mul scalar", mesh, {a}, {Pa}, Pa, [](const V& x) { return x[0] * 2.5; },
      [](const T& x) { return mul(x[0], 2.5); });
  check_op(
      "div scalar", mesh, {c}, {S1}, S1, [](const V& x) { return x[0] / 4.0; },
      [](const T& x) { return div(x[0], 4.0); });
  check_op(
      "add scalar", mesh, {a}, {Pa}, R, [](const V& x) { return x[0] + 1.5; },
      [](const T& x) { return add(x[0], 1.5); });
  check_op(
      "sub scalar", mesh, {c}, {S0}, S0, [](const V& x) { return x[0] - 1.5; },
      [](const T& x) { return sub(x[0], 1.5); });
  check_op(
      "neg", mesh, {a}, {Pa}, Pa, [](const V& x) { return -x[0]; }, [](const T& x) { return neg(x[0]); });
  check_op(
      "relu", mesh, {a}, {Pa}, R, [](const V& x) { return relu(x[0]); }, [](const T& x) { return relu(x[0]); });
  check_op(
      "relu", mesh, {c}, {S0}, S0, [](const V& x) { return relu(x[0]); }, [](const T& x) { return relu(x[0]); });
  check_op(
      "gelu", mesh, {c}, {S1}, S1, [](const V& x) { return gelu(x[0]); }, [](const T& x) { return gelu(x[0]); });
  check_op(
      "gelu tanh", mesh, {a}, {S0}, S0, [](const V& x) { return gelu(x[0], "tanh"); },
      [](const T& x) { return gelu(x[0], "tanh"); });
  check_op(
      "tanh", mesh, {c}, {R}, R, [](const V& x) { return tanh(x[0]); }, [](const T& x) { return tanh(x[0]); });
  check_op(
      "sigmoid", mesh, {c}, {S0}, S0, [](const V& x) { return sigmoid(x[0]); },
      [](const T& x) { return sigmoid(x[0]); });
  // Matmul rules.
  Tensor m1 = G({5, 4}, 0.1), m2 = G({4, 3}, 0.2, 0.7), m3 = G({2, 5, 4}, 0.05);
  auto mmf = [](const V& x) { return mm(x[0], x[1]); };
  auto mmr = [](const T& x) { return mm(x[0], x[1]); };
  check_op("mm", mesh, {m1, m2}, {S0, R}, S0, mmf, mmr);
  check_op("mm", mesh, {m1, m2}, {R, S1}, S1, mmf, mmr);
  check_op("mm", mesh, {m1, m2}, {S1, S0}, Pa, mmf, mmr);
  check_op("mm", mesh, {m1, m2}, {R, R}, R, mmf, mmr);
  check_op("mm", mesh, {m1, m2}, {Pa, R}, Pa, mmf, mmr);
  check_op("mm", mesh, {m1, m2}, {S0, S1}, R, mmf, mmr);  // no rule: both replicated
  check_op(
      "matmul 3-D", mesh, {m3, m2}, {S0, R}, S0, [](const V& x) { return matmul(x[0], x[1]); },
      [](const T& x) { return matmul(x[0], x[1]); });
  check_op(
      "matmul 3-D", mesh, {m3, m2}, {S1, R}, S1, [](const V& x) { return matmul(x[0], x[1]); },
      [](const T& x) { return matmul(x[0], x[1]); });
  check_op(
      "matmul 3-D", mesh, {m3, m2}, {S2, S0}, Pa, [](const V& x) { return matmul(x[0], x[1]); },
      [](const T& x) { return matmul(x[0], x[1]); });
  Tensor lw = G({6, 4}, 0.1, 0.3), lb = G({6}, 0.2);
  check_op(
      "linear", mesh, {m1, lw, lb}, {R, S0, S0}, S1, [](const V& x) { return linear(x[0], x[1], x[2]); },
      [](const T& x) { return linear(x[0], x[1], x[2]); });
  check_op(
      "linear", mesh, {G({5, 6}), G({4, 6}, 0.1), G({4}, 0.3)}, {S1, S1, R}, Pa,
      [](const V& x) { return linear(x[0], x[1], x[2]); }, [](const T& x) { return linear(x[0], x[1], x[2]); });
  // Sums: a Shard on a reduced dim becomes Partial.
  check_op(
      "sum", mesh, {c}, {S0}, Pa, [](const V& x) { return sum(x[0]); }, [](const T& x) { return sum(x[0]); });
  check_op(
      "sum dim 0", mesh, {c}, {S0}, Pa, [](const V& x) { return sum(x[0], {0}); },
      [](const T& x) { return sum(x[0], {0}); });
  check_op(
      "sum dim 0", mesh, {c}, {S1}, S0, [](const V& x) { return sum(x[0], {0}); },
      [](const T& x) { return sum(x[0], {0}); });
  check_op(
      "sum dim 0 keepdim", mesh, {c}, {S1}, S1, [](const V& x) { return sum(x[0], {0}, true); },
      [](const T& x) { return sum(x[0], {0}, true); });
  check_op(
      "sum dim -1", mesh, {m3}, {S1}, S1, [](const V& x) { return sum(x[0], {-1}); },
      [](const T& x) { return sum(x[0], {-1}); });
  check_op(
      "sum", mesh, {a}, {Pa}, Pa, [](const V& x) { return sum(x[0], {1}); }, [](const T& x) { return sum(x[0], {1}); });
  // Errors name the op and the argument.
  DTensor d = distribute_tensor(m3, mesh, S0), e = distribute_tensor(m2, mesh, R);
  CHECK_HAS(error_of([&] { mm(d, e); }), "[mm] self: expected a 2-D DTensor, got 3-D");
  CHECK_HAS(error_of([&] { add(e, d); }), "[add] other: shapes [4, 3] and [2, 5, 4] are not broadcastable");
  CHECK_HAS(error_of([&] { sum(d, {3}); }), "[sum] dim: expected dims in [-3, 3), got 3");
  DTensor w54 = distribute_tensor(m1, mesh, R);
  CHECK_HAS(error_of([&] { linear(e, w54); }),
            "[linear] input: expected a last dim of 4 (weight's in_features), got shape [4, 3]");
  DeviceMesh named("cpu", {0, 1}, {2}, {"tp"});
  DTensor f = distribute_tensor(m2, named, R);
  CHECK_HAS(error_of([&] { add(e, f); }), "[add] operands on different meshes");
}

// The tensor-parallel MLP (column-parallel then row-parallel) against the same MLP on one process:
// forward and every gradient.
void case_mlp() {
  DeviceMesh mesh = init_device_mesh("cpu", {2});
  Tensor x = G({3, 6}, 0.1), w1 = G({10, 6}, 0.02, 0.5), b1 = G({10}, 0.05, 0.2), w2 = G({6, 10}, 0.03, 0.9),
         b2 = G({6}, 0.1, 0.3);
  auto ref_f = [](const T& t) { return linear(gelu(linear(t[0], t[1], t[2])), t[3], t[4]); };
  check_op(
      "mlp", mesh, {x, w1, b1, w2, b2}, {{Replicate()}, {Shard(0)}, {Shard(0)}, {Shard(1)}, {Replicate()}}, {Partial()},
      [](const V& t) { return linear(gelu(linear(t[0], t[1], t[2])), t[3], t[4]); }, ref_f);
  // Two SGD steps on the sharded MLP equal two on the whole one.
  DTensor dw1 = distribute_tensor(w1, mesh, {Shard(0)}), db1 = distribute_tensor(b1, mesh, {Shard(0)}),
          dw2 = distribute_tensor(w2, mesh, {Shard(1)}), db2 = distribute_tensor(b2, mesh, {Replicate()});
  std::vector<DTensor> ps{dw1, db1, dw2, db2};
  std::vector<Tensor> rs{w1.clone(), b1.clone(), w2.clone(), b2.clone()};
  for (auto& p : ps) p.requires_grad_();
  for (auto& r : rs) r.requires_grad_();
  for (int step = 0; step < 2; ++step) {
    DTensor xd = distribute_tensor(add(x, double(step)), mesh, {Replicate()});
    Tensor loss = sum(mul(linear(gelu(linear(xd, ps[0], ps[1])), ps[2], ps[3]).full_tensor(), G({3, 6}, 0.1)));
    Tensor ref = sum(mul(ref_f({add(x, double(step)), rs[0], rs[1], rs[2], rs[3]}), G({3, 6}, 0.1)));
    CHECK_CLOSE(loss, ref, fmt::format("mlp loss at step {}", step));
    loss.backward();
    ref.backward();
    NoGradGuard no_grad;
    for (size_t i = 0; i < ps.size(); ++i) {
      ps[i].to_local().sub_(mul(ps[i].to_local().grad(), 0.1));
      rs[i].sub_(mul(rs[i].grad(), 0.1));
      ps[i].to_local().mutable_grad() = Tensor();
      rs[i].mutable_grad() = Tensor();
    }
  }
  for (size_t i = 0; i < ps.size(); ++i)
    CHECK_CLOSE(ps[i].full_tensor(), rs[i].detach(), fmt::format("mlp parameter {} after 2 steps", i));
}

// A 2x2 mesh ("dp", "tp"): coordinates, sub-meshes, groups; Shard on one dim and Replicate on the
// other, nested shards, Partial on one dim, a matmul on both dims.
void case_mesh2d() {
  DeviceMesh mesh = init_device_mesh("cpu", {2, 2}, {"dp", "tp"});
  std::vector<int64_t> co{g_rank / 2, g_rank % 2};
  const int c0 = g_rank / 2, c1 = g_rank % 2;
  CHECK(mesh.get_coordinate() == co);
  CHECK(mesh.get_local_rank("dp") == co[0] && mesh.get_local_rank(1) == co[1]);
  CHECK(mesh.to_string() == "DeviceMesh('cpu', [[0, 1], [2, 3]], mesh_dim_names=('dp', 'tp'))");
  CHECK(mesh.get_group("tp")->getGlobalRanks() == (std::vector<int>{c0 * 2, c0 * 2 + 1}));
  CHECK(mesh.get_group("dp")->getGlobalRanks() == (std::vector<int>{c1, c1 + 2}));
  DeviceMesh tp = mesh["tp"];
  CHECK(tp.ndim() == 1 && tp.mesh() == (std::vector<int64_t>{co[0] * 2, co[0] * 2 + 1}));
  CHECK(tp.get_coordinate() == std::vector<int64_t>{co[1]} && tp.mesh_dim_names() == std::vector<std::string>{"tp"});
  CHECK(tp.get_group() == mesh.get_group(1));
  CHECK(mesh[std::vector<std::string>{"dp", "tp"}] == mesh);
  CHECK_HAS(error_of([&] { (void)mesh["pp"]; }),
            "[DeviceMesh.__getitem__] mesh_dim_name: expected one of 'dp', 'tp', got 'pp'");
  CHECK_HAS(error_of([&] { (void)mesh.get_group(); }), "[DeviceMesh.get_group] mesh_dim: expected one for a 2-D mesh");

  Tensor g = G({5, 6});
  Tensor mine = add(g, 10.0 * g_rank);
  std::vector<Placements> ps{{Shard(0), Replicate()}, {Replicate(), Shard(1)}, {Shard(0), Shard(1)},
                             {Shard(1), Shard(0)},    {Shard(0), Shard(0)},    {Replicate(), Replicate()},
                             {Shard(1), Shard(1)}};
  for (const auto& p : ps) {
    DTensor d = distribute_tensor(mine, mesh, p);
    CHECK_CLOSE(d.to_local(), expected_local(g, mesh, p), "2-D distribute " + P(p));
  }
  // Nested shards: (Shard(0), Shard(0)) is dp's chunk of 5 rows (3, 2), then tp's chunk of that.
  {
    DTensor d = distribute_tensor(g, mesh, {Shard(0), Shard(0)});
    const int64_t rows[4] = {2, 1, 1, 1}, first[4] = {0, 2, 3, 4};
    CHECK_CLOSE(d.to_local(), narrow(g, 0, first[g_rank], rows[g_rank]), "nested shard piece");
  }
  for (const auto& src : ps)
    for (const auto& dst : ps) {
      std::string what = fmt::format("2-D {} -> {}", P(src), P(dst));
      DTensor x = make_dt(g, mesh, src);
      DTensor y = x.redistribute(dst);
      CHECK_CLOSE(y.to_local(), expected_local(g, mesh, dst), what);
      Tensor w = G({5, 6}, 0.5, 1.0);
      sum(mul(y.full_tensor(), w)).backward();
      CHECK_CLOSE(x.to_local().grad(), expected_local(w, mesh, src), what + " grad");
    }
  // Partial on one mesh dim, Shard on the other.
  for (const Placements& p : {Placements{Partial(), Shard(0)}, Placements{Shard(1), Partial()}}) {
    DTensor x = make_dt(g, mesh, p);
    CHECK_CLOSE(x.full_tensor(), g, "2-D partial " + P(p));
    CHECK_CLOSE(x.redistribute({Shard(1), Shard(0)}).to_local(), expected_local(g, mesh, {Shard(1), Shard(0)}),
                "2-D partial to shards " + P(p));
  }
  // Four ranks along one dim: torch.chunk's uneven pieces (6 -> 2, 2, 2, 0; 5 -> 2, 2, 1, 0).
  DeviceMesh line = init_device_mesh("cpu", {4});
  for (std::vector<int64_t> shape : {std::vector<int64_t>{6, 2}, {5, 3}, {2, 3}}) {
    Tensor g1 = G(shape), w = G(shape, 0.5, 1.0);
    for (Placements src : {Placements{Shard(0)}, Placements{Shard(1)}, Placements{Replicate()}, Placements{Partial()}})
      for (Placements dst : {Placements{Shard(0)}, Placements{Shard(1)}, Placements{Replicate()}}) {
        std::string what = fmt::format("4 ranks [{}] {} -> {}", fmt::join(shape, ","), P(src), P(dst));
        DTensor x = make_dt(g1, line, src);
        DTensor y = x.redistribute(dst);
        CHECK_CLOSE(y.to_local(), expected_local(g1, line, dst), what);
        sum(mul(y.full_tensor(), w)).backward();
        CHECK_CLOSE(x.to_local().grad(), expected_local(w, line, grad_placements(src)), what + " grad");
      }
  }
  // Data parallel on dp, tensor parallel on tp.
  Tensor a = G({4, 6}, 0.1), b = G({6, 6}, 0.05, 0.4);
  check_op(
      "2-D mm", mesh, {a, b}, {{Shard(0), Replicate()}, {Replicate(), Shard(1)}}, {Shard(0), Shard(1)},
      [](const V& x) { return mm(x[0], x[1]); }, [](const T& x) { return mm(x[0], x[1]); });
  check_op(
      "2-D mm", mesh, {a, b}, {{Shard(0), Shard(1)}, {Replicate(), Shard(0)}}, {Shard(0), Partial()},
      [](const V& x) { return mm(x[0], x[1]); }, [](const T& x) { return mm(x[0], x[1]); });
  check_op(
      "2-D add", mesh, {a, G({6}, 0.2)}, {{Shard(0), Shard(1)}, {Replicate(), Replicate()}}, {Shard(0), Shard(1)},
      [](const V& x) { return x[0] + x[1]; }, [](const T& x) { return add(x[0], x[1]); });
}

// distribute_module: Replicate by default (broadcast from rank 0), partition_fn's shards, the
// parameter's identity kept, input_fn and output_fn around forward.
void case_module() {
  DeviceMesh mesh = init_device_mesh("cpu", {2});
  manual_seed(7);
  nn::Linear lin(6, 4);
  Tensor w0 = lin->weight.detach().clone(), b0 = lin->bias.detach().clone();
  {
    NoGradGuard no_grad;
    lin->weight.add_(double(g_rank));  // ranks other than 0 start elsewhere
  }
  TensorImpl* weight_impl = lin->weight.unsafeGetTensorImpl();
  std::vector<std::string> seen;
  auto dm = distribute_module(
      lin.ptr(), mesh,
      [&](const std::string& name, nn::Module&, const DeviceMesh&) {
        seen.push_back(name);
        return std::map<std::string, Placements>{{"weight", {Shard(0)}}, {"bias", {Shard(0)}}};
      },
      [](nn::Module&, const std::vector<Tensor>& in, const DeviceMesh&) {
        return std::vector<Tensor>{mul(in[0], 2.0)};
      },
      [](nn::Module&, const std::vector<Tensor>& out, const DeviceMesh& m) {
        // Column-parallel weight: the output's columns are sharded.
        return std::vector<Tensor>{DTensor::from_local(out[0], m, {Shard(1)}).full_tensor()};
      });
  CHECK(seen == std::vector<std::string>{""});
  CHECK(dm.parameters.keys() == (std::vector<std::string>{"weight", "bias"}));
  CHECK(dm.parameter("weight").placements() == Placements{Shard(0)});
  CHECK(dm.parameter("bias").placements() == Placements{Shard(0)});
  CHECK(lin->weight.unsafeGetTensorImpl() == weight_impl && lin->weight.requires_grad());
  CHECK((lin->weight.sizes() == std::vector<int64_t>{2, 6}));
  CHECK_CLOSE(lin->weight, chunk(w0, 2, 0)[g_rank], "sharded weight from rank 0");
  CHECK_CLOSE(dm.parameter("weight").full_tensor(), w0, "weight full_tensor");
  Tensor x = G({3, 6}, 0.1);
  CHECK_HAS(error_of([&] { dm.parameter("nope"); }),
            "[DistributedModule.parameter] name: no parameter 'nope' (have: weight, bias)");
  CHECK_HAS(error_of([&] {
              distribute_module(nn::Linear(2, 2).ptr(), mesh, [](const std::string&, nn::Module&, const DeviceMesh&) {
                return std::map<std::string, Placements>{{"wieght", {Shard(0)}}};
              });
            }),
            "[distribute_module] partition_fn: module '' has no parameter or buffer 'wieght'");
  // A Sequential: every submodule's parameters and buffers, Replicate by default.
  manual_seed(3);
  nn::Sequential seq(nn::Linear(4, 3), nn::BatchNorm1d(3));
  auto ref_state = seq->named_parameters();
  std::map<std::string, Tensor> want;
  for (auto& e : ref_state) want[e.key()] = e.value().detach().clone();
  {
    NoGradGuard no_grad;
    for (auto& p : seq->parameters()) p.add_(double(g_rank));
  }
  auto ds = distribute_module(seq.ptr(), mesh);
  CHECK(ds.parameters.size() == 4 && ds.buffers.size() == 3);
  for (auto& e : ds.parameters) {
    CHECK(e.value().placements() == Placements{Replicate()});
    CHECK_CLOSE(e.value().to_local(), want[e.key()], "replicated " + e.key());
  }
  CHECK(ds.buffer("1.running_mean").placements() == Placements{Replicate()});
  // forward: input_fn doubled the input; output_fn gathered the columns.
  Tensor y = lin(x);
  CHECK_CLOSE(y, linear(mul(x, 2.0), w0, b0), "distributed forward through input_fn and output_fn");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: {} redistribute|distribute|ops|mlp|mesh2d|module\n", argv[0]);
    return 2;
  }
  const std::string which = argv[1];
  const std::map<std::string, void (*)()> cases{{"redistribute", case_redistribute},
                                                {"distribute", case_distribute},
                                                {"ops", case_ops},
                                                {"mlp", case_mlp},
                                                {"mesh2d", case_mesh2d},
                                                {"module", case_module}};
  auto it = cases.find(which);
  if (it == cases.end()) {
    fmt::print(stderr, "unknown case {}\n", which);
    return 2;
  }
  try {
    init_process_group("gloo", "", -1, -1, std::chrono::seconds(60));
    g_rank = get_rank();
    it->second();
    barrier();
    destroy_process_group();
  } catch (const std::exception& e) {
    fmt::print("rank {}: exception: {}\n", g_rank, e.what());
    return 3;
  }
  if (g_failed) fmt::print("rank {}: {} checks failed\n", g_rank, g_failed);
  return g_failed ? 1 : 0;
}
