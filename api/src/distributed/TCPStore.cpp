// Placeholder: TCPStore is being written (replaced before this lands).
#include "ember/distributed/Store.h"

namespace ember::c10d {
struct TCPStore::Server {};
struct TCPStore::Client {};
TCPStore::TCPStore(std::string host, const TCPStoreOptions&) : host_(std::move(host)) {
  throw NotImplementedError("[TCPStore] not yet implemented");
}
TCPStore::~TCPStore() = default;
void TCPStore::set(const std::string&, const std::vector<uint8_t>&) {}
std::vector<uint8_t> TCPStore::get(const std::string&) { return {}; }
int64_t TCPStore::add(const std::string&, int64_t) { return 0; }
std::vector<uint8_t> TCPStore::compareSet(const std::string&, const std::vector<uint8_t>&,
                                          const std::vector<uint8_t>&) {
  return {};
}
bool TCPStore::deleteKey(const std::string&) { return false; }
bool TCPStore::check(const std::vector<std::string>&) { return false; }
int64_t TCPStore::getNumKeys() { return 0; }
void TCPStore::wait(const std::vector<std::string>&, std::chrono::milliseconds) {}
}  // namespace ember::c10d
