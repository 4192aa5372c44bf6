#pragma once
// Conversions between C++ arguments and IValues, and the adapters that let an unboxed kernel
// be called boxed and a boxed kernel be called typed.
#include <array>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/dispatcher/CppSignature.h"
#include "ember/dispatcher/KernelFunction.h"

namespace ember::detail {

// ---- IValue -> C++ argument -------------------------------------------------------------
template <class T>
struct FromIValue;  // unsupported type: compile error at the kernel's registration

template <>
struct FromIValue<const Tensor&> {
  static const Tensor& get(IValue& v) { return v.toTensor(); }
};
template <>
struct FromIValue<Tensor&> {
  static Tensor& get(IValue& v) { return v.toTensor(); }
};
template <>
struct FromIValue<double> {
  static double get(IValue& v) { return v.toDouble(); }
};
template <>
struct FromIValue<int64_t> {
  static int64_t get(IValue& v) { return v.toInt(); }
};
template <>
struct FromIValue<bool> {
  static bool get(IValue& v) { return v.toBool(); }
};
template <>
struct FromIValue<const Scalar&> {
  static Scalar get(IValue& v) { return v.toScalar(); }
};
template <>
struct FromIValue<IntArrayRef> {
  static IntArrayRef get(IValue& v) { return v.toIntList(); }
};
template <>
struct FromIValue<ArrayRef<double>> {
  static ArrayRef<double> get(IValue& v) { return v.toDoubleVector(); }
};
template <size_t N>
struct FromIValue<std::array<bool, N>> {
  static std::array<bool, N> get(IValue& v) {
    const auto& l = v.toBoolVector();
    EMBER_CHECK(l.size() == N, "expected a list of {} bools, got {}", N, l.size());
    std::array<bool, N> r{};
    for (size_t i = 0; i < N; ++i) r[i] = l[i];
    return r;
  }
};
template <>
struct FromIValue<std::string_view> {
  static std::string_view get(IValue& v) { return v.toStringView(); }
};
template <>
struct FromIValue<const std::vector<Tensor>&> {
  static const std::vector<Tensor>& get(IValue& v) { return v.toTensorVector(); }
};
template <>
struct FromIValue<const std::vector<std::optional<Tensor>>&> {
  static std::vector<std::optional<Tensor>> get(IValue& v) {
    std::vector<std::optional<Tensor>> r;
    if (v.isTensorList()) {
      for (const auto& t : v.toTensorVector()) r.emplace_back(t);
      return r;
    }
    for (const auto& e : v.toListRef())
      r.push_back(e.isNone() ? std::nullopt : std::optional<Tensor>(e.toTensor()));
    return r;
  }
};
template <>
struct FromIValue<ScalarType> {
  static ScalarType get(IValue& v) { return v.toScalarType(); }
};
template <>
struct FromIValue<Layout> {
  static Layout get(IValue& v) { return v.toLayout(); }
};
template <>
struct FromIValue<QScheme> {
  static QScheme get(IValue& v) { return v.toQScheme(); }
};
template <>
struct FromIValue<MemoryFormat> {
  static MemoryFormat get(IValue& v) { return v.toMemoryFormat(); }
};
template <>
struct FromIValue<Device> {
  static Device get(IValue& v) { return v.toDevice(); }
};
template <>
struct FromIValue<Generator> {
  static Generator get(IValue& v) { return v.toGenerator(); }
};
template <>
struct FromIValue<Stream> {
  static Stream get(IValue& v) { return v.toStream(); }
};
template <>
struct FromIValue<std::complex<double>> {
  static std::complex<double> get(IValue& v) { return v.toComplexDouble(); }
};
template <>
struct FromIValue<const std::optional<Tensor>&> {
  static std::optional<Tensor> get(IValue& v) {
    return v.isNone() ? std::nullopt : std::optional<Tensor>(v.toTensor());
  }
};
template <>
struct FromIValue<const std::optional<Scalar>&> {
  static std::optional<Scalar> get(IValue& v) {
    return v.isNone() ? std::nullopt : std::optional<Scalar>(v.toScalar());
  }
};
template <class T>
struct FromIValue<std::optional<T>> {
  static std::optional<T> get(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return std::optional<T>(FromIValue<T>::get(v));
  }
};

// ---- C++ value -> IValue (results, and arguments boxed for a boxed kernel) -------------------
inline IValue to_ivalue(const Tensor& t) { return IValue(t); }
inline IValue to_ivalue(Tensor&& t) { return IValue(std::move(t)); }
inline IValue to_ivalue(const std::vector<std::optional<Tensor>>& v) {
  std::vector<IValue> l;
  l.reserve(v.size());
  for (const auto& t : v) l.emplace_back(t);
  return IValue::make_list(std::move(l));
}
template <class T>
struct IsBoolArray : std::false_type {};
template <size_t N>
struct IsBoolArray<std::array<bool, N>> : std::true_type {};
template <class T>
IValue to_ivalue(T&& v) {
  if constexpr (IsBoolArray<std::decay_t<T>>::value) {  // bool[N] output masks: a bool list
    return IValue(std::vector<bool>(v.begin(), v.end()));
  } else {
    return IValue(std::forward<T>(v));
  }
}

template <class T>
void push_result(Stack* s, T&& r) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, std::tuple<>>) {
  } else if constexpr (requires { std::tuple_size<D>::value; }) {
    std::apply([&](auto&&... e) { (s->emplace_back(to_ivalue(std::forward<decltype(e)>(e))), ...); },
               std::forward<T>(r));
  } else {
    s->emplace_back(to_ivalue(std::forward<T>(r)));
  }
}

