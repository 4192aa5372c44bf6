#pragma once
// Operators, their dispatch tables, and the call paths.
//
// Note [Dispatch tables are published, never edited]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each operator owns a pointer to an immutable DispatchTable. A registration computes a complete
// new table under the registry's locks and publishes it with one release store; a call does one
// acquire load (a plain load on x86) and never locks. Everything a call reads about the operator
// hangs off that one table: the kernels, the fallthrough masks, and the PublishedSchema (the
// schema, and where a boxed call finds the arguments that decide its key set). A reader thus sees
// one consistent snapshot, and schema() / has_schema() take no lock. A replaced table, the
// functors it points to and an undone schema are retired, not freed, because a reader may still
// be inside a kernel it found there or hold a reference to the schema; they are freed with the
// Dispatcher (never: it lives for the process). Registration is rare, so this costs a few KiB per
// change and keeps the call path free of locks, reference counts and hazard pointers. Two
// exceptions: what was never published (the registrations of a failed plugin: see Note
// [Registration is published per object] in Library.h) is freed at once, and the tables replaced
// during start-up (ensure_initialized: the linked libraries, then the default plugins, each
// published whole) are freed when it ends. No other thread can have read those: handles come
// from lookups, which wait for start-up, and a call reads its table only before it enters the
// kernel, so the starting thread holds none across a registration. Dispatcher::stats() counts
// what is built and retired.
//
// The call path (typed): key set = union of the tensor arguments' key sets, plus the thread's
// included keys, minus its excluded keys, minus the keys whose entry is a fallthrough (masked when
// the table is computed, per backend); the highest key's slot is one indirect call.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/LocalState.h"
#include "ember/core/Schema.h"
#include "ember/dispatcher/Boxing.h"
#include "ember/dispatcher/CppSignature.h"

namespace ember {

// An operator's schema as calls and lookups read it; immutable once published.
struct PublishedSchema {
  explicit PublishedSchema(FunctionSchema s) : schema(std::move(s)) {}
  FunctionSchema schema;
  // Positions of Tensor, Tensor?, Tensor[] and Tensor?[] arguments, and of the first Device
  // argument (-1: none): what a boxed call computes its key set from.
  std::vector<int> tensor_args;
  int device_arg = -1;
  int num_args = 0;
};

struct DispatchTable {
  KernelFunction kernels[kNumRuntimeKeys];
  // Indexed by highest backend + 1 (0: no backend bit): every bit except fallthrough keys.
  DispatchKeySet non_fallthrough[kMaxDeviceTypes + 1];
  // The schema the table was built with; null while no published library defines the operator.
  const PublishedSchema* schema = nullptr;
};

class OperatorEntry;
template <class Sig>
class TypedOperatorHandle;

class EMBER_API OperatorHandle {
 public:
  OperatorHandle() = default;
  explicit OperatorHandle(OperatorEntry* e) : entry_(e) {}

  // Both read the published table, with no lock: see Note [Dispatch tables are published, never
  // edited]. The reference stays valid for the life of the process.
  bool has_schema() const;
  // Throws ValueError when the operator has impls but no def yet.
  const FunctionSchema& schema() const;
  std::string operator_name() const;  // "ns::name.overload"

  // Throws TypeError naming both signatures when Sig does not match the schema.
  template <class Sig>
  TypedOperatorHandle<Sig> typed() const;

  void callBoxed(Stack& stack) const;
  void callBoxed(Stack* stack) const { callBoxed(*stack); }
  // Runs the highest key of `ks` as given (no thread-local keys applied).
  void redispatchBoxed(DispatchKeySet ks, Stack& stack) const;
  void redispatchBoxed(DispatchKeySet ks, Stack* stack) const { redispatchBoxed(ks, *stack); }

  // The dispatch table with provenance: one line per key that has something.
  std::string dump_table() const;
  // Which key would win for these boxed arguments and why (every candidate, in order).
  std::string explain(const Stack& args) const;
  std::string explain(DispatchKeySet ks) const;
  // The key set a call with these boxed arguments computes (thread-local state applied).
  DispatchKeySet compute_keyset(const Stack& args) const;

  OperatorEntry* entry() const { return entry_; }
  bool operator==(const OperatorHandle& o) const { return entry_ == o.entry_; }

 private:
  OperatorEntry* entry_ = nullptr;
};

class EMBER_API OperatorEntry {
 public:
  // Never null: an operator starts with an empty table (every key missing, no schema).
  const DispatchTable* table() const { return table_.load(std::memory_order_acquire); }
  const OperatorHandle& handle() const { return handle_; }

  struct State;  // opaque: registrations, guarded by the Dispatcher's locks
  ~OperatorEntry();

 private:
  friend class Dispatcher;
  friend class OperatorHandle;
  friend struct DispatcherAccess;
  explicit OperatorEntry(std::string name, std::string overload);

