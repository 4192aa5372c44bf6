#pragma once
// oneDNN plumbing shared by the CPU kernels that use it (linalg.cpp, conv.cpp).
//
// Note [CPU oneDNN primitives]
// One CPU engine for the plugin. Primitives are expensive to create, so each family keeps a
// PrimitiveCache: a mutex-guarded map from a key of everything the primitive depends on
// (dtypes, sizes, strides, parameters) to an immutable entry, cleared when it grows past its cap.
// An entry may be null when oneDNN has no implementation for the key (remembered, so the caller
// falls back without asking again). Primitives run with a user scratchpad allocated per call
// (run()), so concurrent calls of one cached primitive never share scratch memory. Every buffer
// oneDNN would allocate itself (scratchpads, reordered copies) comes from Ember's caching
// allocator instead (ember_memory()): oneDNN's own is a malloc per call, and glibc returns large
// ones to the kernel on free, so every call page-faults them in again (thousands of faults per
// training step of a small CNN). Every
// execution goes through run(), which first gives oneDNN's OpenMP Ember's thread count
// (sync_omp_threads, Note [One intra-op pool]).
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>

#include <vector>

#include "ember/core/Parallel.h"
#include "ember/native/TensorHelpers.h"

namespace ember::cpu {

inline dnnl::engine& dnnl_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// An attribute with the user scratchpad mode that run() expects.
inline dnnl::primitive_attr user_scratchpad_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

template <class Key, class Entry>
class PrimitiveCache {
 public:
  explicit PrimitiveCache(size_t cap = 256) : cap_(cap) {}

  // The entry for `key`, made by make() (returning a shared_ptr<Entry>, possibly null) when
  // absent. make() runs outside the lock: two threads may both make one; the first stored wins.
  template <class Make>
  std::shared_ptr<Entry> get(const Key& key, Make&& make) {
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) return it->second;
    }
    std::shared_ptr<Entry> e = make();
    std::lock_guard<std::mutex> g(mu_);
    if (map_.size() >= cap_) map_.clear();
    return map_.emplace(key, std::move(e)).first->second;
  }

 private:
  std::mutex mu_;
  std::map<Key, std::shared_ptr<Entry>> map_;
  size_t cap_;
};

// oneDNN memory of layout `d` in a buffer from Ember's caching allocator, alive while `keep` is.
inline dnnl::memory ember_memory(const dnnl::memory::desc& d, std::vector<Tensor>& keep) {
  keep.push_back(native::empty_on(kCPU, {static_cast<int64_t>(d.get_size())}, kUInt8));
  return dnnl::memory(d, dnnl_engine(), keep.back().data_ptr());
}

// Executes `prim` (described by `pd`) on a fresh stream with a per-call scratchpad and waits.
inline void run(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
                std::unordered_map<int, dnnl::memory> args) {
  sync_omp_threads();
  dnnl::engine& eng = dnnl_engine();
  dnnl::stream s(eng);
  const auto sd = pd.scratchpad_desc();
  std::vector<Tensor> keep;
  if (sd.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, ember_memory(sd, keep));
  prim.execute(s, args);
  s.wait();
}

}  // namespace ember::cpu

namespace ember::cpu {

// Reorders `from` into `to` (layouts differ, same logical tensor).
inline void reorder(const dnnl::memory& from, const dnnl::memory& to) {
  dnnl::engine& eng = dnnl_engine();
  const dnnl::reorder::primitive_desc pd(eng, from.get_desc(), eng, to.get_desc(), user_scratchpad_attr());
  run(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

}  // namespace ember::cpu
