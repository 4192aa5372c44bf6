// The GPU generator, random fills and randperm: counter-based as the CPU's, so a seed gives the CPU's
// numbers (Note [GPU random numbers] in kernels/random.cu). The generator keeps a seed and a
// Philox block offset on the host; a fill reserves its blocks under the generator's mutex and
// passes (seed, offset) to the kernel, so no device state exists and none needs syncing.
#include <mutex>
#include <random>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/core/Generator.h"
#include "ember/core/Philox.h"
#include "ember/native/IndexShapeRules.h"
#include "ember/native/NNCoreRules.h"
#include "ember/native/Randperm.h"
#include "ember/native/Rules.h"

namespace ember::EMBER_GPU_NS {

class PhiloxGeneratorImpl final : public GeneratorImpl {
 public:
  explicit PhiloxGeneratorImpl(DeviceIndex index, uint64_t seed_in = default_rng_seed_val)
      : GeneratorImpl(Device(gpu::kGpuDevice, index),
                      DispatchKeySet::of(Functionality::Dense) | DispatchKeySet::of(gpu::kGpuDevice)),
        seed_(seed_in) {}

  void set_current_seed(uint64_t seed) override {
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override {
    std::random_device rd;
    const uint64_t s = uint64_t{rd()} << 32 | rd();
    set_current_seed(s);
    return s;
  }
  void set_offset(uint64_t offset) override { offset_ = offset; }
  uint64_t get_offset() const override { return offset_; }
  // 16 bytes: the seed, then the offset (little-endian), as the CPU generator's.
  GeneratorState get_state() const override {
    GeneratorState s{gpu::kGpuDevice, std::vector<uint8_t>(16)};
    for (int i = 0; i < 8; ++i) {
      s.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(seed_ >> (8 * i));
      s.bytes[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(offset_ >> (8 * i));
    }
    return s;
  }
  void set_state(const GeneratorState& state) override {
    EMBER_CHECK(state.device_type == gpu::kGpuDevice && state.bytes.size() == 16,
                "[Generator::set_state] expected the 16-byte state of a {} generator, got {} bytes from a {} generator",
                gpu::kGpuLabel, state.bytes.size(), device_type_name(state.device_type));
    uint64_t seed = 0, offset = 0;
    for (int i = 0; i < 8; ++i) {
      seed |= uint64_t{state.bytes[static_cast<size_t>(i)]} << (8 * i);
      offset |= uint64_t{state.bytes[static_cast<size_t>(8 + i)]} << (8 * i);
    }
    seed_ = seed;
    offset_ = offset;
  }
  static DeviceType device_type() { return gpu::kGpuDevice; }

  // Reserves `blocks` consecutive Philox blocks for one call; takes the mutex.
  PhiloxRange reserve(uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mutex_);
    PhiloxRange r{seed_, offset_};
    offset_ += blocks;
    return r;
  }

 private:
  PhiloxGeneratorImpl* clone_impl() const override {
    auto* g = new PhiloxGeneratorImpl(device().index(), seed_);
    g->offset_ = offset_;
    return g;
  }

  uint64_t seed_;
  uint64_t offset_ = 0;
};

namespace impl {
void register_generator() {
  register_generator_factory(gpu::kGpuDevice, [](DeviceIndex index) {
    return make_generator<PhiloxGeneratorImpl>(index < 0 ? current_device() : index);
  });
}
}  // namespace impl

namespace {

// Fills `self` (any layout) with `kind`: the kernel writes a contiguous buffer in row-major order,
// copied into self when self is not contiguous, so values follow the element index as on the CPU.
void fill_random(const char* op, gpu::RandomKind kind, Tensor& self, double a, double b,
                 const std::optional<Generator>& generator, int64_t from = 0, uint64_t range = 0) {
  native::check_defined(op, self, "self");
  OptionalDeviceGuard guard(self.device());
  auto* gen = get_generator_or_default<PhiloxGeneratorImpl>(generator, detail::getDefaultGenerator(self.device()), op);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(self.dtype()) && !is_quantized_type(self.dtype()),
                              "[{}] the {} plugin has no random kernel for {} tensors yet", op, gpu::kGpuLabel,
                              self.dtype());
  Tensor buf = self.is_contiguous() ? self : empty_cuda(self.sizes(), self.dtype());
  gpu::RandomArgs r;
  r.out = static_cast<char*>(buf.data_ptr());
  r.n = buf.numel();
  r.dtype = static_cast<int8_t>(buf.dtype());
  r.a = a;
  r.b = b;
  r.from = from;
  r.range = range;
  const PhiloxRange blocks = gen->reserve(static_cast<uint64_t>(gpu::random_blocks(kind, r.dtype, r.n)));
  r.seed = blocks.seed;
  r.offset = blocks.offset;
  check_launch(gpu::launch_random(kind, r, stream()), op, self.dtype());
  if (!buf.is_same(self)) EMBER_GPU_NS::copy_(self, buf, false);
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, std::optional<Generator> generator) {
  native::check_defined("uniform_", self, "self");
  native::check_uniform(self, from, to);
  fill_random("uniform_", gpu::RandomKind::Uniform, self, from, to, generator);
  return self;
}

Tensor& normal_(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  native::check_defined("normal_", self, "self");
  native::check_normal(self, std);
  fill_random("normal_", gpu::RandomKind::Normal, self, mean, std, generator);
  return self;
}

// Integers in [from, end) (native::random_from_end's default end for the dtype), two a Philox
// block, as the cpu's.
Tensor& random_from(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  native::check_defined("random_", self, "self");
  const __int128 end = native::random_from_end(self, from, to);
  const auto span = static_cast<unsigned __int128>(end - from);  // in [1, 2^64]
  fill_random("random_", gpu::RandomKind::Integer, self, 0, 0, generator, from, static_cast<uint64_t>(span));
  return self;
}

// The permutation is drawn on the host (ember/native/Randperm.h: Fisher-Yates is sequential) from
// the device generator's stream, so a seed gives the cpu's permutation, then copied over.
Tensor randperm_generator(int64_t n, std::optional<Generator> generator, OptDtype dtype, OptLayout layout,
                          OptDevice device, OptBool pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == kStrided, "[randperm] only the strided layout is supported");
  EMBER_CHECK(!device || device->type() == gpu::kGpuDevice, "[randperm] the {} kernel was asked for a tensor on {}",
              gpu::kGpuLabel, *device);
  EMBER_CHECK(!pin_memory.value_or(false), "[randperm] only dense CPU tensors can be pinned");
  const ScalarType dt = dtype.value_or(kInt64);
  native::check_randperm(n, dt);
  const DeviceIndex index = device ? device->index() : -1;
  impl::check_device("randperm", index);
  const Device d(gpu::kGpuDevice, index >= 0 ? index : impl::current_device());
  OptionalDeviceGuard guard(d);
  auto* gen = get_generator_or_default<PhiloxGeneratorImpl>(generator, detail::getDefaultGenerator(d), "randperm");
  const PhiloxRange r = gen->reserve(native::randperm_blocks(n));
  Tensor host = ember::empty({n}, TensorOptions().dtype(kInt64));
  native::randperm_fill(host.data_ptr<int64_t>(), n, r.seed, r.offset);
  Tensor out = empty_cuda({n}, dt);
  return EMBER_GPU_NS::copy_(out, host, false);
}

Tensor randperm(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return EMBER_GPU_NS::randperm_generator(n, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor& randperm_out(int64_t n, Tensor& out) {
  native::check_defined("randperm", out, "out");
  const Tensor r =
      EMBER_GPU_NS::randperm_generator(n, std::nullopt, out.dtype(), std::nullopt, out.device(), std::nullopt);
  return write_out(out, r, "randperm");
}

Tensor& bernoulli_float(Tensor& self, double p, std::optional<Generator> generator) {
  native::check_bernoulli(p);
  fill_random("bernoulli_", gpu::RandomKind::Bernoulli, self, p, 0, generator);
  return self;
}

// The cpu's dropout: the mask is a bernoulli(1 - p) fill (the cpu's bits for a seed), the output
// native_dropout_backward of the input.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  const char* op = "native_dropout";
  OptionalDeviceGuard guard(device_of(input));
  const bool active = native::nn::check_native_dropout(op, gpu::kGpuDevice, input, p, train);
  Tensor mask = empty_cuda(input.sizes(), kBool);
  if (!active) {
    Tensor out = empty_cuda(input.sizes(), input.dtype());
    EMBER_GPU_NS::copy_(out, input, false);
    EMBER_GPU_NS::fill_(mask, Scalar(true));
    return {out, mask};
  }
  if (mask.numel() > 0) EMBER_GPU_NS::bernoulli_float(mask, 1 - p, std::nullopt);
  const double scale = p == 1 ? 0.0 : 1.0 / (1 - p);
  return {EMBER_GPU_NS::native_dropout_backward(input, mask, scale), mask};
}

// grad_output * scale where the mask is set, else 0 (an infinite or NaN gradient included).
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  const char* op = "native_dropout_backward";
  OptionalDeviceGuard guard(device_of(grad_output));
  native::nn::check_native_dropout_backward(op, gpu::kGpuDevice, grad_output, mask);
  const ScalarType dt = grad_output.dtype(), ct = compute_dtype(dt);
  Tensor out = empty_cuda(grad_output.sizes(), dt);
  TensorIter it(op);
  it.add_output(&out, dt).add_input(grad_output).add_input(mask).build();
  gpu::Value v;
  v.f = scale;
  check_launch(gpu::launch_binary(gpu::Binary::MaskedScale, to_dt(ct), kernel_iter(it), v, stream()), op, ct);
  return out;
}

}  // namespace ember::EMBER_GPU_NS
