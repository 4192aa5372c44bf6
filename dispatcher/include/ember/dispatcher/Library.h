#pragma once
// The registration API: EMBER_LIBRARY / EMBER_LIBRARY_FRAGMENT / EMBER_LIBRARY_IMPL and Library.
//
// Note [Registration records]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A registration block does no work when its library is loaded: static initializers are
// dropped by linkers (pytorch#14367) and would run before any check. Each block instead emits a
// plain-data LibraryRecord into the section `ember_libs` (used + retain, so neither the compiler
// nor --gc-sections drops it) and an ELF note (.note.ember, type 1) holding the section's bounds
// as link-time offsets. libember walks every loaded object's PT_NOTE segments
// (dl_iterate_phdr), finds the records and runs each block once, all of an object's blocks in one
// RegistrationTransaction (see Note [Registration is published per object]): if one block throws,
// everything the object registered so far is undone and none of it was ever visible. The plugin
// loader runs a plugin's records the same way right after dlopen, so one source works as a
// run-time plugin and as a library linked into the program. A static archive must be linked whole
// (ember_link_whole_archive() in CMake, or $<LINK_LIBRARY:WHOLE_ARCHIVE,...>), or the linker
// drops the records with the object file that holds them.
//
// Note [Registration is published per object]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// What one object (a plugin, or a library linked into the program) registers becomes visible
// all at once, when its last block has run, and a failed object is never visible at all.
//  - Two locks. The writer lock (recursive) is held by a registration for as long as it runs:
//    a whole object's blocks, or one Library call made outside any transaction. The data lock
//    is held briefly by whoever reads or changes the registry's bookkeeping. Calls take neither.
//  - Deferred tables. Inside a RegistrationTransaction, def/impl/fallback (and their undo)
//    change the bookkeeping and note which operators they touched; when the outermost
//    transaction ends, each touched operator's table is built once and published (every
//    operator's, if a fallback changed). An object of N impls on one operator builds that
//    operator's table once, not N times (Dispatcher::stats() counts tables built and retired).
//    A Library used outside any transaction publishes at each call, as before.
//  - Lookups do not see an object in flight. findSchema, operators() and ops::call find an
//    operator only through its published table (the PublishedSchema it points to), so a thread
//    that finds one operator of an object then finds every operator and kernel of it, or a
//    later state. This holds for the registering thread too: a block cannot look up an operator
//    its own object defines (kernels look their callees up when they run, not at registration).
//    Diagnostics that read the bookkeeping (dump, dump_table, explain, the missing-kernel
//    message) take the writer lock, so they wait for an object in flight instead of showing
//    half of it. A call through a handle already held may see the object's tables switch in one
//    operator at a time during the publish; each table is complete and consistent on its own.
//  - Failure. A block that throws makes the loader undo the object's libraries (newest first)
//    and discard() the transaction: its tables are never built, so no thread can hold a
//    kernel, functor or schema of it. The functors it created (lambda kernels, boxed lambdas)
//    are therefore destroyed at once, before the loader unloads the file, instead of being
//    retired (their destructors are plugin code). A failed load unmaps the file only after
//    that; a loaded plugin is never unloaded.
//  - Nesting. A transaction opened inside another (a block that loads a plugin) publishes with
//    the outermost one; what it registered survives a discard() of the outer one.
//  - Lock order: initialization, the plugin loader, the record runner, the writer lock, the
//    data lock. A transaction runs ensure_initialized() before it takes the writer lock.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/dispatcher/Dispatcher.h"
#include "ember/dispatcher/ElfNotes.h"

namespace ember {

// A kernel in any of its accepted forms: function pointer, lambda (with or without captures;
// a first DispatchKeySet parameter is allowed), EMBER_FN(f), a boxed function
// `void(const OperatorHandle&, [DispatchKeySet,] Stack*)`, or a fallthrough.
class EMBER_API CppFunction {
 public:
  using BoxedFn = void (*)(const OperatorHandle&, Stack*);
  using BoxedKeysFn = void (*)(const OperatorHandle&, DispatchKeySet, Stack*);

