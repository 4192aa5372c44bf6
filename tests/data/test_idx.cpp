// read_idx: every type code, raw and gzip'd, and every way a file can be malformed.
#include <cmath>
#include <limits>

#include "DataTestUtil.h"

namespace {

using namespace ember::datatest;
using ember::data::read_idx;

class Idx : public ScratchDir {
 protected:
  // Writes the fixture raw and gzip'd, reads both, checks dtype, shape and values.
  template <class T>
  void check_round_trip(uint8_t code, ember::ScalarType dtype, const std::vector<uint32_t>& dims,
                        const std::vector<T>& vals) {
    const Bytes file = concat(idx_header(code, dims), big_endian(vals));
    for (const std::string& path : {write("x.idx", file), write("x.idx.gz", gzip(file))}) {
      SCOPED_TRACE(path);
      const ember::Tensor t = read_idx(path);
      EXPECT_EQ(t.scalar_type(), dtype);
      EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                std::vector<int64_t>(dims.begin(), dims.end()));
      EXPECT_TRUE(t.is_contiguous());
      const std::vector<T> got = values<T>(t);
      ASSERT_EQ(got.size(), vals.size());
      for (size_t i = 0; i < vals.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(vals[i])) {
            EXPECT_TRUE(std::isnan(got[i])) << i;
            continue;
          }
          EXPECT_EQ(std::signbit(got[i]), std::signbit(vals[i])) << i;
        }
        EXPECT_EQ(got[i], vals[i]) << i;
      }
    }
  }
};

TEST_F(Idx, ReadsEveryTypeCodeRawAndGzipped) {
  check_round_trip<uint8_t>(0x08, ember::kUInt8, {2, 3}, {0, 1, 127, 128, 254, 255});
  check_round_trip<int8_t>(0x09, ember::kInt8, {6}, {-128, -1, 0, 1, 100, 127});
  check_round_trip<int16_t>(0x0B, ember::kInt16, {3, 2}, {-32768, -2, 0, 258, 1000, 32767});
  check_round_trip<int32_t>(0x0C, ember::kInt32, {1, 2, 3},
                            {std::numeric_limits<int32_t>::min(), -70000, 0, 1, 0x01020304, 0x7fffffff});
  const float inf = std::numeric_limits<float>::infinity();
  check_round_trip<float>(0x0D, ember::kFloat32, {2, 3}, {-1.5f, -0.0f, 3.25f, 1e-40f, inf, 123456.789f});
  check_round_trip<double>(0x0E, ember::kFloat64, {2, 2},
                           {3.141592653589793, -2.5e-300, std::numeric_limits<double>::quiet_NaN(), -0.0});
}

TEST_F(Idx, ReadsEmptyAndScalarShapes) {
  check_round_trip<uint8_t>(0x08, ember::kUInt8, {0, 28, 28}, {});
  check_round_trip<int32_t>(0x0C, ember::kInt32, {}, {-5});  // no dims: one element, as torchvision reads it
}

TEST_F(Idx, ReadsAGzipFileOfSeveralMembers) {
  // gzip allows concatenated members (cat a.gz b.gz); the header and data may be split across them.
  const Bytes header = idx_header(0x0B, {2});
  const Bytes data = big_endian<int16_t>({-7, 300});
  const std::string path = write("multi.gz", concat(gzip(header), gzip(data)));
  EXPECT_EQ(values<int16_t>(read_idx(path)), (std::vector<int16_t>{-7, 300}));
}

TEST_F(Idx, MissingFileAndDirectory) {
  const std::string missing = (dir_ / "nope.idx").string();
  EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(missing); }),
            "[read_idx] cannot open '" + missing + "': no such file");
  EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(dir_.string()); }),
            "[read_idx] cannot open '" + dir_.string() + "': it is a directory");
}

