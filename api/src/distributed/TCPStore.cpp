// TCPStore (ember/distributed/Store.h): a server thread that owns the map and answers requests
// over TCP, and a client holding a small pool of connections to it.
//
// Wire format: every message is a frame, a little-endian u64 length and that many bytes. A
// request is a command byte then its arguments, each a u64 length and its bytes (integers are
// 8-byte arguments). A response is a status byte (0 ok; 1 error, with the message as its one
// field) then the result fields. A connection carries one request at a time, so a reply needs no
// id; GET and WAIT are answered by the server when their keys arrive (per-key waiter lists), and
// a blocking call holds a connection of its own so that other threads' calls go on meanwhile.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <unordered_set>

#include "StoreDetail.h"
#include "ember/distributed/Store.h"

namespace ember::c10d {
namespace {

using detail::get_u64;
using detail::put_u64;

using Clock = std::chrono::steady_clock;

enum class Cmd : uint8_t { Set = 1, Get, Add, CompareSet, Delete, Check, NumKeys, Wait };
constexpr uint8_t kOk = 0;
constexpr uint8_t kError = 1;
// The counter every worker adds 1 to when numWorkers is given (PyTorch's name).
constexpr const char* kInitKey = "init/";

std::string errno_text(int err) { return std::strerror(err); }

// Builds one frame: reserve the length, append the body, patch the length.
class Frame {
 public:
  explicit Frame(uint8_t first) {
    buf_.resize(8);
    buf_.push_back(static_cast<char>(first));
  }
  Frame& field(const char* p, size_t n) {
    put_u64(buf_, n);
    buf_.append(p, n);
    return *this;
  }
  Frame& field(const std::string& s) { return field(s.data(), s.size()); }
  Frame& field(const std::vector<uint8_t>& v) { return field(reinterpret_cast<const char*>(v.data()), v.size()); }
  Frame& i64(int64_t v) {
    std::string s;
    put_u64(s, static_cast<uint64_t>(v));
    return field(s);
  }
  std::string finish() {
    std::string len;
    put_u64(len, buf_.size() - 8);
    std::memcpy(buf_.data(), len.data(), 8);
    return std::move(buf_);
  }

 private:
  std::string buf_;
};

// Reads a frame's body; `ok` turns false on a malformed one.
struct Reader {
  const char* p;
  const char* end;
  bool ok = true;
  uint8_t byte() {
    if (p >= end) return ok = false, 0;
    return static_cast<uint8_t>(*p++);
  }
  std::string str() {
    if (end - p < 8) return ok = false, std::string();
    uint64_t n = get_u64(p);
    p += 8;
    if (static_cast<uint64_t>(end - p) < n) return ok = false, std::string();
    std::string s(p, n);
    p += n;
    return s;
  }
  int64_t i64() {
    auto s = str();
    if (s.size() != 8) return ok = false, 0;
    return static_cast<int64_t>(get_u64(s.data()));
  }
  bool done() const { return ok && p == end; }
};

std::vector<uint8_t> to_bytes(const std::string& s) { return {s.begin(), s.end()}; }

void set_nodelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Server

struct TCPStore::Server {
  explicit Server(uint16_t requested);
  ~Server();

  uint16_t port = 0;

 private:
  struct Conn {
    int fd = -1;
    std::string in;
    size_t in_off = 0;
    std::string out;
    bool waiting = false;  // a GET or WAIT is parked; later requests stay buffered
    bool closed = false;
  };
  struct Waiter {
    uint64_t conn;
    Cmd cmd;
    std::vector<std::string> keys;  // distinct; for GET the one key
    size_t missing;
  };