// ---- function traits ---------------------------------------------------------------------
template <class F>
struct FnTraits;
template <class R, class... A>
struct FnTraits<R(A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
  static constexpr bool takes_keyset = false;
  using Sig = R(A...);
};
template <class R, class... A>
struct FnTraits<R(DispatchKeySet, A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
  static constexpr bool takes_keyset = true;
  using Sig = R(A...);
};
template <class R, class... A>
struct FnTraits<R (*)(A...)> : FnTraits<R(A...)> {};
template <class C, class R, class... A>
struct FnTraits<R (C::*)(A...) const> : FnTraits<R(A...)> {};
template <class C, class R, class... A>
struct FnTraits<R (C::*)(A...)> : FnTraits<R(A...)> {};

// ---- unboxed adapters --------------------------------------------------------------------
// Calls a plain function pointer stored in the functor slot.
template <class FnPtr, bool Keys, class Ret, class... Args>
Ret call_fnptr(OperatorKernel* f, DispatchKeySet ks, Args... a) {
  auto fn = reinterpret_cast<FnPtr>(f);
  if constexpr (Keys) return fn(ks.below_highest(), std::forward<Args>(a)...);
  else return fn(std::forward<Args>(a)...);
}
// Calls a function known at compile time (EMBER_FN): no second indirect call.
template <auto Fn, bool Keys, class Ret, class... Args>
Ret call_static(OperatorKernel*, DispatchKeySet ks, Args... a) {
  if constexpr (Keys) return Fn(ks.below_highest(), std::forward<Args>(a)...);
  else return Fn(std::forward<Args>(a)...);
}
template <class L>
struct LambdaKernel final : OperatorKernel {
  explicit LambdaKernel(L l) : fn(std::move(l)) {}
  L fn;
};
template <class L, bool Keys, class Ret, class... Args>
Ret call_lambda(OperatorKernel* f, DispatchKeySet ks, Args... a) {
  auto& fn = static_cast<LambdaKernel<L>*>(f)->fn;
  if constexpr (Keys) return fn(ks.below_highest(), std::forward<Args>(a)...);
  else return fn(std::forward<Args>(a)...);
}

// What the boxed adapter holds a result as: a value, never a reference. In-place and out=
// kernels return references to their arguments (Tensor&, std::tuple<Tensor&, Tensor&>), which
// live in the stack slots the adapter drops before it pushes the results.
template <class T>
struct OwnedResult {
  using type = std::decay_t<T>;
};
template <class... T>
struct OwnedResult<std::tuple<T...>> {
  using type = std::tuple<std::decay_t<T>...>;
};

// The boxed face of an unboxed kernel: pops its arguments, pushes its results.
template <class Ret, class... Args>
struct BoxedAdapter {
  using Unboxed = Ret (*)(OperatorKernel*, DispatchKeySet, Args...);
  template <Unboxed U>
  static void call(OperatorKernel* f, const OperatorHandle&, DispatchKeySet ks, Stack* s) {
    constexpr size_t n = sizeof...(Args);
    IValue* base = s->end() - n;
    if constexpr (std::is_void_v<Ret>) {
      invoke<U>(f, ks, base, std::index_sequence_for<Args...>{});
      s->drop(n);
    } else {
      // Own the results before the arguments go: see OwnedResult.
      typename OwnedResult<Ret>::type r = invoke<U>(f, ks, base, std::index_sequence_for<Args...>{});
      s->drop(n);
      push_result(s, std::move(r));
    }
  }
  template <Unboxed U, size_t... I>
  static decltype(auto) invoke(OperatorKernel* f, DispatchKeySet ks, IValue* base,
                               std::index_sequence<I...>) {
    return U(f, ks, FromIValue<Args>::get(base[I])...);
  }
};

}  // namespace ember::detail

