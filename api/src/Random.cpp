#include "ember/api/Random.h"

#include <vector>

namespace ember {
namespace detail {

void CpuGenerator::set_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t CpuGenerator::seed() const {
  std::lock_guard<std::mutex> g(mu_);
  return seed_;
}

uint64_t CpuGenerator::offset() const {
  std::lock_guard<std::mutex> g(mu_);
  return offset_;
}

void CpuGenerator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> g(mu_);
  offset_ = offset;
}

CpuGenerator::Range CpuGenerator::reserve(uint64_t blocks) {
  std::lock_guard<std::mutex> g(mu_);
  Range r{seed_, offset_};
  offset_ += blocks;
  return r;
}

CpuGenerator& default_cpu_generator() {
  static CpuGenerator* gen = new CpuGenerator();  // never destroyed: usable during exit
  return *gen;
}

namespace {
std::mutex& hooks_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::vector<std::function<void(uint64_t)>>& hooks() {
  static auto* h = new std::vector<std::function<void(uint64_t)>>();
  return *h;
}
}  // namespace

void add_seed_hook(std::function<void(uint64_t)> hook) {
  std::lock_guard<std::mutex> g(hooks_mutex());
  hooks().push_back(std::move(hook));
}

}  // namespace detail

void manual_seed(uint64_t seed) {
  detail::default_cpu_generator().set_seed(seed);
  std::vector<std::function<void(uint64_t)>> hs;
  {
    std::lock_guard<std::mutex> g(detail::hooks_mutex());
    hs = detail::hooks();
  }
  for (auto& h : hs) h(seed);
}

}  // namespace ember
