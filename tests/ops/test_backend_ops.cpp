// The backend-generic operator harness: every operator with a CPU or composite kernel, every
// sample of OpInfo.cpp, every dtype and layout, run boxed on the CPU and on the backend under
// test (EMBER_TEST_BACKEND, meta by default), and compared. See Note [Backend op harness].
#include <gtest/gtest.h>

#include <fstream>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "OpInfo.h"
#include "OpTestUtil.h"
#include "ember/ember.h"
#include "ember/sparse/SparseTensorImpl.h"

using namespace ember;
using namespace ember::optest;

namespace {

// ---- the backend under test --------------------------------------------------------------------

struct Backend {
  std::string name;  // EMBER_TEST_BACKEND's value
  Device device;
  bool computes_values;     // false for meta: only geometry, dtypes and errors are compared
  bool same_random_stream;  // random ops give the CPU's values after the same manual_seed
  std::string unavailable;  // why the backend cannot run here (a GPU plugin with no device); "" if it can
};

Backend make_backend(const std::string& name) {
  if (name == "meta") {
    plugins::load("meta");
    return {name, Device(kMeta), false, false, ""};
  }
  if (name == "cpu") return {name, Device(kCPU), true, true, ""};  // the harness against itself
  // Any other device type a plugin registers (cuda, hip, ...): its plugin has the device's name,
  // unless EMBER_TEST_BACKEND_PLUGIN names another (cuda-emulated serves cuda on the host).
  // A GPU plugin loads without a GPU and reports no device: every case is then skipped.
  const char* plugin = std::getenv("EMBER_TEST_BACKEND_PLUGIN");
  plugins::load(plugin && *plugin ? plugin : name);
  // A GPU tensor's device has an index: "cuda" names the current device, cuda:0 here.
  const Device d(name);
  Backend b{name, d.has_index() ? d : Device(d.type(), 0), true, false, ""};
  if (device_count(b.device.type()) == 0)
    b.unavailable = "the " + name + " plugin loaded but reports no " + name + " device on this machine";
  return b;
}

// The operators a backend has no kernel for yet (directly or in a composite's callee): the file
// EMBER_TEST_MISSING_KERNELS names, one "aten::op" per line, # comments. Their samples that raise
// "no kernel for dispatch key" are not failures; any other difference still is. The list only
// shrinks: an operator on it that no longer misses a kernel fails until it is taken off.
const std::set<std::string>& missing_kernels() {
  static const std::set<std::string> m = [] {
    std::set<std::string> r;
    const char* path = std::getenv("EMBER_TEST_MISSING_KERNELS");
    if (path == nullptr || *path == '\0') return r;
    std::ifstream in(path);
    EMBER_CHECK(in.good(), "EMBER_TEST_MISSING_KERNELS: cannot read {}", path);
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
      if (!line.empty()) r.insert(line);
    }
    return r;
  }();
  return m;
}

const Backend& backend() {
  static const Backend b = [] {
    const char* env = std::getenv("EMBER_TEST_BACKEND");
    return make_backend(env && *env ? env : "meta");
  }();
  return b;
}

// ---- the operators under test: from the dispatch tables ----------------------------------------

// The keys an operator has a registered kernel for, read from its table dump.
std::set<std::string> registered_keys(const OperatorHandle& op) {
  std::set<std::string> keys;
  const std::string table = op.dump_table();
  const size_t reg = table.find("registered:\n"), comp = table.find("computed table:");
  if (reg == std::string::npos) return keys;
  std::istringstream lines(table.substr(reg, comp - reg));
  std::string line;
  std::getline(lines, line);  // "registered:"
  while (std::getline(lines, line)) {
    const size_t colon = line.find(':');
    if (line.rfind("  ", 0) == 0 && colon != std::string::npos) keys.insert(line.substr(2, colon - 2));
  }
  return keys;
}

std::vector<std::string> ops_under_test() {
  std::vector<std::string> names;
  for (const auto& op : Dispatcher::singleton().operators()) {
    const std::string name = op.operator_name();
    if (name.rfind("aten::", 0) != 0) continue;
    const auto keys = registered_keys(op);
    if (keys.count("CPU") || keys.count("CompositeExplicitAutograd") || keys.count("CompositeImplicitAutograd"))
      names.push_back(name);
  }
  return names;
}

// ---- layouts: the same values in other strides -------------------------------------------------

enum class MemLayout { Contiguous, Transposed, Sliced, Expanded, ChannelsLast };
constexpr MemLayout kLayouts[] = {MemLayout::Contiguous, MemLayout::Transposed, MemLayout::Sliced, MemLayout::Expanded,
                                  MemLayout::ChannelsLast};
const char* layout_name(MemLayout l) {
  switch (l) {
    case MemLayout::Contiguous:
      return "contiguous";
    case MemLayout::Transposed:
      return "transposed";
    case MemLayout::Sliced:
      return "sliced";
    case MemLayout::Expanded:
      return "expanded";
    default:
      return "channels-last";
  }
}

