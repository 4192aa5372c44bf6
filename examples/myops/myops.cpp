// A one-file operator library. Built as a plain MODULE library linked to ember::ember, it is a
// loadable plugin named "myops" (the file stem without "lib"): the EMBER_LIBRARY blocks below
// carry everything the loader needs, and nothing runs until the loader runs them.
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
