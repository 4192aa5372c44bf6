#pragma once
// Device-independent kernel metadata: type promotion, broadcasting, overlap checks and
// TensorIter's geometry (output shape, dimension order, output strides). Linked into the cpu and
// meta plugins (static library ember_kernel_common).
//
// Note [Kernel metadata helpers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A meta kernel must give the same sizes, strides, dtype and errors as the backend kernel, so the
// metadata half of a kernel lives here once and both plugins run it: the cpu plugin's TensorIter
// (Loops.h) is this TensorIter on device kCPU plus data pointers and loops; the meta plugin builds
// the very same TensorIter on kMeta and stops after build(). A backend's outputs are allocated
// with the allocator registered for its device type, which for kMeta allocates nothing.
// Op-specific dtype rules shared by both plugins (elementwise result dtypes, reduction shapes)
// are in Rules.h.
#include <optional>

#include "ember/dispatcher/Tensor.h"
#include "ember/native/TensorHelpers.h"
#include "ember/core/Parallel.h"

namespace ember::native {

// ---- TensorIter -----------------------------------------------------------------------------

constexpr int kMaxOperands = 4;

class TensorIter {
 public:
  // `materialize` copies an input that partially overlaps an output (null: the backend has no data
  // to protect, as on meta).
  using MaterializeFn = Tensor (*)(const Tensor&);
  TensorIter(const char* op, DeviceType device, MaterializeFn materialize)
      : op_(op), device_(device), materialize_(materialize) {}

  // Outputs first, then inputs. An undefined output is allocated in build() with `dtype`; a
  // defined one is written in place (in-place ops: its shape must equal the broadcast shape) or,
  // with `resizable`, resized to it (out= arguments).
  TensorIter& add_output(Tensor* t, ScalarType dtype, bool resizable = false);
  TensorIter& add_input(const Tensor& t);
  // A reduction writes one output element from many input elements: its output is given with
  // stride 0 along reduced dimensions, takes no part in ordering dimensions and may overlap
  // itself.
  TensorIter& is_reduction(bool on = true) {
    reduction_ = on;
    return *this;
  }
  // Off: an output may have internal overlap (fill_ writes one value everywhere).
  TensorIter& check_mem_overlap(bool on) {
    check_overlap_ = on;
    return *this;
  }
  // An output overlapping itself or partially overlapping an input raises (PyTorch's mem-overlap
  // checks, unless check_mem_overlap(false)); inputs that may still overlap an output are copied.
  void build();

  const char* op() const { return op_; }
  int ntensors() const { return nops_; }
  int noutputs() const { return nout_; }
  int64_t numel() const { return numel_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  IntArrayRef shape() const { return shape_; }  // iteration order: innermost first
  ScalarType dtype(int i) const { return ops_[i].dtype; }
  char* data(int i) const { return ops_[i].data; }
  const Tensor& tensor(int i) const { return ops_[i].tensor; }
  IntArrayRef strides(int i) const { return ops_[i].strides; }
  // The broadcast shape in the tensors' own dimension order.
  IntArrayRef full_shape() const { return full_shape_; }

  // Calls loop(char** data, const int64_t* strides, int64_t n) on every 1-d run. Runs are split
  // over the intra-op threads (parallel_for, ember/core/Parallel.h) when the
  // iterator writes outputs whose elements are all distinct (no reduction, no stride-0 output):
  // each run then writes only its own elements. An iterator with inputs only (equal, allclose)
  // runs serially, so its loop may update shared state.
  template <class F>
  void for_each(F&& loop) const;
  // The same, serially, over the elements [begin, end) of the iteration order.
  template <class F>
  void for_each_range(int64_t begin, int64_t end, F& loop) const;

 private:
  struct Operand {
    Tensor tensor;
    Tensor* out = nullptr;
    char* data = nullptr;
    ScalarType dtype = ScalarType::Undefined;
    bool resizable = false;
    bool will_allocate = false;
    bool will_resize = false;  // an out= tensor of another shape: resized, then laid out as an allocation
    DimVector strides;  // bytes, iteration order
  };
  void check_device(const Tensor& ref, const Tensor& t) const;
  void compute_shape();
  void check_and_prepare_outputs();
  void compute_strides();
  void reorder_dimensions();
  void allocate_outputs();
  void coalesce_dimensions();

  const char* op_;
  DeviceType device_;
  MaterializeFn materialize_;
  Operand ops_[kMaxOperands];
  int nops_ = 0;
  int nout_ = 0;
  bool reduction_ = false;
  bool check_overlap_ = true;
  bool parallel_ok_ = false;  // see for_each
  int64_t numel_ = 1;
  DimVector full_shape_;
  DimVector shape_;
  DimVector perm_;
};

template <class F>
void TensorIter::for_each(F&& loop) const {
  if (numel_ == 0) return;
  if (parallel_ok_ && numel_ >= 2 * kGrainSize && !in_parallel_region()) {
    parallel_for(0, numel_, kGrainSize, [&](int64_t b, int64_t e) { for_each_range(b, e, loop); });
    return;
  }
  for_each_range(0, numel_, loop);
}

template <class F>
void TensorIter::for_each_range(int64_t begin, int64_t end, F& loop) const {
  char* ptrs[kMaxOperands];
  int64_t inner[kMaxOperands];
  const int nd = ndim();
  if (nd == 0) {
    for (int k = 0; k < nops_; ++k) ptrs[k] = ops_[k].data, inner[k] = 0;
    if (begin < end) loop(ptrs, inner, int64_t{1});
    return;
  }
  // The multi-index of `begin`, innermost first.
  DimVector idx(nd, 0);
  int64_t rem = begin;
  for (int d = 0; d < nd; ++d) {
    idx[d] = rem % shape_[d];
    rem /= shape_[d];
  }
  for (int k = 0; k < nops_; ++k) {
    ptrs[k] = ops_[k].data;
    for (int d = 0; d < nd; ++d) ptrs[k] += idx[d] * ops_[k].strides[d];
    inner[k] = ops_[k].strides[0];
  }
  int64_t left = end - begin;
  for (;;) {
    const int64_t n = std::min(shape_[0] - idx[0], left);
    loop(ptrs, inner, n);
    left -= n;
    if (left <= 0) return;
    // Back to the start of the row, then carry into the outer dimensions.
    for (int k = 0; k < nops_; ++k) ptrs[k] -= idx[0] * inner[k];
    idx[0] = 0;
    int d = 1;
    for (; d < nd; ++d) {
      for (int k = 0; k < nops_; ++k) ptrs[k] += ops_[k].strides[d];
      if (++idx[d] < shape_[d]) break;
      for (int k = 0; k < nops_; ++k) ptrs[k] -= ops_[k].strides[d] * shape_[d];
      idx[d] = 0;
    }
    if (d == nd) return;
  }
}

}  // namespace ember::native
