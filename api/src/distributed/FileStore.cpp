// FileStore (ember/distributed/Store.h), PyTorch's design: the file is an append-only log of
// records; every operation opens it, takes flock() (shared to read, exclusive to append),
// replays the records past the offset it had read to, and appends under the exclusive lock, so
// read-modify-write operations (add, compareSet) are atomic across processes. get and wait poll
// the file with short sleeps. A record is a type byte, then the key and the value, each a
// little-endian u64 length and its bytes. Besides sets and deletes, records count the instances
// that joined and finished (kept out of the keys): the one that finishes last, once numWorkers
// have joined, removes the file.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <thread>

#include "StoreDetail.h"
#include "ember/distributed/Store.h"

namespace ember::c10d {
namespace {

using detail::get_u64;
using detail::put_u64;

using Clock = std::chrono::steady_clock;

enum Record : uint8_t { kSet = 'S', kDelete = 'D', kJoined = 'J', kFinished = 'F' };

// An open descriptor of the store's file holding flock() until destroyed.
class LockedFile {
 public:
  LockedFile(const std::string& path, const char* fn, int how) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw DistStoreError(fmt::format("[{}] path: cannot open '{}': {}", fn, path, std::strerror(errno)));
    while (::flock(fd_, how) != 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd_);
      throw DistStoreError(fmt::format("[{}] cannot lock '{}': {}", fn, path, std::strerror(err)));
    }
  }
  ~LockedFile() { ::close(fd_); }  // releases the lock
  LockedFile(const LockedFile&) = delete;
  LockedFile& operator=(const LockedFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

}  // namespace

struct FileStore::Impl {
  // Serialises this instance's threads; other instances and processes are kept out by flock().
  std::mutex mu;
  std::unordered_map<std::string, std::vector<uint8_t>> cache;
  int64_t joined = 0, finished = 0;
  off_t pos = 0;  // how far the file has been replayed

