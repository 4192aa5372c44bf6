// The registry and dispatch tables. See Note [Dispatch tables are published, never edited].
#include "ember/dispatcher/Dispatcher.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "Registry.h"

namespace ember {

namespace {

struct KernelReg {
  KernelFunction fn;
  KernelFunction bumping_fn;  // fn bumping its Tensor& arguments: see Note [Version counters]
  std::shared_ptr<OperatorKernel> owner;
  std::optional<CppSignature> sig;
  bool fallthrough = false;
  Provenance prov;
  // A published table points at it: its functor is retired when it goes, not freed.
  mutable bool published = false;
};

enum class Source { Kernel, AutogradAlias, CompositeExplicit, CompositeImplicit, Fallback, Missing };

std::string_view source_name(Source s) {
  switch (s) {
    case Source::Kernel: return "kernel";
    case Source::AutogradAlias: return "Autograd kernel";
    case Source::CompositeExplicit: return "CompositeExplicitAutograd kernel";
    case Source::CompositeImplicit: return "CompositeImplicitAutograd kernel";
    case Source::Fallback: return "fallback";
    case Source::Missing: return "missing";
  }
  return "?";
}

bool verbose_dispatch() {
  const char* v = std::getenv("EMBER_VERBOSE");
  return v && std::string_view(v).find("dispatch") != std::string_view::npos;
}

void missing_kernel(OperatorKernel*, const OperatorHandle& op, DispatchKeySet ks, Stack*);
void fallthrough_kernel(OperatorKernel*, const OperatorHandle& op, DispatchKeySet ks, Stack* s) {
  op.redispatchBoxed(ks.below_highest(), *s);  // never reached while masks are right
}

// Logs each call, then runs the real kernel boxed (only when EMBER_VERBOSE=dispatch).
struct VerboseKernel final : OperatorKernel {
  KernelFunction real;
  std::string desc;
  static void call(OperatorKernel* f, const OperatorHandle& op, DispatchKeySet ks, Stack* s) {
    auto* v = static_cast<VerboseKernel*>(f);
    std::fprintf(stderr, "[dispatch] %s: key set %s -> %s\n", op.operator_name().c_str(), ks.str().c_str(),
                 v->desc.c_str());
    v->real.boxed(v->real.functor, op, ks, s);
  }
};

// Note [Version counters]: a boxed-only backend kernel of an operator that writes, or one whose
// written arguments have no `Tensor&` form (Tensor(a!)[], Tensor(a!)?). Bumps, after the call,
// every tensor the schema marks written.
struct BumpingBoxedKernel final : OperatorKernel {
  KernelFunction real;
  std::vector<int> written;  // argument positions
  int num_args = 0;
  static void call(OperatorKernel* f, const OperatorHandle& op, DispatchKeySet ks, Stack* s) {
    auto* k = static_cast<BumpingBoxedKernel*>(f);
    SmallVector<IntrusivePtr<TensorImpl>, 4> outs;
    if (static_cast<int>(s->size()) >= k->num_args) {  // else the kernel reports the short stack
      const IValue* base = s->end() - k->num_args;
      auto add = [&](const IValue& v) {
        if (v.isTensor() && v.toTensor().defined()) outs.push_back(v.toTensor().impl());
      };
      for (int i : k->written) {
        const IValue& v = base[i];
        if (v.isTensorList()) {
          for (const auto& t : v.toTensorVector())
            if (t.defined()) outs.push_back(t.impl());
        } else if (v.isList()) {
          for (const auto& x : v.toListRef()) add(x);
        } else {
          add(v);
        }
      }
    }
    k->real.boxed(k->real.functor, op, ks, s);
    for (auto& t : outs) t->bump_version();
  }
};

}  // namespace

struct OperatorEntry::State {
  std::string name;      // "ns::name"
  std::string overload;  // "" for none
  std::unique_ptr<PublishedSchema> schema;  // the registered def; calls see it once a table does
  Provenance def_prov;
  std::map<int, KernelReg> kernels;  // by DispatchKey value, runtime or alias
  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
};

// The operators whose tables an open RegistrationTransaction will rebuild.
struct Pending {
  // Touched by this transaction's own registrations, and by nested transactions that ended
  // without discard(); *_all: a fallback changed, so every operator.
  std::set<OperatorEntry*> own, kept;
  bool own_all = false, kept_all = false;
};

// See Note [Registration is published per object] in Library.h for the two locks.
struct Dispatcher::Impl {
  // `writer` is held by a registration for as long as it runs, `mu` briefly by anyone reading
  // or changing what follows.
  std::recursive_mutex writer;
  std::mutex mu;
  std::map<std::string, std::unique_ptr<OperatorEntry>> ops;  // by "ns::name[.overload]"
  std::array<std::optional<KernelReg>, kNumRuntimeKeys> fallbacks;
  std::map<std::string, Provenance> namespaces;  // owners of EMBER_LIBRARY(ns)
  std::vector<Pending> pending;                  // open transactions, innermost last
  // Replaced tables, and the functors, schemas and wrappers they referenced: readers may still
  // hold them.
  std::vector<std::unique_ptr<const DispatchTable>> retired_tables;
  std::vector<std::shared_ptr<OperatorKernel>> retired_functors;
  std::vector<std::unique_ptr<const PublishedSchema>> retired_schemas;
  std::vector<std::unique_ptr<OperatorKernel>> wrappers;
  uint64_t tables_built = 0;
  std::atomic<uint64_t> generation{0};
  bool verbose = verbose_dispatch();
};

namespace {
// A registration's locks: the writer lock for its whole length, then the data lock.
struct WriteLock {
  explicit WriteLock(Dispatcher::Impl& im) : w(im.writer), m(im.mu) {}
  std::lock_guard<std::recursive_mutex> w;
  std::lock_guard<std::mutex> m;
};

// The table of an operator no registration has published yet: every key missing, no schema.
const DispatchTable* empty_table() {
  static const DispatchTable* t = [] {
    auto* t = new DispatchTable;
    for (auto& k : t->kernels) k = KernelFunction{nullptr, &missing_kernel, nullptr};
    for (auto& m : t->non_fallthrough) m = DispatchKeySet::from_raw(~uint64_t{0});
    return t;
  }();
  return t;
}
}  // namespace

// The one place that touches the private parts of Dispatcher and OperatorEntry.
struct DispatcherAccess {
  static Dispatcher::Impl& impl() { return *Dispatcher::singleton().impl_; }
  static OperatorEntry::State& state(OperatorEntry& e) { return *e.state_; }
  static const DispatchTable* swap_table(OperatorEntry& e, const DispatchTable* t) {
    return e.table_.exchange(t, std::memory_order_acq_rel);
  }
  static OperatorEntry* make_entry(std::string name, std::string overload) {
    return new OperatorEntry(std::move(name), std::move(overload));
  }
};

OperatorEntry::OperatorEntry(std::string name, std::string overload)
    : table_(empty_table()), handle_(this), state_(std::make_unique<State>()) {
  state_->name = std::move(name);
  state_->overload = std::move(overload);
}
OperatorEntry::~OperatorEntry() {
  if (const DispatchTable* t = table_.load(); t != empty_table()) delete t;
}

Dispatcher::Dispatcher() : impl_(std::make_unique<Impl>()) {}
Dispatcher::~Dispatcher() = default;

Dispatcher& Dispatcher::singleton() {
  // Never destroyed: plugins and static objects may dispatch during exit.
  static Dispatcher* d = new Dispatcher();
  return *d;
}

namespace {

using State = OperatorEntry::State;

struct Choice {
  const KernelReg* reg = nullptr;
  Source src = Source::Missing;
};

const KernelReg* find_kernel(const State& st, int key) {
  auto it = st.kernels.find(key);
  return it == st.kernels.end() ? nullptr : &it->second;
}

// The table rule for one runtime key (ARCHITECTURE.md "Dispatch"): its own kernel; then the
// alias keys that cover it; then the key's fallback; else missing. `trail` collects why each
// rejected candidate was rejected.
Choice choose(const State& st, const Dispatcher::Impl& im, int idx, std::vector<std::string>* trail) {
  auto note = [&](std::string s) {
    if (trail) trail->push_back(std::move(s));
  };
  const int kCEA = static_cast<int>(DispatchKey::CompositeExplicitAutograd);
  const int kCIA = static_cast<int>(DispatchKey::CompositeImplicitAutograd);
  if (idx == 0) {
    if (auto r = find_kernel(st, kCEA)) return {r, Source::CompositeExplicit};
    note("no CompositeExplicitAutograd kernel");
    if (auto r = find_kernel(st, kCIA)) return {r, Source::CompositeImplicit};
    note("no CompositeImplicitAutograd kernel");
    return {};
  }
  auto key = static_cast<DispatchKey>(idx);
  if (auto r = find_kernel(st, idx)) return {r, Source::Kernel};
  note(fmt::format("no {} kernel", to_string(key)));
  Functionality f = functionality_of(key);
  auto b = backend_of(key);
  if (f == Functionality::Autograd) {
    if (auto r = find_kernel(st, static_cast<int>(DispatchKey::Autograd))) return {r, Source::AutogradAlias};
    note("no Autograd kernel");
    // A composite serves the autograd key only when the backend has no kernel of its own (then
    // the operator needs its own derivative formula).
    bool backend_has = find_kernel(st, static_cast<int>(make_dispatch_key(Functionality::Dense, *b))) ||
                       find_kernel(st, kCEA);
    if (!backend_has) {
      if (auto r = find_kernel(st, kCIA)) return {r, Source::CompositeImplicit};
      note("no CompositeImplicitAutograd kernel");
    } else {
      note("CompositeImplicitAutograd not used: the backend has a kernel of its own");
    }
  } else if (b && static_cast<int>(f) <= static_cast<int>(Functionality::SparseCsr)) {
    if (auto r = find_kernel(st, kCEA)) return {r, Source::CompositeExplicit};
    note("no CompositeExplicitAutograd kernel");
    if (auto r = find_kernel(st, kCIA)) return {r, Source::CompositeImplicit};
    note("no CompositeImplicitAutograd kernel");
  }
  if (im.fallbacks[idx]) return {&*im.fallbacks[idx], Source::Fallback};
  note(fmt::format("no {} fallback", to_string(key)));
  return {};
}

std::string describe(const Choice& c) {
  if (!c.reg) return "missing";
  return fmt::format("{}{} [{}]", source_name(c.src), c.reg->fallthrough ? " (fallthrough)" : "", c.reg->prov.str());
}

// Which arguments the schema writes, and whether each has the `Tensor&` form that an unboxed
// kernel's bumping twin sees (Note [Version counters]).
struct Writes {
  std::vector<int> positions;
  bool all_plain = true;
};
Writes written_arguments(const State& st) {
  Writes w;
  if (!st.schema) return w;
  const auto& args = st.schema->schema.arguments();
  for (int i = 0; i < static_cast<int>(args.size()); ++i) {
    if (!args[i].alias_info() || !args[i].alias_info()->is_write) continue;
    w.positions.push_back(i);
    if (args[i].type()->kind() != TypeKind::Tensor) w.all_plain = false;
  }
  return w;
}

// The slot is served by a kernel registered at a backend key: the one layer that bumps.
bool bumps_here(int idx, const Choice& c) {
  if (c.src != Source::Kernel || idx == 0) return false;
  auto f = functionality_of(static_cast<DispatchKey>(idx));
  return backend_of(static_cast<DispatchKey>(idx)) && static_cast<int>(f) <= static_cast<int>(Functionality::SparseCsr);
}

// The entry for a backend kernel of an operator that writes: its bumping twin, else a boxed
// wrapper that bumps from the schema. Caller holds im.mu.
KernelFunction bumping_entry(Dispatcher::Impl& im, const KernelReg& reg, const Writes& w, int num_args) {
  if (w.all_plain && reg.bumping_fn.boxed) return reg.bumping_fn;
  auto b = std::make_unique<BumpingBoxedKernel>();
  b->real = reg.fn;
  b->written = w.positions;
  b->num_args = num_args;
  KernelFunction k{nullptr, &BumpingBoxedKernel::call, b.get()};
  im.wrappers.push_back(std::move(b));
  return k;
}

// Builds and publishes a new table for `e`. Caller holds im.mu.
void recompute(Dispatcher::Impl& im, OperatorEntry& e) {
  const State& st = DispatcherAccess::state(e);
  auto t = std::make_unique<DispatchTable>();
  t->schema = st.schema.get();
  std::array<bool, kNumRuntimeKeys> fallthrough{};
  const Writes writes = written_arguments(st);
  for (int idx = 0; idx < kNumRuntimeKeys; ++idx) {
    Choice c = choose(st, im, idx, nullptr);
    KernelFunction& k = t->kernels[idx];
    if (c.reg) c.reg->published = true;
    if (!c.reg) {
      k = KernelFunction{nullptr, &missing_kernel, nullptr};
      continue;
    }
    if (c.reg->fallthrough) {
      k = KernelFunction{nullptr, &fallthrough_kernel, nullptr};
      fallthrough[idx] = true;
      continue;
    }
    KernelFunction fn = c.reg->fn;
    if (!writes.positions.empty() && bumps_here(idx, c))
      fn = bumping_entry(im, *c.reg, writes, st.schema->num_args);
    if (im.verbose) {
      auto w = std::make_unique<VerboseKernel>();
      w->real = fn;
      w->desc = fmt::format("{} ({})", to_string(static_cast<DispatchKey>(idx)), describe(c));
      k = KernelFunction{nullptr, &VerboseKernel::call, w.get()};
      im.wrappers.push_back(std::move(w));
    } else {
      k = fn;
    }
  }
  for (int b = -1; b < kMaxDeviceTypes; ++b) {
    uint64_t mask = ~uint64_t{0};
    for (int f = 0; f < kNumFunctionalities; ++f) {
      auto fun = static_cast<Functionality>(f);
      if (is_per_backend(fun) && b < 0) continue;
      int idx = static_cast<int>(make_dispatch_key(fun, static_cast<DeviceType>(b < 0 ? 0 : b)));
      if (fallthrough[idx]) mask &= ~DispatchKeySet::of(fun).raw();
    }
    t->non_fallthrough[b + 1] = DispatchKeySet::from_raw(mask);
  }
  const DispatchTable* old = DispatcherAccess::swap_table(e, t.release());
  if (old != empty_table()) im.retired_tables.emplace_back(old);
  ++im.tables_built;
  im.generation.fetch_add(1, std::memory_order_relaxed);
}

// `e` needs a new table: now, or when the open transaction ends. Caller holds a WriteLock.
void touch(Dispatcher::Impl& im, OperatorEntry& e) {
  if (im.pending.empty()) {
    recompute(im, e);
  } else {
    im.pending.back().own.insert(&e);
  }
}
// Every operator needs one (a fallback changed).
void touch_all(Dispatcher::Impl& im) {
  if (im.pending.empty()) {
    for (auto& [k, e] : im.ops) recompute(im, *e);
  } else {
    im.pending.back().own_all = true;
  }
}

// A registration goes: what a published table may point to is kept, the rest freed now.
void retire_functor(Dispatcher::Impl& im, KernelReg& reg) {
  if (reg.owner && reg.published) im.retired_functors.push_back(std::move(reg.owner));
  reg.owner.reset();
}
void retire_schema(Dispatcher::Impl& im, OperatorEntry& e, State& st) {
  // Every table built since this def points at it, so the current one does if any ever did.
  if (st.schema && e.table()->schema == st.schema.get()) im.retired_schemas.push_back(std::move(st.schema));
  st.schema.reset();
}

std::string split_key(std::string_view name, std::string_view overload) {
  std::string k(name);
  if (!overload.empty()) k += "." + std::string(overload);
  return k;
}

}  // namespace


// ---- the registry operations behind Library (Registry.h) ----

namespace {

// The schema with the positions of the arguments that decide the key set of a boxed call.
std::unique_ptr<PublishedSchema> make_published(FunctionSchema schema) {
  auto p = std::make_unique<PublishedSchema>(std::move(schema));
  const auto& args = p->schema.arguments();
  p->num_args = static_cast<int>(args.size());
  for (int i = 0; i < p->num_args; ++i) {
    const Type* t = args[i].type().get();
    if (t->kind() == TypeKind::Optional || t->kind() == TypeKind::List) {
      const Type* el = t->element().get();
      if (el->kind() == TypeKind::Optional) el = el->element().get();
      if (el->kind() == TypeKind::Tensor) {
        p->tensor_args.push_back(i);
      } else if (t->kind() == TypeKind::Optional && el->kind() == TypeKind::Device && p->device_arg < 0) {
        p->device_arg = i;
      }
    } else if (t->kind() == TypeKind::Tensor) {
      p->tensor_args.push_back(i);
    } else if (t->kind() == TypeKind::Device && p->device_arg < 0) {
      p->device_arg = i;
    }
  }
  return p;
}

OperatorEntry& get_entry(Dispatcher::Impl& im, const std::string& name, const std::string& overload) {
  std::string key = split_key(name, overload);
  auto it = im.ops.find(key);
  if (it != im.ops.end()) return *it->second;
  OperatorEntry* e = DispatcherAccess::make_entry(name, overload);
  im.ops.emplace(key, std::unique_ptr<OperatorEntry>(e));
  return *e;
}

// Builds the tables a transaction collected, each once.
void publish(Dispatcher::Impl& im, const Pending& p) {
  if (p.kept_all) {
    for (auto& [k, e] : im.ops) recompute(im, *e);
  } else {
    for (OperatorEntry* e : p.kept) recompute(im, *e);
  }
}

}  // namespace

namespace detail {

Undo registry_claim_namespace(const std::string& ns, const Provenance& prov) {
  auto& im = DispatcherAccess::impl();
  WriteLock lock(im);
  auto it = im.namespaces.find(ns);
  if (it != im.namespaces.end())
    EMBER_THROW(RegistrationConflictError,
                "[EMBER_LIBRARY] namespace '{}' is already defined by {}; {} defines it again (use "
                "EMBER_LIBRARY_FRAGMENT to add operators to a namespace)",
                ns, it->second.str(), prov.str());
  im.namespaces.emplace(ns, prov);
  im.generation.fetch_add(1);
  return [ns] {
    auto& im = DispatcherAccess::impl();
    WriteLock lock(im);
    im.namespaces.erase(ns);
    im.generation.fetch_add(1);
  };
}

Undo registry_def(FunctionSchema schema, const Provenance& prov) {
  auto& im = DispatcherAccess::impl();
  WriteLock lock(im);
  OperatorEntry& e = get_entry(im, schema.name(), schema.overload_name());
  State& st = DispatcherAccess::state(e);
  if (st.schema)
    EMBER_THROW(RegistrationConflictError,
                "[def] operator '{}' is already defined by {} as '{}'; {} defines it again as '{}'", st.full_name(),
                st.def_prov.str(), st.schema->schema.str(), prov.str(), schema.str());
  for (auto& [key, reg] : st.kernels) {
    if (!reg.sig) continue;
    std::string why = signature_mismatch(schema, *reg.sig);
    EMBER_CHECK_TYPE(why.empty(),
                     "[def] the {} kernel of '{}' registered by {} does not match the schema '{}' "
                     "defined by {}: {}",
                     to_string(static_cast<DispatchKey>(key)), st.full_name(), reg.prov.str(),
                     schema.str(), prov.str(), why);
  }
  st.schema = make_published(std::move(schema));
  st.def_prov = prov;
  touch(im, e);
  OperatorEntry* ep = &e;
  return [ep] {
    auto& im = DispatcherAccess::impl();
    WriteLock lock(im);
    State& st = DispatcherAccess::state(*ep);
    retire_schema(im, *ep, st);
    st.def_prov = {};
    touch(im, *ep);
  };
}

Undo registry_impl(const std::string& op, DispatchKey key, CppFunction f, const Provenance& prov) {
  auto [name, overload] = parse_operator_name(op);
  EMBER_CHECK(is_runtime_key(key) || is_alias_key(key), "[impl] '{}': invalid dispatch key {}", op,
              static_cast<int>(key));
  if (auto b = backend_of(key))
    EMBER_CHECK(is_valid_device_type(*b), "[impl] '{}': dispatch key {} names an unregistered device type", op,
                to_string(key));
  auto& im = DispatcherAccess::impl();
  WriteLock lock(im);
  OperatorEntry& e = get_entry(im, name, overload);
  State& st = DispatcherAccess::state(e);
  int k = static_cast<int>(key);
  if (auto it = st.kernels.find(k); it != st.kernels.end())
    EMBER_THROW(RegistrationConflictError,
                "[impl] operator '{}' already has a {} kernel, registered by {}; {} registers another",
                st.full_name(), to_string(key), it->second.prov.str(), prov.str());
  if (st.schema && f.signature()) {
    std::string why = signature_mismatch(st.schema->schema, *f.signature());
    EMBER_CHECK_TYPE(why.empty(), "[impl] the {} kernel for '{}' from {} does not match the schema '{}': {}",
                     to_string(key), st.full_name(), prov.str(), st.schema->schema.str(), why);
  }
  KernelReg reg;
  reg.fn = f.kernel();
  reg.bumping_fn = f.bumping_kernel();
  reg.owner = f.owner();
  reg.sig = f.signature();
  reg.fallthrough = f.is_fallthrough();
  reg.prov = prov;
  st.kernels.emplace(k, std::move(reg));
  touch(im, e);
  OperatorEntry* ep = &e;
  return [ep, k] {
    auto& im = DispatcherAccess::impl();
    WriteLock lock(im);
    State& st = DispatcherAccess::state(*ep);
    auto it = st.kernels.find(k);
    if (it == st.kernels.end()) return;
    retire_functor(im, it->second);
    st.kernels.erase(it);
    touch(im, *ep);
  };
}

Undo registry_fallback(DispatchKey key, CppFunction f, const Provenance& prov) {
  std::vector<int> keys;
  if (key == DispatchKey::Autograd) {
    for (int b = 0; b < kMaxDeviceTypes; ++b)
      keys.push_back(static_cast<int>(make_dispatch_key(Functionality::Autograd, static_cast<DeviceType>(b))));
  } else {
    EMBER_CHECK(is_runtime_key(key) && key != DispatchKey::Undefined,
                "[fallback] a fallback needs a runtime dispatch key or Autograd, not {}", to_string(key));
    keys.push_back(static_cast<int>(key));
  }
  auto& im = DispatcherAccess::impl();
  WriteLock lock(im);
  for (int k : keys)
    if (im.fallbacks[k])
      EMBER_THROW(RegistrationConflictError, "[fallback] dispatch key {} already has a fallback, registered by {}; {} registers another",
                  to_string(static_cast<DispatchKey>(k)), im.fallbacks[k]->prov.str(), prov.str());
  for (int k : keys) {
    KernelReg reg;
    reg.fn = f.kernel();
    reg.owner = f.owner();
    reg.fallthrough = f.is_fallthrough();
    reg.prov = prov;
    im.fallbacks[k] = std::move(reg);
  }
  touch_all(im);
  return [keys] {
    auto& im = DispatcherAccess::impl();
    WriteLock lock(im);
    // One functor serves every key of an Autograd fallback: kept once if any table used it.
    KernelReg gone;
    for (int k : keys) {
      if (!im.fallbacks[k]) continue;
      gone.published = gone.published || im.fallbacks[k]->published;
      gone.owner = im.fallbacks[k]->owner;
      im.fallbacks[k].reset();
    }
    retire_functor(im, gone);
    touch_all(im);
  };
}

void registry_startup_done() {
  auto& im = DispatcherAccess::impl();
  WriteLock lock(im);
  im.retired_tables.clear();
}

RegistrationTransaction::RegistrationTransaction() {
  ensure_initialized();  // before the writer lock: initialization takes it on its own thread
  auto& im = DispatcherAccess::impl();
  im.writer.lock();
  std::lock_guard<std::mutex> g(im.mu);
  im.pending.emplace_back();
}

RegistrationTransaction::~RegistrationTransaction() {
  auto& im = DispatcherAccess::impl();
  {
    std::lock_guard<std::mutex> g(im.mu);
    Pending p = std::move(im.pending.back());
    im.pending.pop_back();
    if (!discard_) {
      p.kept.merge(p.own);
      p.kept_all = p.kept_all || p.own_all;
    }
    if (im.pending.empty()) {
      publish(im, p);
    } else {  // the outermost transaction publishes
      Pending& outer = im.pending.back();
      outer.kept.merge(p.kept);
      outer.kept_all = outer.kept_all || p.kept_all;
    }
  }
  im.writer.unlock();
}

}  // namespace detail

// ---- lookups and dumps ----

std::optional<OperatorHandle> Dispatcher::findSchema(std::string_view name, std::string_view overload) {
  ensure_initialized();
  std::string key = split_key(name, overload);
  std::lock_guard<std::mutex> g(impl_->mu);
  auto it = impl_->ops.find(key);
  // Published schemas only: an object still registering is not seen.
  if (it == impl_->ops.end() || !it->second->table()->schema) return std::nullopt;
  return it->second->handle();
}

OperatorHandle Dispatcher::findSchemaOrThrow(std::string_view name, std::string_view overload) {
  if (auto h = findSchema(name, overload)) return *h;
  std::string key = split_key(name, overload);
  std::vector<std::string> near;
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    for (auto& [k, e] : impl_->ops) {
      const PublishedSchema* s = e->table()->schema;
      if (s && e->state_->name == name) near.push_back(s->schema.str());
    }
  }
  std::string ns = std::string(name.substr(0, name.find("::")));
  if (!near.empty())
    EMBER_THROW(ValueError, "[findSchemaOrThrow] operator '{}' has no overload '{}'; its overloads are:\n  {}", name,
                overload, fmt::join(near, "\n  "));
  EMBER_THROW(ValueError,
              "[findSchemaOrThrow] no operator '{}' is registered. Is the library that defines namespace '{}' "
              "loaded (ember::plugins::load, or linked into the program)?",
              key, ns);
}

