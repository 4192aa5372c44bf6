#pragma once
// Helpers shared by the unit suites.
#include <exception>
#include <string>

namespace ember::test {

// The message of the exception f() throws, or "<no error>".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace ember::test
