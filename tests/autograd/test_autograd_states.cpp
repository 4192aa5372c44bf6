// Every operator is in exactly one autograd state (Note [Derivative states] in
// tools/codegen/gen_autograd.py), read from the dispatch tables: its Autograd slot is served by
// the autograd plugin's kernel (a formula, non-differentiable, not implemented, or an out=
// variant) or by its CompositeImplicitAutograd decomposition; never by the fallback or nothing,
// which would leave a gradient silently missing. The same holds for a device type registered
// after the autograd plugin.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"

using namespace ember;

namespace {

// The line of `key` in op.dump_table(), or "".
std::string slot_line(const OperatorHandle& op, const std::string& key) {
  std::istringstream in(op.dump_table());
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("  " + key + ": ", 0) == 0) return line;
  return "";
}

bool served_by_autograd(const std::string& line) {
  return line.find("Autograd kernel ['autograd'") != std::string::npos ||
         line.find("CompositeImplicitAutograd kernel") != std::string::npos;
}

}  // namespace

TEST(AutogradStates, EveryBuiltinOperatorHasOne) {
  int n = 0;
  for (const OperatorHandle& op : Dispatcher::singleton().operators()) {
    const std::string name = op.operator_name();
    if (name.rfind("aten::", 0) != 0) continue;
    // Declared ahead of its kernels (ops.yaml `pending:`): nothing registered, nothing to wrap yet.
    if (op.dump_table().find("registered:\ncomputed table:") != std::string::npos) continue;
    ++n;
    const std::string line = slot_line(op, "AutogradCPU");
    EXPECT_TRUE(served_by_autograd(line))
        << name << ": its AutogradCPU slot is '" << line << "'; give it a schemas/derivatives.yaml entry";
  }
  EXPECT_GT(n, 250);
}

TEST(AutogradStates, ADeviceRegisteredLaterIsCovered) {
  const DeviceType dev = register_device_type("agstatedev");
  const std::string key = "Autograd" + std::string(device_type_name(dev));
  auto mul = Dispatcher::singleton().findSchemaOrThrow("aten::mul", "Tensor");
  EXPECT_TRUE(served_by_autograd(slot_line(mul, key))) << mul.dump_table();
  auto matmul = Dispatcher::singleton().findSchemaOrThrow("aten::matmul", "");
  EXPECT_TRUE(served_by_autograd(slot_line(matmul, key))) << matmul.dump_table();
}
