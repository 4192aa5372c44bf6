#pragma once
// Helpers shared by the safetensors suites.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../unit/UnitTestUtil.h"
#include "ember/ember.h"

namespace ember::sttest {

using test::error_of;
using Dict = OrderedDict<std::string, Tensor>;

// The dtypes safetensors and Ember share, with their format names.
inline const std::vector<std::pair<ScalarType, std::string>>& shared_dtypes() {
  static const std::vector<std::pair<ScalarType, std::string>> v = {
      {kBool, "BOOL"}, {kUInt8, "U8"},    {kInt8, "I8"},       {kInt16, "I16"},   {kInt32, "I32"},
      {kInt64, "I64"}, {kFloat16, "F16"}, {kBFloat16, "BF16"}, {kFloat32, "F32"}, {kFloat64, "F64"},
  };
  return v;
}

// Element i of the test pattern, the same as interop.py's: bool i % 2 == 1, uint8 40 i mod 256,
// signed integers i - 3, floating (i - 3) / 2 (exact in every floating dtype).
inline Tensor pattern(ScalarType dt, std::vector<int64_t> shape) {
  Tensor t = make_empty(shape, dt, kCPU);
  const int64_t n = t.numel();
  auto fill = [&](auto* p, auto f) {
    for (int64_t i = 0; i < n; ++i) p[i] = f(i);
  };
  switch (dt) {
    case kBool:
      fill(t.data_ptr<bool>(), [](int64_t i) { return i % 2 == 1; });
      break;
    case kUInt8:
      fill(t.data_ptr<uint8_t>(), [](int64_t i) { return static_cast<uint8_t>(i * 40 % 256); });
      break;
    case kInt8:
      fill(t.data_ptr<int8_t>(), [](int64_t i) { return static_cast<int8_t>(i - 3); });
      break;
    case kInt16:
      fill(t.data_ptr<int16_t>(), [](int64_t i) { return static_cast<int16_t>(i - 3); });
      break;
    case kInt32:
      fill(t.data_ptr<int32_t>(), [](int64_t i) { return static_cast<int32_t>(i - 3); });
      break;
    case kInt64:
      fill(t.data_ptr<int64_t>(), [](int64_t i) { return i - 3; });
      break;
    case kFloat16:
      fill(t.data_ptr<Half>(), [](int64_t i) { return Half(static_cast<float>(i - 3) / 2); });
      break;
    case kBFloat16:
      fill(t.data_ptr<BFloat16>(), [](int64_t i) { return BFloat16(static_cast<float>(i - 3) / 2); });
      break;
    case kFloat32:
      fill(t.data_ptr<float>(), [](int64_t i) { return static_cast<float>(i - 3) / 2; });
      break;
    case kFloat64:
      fill(t.data_ptr<double>(), [](int64_t i) { return static_cast<double>(i - 3) / 2; });
      break;
    default:
      ADD_FAILURE() << "no pattern for " << dt;
  }
  return t;
}

// Same dtype, shape and bytes (in C order).
inline ::testing::AssertionResult same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return ::testing::AssertionFailure() << "dtype " << a.dtype() << " vs " << b.dtype();
  if (a.sizes().vec() != b.sizes().vec())
    return ::testing::AssertionFailure() << "shape " << a.sizes() << " vs " << b.sizes();
  Tensor ca = a.contiguous(), cb = b.contiguous();
  if (a.nbytes() && std::memcmp(ca.data_ptr(), cb.data_ptr(), a.nbytes()) != 0)
    return ::testing::AssertionFailure() << "values differ:\n" << a << "\nvs\n" << b;
  return ::testing::AssertionSuccess();
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// A fresh directory per test, removed after it.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("ember_serialize_") + info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

}  // namespace ember::sttest
