#pragma once
// Boxed calls by name: ember::ops::call("myops::scale", x, 3.0).
#include <string_view>

#include "ember/dispatcher/Dispatcher.h"

namespace ember {
namespace detail {
// Resolves "ns::name[.overload]" (without an overload: the overload whose schema accepts the
// given arguments), fills omitted trailing arguments from the schema's defaults, calls, and
// returns the single result (None for none, a Tuple for several).
EMBER_API IValue call_by_name(std::string_view qualified_name, Stack& args);
// The default of a schema argument as an IValue (ValueError naming the op when it has none).
EMBER_API IValue default_ivalue(const FunctionSchema& s, const Argument& a);
}  // namespace detail

namespace ops {
template <class... A>
IValue call(std::string_view qualified_name, A&&... args) {
  Stack s;
  (s.emplace_back(detail::to_ivalue(std::forward<A>(args))), ...);
  return detail::call_by_name(qualified_name, s);
}
}  // namespace ops
}  // namespace ember
