#pragma once
// Helpers shared by the data suites: IDX byte fixtures, gzip, a scratch directory.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"

namespace ember::datatest {

using Bytes = std::vector<unsigned char>;
using ember::test::error_of;

// The values of a tensor, row-major, as T.
template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = t.contiguous();
  const T* p = c.data_ptr<T>();
  return std::vector<T>(p, p + c.numel());
}

// The IDX header: two zero bytes, the type code, the dimension count, the dims big-endian.
inline Bytes idx_header(uint8_t code, const std::vector<uint32_t>& dims) {
  Bytes b = {0, 0, code, static_cast<unsigned char>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(d >> s));
  return b;
}

// The elements big-endian, as IDX stores them.
template <class T>
Bytes big_endian(const std::vector<T>& vals) {
  Bytes b;
  for (T v : vals) {
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));
    if constexpr (std::endian::native == std::endian::little)
      for (size_t i = sizeof(T); i-- > 0;) b.push_back(raw[i]);
    else
      b.insert(b.end(), raw, raw + sizeof(T));
  }
  return b;
}

inline Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The gzip file (one member) of `data`, as gzip(1) writes it.
inline Bytes gzip(const Bytes& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&zs, data.size()) + 64);
  zs.next_in = const_cast<unsigned char*>(data.data());
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A fresh directory per test, removed afterwards.
class ScratchDir : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("ember_data_" + std::to_string(::getpid()) + "_" + info->name() + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const Bytes& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  std::filesystem::path dir_;
};

// The message of the ErrType that f() throws, or a note saying what happened instead.
template <class ErrType, class F>
std::string error_of_type(F&& f) {
  try {
    f();
  } catch (const ErrType& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

}  // namespace ember::datatest
