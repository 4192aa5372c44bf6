#include "ember/ao/quantization/quantize.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ember/nn/modules/Dropout.h"
#include "ember/nn/modules/Linear.h"
#include "ember/nn/modules/Pooling.h"
#include "ember/nn/quantized/modules.h"

namespace ember::ao::quantization {

namespace {

// The entries of a Sequential with their names, in order.
std::vector<std::pair<std::string, nn::AnyModule>> entries(const nn::SequentialImpl& seq) {
  std::vector<std::pair<std::string, nn::AnyModule>> out;
  const auto names = seq.named_children();
  EMBER_CHECK(names.size() == seq.size(),
              "[ember::ao::quantization] a Sequential that holds one module under several names is not supported");
  size_t i = 0;
  for (const auto& m : seq) out.emplace_back(names[i++].key(), m);
  return out;
}

template <class T>
bool is(const nn::AnyModule& m) {
  return m.ptr()->as<T>() != nullptr;
}

// Entries that only move or select values: they take quantized tensors as they are.
bool passes_quantized(const nn::AnyModule& m) {
  return is<nn::ReLUImpl>(m) || is<nn::MaxPool2dImpl>(m) || is<nn::AvgPool2dImpl>(m) ||
         is<nn::AdaptiveAvgPool2dImpl>(m) || is<nn::FlattenImpl>(m) || is<nn::IdentityImpl>(m) ||
         is<nn::DropoutImpl>(m);
}

// Entries prepare() observes (their output is quantized after convert).
bool observed_type(const nn::AnyModule& m) {
  return is<nn::Conv2dImpl>(m) || is<nn::LinearImpl>(m) || is<nn::intrinsic::ConvReLU2dImpl>(m) ||
         is<nn::intrinsic::LinearReLUImpl>(m) || is<QuantStubImpl>(m);
}

[[noreturn]] void unsupported(const char* fn, const std::string& name, const nn::AnyModule& m) {
  EMBER_THROW(NotImplementedError,
              "[{}] entry '{}' is a {}: eager-mode quantization supports Conv2d, Linear, their fusions with ReLU, "
              "QuantStub/DeQuantStub and the pass-through ReLU, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, Flatten, "
              "Identity and Dropout",
              fn, name, m.ptr()->name());
}

}  // namespace

// ---- stubs, qconfig --------------------------------------------------------------------------

void QuantStubImpl::reset() {}
void QuantStubImpl::pretty_print(std::ostream& stream) const { stream << "ember::ao::quantization::QuantStub()"; }
Tensor QuantStubImpl::forward(const Tensor& input) { return input; }

void DeQuantStubImpl::reset() {}
void DeQuantStubImpl::pretty_print(std::ostream& stream) const { stream << "ember::ao::quantization::DeQuantStub()"; }
Tensor DeQuantStubImpl::forward(const Tensor& input) { return input; }

QConfig get_default_qconfig(const std::string& backend) {
  if (backend == "x86" || backend == "fbgemm")
    return {[] { return std::make_shared<HistogramObserverImpl>(HistogramObserverOptions().reduce_range(true)); },
            [] {
              return std::make_shared<PerChannelMinMaxObserverImpl>(
                  PerChannelMinMaxObserverOptions().dtype(kQInt8).qscheme(kPerChannelSymmetric));
            }};
  if (backend == "onednn")
    return {[] { return std::make_shared<HistogramObserverImpl>(); },
            [] {
              return std::make_shared<PerChannelMinMaxObserverImpl>(
                  PerChannelMinMaxObserverOptions().dtype(kQInt8).qscheme(kPerChannelSymmetric));
            }};
  if (backend == "qnnpack")
    return {[] { return std::make_shared<HistogramObserverImpl>(); },
            [] {
              return std::make_shared<MinMaxObserverImpl>(
                  MinMaxObserverOptions().dtype(kQInt8).qscheme(kPerTensorSymmetric));
            }};
  EMBER_THROW(ValueError, "[get_default_qconfig] backend: expected x86, fbgemm, onednn or qnnpack, got '{}'", backend);
}

std::shared_ptr<ObserverBase> activation_post_process(const nn::Module& module) {
  const auto children = module.named_children();
  const auto* found = children.find("activation_post_process");
  return found ? std::dynamic_pointer_cast<ObserverBase>(*found) : nullptr;
}

const QConfig& module_qconfig(const nn::Module& module, const char* who) {
  auto obs = activation_post_process(module);
  EMBER_CHECK(obs != nullptr && obs->qconfig != nullptr,
              "[{}] {} has no qconfig: prepare() the model (which attaches observers and the qconfig) first", who,
              module.name());
  return *obs->qconfig;
}

// ---- fuse_modules ----------------------------------------------------------------------------

nn::Sequential fuse_modules(const nn::Sequential& model, const std::vector<std::vector<std::string>>& groups) {
  constexpr const char* fn = "fuse_modules";
  auto items = entries(*model);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < items.size(); ++i) index[items[i].first] = i;
  // Check every group before building anything.
  std::vector<std::pair<size_t, size_t>> pairs;
  std::vector<bool> used(items.size(), false);
  for (const auto& g : groups) {
    EMBER_CHECK_NOT_IMPLEMENTED(g.size() == 2,
                                "[{}] groups of {} modules are not supported: fuse pairs (Conv2d, ReLU) or (Linear, "
                                "ReLU)",
                                fn, g.size());
    size_t at[2];
    for (int k = 0; k < 2; ++k) {
      const auto it = index.find(g[static_cast<size_t>(k)]);
      EMBER_CHECK(it != index.end(), "[{}] the Sequential has no entry named '{}'", fn, g[static_cast<size_t>(k)]);
      EMBER_CHECK(!used[it->second], "[{}] entry '{}' is in more than one group", fn, g[static_cast<size_t>(k)]);
      used[it->second] = true;
      at[k] = it->second;
    }
    const auto& a = items[at[0]].second;
    const auto& b = items[at[1]].second;
    EMBER_CHECK_NOT_IMPLEMENTED((is<nn::Conv2dImpl>(a) || is<nn::LinearImpl>(a)) && is<nn::ReLUImpl>(b),
                                "[{}] cannot fuse ('{}': {}, '{}': {}): supported pairs are (Conv2d, ReLU) and "
                                "(Linear, ReLU)",
                                fn, g[0], a.ptr()->name(), g[1], b.ptr()->name());
    pairs.emplace_back(at[0], at[1]);
  }
  std::vector<nn::AnyModule> out;
  for (auto& item : items) out.push_back(item.second.clone());
  for (const auto& [i, j] : pairs) {
    auto relu = out[j].ptr<nn::ReLUImpl>();
    if (out[i].ptr()->as<nn::Conv2dImpl>() != nullptr)
      out[i] = nn::AnyModule(std::make_shared<nn::intrinsic::ConvReLU2dImpl>(
          nn::Conv2d(std::dynamic_pointer_cast<nn::Conv2dImpl>(out[i].ptr())), nn::ReLU(relu)));
    else
      out[i] = nn::AnyModule(std::make_shared<nn::intrinsic::LinearReLUImpl>(
          nn::Linear(std::dynamic_pointer_cast<nn::LinearImpl>(out[i].ptr())), nn::ReLU(relu)));
    out[j] = nn::AnyModule(nn::Identity());
  }
  nn::Sequential result;
  for (size_t i = 0; i < items.size(); ++i) result->push_back(items[i].first, std::move(out[i]));
  result->train(model->is_training());
  return result;
}

