// Placeholder: FileStore is being written (replaced before this lands).
#include "ember/distributed/Store.h"

namespace ember::c10d {
struct FileStore::Impl {};
FileStore::FileStore(std::string path, int numWorkers) : path_(std::move(path)), numWorkers_(numWorkers) {
  throw NotImplementedError("[FileStore] not yet implemented");
}
FileStore::~FileStore() = default;
void FileStore::set(const std::string&, const std::vector<uint8_t>&) {}
std::vector<uint8_t> FileStore::get(const std::string&) { return {}; }
int64_t FileStore::add(const std::string&, int64_t) { return 0; }
std::vector<uint8_t> FileStore::compareSet(const std::string&, const std::vector<uint8_t>&,
                                           const std::vector<uint8_t>&) {
  return {};
}
bool FileStore::deleteKey(const std::string&) { return false; }
bool FileStore::check(const std::vector<std::string>&) { return false; }
int64_t FileStore::getNumKeys() { return 0; }
void FileStore::wait(const std::vector<std::string>&, std::chrono::milliseconds) {}
}  // namespace ember::c10d