TEST_F(Idx, MalformedHeaders) {
  for (bool gz : {false, true}) {
    SCOPED_TRACE(gz ? "gzip" : "raw");
    auto file = [&](const Bytes& b) { return write(gz ? "bad.idx.gz" : "bad.idx", gz ? gzip(b) : b); };
    std::string p = file({});
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': truncated header: expected a 4-byte magic number, got 0 bytes");
    p = file({0, 0, 8});
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': truncated header: expected a 4-byte magic number, got 3 bytes");
    p = file({0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0});
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': not an IDX file: the magic number 50 4b 03 04 must start with two zero bytes");
    p = file(concat(idx_header(0x0A, {1}), {0}));
    EXPECT_EQ(
        error_of_type<ember::ValueError>([&] { read_idx(p); }),
        "[read_idx] '" + p +
            "': unknown IDX type code 0x0A (expected 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32 or 0x0E f64)");
    Bytes short_dims = idx_header(0x08, {60000, 28, 28});
    short_dims.resize(short_dims.size() - 3);
    p = file(short_dims);
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': truncated header: expected 12 bytes of dimensions (3 dimensions), got 9");
    p = file(idx_header(0x0E, {0xFFFFFFFF, 0xFFFFFFFF}));
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': the dimensions [4294967295, 4294967295] of f64 overflow a 64-bit byte count");
  }
}

TEST_F(Idx, TruncatedAndTrailingData) {
  const Bytes header = idx_header(0x0C, {2, 3});
  const Bytes data = big_endian<int32_t>({1, 2, 3, 4, 5, 6});
  Bytes short_file = concat(header, data);
  short_file.resize(short_file.size() - 5);
  Bytes long_file = concat(concat(header, data), {9, 9, 9});
  for (bool gz : {false, true}) {
    SCOPED_TRACE(gz ? "gzip" : "raw");
    std::string p = write(gz ? "s.gz" : "s.idx", gz ? gzip(short_file) : short_file);
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': truncated data: expected 24 bytes for shape [2, 3] of i32, got 19");
    p = write(gz ? "l.gz" : "l.idx", gz ? gzip(long_file) : long_file);
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': 3 unexpected bytes after the data (shape [2, 3] of i32)");
  }
}

TEST_F(Idx, HugeDeclaredSizeFailsBeforeAllocating) {
  // 2^31-1 squared bytes cannot come out of a file this small (deflate expands at most 1032:1).
  const Bytes file = concat(idx_header(0x08, {0x7FFFFFFF, 0x7FFFFFFF}), {1, 2, 3});
  for (bool gz : {false, true}) {
    const std::string p = write(gz ? "h.gz" : "h.idx", gz ? gzip(file) : file);
    EXPECT_EQ(
        error_of_type<ember::ValueError>([&] { read_idx(p); }),
        "[read_idx] '" + p +
            "': truncated data: expected 4611686014132420609 bytes for shape [2147483647, 2147483647] of u8, got 3");
  }
}

TEST_F(Idx, CorruptOrTruncatedGzipStreams) {
  const Bytes file = concat(idx_header(0x0D, {64}), big_endian(std::vector<float>(64, 0.5f)));
  Bytes gz = gzip(file);
  // Cut inside the deflate data, then inside the 8-byte trailer (CRC-32 and length).
  for (size_t cut : {gz.size() / 2, gz.size() - 3}) {
    const std::string p = write("cut.gz", Bytes(gz.begin(), gz.begin() + static_cast<std::ptrdiff_t>(cut)));
    EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
              "[read_idx] '" + p + "': truncated gzip stream (unexpected end of file)")
        << "cut at " << cut << " of " << gz.size();
  }
  Bytes bad_crc = gz;
  bad_crc[bad_crc.size() - 8] ^= 0xFF;
  std::string p = write("crc.gz", bad_crc);
  EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
            "[read_idx] '" + p + "': corrupt gzip stream: incorrect data check");
  Bytes bad_block = gz;
  bad_block[10] = 0xFF;  // the first deflate block header: type 3 is invalid
  p = write("block.gz", bad_block);
  EXPECT_EQ(error_of_type<ember::ValueError>([&] { read_idx(p); }),
            "[read_idx] '" + p + "': corrupt gzip stream: invalid block type");
}

}  // namespace
