#pragma once
// Rendezvous stores (LibTorch's c10d::Store family): a small key-value service the ranks of a
// job share to find each other, exchange addresses and count arrivals. They live in libember
// (not in the distributed plugin) so that user code constructs them directly, as in LibTorch.
//
// Every blocking call (get, wait) waits at most the store's timeout, then throws DistStoreError
// naming the keys it waited for. Values are bytes; the std::string overloads are conveniences.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/Exception.h"

namespace ember::c10d {

// torch.distributed's error family: DistError, and below it the store's, the network's and the
// communication backend's failures (a dead peer, a collective that timed out).
class EMBER_API DistError : public Error {
 public:
  explicit DistError(std::string msg) : Error(std::move(msg), "DistError") {}

 protected:
  DistError(std::string msg, const char* kind) : Error(std::move(msg), kind) {}
};
class EMBER_API DistStoreError : public DistError {
 public:
  explicit DistStoreError(std::string msg) : DistError(std::move(msg), "DistStoreError") {}
};
class EMBER_API DistNetworkError : public DistError {
 public:
  explicit DistNetworkError(std::string msg) : DistError(std::move(msg), "DistNetworkError") {}
};
class EMBER_API DistBackendError : public DistError {
 public:
  explicit DistBackendError(std::string msg) : DistError(std::move(msg), "DistBackendError") {}
};

class EMBER_API Store {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(5);
  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  // The value of `key`, waiting up to the timeout for it to be set.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  // Atomically adds `value` to the integer stored at `key` (0 when absent; the value is its
  // decimal text, as PyTorch) and returns the sum.
  virtual int64_t add(const std::string& key, int64_t value) = 0;
  // Sets `key` to `desired` when its value is `expected` (or when it is absent and `expected` is
  // empty); returns the value after the call.
  virtual std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                          const std::vector<uint8_t>& desired) = 0;
  // True when the key existed.
  virtual bool deleteKey(const std::string& key) = 0;
  // True when every key is set (does not wait).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual int64_t getNumKeys() = 0;
  // Blocks until every key is set, or throws DistStoreError after `timeout` (the store's own
  // timeout for the first overload; kNoTimeout waits forever).
  virtual void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;

  std::chrono::milliseconds getTimeout() const noexcept { return timeout_; }
  virtual void setTimeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

  // torch.distributed's (Python) spellings.
  void set(const std::string& key, const std::string& value) {
    set(key, std::vector<uint8_t>(value.begin(), value.end()));
  }
  std::string get_string(const std::string& key) {
    auto v = get(key);
    return std::string(v.begin(), v.end());
  }
  std::vector<uint8_t> compare_set(const std::string& key, const std::string& expected, const std::string& desired) {
    return compareSet(key, {expected.begin(), expected.end()}, {desired.begin(), desired.end()});
  }
  bool delete_key(const std::string& key) { return deleteKey(key); }
  int64_t num_keys() { return getNumKeys(); }
  void set_timeout(std::chrono::milliseconds timeout) { setTimeout(timeout); }

 protected:
  std::chrono::milliseconds timeout_;
};

// In one process only: tests, and single-process groups.
class EMBER_API HashStore final : public Store {
 public:
  HashStore() = default;
  using Store::set;  // the std::string overload
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<std::string, std::vector<uint8_t>> map_;
};

// Every key goes to the underlying store as "<prefix>/<key>" (separate groups share one store).
class EMBER_API PrefixStore final : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  using Store::set;  // the std::string overload
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  // Without a timeout: the underlying store's own (as PyTorch).
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  void setTimeout(std::chrono::milliseconds timeout) override;
  const std::shared_ptr<Store>& getUnderlyingStore() const noexcept { return store_; }

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::vector<std::string> keys(const std::vector<std::string>& ks) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

// A store in a file on a file system every rank sees (LibTorch's c10d::FileStore): processes
// append records under an advisory lock and replay the file. `numWorkers` processes use it;
// the last one to be destroyed removes the file (as PyTorch), -1 leaves it.
class EMBER_API FileStore final : public Store {
 public:
  explicit FileStore(std::string path, int numWorkers = -1);
  ~FileStore() override;
  using Store::set;  // the std::string overload
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  const std::string& getPath() const noexcept { return path_; }

 private:
  struct Impl;
  std::string path_;
  int numWorkers_;
  std::unique_ptr<Impl> impl_;
};

struct TCPStoreOptions {
  static constexpr uint16_t kDefaultPort = 29500;
  uint16_t port = kDefaultPort;
  // This process runs the server (rank 0 in init_process_group). Port 0 picks a free port;
  // TCPStore::getPort() tells which.
  bool isServer = false;
  // With waitWorkers, the constructor returns once this many clients (the server's own included)
  // have connected, or throws DistStoreError after the timeout.
  std::optional<std::size_t> numWorkers;
  bool waitWorkers = true;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  // Several TCPStore objects in one process may share the port of one server.
  bool multiTenant = false;
};

// A store served over TCP by one process (LibTorch's c10d::TCPStore). The server runs on a
// background thread of the process that constructs it with isServer; waits are answered by the
// server when the keys arrive, not by polling. Clients reconnect for `timeout` while the
// server is not yet listening.
class EMBER_API TCPStore final : public Store {
 public:
  TCPStore(std::string host, const TCPStoreOptions& opts = {});
  ~TCPStore() override;
  using Store::set;  // the std::string overload
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  const std::string& getHost() const noexcept { return host_; }
  uint16_t getPort() const noexcept { return port_; }
  bool isServer() const noexcept { return server_ != nullptr; }

 private:
  struct Server;
  struct Client;
  std::string host_;
  uint16_t port_ = 0;
  std::shared_ptr<Server> server_;
  std::unique_ptr<Client> client_;
};

}  // namespace ember::c10d
