#pragma once
// Boxed values: what a boxed kernel receives on its Stack. 16 bytes; the Tensor payload is a
// Tensor object in place, so a boxed kernel can take `const Tensor&` from the stack for free.
// A Generator is its GeneratorImpl pointer (counted like the list holders); a Stream is packed
// into 64 bits (Stream::pack).
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/Generator.h"
#include "ember/core/Scalar.h"
#include "ember/core/SmallVector.h"
#include "ember/core/Stream.h"
#include "ember/dispatcher/Tensor.h"

namespace ember {

class IValue;

namespace detail {
template <class T>
struct ListHolder : IntrusiveTarget {
  explicit ListHolder(std::vector<T> v) : list(std::move(v)) {}
  std::vector<T> list;
};
struct StringHolder : IntrusiveTarget {
  explicit StringHolder(std::string v) : str(std::move(v)) {}
  std::string str;
};
struct ComplexHolder : IntrusiveTarget {
  explicit ComplexHolder(std::complex<double> v) : val(v) {}
  std::complex<double> val;
};
}  // namespace detail

class EMBER_API IValue {
 public:
  enum class Tag : uint8_t {
    None, Tensor, Double, Int, Bool, Complex, String, IntList, DoubleList, BoolList,
    TensorList, List, Tuple, Generator, Device, Stream  // Complex..Generator hold a pointer
  };

  IValue() : tag_(Tag::None) { pl_.i = 0; }
  IValue(std::nullopt_t) : IValue() {}  // NOLINT
  IValue(const Tensor& t) : tag_(Tag::Tensor) { new (&pl_.t) Tensor(t); }  // NOLINT
  IValue(Tensor&& t) : tag_(Tag::Tensor) { new (&pl_.t) Tensor(std::move(t)); }  // NOLINT
  IValue(double v) : tag_(Tag::Double) { pl_.d = v; }  // NOLINT
  IValue(int64_t v) : tag_(Tag::Int) { pl_.i = v; }  // NOLINT
  IValue(int v) : IValue(static_cast<int64_t>(v)) {}  // NOLINT
  IValue(bool v) : tag_(Tag::Bool) { pl_.i = v; }  // NOLINT
  IValue(std::complex<double> v);  // NOLINT
  IValue(const Scalar& s);  // NOLINT: Double, Int, Bool or Complex
  IValue(ScalarType t) : IValue(static_cast<int64_t>(t)) {}  // NOLINT
  IValue(Layout l) : IValue(static_cast<int64_t>(l)) {}  // NOLINT
  IValue(QScheme q) : IValue(static_cast<int64_t>(q)) {}  // NOLINT
  IValue(MemoryFormat f) : IValue(static_cast<int64_t>(f)) {}  // NOLINT
  IValue(Device d) : tag_(Tag::Device) {  // NOLINT
    pl_.i = 0;
    pl_.dev[0] = static_cast<int8_t>(d.type());
    pl_.dev[1] = d.index();
  }
  // An undefined Generator is None, as `Generator?` treats it.
  IValue(const Generator& g) : IValue() {  // NOLINT
    if (g.defined()) set_ptr(Tag::Generator, g.unsafeGetGeneratorImpl());
  }
  IValue(Stream s) : tag_(Tag::Stream) { pl_.i = static_cast<int64_t>(s.pack()); }  // NOLINT
  IValue(std::string_view s);  // NOLINT
  IValue(const char* s) : IValue(std::string_view(s)) {}  // NOLINT
  IValue(const std::string& s) : IValue(std::string_view(s)) {}  // NOLINT
  IValue(IntArrayRef v);  // NOLINT
  IValue(std::vector<int64_t> v);  // NOLINT
  IValue(std::initializer_list<int64_t> v) : IValue(IntArrayRef(v)) {}  // NOLINT
  IValue(ArrayRef<double> v);  // NOLINT
  IValue(std::vector<double> v);  // NOLINT
  IValue(std::vector<bool> v);  // NOLINT
  IValue(std::vector<Tensor> v);  // NOLINT
  IValue(ArrayRef<Tensor> v) : IValue(v.vec()) {}  // NOLINT
  template <class T>
  IValue(const std::optional<T>& v) : IValue() {  // NOLINT
    if (v) *this = IValue(*v);
  }
  static IValue make_list(std::vector<IValue> v);   // generic list (e.g. Tensor?[])
  static IValue make_tuple(std::vector<IValue> v);  // multiple returns

