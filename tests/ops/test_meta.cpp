// The meta plugin's own behaviour: every operator with a CPU kernel has a Meta kernel, meta
// tensors (printing, data access, copies in and out), data-dependent operators, the composites
// that serve meta, and the layout of empty elementwise results (shared with the cpu). Each
// operator's sizes, strides, dtypes and errors against the cpu's, for every dtype and layout, are
// the backend harness's (test_backend_ops.cpp, EMBER_TEST_BACKEND=meta).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "OpTestUtil.h"
#include "ember/dispatcher/Dispatcher.h"
#include "ember/ember.h"

using namespace ember;

namespace {

// Operators with a CPU kernel that may lack a Meta kernel, each with its reason. Empty: every
// CPU kernel has one. (A new op gets a Meta kernel in plugins/meta, or an entry here saying why not.)
const std::map<std::string, std::string> kNoMetaKernel = {};

// The kernels registered for one key, by schema name, from the dispatcher's table dump.
std::set<std::string> ops_with_kernel(const std::string& key) {
  std::set<std::string> r;
  for (const auto& op : Dispatcher::singleton().operators()) {
    const std::string table = op.dump_table();
    const size_t reg = table.find("registered:\n"), comp = table.find("computed table:");
    if (reg == std::string::npos) continue;
    const std::string section = table.substr(reg, comp - reg);
    if (section.find("\n  " + key + ": ") == std::string::npos) continue;
    std::string name = op.operator_name();
    if (name.rfind("aten::", 0) == 0) name = name.substr(6);
    r.insert(name);
  }
  return r;
}

}  // namespace

// Empty results are laid out as LibTorch 1.13's TensorIterator lays them out: inputs of the
// result's shape that are all contiguous (an empty tensor always is) give a contiguous result;
// otherwise the inputs' order, with 0 strides outside a dimension of size 0. The cpu's dtype
// paths and the meta kernels share this geometry.
TEST(MetaTensors, EmptyResultsAreLaidOutAsLibTorch) {
  for (ScalarType dt : {kFloat32, kFloat16, kInt64}) {
    for (Device dev : {Device(kCPU), Device(kMeta)}) {
      SCOPED_TRACE(fmt::format("{} on {}", dt, dev));
      const auto opts = TensorOptions(dt).device(dev);
      const Tensor a = ember::zeros({3, 0}, opts).t();  // [0, 3], strides [1, 1]
      EXPECT_EQ(a.abs().strides(), IntArrayRef({3, 1}));
      EXPECT_EQ((a + a).strides(), IntArrayRef({3, 1}));
      EXPECT_EQ(ember::zeros({0, 3}, opts).t().neg().strides(), IntArrayRef({1, 1}));
      EXPECT_EQ(ember::zeros({2, 3, 4, 0}, opts).permute({0, 3, 1, 2}).abs().strides(), IntArrayRef({12, 12, 4, 1}));
      // Broadcast: the inputs' order.
      Tensor r = ember::zeros({4, 0}, opts).t() + ember::zeros({4}, opts);
      EXPECT_EQ(r.sizes(), IntArrayRef({0, 4}));
      EXPECT_EQ(r.strides(), IntArrayRef({1, 0}));
      EXPECT_EQ((ember::zeros({3, 0, 2}, opts).permute({2, 1, 0}) + ember::zeros({3}, opts)).strides(),
                IntArrayRef({1, 2, 0}));
      // A 0 stride in an empty tensor is no overlap: it can be written in place.
      EXPECT_NO_THROW(r.add_(1));
      EXPECT_NO_THROW(r.abs_());
      EXPECT_EQ(ember::empty_like(r).strides(), IntArrayRef({1, 0}));  // dense: its strides kept
    }
  }
}

