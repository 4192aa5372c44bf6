// One rank of the multi-process store tests (test_store.cpp spawns it with torchrun's
// environment). Modes:
//   tcp                  ranks rendezvous on a TCPStore (rank 0 serves, numWorkers = world size)
//   file <path>          ranks rendezvous on a FileStore at <path>
//   server_exits         rank 0 serves and exits while rank 1 is blocked in wait()
// Prints "ok" and exits 0 when every check of the mode held; prints the error and exits 1 else.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "ember/distributed.h"

using namespace ember::c10d;
using namespace std::chrono_literals;

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v) throw std::runtime_error(std::string("missing environment variable ") + name);
  return std::atoi(v);
}

void expect(bool cond, const std::string& what) {
  if (!cond) throw std::runtime_error("check failed: " + what);
}

// Every rank counts itself in, publishes a value and reads everyone's. Rank 0 (the TCPStore's
// server) leaves last: it waits for the others' "done" keys, which they set as their last call.
void rendezvous(Store& store, int rank, int world) {
  store.add("arrived", 1);
  store.set("rank/" + std::to_string(rank), "value of " + std::to_string(rank));
  std::vector<std::string> keys;
  for (int r = 0; r < world; ++r) keys.push_back("rank/" + std::to_string(r));
  store.wait(keys);
  for (int r = 0; r < world; ++r)
    expect(store.get_string("rank/" + std::to_string(r)) == "value of " + std::to_string(r),
           "value of rank " + std::to_string(r));
  expect(store.add("arrived", 0) == world, "arrived == world");
  if (rank != 0) {
    store.set("done/" + std::to_string(rank), "1");
    return;
  }
  std::vector<std::string> done;
  for (int r = 1; r < world; ++r) done.push_back("done/" + std::to_string(r));
  store.wait(done);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    int rank = env_int("RANK"), world = env_int("WORLD_SIZE");
    auto port = static_cast<uint16_t>(env_int("MASTER_PORT"));
    if (mode == "tcp") {
      TCPStoreOptions o;
      o.port = port;
      o.isServer = rank == 0;
      o.numWorkers = static_cast<size_t>(world);
      o.timeout = 20s;
      TCPStore store("127.0.0.1", o);
      expect(store.getPort() == port, "getPort");
      // Every rank is counted in once the server's constructor has returned (not before the
      // others' constructors: they do not wait).
      if (rank == 0) expect(store.add("init/", 0) == world, "init/ counter == world");
      rendezvous(store, rank, world);
    } else if (mode == "file" && argc > 2) {
      FileStore store(argv[2], world);
      store.setTimeout(20s);
      rendezvous(store, rank, world);
    } else if (mode == "server_exits") {
      TCPStoreOptions o;
      o.port = port;
      o.isServer = rank == 0;
      o.timeout = 20s;
      auto store = std::make_unique<TCPStore>("127.0.0.1", o);
      if (rank == 0) {
        store->wait({"client_waiting"});
        // Let the client's wait reach the server, then go away without a word.
        std::this_thread::sleep_for(200ms);
        std::printf("ok\n");
        std::fflush(stdout);
        std::_Exit(0);
      }
      store->set("client_waiting", "1");
      try {
        store->wait({"never"}, 15s);
        throw std::runtime_error("wait returned though the server is gone");
      } catch (const DistNetworkError& e) {
        std::printf("DistNetworkError: %s\n", e.what());
      }
    } else {
      throw std::runtime_error("usage: store_worker tcp | file <path> | server_exits");
    }
    std::printf("ok\n");
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
