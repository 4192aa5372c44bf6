#include "ember/ao/quantization/quantize.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ember/api/Operators.h"
#include "ember/generated/Functions.h"
#include "ember/nn/modules/BatchNorm.h"
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

namespace {

// PyTorch's fuse_{conv,linear}_bn_eval: BatchNorm's affine map folded into the preceding
// module's weight (scaled per output channel) and bias, on a copy.
template <class Impl>
std::shared_ptr<Impl> fold_batch_norm(const Impl& m, const nn::Module& bn_module) {
  NoGradGuard no_grad;
  const auto buffers = bn_module.named_buffers(false);  // find() points into it: keep it alive
  const Tensor* mean = buffers.find("running_mean");
  const Tensor* var = buffers.find("running_var");
  EMBER_CHECK(mean && var && mean->defined() && var->defined(),
              "[fuse_modules] {} has no running statistics (track_running_stats=false): nothing to fold",
              bn_module.name());
  double eps = 1e-5;
  Tensor gamma, beta;
  if (const auto* b2 = bn_module.as<nn::BatchNorm2dImpl>()) {
    eps = b2->options.eps();
    gamma = b2->weight, beta = b2->bias;
  } else if (const auto* b1 = bn_module.as<nn::BatchNorm1dImpl>()) {
    eps = b1->options.eps();
    gamma = b1->weight, beta = b1->bias;
  }
  const int64_t out = m.weight.size(0);
  EMBER_CHECK(mean->numel() == out, "[fuse_modules] {} has {} features, the {} before it {} outputs", bn_module.name(),
              mean->numel(), m.name(), out);
  const Tensor inv_std = (*var + eps).rsqrt();
  const Tensor scale = gamma.defined() ? gamma * inv_std : inv_std;
  const Tensor shift = beta.defined() ? beta : zeros({out});
  auto c = std::dynamic_pointer_cast<Impl>(m.clone());
  std::vector<int64_t> per_channel(static_cast<size_t>(m.weight.dim()), 1);
  per_channel[0] = out;
  const Tensor b = m.bias.defined() ? m.bias : zeros({out});
  c->weight = c->register_parameter("weight", (m.weight * scale.reshape(per_channel)).detach());
  c->bias = c->register_parameter("bias", ((b - *mean) * scale + shift).detach());
  c->options.bias(true);
  return c;
}

bool is_batch_norm(const nn::AnyModule& m) { return is<nn::BatchNorm2dImpl>(m) || is<nn::BatchNorm1dImpl>(m); }

}  // namespace

nn::Sequential fuse_modules(const nn::Sequential& model, const std::vector<std::vector<std::string>>& groups) {
  constexpr const char* fn = "fuse_modules";
  auto items = entries(*model);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < items.size(); ++i) index[items[i].first] = i;
  // Check every group before building anything.
  std::vector<std::vector<size_t>> plans;
  std::vector<bool> used(items.size(), false);
  for (const auto& g : groups) {
    std::vector<size_t> at;
    std::string types;
    for (const auto& name : g) {
      const auto it = index.find(name);
      EMBER_CHECK(it != index.end(), "[{}] the Sequential has no entry named '{}'", fn, name);
      EMBER_CHECK(!used[it->second], "[{}] entry '{}' is in more than one group", fn, name);
      used[it->second] = true;
      at.push_back(it->second);
      types += fmt::format("{}'{}': {}", types.empty() ? "" : ", ", name, items[it->second].second.ptr()->name());
    }
    auto m = [&](size_t k) -> const nn::AnyModule& { return items[at[k]].second; };
    const bool conv = !at.empty() && is<nn::Conv2dImpl>(m(0)), lin = !at.empty() && is<nn::LinearImpl>(m(0));
    const bool ok = (g.size() == 2 && (conv || lin) && is<nn::ReLUImpl>(m(1))) ||
                    (g.size() == 2 && conv && is<nn::BatchNorm2dImpl>(m(1))) ||
                    (g.size() == 2 && lin && is<nn::BatchNorm1dImpl>(m(1))) ||
                    (g.size() == 3 && conv && is<nn::BatchNorm2dImpl>(m(1)) && is<nn::ReLUImpl>(m(2)));
    EMBER_CHECK_NOT_IMPLEMENTED(ok,
                                "[{}] cannot fuse ({}): supported groups are (Conv2d, ReLU), (Linear, ReLU), "
                                "(Conv2d, BatchNorm2d), (Conv2d, BatchNorm2d, ReLU) and (Linear, BatchNorm1d)",
                                fn, types);
    if (is_batch_norm(m(1)))
      EMBER_CHECK_NOT_IMPLEMENTED(!m(1).ptr()->is_training(),
                                  "[{}] folding {} needs eval mode (the QAT fusion that keeps BatchNorm training is "
                                  "not implemented): call eval() first",
                                  fn, m(1).ptr()->name());
    plans.push_back(std::move(at));
  }
  std::vector<nn::AnyModule> out;
  for (auto& item : items) out.push_back(item.second.clone());
  for (const auto& at : plans) {
    nn::AnyModule first = out[at[0]];
    size_t next = 1;
    if (is_batch_norm(out[at[1]])) {  // fold, then maybe fuse the ReLU
      const nn::Module& bn = *out[at[1]].ptr();
      if (const auto* c = first.ptr()->as<nn::Conv2dImpl>())
        first = nn::AnyModule(fold_batch_norm(*c, bn));
      else
        first = nn::AnyModule(fold_batch_norm(*first.ptr()->as<nn::LinearImpl>(), bn));
      next = 2;
    }
    if (next < at.size()) {
      auto relu = out[at[next]].ptr<nn::ReLUImpl>();
      if (first.ptr()->as<nn::Conv2dImpl>() != nullptr)
        first = nn::AnyModule(std::make_shared<nn::intrinsic::ConvReLU2dImpl>(
            nn::Conv2d(std::dynamic_pointer_cast<nn::Conv2dImpl>(first.ptr())), nn::ReLU(relu)));
      else
        first = nn::AnyModule(std::make_shared<nn::intrinsic::LinearReLUImpl>(
            nn::Linear(std::dynamic_pointer_cast<nn::LinearImpl>(first.ptr())), nn::ReLU(relu)));
    }
    out[at[0]] = first;
    for (size_t k = 1; k < at.size(); ++k) out[at[k]] = nn::AnyModule(nn::Identity());
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