  void run();
  void loop();
  void accept_all();
  void read_conn(Conn& c);
  void flush(Conn& c);
  void process(uint64_t id, Conn& c);
  bool handle(uint64_t id, Conn& c, Reader& r);
  void reply(Conn& c, Frame&& f) { c.out += f.finish(); }
  void key_set(const std::string& key);
  void complete(const Waiter& w);
  void drop(uint64_t id);

  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  // Touched only by the server thread.
  uint64_t next_id_ = 0;
  std::unordered_map<uint64_t, Conn> conns_;
  std::unordered_map<std::string, std::string> data_;
  std::unordered_map<std::string, std::vector<std::shared_ptr<Waiter>>> waiters_;
  std::unordered_map<uint64_t, std::shared_ptr<Waiter>> parked_;  // by connection
  std::vector<uint64_t> resumed_;                                 // connections whose wait ended
};

namespace {
// A listening socket on every interface at `port`, or -1 with `err` set.
int listen_on(int family, uint16_t port, int& err) {
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    err = errno;
    return -1;
  }
  int one = 1, zero = 0;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_storage ss{};
  socklen_t len;
  if (family == AF_INET6) {
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));  // IPv4 clients too
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_any;
    a->sin6_port = htons(port);
    len = sizeof(sockaddr_in6);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_ANY);
    a->sin_port = htons(port);
    len = sizeof(sockaddr_in);
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    err = errno;
    ::close(fd);
    return -1;
  }
  return fd;
}
}  // namespace

TCPStore::Server::Server(uint16_t requested) {
  // All interfaces (as PyTorch): dual-stack, or IPv4 alone where IPv6 is unavailable.
  int err = 0;
  int fd = listen_on(AF_INET6, requested, err);
  if (fd < 0 && err != EADDRINUSE && err != EACCES) fd = listen_on(AF_INET, requested, err);
  if (fd < 0)
    throw DistNetworkError(
        fmt::format("[TCPStore] port: the server cannot listen on port {}: {}", requested, errno_text(err)));
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    err = errno;
    ::close(fd);
    throw DistNetworkError(fmt::format("[TCPStore] cannot create the server's wake-up pipe: {}", errno_text(err)));
  }
  listen_fd_ = fd;
  thread_ = std::thread([this] { run(); });
}

TCPStore::Server::~Server() {
  char b = 1;
  while (::write(wake_[1], &b, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  for (auto& [id, c] : conns_) ::close(c.fd);
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void TCPStore::Server::run() {
  try {
    loop();
  } catch (const std::exception&) {
    // Out of memory (a huge value): hang up on everyone, so that clients fail instead of hanging.
    for (auto& [id, c] : conns_) ::shutdown(c.fd, SHUT_RDWR);
    ::shutdown(listen_fd_, SHUT_RDWR);
  }
}

void TCPStore::Server::loop() {
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  for (;;) {
    fds.clear();
    ids.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (auto& [id, c] : conns_) {
      fds.push_back({c.fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
      ids.push_back(id);
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;  // nothing sensible left to do; clients see their connections drop
    }
    if (fds[0].revents) return;
    if (fds[1].revents & POLLIN) accept_all();
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      auto it = conns_.find(ids[i - 2]);
      if (it == conns_.end()) continue;
      Conn& c = it->second;
      if (fds[i].revents & POLLOUT) flush(c);
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        read_conn(c);
        process(it->first, c);
      }
    }
    // Connections whose GET/WAIT was answered may have further requests buffered.
    while (!resumed_.empty()) {
      auto id = resumed_.back();
      resumed_.pop_back();
      auto it = conns_.find(id);
      if (it != conns_.end()) process(id, it->second);
    }
    std::vector<uint64_t> dead;
    for (auto& [id, c] : conns_) {
      if (!c.out.empty() && !c.closed) flush(c);
      if (c.closed) dead.push_back(id);
    }
    for (auto id : dead) drop(id);
  }
}

void TCPStore::Server::accept_all() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;  // EAGAIN, or a connection that died before we took it
    set_nodelay(fd);
    conns_[next_id_++].fd = fd;
  }
}

void TCPStore::Server::read_conn(Conn& c) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.closed = true;  // EOF or a reset: the client went away
    return;
  }
}

void TCPStore::Server::flush(Conn& c) {
  while (!c.out.empty()) {
    ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.closed = true;
    return;
  }
}

