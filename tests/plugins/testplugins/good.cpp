// A plugin that needs good_dep: its kernel calls good_dep's operator.
#include <ember/plugin/Plugin.h>

EMBER_PLUGIN("good", "2.0.0", "good_dep")

namespace {
ember::Tensor twice(const ember::Tensor& x) {
  auto id = ember::Dispatcher::singleton()
                .findSchemaOrThrow("tdep::id", "")
                .typed<ember::Tensor(const ember::Tensor&)>();
  ember::Tensor in = id.call(x);
  ember::Tensor out = ember::make_empty(in.sizes(), in.scalar_type());
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  for (int64_t i = 0; i < in.numel(); ++i) dst[i] = 2 * src[i];
  return out;
}
}  // namespace

EMBER_LIBRARY(tgood, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.def("other(Tensor x) -> Tensor");
}

EMBER_LIBRARY_IMPL(tgood, CPU, m) {
  m.impl("twice", &twice);
  m.impl("other", [](const ember::Tensor& x) { return x; });
}