std::vector<OperatorHandle> Dispatcher::operators() {
  ensure_initialized();
  std::lock_guard<std::mutex> g(impl_->mu);
  std::vector<OperatorHandle> r;
  for (auto& [k, e] : impl_->ops)
    if (e->table()->schema) r.push_back(e->handle());
  return r;
}

uint64_t Dispatcher::generation() const { return impl_->generation.load(); }

Dispatcher::Stats Dispatcher::stats() {
  ensure_initialized();  // counts taken before first use would lack the start-up registrations
  std::lock_guard<std::mutex> g(impl_->mu);
  Stats st;
  for (auto& [k, e] : impl_->ops) st.operators += e->table()->schema != nullptr;
  st.tables_built = impl_->tables_built;
  st.retired_tables = impl_->retired_tables.size();
  st.retired_functors = impl_->retired_functors.size();
  st.retired_schemas = impl_->retired_schemas.size();
  return st;
}

namespace {
std::string fallbacks_text(const Dispatcher::Impl& im) {
  std::string s;
  for (int k = 0; k < kNumRuntimeKeys; ++k)
    if (im.fallbacks[k])
      s += fmt::format("{}: {}{}\n", to_string(static_cast<DispatchKey>(k)), im.fallbacks[k]->prov.str(),
                       im.fallbacks[k]->fallthrough ? " (fallthrough)" : "");
  return s;
}
}  // namespace