void TCPStore::Server::process(uint64_t id, Conn& c) {
  while (!c.waiting && !c.closed) {
    size_t avail = c.in.size() - c.in_off;
    if (avail < 8) break;
    uint64_t len = get_u64(c.in.data() + c.in_off);
    if (avail - 8 < len) break;
    Reader r{c.in.data() + c.in_off + 8, c.in.data() + c.in_off + 8 + len};
    c.in_off += 8 + len;
    if (!handle(id, c, r)) c.closed = true;  // not our protocol: hang up
  }
  if (c.in_off == c.in.size()) {
    c.in.clear();
    c.in_off = 0;
  } else if (c.in_off > (1u << 20)) {
    c.in.erase(0, c.in_off);
    c.in_off = 0;
  }
}

bool TCPStore::Server::handle(uint64_t id, Conn& c, Reader& r) {
  auto cmd = static_cast<Cmd>(r.byte());
  try {
    switch (cmd) {
      case Cmd::Set: {
        auto key = r.str();
        auto value = r.str();
        if (!r.done()) return false;
        data_[key] = std::move(value);
        reply(c, Frame(kOk));
        key_set(key);
        return true;
      }
      case Cmd::Get: {
        auto key = r.str();
        if (!r.done()) return false;
        auto it = data_.find(key);
        if (it != data_.end()) {
          reply(c, std::move(Frame(kOk).field(it->second)));
          return true;
        }
        auto w = std::make_shared<Waiter>(Waiter{id, Cmd::Get, {key}, 1});
        waiters_[key].push_back(w);
        parked_[id] = w;
        c.waiting = true;
        return true;
      }
      case Cmd::Add: {
        auto key = r.str();
        auto delta = r.i64();
        if (!r.done()) return false;
        auto it = data_.find(key);
        int64_t n = delta;
        if (it != data_.end())
          n = detail::checked_add("TCPStore::add", key,
                                  detail::parse_counter("TCPStore::add", key, to_bytes(it->second)), delta);
        data_[key] = std::to_string(n);
        reply(c, std::move(Frame(kOk).i64(n)));
        key_set(key);
        return true;
      }
      case Cmd::CompareSet: {
        auto key = r.str();
        auto expected = r.str();
        auto desired = r.str();
        if (!r.done()) return false;
        auto it = data_.find(key);
        if (it == data_.end() ? expected.empty() : it->second == expected) {
          data_[key] = desired;
          reply(c, std::move(Frame(kOk).field(desired)));
          key_set(key);
        } else {
          reply(c, std::move(Frame(kOk).field(it == data_.end() ? expected : it->second)));
        }
        return true;
      }
      case Cmd::Delete: {
        auto key = r.str();
        if (!r.done()) return false;
        reply(c, std::move(Frame(kOk).i64(data_.erase(key) != 0)));
        return true;
      }
      case Cmd::Check:
      case Cmd::Wait: {
        auto n = r.i64();
        if (!r.ok || n < 0) return false;
        std::vector<std::string> keys;
        for (int64_t i = 0; i < n && r.ok; ++i) keys.push_back(r.str());
        if (!r.done()) return false;
        std::vector<std::string> missing;
        std::unordered_set<std::string> seen;
        for (auto& k : keys)
          if (!data_.count(k) && seen.insert(k).second) missing.push_back(k);
        if (cmd == Cmd::Check) {
          reply(c, std::move(Frame(kOk).i64(missing.empty())));
        } else if (missing.empty()) {
          reply(c, Frame(kOk));
        } else {
          auto w = std::make_shared<Waiter>(Waiter{id, Cmd::Wait, missing, missing.size()});
          for (auto& k : missing) waiters_[k].push_back(w);
          parked_[id] = w;
          c.waiting = true;
        }
        return true;
      }
      case Cmd::NumKeys:
        if (!r.done()) return false;
        reply(c, std::move(Frame(kOk).i64(static_cast<int64_t>(data_.size()))));
        return true;
    }
  } catch (const std::exception& e) {
    reply(c, std::move(Frame(kError).field(std::string(e.what()))));
    return true;
  }
  return false;
}