// `t` laid out as `l` (an expanded tensor repeats t's first slice along dim 0); undefined where
// the layout does not apply to t's shape. The gaps of a sliced tensor hold other values, so a
// kernel that reads them gives another result.
Tensor relayout(const Tensor& t, MemLayout l) {
  const int64_t n = t.dim();
  std::vector<int64_t> s(t.sizes().begin(), t.sizes().end());
  switch (l) {
    case MemLayout::Transposed: {
      if (n < 2) return {};
      std::swap(s[n - 1], s[n - 2]);
      Tensor base = ember::zeros(s, t.dtype()).transpose(-1, -2);
      return base.copy_(t);
    }
    case MemLayout::Sliced: {
      if (n < 1) return {};
      s[n - 1] *= 2;
      Tensor base = ember::ones(s, t.dtype()).slice(-1, 0, std::nullopt, 2);
      return base.copy_(t);
    }
    case MemLayout::Expanded:
      if (n < 1 || t.size(0) < 2) return {};
      return t.slice(0, 0, 1).clone().expand(t.sizes());
    case MemLayout::ChannelsLast: {
      if (n != 4) return {};
      Tensor base = ember::zeros({s[0], s[2], s[3], s[1]}, t.dtype()).permute({0, 3, 1, 2});
      return base.copy_(t);
    }
    default:
      return {};
  }
}

// Applies f to every tensor inside v (lists of tensors and of optional tensors too).
template <class F>
IValue map_tensors(const IValue& v, F&& f) {
  if (v.isTensor()) return f(v.toTensor());
  if (v.isTensorList()) {
    std::vector<Tensor> r;
    for (const Tensor& t : v.toTensorVector()) r.push_back(f(t));
    return r;
  }
  if (v.isList() || v.isTuple()) {
    std::vector<IValue> r;
    for (const IValue& x : v.toListRef()) r.push_back(map_tensors(x, f));
    return v.isList() ? IValue::make_list(std::move(r)) : IValue::make_tuple(std::move(r));
  }
  return v;
}

// The sample with every tensor it can change laid out as `l`; nullopt when none changed.
std::optional<SampleInput> relayout(const SampleInput& s, MemLayout l) {
  SampleInput r = s;
  bool changed = false;
  std::map<const TensorImpl*, Tensor> done;  // one tensor passed twice stays one tensor
  for (IValue& a : r.args) {
    a = map_tensors(a, [&](const Tensor& t) {
      if (!t.defined()) return t;
      auto it = done.find(t.unsafeGetTensorImpl());
      if (it != done.end()) return it->second;
      Tensor x = relayout(t, l);
      changed = changed || x.defined();
      return done[t.unsafeGetTensorImpl()] = x.defined() ? x : t;
    });
  }
  if (!changed) return std::nullopt;
  return r;
}

// ---- one run: the arguments copied to a device with their geometry, one boxed call ------------

// A copy of t on `dev` with t's sizes, strides and storage offset: its whole storage is copied,
// then viewed with as_strided. Tensors that share a storage share the copy.
Tensor to_device(const Tensor& t, Device dev, std::map<const StorageImpl*, Tensor>& storages) {
  if (!t.defined()) return t;
  const StorageImpl* key = t.unsafeGetTensorImpl()->storage().get();
  auto it = storages.find(key);
  if (it == storages.end()) {
    const auto numel = static_cast<int64_t>(t.unsafeGetTensorImpl()->storage()->nbytes() / t.itemsize());
    Tensor flat(make_intrusive<TensorImpl>(t.unsafeGetTensorImpl()->storage(), t.dtype(), IntArrayRef{numel}));
    it = storages.emplace(key, dev.type() == kCPU ? flat.clone() : flat.to(dev)).first;
  }
  return it->second.as_strided(t.sizes(), t.strides(), t.storage_offset());
}

bool is_device_type(const TypePtr& t) {
  return t->kind() == TypeKind::Device || (t->kind() == TypeKind::Optional && t->element()->kind() == TypeKind::Device);
}

struct Outcome {
  bool threw = false;
  std::string kind, message;  // the error's
  std::vector<IValue> args;   // the arguments as passed (mutated by the call)
  std::vector<IValue> outs;   // the results
  std::vector<bool> bumped;   // per argument: a Tensor(a!) whose version counter the call bumped
};

// Tensors PyTorch requires on the host whatever the device (tensor_split's indices) stay there
// on a backend with values (on meta their data is what the sample checks is refused).
bool is_host_argument(const Argument& a, Device dev) {
  return a.name() == "tensor_indices_or_sections" && dev.type() != kMeta;
}

bool is_missing_kernel(const Outcome& o) {
  return o.threw && o.kind == "NotImplementedError" &&
         o.message.find("no kernel for dispatch key") != std::string::npos;
}

Outcome run(const OperatorHandle& op, const SampleInput& s, Device dev, uint64_t seed) {
  const FunctionSchema& schema = op.schema();
  Outcome r;
  std::map<const StorageImpl*, Tensor> storages;
  const auto& sargs = schema.arguments();
  EMBER_INTERNAL_ASSERT(s.args.size() <= sargs.size(), "{}: sample '{}' has {} arguments, the schema {}",
                        schema.operator_name(), s.desc, s.args.size(), sargs.size());
  for (size_t i = 0; i < sargs.size(); ++i) {
    IValue a = i < s.args.size() ? s.args[i] : detail::default_ivalue(schema, sargs[i]);
    // A factory runs on the device under test: its device argument names it.
    if (is_device_type(sargs[i].type()) && (a.isNone() || a.isDevice())) a = IValue(dev);
    if (is_host_argument(sargs[i], dev)) {
      r.args.push_back(a);
      continue;
    }
    r.args.push_back(map_tensors(a, [&](const Tensor& t) { return to_device(t, dev, storages); }));
  }
  Stack stack;
  for (const IValue& a : r.args) stack.push_back(a);
  std::vector<uint64_t> versions;
  for (const IValue& a : r.args)
    versions.push_back(a.isTensor() && a.toTensor().defined() ? a.toTensor()._version() : 0);
  manual_seed(seed);
  try {
    op.callBoxed(stack);
    r.outs.assign(stack.begin(), stack.end());
    for (size_t i = 0; i < sargs.size(); ++i) {
      const auto& alias = sargs[i].alias_info();
      r.bumped.push_back(alias && alias->is_write && r.args[i].isTensor() && r.args[i].toTensor().defined() &&
                         r.args[i].toTensor()._version() > versions[i]);
    }
  } catch (const Error& e) {
    r.threw = true;
    r.kind = e.kind();
    r.message = e.what();
  } catch (const std::exception& e) {
    r.threw = true;
    r.kind = std::string("std::exception (") + typeid(e).name() + ")";
    r.message = e.what();
  }
  return r;
}

