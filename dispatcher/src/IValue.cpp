#include "ember/dispatcher/IValue.h"

namespace ember {

using detail::ComplexHolder;
using detail::ListHolder;
using detail::StringHolder;

IValue::IValue(std::complex<double> v) : tag_(Tag::None) { set_ptr(Tag::Complex, new ComplexHolder(v)); }
IValue::IValue(const Scalar& s) : tag_(Tag::None) {
  pl_.i = 0;
  switch (s.tag()) {
    case Scalar::Tag::Double: tag_ = Tag::Double; pl_.d = s.toDouble(); break;
    case Scalar::Tag::Int: tag_ = Tag::Int; pl_.i = s.toLong(); break;
    case Scalar::Tag::Bool: tag_ = Tag::Bool; pl_.i = s.toBool(); break;
    case Scalar::Tag::Complex: set_ptr(Tag::Complex, new ComplexHolder(s.toComplexDouble())); break;
  }
}
IValue::IValue(std::string_view s) : tag_(Tag::None) { set_ptr(Tag::String, new StringHolder(std::string(s))); }
IValue::IValue(IntArrayRef v) : IValue(v.vec()) {}
IValue::IValue(std::vector<int64_t> v) : tag_(Tag::None) {
  set_ptr(Tag::IntList, new ListHolder<int64_t>(std::move(v)));
}
IValue::IValue(ArrayRef<double> v) : IValue(v.vec()) {}
IValue::IValue(std::vector<double> v) : tag_(Tag::None) {
  set_ptr(Tag::DoubleList, new ListHolder<double>(std::move(v)));
}
IValue::IValue(std::vector<bool> v) : tag_(Tag::None) {
  set_ptr(Tag::BoolList, new ListHolder<bool>(std::move(v)));
}
IValue::IValue(std::vector<Tensor> v) : tag_(Tag::None) {
  set_ptr(Tag::TensorList, new ListHolder<Tensor>(std::move(v)));
}
IValue IValue::make_list(std::vector<IValue> v) {
  IValue r;
  r.set_ptr(Tag::List, new ListHolder<IValue>(std::move(v)));
  return r;
}
IValue IValue::make_tuple(std::vector<IValue> v) {
  IValue r;
  r.set_ptr(Tag::Tuple, new ListHolder<IValue>(std::move(v)));
  return r;
}

std::string_view IValue::tag_name() const {
  switch (tag_) {
    case Tag::None: return "None";
    case Tag::Tensor: return "Tensor";
    case Tag::Double: return "float";
    case Tag::Int: return "int";
    case Tag::Bool: return "bool";
    case Tag::Complex: return "complex";
    case Tag::String: return "str";
    case Tag::IntList: return "int[]";
    case Tag::DoubleList: return "float[]";
    case Tag::BoolList: return "bool[]";
    case Tag::TensorList: return "Tensor[]";
    case Tag::List: return "list";
    case Tag::Tuple: return "tuple";
    case Tag::Generator: return "Generator";
    case Tag::Device: return "Device";
    case Tag::Stream: return "Stream";
  }
  return "?";
}

void IValue::type_error(const char* want) const {
  EMBER_THROW(TypeError, "[IValue] expected {} but got {}", want, tag_name());
}

double IValue::toDouble() const {
  if (tag_ == Tag::Double) return pl_.d;
  if (tag_ == Tag::Int || tag_ == Tag::Bool) return static_cast<double>(pl_.i);
  type_error("float");
}
int64_t IValue::toInt() const {
  if (tag_ == Tag::Int || tag_ == Tag::Bool) return pl_.i;
  type_error("int");
}
bool IValue::toBool() const {
  if (tag_ == Tag::Bool) return pl_.i != 0;
  type_error("bool");
}
std::complex<double> IValue::toComplexDouble() const {
  if (tag_ == Tag::Complex) return static_cast<const ComplexHolder*>(pl_.p)->val;
  if (tag_ == Tag::Double || tag_ == Tag::Int || tag_ == Tag::Bool) return {toDouble(), 0.0};
  type_error("complex");
}
Scalar IValue::toScalar() const {
  switch (tag_) {
    case Tag::Double: return Scalar(pl_.d);
    case Tag::Int: return Scalar(pl_.i);
    case Tag::Bool: return Scalar(pl_.i != 0);
    case Tag::Complex: return Scalar(toComplexDouble());
    default: type_error("Scalar");
  }
}
Device IValue::toDevice() const {
  if (tag_ == Tag::Device) return Device(static_cast<DeviceType>(pl_.dev[0]), pl_.dev[1]);
  if (tag_ == Tag::String) return Device(toStringView());
  type_error("Device");
}
Generator IValue::toGenerator() const {
  if (tag_ == Tag::Generator) return Generator(IntrusivePtr<GeneratorImpl>(static_cast<GeneratorImpl*>(pl_.p)));
  type_error("Generator");
}
Stream IValue::toStream() const {
  if (tag_ == Tag::Stream) return Stream::unpack(static_cast<uint64_t>(pl_.i));
  type_error("Stream");
}
std::string_view IValue::toStringView() const {
  if (tag_ == Tag::String) return static_cast<const StringHolder*>(pl_.p)->str;
  type_error("str");
}
const std::vector<int64_t>& IValue::toIntVector() const {
  if (tag_ == Tag::IntList) return static_cast<const ListHolder<int64_t>*>(pl_.p)->list;
  type_error("int[]");
}
const std::vector<double>& IValue::toDoubleVector() const {
  if (tag_ == Tag::DoubleList) return static_cast<const ListHolder<double>*>(pl_.p)->list;
  type_error("float[]");
}
const std::vector<bool>& IValue::toBoolVector() const {
  if (tag_ == Tag::BoolList) return static_cast<const ListHolder<bool>*>(pl_.p)->list;
  type_error("bool[]");
}
const std::vector<Tensor>& IValue::toTensorVector() const {
  if (tag_ == Tag::TensorList) return static_cast<const ListHolder<Tensor>*>(pl_.p)->list;
  type_error("Tensor[]");
}
const std::vector<IValue>& IValue::toListRef() const {
  if (tag_ == Tag::List || tag_ == Tag::Tuple) return static_cast<const ListHolder<IValue>*>(pl_.p)->list;
  type_error("list");
}
const std::vector<IValue>& IValue::toTupleRef() const {
  if (tag_ == Tag::Tuple) return static_cast<const ListHolder<IValue>*>(pl_.p)->list;
  type_error("tuple");
}

std::string IValue::repr() const {
  auto join = [](const auto& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + fmt::format("{}", v[i]);
    return s + "]";
  };
  switch (tag_) {
    case Tag::None: return "None";
    case Tag::Tensor:
      if (!pl_.t.defined()) return "Tensor(undefined)";
      return fmt::format("Tensor({}, {}, {})", pl_.t.sizes(), pl_.t.dtype(), pl_.t.device());
    case Tag::Double: return fmt::format("{}", pl_.d);
    case Tag::Int: return fmt::format("{}", pl_.i);
    case Tag::Bool: return pl_.i ? "True" : "False";
    case Tag::Complex: return toScalar().str();
    case Tag::String: return fmt::format("'{}'", toStringView());
    case Tag::IntList: return join(toIntVector());
    case Tag::DoubleList: return join(toDoubleVector());
    case Tag::BoolList: {
      std::vector<int> v(toBoolVector().begin(), toBoolVector().end());
      return join(v);
    }
    case Tag::TensorList: return fmt::format("Tensor[{}]", toTensorVector().size());
    case Tag::List:
    case Tag::Tuple: {
      std::string s = tag_ == Tag::List ? "[" : "(";
      const auto& l = toListRef();
      for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + l[i].repr();
      return s + (tag_ == Tag::List ? "]" : ")");
    }
    case Tag::Generator: return fmt::format("Generator({})", toGenerator().device());
    case Tag::Device: return toDevice().str();
    case Tag::Stream: {
      const Stream st = toStream();
      return fmt::format("Stream(device={}, id={})", st.device(), st.id());
    }
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const IValue& v) { return os << v.repr(); }

}  // namespace ember