  template <class R, class... A>
  CppFunction(R (*fn)(A...)) {  // NOLINT: implicit, so m.impl("x", &f) works
    using T = detail::FnTraits<R(A...)>;
    using M = detail::KernelMaker<typename T::Ret, typename T::Args>;
    fn_ = M::template fnptr<R (*)(A...), T::takes_keyset>(fn);
    bumping_fn_ = M::template fnptr_bumping<R (*)(A...), T::takes_keyset>(fn);
    sig_ = M::signature();
  }
  CppFunction(BoxedFn f);      // NOLINT
  CppFunction(BoxedKeysFn f);  // NOLINT
  template <class L, std::enable_if_t<std::is_class_v<std::decay_t<L>> &&
                                          !std::is_same_v<std::decay_t<L>, CppFunction>,
                                      int> = 0>
  CppFunction(L&& l) {  // NOLINT
    using D = std::decay_t<L>;
    if constexpr (std::is_invocable_v<D, const OperatorHandle&, Stack*> ||
                  std::is_invocable_v<D, const OperatorHandle&, DispatchKeySet, Stack*>) {
      init_boxed_lambda(std::forward<L>(l));
    } else {
      using T = detail::FnTraits<decltype(&D::operator())>;
      using M = detail::KernelMaker<typename T::Ret, typename T::Args>;
      if constexpr (std::is_empty_v<D> && std::is_default_constructible_v<D>) {
        fn_ = M::template empty_lambda<D, T::takes_keyset>();
        bumping_fn_ = M::template empty_lambda_bumping<D, T::takes_keyset>();
      } else {
        auto k = std::make_shared<detail::LambdaKernel<D>>(std::forward<L>(l));
        fn_ = M::template lambda<D, T::takes_keyset>(k.get());
        bumping_fn_ = M::template lambda_bumping<D, T::takes_keyset>(k.get());
        owner_ = std::move(k);
      }
      sig_ = M::signature();
    }
  }
  // A function known at compile time (see EMBER_FN).
  template <auto Fn>
  static CppFunction make() {
    using T = detail::FnTraits<std::remove_pointer_t<decltype(Fn)>>;
    using M = detail::KernelMaker<typename T::Ret, typename T::Args>;
    CppFunction f;
    f.fn_ = M::template fixed<Fn, T::takes_keyset>();
    f.bumping_fn_ = M::template fixed_bumping<Fn, T::takes_keyset>();
    f.sig_ = M::signature();
    return f;
  }
  template <auto F>
  static CppFunction makeFromBoxedFunction() { return CppFunction(F); }
  // Skips this key: the dispatcher goes on to the next key down.
  static CppFunction makeFallthrough();

  const KernelFunction& kernel() const { return fn_; }
  // kernel() bumping its `Tensor&` arguments' versions; empty when it has none or is boxed
  // (see Note [Version counters]).
  const KernelFunction& bumping_kernel() const { return bumping_fn_; }
  const std::optional<CppSignature>& signature() const { return sig_; }
  bool is_fallthrough() const { return fallthrough_; }
  bool is_boxed_only() const { return fn_.unboxed == nullptr; }
  const std::shared_ptr<OperatorKernel>& owner() const { return owner_; }

 private:
  CppFunction() = default;
  template <class L>
  void init_boxed_lambda(L&& l);