std::string Dispatcher::dump_fallbacks() {
  WriteLock lock(*impl_);
  return fallbacks_text(*impl_);
}

std::string Dispatcher::dump() {
  ensure_initialized();  // a dump taken before first use would lack the linked libraries' schemas
  WriteLock lock(*impl_);  // waits for an object still registering
  std::string s;
  for (auto& [ns, p] : impl_->namespaces) s += fmt::format("namespace {}: {}\n", ns, p.str());
  for (auto& [k, e] : impl_->ops) {
    const State& st = *e->state_;
    if (!st.schema && st.kernels.empty()) continue;
    s += st.schema ? fmt::format("{} [{}]\n", st.schema->schema.str(), st.def_prov.str())
                   : fmt::format("{} (no schema)\n", st.full_name());
    for (auto& [key, reg] : st.kernels)
      s += fmt::format("  {}: {}{}\n", to_string(static_cast<DispatchKey>(key)), reg.prov.str(),
                       reg.fallthrough ? " (fallthrough)" : "");
  }
  return s + fallbacks_text(*impl_);
}

// ---- OperatorHandle ----

bool OperatorHandle::has_schema() const { return entry_->table()->schema != nullptr; }

const FunctionSchema& OperatorHandle::schema() const {
  const PublishedSchema* s = entry_->table()->schema;
  EMBER_CHECK(s != nullptr, "[{}] the operator has kernels but no schema: no library defines it (yet)",
              operator_name());
  return s->schema;
}

