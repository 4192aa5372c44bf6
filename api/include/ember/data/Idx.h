#pragma once
// The IDX file format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/): a 4-byte
// magic number (two zero bytes, a type code, the number of dimensions), the dimensions as
// big-endian uint32, then the elements in C order, big-endian.
#include <string>

#include "ember/dispatcher/Tensor.h"

namespace ember::data {

// Reads an IDX file, raw or gzip-compressed (told apart by the gzip magic bytes, as zlib's gzread
// does), into a CPU tensor of the file's shape and dtype: type code 0x08 -> kUInt8, 0x09 kInt8,
// 0x0B kInt16, 0x0C kInt32, 0x0D kFloat32, 0x0E kFloat64. A file that is missing, malformed,
// truncated, or has bytes after the data throws ValueError naming the file and the problem; a
// header that declares more data than the file can hold fails before anything that large is
// allocated.
EMBER_API Tensor read_idx(const std::string& path);

}  // namespace ember::data
