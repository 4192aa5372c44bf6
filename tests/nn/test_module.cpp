// The Module API: registration and PyTorch's names, listings, modes, conversion, gradients,
// state dicts, clone, printing (against LibTorch 1.13's text), holders and containers.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ModuleTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using ember::nntest::error_of_type;
using ember::nntest::printed;
using ember::nntest::values;

namespace {

// The same architecture as this PyTorch module:
//   self.conv = nn.Conv2d(1, 8, 3, padding=1); self.bn = nn.BatchNorm2d(8)
//   self.seq = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
//   self.list = nn.ModuleList([nn.Linear(2, 2), nn.Tanh()]); self.fc = nn.Linear(3, 4, bias=False)
struct NetImpl : nn::Module {
  NetImpl() {
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)));
    bn = register_module("bn", nn::BatchNorm2d(8));
    seq = register_module("seq", nn::Sequential(nn::Linear(4, 5), nn::ReLU(), nn::Linear(5, 2)));
    list = register_module("list", nn::ModuleList(nn::Linear(2, 2), nn::Tanh()));
    fc = register_module("fc", nn::Linear(nn::LinearOptions(3, 4).bias(false)));
  }
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};
  nn::Sequential seq{nullptr};
  nn::ModuleList list{nullptr};
  nn::Linear fc{nullptr};
};
EMBER_MODULE(Net);

std::vector<std::string> keys_of(const OrderedDict<std::string, Tensor>& d) { return d.keys(); }