TEST(MetaTensors, FactoryAndData) {
  Tensor m = ember::empty({2, 3}, TensorOptions().device(kMeta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.device(), Device(kMeta));
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(m.strides(), IntArrayRef({3, 1}));
  EXPECT_EQ(m.dtype(), kFloat32);
  EXPECT_EQ(m.data_ptr(), nullptr);
  EXPECT_EQ(m.unsafeGetTensorImpl()->storage()->nbytes(), 24u);  // sized storage, no memory
  // Printed as LibTorch's Python repr (its C++ print throws for meta tensors).
  auto str = [](const Tensor& t) {
    std::ostringstream os;
    os << t;
    return os.str();
  };
  EXPECT_EQ(str(m), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(str(ember::empty({4}, TensorOptions(kInt64).device(kMeta))),
            "tensor(..., device='meta', size=(4,), dtype=torch.int64)");
  EXPECT_EQ(str(ember::empty({}, TensorOptions(kFloat16).device(kMeta))),
            "tensor(..., device='meta', size=(), dtype=torch.float16)");
  EXPECT_EQ(m.toString(), "MetaFloatType");
  EXPECT_ERROR(NotImplementedError, m.data_ptr<float>(), "[data_ptr]", "meta tensor has no data");
  EXPECT_ERROR(NotImplementedError, ember::empty({}, TensorOptions().device(kMeta)).item(), "[item]",
               "meta tensor has none");
  EXPECT_ERROR(NotImplementedError, m.cpu(), "[copy_]", "cannot copy out of a meta tensor");
  // Into meta from any device: only the shapes are checked.
  Tensor c = ember::ones({3});
  EXPECT_EQ(m.copy_(c).sizes(), IntArrayRef({2, 3}));
  Tensor to = c.to(Device(kMeta));
  EXPECT_TRUE(to.is_meta());
  EXPECT_EQ(to.sizes(), IntArrayRef({3}));
  // Mixed meta and cpu operands are a device error, as on the cpu.
  EXPECT_ERROR(ValueError, ember::add(m, ember::ones({2, 3})), "[add]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::mm(m, ember::ones({3, 2})), "[mm]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::addmm(ember::ones({2}), m, m.t()), "[addmm]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::cat({m, ember::ones({2, 3})}), "[cat]", "same device", "meta", "cpu");
  Tensor out = ember::ones({0});
  EXPECT_ERROR(ValueError, ember::mm_out(out, m, m.t()), "[mm]", "same device", "meta", "cpu");
  Tensor idx = ember::zeros({2, 3}, TensorOptions(kInt64));
  EXPECT_ERROR(ValueError, ember::gather(m, 0, idx), "[gather]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::index(m, {idx}), "[index]", "same device", "meta", "cpu");
  EXPECT_ERROR(ValueError, ember::index_select(m, 0, idx.select(0, 0)), "[index_select]", "same device");
  Tensor values = ember::empty({0}, TensorOptions().device(kMeta)), indices = ember::ones({0}, TensorOptions(kInt64));
  EXPECT_ERROR(ValueError, ember::sort_out(values, indices, m), "[sort]", "expected a meta tensor, got one on cpu");
  EXPECT_ERROR(ValueError, ember::sum_out(out, m, {0}), "[sum]", "expected a meta tensor, got one on cpu");
}

TEST(MetaTensors, DataDependentOpsThrow) {
  Tensor m = ember::empty({2}, TensorOptions().device(kMeta));
  EXPECT_ERROR(NotImplementedError, ember::equal(m, m), "[equal]", "a meta tensor has none");
  EXPECT_ERROR(NotImplementedError, ember::allclose(m, m), "[allclose]", "a meta tensor has none");
  EXPECT_ERROR(NotImplementedError, m.sum().item(), "[item]", "a meta tensor has none");
  // A result size that is data: nonzero, masked_select, and a bool or uint8 mask index.
  const TensorOptions mb = TensorOptions(kBool).device(kMeta);
  Tensor x = ember::empty({2, 3}, TensorOptions().device(kMeta));
  EXPECT_ERROR(NotImplementedError, x.nonzero(), "[nonzero]", "data-dependent output shape");
  EXPECT_ERROR(NotImplementedError, x.masked_select(ember::empty({3}, mb)), "[masked_select]",
               "data-dependent output shape");
  EXPECT_ERROR(NotImplementedError, ember::index(x, {ember::empty({2, 3}, mb)}), "[index]", "bool or uint8 mask index",
               "data-dependent output shape");
  EXPECT_ERROR(NotImplementedError,
               ember::index(x, {std::nullopt, ember::empty({3}, TensorOptions(kUInt8).device(kMeta))}), "[index]",
               "mask index");
  EXPECT_ERROR(NotImplementedError, ember::index_put_(x, {ember::empty({2}, mb)}, ember::empty({}, x.options())),
               "[index_put_]", "mask index");
  // Their argument errors come first, as on the cpu.
  EXPECT_ERROR(TypeError, x.masked_select(ember::empty({3}, TensorOptions(kInt32).device(kMeta))),
               "[masked_select] argument 'mask': expected dtype bool or uint8, got int32");
  EXPECT_ERROR(ValueError, x.masked_select(ember::empty({4}, mb)), "[masked_select]");
  EXPECT_ERROR(IndexError, ember::index(x, {ember::empty({3}, mb)}), "[index] the shape of the mask");
  EXPECT_ERROR(ValueError, x.masked_select(ember::ones({3}, TensorOptions(kBool))), "[masked_select]", "same device");
}

TEST(MetaTensors, CompositesServeMeta) {
  // Views, composite factories and copies reach meta through the cpu plugin's composites.
  Tensor m = ember::empty({2, 3, 4}, TensorOptions().device(kMeta));
  Tensor v = m.transpose(0, 2).slice(1, 0, std::nullopt, 2);
  EXPECT_TRUE(v.is_meta());
  EXPECT_EQ(v.sizes(), IntArrayRef({4, 2, 2}));
  EXPECT_EQ(v.strides(), IntArrayRef({1, 8, 12}));
  EXPECT_EQ(v.contiguous().strides(), IntArrayRef({4, 2, 1}));
  EXPECT_EQ(ember::zeros({5}, TensorOptions(kInt32).device(kMeta)).dtype(), kInt32);
  EXPECT_EQ(ember::matmul(m, ember::empty({4, 7}, TensorOptions().device(kMeta))).sizes(), IntArrayRef({2, 3, 7}));
  EXPECT_EQ(ember::stack({m, m}, 1).sizes(), IntArrayRef({2, 2, 3, 4}));
  EXPECT_EQ(m.reshape({6, -1}).sizes(), IntArrayRef({6, 4}));
  EXPECT_EQ(ember::rand({3}, TensorOptions().device(kMeta)).device(), Device(kMeta));
}

TEST(MetaKernels, EveryCpuKernelHasAMetaKernel) {
  const std::set<std::string> cpu = ops_with_kernel("CPU"), meta = ops_with_kernel("Meta");
  ASSERT_GT(cpu.size(), 100u);  // the dump parse found the cpu plugin's kernels
  for (const auto& op : cpu)
    EXPECT_TRUE(meta.count(op) || kNoMetaKernel.count(op)) << op << " has a CPU kernel but no Meta kernel";
  for (const auto& [op, why] : kNoMetaKernel) {
    EXPECT_FALSE(why.empty()) << op;
    EXPECT_FALSE(meta.count(op)) << op << " has a Meta kernel now: drop it from kNoMetaKernel";
  }
  for (const auto& op : meta) EXPECT_TRUE(cpu.count(op)) << op << " has a Meta kernel but no CPU kernel";
}

TEST(MetaKernels, StartUpBuildsEachTableOncePerLibraryAndLeavesNoneRetired) {
  // libember's schemas and composites, then cpu, then meta, each published whole: an operator's
  // table is built at most once per object, and the tables replaced during start-up are freed
  // when it ends. Plugins loaded later retire what they replace.
  const Dispatcher::Stats s = Dispatcher::singleton().stats();
  EXPECT_GT(s.operators, 200u);
  EXPECT_GE(s.tables_built, s.operators + ops_with_kernel("CPU").size());
  EXPECT_LE(s.tables_built, 3 * s.operators);
  EXPECT_EQ(s.retired_tables, 0u);
  EXPECT_EQ(s.retired_functors, 0u);
  EXPECT_EQ(s.retired_schemas, 0u);
}

// The composites built on the CNN kernels, on meta: the shapes a network's forward produces.
TEST(MetaTensors, CnnCompositesServeMeta) {
  const TensorOptions m = TensorOptions().device(kMeta);
  Tensor x = ember::empty({8, 3, 32, 32}, m);
  Tensor h = ember::conv2d(x, ember::empty({16, 3, 3, 3}, m), ember::empty({16}, m), 1, 1);
  EXPECT_TRUE(h.is_meta());
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 16, 32, 32}));
  h = ember::batch_norm(h, ember::empty({16}, m), ember::empty({16}, m), ember::empty({16}, m), ember::empty({16}, m),
                        true, 0.1, 1e-5, false);
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 16, 32, 32}));
  EXPECT_EQ(ember::max_pool2d(h, 3, 2, 1, 1, false).sizes(), IntArrayRef({8, 16, 16, 16}));
  h = ember::max_pool2d(ember::relu(h), 3, 2, 1, 1, true);  // ceil_mode: one more window
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 16, 17, 17}));
  h = ember::conv2d(h, ember::empty({32, 16, 3, 3}, m), std::nullopt, 2, std::vector<int64_t>{0, 0}, 1);
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 32, 8, 8}));
  h = ember::adaptive_avg_pool2d(h, 1);
  EXPECT_EQ(h.sizes(), IntArrayRef({8, 32, 1, 1}));
  EXPECT_EQ(h.strides(), IntArrayRef({32, 1, 1, 1}));
  Tensor t = ember::layer_norm(h.flatten(1), {32});
  EXPECT_EQ(t.sizes(), IntArrayRef({8, 32}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_TRUE(t.is_meta());
  // A bad geometry is the cpu kernel's error, named after the meta kernel's operator.
  EXPECT_ERROR(ValueError, ember::conv2d(x, ember::empty({16, 4, 3, 3}, m)), "[convolution]", "3 channels");
  EXPECT_ERROR(TypeError, ember::max_pool2d(ember::empty({1, 2, 4, 4}, TensorOptions(kInt32).device(kMeta)), 2),
               "[max_pool2d_with_indices]", "floating point");
  // A weight on the cpu with a meta input is a device error.
  EXPECT_ERROR(ValueError, ember::conv2d(x, ember::empty({16, 3, 3, 3})), "[convolution]", "same device", "meta",
               "cpu");
}

// Note [Version counters]: meta kernels bump nothing themselves; the dispatcher bumps once.
TEST(MetaTensors, InPlaceAndOutOpsBumpOnce) {
  const TensorOptions m = TensorOptions().device(kMeta);
  Tensor x = empty({3, 4}, m), y = empty({3, 4}, m), out = empty({0}, m);
  Tensor mx = empty({0}, m), mi = empty({0}, m.dtype(kInt64));
  x.add_(y);
  EXPECT_EQ(x._version(), 1u);
  add_out(out, x, y);
  EXPECT_EQ(out._version(), 1u);
  EXPECT_EQ(out.sizes(), x.sizes());
  x.copy_(y);
  x.fill_(2);
  x.zero_();
  EXPECT_EQ(x._version(), 4u);
  max_out(mx, mi, x, 1);
  EXPECT_EQ(mx._version(), 1u);
  EXPECT_EQ(mi._version(), 1u);
  x.select(0, 1).mul_(2);
  EXPECT_EQ(x._version(), 5u);
  EXPECT_EQ(y._version(), 0u);
}