  std::atomic<const DispatchTable*> table_;
  OperatorHandle handle_;
  std::unique_ptr<State> state_;
};

namespace detail {

// Key set of one typed argument.
template <class T>
EMBER_ALWAYS_INLINE void add_keys(DispatchKeySet& ks, const T& v) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, Tensor>) {
    if (v.defined()) ks |= v.key_set();
  } else if constexpr (std::is_same_v<D, std::optional<Tensor>>) {
    if (v && v->defined()) ks |= v->key_set();
  } else if constexpr (std::is_same_v<D, std::vector<Tensor>> ||
                       std::is_same_v<D, std::vector<std::optional<Tensor>>>) {
    for (const auto& t : v) add_keys(ks, t);
  }
}
template <class T>
constexpr bool is_device_arg =
    std::is_same_v<std::decay_t<T>, Device> || std::is_same_v<std::decay_t<T>, std::optional<Device>>;

template <class T>
EMBER_ALWAYS_INLINE void add_device_key(DispatchKeySet& ks, const T& v) {
  if constexpr (std::is_same_v<std::decay_t<T>, Device>) {
    ks |= backend_key_set(v.type(), kStrided, false);
  } else if constexpr (std::is_same_v<std::decay_t<T>, std::optional<Device>>) {
    ks |= backend_key_set(v ? v->type() : kCPU, kStrided, false);
  }
}

template <class T>
constexpr bool is_tensor_list_arg = std::is_same_v<std::decay_t<T>, std::vector<Tensor>>;

// Tensor arguments decide; with none, the first Device argument does (a factory with no
// device given runs on the CPU, as in LibTorch). An operator taking a Tensor[] that is called
// with an empty list (and nothing else to decide) runs on the CPU too, so its own check reports
// it (cat({}): "expected a non-empty list of Tensors"), not a missing kernel.
template <class... Args>
EMBER_ALWAYS_INLINE DispatchKeySet extract_keyset(const Args&... a) {
  DispatchKeySet ks;
  (add_keys(ks, a), ...);
  if constexpr ((is_device_arg<Args> || ...)) {
    if (ks.empty()) {
      bool done = false;
      auto one = [&](const auto& v) {
        if constexpr (is_device_arg<decltype(v)>) {
          if (!done) add_device_key(ks, v);
          done = true;
        }
      };
      (one(a), ...);
    }
  }
  if constexpr ((is_tensor_list_arg<Args> || ...)) {
    if (EMBER_UNLIKELY(ks.empty())) ks = backend_key_set(kCPU, kStrided, false);
  }
  return ks;
}

// Slow path of a typed call whose kernel is boxed-only (a fallback) or missing.
template <class Ret, class... Args>
EMBER_NOINLINE Ret call_boxed_typed(const OperatorHandle& op, const KernelFunction& k,
                                    DispatchKeySet ks, Args... args) {
  Stack s;
  (s.emplace_back(to_ivalue(args)), ...);
  k.boxed(k.functor, op, ks, &s);
  if constexpr (std::is_void_v<Ret>) {
    return;
  } else if constexpr (std::is_same_v<Ret, Tensor&>) {
    // In-place and out= kernels return their first mutable argument.
    Tensor* first = nullptr;
    auto pick = [&](auto&& a) {
      if constexpr (std::is_same_v<decltype(a), Tensor&>) {
        if (!first) first = &a;
      }
    };
    (pick(args), ...);
    return *first;
  } else if constexpr (requires { std::tuple_size<Ret>::value; }) {
    constexpr size_t n = std::tuple_size_v<Ret>;
    if constexpr (std::is_reference_v<std::tuple_element_t<0, Ret>>) {
      // Multi-output out= kernels (max.dim_max) return their mutable arguments, in order.
      Tensor* outs[n] = {};
      size_t k = 0;
      auto pick = [&](auto&& a) {
        if constexpr (std::is_same_v<decltype(a), Tensor&>) {
          if (k < n) outs[k++] = &a;
        }
      };
      (pick(args), ...);
      return [&]<size_t... I>(std::index_sequence<I...>) { return Ret(*outs[I]...); }(std::make_index_sequence<n>{});
    } else {
      return [&]<size_t... I>(std::index_sequence<I...>) {
        return Ret(std::move(s[s.size() - n + I]).toTensor()...);
      }(std::make_index_sequence<n>{});
    }
  } else {
    IValue r = std::move(s.back());
    if constexpr (std::is_same_v<Ret, Tensor>) return std::move(r).toTensor();
    else if constexpr (std::is_same_v<Ret, Scalar>) return r.toScalar();
    else if constexpr (std::is_same_v<Ret, double>) return r.toDouble();
    else if constexpr (std::is_same_v<Ret, int64_t>) return r.toInt();
    else if constexpr (std::is_same_v<Ret, bool>) return r.toBool();
    else if constexpr (std::is_same_v<Ret, QScheme>) return r.toQScheme();
    else if constexpr (std::is_same_v<Ret, std::vector<Tensor>>) return r.toTensorVector();
    else static_assert(sizeof(Ret) == 0, "unsupported return type for a boxed kernel");
  }
}