// The name never changes after the entry is made: no lock.
std::string OperatorHandle::operator_name() const { return entry_->state_->full_name(); }

namespace {

// The key set of a boxed call, from the argument positions of the table it will run (none
// before the operator is defined: then only the thread's included keys).
DispatchKeySet boxed_keyset(const OperatorHandle& op, const DispatchTable& t, const Stack& s) {
  DispatchKeySet ks;
  if (const PublishedSchema* sch = t.schema) {
    EMBER_CHECK(static_cast<int>(s.size()) >= sch->num_args,
                "[{}] a boxed call needs {} arguments on the stack, it has {}", op.operator_name(), sch->num_args,
                s.size());
    const IValue* base = s.end() - sch->num_args;
    for (int i : sch->tensor_args) {
      const IValue& v = base[i];
      if (v.isTensor()) {
        if (v.toTensor().defined()) ks |= v.toTensor().key_set();
      } else if (v.isTensorList()) {
        for (const auto& e : v.toTensorVector())
          if (e.defined()) ks |= e.key_set();
      } else if (v.isList()) {
        for (const auto& x : v.toListRef())
          if (x.isTensor() && x.toTensor().defined()) ks |= x.toTensor().key_set();
      }
    }
    if (ks.empty() && sch->device_arg >= 0) {
      const IValue& v = base[sch->device_arg];
      ks = backend_key_set(v.isNone() ? kCPU : v.toDevice().type(), kStrided, false);
    }
  }
  const LocalState& tls = detail::tls_local_state;
  return (ks | tls.included) - tls.excluded;
}

EMBER_ALWAYS_INLINE void run_boxed(const OperatorHandle& op, const DispatchTable& t, DispatchKeySet ks, Stack& stack) {
  ks = ks & t.non_fallthrough[ks.highest_backend() + 1];
  const KernelFunction& k = t.kernels[ks.highest_priority_index()];
  k.boxed(k.functor, op, ks, &stack);
}

}  // namespace