namespace ember::detail {

// A captureless lambda is default-constructible in C++20: call a fresh one, no functor load.
template <class L, bool Keys, class Ret, class... Args>
Ret call_empty_lambda(OperatorKernel*, DispatchKeySet ks, Args... a) {
  if constexpr (Keys) return L{}(ks.below_highest(), std::forward<Args>(a)...);
  else return L{}(std::forward<Args>(a)...);
}

// ---- version-bumping variants (Note [Version counters] in KernelFunction.h) ---------------
// A `Tensor&` argument is a `Tensor(a!)` of the schema (the signature check enforces it).
EMBER_ALWAYS_INLINE void bump_if_written(Tensor& t) {
  if (t.defined()) t.unsafeGetTensorImpl()->bump_version();
}
template <class T>
EMBER_ALWAYS_INLINE void bump_if_written(const T&) {}

// Runs the adapter U (known at compile time: a direct call), then bumps every written argument.
// A kernel that throws bumps nothing.
template <auto U, class Ret, class... Args>
Ret call_bumping(OperatorKernel* f, DispatchKeySet ks, Args... a) {
  if constexpr (std::is_void_v<Ret>) {
    U(f, ks, std::forward<Args>(a)...);
    (bump_if_written(a), ...);
  } else {
    Ret r = U(f, ks, std::forward<Args>(a)...);
    (bump_if_written(a), ...);
    return r;
  }
}

// Builds the table entry (unboxed entry, boxed adapter) for each way of giving a kernel.
template <class Ret, class ArgsTuple>
struct KernelMaker;
template <class Ret, class... Args>
struct KernelMaker<Ret, std::tuple<Args...>> {
  using Unboxed = Ret (*)(OperatorKernel*, DispatchKeySet, Args...);
  // A kernel whose C++ types have no boxed form (it cannot match any schema, so registration
  // refuses it with the signature message) gets a boxed entry that says so.
  static constexpr bool kBoxable = (requires(IValue& v) { FromIValue<Args>::get(v); } && ...);
  template <Unboxed U>
  static KernelFunction make(OperatorKernel* functor) {
    if constexpr (kBoxable)
      return KernelFunction{reinterpret_cast<void*>(U), &BoxedAdapter<Ret, Args...>::template call<U>, functor};
    else
      return KernelFunction{reinterpret_cast<void*>(U), &unboxable, functor};
  }
  static void unboxable(OperatorKernel*, const OperatorHandle&, DispatchKeySet, Stack*) {
    EMBER_THROW(NotImplementedError, "[boxing] kernel {} has argument types with no boxed form",
                make_cpp_signature<Ret, Args...>().str());
  }
  template <class FnPtr, bool Keys>
  static KernelFunction fnptr(FnPtr f) {
    return make<&call_fnptr<FnPtr, Keys, Ret, Args...>>(reinterpret_cast<OperatorKernel*>(f));
  }
  template <auto Fn, bool Keys>
  static KernelFunction fixed() {
    return make<&call_static<Fn, Keys, Ret, Args...>>(nullptr);
  }
  template <class L, bool Keys>
  static KernelFunction lambda(OperatorKernel* k) {
    return make<&call_lambda<L, Keys, Ret, Args...>>(k);
  }
  template <class L, bool Keys>
  static KernelFunction empty_lambda() {
    return make<&call_empty_lambda<L, Keys, Ret, Args...>>(nullptr);
  }
  static CppSignature signature() { return make_cpp_signature<Ret, Args...>(); }

  // The same entries, bumping the version of every `Tensor&` argument after the kernel returns;
  // an empty KernelFunction when the kernel has none (see Note [Version counters]).
  static constexpr bool kWrites = (std::is_same_v<Args, Tensor&> || ...);
  template <Unboxed U>
  static KernelFunction make_bumping(OperatorKernel* functor) {
    if constexpr (kWrites)
      return make<&call_bumping<U, Ret, Args...>>(functor);
    else
      return KernelFunction{};
  }
  template <class FnPtr, bool Keys>
  static KernelFunction fnptr_bumping(FnPtr f) {
    return make_bumping<&call_fnptr<FnPtr, Keys, Ret, Args...>>(reinterpret_cast<OperatorKernel*>(f));
  }
  template <auto Fn, bool Keys>
  static KernelFunction fixed_bumping() {
    return make_bumping<&call_static<Fn, Keys, Ret, Args...>>(nullptr);
  }
  template <class L, bool Keys>
  static KernelFunction lambda_bumping(OperatorKernel* k) {
    return make_bumping<&call_lambda<L, Keys, Ret, Args...>>(k);
  }
  template <class L, bool Keys>
  static KernelFunction empty_lambda_bumping() {
    return make_bumping<&call_empty_lambda<L, Keys, Ret, Args...>>(nullptr);
  }
};

}  // namespace ember::detail
