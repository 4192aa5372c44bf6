#include "ember/core/Scalar.h"

#include <sstream>

namespace ember {

Scalar Scalar::operator-() const {
  switch (tag_) {
    case Tag::Double: return Scalar(-v_.d);
    case Tag::Int: return Scalar(-v_.i);
    case Tag::Bool: EMBER_THROW(TypeError, "[Scalar] negation of a bool Scalar is not supported");
    default: return Scalar(-toComplexDouble());
  }
}

bool Scalar::equal(const Scalar& o) const {
  if (isComplex() || o.isComplex()) return toComplexDouble() == o.toComplexDouble();
  if (isFloatingPoint() || o.isFloatingPoint()) return toDouble() == o.toDouble();
  return toLong() == o.toLong();
}

std::string Scalar::str() const {
  switch (tag_) {
    case Tag::Double: return fmt::format("{}", v_.d);
    case Tag::Int: return fmt::format("{}", v_.i);
    case Tag::Bool: return v_.i ? "true" : "false";
    default: return fmt::format("({}+{}j)", v_.d, imag_);
  }
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) { return os << s.str(); }

}  // namespace ember