void TCPStore::Server::key_set(const std::string& key) {
  auto it = waiters_.find(key);
  if (it == waiters_.end()) return;
  auto list = std::move(it->second);
  waiters_.erase(it);
  for (auto& w : list)
    if (--w->missing == 0) complete(*w);
}

void TCPStore::Server::complete(const Waiter& w) {
  auto it = conns_.find(w.conn);
  if (it == conns_.end()) return;
  Conn& c = it->second;
  if (w.cmd == Cmd::Get) {
    // The key was set just now; a GET answers with the value it was set to.
    reply(c, std::move(Frame(kOk).field(data_.at(w.keys[0]))));
  } else {
    reply(c, Frame(kOk));
  }
  parked_.erase(w.conn);
  c.waiting = false;
  resumed_.push_back(w.conn);
}

void TCPStore::Server::drop(uint64_t id) {
  auto pit = parked_.find(id);
  if (pit != parked_.end()) {
    // Forget the departed client's GET/WAIT (e.g. it timed out and hung up).
    for (auto& k : pit->second->keys) {
      auto wit = waiters_.find(k);
      if (wit == waiters_.end()) continue;
      auto& v = wit->second;
      v.erase(std::remove(v.begin(), v.end(), pit->second), v.end());
      if (v.empty()) waiters_.erase(wit);
    }
    parked_.erase(pit);
  }
  auto it = conns_.find(id);
  ::close(it->second.fd);
  conns_.erase(it);
}

namespace {
// multiTenant servers of this process by port. Leaked: stores may outlive static destruction.
std::mutex& tenants_mu() {
  static auto* mu = new std::mutex;
  return *mu;
}
// The servers are held as weak_ptr<void>: TCPStore::Server is private to TCPStore.
std::unordered_map<uint16_t, std::weak_ptr<void>>& tenants() {
  static auto* m = new std::unordered_map<uint16_t, std::weak_ptr<void>>;
  return *m;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Client

struct TCPStore::Client {
  Client(std::string host, uint16_t port) : host(std::move(host)), port(port) {}
  ~Client() {
    for (int fd : idle) ::close(fd);
  }

  std::string where() const { return fmt::format("{}:{}", host, port); }

  // The first connection: retries with backoff while the server is not up, until `timeout`
  // (kNoTimeout: forever).
  int connect_first(std::chrono::milliseconds timeout) {
    auto start = Clock::now();
    auto backoff = std::chrono::milliseconds(10);
    for (;;) {
      std::string why;
      auto deadline = timeout == kNoTimeout ? Clock::now() + kAttempt : start + timeout;
      int fd = try_connect(deadline, why);
      if (fd >= 0) return fd;
      auto now = Clock::now();
      if (timeout != kNoTimeout && now >= deadline)
        throw DistNetworkError(fmt::format("[TCPStore] could not connect to the TCPStore server at {} within {} ms: {}",
                                           where(), timeout.count(), why));
      auto pause =
          timeout == kNoTimeout ? Clock::duration(backoff) : std::min<Clock::duration>(backoff, deadline - now);
      std::this_thread::sleep_for(pause);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
    }
  }

  // One round of attempts over the host's addresses, each bounded by `deadline`.
  int try_connect(Clock::time_point deadline, std::string& why) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
    if (rc != 0) {
      why = fmt::format("cannot resolve '{}': {}", host, ::gai_strerror(rc));
      return -1;
    }
    int out = -1;
    for (auto* ai = res; ai && out < 0; ai = ai->ai_next) {
      int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
      if (fd < 0) {
        why = errno_text(errno);
        continue;
      }
      int err = 0;
      if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        err = errno;
        if (err == EINPROGRESS) {
          // Bounded so that an unanswered SYN cannot outlast the caller's deadline.
          int ms = static_cast<int>(std::clamp<int64_t>(
              std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count(), 1, 1 << 30));
          pollfd p{fd, POLLOUT, 0};
          int n = ::poll(&p, 1, ms);
          socklen_t len = sizeof(err);
          if (n == 1)
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
          else
            err = n == 0 ? ETIMEDOUT : errno;
        }
      }
      if (err != 0) {
        why = errno_text(err);
        ::close(fd);
        continue;
      }
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      set_nodelay(fd);
      out = fd;
    }
    ::freeaddrinfo(res);
    return out;
  }

