#include "Node.h"

#include <cxxabi.h>
#include <execinfo.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>

#include "ember/core/DeviceGuard.h"

namespace ember::autograd {

namespace {
thread_local uint64_t tls_sequence_nr = 0;
std::atomic<unsigned> g_hook_handle{0};
}  // namespace

uint64_t next_sequence_nr() { return tls_sequence_nr++; }

namespace {
thread_local std::shared_ptr<NodeImpl> tls_current_node;
}  // namespace
const std::shared_ptr<NodeImpl>& current_node() { return tls_current_node; }
CurrentNodeGuard::CurrentNodeGuard(std::shared_ptr<NodeImpl> n) : prev_(std::move(tls_current_node)) {
  tls_current_node = std::move(n);
}
CurrentNodeGuard::~CurrentNodeGuard() { tls_current_node = std::move(prev_); }
unsigned next_hook_handle() { return ++g_hook_handle; }

std::string describe_tensor(const TensorBase& t) {
  std::string dev(device_type_name(t.device().type()));
  for (char& c : dev) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return fmt::format("[{}{}Type [{}]]", dev, scalar_type_name(t.scalar_type()), fmt::join(t.sizes(), ", "));
}

bool InputMetadata::is_expandable_to(IntArrayRef grad_shape) const {
  // Can a gradient of grad_shape be summed down to `shape`? (grad_shape is the broadcast one.)
  if (grad_shape.size() < shape.size()) return false;
  const size_t lead = grad_shape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != grad_shape[lead + i] && shape[i] != 1) return false;
  return true;
}

NodeImpl::NodeImpl(edge_list next_edges) : NodeImpl(next_sequence_nr(), std::move(next_edges)) {}
NodeImpl::NodeImpl(uint64_t sequence_nr, edge_list next_edges)
    : sequence_nr_(sequence_nr), next_edges_(std::move(next_edges)) {}
namespace {
// Nodes whose last owner was a node being destroyed; drained by the outermost ~NodeImpl.
thread_local std::vector<std::shared_ptr<NodeImpl>>* tls_dying = nullptr;
}  // namespace

NodeImpl::~NodeImpl() {
  std::vector<std::shared_ptr<NodeImpl>>* outer = tls_dying;
  std::vector<std::shared_ptr<NodeImpl>> local;
  if (!outer) tls_dying = &local;
  for (Edge& e : next_edges_)
    if (e.function && e.function.use_count() == 1) tls_dying->push_back(std::move(e.function));
  if (outer) return;  // the outermost destructor frees them
  while (!local.empty()) {
    std::shared_ptr<NodeImpl> n = std::move(local.back());
    local.pop_back();
    n.reset();  // its destructor appends its own children to `local`
  }
  tls_dying = nullptr;
}

std::vector<std::pair<std::shared_ptr<Node>, uint32_t>> NodeImpl::next_functions() const {
  std::vector<std::pair<std::shared_ptr<Node>, uint32_t>> r;
  r.reserve(next_edges_.size());
  for (const Edge& e : next_edges_) r.emplace_back(e.function, e.input_nr);
  return r;
}

