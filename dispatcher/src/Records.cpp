// Finding and running EMBER_LIBRARY* records. See Note [Registration records].
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "Registration.h"
#include "ember/core/AutogradHooks.h"
#include "Registry.h"
#include "ember/dispatcher/ElfNotes.h"

namespace ember {
namespace detail {

namespace {

struct ObjectRecords {
  std::string path;  // "" for the executable
  uintptr_t base = 0;
  std::vector<const LibraryRecord*> records;
};

// Walks the PT_NOTE segments of every loaded object for "Ember" type-1 notes.
std::vector<ObjectRecords> scan_loaded_objects() {
  std::vector<ObjectRecords> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto& out = *static_cast<std::vector<ObjectRecords>*>(data);
        ObjectRecords obj;
        obj.path = info->dlpi_name ? info->dlpi_name : "";
        obj.base = info->dlpi_addr;
        std::set<const LibraryRecord*> seen;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          auto* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
          const char* end = p + ph.p_memsz;
          while (p + 12 <= end) {
            uint32_t namesz, descsz, type;
            std::memcpy(&namesz, p, 4);
            std::memcpy(&descsz, p + 4, 4);
            std::memcpy(&type, p + 8, 4);
            const char* name = p + 12;
            const char* desc = name + ((namesz + 3) & ~3u);
            const char* next = desc + ((descsz + 3) & ~3u);
            if (next > end) break;
            if (namesz == 6 && std::memcmp(name, "Ember", 6) == 0 &&
                type == static_cast<uint32_t>(NoteType::Records) && descsz == 16) {
              int64_t a, b;
              std::memcpy(&a, desc, 8);
              std::memcpy(&b, desc + 8, 8);
              auto* first = reinterpret_cast<const LibraryRecord*>(desc + a);
              auto* last = reinterpret_cast<const LibraryRecord*>(desc + b);
              for (auto* r = first; r < last; ++r)
                if (seen.insert(r).second) obj.records.push_back(r);
            }
            p = next;
          }
        }
        if (!obj.records.empty()) out.push_back(std::move(obj));
        return 0;
      },
      &out);
  return out;
}

struct RecordState {
  std::recursive_mutex mu;
  std::set<const LibraryRecord*> done;
  std::set<uintptr_t> scanned;                   // objects handled by run_all_linked_records
  std::vector<std::unique_ptr<Library>> kept;    // libraries of every object run so far
};
RecordState& record_state() {
  static RecordState* s = new RecordState();  // never destroyed: registrations live for the process
  return *s;
}

std::string owner_of(const std::string& path) {
  return path.empty() ? "<program>" : plugins::detail::plugin_name_from_file(path);
}

std::string block_name(const LibraryRecord& r) {
  switch (static_cast<Library::Kind>(r.kind)) {
    case Library::Kind::DEF: return fmt::format("EMBER_LIBRARY({})", r.ns);
    case Library::Kind::FRAGMENT: return fmt::format("EMBER_LIBRARY_FRAGMENT({})", r.ns);
    default: break;
  }
  const auto key = static_cast<DispatchKey>(r.key);
  if (!r.device) return fmt::format("EMBER_LIBRARY_IMPL({}, {})", r.ns, to_string(key));
  const Functionality f = functionality_of(key);
  if (f == Functionality::Dense) return fmt::format("EMBER_LIBRARY_IMPL_DEVICE({}, \"{}\")", r.ns, r.device);
  return fmt::format("EMBER_LIBRARY_IMPL_DEVICE_FUNCTIONALITY({}, {}, \"{}\")", r.ns, functionality_name(f), r.device);
}

// The key a record registers under: its own, or for a device block the key's functionality on
// the named device type, which must be registered by now.
std::optional<DispatchKey> record_key(const LibraryRecord& r) {
  if (r.key == UINT32_MAX) return std::nullopt;
  const auto key = static_cast<DispatchKey>(r.key);
  if (!r.device) return key;
  const std::optional<DeviceType> t = find_device_type(r.device);
  EMBER_CHECK(t.has_value(),
              "unknown device type '{}' (known: {}): register it with ember::register_device_type(\"{}\") "
              "before this block runs, in an EMBER_LIBRARY or EMBER_LIBRARY_FRAGMENT block of the same library "
              "(those run before its EMBER_LIBRARY_IMPL blocks) or in a plugin this one depends on",
              r.device, known_device_type_names(), r.device);
  return make_dispatch_key(functionality_of(key), *t);
}