DispatchKeySet OperatorHandle::compute_keyset(const Stack& s) const { return boxed_keyset(*this, *entry_->table(), s); }

void OperatorHandle::callBoxed(Stack& stack) const {
  const DispatchTable* t = entry_->table();  // one snapshot for the key set and the kernel
  run_boxed(*this, *t, boxed_keyset(*this, *t, stack), stack);
}

void OperatorHandle::redispatchBoxed(DispatchKeySet ks, Stack& stack) const {
  run_boxed(*this, *entry_->table(), ks, stack);
}

std::string OperatorHandle::dump_table() const {
  auto& im = DispatcherAccess::impl();
  WriteLock lock(im);
  const State& st = *entry_->state_;
  std::string s = st.schema ? st.schema->schema.str() + "\n" : st.full_name() + " (no schema)\n";
  s += "registered:\n";
  for (auto& [key, reg] : st.kernels)
    s += fmt::format("  {}: {}{}\n", to_string(static_cast<DispatchKey>(key)), reg.prov.str(),
                     reg.fallthrough ? " (fallthrough)" : "");
  s += "computed table:\n";
  for (int idx = 0; idx < kNumRuntimeKeys; ++idx) {
    auto key = static_cast<DispatchKey>(idx);
    if (auto b = backend_of(key); b && !is_valid_device_type(*b)) continue;
    Choice c = choose(st, im, idx, nullptr);
    if (!c.reg) continue;
    s += fmt::format("  {}: {}\n", to_string(key), describe(c));
  }
  return s;
}