  KernelFunction fn_;
  KernelFunction bumping_fn_;
  std::shared_ptr<OperatorKernel> owner_;
  std::optional<CppSignature> sig_;
  bool fallthrough_ = false;
};

#define EMBER_FN(f) ::ember::CppFunction::make<&f>()

namespace detail {
template <class L>
struct BoxedLambdaKernel final : OperatorKernel {
  explicit BoxedLambdaKernel(L l) : fn(std::move(l)) {}
  L fn;
  static void call(OperatorKernel* f, const OperatorHandle& op, DispatchKeySet ks, Stack* s) {
    auto& fn = static_cast<BoxedLambdaKernel*>(f)->fn;
    if constexpr (std::is_invocable_v<L, const OperatorHandle&, DispatchKeySet, Stack*>)
      fn(op, ks.below_highest(), s);
    else
      fn(op, s);
  }
};
}  // namespace detail

template <class L>
void CppFunction::init_boxed_lambda(L&& l) {
  using D = std::decay_t<L>;
  auto k = std::make_shared<detail::BoxedLambdaKernel<D>>(std::forward<L>(l));
  fn_ = KernelFunction{nullptr, &detail::BoxedLambdaKernel<D>::call, k.get()};
  owner_ = std::move(k);
}

// The caller's file and line, as a default argument (std::source_location needs clang 15 with
// libstdc++; these builtins work in GCC and clang 14).
struct SourceLocation {
  const char* file = "";
  uint32_t line = 0;
  static constexpr SourceLocation current(const char* f = __builtin_FILE(), uint32_t l = __builtin_LINE()) {
    return SourceLocation{f, l};
  }
};

// Where a registration came from: the plugin (or "<program>" / a library's file stem) and
// the source line.
struct EMBER_API Provenance {
  std::string plugin;
  std::string file;
  uint32_t line = 0;
  std::string str() const;  // "plugin 'cpu' (plugins/cpu/register.cpp:42)"
};

// One registration block. Everything it registers is undone when it is destroyed.
class EMBER_API Library {
 public:
  enum class Kind : uint8_t { DEF, FRAGMENT, IMPL };

  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file,
          uint32_t line);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // Declares an operator: "name.overload(args) -> returns" (the namespace is the library's).
  Library& def(std::string_view schema, SourceLocation loc = SourceLocation::current());
  // Declares it and registers `f` as its CompositeImplicitAutograd kernel.
  Library& def(std::string_view schema, CppFunction f,
               SourceLocation loc = SourceLocation::current());
  // Registers `f` for "name[.overload]" under this IMPL library's key (CompositeImplicitAutograd
  // in a DEF or FRAGMENT library).
  Library& impl(std::string_view name, CppFunction f,
                SourceLocation loc = SourceLocation::current());
  Library& impl(std::string_view name, DispatchKey key, CppFunction f,
                SourceLocation loc = SourceLocation::current());
  // A boxed kernel for every operator at this IMPL library's key (namespace `_`).
  Library& fallback(CppFunction f, SourceLocation loc = SourceLocation::current());

  Kind kind() const { return kind_; }
  const std::string& ns() const { return ns_; }
  std::optional<DispatchKey> key() const { return key_; }
  const Provenance& provenance() const { return prov_; }
  size_t num_registrations() const { return undo_.size(); }

 private:
  Provenance at(const SourceLocation& loc) const;
  std::string qualify(std::string_view name, const char* what) const;

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  Provenance prov_;
  std::vector<std::function<void()>> undo_;
};

namespace detail {

// One EMBER_LIBRARY* block, as stored in the `ember_libs` section. Plain data.
struct alignas(8) LibraryRecord {
  uint32_t abi_version;
  uint32_t kind;  // Library::Kind
  const char* ns;
  uint32_t key;  // DispatchKey, or UINT32_MAX for none; with `device`, the key's functionality on CPU
  uint32_t line;
  void (*init)(Library&);
  const char* file;
  // EMBER_LIBRARY_IMPL_DEVICE: the device type's name, resolved when the block runs; else null.
  const char* device;
};

// The record key of an EMBER_LIBRARY_IMPL_DEVICE block: `f` on a placeholder backend (CPU). A
// functionality that is not per backend (Tracer, Profiler) does not compile.
consteval uint32_t device_record_key(Functionality f) {
  if (!is_per_backend(f)) throw "EMBER_LIBRARY_IMPL_DEVICE needs a per-backend functionality";
  return static_cast<uint32_t>(make_dispatch_key(f, kCPU));
}

// The records of an object are read as one array: the variable's own aligned(8) stops GCC from
// over-aligning it (it aligns large statics to 32 bytes otherwise, leaving gaps).
static_assert(sizeof(LibraryRecord) % 8 == 0 && alignof(LibraryRecord) == 8);

// The plugin (or library) whose records are being run on this thread: provenance for every
// registration made meanwhile.
EMBER_API const std::string& current_registrant();

// Registrations made on this thread while it lives are published together when it ends: see
// Note [Registration is published per object]. It holds the registry's writer lock (recursive),
// so other threads' registrations wait; transactions nest, and an inner one publishes with the
// outermost. The plugin loader and the linked-library scan run each object in one.
class EMBER_API RegistrationTransaction {
 public:
  RegistrationTransaction();
  // Publishes the tables of every operator touched inside, once each, unless discard()ed.
  ~RegistrationTransaction();
  // Everything registered inside was undone: publish none of it (what nested transactions
  // committed is still published).
  void discard() { discard_ = true; }
  RegistrationTransaction(const RegistrationTransaction&) = delete;
  RegistrationTransaction& operator=(const RegistrationTransaction&) = delete;

