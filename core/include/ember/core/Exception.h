#pragma once
// Errors. See Note [Error macros].
//
// Note [Error macros]
// ~~~~~~~~~~~~~~~~~~~
// User errors and internal invariants are separate (as PyTorch's TORCH_CHECK vs
// TORCH_INTERNAL_ASSERT). EMBER_CHECK* throw a typed ember::Error subclass whose message is
// formatted with fmt and led by the operator in brackets, e.g. "[add] ...". The type tells the
// caller what kind of mistake it was: ValueError (a bad value), TypeError (a wrong dtype or C++
// type), IndexError (out of range), NotImplementedError (a path Ember does not have yet; the
// message names what is missing). EMBER_INTERNAL_ASSERT is for bugs in Ember itself.
#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "ember/core/Macros.h"

namespace ember {

class EMBER_API Error : public std::runtime_error {
 public:
  explicit Error(std::string msg) : std::runtime_error(std::move(msg)) {}
  const char* kind() const noexcept { return kind_; }

 protected:
  Error(std::string msg, const char* kind) : std::runtime_error(std::move(msg)), kind_(kind) {}

 private:
  const char* kind_ = "Error";
};

class EMBER_API ValueError : public Error {
 public:
  explicit ValueError(std::string msg) : Error(std::move(msg), "ValueError") {}
};
class EMBER_API TypeError : public Error {
 public:
  explicit TypeError(std::string msg) : Error(std::move(msg), "TypeError") {}
};
class EMBER_API IndexError : public Error {
 public:
  explicit IndexError(std::string msg) : Error(std::move(msg), "IndexError") {}
};
class EMBER_API NotImplementedError : public Error {
 public:
  explicit NotImplementedError(std::string msg) : Error(std::move(msg), "NotImplementedError") {}
};
// A device allocator could not get memory even after releasing its cache (c10::OutOfMemoryError).
class EMBER_API OutOfMemoryError : public Error {
 public:
  explicit OutOfMemoryError(std::string msg) : Error(std::move(msg), "OutOfMemoryError") {}
};
// Internal invariant broken: a bug in Ember, not in the caller's code.
class EMBER_API InternalError : public Error {
 public:
  explicit InternalError(std::string msg) : Error(std::move(msg), "InternalError") {}
};

namespace detail {
[[noreturn]] EMBER_API void throw_internal(const char* cond, const char* file, int line,
                                           const std::string& msg);
template <class E, class... A>
[[noreturn]] EMBER_NOINLINE void throw_error(fmt::format_string<A...> f, A&&... args) {
  throw E(fmt::format(f, std::forward<A>(args)...));
}
}  // namespace detail

}  // namespace ember

// EMBER_CHECK(cond, "[op] format {}", args...) throws ValueError when cond is false.
#define EMBER_CHECK_T(ErrType, cond, ...)                                  \
  do {                                                                     \
    if (EMBER_UNLIKELY(!(cond))) ::ember::detail::throw_error<ErrType>(__VA_ARGS__); \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_T(::ember::ValueError, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_T(::ember::TypeError, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_T(::ember::IndexError, cond, __VA_ARGS__)
#define EMBER_CHECK_NOT_IMPLEMENTED(cond, ...) \
  EMBER_CHECK_T(::ember::NotImplementedError, cond, __VA_ARGS__)
#define EMBER_THROW(ErrType, ...) ::ember::detail::throw_error<ErrType>(__VA_ARGS__)

#define EMBER_INTERNAL_ASSERT(cond, ...)                                                  \
  do {                                                                                    \
    if (EMBER_UNLIKELY(!(cond)))                                                          \
      ::ember::detail::throw_internal(#cond, __FILE__, __LINE__, ::fmt::format("" __VA_ARGS__)); \
  } while (0)

namespace ember {
// A registration refused because another registrant holds the same thing (an operator defined
// twice, two kernels for one key, two fallbacks for one key). The message names both.
class EMBER_API RegistrationConflictError : public ValueError {
 public:
  explicit RegistrationConflictError(std::string msg) : ValueError(std::move(msg)) {}
};
}  // namespace ember
