#include "Spawn.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>

namespace ember::test {

namespace {

bool can_bind(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  close(fd);
  return ok;
}

}  // namespace

int free_port() {
  // Below the kernel's ephemeral range: a port bound to 0 there can be taken, between our close
  // and the worker's listen, by any outgoing connection of a test running beside this one.
  int low = 32768, high = 60999;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low >> high;
  std::mt19937 gen(static_cast<unsigned>(getpid()) ^
                   static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::uniform_int_distribution<int> pick(10000, std::max(10001, low - 1));
  for (int attempt = 0; attempt < 200; ++attempt) {
    int port = pick(gen);
    if (can_bind(port)) return port;
  }
  return -1;
}

}  // namespace ember::test