 private:
  bool discard_ = false;
};

class EMBER_API RegistrantScope {
 public:
  explicit RegistrantScope(std::string name);
  ~RegistrantScope();
  RegistrantScope(const RegistrantScope&) = delete;
  RegistrantScope& operator=(const RegistrantScope&) = delete;

 private:
  std::string prev_;
};

}  // namespace detail
}  // namespace ember

#define EMBER_LIBRARY_RECORD_(KIND, ns, KEY, m, uid) EMBER_LIBRARY_RECORD_DEV_(KIND, ns, KEY, nullptr, m, uid)
#define EMBER_LIBRARY_RECORD_DEV_(KIND, ns, KEY, DEVICE, m, uid)                              \
  static void EMBER_CONCAT(uid, _init)(::ember::Library&);                                    \
  EMBER_NOTE_RECORDS_AND_BUILD_                                                               \
  [[gnu::used, gnu::retain, gnu::section("ember_libs"),                                       \
    gnu::aligned(8)]] static const ::ember::detail::LibraryRecord EMBER_CONCAT(uid, _rec) = { \
      EMBER_PLUGIN_ABI_VERSION,                                                               \
      static_cast<uint32_t>(KIND),                                                            \
      #ns,                                                                                    \
      KEY,                                                                                    \
      __LINE__,                                                                               \
      &EMBER_CONCAT(uid, _init),                                                              \
      __FILE__,                                                                               \
      DEVICE};                                                                                \
  static void EMBER_CONCAT(uid, _init)(::ember::Library & m)

// Declares the operators of namespace `ns` (once per namespace in the process).
#define EMBER_LIBRARY(ns, m)                                                              \
  EMBER_LIBRARY_RECORD_(::ember::Library::Kind::DEF, ns, UINT32_MAX, m,                  \
                        EMBER_CONCAT(ember_library_##ns##_, __COUNTER__))
// Declares more operators of `ns`.
#define EMBER_LIBRARY_FRAGMENT(ns, m)                                                     \
  EMBER_LIBRARY_RECORD_(::ember::Library::Kind::FRAGMENT, ns, UINT32_MAX, m,             \
                        EMBER_CONCAT(ember_fragment_##ns##_, __COUNTER__))
// Registers kernels of `ns` for dispatch key `k` (CPU, CUDA, Autograd, CompositeImplicitAutograd,
// ...); `_` as the namespace registers fallbacks.
#define EMBER_LIBRARY_IMPL(ns, k, m)                                                      \
  EMBER_LIBRARY_RECORD_(::ember::Library::Kind::IMPL, ns,                                \
                        static_cast<uint32_t>(::ember::DispatchKey::k), m,               \
                        EMBER_CONCAT(ember_impl_##ns##_##k##_, __COUNTER__))
// Registers kernels of `ns` for a device type registered by name at run time (a plugin's own
// device): EMBER_LIBRARY_IMPL_DEVICE(ns, "mydev", m) for its dense backend key,
// EMBER_LIBRARY_IMPL_DEVICE_FUNCTIONALITY(ns, Autograd, "mydev", m) for another per-backend
// functionality (Dense, Quantized, Sparse, SparseCsr, Autocast, Autograd) of it. The name is
// resolved when the block runs; an unknown name fails the block (and the plugin's load). A
// library's EMBER_LIBRARY and EMBER_LIBRARY_FRAGMENT blocks run before its IMPL blocks, so a
// plugin registers its device type (register_device_type) in one of those, or depends on the
// plugin that does.
#define EMBER_LIBRARY_IMPL_DEVICE(ns, device, m) EMBER_LIBRARY_IMPL_DEVICE_FUNCTIONALITY(ns, Dense, device, m)
#define EMBER_LIBRARY_IMPL_DEVICE_FUNCTIONALITY(ns, f, device, m)                                     \
  EMBER_LIBRARY_RECORD_DEV_(::ember::Library::Kind::IMPL, ns,                                         \
                            ::ember::detail::device_record_key(::ember::Functionality::f), device, m, \
                            EMBER_CONCAT(ember_impl_dev_##ns##_##f##_, __COUNTER__))
