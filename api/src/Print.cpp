// Printing tensors exactly as LibTorch 1.13 does (aten/src/ATen/core/Formatting.cpp), quirks
// included: one scale and width per matrix, "Columns a to b" blocks for wide matrices, the
// (i,j,.,.) blocks of higher ranks with the first index varying fastest, and the type line
// "[ CPUFloatType{2,3} ]". Data is read through the operators (cpu, to, contiguous), so a tensor
// of any device with a path to the CPU prints.
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <utility>
#include <vector>

#include "ember/core/LocalState.h"
#include "ember/dispatcher/Tensor.h"

namespace ember {
namespace {

// Restores the stream's flags, precision and fill on scope exit (LibTorch's FormatGuard).
class FormatGuard {
 public:
  explicit FormatGuard(std::ostream& out) : out_(out), saved_(nullptr) { saved_.copyfmt(out); }
  ~FormatGuard() { out_.copyfmt(saved_); }
  FormatGuard(const FormatGuard&) = delete;
  FormatGuard& operator=(const FormatGuard&) = delete;

 private:
  std::ostream& out_;
  std::ios saved_;
};

std::ostream& defaultfloat(std::ostream& s) {
  s.unsetf(std::ios_base::floatfield);
  return s;
}

void print_indent(std::ostream& s, int64_t indent) {
  for (int64_t i = 0; i < indent; ++i) s << ' ';
}

void print_scale(std::ostream& s, double scale) {
  FormatGuard guard(s);
  s << defaultfloat << scale << " *" << std::endl;
}

// Chooses a common scale and field width for `n` values and sets the stream's float format.
std::pair<double, int64_t> print_format(std::ostream& s, const double* p, int64_t n) {
  if (n == 0) return {1.0, 0};
  bool int_mode = true;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isfinite(p[i]) && p[i] != std::ceil(p[i])) {
      int_mode = false;
      break;
    }
  }
  int64_t offset = 0;
  while (offset < n && !std::isfinite(p[offset])) ++offset;
  double exp_min = 1, exp_max = 1;
  if (offset < n) {
    exp_min = std::fabs(p[offset]);
    exp_max = std::fabs(p[offset]);
    for (int64_t i = offset; i < n; ++i) {
      const double z = std::fabs(p[i]);
      if (std::isfinite(z)) {
        if (z < exp_min) exp_min = z;
        if (p[i] > exp_max) exp_max = z;  // LibTorch compares the signed value here
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  double scale = 1;
  int64_t sz;
  if (int_mode) {
    if (exp_max > 9) {
      sz = 11;
      s << std::scientific << std::setprecision(4);
    } else {
      sz = static_cast<int64_t>(exp_max) + 1;
      s << defaultfloat;
    }
  } else if (exp_max - exp_min > 4) {
    sz = 11;
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) sz = sz + 1;
    s << std::scientific << std::setprecision(4);
  } else {
    if (exp_max > 5 || exp_max < 0) {
      sz = 7;
      scale = std::pow(10, exp_max - 1);
    } else {
      sz = exp_max == 0 ? 7 : static_cast<int64_t>(exp_max) + 6;
    }
    s << std::fixed << std::setprecision(4);
  }
  return {scale, sz};
}

// A rows x cols row-major matrix.
void print_matrix(std::ostream& s, const double* data, int64_t rows, int64_t cols, int64_t linesize, int64_t indent) {
  auto [scale, sz] = print_format(s, data, rows * cols);
  print_indent(s, indent);
  int64_t per_line = (linesize - indent) / (sz + 1);
  if (per_line < 1) per_line = 1;
  int64_t first = 0, last = -1;
  while (first < cols) {
    last = first + per_line <= cols ? first + per_line - 1 : cols - 1;
    if (per_line < cols) {
      if (first != 0) s << std::endl;
      s << "Columns " << first + 1 << " to " << last + 1;
      print_indent(s, indent);
    }
    if (scale != 1) {
      print_scale(s, scale);
      print_indent(s, indent);
    }
    for (int64_t l = 0; l < rows; ++l) {
      const double* row = data + l * cols;
      for (int64_t c = first; c <= last; ++c) {
        s << std::setw(static_cast<int>(sz)) << row[c] / scale;
        if (c == last) {
          s << std::endl;
          if (l != rows - 1) {
            print_indent(s, indent);
            if (scale != 1) s << " ";
          }
        } else {
          s << " ";
        }
      }
    }
    first = last + 1;
  }
}

// Rank > 2: one matrix per (i,j,...) with the first index varying fastest, as LibTorch.
void print_blocks(std::ostream& s, const double* data, IntArrayRef sizes, int64_t linesize) {
  const auto nd = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> counter(static_cast<size_t>(nd - 2), 0);
  std::vector<int64_t> stride(static_cast<size_t>(nd), 1);
  for (int64_t i = nd - 2; i >= 0; --i) stride[i] = stride[i + 1] * sizes[i + 1];
  counter[0] = -1;
  bool start = true;
  for (;;) {
    bool finished = false;
    for (int64_t i = 0;; ++i) {
      if (++counter[i] >= sizes[i]) {
        if (i == nd - 3) {
          finished = true;
          break;
        }
        counter[i] = 0;
      } else {
        break;
      }
    }
    if (finished) break;
    if (start)
      start = false;
    else
      s << std::endl;
    s << "(";
    int64_t offset = 0;
    for (int64_t i = 0; i < nd - 2; ++i) {
      offset += counter[i] * stride[i];
      s << counter[i] + 1 << ",";
    }
    s << ".,.) = " << std::endl;
    print_matrix(s, data + offset, sizes[nd - 2], sizes[nd - 1], linesize, 1);
  }
}

std::ostream& print(std::ostream& s, const Tensor& t, int64_t linesize) {
  FormatGuard guard(s);
  if (!t.defined()) return s << "[ Tensor (undefined) ]";
  const std::string type = t.toString();
  if (t.layout() != kStrided) {
    // LibTorch's format for COO: the member tensors, then the size. LibTorch 1.13 cannot print
    // CSR; it gets the same format with its own members.
    s << "[ " << type << "{}" << std::endl;
    if (t.layout() == kSparse) {
      s << "indices:" << std::endl;
      print(s, t._indices(), linesize) << std::endl;
      s << "values:" << std::endl;
      print(s, t._values(), linesize) << std::endl;
    } else {
      s << "crow_indices:" << std::endl;
      print(s, t.crow_indices(), linesize) << std::endl;
      s << "col_indices:" << std::endl;
      print(s, t.col_indices(), linesize) << std::endl;
      s << "values:" << std::endl;
      print(s, t.values(), linesize) << std::endl;
    }
    s << "size:" << std::endl << "[";
    for (int64_t i = 0; i < t.dim(); ++i) s << (i ? ", " : "") << t.size(i);
    return s << "]" << std::endl << "]";
  }
  auto type_line = [&] {
    s << "[ " << type << "{";
    for (int64_t i = 0; i < t.dim(); ++i) s << (i ? "," : "") << t.size(i);
    s << "}";
    // LibTorch's suffix of a quantized tensor: its quantizer, in the stream's current format.
    if (t.is_quantized()) {
      s << ", qscheme: " << to_string(t.qscheme());
      if (t.qscheme() == kPerTensorAffine) {
        s << ", scale: " << t.q_scale() << ", zero_point: " << t.q_zero_point();
      } else if (t.qscheme() == kPerChannelAffine || t.qscheme() == kPerChannelAffineFloatQParams) {
        s << ", scales: ";
        print(s, t.q_per_channel_scales(), linesize);
        s << ", zero_points: ";
        print(s, t.q_per_channel_zero_points(), linesize);
        s << ", axis: " << t.q_per_channel_axis();
      }
    }
    s << " ]";
  };
  if (t.device().type() == kMeta) {
    // No data to show. LibTorch's C++ print throws here (it copies to the CPU); this is its
    // Python repr, which prints the size and a non-default dtype instead of the values.
    s << "tensor(..., device='meta', size=(";
    for (int64_t i = 0; i < t.dim(); ++i) s << (i ? ", " : "") << t.size(i);
    s << (t.dim() == 1 ? ",)" : ")");
    if (t.dtype() != get_default_dtype()) s << ", dtype=torch." << dtype_name(t.dtype());
    return s << ")";
  }
  Tensor d;
  {
    NoGradGuard no_grad;
    d = (t.is_quantized() ? t.dequantize() : t.cpu()).to(kFloat64).contiguous();
  }
  const double* p = d.data_ptr<double>();
  const int64_t nd = d.dim();
  if (nd == 0) {
    s << defaultfloat << p[0] << std::endl;
  } else if (nd == 1) {
    if (d.numel() > 0) {
      auto [scale, sz] = print_format(s, p, d.numel());
      if (scale != 1) print_scale(s, scale);
      for (int64_t i = 0; i < d.size(0); ++i) s << std::setw(static_cast<int>(sz)) << p[i] / scale << std::endl;
    }
  } else if (nd == 2) {
    if (d.numel() > 0) print_matrix(s, p, d.size(0), d.size(1), linesize, 0);
  } else if (d.numel() > 0) {
    print_blocks(s, p, d.sizes(), linesize);
  }
  type_line();
  return s;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return print(os, t, 80); }

// LibTorch's Tensor::toString(): the type name, e.g. "CPUFloatType" (not the values).
std::string Tensor::toString() const {
  if (!defined()) return "UndefinedType";
  const DispatchKeySet ks = backend_key_set(device().type(), layout(), is_quantized_type(dtype()));
  return to_string(ks.highest_priority_key()) + std::string(scalar_type_name(dtype())) + "Type";
}

}  // namespace ember
