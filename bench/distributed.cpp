// all_reduce bus bandwidth (nccl-tests' busbw = size / time * 2(n-1)/n) for 1 KiB .. 256 MiB of
// float32 (x4 steps) on N processes: Ember's process group beside the library called directly in
// the same processes, the same way (SUM, in place, same algorithm), reported as ratios.
//   ember run --nproc-per-node 2 -- bench_distributed gloo [MAX_BYTES]
//        Ember's gloo group beside gloo::allreduce on a gloo context built as the backend builds
//        its own (TCP device on the address towards MASTER_ADDR, full mesh through the store).
//   mpirun -np 2 bench_distributed mpi [MAX_BYTES]
//        Ember's mpi group beside MPI_Allreduce on MPI_COMM_WORLD.
//   bench_distributed has-mpi     prints whether this build has the MPI comparison
// Each size runs batches of a fixed number of calls (the same on every rank), Ember's and the
// direct call's alternating, five each; a batch's time is the slowest rank's; the best batch counts.
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#if EMBER_BENCH_HAVE_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "GlooStore.h"  // plugins/distributed: the backend's own store adapter
#include "ember/distributed.h"
#include "ember/ember.h"

namespace dist_plugin = ember::dist;

namespace {

using namespace ember;
namespace dist = ember::distributed;
using clk = std::chrono::steady_clock;

constexpr int64_t kMinBytes = 1 << 10, kMaxBytes = int64_t(1) << 28;
constexpr int kReps = 5;

std::string human(int64_t bytes) {
  if (bytes >= (1 << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

// Calls per batch: ~64 MiB moved per batch, at least 2 and at most 2000 calls.
int calls_for(int64_t bytes) { return static_cast<int>(std::clamp<int64_t>((int64_t(64) << 20) / bytes, 2, 2000)); }

struct Result {
  double us = 0;     // per call
  double busbw = 0;  // GB/s
};

// Ember's and the direct all_reduce of `bytes` (`ember`, `direct`), their batches alternating so
// that both see the same machine; `slowest` turns this rank's seconds into the max over ranks.
std::pair<Result, Result> time_ops(int64_t bytes, int world, const std::function<void()>& ember,
                                   const std::function<void()>& direct, const std::function<double(double)>& slowest) {
  const int calls = calls_for(bytes);
  auto batch = [&](const std::function<void()>& op) {
    slowest(0);  // start together
    auto t0 = clk::now();
    for (int i = 0; i < calls; ++i) op();
    return slowest(std::chrono::duration<double>(clk::now() - t0).count() / calls);
  };
  ember();  // warm-up: connections, page faults
  direct();
  double best_e = 1e30, best_d = 1e30;
  for (int r = 0; r < kReps; ++r) {
    best_e = std::min(best_e, batch(ember));
    best_d = std::min(best_d, batch(direct));
  }
  auto result = [&](double s) {
    return Result{s * 1e6, static_cast<double>(bytes) / s * 2.0 * (world - 1) / world / 1e9};
  };
  return {result(best_e), result(best_d)};
}

void check_sum(const float* p, int64_t n, int world, const char* who, int64_t bytes) {
  const float want = world * (world + 1) / 2.0f;
  for (int64_t i : {int64_t(0), n / 2, n - 1})
    if (p[i] != want) {
      std::fprintf(stderr, "bench_distributed: %s all_reduce of %s: element %ld is %g, expected %g\n", who,
                   human(bytes).c_str(), static_cast<long>(i), p[i], want);
      std::exit(1);
    }
}

void print_header(const char* backend, const char* direct, int world) {
  std::printf("all_reduce (SUM, float32, in place) on %d processes over loopback; busbw = size/time * 2(n-1)/n\n",
              world);
  std::printf("%10s  %12s %10s  %12s %10s  %14s\n", "size", "ember us", "busbw GB/s", "direct us", "busbw GB/s",
              "ember/direct");
  std::printf("%10s  %23s  %23s\n", "", (std::string("Ember's ") + backend + " group").c_str(), direct);
}

void print_row(int64_t bytes, const Result& e, const Result& d) {
  std::printf("%10s  %12.1f %10.3f  %12.1f %10.3f  %13.2fx\n", human(bytes).c_str(), e.us, e.busbw, d.us, d.busbw,
              e.busbw / d.busbw);
  std::fflush(stdout);
}

// The slowest rank's value, through Ember's group (outside the timed loop).
double ember_max(double v) {
  Tensor t = ember::full({1}, Scalar(v), TensorOptions().dtype(kFloat64));
  dist::all_reduce(t, dist::ReduceOp::MAX);
  return t.item<double>();
}

int run_gloo(int64_t max_bytes) {
  dist::InitProcessGroupOptions o;
  o.backend = "gloo";
  o.timeout = std::chrono::seconds(120);
  dist::init_process_group(o);
  const int rank = dist::get_rank(), world = dist::get_world_size();
  // The direct context: a TCP device on the address towards MASTER_ADDR (loopback here), the
  // full mesh through the same store under its own prefix.
  gloo::transport::tcp::attr attr;
  const char* master = std::getenv("MASTER_ADDR");
  attr.hostname = master && *master ? master : "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, world);
  ctx->setTimeout(std::chrono::seconds(120));
  dist_plugin::GlooStore store(std::make_shared<c10d::PrefixStore>("bench_direct_gloo", dist::get_default_store()));
  ctx->connectFullMesh(store, device);
  if (rank == 0) print_header("gloo", "gloo::allreduce direct", world);
  uint32_t tag = 0;
  for (int64_t bytes = kMinBytes; bytes <= max_bytes; bytes *= 4) {
    const int64_t n = bytes / 4;
    Tensor t = ember::full({n}, Scalar(rank + 1.0));
    dist::all_reduce(t);
    check_sum(t.data_ptr<float>(), n, world, "Ember's gloo", bytes);
    t.zero_();
    std::vector<float> buf(n, rank + 1.0f);
    auto direct = [&] {
      gloo::AllreduceOptions opts(ctx);
      opts.setOutput<float>(buf.data(), static_cast<size_t>(n));
      opts.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      opts.setTag(++tag);
      opts.setTimeout(std::chrono::seconds(120));
      gloo::allreduce(opts);
    };
    direct();
    check_sum(buf.data(), n, world, "direct gloo", bytes);
    std::fill(buf.begin(), buf.end(), 0.0f);
    auto [e, d] = time_ops(
        bytes, world, [&] { dist::all_reduce(t); }, direct, ember_max);
    if (rank == 0) print_row(bytes, e, d);
  }
  dist::destroy_process_group();
  return 0;
}

#if EMBER_BENCH_HAVE_MPI
int run_mpi(int64_t max_bytes) {
  dist::init_process_group("mpi");  // under mpirun: MPI's own rank and size
  const int rank = dist::get_rank(), world = dist::get_world_size();
  if (rank == 0) print_header("mpi", "MPI_Allreduce direct", world);
  auto mpi_max = [](double v) {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
  };
  for (int64_t bytes = kMinBytes; bytes <= max_bytes; bytes *= 4) {
    const int64_t n = bytes / 4;
    Tensor t = ember::full({n}, Scalar(rank + 1.0));
    dist::all_reduce(t);
    check_sum(t.data_ptr<float>(), n, world, "Ember's mpi", bytes);
    t.zero_();
    std::vector<float> buf(n, rank + 1.0f);
    auto direct = [&] {
      MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    };
    direct();
    check_sum(buf.data(), n, world, "direct MPI", bytes);
    std::fill(buf.begin(), buf.end(), 0.0f);
    auto [e, d] = time_ops(
        bytes, world, [&] { dist::all_reduce(t); }, direct, mpi_max);
    if (rank == 0) print_row(bytes, e, d);
  }
  dist::destroy_process_group();
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int64_t max_bytes = kMaxBytes;
  if (argc > 2) max_bytes = std::clamp<int64_t>(std::atoll(argv[2]), kMinBytes, kMaxBytes);
  try {
    if (mode == "has-mpi") {
      std::printf("%s\n", EMBER_BENCH_HAVE_MPI ? "yes" : "no");
      return 0;
    }
    if (mode == "gloo") return run_gloo(max_bytes);
#if EMBER_BENCH_HAVE_MPI
    if (mode == "mpi") return run_mpi(max_bytes);
#endif
    std::fprintf(stderr,
                 "usage: ember run --nproc-per-node 2 -- bench_distributed gloo [MAX_BYTES]\n"
                 "       mpirun -np 2 bench_distributed mpi [MAX_BYTES]   (when built with MPI: %s)\n"
                 "       bench_distributed has-mpi\n",
                 EMBER_BENCH_HAVE_MPI ? "yes" : "no");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_distributed: %s\n", e.what());
    return 1;
  }
}