  // Replays the records appended since the last call (the caller holds the file's lock).
  void refresh(int fd, const std::string& path, const char* fn) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
      throw DistStoreError(fmt::format("[{}] cannot stat '{}': {}", fn, path, std::strerror(errno)));
    if (st.st_size < pos) {  // removed by the last worker and created anew
      cache.clear();
      joined = finished = 0;
      pos = 0;
    }
    if (st.st_size == pos) return;
    std::string buf(static_cast<size_t>(st.st_size - pos), '\0');
    size_t got = 0;
    while (got < buf.size()) {
      ssize_t n = ::pread(fd, buf.data() + got, buf.size() - got, pos + static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw DistStoreError(fmt::format("[{}] cannot read '{}': {}", fn, path, std::strerror(errno)));
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    buf.resize(got);
    size_t off = 0;
    auto field = [&](size_t at, std::string& out) -> size_t {  // the end of the field, or 0
      if (buf.size() - at < 8) return 0;
      uint64_t n = get_u64(buf.data() + at);
      if (buf.size() - at - 8 < n) return 0;
      out.assign(buf.data() + at + 8, n);
      return at + 8 + n;
    };
    for (;;) {
      if (off >= buf.size()) break;
      std::string key, value;
      size_t k = field(off + 1, key);
      size_t v = k ? field(k, value) : 0;
      if (!v) break;  // a record still being written cannot happen under the lock; stop at a torn tail
      switch (static_cast<uint8_t>(buf[off])) {
        case kSet:
          cache[key] = std::vector<uint8_t>(value.begin(), value.end());
          break;
        case kDelete:
          cache.erase(key);
          break;
        case kJoined:
          ++joined;
          break;
        case kFinished:
          ++finished;
          break;
        default:
          throw DistStoreError(fmt::format("[{}] '{}' is not a FileStore file (bad record at offset {})", fn, path,
                                           static_cast<int64_t>(pos) + static_cast<int64_t>(off)));
      }
      off = v;
    }
    pos += static_cast<off_t>(off);
  }

  // Appends one record (the caller holds the exclusive lock) and replays it.
  void append(int fd, const std::string& path, const char* fn, Record type, const std::string& key,
              const std::vector<uint8_t>& value) {
    std::string rec(1, static_cast<char>(type));
    put_u64(rec, key.size());
    rec += key;
    put_u64(rec, value.size());
    rec.append(reinterpret_cast<const char*>(value.data()), value.size());
    off_t end = ::lseek(fd, 0, SEEK_END);
    for (size_t done = 0; done < rec.size();) {
      ssize_t n = ::pwrite(fd, rec.data() + done, rec.size() - done, end + static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw DistStoreError(fmt::format("[{}] cannot write '{}': {}", fn, path, std::strerror(errno)));
      done += static_cast<size_t>(n);
    }
    refresh(fd, path, fn);
  }
};

FileStore::FileStore(std::string path, int numWorkers)
    : path_(std::move(path)), numWorkers_(numWorkers), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(numWorkers == -1 || numWorkers > 0, "[FileStore] numWorkers: expected -1 or a positive count, got {}",
              numWorkers);
  EMBER_CHECK(!path_.empty(), "[FileStore] path: expected a file path, got an empty string");
  LockedFile f(path_, "FileStore", LOCK_EX);
  impl_->refresh(f.fd(), path_, "FileStore");
  if (numWorkers_ != -1) impl_->append(f.fd(), path_, "FileStore", kJoined, {}, {});
}

FileStore::~FileStore() {
  if (numWorkers_ == -1) return;
  try {
    std::lock_guard<std::mutex> g(impl_->mu);
    LockedFile f(path_, "FileStore", LOCK_EX);
    impl_->refresh(f.fd(), path_, "FileStore");
    impl_->append(f.fd(), path_, "FileStore", kFinished, {}, {});
    if (impl_->finished >= impl_->joined && impl_->joined >= numWorkers_) ::unlink(path_.c_str());
  } catch (const std::exception&) {
    // A destructor cannot report; the file is merely left behind.
  }
}

void FileStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::lock_guard<std::mutex> g(impl_->mu);
  LockedFile f(path_, "FileStore::set", LOCK_EX);
  impl_->append(f.fd(), path_, "FileStore::set", kSet, key, value);
}

std::vector<uint8_t> FileStore::get(const std::string& key) {
  auto timeout = timeout_;
  auto deadline = Clock::now() + timeout;
  for (;;) {
    {
      std::lock_guard<std::mutex> g(impl_->mu);
      LockedFile f(path_, "FileStore::get", LOCK_SH);
      impl_->refresh(f.fd(), path_, "FileStore::get");
      auto it = impl_->cache.find(key);
      if (it != impl_->cache.end()) return it->second;
    }
    if (timeout != kNoTimeout && Clock::now() >= deadline)
      throw DistStoreError(fmt::format("[FileStore::get] timed out after {} ms waiting for key '{}' (file '{}')",
                                       timeout.count(), key, path_));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int64_t FileStore::add(const std::string& key, int64_t value) {
  std::lock_guard<std::mutex> g(impl_->mu);
  LockedFile f(path_, "FileStore::add", LOCK_EX);
  impl_->refresh(f.fd(), path_, "FileStore::add");
  auto it = impl_->cache.find(key);
  int64_t n = value;
  if (it != impl_->cache.end())
    n = detail::checked_add("FileStore::add", key, detail::parse_counter("FileStore::add", key, it->second), value);
  impl_->append(f.fd(), path_, "FileStore::add", kSet, key, detail::counter_bytes(n));
  return n;
}

std::vector<uint8_t> FileStore::compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  std::lock_guard<std::mutex> g(impl_->mu);
  LockedFile f(path_, "FileStore::compareSet", LOCK_EX);
  impl_->refresh(f.fd(), path_, "FileStore::compareSet");
  auto it = impl_->cache.find(key);
  if (it == impl_->cache.end() ? !expected.empty() : it->second != expected)
    return it == impl_->cache.end() ? expected : it->second;
  impl_->append(f.fd(), path_, "FileStore::compareSet", kSet, key, desired);
  return desired;
}

bool FileStore::deleteKey(const std::string& key) {
  std::lock_guard<std::mutex> g(impl_->mu);
  LockedFile f(path_, "FileStore::deleteKey", LOCK_EX);
  impl_->refresh(f.fd(), path_, "FileStore::deleteKey");
  if (!impl_->cache.count(key)) return false;
  impl_->append(f.fd(), path_, "FileStore::deleteKey", kDelete, key, {});
  return true;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> g(impl_->mu);
  LockedFile f(path_, "FileStore::check", LOCK_SH);
  impl_->refresh(f.fd(), path_, "FileStore::check");
  for (auto& k : keys)
    if (!impl_->cache.count(k)) return false;
  return true;
}

int64_t FileStore::getNumKeys() {
  std::lock_guard<std::mutex> g(impl_->mu);
  LockedFile f(path_, "FileStore::getNumKeys", LOCK_SH);
  impl_->refresh(f.fd(), path_, "FileStore::getNumKeys");
  return static_cast<int64_t>(impl_->cache.size());
}

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    if (check(keys)) return;
    if (timeout != kNoTimeout && Clock::now() >= deadline)
      throw DistStoreError(fmt::format("[FileStore::wait] timed out after {} ms waiting for keys {} (file '{}')",
                                       timeout.count(), detail::key_list(keys), path_));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace ember::c10d