  int acquire(const char* fn, std::chrono::milliseconds timeout) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!idle.empty()) {
        int fd = idle.back();
        idle.pop_back();
        return fd;
      }
    }
    // The server was reached once: a refused connection now means it is gone (no retries).
    std::string why;
    int fd = try_connect(
        Clock::now() + (timeout == kNoTimeout ? kAttempt : std::min<Clock::duration>(timeout, kAttempt)), why);
    if (fd < 0)
      throw DistNetworkError(
          fmt::format("[{}] connection to the TCPStore server at {} was lost ({})", fn, where(), why));
    return fd;
  }

  void release(int fd) {
    std::lock_guard<std::mutex> lock(mu);
    if (idle.size() < kMaxIdle) {
      idle.push_back(fd);
      return;
    }
    ::close(fd);
  }

  // Sends `request` and returns the reply's fields after the status byte. `timeout` bounds the
  // wait for the reply (kNoTimeout: none); `on_timeout` makes the error then.
  template <class OnTimeout>
  Reader call(const char* fn, const std::string& request, std::chrono::milliseconds timeout, std::string& storage,
              OnTimeout&& on_timeout) {
    int fd = acquire(fn, timeout);
    auto lost = [&](const std::string& why) {
      ::close(fd);
      return DistNetworkError(
          fmt::format("[{}] connection to the TCPStore server at {} was lost ({})", fn, where(), why));
    };
    for (size_t off = 0; off < request.size();) {
      ssize_t n = ::send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw lost(errno_text(errno));
      off += static_cast<size_t>(n);
    }
    std::optional<Clock::time_point> deadline;
    if (timeout != kNoTimeout) deadline = Clock::now() + timeout;
    auto read_exact = [&](char* p, size_t want) {
      while (want > 0) {
        int ms = -1;
        if (deadline) {
          auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
          ms = static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30));
        }
        pollfd pfd{fd, POLLIN, 0};
        int rc = ::poll(&pfd, 1, ms);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) throw lost(errno_text(errno));
        if (rc == 0) {
          // The request is still pending at the server; hanging up cancels it there.
          ::close(fd);
          on_timeout();
        }
        ssize_t n = ::recv(fd, p, want, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) throw lost("the server closed the connection");
        if (n < 0) throw lost(errno_text(errno));
        p += n;
        want -= static_cast<size_t>(n);
      }
    };
    char head[8];
    read_exact(head, 8);
    storage.resize(get_u64(head));
    read_exact(storage.data(), storage.size());
    Reader r{storage.data(), storage.data() + storage.size()};
    uint8_t status = r.byte();
    if (!r.ok) throw lost("malformed reply");
    release(fd);
    if (status == kError) throw DistStoreError(r.str());
    return r;
  }

  Reader call(const char* fn, const std::string& request, std::chrono::milliseconds timeout, std::string& storage) {
    return call(fn, request, timeout, storage, [&]() {
      throw DistStoreError(
          fmt::format("[{}] no reply from the TCPStore server at {} within {} ms", fn, where(), timeout.count()));
    });
  }

  static constexpr size_t kMaxIdle = 4;
  // The longest one connection attempt may take.
  static constexpr std::chrono::seconds kAttempt{30};
  std::string host;
  uint16_t port;
  std::mutex mu;
  std::vector<int> idle;
};

// ---------------------------------------------------------------------------------------------
// TCPStore