// ---- prepare / convert -------------------------------------------------------------------------

nn::Sequential prepare(const nn::Sequential& model, const QConfig& qconfig) {
  constexpr const char* fn = "prepare";
  EMBER_CHECK(qconfig.activation != nullptr && qconfig.weight != nullptr,
              "[{}] qconfig: expected both an activation and a weight observer factory", fn);
  auto items = entries(*model);
  for (const auto& [name, m] : items)
    if (!observed_type(m) && !passes_quantized(m) && !is<DeQuantStubImpl>(m)) unsupported(fn, name, m);
  auto shared_qconfig = std::make_shared<const QConfig>(qconfig);
  nn::Sequential result;
  auto add = [&](const std::string& name, nn::AnyModule m) {
    if (observed_type(m)) {
      std::shared_ptr<ObserverBase> obs = qconfig.activation();
      EMBER_CHECK(obs != nullptr, "[{}] qconfig.activation returned no observer", fn);
      obs->qconfig = shared_qconfig;
      m.ptr()->register_module("activation_post_process", obs);
      // The observer is looked up at each call, so a hook copied with its module follows it.
      m.ptr()->register_forward_hook([](nn::Module& self, const std::vector<Tensor>&, const std::vector<Tensor>& out) {
        if (auto o = activation_post_process(self); o && !out.empty()) o->forward(out[0]);
      });
    }
    result->push_back(name, std::move(m));
  };
  if (items.empty() || !is<QuantStubImpl>(items.front().second)) add("quant", nn::AnyModule(QuantStub()));
  for (auto& [name, m] : items) add(name, m.clone());
  if (items.empty() || !is<DeQuantStubImpl>(items.back().second)) add("dequant", nn::AnyModule(DeQuantStub()));
  result->train(model->is_training());
  return result;
}

nn::Sequential convert(const nn::Sequential& prepared) {
  constexpr const char* fn = "convert";
  namespace nq = nn::quantized;
  namespace niq = nn::intrinsic::quantized;
  auto items = entries(*prepared);
  std::vector<nn::AnyModule> out;
  for (const auto& [name, m] : items) {
    const nn::Module& mod = *m.ptr();
    if (is<QuantStubImpl>(m))
      out.emplace_back(nq::QuantizeImpl::from_float(mod));
    else if (is<DeQuantStubImpl>(m))
      out.emplace_back(nq::DeQuantize());
    else if (is<nn::intrinsic::ConvReLU2dImpl>(m))
      out.emplace_back(niq::ConvReLU2dImpl::from_float(mod));
    else if (is<nn::intrinsic::LinearReLUImpl>(m))
      out.emplace_back(niq::LinearReLUImpl::from_float(mod));
    else if (is<nn::Conv2dImpl>(m))
      out.emplace_back(nq::Conv2dImpl::from_float(mod));
    else if (is<nn::LinearImpl>(m))
      out.emplace_back(nq::LinearImpl::from_float(mod));
    else if (passes_quantized(m))
      out.push_back(m.clone());
    else
      unsupported(fn, name, m);
  }
  nn::Sequential result;
  for (size_t i = 0; i < items.size(); ++i) result->push_back(items[i].first, std::move(out[i]));
  result->train(prepared->is_training());
  return result;
}

}  // namespace ember::ao::quantization