// ---- comparison ---------------------------------------------------------------------------------

// Per-dtype tolerances (PyTorch's assert_close defaults): |a - b| <= atol + rtol * |b|.
std::pair<double, double> tolerances(ScalarType t) {
  switch (t) {
    case kFloat16:
      return {1e-3, 1e-5};
    case kBFloat16:
      return {1.6e-2, 1e-5};
    case kFloat32:
      return {1.3e-6, 1e-5};
    case kFloat64:
      return {1e-7, 1e-7};
    default:
      return {0, 0};
  }
}

bool close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

// A message with the backend's device spelled as the CPU's, so "expected a meta tensor" matches
// "expected a cpu tensor" (both messages are normalized: one may name the other's device).
// Device names match in any case ("CUDA", "cuda") and "the CPU" reads as "cpu", so the cpu's
// "not implemented for dtype bool on the CPU" matches a GPU's "... on CUDA".
std::string normalize_device(std::string msg, Device dev) {
  if (dev.type() == kCPU) return msg;
  auto lower = [](std::string t) {
    for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return t;
  };
  for (const std::string& name : {dev.str(), Device(dev.type()).str(), std::string("the cpu"), std::string("cpu")}) {
    const std::string low = lower(msg), key = lower(name);
    std::string out;
    size_t from = 0;
    for (size_t p = low.find(key); p != std::string::npos; p = low.find(key, p + 1)) {
      const bool word_start = p == 0 || !std::isalnum(static_cast<unsigned char>(low[p - 1]));
      const size_t e = p + key.size();
      const bool word_end = e == low.size() || !std::isalnum(static_cast<unsigned char>(low[e]));
      if (!word_start || !word_end || p < from) continue;
      out += msg.substr(from, p - from) + "cpu";
      from = e;
    }
    msg = out + msg.substr(from);
  }
  return msg;
}

std::string geometry(const Tensor& t) {
  std::ostringstream os;
  os << t.dtype() << " sizes " << t.sizes() << " strides " << t.strides() << " offset " << t.storage_offset();
  return os.str();
}

struct Comparer {
  const Backend& be;
  bool compare_values;  // false for random ops (different streams) and for meta
  double rtol = 0, atol = 0;
  std::vector<std::string> problems{};

  void fail(const std::string& where, const std::string& what) { problems.push_back(where + ": " + what); }

