#pragma once
// Internal to the meta plugin: the Meta kernels it defines are declared by the code generator
// (ember/generated/MetaFunctions.h, from the `dispatch:` lines of schemas/ops.yaml), with the
// exact C++ signature of the cpu kernel of the same operator, and registered by the generated
// RegisterMeta.cpp. Structured families need none: their Meta kernel is the shared meta function.
#include <optional>

#include "ember/generated/MetaFunctions.h"

namespace ember::meta {

using OptDtype = std::optional<ScalarType>;
using OptLayout = std::optional<Layout>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;
using OptScalar = std::optional<Scalar>;

}  // namespace ember::meta