std::string OperatorHandle::explain(const Stack& args) const { return explain(compute_keyset(args)); }

std::string OperatorHandle::explain(DispatchKeySet ks) const {
  auto& im = DispatcherAccess::impl();
  WriteLock lock(im);
  const State& st = *entry_->state_;
  const DispatchTable* t = entry_->table();
  DispatchKeySet masked = ks & t->non_fallthrough[ks.highest_backend() + 1];
  std::string s = fmt::format("{}: key set {}", st.full_name(), ks.str());
  if (!(masked == ks)) s += fmt::format(", {} after removing fallthrough keys", masked.str());
  s += "\n";
  bool won = false;
  std::vector<DispatchKey> keys = ks.keys();
  if (keys.empty()) keys.push_back(DispatchKey::Undefined);
  for (DispatchKey k : keys) {
    std::vector<std::string> trail;
    Choice c = choose(st, im, static_cast<int>(k), &trail);
    std::string why = trail.empty() ? "" : " (" + fmt::format("{}", fmt::join(trail, "; ")) + ")";
    if (c.reg && c.reg->fallthrough) {
      s += fmt::format("  {}: fallthrough [{}], skipped{}\n", to_string(k), c.reg->prov.str(), why);
    } else if (!won && c.reg) {
      s += fmt::format("  {}: runs {}{}\n", to_string(k), describe(c), why);
      won = true;
    } else if (!won) {
      s += fmt::format("  {}: missing{}\n", to_string(k), why);
      won = true;  // the call fails here
    } else {
      s += fmt::format("  {}: not reached ({})\n", to_string(k), describe(c));
    }
  }
  return s;
}