  // Which argument a result is (same TensorImpl) and which it shares storage with (-1: none).
  static std::string alias_of(const Tensor& t, const std::vector<IValue>& args) {
    int same = -1, shares = -1;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].isTensor() || !args[i].toTensor().defined()) continue;
      const Tensor& a = args[i].toTensor();
      if (same < 0 && a.is_same(t)) same = static_cast<int>(i);
      if (shares < 0 && a.unsafeGetTensorImpl()->storage().get() == t.unsafeGetTensorImpl()->storage().get())
        shares = static_cast<int>(i);
    }
    return "is argument " + std::to_string(same) + ", shares storage with argument " + std::to_string(shares);
  }

  void tensors(const std::string& where, const Tensor& c, const Tensor& b, Device want_dev) {
    if (c.defined() != b.defined()) return fail(where, c.defined() ? "undefined on the backend" : "undefined on cpu");
    if (!c.defined()) return;
    if (c.layout() != kStrided || b.layout() != kStrided) return sparse(where, c, b, want_dev);
    if (geometry(c) != geometry(b)) return fail(where, "cpu " + geometry(c) + "\n    " + be.name + " " + geometry(b));
    if (b.device() != want_dev) fail(where, "on " + b.device().str() + ", expected " + want_dev.str());
    if (!compare_values || !be.computes_values || b.device() != want_dev) return;
    const auto cv = values(c), bv = values(b.device().type() == kCPU ? b : b.cpu());
    auto [rt, at] = tolerances(is_complex_type(c.dtype()) ? (c.dtype() == kComplex64 ? kFloat32 : kFloat64) : c.dtype());
    rt = std::max(rt, rtol);
    at = std::max(at, atol);
    for (size_t i = 0; i < cv.size(); ++i) {
      if (!close(bv[i], cv[i], rt, at)) {
        std::ostringstream os;
        os << "element " << i << ": cpu " << cv[i] << ", " << be.name << " " << bv[i];
        return fail(where, os.str());
      }
    }
  }

  // A sparse result (no strides of its own): its layout, sizes and dtype, then its members as
  // tensors (COO: coalesced flag, indices, values; CSR: crow/col indices, values).
  void sparse(const std::string& where, const Tensor& c, const Tensor& b, Device want_dev) {
    std::ostringstream cs, bs;
    cs << c.layout() << " " << c.dtype() << " sizes " << c.sizes();
    bs << b.layout() << " " << b.dtype() << " sizes " << b.sizes();
    if (cs.str() != bs.str()) return fail(where, "cpu " + cs.str() + "\n    " + be.name + " " + bs.str());
    if (b.device() != want_dev) fail(where, "on " + b.device().str() + ", expected " + want_dev.str());
    if (c.layout() == kSparse) {
      const auto &ci = sparse_coo_impl(c, "harness"), &bi = sparse_coo_impl(b, "harness");
      if (ci.coalesced() != bi.coalesced()) fail(where, "coalesced flags differ");
      tensors(where + " indices", ci.indices(), bi.indices(), want_dev);
      tensors(where + " values", ci.values(), bi.values(), want_dev);
    } else if (c.layout() == kSparseCsr) {
      const auto &ci = sparse_csr_impl(c, "harness"), &bi = sparse_csr_impl(b, "harness");
      tensors(where + " crow_indices", ci.crow_indices(), bi.crow_indices(), want_dev);
      tensors(where + " col_indices", ci.col_indices(), bi.col_indices(), want_dev);
      tensors(where + " values", ci.values(), bi.values(), want_dev);
    } else {
      fail(where, "layout " + cs.str() + " is not compared by the harness");
    }
  }

  void values_of(const std::string& where, const IValue& c, const IValue& b, Device dev) {
    if (c.tag() != b.tag())
      return fail(where, "cpu gives " + std::string(c.tag_name()) + ", backend " + std::string(b.tag_name()));
    if (c.isTensor()) return tensors(where, c.toTensor(), b.toTensor(), dev);
    if (c.isTensorList()) {
      const auto &cl = c.toTensorVector(), &bl = b.toTensorVector();
      if (cl.size() != bl.size()) return fail(where, "list lengths differ");
      for (size_t i = 0; i < cl.size(); ++i) tensors(where + "[" + std::to_string(i) + "]", cl[i], bl[i], dev);
      return;
    }
    if (c.isList() || c.isTuple()) {
      const auto &cl = c.toListRef(), &bl = b.toListRef();
      if (cl.size() != bl.size()) return fail(where, "list lengths differ");
      for (size_t i = 0; i < cl.size(); ++i) values_of(where + "[" + std::to_string(i) + "]", cl[i], bl[i], dev);
      return;
    }
    if (!be.computes_values) return;
    if (c.isDouble() ? !close(b.toDouble(), c.toDouble(), 1e-6, 1e-6) : c.repr() != b.repr())
      fail(where, "cpu " + c.repr() + ", " + be.name + " " + b.repr());
  }

  // Outputs (with aliasing), then the arguments after the call (out= and in-place writes).
  void runs(const FunctionSchema& schema, const Outcome& c, const Outcome& b, bool output_on_cpu) {
    // What the cpu plugin does not implement (float16 softmax, half-to-float softmax) the backend
    // may: nothing to compare against, whether the backend computes it or then rejects another
    // argument (an expanded out=) with its own error.
    if (c.threw && c.kind == "NotImplementedError" && (!b.threw || b.kind != "NotImplementedError")) return;
    if (c.threw || b.threw) {
      if (c.threw != b.threw)
        return fail("outcome", c.threw ? "cpu raised " + c.kind + ": " + c.message + "\n    " + be.name + " did not"
                                       : be.name + " raised " + b.kind + ": " + b.message + "\n    cpu did not");
      // Two NotImplementedErrors agree: each names its own backend's limit (the cpu has no
      // half-to-float softmax at all, a GPU only from float16).
      if (c.kind == "NotImplementedError" && b.kind == c.kind) return;
      if (c.kind != b.kind || normalize_device(c.message, be.device) != normalize_device(b.message, be.device))
        fail("error", "cpu " + c.kind + ": " + c.message + "\n    " + be.name + " " + b.kind + ": " + b.message);
      return;
    }
    if (c.outs.size() != b.outs.size()) return fail("outputs", "counts differ");
    const Device out_dev = output_on_cpu ? Device(kCPU) : be.device;
    for (size_t i = 0; i < c.outs.size(); ++i) {
      const std::string where = "output " + std::to_string(i);
      if (output_on_cpu && be.device.type() != kCPU && c.outs[i].isTensor() && b.outs[i].isTensor()) {
        // `cpu` returns a cpu tensor itself but copies one off another device (dense strides kept,
        // others made contiguous, as PyTorch): its values are compared, not its strides.
        tensors(where, c.outs[i].toTensor().contiguous(), b.outs[i].toTensor().contiguous(), out_dev);
        continue;
      }
      values_of(where, c.outs[i], b.outs[i], out_dev);
      auto aliases = [&](const std::string& w, const Tensor& ct, const Tensor& bt) {
        if (!ct.defined() || !bt.defined()) return;
        if (output_on_cpu && be.device.type() != kCPU) return;  // `cpu` copies off another device, as PyTorch
        const std::string ca = alias_of(ct, c.args), ba = alias_of(bt, b.args);
        if (ca != ba) fail(w, "cpu's " + ca + "\n    " + be.name + "'s " + ba);
      };
      if (c.outs[i].isTensor() && b.outs[i].isTensor()) aliases(where, c.outs[i].toTensor(), b.outs[i].toTensor());
      if (c.outs[i].isTensorList() && b.outs[i].isTensorList()) {
        const auto &cl = c.outs[i].toTensorVector(), &bl = b.outs[i].toTensorVector();
        for (size_t k = 0; k < cl.size() && k < bl.size(); ++k)
          aliases(where + "[" + std::to_string(k) + "]", cl[k], bl[k]);
      }
    }
    // Results share storage with each other on the backend exactly where they do on the cpu (a
    // backend returning one tensor as two results, where the cpu returns two, is caught here).
    if (!(output_on_cpu && be.device.type() != kCPU)) {
      std::vector<std::pair<Tensor, Tensor>> results;
      for (size_t i = 0; i < c.outs.size(); ++i) {
        if (c.outs[i].isTensor() && b.outs[i].isTensor())
          results.emplace_back(c.outs[i].toTensor(), b.outs[i].toTensor());
        if (c.outs[i].isTensorList() && b.outs[i].isTensorList()) {
          const auto &cl = c.outs[i].toTensorVector(), &bl = b.outs[i].toTensorVector();
          for (size_t k = 0; k < cl.size() && k < bl.size(); ++k) results.emplace_back(cl[k], bl[k]);
        }
      }
      auto storage = [](const Tensor& t) { return t.unsafeGetTensorImpl()->storage().get(); };
      for (size_t i = 0; i < results.size(); ++i)
        for (size_t j = i + 1; j < results.size(); ++j) {
          const auto& [ci, bi] = results[i];
          const auto& [cj, bj] = results[j];
          if (!ci.defined() || !cj.defined() || !bi.defined() || !bj.defined()) continue;
          const bool cs = storage(ci) == storage(cj), bs = storage(bi) == storage(bj);
          if (cs != bs)
            fail("results " + std::to_string(i) + " and " + std::to_string(j),
                 std::string(cs ? "share" : "do not share") + " storage on the cpu, " +
                     (bs ? "share" : "do not share") + " on " + be.name);
        }
    }
    // A result annotated Tensor(a!) is its argument annotated (a!): the same tensor.
    const auto& rets = schema.returns();
    for (size_t i = 0; i < rets.size() && i < c.outs.size(); ++i) {
      const auto& ra = rets[i].alias_info();
      if (!ra || !ra->is_write || !c.outs[i].isTensor() || !b.outs[i].isTensor()) continue;
      for (size_t j = 0; j < schema.arguments().size(); ++j) {
        const auto& aa = schema.arguments()[j].alias_info();
        if (!aa || aa->before_sets != ra->before_sets || !c.args[j].isTensor()) continue;
        if (!c.outs[i].toTensor().is_same(c.args[j].toTensor()))
          fail("output " + std::to_string(i), "cpu does not return its argument " + schema.arguments()[j].name());
        if (!b.outs[i].toTensor().is_same(b.args[j].toTensor()))
          fail("output " + std::to_string(i),
               be.name + " does not return its argument " + schema.arguments()[j].name());
      }
    }
    // Every Tensor(a!) argument is written: its version counter moves (autograd relies on it).
    for (size_t j = 0; j < schema.arguments().size(); ++j) {
      const auto& alias = schema.arguments()[j].alias_info();
      if (!alias || !alias->is_write || !c.args[j].isTensor() || !c.args[j].toTensor().defined()) continue;
      if (j >= c.bumped.size() || !c.bumped[j])
        fail("argument " + schema.arguments()[j].name(), "cpu did not bump its version");
      if (j >= b.bumped.size() || !b.bumped[j])
        fail("argument " + schema.arguments()[j].name(), be.name + " did not bump its version");
    }
    for (size_t j = 0; j < c.args.size(); ++j) {
      if (c.args[j].isTensor() || c.args[j].isTensorList() || c.args[j].isList())
        values_of("argument " + schema.arguments()[j].name() + " after the call", c.args[j], b.args[j],
                  is_host_argument(schema.arguments()[j], be.device) ? Device(kCPU) : be.device);
    }
  }
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

