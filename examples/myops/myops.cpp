// A one-file operator library. Built as a plain MODULE library linked to ember::ember, it is a
// loadable plugin named "myops" (the file stem without "lib"): the EMBER_LIBRARY blocks below
// carry everything the loader needs, and nothing runs until the loader runs them. It gives its
// operator a CPU kernel and a derivative formula (register_autograd).
//
//   add_library(myops MODULE myops.cpp)
//   target_link_libraries(myops PRIVATE ember::ember)
//
// The same source also works linked into a program (a static archive must then be linked whole:
// ember_link_whole_archive(app myops)).
#include <ember/ember.h>

namespace {

// myops::scale on the CPU: x * alpha. A plain loop for contiguous float32 input, ember::mul for
// everything else (other dtypes, transposed or sliced views).
ember::Tensor scale_cpu(const ember::Tensor& x, double alpha) {
  if (x.scalar_type() != ember::kFloat32 || !x.is_contiguous()) return ember::mul(x, alpha);
  ember::Tensor out = ember::empty_like(x);
  const float* src = x.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const float a = static_cast<float>(alpha);
  for (int64_t i = 0, n = x.numel(); i < n; ++i) dst[i] = src[i] * a;
  return out;
}

}  // namespace

EMBER_LIBRARY(myops, m) { m.def("scale(Tensor x, float alpha=2.0) -> Tensor"); }

EMBER_LIBRARY_IMPL(myops, CPU, m) { m.impl("scale", &scale_cpu); }

// Its derivative: d(x * alpha)/dx = alpha. The autograd plugin records a ScaleBackward node when
// x requires grad; the formula is itself made of ember ops, so it differentiates again.
EMBER_LIBRARY_IMPL(myops, Autograd, m) {
  using ember::autograd::AutogradContext;
  using ember::autograd::variable_list;
  ember::autograd::register_autograd(
      m, "scale",
      [](AutogradContext* ctx, const variable_list& grads) {
        // One gradient per schema argument: x's, and none for alpha.
        return variable_list{ember::mul(grads[0], ctx->saved_data["alpha"].toDouble()), ember::Tensor()};
      },
      [](AutogradContext* ctx, const std::vector<ember::IValue>& args, const variable_list&) {
        ctx->saved_data["alpha"] = args[1].toDouble();
      });
}