template <class Ret, class... Args>
EMBER_ALWAYS_INLINE Ret dispatch_typed(const OperatorEntry& e, DispatchKeySet ks, Args... args) {
  const DispatchTable* t = e.table();
  ks = ks & t->non_fallthrough[ks.highest_backend() + 1];
  const KernelFunction& k = t->kernels[ks.highest_priority_index()];
  if (EMBER_LIKELY(k.unboxed != nullptr)) {
    using Fn = Ret (*)(OperatorKernel*, DispatchKeySet, Args...);
    return reinterpret_cast<Fn>(k.unboxed)(k.functor, ks, std::forward<Args>(args)...);
  }
  return call_boxed_typed<Ret, Args...>(e.handle(), k, ks, std::forward<Args>(args)...);
}

[[noreturn]] EMBER_API void throw_signature_mismatch(const OperatorHandle& op,
                                                    const CppSignature& sig,
                                                    const std::string& why);

}  // namespace detail

// A handle whose C++ signature was checked against the schema once; calls are unboxed.
template <class Ret, class... Args>
class TypedOperatorHandle<Ret(Args...)> {
 public:
  TypedOperatorHandle() = default;
  explicit TypedOperatorHandle(OperatorEntry* e) : entry_(e) {}

  EMBER_ALWAYS_INLINE Ret call(Args... args) const {
    DispatchKeySet ks = detail::extract_keyset<Args...>(args...);
    const LocalState& tls = detail::tls_local_state;
    ks = (ks | tls.included) - tls.excluded;
    return detail::dispatch_typed<Ret, Args...>(*entry_, ks, std::forward<Args>(args)...);
  }
  // Runs the highest key of `ks` as given: see Note [Kernels that redispatch].
  EMBER_ALWAYS_INLINE Ret redispatch(DispatchKeySet ks, Args... args) const {
    return detail::dispatch_typed<Ret, Args...>(*entry_, ks, std::forward<Args>(args)...);
  }
  OperatorHandle handle() const { return OperatorHandle(entry_); }
  bool valid() const { return entry_ != nullptr; }

 private:
  OperatorEntry* entry_ = nullptr;
};

namespace detail {
template <class Sig>
struct SignatureOf;
template <class R, class... A>
struct SignatureOf<R(A...)> {
  static CppSignature get() { return make_cpp_signature<R, A...>(); }
};
}  // namespace detail

template <class Sig>
TypedOperatorHandle<Sig> OperatorHandle::typed() const {
  CppSignature sig = detail::SignatureOf<Sig>::get();
  std::string why = signature_mismatch(schema(), sig);
  if (!why.empty()) detail::throw_signature_mismatch(*this, sig, why);
  return TypedOperatorHandle<Sig>(entry_);
}


class EMBER_API Dispatcher {
 public:
  static Dispatcher& singleton();

  // "ns::name" and overload ("" for none). Throws ValueError naming close matches when absent.
  // Lookups see published schemas only: not those of an object still registering (see Note
  // [Registration is published per object] in Library.h).
  OperatorHandle findSchemaOrThrow(std::string_view name, std::string_view overload);
  // Accepts "ns::name.overload" too.
  std::optional<OperatorHandle> findSchema(std::string_view name, std::string_view overload = {});
  // Every operator with a schema, sorted by name.
  std::vector<OperatorHandle> operators();
  // A full dump of the registry (schemas, kernels with provenance, fallbacks): two equal dumps
  // mean nothing was left half-changed.
  std::string dump();
  // Registered boxed fallbacks: "Key: plugin (file:line)" lines.
  std::string dump_fallbacks();
  // Bumped on every (de)registration.
  uint64_t generation() const;
  // What registration has built and what it keeps for readers (see Note [Dispatch tables are
  // published, never edited]).
  struct Stats {
    size_t operators = 0;         // with a published schema
    uint64_t tables_built = 0;    // dispatch tables built and published since the start
    size_t retired_tables = 0;    // replaced tables kept because a call may still read them
    size_t retired_functors = 0;  // kernel functors of undone registrations, kept likewise
    size_t retired_schemas = 0;   // schemas of undone defs, kept likewise
  };
  Stats stats();

  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  struct Impl;  // opaque

 private:
  friend struct DispatcherAccess;
  Dispatcher();
  ~Dispatcher();
  std::unique_ptr<Impl> impl_;
};

// Runs the registrations of libraries linked into the program and loads the default plugins,
// once (the first time anything looks an operator up). Safe to call from anywhere.
EMBER_API void ensure_initialized();

}  // namespace ember
