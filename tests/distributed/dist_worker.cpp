// The program multi-process distributed tests start (with Spawn.h): `dist_worker <scenario>
// [args...]` joins a group (torchrun's environment; backend from EMBER_TEST_BACKEND, default
// gloo), runs the named scenario and exits 0 after printing "ok", or prints "<Kind>: <message>"
// of the error that ended it and exits 1. Other suites may add scenarios to the table in main().
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed.h"
#include "ember/ember.h"

using namespace ember;
namespace dist = ember::distributed;
using namespace std::chrono_literals;
using dist::ReduceOp;

namespace {

std::string backend() {
  const char* b = std::getenv("EMBER_TEST_BACKEND");
  return b && *b ? b : "gloo";
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v) throw ValueError(std::string("dist_worker: ") + name + " is not set");
  return std::atoi(v);
}

std::vector<double> vals(const Tensor& t) {
  const Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("dist_worker: check failed: " + what);
}

Tensor filled(std::vector<int64_t> shape, double v, ScalarType dtype = kFloat32) {
  return full(shape, Scalar(v), TensorOptions().dtype(dtype));
}

// env:// collectives through the torch.distributed functions, and a subgroup of ranks 0 and 2.
void collectives(const std::vector<std::string>&) {
  dist::init_process_group(backend());
  const int r = dist::get_rank(), n = dist::get_world_size();
  Tensor t = filled({3}, r + 1.0);
  dist::all_reduce(t);
  expect(vals(t) == std::vector<double>(3, n * (n + 1) / 2.0), "all_reduce SUM");
  Tensor b = filled({2}, r == 1 ? 7.0 : 0.0, kInt64);
  dist::broadcast(b, 1);
  expect(vals(b) == std::vector<double>(2, 7), "broadcast from 1");
  std::vector<Tensor> parts;
  for (int i = 0; i < n; ++i) parts.push_back(filled({1}, -1));
  dist::all_gather(parts, filled({1}, 10.0 * r));
  for (int i = 0; i < n; ++i) expect(vals(parts[i]) == std::vector<double>{10.0 * i}, "all_gather");
  auto w = dist::all_reduce(t, ReduceOp::MAX, nullptr, /*async_op=*/true);
  w->wait();
  expect(w->is_completed(), "async all_reduce completed");
  if (n >= 3) {
    auto sub = dist::new_group({0, 2});
    expect((sub != nullptr) == (r == 0 || r == 2), "new_group membership");
    if (sub) {
      Tensor s = filled({2}, r + 1.0);
      dist::all_reduce(s, ReduceOp::SUM, sub);
      expect(vals(s) == std::vector<double>(2, 4), "subgroup all_reduce");
      expect(dist::get_rank(sub) == r / 2, "subgroup rank");
      Tensor x = filled({1}, r == 2 ? 5.0 : 0.0);
      dist::broadcast(x, 2, sub);  // src is a world rank
      expect(vals(x) == std::vector<double>{5}, "subgroup broadcast from world rank 2");
    }
  }
  if (n >= 2) {
    if (r == 0) dist::send(filled({2}, 42), 1);
    if (r == 1) {
      Tensor got = filled({2}, 0);
      int from = dist::recv(got);
      expect(from == 0 && vals(got) == std::vector<double>(2, 42), "recv from any source");
    }
  }
  dist::barrier();
  dist::destroy_process_group();
}

// init_process_group with an explicit init_method (tcp://..., file://...), rank and world size.
void init_method(const std::vector<std::string>& args) {
  if (args.empty()) throw ValueError("dist_worker init: expected an init_method");
  dist::init_process_group(backend(), args[0], env_int("WORLD_SIZE"), env_int("RANK"));
  const int r = dist::get_rank(), n = dist::get_world_size();
  Tensor t = filled({2}, r + 1.0, kFloat64);
  dist::all_reduce(t, ReduceOp::PRODUCT);
  double want = 1;
  for (int i = 1; i <= n; ++i) want *= i;
  expect(vals(t) == std::vector<double>(2, want), "all_reduce PRODUCT");
  dist::barrier();
  dist::destroy_process_group();
}

// all_reduce in a loop, 20 ms apart; rank <victim> kills itself (SIGKILL) at iteration <at>.
void killed(const std::vector<std::string>& args) {
  const int victim = args.empty() ? 1 : std::stoi(args[0]);
  const int at = args.size() < 2 ? 5 : std::stoi(args[1]);
  dist::init_process_group(backend(), "", -1, -1, 60s);
  const int r = dist::get_rank();
  for (int i = 0;; ++i) {
    if (r == victim && i == at) raise(SIGKILL);
    Tensor t = filled({4}, 1);
    dist::all_reduce(t);
    std::this_thread::sleep_for(20ms);
  }
}

// A 2 s group timeout; rank <victim> sleeps 4 s between a broadcast and the all_reduce.
void sleeper(const std::vector<std::string>& args) {
  const int victim = args.empty() ? 1 : std::stoi(args[0]);
  dist::init_process_group(backend(), "", -1, -1, 2s);
  Tensor t = filled({4}, 1);
  dist::broadcast(t, 0);
  if (dist::get_rank() == victim) std::this_thread::sleep_for(4s);
  dist::all_reduce(t);
  dist::destroy_process_group();
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::function<void(const std::vector<std::string>&)>> scenarios = {
      {"collectives", collectives}, {"init", init_method}, {"killed", killed}, {"sleeper", sleeper}};
  if (argc < 2 || !scenarios.count(argv[1])) {
    std::fprintf(stderr, "usage: dist_worker <scenario> [args...]; scenarios:");
    for (auto& [name, fn] : scenarios) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  try {
    scenarios.at(argv[1])(std::vector<std::string>(argv + 2, argv + argc));
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "%s: %s\n", e.kind(), e.what());
    std::fflush(stderr);
    // World rank 0 serves the TCPStore: stay up a little so the peers' diagnoses can read it.
    if (std::getenv("RANK") && std::atoi(std::getenv("RANK")) == 0) std::this_thread::sleep_for(3s);
    std::_Exit(1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    std::_Exit(1);
  }
  std::printf("ok\n");
  return 0;
}
