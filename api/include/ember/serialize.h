#pragma once
// Saving and loading tensors as safetensors files (the Hugging Face format, read and written by the
// Python `safetensors` package).
//
// Note [safetensors]
// ~~~~~~~~~~~~~~~~~~
// A file is an 8-byte little-endian header length N, N bytes of JSON
// ({"__metadata__": {str: str}, name: {"dtype", "shape", "data_offsets": [begin, end]}}), then
// the data section, each tensor's bytes in C order at its offsets. Ember follows the reference
// implementation (Rust `safetensors`, which the Python package wraps):
// - The writer orders tensors by dtype descending in the reference's dtype order (I64 F64 F32
//   I32 BF16 F16 I16 I8 U8 BOOL among Ember's), then by name, writes the JSON compact with
//   `__metadata__` first, and pads it with spaces to a multiple of 8, so the bytes equal the
//   Python package's for the same tensors. A non-contiguous tensor is written in C order. The file
//   is written beside the target and renamed over it, so tensors still mapped from an old file at
//   that path keep their data.
// - The reader checks what the reference checks (header length within 100 MB and the file, UTF-8
//   JSON object, each entry's dtype, shape and data_offsets, offsets contiguous from 0 without
//   gaps or overlaps, byte size = numel x itemsize without overflow, the data section covered to
//   its end) and also rejects duplicate keys, which the reference lets the last one win. Unknown
//   fields in an entry are ignored, as the reference does. Errors are ValueError "[fn] file
//   'path': problem"; a format dtype Ember lacks (U16, F8_*, C64, ...) is NotImplementedError.
// - load() maps the file copy-on-write (mmap MAP_PRIVATE) and returns tensors viewing the
//   mapping: nothing is read until used, writing to a tensor copies only the touched pages and
//   never changes the file, and the mapping lives until the last tensor from it goes. An entry
//   whose offset is not aligned for its dtype (a header length that is not a multiple of 8) is
//   copied instead, as is a BOOL entry with bytes other than 0 and 1 (made 1: true, as numpy
//   reads them). Entries come back in the file's order, which is offset order.
// The format layer (api/src/serialize/SafetensorsFormat.h) holds no tensors, so the fuzz target
// (tests/serialize) compiles it alone under sanitizers.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ember/OrderedDict.h"
#include "ember/dispatcher/Tensor.h"

namespace ember {

// Writes `tensors` to a safetensors file at `path` (no metadata). Tensors on any device are
// copied to the CPU; requires_grad is not saved.
EMBER_API void save(const OrderedDict<std::string, Tensor>& tensors, const std::string& path);
// Reads a safetensors file: CPU tensors viewing a private mapping of it, in the file's order.
EMBER_API OrderedDict<std::string, Tensor> load(const std::string& path);

namespace safetensors {

// The header's free-form `__metadata__` (strings to strings).
using Metadata = std::map<std::string, std::string>;

// As ember::save, with `__metadata__` (omitted when empty, as Python's metadata=None).
EMBER_API void save_file(const OrderedDict<std::string, Tensor>& tensors, const std::string& path,
                         const Metadata& metadata = {});
// As ember::load.
EMBER_API OrderedDict<std::string, Tensor> load_file(const std::string& path);
// A file's `__metadata__` (empty when it has none). The file's format is checked as load checks it,
// but its tensors are not made, so dtypes Ember lacks are no error here.
EMBER_API Metadata load_metadata(const std::string& path);

// In memory, as Python's safetensors.numpy.save / load: the file's bytes.
EMBER_API std::vector<uint8_t> save(const OrderedDict<std::string, Tensor>& tensors, const Metadata& metadata = {});
// Reads a file's bytes; the tensors are copies (they do not refer to `data`).
EMBER_API OrderedDict<std::string, Tensor> load(const uint8_t* data, size_t size);
EMBER_API OrderedDict<std::string, Tensor> load(const std::vector<uint8_t>& bytes);

}  // namespace safetensors
}  // namespace ember
