// Tensor::index / index_put_ over ember::indexing (see Note [Indexing lowering] in Indexing.h).
#include "ember/api/Indexing.h"

#include <ostream>

#include "ember/generated/Functions.h"

namespace ember {
namespace indexing {

Slice::Slice(std::optional<int64_t> start, std::optional<int64_t> stop, std::optional<int64_t> step)
    : start_(start), stop_(stop), step_(step.value_or(1)) {
  EMBER_CHECK(step_ != 0, "[Slice] slice step cannot be zero");
}

TensorIndex::TensorIndex(const char* s) : type_(TensorIndexType::Ellipsis) {
  EMBER_CHECK_TYPE(s != nullptr && std::string_view(s) == "...",
                   "[TensorIndex] a string index must be \"...\" (Ellipsis), got \"{}\"", s ? s : "(null)");
}

std::ostream& operator<<(std::ostream& os, const Slice& s) {
  auto opt = [&](std::optional<int64_t> v) -> std::ostream& { return v ? os << *v : os << "None"; };
  opt(s.start()) << ":";
  opt(s.stop()) << ":" << s.step();
  return os;
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& i) {
  switch (i.type()) {
    case TensorIndexType::None: return os << "None";
    case TensorIndexType::Ellipsis: return os << "...";
    case TensorIndexType::Integer: return os << i.integer();
    case TensorIndexType::Boolean: return os << (i.boolean() ? "true" : "false");
    case TensorIndexType::Slice: return os << i.slice();
    default: return os << "Tensor" << i.tensor().sizes();
  }
}

namespace {

struct Lowered {
  Tensor view;                               // self after the basic indices
  std::vector<std::optional<Tensor>> tensors;  // advanced indices, by dim of `view`
};

// A bool index as PyTorch lowers it: true keeps the new size-1 dim ([0]), false empties it ([]).
Tensor bool_index(bool b) { return b ? zeros({1}, kInt64) : empty({0}, kInt64); }

Lowered lower(const Tensor& self, ArrayRef<TensorIndex> indices, const char* op) {
  EMBER_CHECK(self.defined(), "[{}] called on an undefined tensor", op);
  EMBER_CHECK(!indices.empty(), "[{}] passing an empty index list is not valid syntax", op);
  int64_t specified = 0;  // dims consumed by the indices
  bool ellipsis = false;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) {
      ++specified;
    } else if (i.is_ellipsis()) {
      EMBER_CHECK_INDEX(!ellipsis, "[{}] an index can only have a single ellipsis ('...')", op);
      ellipsis = true;
    } else if (i.is_tensor()) {
      const Tensor& t = i.tensor();
      EMBER_CHECK(t.defined(), "[{}] an index tensor is undefined", op);
      specified += t.dtype() == kBool || t.dtype() == kUInt8 ? t.dim() : 1;
    }
  }
  EMBER_CHECK_INDEX(specified <= self.dim(), "[{}] too many indices for tensor of dimension {}", op, self.dim());
  Lowered r{self, {}};
  int64_t dim = 0;
  auto record = [&](Tensor t) {
    r.tensors.resize(static_cast<size_t>(dim + 1));
    r.tensors[static_cast<size_t>(dim)] = std::move(t);
    ++dim;
  };
  for (const TensorIndex& i : indices) {
    switch (i.type()) {
      case TensorIndexType::None: r.view = r.view.unsqueeze(dim++); break;
      case TensorIndexType::Ellipsis: dim += self.dim() - specified; break;
      case TensorIndexType::Integer: r.view = r.view.select(dim, i.integer()); break;
      case TensorIndexType::Boolean:
        r.view = r.view.unsqueeze(dim);
        record(bool_index(i.boolean()));
        break;
      case TensorIndexType::Slice:
        r.view = r.view.slice(dim, i.slice().start(), i.slice().stop(), i.slice().step());
        ++dim;
        break;
      case TensorIndexType::Tensor: {
        const Tensor& t = i.tensor();
        const ScalarType st = t.dtype();
        if (t.dim() == 0 && is_integral_type(st, /*include_bool=*/true)) {  // as an int or a bool
          if (st != kBool && st != kUInt8) {
            r.view = r.view.select(dim, t.item<int64_t>());
          } else {
            r.view = r.view.unsqueeze(dim);
            record(bool_index(t.item<int64_t>() != 0));
          }
        } else {
          record(t);
        }
        break;
      }
    }
  }
  return r;
}

// PyTorch's slicePrefix1sSize: a value of shape [1, 1, 3] is put as [3].
Tensor strip_leading_ones(Tensor v) {
  while (v.dim() > 0 && v.size(0) == 1) v = v.squeeze(0);
  return v;
}

}  // namespace
}  // namespace indexing

Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const {
  indexing::Lowered l = indexing::lower(*this, indices, "index");
  if (!l.tensors.empty()) return ember::index(l.view, l.tensors);
  // Only Ellipsis: a new alias of self, as LibTorch.
  if (l.view.is_same(*this)) return as_strided(sizes(), strides(), storage_offset());
  return l.view;
}

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const {
  EMBER_CHECK(rhs.defined(), "[index_put_] argument 'rhs': the value tensor is undefined");
  indexing::Lowered l = indexing::lower(*this, indices, "index_put_");
  if (l.tensors.empty()) l.view.copy_(indexing::strip_leading_ones(rhs));
  else ember::index_put_(l.view, l.tensors, rhs);
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const {
  indexing::Lowered l = indexing::lower(*this, indices, "index_put_");
  if (l.tensors.empty()) l.view.fill_(v);
  else ember::index_put_(l.view, l.tensors, full({}, v, dtype()));
  return const_cast<Tensor&>(*this);
}

}  // namespace ember
