// The meta plugin's descriptor. Its kernels are declared and registered by generated code
// (ember/generated/MetaFunctions.h, RegisterMeta.cpp) from the `dispatch:` lines of
// schemas/ops.yaml.
//
// Note [Meta backend]
// ~~~~~~~~~~~~~~~~~~~
// A meta tensor (device kMeta) has sizes, strides, a dtype and a storage of the right size whose
// data pointer is null: core's Meta allocator allocates nothing, and data_ptr<T>() and item()
// throw. Meta kernels compute exactly what the cpu kernels compute except the values: the dtype
// rules and argument checks are the same functions (ember/native/Rules.h), elementwise geometry
// is the same TensorIter (ember/native/Geometry.h) built on kMeta, and other outputs are
// contiguous, as the cpu kernels' are. Copies and fills only check their arguments.
//
// A structured family (Note [Structured kernels]) has no kernel here: its Meta kernel is the
// family's shared meta function, registered by RegisterMeta.cpp. The composites (views,
// zeros/ones/full/*_like, to/_to_copy/clone/contiguous, reshape, flatten, stack, repeat, matmul,
// rand*, conv2d, ...) live in libember and are device-generic, so a meta call reaches them and
// they dispatch empty, copy_, fill_ and the primitives, which land here: this plugin depends on
// no backend.
//
// Adding the Meta kernel of a non-structured op: move the dtype rule and argument checks of its
// cpu kernel into ember/native/Rules.h (the cpu kernel calls them too), write the meta kernel
// from them in the file named as the cpu kernel's (meta/reduction.cpp for cpu/reduction.cpp,
// ...; shared steps in MetaHelpers.h), and add `Meta` to the op's `dispatch:` line. An op whose
// result size depends on the values (nonzero, masked_select, a bool mask index) checks its
// arguments, then raises NotImplementedError ("data-dependent output shape"), as PyTorch's meta
// tensors do.
#include "ember/plugin/Plugin.h"

EMBER_PLUGIN("meta", EMBER_VERSION_STRING)
