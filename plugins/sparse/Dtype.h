#pragma once
// Internal to the sparse plugin: the dtypes its typed loops (mm, softmax) cover.
#include <cstdint>

#include "ember/core/Exception.h"
#include "ember/core/ScalarType.h"

namespace ember::sparse {

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) for the real dtypes except bool and the 16-bit floats.
template <class F>
decltype(auto) visit_numeric(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::UInt8:
      return f(Tag<uint8_t>{});
    case ScalarType::Int8:
      return f(Tag<int8_t>{});
    case ScalarType::Int16:
      return f(Tag<int16_t>{});
    case ScalarType::Int32:
      return f(Tag<int32_t>{});
    case ScalarType::Int64:
      return f(Tag<int64_t>{});
    case ScalarType::Float32:
      return f(Tag<float>{});
    case ScalarType::Float64:
      return f(Tag<double>{});
    default:
      EMBER_THROW(::ember::NotImplementedError, "[{}] sparse kernels do not support dtype {} yet", op, t);
  }
}

}  // namespace ember::sparse