bool matches(const std::vector<std::string>& problems, const std::string& what) {
  for (const auto& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

// ---- the per-operator test ----------------------------------------------------------------------

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(6);  // drop "aten::"
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

class BackendOp : public testing::TestWithParam<std::string> {};

// What the whole run covered, printed at its end (CI logs show what a backend was checked on).
struct Totals : testing::Environment {
  int ops = 0, samples = 0, cpu_ok = 0, errors_checked = 0;
  void TearDown() override {
    std::cout << "[backend ops] " << backend().name << " against the cpu: " << ops << " operators, " << samples
              << " samples (" << cpu_ok << " ran on the cpu, the rest raised), " << errors_checked << " error inputs\n";
  }
};
Totals& totals = *static_cast<Totals*>(testing::AddGlobalTestEnvironment(new Totals));

// What one operator's run covered, printed when it fails.
struct Summary {
  int samples = 0, cpu_ok = 0, cpu_errors = 0, errors_checked = 0;
  std::set<std::string> dtypes_ok, dtypes_rejected;
  std::string str(const std::string& op) const {
    std::ostringstream os;
    os << op << ": " << samples << " samples run (" << cpu_ok << " ran on cpu, " << cpu_errors << " raised on cpu), "
       << errors_checked << " error inputs\n  dtypes run:";
    for (const auto& d : dtypes_ok) os << " " << d;
    os << "\n  dtypes that only raised:";
    for (const auto& d : dtypes_rejected)
      if (!dtypes_ok.count(d)) os << " " << d;
    return os.str();
  }
};

TEST_P(BackendOp, MatchesCpu) {
  const std::string& name = GetParam();
  const Backend& be = backend();
  if (!be.unavailable.empty()) GTEST_SKIP() << be.unavailable;
  if (skipped_ops().count(name)) GTEST_SKIP() << skipped_ops().at(name);
  const auto& db = op_db();
  auto it = db.find(name);
  ASSERT_NE(it, db.end()) << name << " has a CPU or composite kernel but no entry in tests/ops/OpInfo.cpp "
                          << "(add one, or list it in skipped_ops() with the reason)";
  const OpInfo& info = it->second;
  ASSERT_TRUE(info.samples) << name << ": no sample generator";
  const OperatorHandle op = *Dispatcher::singleton().findSchema(name);
  const FunctionSchema& schema = op.schema();
  const bool output_on_cpu = name == "aten::cpu";

  std::vector<KnownFailure> known;
  for (const auto& k : known_failures())
    if (k.op == name && (k.backend.empty() || k.backend == be.name)) known.push_back(k);
  std::vector<bool> known_hit(known.size(), false);

  Summary sum;
  int failures = 0, missing = 0;
  const bool listed_missing = missing_kernels().count(name) > 0;
  auto check = [&](const SampleInput& s, const std::string& where, uint64_t seed) -> Outcome {
    const Outcome c = run(op, s, kCPU, seed), b = run(op, s, be.device, seed);
    if (is_missing_kernel(b) && !is_missing_kernel(c)) {
      ++missing;
      if (listed_missing) return c;
    }
    const bool compare_values =
        info.values == Values::Compared || (info.values == Values::Random && be.same_random_stream);
    Comparer cmp{be, compare_values, info.rtol, info.atol};
    // Errors name their operator first (STYLE.md): "[add] ...".
    if (c.threw && c.message.rfind('[', 0) != 0) cmp.fail("error", "cpu's message is not led by [op]: " + c.message);
    if (s.reads_data && !be.computes_values && !c.threw) {
      // The CPU succeeded on a call whose result is the data: a backend without data refuses it.
      if (!b.threw || b.kind != "NotImplementedError")
        cmp.fail("outcome", be.name + " should raise NotImplementedError (the result is the data), " +
                                (b.threw ? "raised " + b.kind + ": " + b.message : "did not"));
    } else {
      cmp.runs(schema, c, b, output_on_cpu);
    }
    bool expected = false;
    for (size_t k = 0; k < known.size(); ++k) {
      if (where.find(known[k].sample) != std::string::npos && !cmp.problems.empty()) {
        known_hit[k] = expected = true;
      }
    }
    if (!cmp.problems.empty() && !expected && ++failures <= 20) {
      std::string msg = name + " | " + where;
      for (const auto& p : cmp.problems) msg += "\n  " + p;
      ADD_FAILURE() << msg;
    }
    return c;
  };

  for (ScalarType dt : kDtypes) {
    SampleCtx ctx(schema, dt, fnv1a(name) + static_cast<uint64_t>(dt));
    const Samples samples = info.samples(ctx);
    for (size_t i = 0; i < samples.size(); ++i) {
      const SampleInput& s = samples[i];
      for (MemLayout l : kLayouts) {
        std::optional<SampleInput> v;
        if (l == MemLayout::Contiguous)
          v = s;
        else if (l != MemLayout::Expanded || s.expand)
          v = relayout(s, l);
        if (!v) continue;
        const std::string where = std::string(dtype_name(dt)) + " | " + layout_name(l) + " | " +
                                  (s.desc.empty() ? "sample " + std::to_string(i) : s.desc);
        const Outcome c = check(*v, where, fnv1a(where));
        ++sum.samples;
        (c.threw ? sum.cpu_errors : sum.cpu_ok)++;
        (c.threw ? sum.dtypes_rejected : sum.dtypes_ok).insert(std::string(dtype_name(dt)));
      }
    }
  }
  if (info.errors) {
    SampleCtx ctx(schema, kFloat32, fnv1a(name + " errors"));
    for (const ErrorInput& e : info.errors(ctx)) {
      const std::string where = "error input | " + e.input.desc;
      const Outcome c = check(e.input, where, 0);
      ++sum.errors_checked;
      if (!c.threw) {
        ADD_FAILURE() << name << " | " << where << ": cpu did not raise (expected " << e.kind << ": " << e.message
                      << ")";
      } else if (c.kind != e.kind || c.message.find(e.message) == std::string::npos) {
        ADD_FAILURE() << name << " | " << where << ": cpu raised " << c.kind << ": " << c.message << "\n  expected "
                      << e.kind << " containing: " << e.message;
      }
    }
  }
  if (failures > 20) ADD_FAILURE() << name << ": " << failures - 20 << " more failing samples not shown";
  if (missing > 0 && !listed_missing)
    ADD_FAILURE() << name << ": " << missing << " samples miss a " << be.name
                  << " kernel (write it, or list the operator in EMBER_TEST_MISSING_KERNELS's file)";
  EXPECT_TRUE(!listed_missing || missing > 0)
      << name << " is listed as missing a " << be.name << " kernel but no sample misses one now: take it off the list";
  EXPECT_GT(sum.cpu_ok, 0) << name << ": no sample ran without error on the cpu, so nothing was compared";
  for (size_t k = 0; k < known.size(); ++k)
    EXPECT_TRUE(known_hit[k]) << name << ": the known failure '" << known[k].sample << "' (" << known[k].reason
                              << ") passes now: remove it from known_failures() in OpInfo.cpp";
  if (HasFailure()) std::cout << sum.str(name) << "\n";
  totals.ops += 1;
  totals.samples += sum.samples;
  totals.cpu_ok += sum.cpu_ok;
  totals.errors_checked += sum.errors_checked;
}

INSTANTIATE_TEST_SUITE_P(Ops, BackendOp, testing::ValuesIn(ops_under_test()), test_name);

// ---- the tables themselves ------------------------------------------------------------------

TEST(BackendOps, TablesNameRegisteredOperators) {
  const auto ops = ops_under_test();
  ASSERT_GT(ops.size(), 200u);  // the dump parse found the cpu plugin's kernels
  const std::set<std::string> under_test(ops.begin(), ops.end());
  for (const auto& [name, info] : op_db()) {
    EXPECT_TRUE(under_test.count(name)) << name << " has an OpInfo but no CPU or composite kernel";
    EXPECT_EQ(name, info.name) << "op_db() key and OpInfo name differ";
  }
  for (const auto& [name, why] : skipped_ops()) {
    EXPECT_TRUE(under_test.count(name)) << name << " is skipped but has no CPU or composite kernel";
    EXPECT_FALSE(why.empty()) << name << " is skipped without a reason";
    EXPECT_FALSE(op_db().count(name)) << name << " is skipped and has an OpInfo";
  }
  for (const auto& k : known_failures()) {
    EXPECT_TRUE(under_test.count(k.op)) << k.op << " is a known failure but no operator under test";
    EXPECT_FALSE(k.reason.empty()) << k.op;
  }
}

// ---- the harness's own checks: each would let a broken backend through if it were wrong ----------

TEST(BackendHarness, LayoutsKeepValuesAndChangeStrides) {
  const FunctionSchema schema = parse_schema("f(Tensor x) -> Tensor");
  SampleCtx ctx(schema, kFloat32, 1);
  const Tensor t = ctx.t({2, 3, 4, 5});
  const Tensor tr = relayout(t, MemLayout::Transposed), sl = relayout(t, MemLayout::Sliced);
  const Tensor ex = relayout(t, MemLayout::Expanded), cl = relayout(t, MemLayout::ChannelsLast);
  EXPECT_EQ(tr.strides(), IntArrayRef({60, 20, 1, 4}));
  EXPECT_EQ(sl.strides(), IntArrayRef({120, 40, 10, 2}));
  EXPECT_EQ(ex.strides(), IntArrayRef({0, 20, 5, 1}));
  EXPECT_EQ(cl.strides(), IntArrayRef({60, 1, 15, 3}));
  for (const Tensor& x : {tr, sl, cl}) EXPECT_EQ(values(x), values(t));
  EXPECT_EQ(values(ex.select(0, 1)), values(t.select(0, 0)));
  EXPECT_FALSE(relayout(ctx.t({3}), MemLayout::Transposed).defined());
  EXPECT_FALSE(relayout(ctx.t({3, 4}), MemLayout::ChannelsLast).defined());
  // One tensor passed twice stays one tensor (so in-place aliasing is kept).
  SampleInput s{{t, t}, "twice"};
  const auto r = relayout(s, MemLayout::Transposed);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->args[0].toTensor().is_same(r->args[1].toTensor()));
}

TEST(BackendHarness, ArgumentsKeepTheirGeometryOnTheBackend) {
  if (!backend().unavailable.empty()) GTEST_SKIP() << backend().unavailable;
  const Tensor base = ember::arange(0, 24, TensorOptions(kFloat32)).view({4, 6});
  const Tensor v = base.slice(1, 1, std::nullopt, 2).t();  // strides (2, 6), offset 1
  std::map<const StorageImpl*, Tensor> storages;
  const Tensor m = to_device(v, backend().device, storages), b = to_device(base, backend().device, storages);
  EXPECT_EQ(m.device(), backend().device);
  EXPECT_EQ(geometry(m), geometry(v));
  // Two tensors of one storage share the copy; a cpu copy is a copy, not the same memory.
  EXPECT_EQ(m.unsafeGetTensorImpl()->storage().get(), b.unsafeGetTensorImpl()->storage().get());
  std::map<const StorageImpl*, Tensor> cpu_storages;
  const Tensor c = to_device(v, kCPU, cpu_storages);
  EXPECT_NE(c.unsafeGetTensorImpl()->storage().get(), v.unsafeGetTensorImpl()->storage().get());
  EXPECT_EQ(values(c), values(v));
}

// What the cpu-against-cpu comparison of two results finds.
std::vector<std::string> problems(const Tensor& a, const Tensor& b) {
  static const Backend cpu = make_backend("cpu");
  Comparer cmp{cpu, true};
  cmp.tensors("x", a, b, kCPU);
  return cmp.problems;
}

TEST(BackendHarness, ComparisonCatchesEachDifference) {
  const Tensor a = ember::tensor({1.0, 2.0, std::nan(""), 4.0});
  EXPECT_TRUE(problems(a, a.clone()).empty());  // NaN equals NaN
  EXPECT_TRUE(problems(a, a + 1e-7).empty());   // within float32's tolerance
  EXPECT_FALSE(problems(a, a + 1e-3).empty());
  EXPECT_FALSE(problems(a, a.to(kFloat64)).empty());
  EXPECT_FALSE(problems(a, a.view({2, 2})).empty());
  EXPECT_FALSE(problems(a.view({2, 2}), a.view({2, 2}).t().contiguous().t()).empty());  // strides
  EXPECT_FALSE(problems(a, Tensor()).empty());
  const Tensor i = ember::tensor({1, 2, 3});
  EXPECT_FALSE(problems(i, i + 1).empty());  // integers exactly
  EXPECT_TRUE(problems(ember::tensor({1.0f}), ember::tensor({1.0f + 1e-6f})).empty());
  // Values are not compared on a backend without them, or for random ops.
  Comparer meta{make_backend("meta"), true};
  meta.tensors("x", a, (a + 1).to(kMeta), kMeta);
  EXPECT_TRUE(meta.problems.empty());
  meta.tensors("x", a, a.to(kMeta), kCPU);
  EXPECT_FALSE(meta.problems.empty());  // on the wrong device
}

TEST(BackendHarness, SparseResultsAreComparedMemberByMember) {
  const Tensor ix = ember::tensor({{0, 1, 1}, {2, 0, 2}}, kInt64), v = ember::tensor({1.0f, 2.0f, 3.0f});
  const Tensor s = sparse_coo_tensor(ix, v, {2, 3});
  EXPECT_TRUE(problems(s, sparse_coo_tensor(ix.clone(), v.clone(), {2, 3})).empty());
  EXPECT_FALSE(problems(s, sparse_coo_tensor(ix, v.add(1), {2, 3})).empty());               // values
  EXPECT_FALSE(problems(s, sparse_coo_tensor(ix.flip({1}), v.flip({0}), {2, 3})).empty());  // entry order
  EXPECT_FALSE(problems(s, sparse_coo_tensor(ix, v, {2, 4})).empty());                      // sizes
  EXPECT_FALSE(problems(s, make_sparse_coo({2, 3}, ix, v, true)).empty());                  // coalesced flag
  EXPECT_FALSE(problems(s, sparse_coo_tensor(ix, v.to(kFloat64), {2, 3})).empty());         // dtype
  const Tensor d = ember::tensor({{0.0f, 1.0f}, {2.0f, 0.0f}});
  const Tensor csr = sparse_csr_tensor(ember::tensor({0, 1, 2}, kInt64), ember::tensor({1, 0}, kInt64),
                                       ember::tensor({1.0f, 2.0f}), {2, 2});
  EXPECT_TRUE(problems(csr, sparse_csr_tensor(ember::tensor({0, 1, 2}, kInt64), ember::tensor({1, 0}, kInt64),
                                              ember::tensor({1.0f, 2.0f}), {2, 2}))
                  .empty());
  EXPECT_FALSE(problems(csr, sparse_csr_tensor(ember::tensor({0, 1, 2}, kInt32), ember::tensor({1, 0}, kInt32),
                                               ember::tensor({1.0f, 2.0f}), {2, 2}))
                   .empty());              // index dtype
  EXPECT_FALSE(problems(csr, d).empty());  // layout
}

TEST(BackendHarness, ErrorsMatchModuloTheDeviceName) {
  EXPECT_EQ(normalize_device("[add] expected a meta tensor, got one on metadata", Device(kMeta)),
            "[add] expected a cpu tensor, got one on metadata");
  EXPECT_EQ(normalize_device("[f] not implemented for dtype bool on the CPU", Device(kCUDA)),
            normalize_device("[f] not implemented for dtype bool on CUDA", Device(kCUDA)));
  EXPECT_NE(normalize_device("[f] not implemented for dtype bool on the CPU", Device(kCUDA)),
            normalize_device("[f] not implemented for dtype int8 on CUDA", Device(kCUDA)));
  const Backend meta = make_backend("meta");
  const FunctionSchema s = parse_schema("f(Tensor x) -> Tensor");
  Outcome c, b;
  c.threw = b.threw = true;
  c.kind = b.kind = "ValueError";
  c.message = "[f] x on cpu";
  b.message = "[f] x on meta";
  Comparer same{meta, true};
  same.runs(s, c, b, false);
  EXPECT_TRUE(same.problems.empty());
  b.kind = "TypeError";
  Comparer kind{meta, true};
  kind.runs(s, c, b, false);
  EXPECT_FALSE(kind.problems.empty());
  b.kind = "ValueError";
  b.message = "[f] x on meta!";
  Comparer msg{meta, true};
  msg.runs(s, c, b, false);
  EXPECT_FALSE(msg.problems.empty());
  b.threw = false;
  Comparer one{meta, true};
  one.runs(s, c, b, false);
  EXPECT_FALSE(one.problems.empty());
}

TEST(BackendHarness, AliasingAndOutArgumentsAreCompared) {
  const FunctionSchema s = parse_schema("f(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  const Backend cpu = make_backend("cpu");
  const Tensor x = ember::ones({2}), out = ember::zeros({2});
  Outcome c, b;
  c.args = {x, out};
  c.outs = {out};
  b.args = {x.clone(), out.clone()};
  b.outs = {b.args[1]};
  c.bumped = b.bumped = {false, true};
  Comparer ok{cpu, true};
  ok.runs(s, c, b, false);
  EXPECT_TRUE(ok.problems.empty()) << ok.problems.front();
  b.outs = {b.args[1].toTensor().clone()};  // a copy of out, not out
  Comparer copy{cpu, true};
  copy.runs(s, c, b, false);
  EXPECT_TRUE(matches(copy.problems, "does not return its argument out"));
  b.outs = {b.args[1]};
  b.args[1].toTensor().fill_(3);  // out written differently
  Comparer written{cpu, true};
  written.runs(s, c, b, false);
  EXPECT_TRUE(matches(written.problems, "argument out after the call"));
}

TEST(BackendHarness, ResultsSharingStorageAreCompared) {
  const FunctionSchema s = parse_schema("f(Tensor self) -> (Tensor, Tensor)");
  const Backend cpu = make_backend("cpu");
  const Tensor x = ember::ones({2});
  Outcome c, b;
  c.args = {x};
  c.outs = {ember::zeros({2}), ember::zeros({2})};  // two tensors of their own
  b.args = {x.clone()};
  b.outs = {ember::zeros({2}), ember::zeros({2})};
  Comparer ok{cpu, true};
  ok.runs(s, c, b, false);
  EXPECT_TRUE(ok.problems.empty()) << ok.problems.front();
  b.outs = {b.outs[0], b.outs[0]};  // one tensor returned twice
  Comparer twice{cpu, true};
  twice.runs(s, c, b, false);
  EXPECT_TRUE(matches(twice.problems, "results 0 and 1: do not share storage on the cpu, share on cpu"));
}

}  // namespace