namespace {

// Note [Missing kernel errors]: op, the key set, every key tried with why it was rejected, the
// keys that do have kernels and who registered them, and a fix.
void missing_kernel(OperatorKernel*, const OperatorHandle& op, DispatchKeySet ks, Stack*) {
  auto& im = DispatcherAccess::impl();
  std::string msg;
  {
    WriteLock lock(im);  // a registration in flight on another thread is seen whole or not at all
    const State& st = DispatcherAccess::state(*op.entry());
    DispatchKey key = ks.highest_priority_key();
    std::vector<std::string> trail;
    choose(st, im, static_cast<int>(key), &trail);
    std::string have;
    for (auto& [k, reg] : st.kernels)
      have += fmt::format("\n    {}: {}", to_string(static_cast<DispatchKey>(k)), reg.prov.str());
    if (have.empty()) have = " none";
    std::string fix;
    if (key == DispatchKey::Undefined) {
      fix = "pass at least one tensor (or a device) so a backend can be chosen, or register a "
            "CompositeExplicitAutograd kernel";
    } else if (functionality_of(key) == Functionality::Autograd) {
      fix = fmt::format("load plugin 'autograd' (ember::plugins::load(\"autograd\")) or register an Autograd "
                        "kernel for {}",
                        st.full_name());
    } else if (const Functionality f = functionality_of(key);
               f == Functionality::Quantized || f == Functionality::Sparse || f == Functionality::SparseCsr) {
      // Quantized and sparse kernels live in their own plugins, whatever the device.
      const char* plugin = f == Functionality::Quantized ? "quantized" : "sparse";
      fix = fmt::format("load plugin '{0}' (ember::plugins::load(\"{0}\")) for {1} kernels, or register a {1} kernel "
                        "for {2}",
                        plugin, to_string(key), st.full_name());
    } else if (auto b = backend_of(key)) {
      fix = fmt::format("load the plugin for device '{0}' (ember::plugins::load(\"{0}\")), or register a {1} "
                        "kernel for {2}",
                        device_type_name(*b), to_string(key), st.full_name());
    } else {
      fix = fmt::format("register a {} kernel or fallback", to_string(key));
    }
    msg = fmt::format("[{}] no kernel for dispatch key {}.\n  key set: {}\n  tried {}: {}\n  kernels registered for "
                      "this operator:{}\n  fix: {}",
                      st.full_name(), to_string(key), ks.str(), to_string(key), fmt::join(trail, "; "), have, fix);
  }
  throw NotImplementedError(msg);
}

}  // namespace

}  // namespace ember

namespace ember::detail {
void throw_signature_mismatch(const OperatorHandle& op, const CppSignature& sig, const std::string& why) {
  EMBER_THROW(TypeError, "[{}] typed<{}>() does not match the schema '{}': {}", op.operator_name(), sig.str(),
              op.schema().str(), why);
}
}  // namespace ember::detail