TCPStore::TCPStore(std::string host, const TCPStoreOptions& opts)
    : Store(opts.timeout), host_(std::move(host)), port_(opts.port) {
  if (opts.isServer) {
    std::lock_guard<std::mutex> lock(tenants_mu());
    if (opts.multiTenant && opts.port != 0) {
      auto it = tenants().find(opts.port);
      if (it != tenants().end()) server_ = std::static_pointer_cast<Server>(it->second.lock());
    }
    if (!server_) {
      server_ = std::make_shared<Server>(opts.port);
      if (opts.multiTenant) tenants()[server_->port] = server_;
    }
    port_ = server_->port;
  }
  auto start = Clock::now();
  client_ = std::make_unique<Client>(host_, port_);
  client_->release(client_->connect_first(opts.timeout));

  if (opts.numWorkers && opts.waitWorkers) {
    int64_t arrived = add(kInitKey, 1);
    if (server_) {
      // Only the server's store waits (as PyTorch); a short poll of one counter.
      auto want = static_cast<int64_t>(*opts.numWorkers);
      while (arrived < want) {
        if (opts.timeout != kNoTimeout && Clock::now() - start >= opts.timeout)
          throw DistStoreError(fmt::format(
              "[TCPStore] timed out after {} ms waiting for {} workers to connect to the TCPStore server at {}:{}; "
              "{} arrived",
              opts.timeout.count(), want, host_, port_, arrived));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        arrived = detail::parse_counter("TCPStore", kInitKey, get(kInitKey));
      }
    }
  }
}

TCPStore::~TCPStore() = default;

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::string buf;
  client_->call("TCPStore::set", Frame(uint8_t(Cmd::Set)).field(key).field(value).finish(), timeout_, buf);
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  std::string buf;
  auto timeout = timeout_;
  auto r = client_->call("TCPStore::get", Frame(uint8_t(Cmd::Get)).field(key).finish(), timeout, buf, [&]() {
    throw DistStoreError(
        fmt::format("[TCPStore::get] timed out after {} ms waiting for key '{}' (TCPStore server at {})",
                    timeout.count(), key, client_->where()));
  });
  return to_bytes(r.str());
}

int64_t TCPStore::add(const std::string& key, int64_t value) {
  std::string buf;
  return client_->call("TCPStore::add", Frame(uint8_t(Cmd::Add)).field(key).i64(value).finish(), timeout_, buf).i64();
}

std::vector<uint8_t> TCPStore::compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                          const std::vector<uint8_t>& desired) {
  std::string buf;
  auto req = Frame(uint8_t(Cmd::CompareSet)).field(key).field(expected).field(desired).finish();
  return to_bytes(client_->call("TCPStore::compareSet", req, timeout_, buf).str());
}

bool TCPStore::deleteKey(const std::string& key) {
  std::string buf;
  return client_->call("TCPStore::deleteKey", Frame(uint8_t(Cmd::Delete)).field(key).finish(), timeout_, buf).i64() !=
         0;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  Frame f(uint8_t(Cmd::Check));
  f.i64(static_cast<int64_t>(keys.size()));
  for (auto& k : keys) f.field(k);
  std::string buf;
  return client_->call("TCPStore::check", f.finish(), timeout_, buf).i64() != 0;
}

int64_t TCPStore::getNumKeys() {
  std::string buf;
  return client_->call("TCPStore::getNumKeys", Frame(uint8_t(Cmd::NumKeys)).finish(), timeout_, buf).i64();
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  Frame f(uint8_t(Cmd::Wait));
  f.i64(static_cast<int64_t>(keys.size()));
  for (auto& k : keys) f.field(k);
  std::string buf;
  client_->call("TCPStore::wait", f.finish(), timeout, buf, [&]() {
    throw DistStoreError(
        fmt::format("[TCPStore::wait] timed out after {} ms waiting for keys {} (TCPStore server at {})",
                    timeout.count(), detail::key_list(keys), client_->where()));
  });
}

}  // namespace ember::c10d