  IValue(const IValue& o) : tag_(o.tag_) { copy_from(o); }
  IValue(IValue&& o) noexcept : tag_(o.tag_) { move_from(std::move(o)); }
  IValue& operator=(const IValue& o) {
    if (this != &o) {
      destroy();
      tag_ = o.tag_;
      copy_from(o);
    }
    return *this;
  }
  IValue& operator=(IValue&& o) noexcept {
    if (this != &o) {
      destroy();
      tag_ = o.tag_;
      move_from(std::move(o));
    }
    return *this;
  }
  ~IValue() { destroy(); }

  Tag tag() const { return tag_; }
  std::string_view tag_name() const;
  bool isNone() const { return tag_ == Tag::None; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isComplex() const { return tag_ == Tag::Complex; }
  bool isScalar() const { return isDouble() || isInt() || isBool() || isComplex(); }
  bool isString() const { return tag_ == Tag::String; }
  bool isIntList() const { return tag_ == Tag::IntList; }
  bool isDoubleList() const { return tag_ == Tag::DoubleList; }
  bool isBoolList() const { return tag_ == Tag::BoolList; }
  bool isTensorList() const { return tag_ == Tag::TensorList; }
  bool isList() const { return tag_ == Tag::List; }
  bool isTuple() const { return tag_ == Tag::Tuple; }
  bool isDevice() const { return tag_ == Tag::Device; }
  bool isGenerator() const { return tag_ == Tag::Generator; }
  bool isStream() const { return tag_ == Tag::Stream; }

  // Each accessor throws TypeError naming both tags when the tag differs.
  const Tensor& toTensor() const& {
    if (EMBER_UNLIKELY(tag_ != Tag::Tensor)) type_error("Tensor");
    return pl_.t;
  }
  Tensor& toTensor() & {
    if (EMBER_UNLIKELY(tag_ != Tag::Tensor)) type_error("Tensor");
    return pl_.t;
  }
  Tensor toTensor() && {
    if (EMBER_UNLIKELY(tag_ != Tag::Tensor)) type_error("Tensor");
    return std::move(pl_.t);
  }
  double toDouble() const;   // accepts Int and Bool too (schema `float` from a Python-ish int)
  int64_t toInt() const;     // accepts Bool
  bool toBool() const;
  std::complex<double> toComplexDouble() const;
  Scalar toScalar() const;
  ScalarType toScalarType() const { return static_cast<ScalarType>(toInt()); }
  Layout toLayout() const { return static_cast<Layout>(toInt()); }
  QScheme toQScheme() const { return static_cast<QScheme>(toInt()); }
  MemoryFormat toMemoryFormat() const { return static_cast<MemoryFormat>(toInt()); }
  Device toDevice() const;
  Generator toGenerator() const;
  Stream toStream() const;
  std::string_view toStringView() const;
  const std::vector<int64_t>& toIntVector() const;
  IntArrayRef toIntList() const { return toIntVector(); }
  const std::vector<double>& toDoubleVector() const;
  const std::vector<bool>& toBoolVector() const;
  const std::vector<Tensor>& toTensorVector() const;
  const std::vector<IValue>& toListRef() const;   // List or Tuple
  const std::vector<IValue>& toTupleRef() const;

  std::string repr() const;
  friend EMBER_API std::ostream& operator<<(std::ostream& os, const IValue& v);

 private:
  [[noreturn]] void type_error(const char* want) const;
  bool is_ptr() const { return tag_ >= Tag::Complex && tag_ <= Tag::Generator; }
  void copy_from(const IValue& o) {
    if (tag_ == Tag::Tensor) {
      new (&pl_.t) Tensor(o.pl_.t);
    } else {
      pl_.i = o.pl_.i;
      if (is_ptr()) pl_.p->retain_();
    }
  }
  void move_from(IValue&& o) {
    if (tag_ == Tag::Tensor) {
      new (&pl_.t) Tensor(std::move(o.pl_.t));
      o.pl_.t.~Tensor();
    } else {
      pl_.i = o.pl_.i;
    }
    o.tag_ = Tag::None;
    o.pl_.i = 0;
  }
  void destroy() {
    if (tag_ == Tag::Tensor) pl_.t.~Tensor();
    else if (is_ptr()) pl_.p->release_();
  }
  void set_ptr(Tag t, IntrusiveTarget* p) {
    tag_ = t;
    pl_.p = p;
    p->retain_();
  }

  union Payload {
    Payload() {}
    ~Payload() {}
    int64_t i;
    double d;
    IntrusiveTarget* p;
    int8_t dev[2];
    Tensor t;
  } pl_;
  Tag tag_;
};
static_assert(sizeof(IValue) == 16, "IValue is a 16-byte value: a payload word and a tag");

// The boxed calling convention: arguments pushed in schema order, results left in their place.
// Inline capacity keeps a typical boxed call off the heap.
using Stack = SmallVector<IValue, 8>;

}  // namespace ember
