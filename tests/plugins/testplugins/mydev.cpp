// A device plugin: registers device type "mydev" (with the CPU allocator, so its tensors have
// memory) from its EMBER_LIBRARY block, then kernels for it by name, at its dense key and at its
// Autograd key.
#include <ember/plugin/Plugin.h>

EMBER_PLUGIN("mydev", "1.0")

namespace {
ember::Tensor fill(const ember::Tensor& x, float v) {
  ember::Tensor out = ember::make_empty(x.sizes(), x.scalar_type(), x.device());
  float* p = out.data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); ++i) p[i] = v;
  return out;
}
}  // namespace

EMBER_LIBRARY(tmydev, m) {
  ember::DeviceType t = ember::register_device_type("mydev");
  ember::set_allocator(t, ember::cpu_allocator());
  m.def("mark(Tensor x) -> Tensor");
}

EMBER_LIBRARY_IMPL_DEVICE(tmydev, "mydev", m) {
  m.impl("mark", [](const ember::Tensor& x) { return fill(x, 1); });
}

EMBER_LIBRARY_IMPL_DEVICE_FUNCTIONALITY(tmydev, Autograd, "mydev", m) {
  m.impl("mark", [](const ember::Tensor& x) { return fill(x, 2); });
}