TEST(Module, NamedParametersAreTorchNames) {
  Net net;
  const std::vector<std::string> want = {"conv.weight",   "conv.bias",   "bn.weight",    "bn.bias",
                                         "seq.0.weight",  "seq.0.bias",  "seq.2.weight", "seq.2.bias",
                                         "list.0.weight", "list.0.bias", "fc.weight"};
  EXPECT_EQ(keys_of(net->named_parameters()), want);
  const auto params = net->named_parameters();
  EXPECT_EQ(params["conv.weight"].sizes(), IntArrayRef({8, 1, 3, 3}));
  EXPECT_EQ(params["seq.2.weight"].sizes(), IntArrayRef({2, 5}));
  EXPECT_EQ(params["fc.weight"].sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(keys_of(net->named_buffers()),
            (std::vector<std::string>{"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}));
  EXPECT_EQ(net->named_buffers()["bn.num_batches_tracked"].dtype(), kInt64);
  // PyTorch's state_dict order: each module's parameters, then its buffers, then submodules.
  EXPECT_EQ(keys_of(net->state_dict()),
            (std::vector<std::string>{"conv.weight", "conv.bias", "bn.weight", "bn.bias", "bn.running_mean",
                                      "bn.running_var", "bn.num_batches_tracked", "seq.0.weight", "seq.0.bias",
                                      "seq.2.weight", "seq.2.bias", "list.0.weight", "list.0.bias", "fc.weight"}));
  EXPECT_EQ(net->named_parameters(/*recurse=*/false).size(), 0u);
  EXPECT_EQ(keys_of(net->seq->named_parameters()),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(net->parameters().size(), 11u);
  EXPECT_TRUE(net->parameters()[0].is_same(net->conv->weight));
}

TEST(Module, NamedModulesAndChildren) {
  Net net;
  const auto mods = net->named_modules();
  EXPECT_EQ(mods.keys(), (std::vector<std::string>{"", "conv", "bn", "seq", "seq.0", "seq.1", "seq.2", "list", "list.0",
                                                   "list.1", "fc"}));
  EXPECT_EQ(mods[""]->name(), "(anonymous namespace)::NetImpl");
  EXPECT_EQ(mods["seq.0"]->name(), "ember::nn::LinearImpl");
  EXPECT_EQ(mods["list.1"]->name(), "ember::nn::TanhImpl");
  EXPECT_EQ(net->named_modules("", /*include_self=*/false).size(), 10u);
  EXPECT_EQ(net->named_modules("net").keys()[1], "net.conv");
  EXPECT_EQ(net->named_children().keys(), (std::vector<std::string>{"conv", "bn", "seq", "list", "fc"}));
  EXPECT_EQ(net->children().size(), 5u);
  EXPECT_EQ(net->modules().size(), 11u);
  EXPECT_EQ(nn::Module("custom").name(), "custom");
}

TEST(Module, ApplyVisitsPreOrder) {
  Net net;
  std::vector<std::string> seen;
  net->apply([&](const std::string& name, nn::Module&) { seen.push_back(name); });
  EXPECT_EQ(seen, (std::vector<std::string>{"", "conv", "bn", "seq", "seq.0", "seq.1", "seq.2", "list", "list.0",
                                            "list.1", "fc"}));
  int count = 0;
  net->apply([&](nn::Module& m) { count += m.as<nn::Linear>() != nullptr; });
  EXPECT_EQ(count, 4);
  nn::Module on_stack;
  EXPECT_EQ(error_of_type<ValueError>([&] { on_stack.modules(); }),
            "[ember::nn::Module] it looks like you attempted to retrieve your top-level module as a shared_ptr, but "
            "it is not stored in a shared_ptr. Use std::make_shared<YourModule>() instead of creating your module on "
            "the stack, or alternatively do not try to access your top-level module as a shared_ptr");
  EXPECT_EQ(on_stack.modules(/*include_self=*/false).size(), 0u);
}

// The training CNN of `ember train` (conv 1->32 3x3, conv 32->64 3x3, linear 1600->10).
TEST(Module, ParameterCounts) {
  nn::Sequential cnn(nn::Conv2d(1, 32, 3), nn::ReLU(), nn::MaxPool2d(2), nn::Conv2d(32, 64, 3), nn::ReLU(),
                     nn::MaxPool2d(2), nn::Flatten(), nn::Linear(1600, 10));
  int64_t total = 0;
  for (const auto& p : cnn->parameters()) total += p.numel();
  EXPECT_EQ(total, 320 + 18496 + 16010);
  EXPECT_EQ(cnn->parameters().size(), 6u);
  Tensor y = cnn->forward(randn({2, 1, 28, 28}));
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 10}));
}

TEST(Module, Registration) {
  auto m = std::make_shared<nn::Module>();
  Tensor& w = m->register_parameter("w", ones({2}));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_same(m->named_parameters()["w"]));
  Tensor& frozen = m->register_parameter("frozen", ones({2}), /*requires_grad=*/false);
  EXPECT_FALSE(frozen.requires_grad());
  m->register_parameter("absent", Tensor(), false);  // listed nowhere
  EXPECT_EQ(m->named_parameters().keys(), (std::vector<std::string>{"w", "frozen"}));
  m->register_buffer("stat", zeros({3}));
  m->register_buffer("scratch", zeros({3}), /*persistent=*/false);
  EXPECT_EQ(m->named_buffers().keys(), (std::vector<std::string>{"stat", "scratch"}));
  EXPECT_EQ(m->state_dict().keys(), (std::vector<std::string>{"w", "frozen", "stat"}));
  // Re-registering a parameter replaces it (PyTorch's register_parameter).
  Tensor tied = full({2}, 7.0);
  m->register_parameter("w", tied);
  EXPECT_TRUE(m->named_parameters()["w"].is_same(tied));
  EXPECT_EQ(m->named_parameters().size(), 2u);

  EXPECT_EQ(error_of_type<ValueError>([&] { m->register_parameter("", ones({1})); }),
            "[register_parameter] Parameter name must not be empty");
  EXPECT_EQ(error_of_type<ValueError>([&] { m->register_parameter("a.b", ones({1})); }),
            "[register_parameter] Parameter name must not contain a dot (got 'a.b')");
  EXPECT_EQ(error_of_type<ValueError>([&] { m->register_buffer("w", ones({1})); }),
            "[register_buffer] cannot register buffer 'w': the name is already registered as a parameter");
  m->register_module("lin", nn::Linear(2, 2));
  EXPECT_EQ(error_of_type<ValueError>([&] { m->register_module("lin", nn::Linear(2, 2)); }),
            "[register_module] Submodule 'lin' already defined (replace_module replaces a submodule)");
  EXPECT_EQ(error_of_type<ValueError>([&] { m->register_parameter("lin", ones({1})); }),
            "[register_parameter] cannot register parameter 'lin': the name is already registered as a submodule");
  auto other = m->replace_module("lin", nn::Linear(2, 3));
  EXPECT_EQ(m->named_parameters()["lin.weight"].sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(other->options.out_features(), 3);
  m->unregister_module("lin");
  EXPECT_FALSE(m->named_children().contains("lin"));
  EXPECT_EQ(error_of_type<ValueError>([&] { m->unregister_module("lin"); }),
            "[unregister_module] No Module with name `lin` is registered");
}

TEST(Module, SharedModulesAndParametersAreListedOnce) {
  nn::Linear shared(3, 3);
  nn::Sequential seq(shared, nn::ReLU(), shared);
  EXPECT_EQ(seq->named_parameters().keys(), (std::vector<std::string>{"0.weight", "0.bias"}));
  EXPECT_EQ(seq->parameters().size(), 2u);
  EXPECT_EQ(seq->named_modules().keys(), (std::vector<std::string>{"", "0", "1"}));
  EXPECT_EQ(seq->named_children().keys(), (std::vector<std::string>{"0", "1"}));
  // state_dict keeps every name, as PyTorch's.
  EXPECT_EQ(seq->state_dict().keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
}

TEST(Module, TrainEval) {
  Net net;
  EXPECT_TRUE(net->is_training());
  net->eval();
  for (const auto& m : net->modules()) EXPECT_FALSE(m->is_training()) << m->name();
  net->train();
  for (const auto& m : net->modules()) EXPECT_TRUE(m->is_training()) << m->name();
  net->seq->train(false);
  EXPECT_TRUE(net->is_training());
  EXPECT_FALSE(net->seq[0]->is_training());
}

TEST(Module, ToKeepsIdentityAndIntegerBuffers) {
  nn::BatchNorm2d bn(3);
  const Tensor w = bn->weight, nbt = bn->num_batches_tracked;
  (bn->weight * 2).sum().backward();
  bn->to(kFloat64);
  EXPECT_TRUE(bn->weight.is_same(w));
  EXPECT_EQ(bn->weight.dtype(), kFloat64);
  EXPECT_TRUE(bn->weight.is_leaf());
  EXPECT_TRUE(bn->weight.requires_grad());
  EXPECT_EQ(bn->weight.grad().dtype(), kFloat64);
  EXPECT_EQ(values(bn->weight.grad()), (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(bn->running_mean.dtype(), kFloat64);
  EXPECT_TRUE(bn->num_batches_tracked.is_same(nbt));
  EXPECT_EQ(bn->num_batches_tracked.dtype(), kInt64);  // PyTorch casts floating-point tensors only
  bn->to(Device(kCPU), kFloat32);
  EXPECT_EQ(bn->bias.dtype(), kFloat32);
  bn->to(Device(kCPU));
  EXPECT_TRUE(bn->weight.is_same(w));
}

TEST(Module, ZeroGrad) {
  nn::Linear fc(2, 2);
  fc(ones({1, 2})).sum().backward();
  ASSERT_TRUE(fc->weight.grad().defined());
  fc->zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(values(fc->weight.grad()), (std::vector<double>{0, 0, 0, 0}));
  fc->zero_grad();
  EXPECT_FALSE(fc->weight.grad().defined());
  EXPECT_FALSE(fc->bias.grad().defined());
}

// ---- State dicts -----------------------------------------------------------------------------

TEST(Module, StateDictRoundTrip) {
  manual_seed(1);
  Net a, b;
  {
    NoGradGuard no_grad;
    a->bn->running_mean.fill_(0.5);
    a->bn->num_batches_tracked.fill_(3);
  }
  ASSERT_FALSE(equal(a->fc->weight.detach(), b->fc->weight.detach()));
  const Tensor b_weight = b->fc->weight;
  const auto sd = a->state_dict();
  EXPECT_FALSE(sd["fc.weight"].requires_grad());
  EXPECT_EQ(sd["fc.weight"].data_ptr(), a->fc->weight.data_ptr());  // detached, sharing storage
  const nn::IncompatibleKeys keys = b->load_state_dict(sd);
  EXPECT_TRUE(keys.missing_keys.empty());
  EXPECT_TRUE(keys.unexpected_keys.empty());
  EXPECT_TRUE(b->fc->weight.is_same(b_weight));  // copied in place
  EXPECT_TRUE(b->fc->weight.requires_grad());
  EXPECT_NE(b->fc->weight.data_ptr(), a->fc->weight.data_ptr());
  for (const auto& item : a->state_dict()) EXPECT_TRUE(equal(item.value(), b->state_dict()[item.key()])) << item.key();
  EXPECT_EQ(b->bn->num_batches_tracked.item<int64_t>(), 3);
  const Tensor x = randn({2, 3});
  EXPECT_TRUE(equal(a->fc(x), b->fc(x)));
}

struct TwoImpl : nn::Module {
  TwoImpl() {
    fc = register_module("fc", nn::Linear(3, 4));
    out = register_module("out", nn::Linear(4, 2));
  }
  nn::Linear fc{nullptr}, out{nullptr};
};
EMBER_MODULE(Two);

TEST(Module, LoadStateDictStrictErrors) {
  Two m;
  auto sd = m->state_dict();
  OrderedDict<std::string, Tensor> bad;
  bad.insert("fc.weight", zeros({5, 3}));  // size mismatch
  bad.insert("fc.bias", full({4}, 9.0));
  bad.insert("out.weight", zeros({2, 4}));
  bad.insert("foo", zeros({1}));          // unexpected at the root
  bad.insert("out.extra.w", zeros({1}));  // unexpected below out
  const std::vector<double> bias_before = values(m->fc->bias);
  const std::string msg = error_of_type<ValueError>([&] { m->load_state_dict(bad); });
  EXPECT_EQ(msg,
            "[load_state_dict] Error(s) in loading state_dict for (anonymous namespace)::TwoImpl:\n"
            "\tMissing key(s) in state_dict: \"out.bias\". \n"
            "\tUnexpected key(s) in state_dict: \"foo\", \"out.extra.w\". \n"
            "\tsize mismatch for fc.weight: copying a param with shape [5, 3] from checkpoint, the shape in "
            "current model is [4, 3].");
  EXPECT_EQ(values(m->fc->bias), bias_before);  // nothing loaded
  // strict=false reports the keys and loads the rest; a size mismatch is still an error.
  bad.erase("fc.weight");
  const nn::IncompatibleKeys keys = m->load_state_dict(bad, /*strict=*/false);
  EXPECT_EQ(keys.missing_keys, (std::vector<std::string>{"fc.weight", "out.bias"}));
  EXPECT_EQ(keys.unexpected_keys, (std::vector<std::string>{"foo", "out.extra.w"}));
  EXPECT_EQ(values(m->fc->bias), (std::vector<double>{9, 9, 9, 9}));
  bad.insert("out.bias", zeros({3}));
  EXPECT_EQ(error_of_type<ValueError>([&] { m->load_state_dict(bad, false); }),
            "[load_state_dict] Error(s) in loading state_dict for (anonymous namespace)::TwoImpl:\n"
            "\tsize mismatch for out.bias: copying a param with shape [3] from checkpoint, the shape in current model "
            "is [2].");
  // A dtype differing from the model's converts, as copy_ does.
  sd.insert_or_assign("out.bias", tensor({1.0, 2.0}, kFloat64));
  m->load_state_dict(sd);
  EXPECT_EQ(m->out->bias.dtype(), kFloat32);
  EXPECT_EQ(values(m->out->bias), (std::vector<double>{1, 2}));
}

// ---- Clone -----------------------------------------------------------------------------------

// Ties dec.weight to enc.weight in reset(), as weight tying is written.
struct TiedImpl : nn::Cloneable<TiedImpl> {
  TiedImpl() { reset(); }
  void reset() override {
    enc = register_module("enc", nn::Linear(nn::LinearOptions(4, 4).bias(false)));
    dec = register_module("dec", nn::Linear(4, 4));
    dec->weight = dec->register_parameter("weight", enc->weight);
    shared = register_module("shared", nn::Sequential(enc, nn::ReLU(), enc));
    scale = register_parameter("scale", ones({1}), /*requires_grad=*/false);
  }
  Tensor forward(const Tensor& x) { return dec(shared->forward(x)) * scale; }
  nn::Linear enc{nullptr}, dec{nullptr};
  nn::Sequential shared{nullptr};
  Tensor scale;
};
EMBER_MODULE(Tied);

TEST(Module, CloneIsDeepAndKeepsSharing) {
  Tied a;
  a->eval();
  a->dec->bias.requires_grad_(false);  // frozen after construction
  auto copy = std::dynamic_pointer_cast<TiedImpl>(a->clone());
  ASSERT_NE(copy, nullptr);
  Tied b(copy);
  // Same values, other tensors.
  for (const auto& item : a->state_dict()) {
    const Tensor theirs = b->state_dict()[item.key()];
    EXPECT_TRUE(equal(item.value(), theirs)) << item.key();
    EXPECT_NE(item.value().data_ptr(), theirs.data_ptr()) << item.key();
  }
  EXPECT_FALSE(b->is_training());
  EXPECT_FALSE(b->enc->is_training());
  EXPECT_FALSE(b->scale.requires_grad());
  EXPECT_FALSE(b->dec->bias.requires_grad());
  EXPECT_TRUE(b->enc->weight.requires_grad());
  // What the original shares stays shared, members included.
  EXPECT_TRUE(b->dec->weight.is_same(b->enc->weight));
  EXPECT_TRUE(b->dec->named_parameters()["weight"].is_same(b->enc->weight));
  EXPECT_FALSE(b->named_parameters().contains("dec.weight"));  // listed once, as enc.weight
  EXPECT_EQ(b->shared[0].get(), b->enc.get());
  EXPECT_EQ(b->shared[2].get(), b->enc.get());
  EXPECT_EQ(b->parameters().size(), 3u);  // scale, enc.weight, dec.bias
  // Independent of the original.
  {
    NoGradGuard no_grad;
    b->enc->weight.fill_(1);
  }
  EXPECT_FALSE(equal(a->enc->weight.detach(), b->enc->weight.detach()));
  const Tensor x = randn({2, 4});
  EXPECT_EQ(b(x).sizes(), IntArrayRef({2, 4}));
}

TEST(Module, CloneContainersAndErrors) {
  nn::Linear shared(2, 2);
  nn::Sequential seq({{"first", shared}, {"act", nn::ReLU()}, {"again", shared}});
  auto clone = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(clone->named_children().keys(), (std::vector<std::string>{"first", "act"}));
  EXPECT_EQ(clone->ptr(0), clone->ptr(2));
  EXPECT_NE(clone->ptr(0), seq->ptr(0));
  EXPECT_TRUE(equal(clone->forward(ones({1, 2})), seq->forward(ones({1, 2}))));
  auto lin = std::dynamic_pointer_cast<nn::LinearImpl>(shared->clone(Device(kCPU)));
  EXPECT_EQ(lin->options.in_features(), 2);
  EXPECT_FALSE(lin->weight.is_same(shared->weight));

  nn::ParameterList plist(ones({2}).requires_grad_(), zeros({3}));
  auto pclone = std::dynamic_pointer_cast<nn::ParameterListImpl>(plist->clone());
  EXPECT_EQ(pclone->size(), 2u);
  EXPECT_TRUE(pclone->at(0).requires_grad());
  EXPECT_FALSE(pclone->at(1).requires_grad());
  EXPECT_FALSE(pclone->at(0).is_same(plist[0]));

  const Tensor p = ones({2}).requires_grad_();
  nn::ParameterList twice(p, p);
  auto twice_clone = std::dynamic_pointer_cast<nn::ParameterListImpl>(twice->clone());
  EXPECT_TRUE(twice_clone->at(0).is_same(twice_clone->at(1)));
  EXPECT_FALSE(twice_clone->at(0).is_same(p));

  Net net;  // a plain Module: not Cloneable
  EXPECT_EQ(error_of_type<ValueError>([&] { net->clone(); }),
            "[clone] clone() has not been implemented for (anonymous namespace)::NetImpl. Subclass "
            "ember::nn::Cloneable<(anonymous namespace)::NetImpl> instead of ember::nn::Module to inherit the ability "
            "to clone.");
}

// A submodule changed after construction is cloned whole and assigned over the rebuilt one.
struct GrowImpl : nn::Cloneable<GrowImpl> {
  GrowImpl() { reset(); }
  void reset() override { seq = register_module("seq", nn::Sequential(nn::Linear(2, 2))); }
  nn::Sequential seq{nullptr};
};
EMBER_MODULE(Grow);

TEST(Module, CloneFallsBackForChangedSubmodules) {
  Grow g;
  g->seq->push_back(nn::Linear(2, 3));
  auto c = std::dynamic_pointer_cast<GrowImpl>(g->clone());
  EXPECT_EQ(c->seq->size(), 2u);
  EXPECT_EQ(c->named_parameters().keys(),
            (std::vector<std::string>{"seq.0.weight", "seq.0.bias", "seq.1.weight", "seq.1.bias"}));
  EXPECT_FALSE(c->seq->ptr(1) == g->seq->ptr(1));
  EXPECT_EQ(c->seq->forward(ones({1, 2})).sizes(), IntArrayRef({1, 3}));
}

// Sharing made after construction (reset() does not rebuild it) becomes independent copies with
// the right values: the members reset() assigned keep working.
TEST(Module, CloneOfSharingMadeAfterConstruction) {
  Grow g;
  nn::Linear other(2, 2);
  g->register_module("other", other);  // not rebuilt by reset(): the clone fails, saying so
  EXPECT_EQ(error_of_type<ValueError>([&] { g->clone(); }),
            "[clone] The cloned module does not have the same number of child modules as the original module after "
            "calling reset(). Are you sure you called register_module() inside reset() and not the constructor?");
  g->unregister_module("other");
  auto& first = g->seq->at<nn::LinearImpl>(0);
  nn::Linear tied(2, 2);
  g->seq->push_back(tied);
  tied->weight = tied->register_parameter("weight", first.weight);  // tied after construction
  auto c = std::dynamic_pointer_cast<GrowImpl>(g->clone());
  auto& c0 = c->seq->at<nn::LinearImpl>(0);
  auto& c1 = c->seq->at<nn::LinearImpl>(1);
  EXPECT_TRUE(equal(c1.weight.detach(), first.weight.detach()));
  const Tensor x = randn({3, 2});
  EXPECT_TRUE(equal(c1.forward(x), tied->forward(x)));
  EXPECT_TRUE(c1.named_parameters()["weight"].is_same(c1.weight));
  EXPECT_FALSE(c0.weight.is_same(first.weight));
}

// ---- Printing (LibTorch 1.13's text, torch:: -> ember::) --------------------------------------

TEST(Module, PrintsAsLibTorch) {
  Net net;
  EXPECT_EQ(printed(*net),
            "(anonymous namespace)::NetImpl(\n"
            "  (conv): ember::nn::Conv2d(1, 8, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])\n"
            "  (bn): ember::nn::BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)\n"
            "  (seq): ember::nn::Sequential(\n"
            "    (0): ember::nn::Linear(in_features=4, out_features=5, bias=true)\n"
            "    (1): ember::nn::ReLU()\n"
            "    (2): ember::nn::Linear(in_features=5, out_features=2, bias=true)\n"
            "  )\n"
            "  (list): ember::nn::ModuleList(\n"
            "    (0): ember::nn::Linear(in_features=2, out_features=2, bias=true)\n"
            "    (1): ember::nn::Tanh()\n"
            "  )\n"
            "  (fc): ember::nn::Linear(in_features=3, out_features=4, bias=false)\n"
            ")");
  EXPECT_EQ(
      printed(nn::ModuleDict(OrderedDict<std::string, std::shared_ptr<nn::Module>>{{"a", nn::Linear(2, 3).ptr()}})),
      "ember::nn::ModuleDict(\n  (a): ember::nn::Linear(in_features=2, out_features=3, bias=true)\n)");
  nn::ParameterList pl;
  pl->append(zeros({2, 3}));
  pl->append(zeros({4}, kFloat64));
  EXPECT_EQ(printed(pl),
            "ember::nn::ParameterList(\n(0): Parameter containing: [Float of size [2, 3]]\n(1): Parameter containing: "
            "[Double of size [4]]\n)");
  nn::ParameterDict pd;
  pd->insert("w", zeros({2, 3}));
  EXPECT_EQ(printed(pd), "ember::nn::ParameterDict(\n(w): Parameter containing: [Float of size [2, 3]]\n)");
}

// ---- Holders ---------------------------------------------------------------------------------

TEST(ModuleHolder, EmptyAndCalls) {
  nn::Linear fc{nullptr};
  EXPECT_TRUE(fc.is_empty());
  EXPECT_FALSE(static_cast<bool>(fc));
  EXPECT_EQ(error_of_type<ValueError>([&] { fc->forward(ones({1})); }),
            "[ModuleHolder] Accessing empty ModuleHolder of ember::nn::LinearImpl: it was made from nullptr and never "
            "assigned a module");
  fc = nn::Linear(2, 3);
  const Tensor x = randn({4, 2});
  EXPECT_TRUE(equal(fc(x), fc->forward(x)));
  nn::Module& base = *fc;
  EXPECT_EQ(base.as<nn::Linear>(), fc.get());
  EXPECT_EQ(base.as<nn::LinearImpl>(), fc.get());
  EXPECT_EQ(base.as<nn::Conv2d>(), nullptr);
  nn::Linear alias = fc;  // shares the module
  EXPECT_EQ(alias.get(), fc.get());
  EXPECT_EQ(printed(fc), "ember::nn::Linear(in_features=2, out_features=3, bias=true)");
}

// ---- Containers ------------------------------------------------------------------------------

TEST(Sequential, ForwardEntriesAndErrors) {
  nn::Sequential seq({{"fc", nn::Linear(3, 4)}, {"act", nn::ReLU()}});
  seq->push_back("out", nn::Linear(4, 2));
  seq->push_back(nn::Sigmoid());
  EXPECT_EQ(seq->size(), 4u);
  EXPECT_EQ(seq->named_children().keys(), (std::vector<std::string>{"fc", "act", "out", "3"}));
  const Tensor x = randn({5, 3});
  auto& fc = seq->at<nn::LinearImpl>(0);
  auto out = seq->ptr<nn::LinearImpl>(2);
  const Tensor want = sigmoid(out->forward(relu(fc.forward(x))));
  EXPECT_TRUE(allclose(seq->forward(x), want));
  EXPECT_TRUE(allclose(seq(x), want));
  EXPECT_EQ(seq[1]->name(), "ember::nn::ReLUImpl");

  EXPECT_EQ(error_of_type<ValueError>([&] { seq->forward(x, x); }),
            "[AnyModule] ember::nn::LinearImpl's forward() method expects 1 argument(s), but received 2.");
  EXPECT_EQ(error_of_type<TypeError>([&] { seq->forward(1.0); }),
            "[AnyModule] Expected argument #0 to be of type ember::Tensor, but received value of type double");
  EXPECT_EQ(error_of_type<TypeError>([&] { seq->forward<int>(x); }),
            "[Sequential] The type of the return value is ember::Tensor, but you asked for type int");
  EXPECT_EQ(error_of_type<IndexError>([&] { seq->ptr(4); }),
            "[Sequential] Index out of range: 4 for a Sequential of 4 modules");
  EXPECT_EQ(error_of_type<TypeError>([&] { seq->at<nn::Conv2dImpl>(0); }),
            "[AnyModule] Attempted to cast module of type ember::nn::LinearImpl to type ember::nn::Conv2dImpl");
  EXPECT_EQ(error_of_type<ValueError>([&] { nn::Sequential().ptr()->forward(x); }),
            "[Sequential] Cannot call forward() on an empty Sequential");
  nn::Sequential more;
  more->extend(*seq);
  EXPECT_EQ(more->size(), 4u);
  EXPECT_EQ(more->ptr(0), seq->ptr(0));
}

// forward(x, factor = 2) called with one argument through Sequential and AnyModule.
struct ScaleImpl : nn::Module {
  Tensor forward(const Tensor& x, double factor = 2.0) { return x * factor; }

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, nn::AnyValue(2.0)})
};
EMBER_MODULE(Scale);

struct NoDefaultsImpl : nn::Module {
  Tensor forward(const Tensor& x, double factor) { return x * factor; }
};
EMBER_MODULE(NoDefaults);

TEST(Sequential, DefaultArgumentsAndFunctional) {
  nn::Sequential seq(Scale(), nn::Functional(ember::relu),
                     nn::Functional([](Tensor x, double s) { return x + s; }, 1.0));
  EXPECT_EQ(values(seq->forward(tensor({-1.0, 2.0}))), (std::vector<double>{1, 5}));
  nn::AnyModule any{Scale()};
  EXPECT_EQ(values(any.forward(tensor({3.0}), 10.0)), (std::vector<double>{30}));
  EXPECT_EQ(error_of_type<ValueError>([&] { any.forward(); }),
            "[AnyModule] (anonymous namespace)::ScaleImpl's forward() method expects at least 1 argument(s) and at "
            "most 2 argument(s), but received 0.");
  nn::AnyModule strict{NoDefaults()};
  EXPECT_EQ(error_of_type<ValueError>([&] { strict.forward(tensor({3.0})); }),
            "[AnyModule] (anonymous namespace)::NoDefaultsImpl's forward() method expects 2 argument(s), but received "
            "1. If (anonymous namespace)::NoDefaultsImpl's forward() method has default arguments, please make sure "
            "the forward() method is declared with a corresponding `EMBER_FORWARD_HAS_DEFAULT_ARGS` macro.");
  EXPECT_EQ(printed(nn::Functional(ember::relu)), "ember::nn::Functional()");
}

TEST(AnyModule, TypeErasedCalls) {
  nn::AnyModule any(nn::Linear(2, 2));
  const Tensor x = ones({1, 2});
  EXPECT_TRUE(equal(any.forward(x), any.get<nn::LinearImpl>().forward(x)));
  EXPECT_EQ(any.get<nn::Linear>()->options.out_features(), 2);
  EXPECT_EQ(any.type_info(), typeid(nn::LinearImpl));
  nn::AnyValue v = any.any_forward(x);
  EXPECT_NE(v.try_get<Tensor>(), nullptr);
  EXPECT_EQ(v.try_get<int>(), nullptr);
  EXPECT_EQ(error_of_type<TypeError>([&] { v.get<int>(); }),
            "[AnyValue] Attempted to cast AnyValue to int, but its actual type is ember::Tensor");
  nn::AnyModule copy = any;  // shares the module
  EXPECT_EQ(copy.ptr(), any.ptr());
  nn::AnyModule deep = any.clone();
  EXPECT_NE(deep.ptr(), any.ptr());
  EXPECT_EQ(error_of_type<ValueError>([&] { nn::AnyModule().forward(x); }),
            "[AnyModule] Cannot call forward() on an empty AnyModule");
}

TEST(ModuleList, Operations) {
  nn::ModuleList list(nn::Linear(2, 3), nn::ReLU());
  list->push_back(nn::Tanh());
  list->insert(1, nn::Sigmoid());
  EXPECT_EQ(list->size(), 4u);
  EXPECT_EQ(list->named_children().keys(), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(list[1]->name(), "ember::nn::SigmoidImpl");
  EXPECT_EQ(list->named_children()["2"]->name(), "ember::nn::ReLUImpl");
  EXPECT_EQ(list->at<nn::LinearImpl>(0).options.out_features(), 3);
  EXPECT_EQ(list->ptr<nn::TanhImpl>(3)->name(), "ember::nn::TanhImpl");
  EXPECT_EQ(error_of_type<TypeError>([&] { list->at<nn::LinearImpl>(1); }),
            "[ModuleList] entry 1 is a ember::nn::SigmoidImpl, not a ember::nn::LinearImpl");
  EXPECT_EQ(error_of_type<IndexError>([&] { list->ptr(4); }),
            "[ModuleList] Index out of range: 4 for a ModuleList of 4 modules");
  int n = 0;
  for (const auto& m : *list) n += m != nullptr;
  EXPECT_EQ(n, 4);
  EXPECT_EQ(list->parameters().size(), 2u);
}

TEST(ModuleDict, Operations) {
  nn::ModuleDict dict(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{{"fc", nn::Linear(2, 2).ptr()},
                                                                                       {"act", nn::ReLU().ptr()}});
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"fc", "act"}));
  EXPECT_TRUE(dict->contains("act"));
  dict->insert("act", nn::Tanh());
  EXPECT_EQ(dict["act"]->name(), "ember::nn::TanhImpl");
  EXPECT_EQ(dict->named_children()["act"]->name(), "ember::nn::TanhImpl");
  EXPECT_EQ(dict->at<nn::LinearImpl>("fc").options.in_features(), 2);
  auto popped = dict->pop("fc");
  EXPECT_EQ(popped->name(), "ember::nn::LinearImpl");
  EXPECT_EQ(dict->size(), 1u);
  EXPECT_EQ(dict->parameters().size(), 0u);
  EXPECT_EQ(error_of_type<IndexError>([&] { dict["fc"]; }), "Module 'fc' is not defined");
  dict->clear();
  EXPECT_TRUE(dict->empty());
  EXPECT_TRUE(dict->named_children().is_empty());
}

TEST(ParameterContainers, ListAndDict) {
  nn::ParameterList list;
  list->append(ones({2}));
  list->append(zeros({3}));
  list->extend(std::vector<Tensor>{zeros({1})});
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(list[1].sizes(), IntArrayRef({3}));
  EXPECT_EQ(error_of_type<IndexError>([&] { list->at(3); }),
            "[ParameterList] Index out of range: 3 for a ParameterList of 3 parameters");

  nn::ParameterDict dict;
  dict->insert("w", ones({2}).requires_grad_());
  dict->insert("b", zeros({2}));
  EXPECT_TRUE(dict["w"].requires_grad());
  EXPECT_FALSE(dict["b"].requires_grad());  // each keeps its requires_grad
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"w", "b"}));
  const Tensor b = dict->pop("b");
  EXPECT_EQ(b.sizes(), IntArrayRef({2}));
  EXPECT_FALSE(dict->contains("b"));
  EXPECT_EQ(dict->named_parameters().keys(), (std::vector<std::string>{"w"}));
}

}  // namespace
