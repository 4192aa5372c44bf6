// The IDX reader: zlib's gz* functions read gzip'd and raw files alike (gzread passes a file
// without the gzip magic through unchanged).
#include "ember/data/Idx.h"

#include <zlib.h>

#include <array>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <vector>

#include "ember/api/Operators.h"
#include "ember/core/Exception.h"

namespace ember::data {
namespace {

struct IdxType {
  uint8_t code;
  ScalarType dtype;
  const char* name;
};
constexpr std::array<IdxType, 6> kIdxTypes = {{{0x08, kUInt8, "u8"},
                                               {0x09, kInt8, "i8"},
                                               {0x0B, kInt16, "i16"},
                                               {0x0C, kInt32, "i32"},
                                               {0x0D, kFloat32, "f32"},
                                               {0x0E, kFloat64, "f64"}}};

// Deflate expands at most 1032:1, so a gzip file of n bytes holds at most this many.
constexpr uint64_t kMaxDeflateRatio = 1032;

class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    EMBER_CHECK(std::filesystem::exists(status), "[read_idx] cannot open '{}': no such file", path);
    EMBER_CHECK(!std::filesystem::is_directory(status), "[read_idx] cannot open '{}': it is a directory", path);
    file_size_ = std::filesystem::file_size(path, ec);
    EMBER_CHECK(!ec, "[read_idx] cannot open '{}': {}", path, ec.message());
    errno = 0;
    f_ = gzopen(path.c_str(), "rb");
    EMBER_CHECK(f_ != nullptr, "[read_idx] cannot open '{}': {}", path,
                errno != 0 ? std::strerror(errno) : "out of memory");
    gzbuffer(f_, 1 << 17);
  }
  ~GzFile() { gzclose(f_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  // Reads up to n bytes; fewer only at the end of the data. A zlib error (corrupt or truncated
  // gzip stream) throws.
  uint64_t read(void* dst, uint64_t n) {
    auto* p = static_cast<char*>(dst);
    uint64_t done = 0;
    while (done < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<uint64_t>(n - done, 1u << 30));
      const int got = gzread(f_, p + done, chunk);
      if (got < 0) throw_gz_error();
      done += static_cast<uint64_t>(got);
      if (static_cast<unsigned>(got) < chunk) {
        int err = Z_OK;
        gzerror(f_, &err);
        if (err != Z_OK) throw_gz_error();
        break;
      }
    }
    return done;
  }

  // The bytes left, read and counted in chunks (for the error message of a short file).
  uint64_t count_rest() {
    std::vector<char> scratch(1 << 16);
    uint64_t total = 0;
    for (uint64_t got; (got = read(scratch.data(), scratch.size())) > 0;) total += got;
    return total;
  }

  bool compressed() const { return gzdirect(f_) == 0; }
  uint64_t file_size() const { return file_size_; }

 private:
  [[noreturn]] void throw_gz_error() {
    int err = Z_OK;
    std::string msg = gzerror(f_, &err);
    // zlib leads its message with the path.
    if (msg.starts_with(path_ + ": ")) msg.erase(0, path_.size() + 2);
    if (err == Z_ERRNO) EMBER_THROW(ValueError, "[read_idx] '{}': read error: {}", path_, std::strerror(errno));
    if (err == Z_BUF_ERROR)
      EMBER_THROW(ValueError, "[read_idx] '{}': truncated gzip stream (unexpected end of file)", path_);
    EMBER_THROW(ValueError, "[read_idx] '{}': corrupt gzip stream: {}", path_, msg);
  }

  std::string path_;
  uint64_t file_size_ = 0;
  gzFile f_ = nullptr;
};

// Big-endian elements of `itemsize` bytes to the host's order, in place.
void to_host_order(void* data, int64_t count, size_t itemsize) {
  if constexpr (std::endian::native == std::endian::big) return;
  auto* p = static_cast<unsigned char*>(data);
  auto swap_all = [&](auto tag, auto bswap) {
    using U = decltype(tag);
    for (int64_t i = 0; i < count; ++i) {
      U v;
      std::memcpy(&v, p + i * sizeof(U), sizeof(U));
      v = bswap(v);
      std::memcpy(p + i * sizeof(U), &v, sizeof(U));
    }
  };
  if (itemsize == 2) swap_all(uint16_t{}, [](uint16_t v) { return __builtin_bswap16(v); });
  if (itemsize == 4) swap_all(uint32_t{}, [](uint32_t v) { return __builtin_bswap32(v); });
  if (itemsize == 8) swap_all(uint64_t{}, [](uint64_t v) { return __builtin_bswap64(v); });
}

std::string shape_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

Tensor read_idx(const std::string& path) {
  GzFile f(path);
  std::array<unsigned char, 4> magic{};
  const uint64_t got_magic = f.read(magic.data(), 4);
  EMBER_CHECK(got_magic == 4, "[read_idx] '{}': truncated header: expected a 4-byte magic number, got {} bytes", path,
              got_magic);
  EMBER_CHECK(magic[0] == 0 && magic[1] == 0,
              "[read_idx] '{}': not an IDX file: the magic number {:02x} {:02x} {:02x} {:02x} must start with two zero "
              "bytes",
              path, magic[0], magic[1], magic[2], magic[3]);
  const IdxType* type = nullptr;
  for (const auto& t : kIdxTypes)
    if (t.code == magic[2]) type = &t;
  EMBER_CHECK(
      type != nullptr,
      "[read_idx] '{}': unknown IDX type code 0x{:02X} (expected 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32 "
      "or 0x0E f64)",
      path, magic[2]);
  const int ndim = magic[3];

  std::vector<unsigned char> raw_dims(4 * static_cast<size_t>(ndim));
  const uint64_t got_dims = f.read(raw_dims.data(), raw_dims.size());
  EMBER_CHECK(got_dims == raw_dims.size(),
              "[read_idx] '{}': truncated header: expected {} bytes of dimensions ({} dimensions), got {}", path,
              raw_dims.size(), ndim, got_dims);
  std::vector<int64_t> dims(ndim);
  const size_t itemsize = element_size(type->dtype);
  int64_t nbytes = static_cast<int64_t>(itemsize);
  for (int d = 0; d < ndim; ++d) {
    const unsigned char* b = &raw_dims[4 * d];
    dims[d] = (int64_t{b[0]} << 24) | (int64_t{b[1]} << 16) | (int64_t{b[2]} << 8) | int64_t{b[3]};
    EMBER_CHECK(!__builtin_mul_overflow(nbytes, dims[d], &nbytes),
                "[read_idx] '{}': the dimensions {} of {} overflow a 64-bit byte count", path,
                shape_string(std::vector<int64_t>(dims.begin(), dims.begin() + d + 1)), type->name);
  }
  const uint64_t header = 4 + raw_dims.size();
  const uint64_t most =
      f.compressed() ? f.file_size() * kMaxDeflateRatio : (f.file_size() > header ? f.file_size() - header : 0);
  if (static_cast<uint64_t>(nbytes) > most)
    EMBER_THROW(ValueError, "[read_idx] '{}': truncated data: expected {} bytes for shape {} of {}, got {}", path,
                nbytes, shape_string(dims), type->name, f.count_rest());

  Tensor out = empty(dims, type->dtype);
  const uint64_t got = f.read(out.data_ptr(), static_cast<uint64_t>(nbytes));
  EMBER_CHECK(got == static_cast<uint64_t>(nbytes),
              "[read_idx] '{}': truncated data: expected {} bytes for shape {} of {}, got {}", path, nbytes,
              shape_string(dims), type->name, got);
  const uint64_t extra = f.count_rest();  // also makes zlib check the gzip trailer (CRC and length)
  EMBER_CHECK(extra == 0, "[read_idx] '{}': {} unexpected bytes after the data (shape {} of {})", path, extra,
              shape_string(dims), type->name);
  to_host_order(out.data_ptr(), out.numel(), itemsize);
  return out;
}

}  // namespace ember::data