uint32_t NodeImpl::add_input_metadata(const Tensor& t) {
  InputMetadata m;
  m.shape = SmallVector<int64_t, 5>(t.sizes());
  m.dtype = t.scalar_type();
  m.device = t.device();
  if (m.device.type() != kCPU && m.device.type() != kMeta && impl::hasDeviceGuardImpl(m.device.type()))
    m.stream = current_stream(m.device);
  input_metadata_.push_back(std::move(m));
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

std::optional<Stream> NodeImpl::stream() const {
  for (const InputMetadata& m : input_metadata_)
    if (m.stream) return m.stream;
  return std::nullopt;
}

uint32_t NodeImpl::add_input_metadata_undefined() {
  input_metadata_.push_back(InputMetadata{});
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

unsigned NodeImpl::register_prehook(PreHook hook) {
  EMBER_CHECK(static_cast<bool>(hook), "[{}.register_prehook] the hook is empty", name());
  unsigned h = next_hook_handle();
  pre_hooks_.emplace_back(h, std::move(hook));
  return h;
}

unsigned NodeImpl::register_hook(PostHook hook) {
  EMBER_CHECK(static_cast<bool>(hook), "[{}.register_hook] the hook is empty", name());
  unsigned h = next_hook_handle();
  post_hooks_.emplace_back(h, std::move(hook));
  return h;
}

bool NodeImpl::remove_hook(unsigned handle) {
  auto erase = [&](auto& v, auto key) {
    auto it = std::find_if(v.begin(), v.end(), [&](const auto& x) { return key(x) == handle; });
    if (it == v.end()) return false;
    v.erase(it);
    return true;
  };
  return erase(pre_hooks_, [](const auto& x) { return x.first; }) ||
         erase(post_hooks_, [](const auto& x) { return x.first; }) ||
         erase(tensor_hooks_, [](const TensorHook& x) { return x.handle; });
}

unsigned NodeImpl::add_tensor_hook(uint32_t input_nr, std::function<Tensor(const Tensor&)> hook) {
  unsigned h = next_hook_handle();
  tensor_hooks_.push_back({h, input_nr, std::move(hook)});
  return h;
}

void NodeImpl::set_retain_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook) {
  for (auto& [nr, fn] : retain_grad_hooks_)
    if (nr == input_nr) {
      fn = std::move(hook);
      return;
    }
  retain_grad_hooks_.emplace_back(input_nr, std::move(hook));
}

bool NodeImpl::has_retain_grad_hook(uint32_t input_nr) const {
  return std::any_of(retain_grad_hooks_.begin(), retain_grad_hooks_.end(),
                     [&](const auto& x) { return x.first == input_nr; });
}

void NodeImpl::run_pre_hooks(variable_list& grads) {
  for (const TensorHook& h : tensor_hooks_) {
    if (h.input_nr >= grads.size() || !grads[h.input_nr].defined()) continue;
    Tensor r = h.fn(grads[h.input_nr]);
    if (r.defined()) grads[h.input_nr] = std::move(r);
  }
  for (auto& [nr, fn] : retain_grad_hooks_)
    if (nr < grads.size() && grads[nr].defined()) fn(grads[nr]);
  for (auto& [h, fn] : pre_hooks_) {
    variable_list r = fn(grads);
    if (r.empty()) continue;
    EMBER_CHECK(r.size() == grads.size(), "[{}] a pre-hook returned {} gradients, expected {}", name(), r.size(),
                grads.size());
    grads = std::move(r);
  }
}

void NodeImpl::run_post_hooks(variable_list& grad_inputs, const variable_list& grad_outputs) {
  for (auto& [h, fn] : post_hooks_) {
    variable_list r = fn(grad_inputs, grad_outputs);
    if (r.empty()) continue;
    EMBER_CHECK(r.size() == grad_inputs.size(), "[{}] a hook returned {} gradients, expected {}", name(), r.size(),
                grad_inputs.size());
    grad_inputs = std::move(r);
  }
}

void NodeImpl::record_forward_trace(const char* op) {
  void* frames[48];
  int n = ::backtrace(frames, 48);
  char** syms = ::backtrace_symbols(frames, n);
  std::string s = fmt::format("Traceback of forward call that caused the error ({}):\n", op);
  for (int i = 1; i < n && syms; ++i) {
    std::string line = syms[i];
    // "lib(mangled+0x12) [0x...]": demangle the symbol part when there is one.
    auto open = line.find('('), plus = line.find('+', open == std::string::npos ? 0 : open);
    if (open != std::string::npos && plus != std::string::npos && plus > open + 1) {
      std::string mangled = line.substr(open + 1, plus - open - 1);
      int status = 0;
      char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
      if (status == 0 && d) line = line.substr(0, open + 1) + d + line.substr(plus);
      std::free(d);
    }
    s += fmt::format("  #{} {}\n", i - 1, line);
  }
  std::free(syms);
  forward_trace_ = std::move(s);
}

}  // namespace ember::autograd
