// The Store base, HashStore and PrefixStore (ember/distributed/Store.h).
#include "ember/distributed/Store.h"

#include "StoreDetail.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace ember::c10d {

Store::~Store() = default;

namespace detail {
int64_t parse_counter(const char* fn, const std::string& key, const std::vector<uint8_t>& v) {
  int64_t n = 0;
  auto* b = reinterpret_cast<const char*>(v.data());
  auto [p, ec] = std::from_chars(b, b + v.size(), n);
  if (v.empty() || ec != std::errc() || p != b + v.size())
    throw DistStoreError(fmt::format("[{}] key '{}' holds a value that is not an integer: '{}'", fn, key,
                                     std::string(b, b + std::min<size_t>(v.size(), 64))));
  return n;
}
std::vector<uint8_t> counter_bytes(int64_t n) {
  auto s = std::to_string(n);
  return {s.begin(), s.end()};
}
int64_t checked_add(const char* fn, const std::string& key, int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    throw DistStoreError(fmt::format("[{}] key '{}': {} + {} overflows int64", fn, key, a, b));
  return out;
}
std::string key_list(const std::vector<std::string>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) out += fmt::format("{}'{}'", i ? ", " : "", keys[i]);
  return out + "]";
}
}  // namespace detail

void HashStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    map_[key] = value;
  }
  cv_.notify_all();
}

std::vector<uint8_t> HashStore::get(const std::string& key) {
  // Waits and reads under one lock: a deleteKey() between the two cannot make the read fail.
  std::unique_lock<std::mutex> lock(mu_);
  auto timeout = timeout_;
  auto ready = [&] { return map_.count(key) != 0; };
  if (timeout == kNoTimeout)
    cv_.wait(lock, ready);
  else if (!cv_.wait_for(lock, timeout, ready))
    throw DistStoreError(
        fmt::format("[HashStore::get] timed out after {} ms waiting for key '{}'", timeout.count(), key));
  return map_.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t value) {
  int64_t n;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    n = it == map_.end() ? value
                         : detail::checked_add("HashStore::add", key,
                                               detail::parse_counter("HashStore::add", key, it->second), value);
    map_[key] = detail::counter_bytes(n);
  }
  cv_.notify_all();
  return n;
}

std::vector<uint8_t> HashStore::compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  std::vector<uint8_t> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) {
      if (!expected.empty()) return expected;
      map_[key] = desired;
      out = desired;
    } else if (it->second == expected) {
      it->second = desired;
      out = desired;
    } else {
      return it->second;
    }
  }
  cv_.notify_all();
  return out;
}

bool HashStore::deleteKey(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  return map_.erase(key) != 0;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& k : keys)
    if (!map_.count(k)) return false;
  return true;
}

int64_t HashStore::getNumKeys() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(map_.size());
}

void HashStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] {
    for (auto& k : keys)
      if (!map_.count(k)) return false;
    return true;
  };
  if (timeout == kNoTimeout) {
    cv_.wait(lock, ready);
  } else if (!cv_.wait_for(lock, timeout, ready)) {
    throw DistStoreError(fmt::format("[HashStore::wait] timed out after {} ms waiting for keys {}", timeout.count(),
                                     detail::key_list(keys)));
  }
}

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->getTimeout() : kDefaultTimeout), prefix_(std::move(prefix)), store_(std::move(store)) {
  EMBER_CHECK(store_ != nullptr, "[PrefixStore] store: expected a store, got null");
}

std::vector<std::string> PrefixStore::keys(const std::vector<std::string>& ks) const {
  std::vector<std::string> out;
  out.reserve(ks.size());
  for (auto& k : ks) out.push_back(key(k));
  return out;
}

void PrefixStore::set(const std::string& k, const std::vector<uint8_t>& value) { store_->set(key(k), value); }
std::vector<uint8_t> PrefixStore::get(const std::string& k) { return store_->get(key(k)); }
int64_t PrefixStore::add(const std::string& k, int64_t value) { return store_->add(key(k), value); }
std::vector<uint8_t> PrefixStore::compareSet(const std::string& k, const std::vector<uint8_t>& expected,
                                             const std::vector<uint8_t>& desired) {
  return store_->compareSet(key(k), expected, desired);
}
bool PrefixStore::deleteKey(const std::string& k) { return store_->deleteKey(key(k)); }
bool PrefixStore::check(const std::vector<std::string>& ks) { return store_->check(keys(ks)); }
int64_t PrefixStore::getNumKeys() { return store_->getNumKeys(); }
void PrefixStore::wait(const std::vector<std::string>& ks) { store_->wait(keys(ks)); }
void PrefixStore::wait(const std::vector<std::string>& ks, std::chrono::milliseconds timeout) {
  store_->wait(keys(ks), timeout);
}
void PrefixStore::setTimeout(std::chrono::milliseconds timeout) {
  Store::setTimeout(timeout);
  store_->setTimeout(timeout);
}

}  // namespace ember::c10d
