// The one recorder every case writes through (Note [Differential cases against LibTorch]).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "vs_api.h"

namespace vs_test {

// dtype names as LibTorch prints them (torch.float32, ...), the same on both sides.
inline const char* vs_dtype_name(vs::ScalarType t) {
  if (t == vs::kBool) return "bool";
  if (t == vs::kUInt8) return "uint8";
  if (t == vs::kInt8) return "int8";
  if (t == vs::kInt16) return "int16";
  if (t == vs::kInt32) return "int32";
  if (t == vs::kInt64) return "int64";
  if (t == vs::kFloat16) return "float16";
  if (t == vs::kBFloat16) return "bfloat16";
  if (t == vs::kFloat32) return "float32";
  if (t == vs::kFloat64) return "float64";
  return "other";
}

inline std::string json_string(const std::string& s) {
  std::ostringstream os;
  os << '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (c < 0x20)
      os << "\\u00"
         << "0123456789abcdef"[c >> 4] << "0123456789abcdef"[c & 15];
    else
      os << c;
  }
  os << '"';
  return os.str();
}

template <class R>
std::string json_ints(const R& xs) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < xs.size(); ++i) os << (i ? "," : "") << xs[i];
  os << ']';
  return os.str();
}

// Writes one JSON object per output: {"case", "label", "kind", ...}.
class Recorder {
 public:
  Recorder(std::ostream& out, std::string case_name) : out_(out), case_(std::move(case_name)) {}

  void tensor(const std::string& label, const vs::Tensor& t) {
    std::ostringstream os;
    os << head(label, "tensor") << ",\"dtype\":\"" << vs_dtype_name(t.scalar_type()) << "\""
       << ",\"shape\":" << json_ints(t.sizes()) << ",\"strides\":" << json_ints(t.strides()) << ",\"values\":[";
    bool integral = !t.is_floating_point();
    vs::Tensor c = t.to(integral ? vs::kInt64 : vs::kFloat64).contiguous();
    int64_t n = c.numel();
    os.precision(17);
    for (int64_t i = 0; i < n; ++i) {
      if (i) os << ',';
      if (integral) {
        os << c.template data_ptr<int64_t>()[i];
      } else {
        double v = c.template data_ptr<double>()[i];
        if (v != v)
          os << "\"nan\"";
        else if (v == 1.0 / 0.0)
          os << "\"inf\"";
        else if (v == -1.0 / 0.0)
          os << "\"-inf\"";
        else
          os << v;
      }
    }
    os << "]}";
    line(os.str());
  }

  void scalar(const std::string& label, double v) {
    std::ostringstream os;
    os.precision(17);
    os << head(label, "scalar") << ",\"value\":" << v << "}";
    line(os.str());
  }

  // Runs f, which should raise on both sides; records the message, or that it did not raise.
  void raises(const std::string& label, const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      line(head(label, "raised") + ",\"message\":" + json_string(e.what()) + "}");
      return;
    }
    line(head(label, "no_raise") + "}");
  }

  // The tensor f returns, or that it raised: for inputs one side may reject (see follows_pytorch2).
  void result(const std::string& label, const std::function<vs::Tensor()>& f) {
    vs::Tensor t;
    try {
      t = f();
    } catch (const std::exception& e) {
      line(head(label, "raised") + ",\"message\":" + json_string(e.what()) + "}");
      return;
    }
    tensor(label, t);
  }

  // A known difference: compare.py reports it and does not fail on it (it fails if they agree,
  // so the tag goes when the fix lands).
  void expect_diff(const std::string& reason) {
    line(head("", "expect_diff") + ",\"reason\":" + json_string(reason) + "}");
  }
  // Ember follows PyTorch 2.x here on purpose; a difference is reported, not failed.
  void follows_pytorch2(const std::string& reason) {
    line(head("", "pytorch2") + ",\"reason\":" + json_string(reason) + "}");
  }
  void missing(const std::string& what) { line(head("", "missing") + ",\"what\":" + json_string(what) + "}"); }
  void case_error(const std::string& what) { line(head("", "case_error") + ",\"message\":" + json_string(what) + "}"); }

 private:
  std::string head(const std::string& label, const char* kind) const {
    return "{\"case\":" + json_string(case_) + ",\"label\":" + json_string(label) + ",\"kind\":\"" + kind + "\"";
  }
  void line(const std::string& s) { out_ << s << '\n'; }

  std::ostream& out_;
  std::string case_;
};

struct Case {
  const char* name;
  void (*fn)(Recorder&);
};
inline std::vector<Case>& registry() {
  static std::vector<Case> cases;
  return cases;
}
struct Register {
  Register(const char* name, void (*fn)(Recorder&)) { registry().push_back({name, fn}); }
};

}  // namespace vs_test

#define VS_CAT2(a, b) a##b
#define VS_CAT(a, b) VS_CAT2(a, b)
// VS_CASE("family.name") { ...uses r... }
#define VS_CASE(name)                                                                    \
  static void VS_CAT(vs_case_, __LINE__)(vs_test::Recorder & r);                         \
  static vs_test::Register VS_CAT(vs_reg_, __LINE__)(name, &VS_CAT(vs_case_, __LINE__)); \
  static void VS_CAT(vs_case_, __LINE__)([[maybe_unused]] vs_test::Recorder & r)