// One object's blocks, published together: see Note [Registration is published per object].
size_t run_records(const ObjectRecords& obj, const std::string& owner) {
  RecordState& st = record_state();
  std::vector<const LibraryRecord*> todo;
  for (auto* r : obj.records)
    if (!st.done.count(r)) todo.push_back(r);
  std::stable_sort(todo.begin(), todo.end(),
                   [](const LibraryRecord* a, const LibraryRecord* b) { return a->kind < b->kind; });
  RegistrationTransaction tx;  // outlives `libs`: a failure is undone before the tx ends
  std::vector<std::unique_ptr<Library>> libs;
  RegistrantScope scope(owner);
  for (const LibraryRecord* r : todo) {
    std::string why;
    bool conflict = false;
    try {
      EMBER_CHECK(r->abi_version == EMBER_PLUGIN_ABI_VERSION,
                  "built for Ember plugin ABI {}, this libember has ABI {}", r->abi_version,
                  EMBER_PLUGIN_ABI_VERSION);
      std::optional<DispatchKey> key = record_key(*r);
      auto lib = std::make_unique<Library>(static_cast<Library::Kind>(r->kind), r->ns, key, r->file, r->line);
      r->init(*lib);
      libs.push_back(std::move(lib));
      continue;
    } catch (const std::exception& e) {
      conflict = dynamic_cast<const RegistrationConflictError*>(&e) != nullptr;
      why = e.what();
    } catch (...) {  // not a std::exception: its type may live in the object, which may go
      why = "a non-standard exception";
    }
    // Outside the handler: the object's exception is destroyed before anything of it is unloaded.
    while (!libs.empty()) libs.pop_back();  // undo, newest first
    tx.discard();                           // none of it was ever published
    throw RegistrationBlockError(
        fmt::format("[register] {} at {}:{} in '{}' failed: {}", block_name(*r), r->file, r->line, owner, why),
        conflict);
  }
  for (auto* r : todo) st.done.insert(r);
  for (auto& l : libs) st.kept.push_back(std::move(l));
  return todo.size();
}

}  // namespace

size_t run_object_records(uintptr_t base, const std::string& owner) {
  RecordState& st = record_state();
  std::lock_guard<std::recursive_mutex> g(st.mu);
  for (auto& obj : scan_loaded_objects())
    if (obj.base == base) {
      st.scanned.insert(base);
      try {
        return run_records(obj, owner);
      } catch (...) {
        st.scanned.erase(base);  // the loader unloads it; another object may be mapped here later
        throw;
      }
    }
  st.scanned.insert(base);
  return 0;
}

void run_all_linked_records() {
  RecordState& st = record_state();
  std::lock_guard<std::recursive_mutex> g(st.mu);
  for (auto& obj : scan_loaded_objects()) {
    if (st.scanned.count(obj.base)) continue;
    st.scanned.insert(obj.base);  // not retried after a failure
    run_records(obj, owner_of(obj.path));
  }
}

const char* build_fingerprint() { return EMBER_BUILD_FINGERPRINT; }

}  // namespace detail

namespace {
std::atomic<bool> g_initialized{false};
thread_local bool tls_initializing = false;
}  // namespace

// Lock order: this mutex, then the plugin loader's, then the records mutex. Initialization
// holds only its own while it runs the linked records and loads the default plugins, each of
// which takes the later ones in that order (TSan checks this in the stress and plugin suites).
namespace {
// require_autograd_hooks (core) runs the start-up when no autograd plugin is loaded yet.
const bool g_autograd_startup_set = (set_autograd_startup(&ensure_initialized), true);
}  // namespace

void ensure_initialized() {
  if (g_initialized.load(std::memory_order_acquire) || tls_initializing) return;
  static std::recursive_mutex* init_mu = new std::recursive_mutex();
  std::lock_guard<std::recursive_mutex> g(*init_mu);
  if (g_initialized.load(std::memory_order_relaxed)) return;
  tls_initializing = true;
  struct Done {
    ~Done() {
      detail::registry_startup_done();  // before any other thread can get past the check above
      tls_initializing = false;
      g_initialized.store(true, std::memory_order_release);
    }
  } done;
  detail::run_all_linked_records();
  plugins::detail::load_default_plugins();
}

}  // namespace ember
