// Meta random fills and randperm (plugins/cpu/random.cpp): the cpu kernels' argument checks, no values drawn.
#include "MetaHelpers.h"
#include "ember/native/IndexShapeRules.h"

namespace ember::meta {
namespace {

// The cpu fills write a non-contiguous tensor through copy_, with copy_'s overlap check.
void check_fill_target(Tensor& self) {
  if (self.is_contiguous()) return;
  const Tensor src = empty_meta(self.sizes(), self.dtype());
  iterate("copy_", self, OutKind::InPlace, self.dtype(), {&src});
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, std::optional<Generator> /*generator*/) {
  native::check_defined("uniform_", self, "self");
  native::check_uniform(self, from, to);
  check_fill_target(self);
  return self;
}

Tensor& normal_(Tensor& self, double /*mean*/, double std, std::optional<Generator> /*generator*/) {
  native::check_defined("normal_", self, "self");
  native::check_normal(self, std);
  check_fill_target(self);
  return self;
}

Tensor& random_from(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> /*generator*/) {
  native::check_defined("random_", self, "self");
  native::random_from_end(self, from, to);
  check_fill_target(self);
  return self;
}

Tensor& bernoulli_float(Tensor& self, double p, std::optional<Generator> /*generator*/) {
  native::check_defined("bernoulli_", self, "self");
  native::check_bernoulli(p);
  check_fill_target(self);
  return self;
}

// ---- randperm ------------------------------------------------------------------------------------

Tensor randperm_generator(int64_t n, std::optional<Generator> /*generator*/, OptDtype dtype, OptLayout layout,
                          OptDevice device, OptBool pin_memory) {
  check_factory("randperm", layout, device, pin_memory);
  const ScalarType dt = dtype.value_or(kInt64);
  native::check_randperm(n, dt);
  return empty_meta({n}, dt);
}
Tensor randperm(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return meta::randperm_generator(n, std::nullopt, dtype, layout, device, pin_memory);
}
Tensor& randperm_out(int64_t n, Tensor& out) {
  native::check_defined("randperm", out, "out");
  native::check_randperm(n, out.dtype());
  native::resize_output(out, {n}, "randperm");
  native::check_out_writable("randperm", out);
  return out;
}

}  // namespace ember::meta
