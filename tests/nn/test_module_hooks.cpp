// Module hooks (Note [Module hooks]): forward pre-hooks and hooks in order, replacing values,
// removal, the call paths that run them, and full backward hooks' gradients by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ModuleTestUtil.h"
#include "ember/ember.h"

using namespace ember;
using ember::nntest::error_of_type;
using ember::nntest::values;

namespace {

// fc.weight = [[1, 2, 3], [4, 5, 6]], fc.bias = [0.5, -0.5], in float64.
nn::Linear fixed_linear() {
  nn::Linear fc(3, 2);
  fc->to(kFloat64);
  NoGradGuard no_grad;
  fc->weight.copy_(tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, kFloat64));
  fc->bias.copy_(tensor({0.5, -0.5}, kFloat64));
  return fc;
}

TEST(ModuleHooks, ForwardHooksRunInOrderAndReplace) {
  nn::Linear fc = fixed_linear();
  std::vector<std::string> log;
  const Tensor x = tensor({{1.0, 0.0, -1.0}}, kFloat64);
  fc->register_forward_pre_hook([&](nn::Module& m, const std::vector<Tensor>& in) {
    EXPECT_EQ(&m, fc.get());
    EXPECT_EQ(in.size(), 1u);
    log.push_back("pre1");
  });
  auto doubling = fc->register_forward_pre_hook([&](nn::Module&, const std::vector<Tensor>& in) {
    log.push_back("pre2");
    return std::vector<Tensor>{in[0] * 2};
  });
  std::vector<std::vector<double>> post_inputs;
  fc->register_forward_hook([&](nn::Module&, const std::vector<Tensor>& in, const std::vector<Tensor>& out) {
    log.push_back("post1");
    post_inputs.push_back(values(in[0]));
    EXPECT_EQ(out.size(), 1u);
  });
  fc->register_forward_hook([&](nn::Module&, const std::vector<Tensor>&, const std::vector<Tensor>& out) {
    log.push_back("post2");
    return out[0] + 1;
  });
  // forward(2x) + 1 = [2 - 6 + 0.5 + 1, 8 - 12 - 0.5 + 1]
  EXPECT_EQ(values(fc(x)), (std::vector<double>{-2.5, -3.5}));
  EXPECT_EQ(log, (std::vector<std::string>{"pre1", "pre2", "post1", "post2"}));
  EXPECT_EQ(post_inputs.back(), (std::vector<double>{2, 0, -2}));  // the replaced input
  // forward alone runs no hook.
  log.clear();
  EXPECT_EQ(values(fc->forward(x)), (std::vector<double>{-1.5, -2.5}));
  EXPECT_TRUE(log.empty());
  doubling.remove();
  doubling.remove();  // a no-op
  log.clear();
  EXPECT_EQ(values(fc(x)), (std::vector<double>{-0.5, -1.5}));
  EXPECT_EQ(log, (std::vector<std::string>{"pre1", "post1", "post2"}));
  EXPECT_EQ(post_inputs.back(), (std::vector<double>{1, 0, -1}));
}

TEST(ModuleHooks, RunThroughSequentialAndAnyModule) {
  nn::Linear inner(2, 2);
  int calls = 0;
  inner->register_forward_hook([&](nn::Module&, const std::vector<Tensor>&, const std::vector<Tensor>& out) {
    ++calls;
    return std::optional<std::vector<Tensor>>(std::vector<Tensor>{zeros_like(out[0])});
  });
  nn::Sequential seq(inner, nn::Sigmoid());
  EXPECT_EQ(values(seq->forward(ones({1, 2}))), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(calls, 1);
  nn::AnyModule any(inner);
  EXPECT_EQ(values(any.forward(ones({1, 2}))), (std::vector<double>{0, 0}));
  EXPECT_EQ(calls, 2);
  // Hooks on the Sequential itself run around its whole forward.
  seq->register_forward_pre_hook([&](nn::Module&, const std::vector<Tensor>& in) { return in[0] * 0; });
  EXPECT_EQ(values(seq(ones({1, 2}))), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(calls, 3);
}

TEST(ModuleHooks, Errors) {
  nn::Linear fc(2, 2);
  fc->register_forward_pre_hook([](nn::Module&, const std::vector<Tensor>& in) {
    return std::vector<Tensor>{in[0], in[0]};
  });
  EXPECT_EQ(error_of_type<ValueError>([&] {
              fc(ones({1, 2}));
            }),
            "[register_forward_pre_hook] a forward pre-hook of ember::nn::LinearImpl returned 2 tensors, expected 1 "
            "(one per tensor argument of forward)");
  nn::Linear fc2(2, 2);
  fc2->register_forward_hook(
      [](nn::Module&, const std::vector<Tensor>&, const std::vector<Tensor>&) { return std::vector<Tensor>{}; });
  EXPECT_EQ(error_of_type<ValueError>([&] {
              fc2(ones({1, 2}));
            }),
            "[register_forward_hook] a forward hook of ember::nn::LinearImpl returned 0 tensors, expected 1 (one per "
            "output of forward)");
  EXPECT_EQ(error_of_type<ValueError>([&] { fc2->add_forward_hook(nn::ForwardHook()); }),
            "[register_forward_hook] hook: expected a callable, got an empty one");
}

// forward(a, scale, b) -> (a * scale, a + b): hooks see the two tensor arguments and outputs.
struct PairImpl : nn::Module {
  std::tuple<Tensor, Tensor> forward(const Tensor& a, double scale, const Tensor& b) { return {a * scale, a + b}; }
};
EMBER_MODULE(Pair);

struct CountImpl : nn::Module {
  int64_t forward(const Tensor& a) { return a.numel(); }
};
EMBER_MODULE(Count);

TEST(ModuleHooks, SeveralArgumentsAndOutputs) {
  Pair pair;
  pair->register_forward_pre_hook([](nn::Module&, const std::vector<Tensor>& in) {
    EXPECT_EQ(in.size(), 2u);
    return std::vector<Tensor>{in[0], in[1] * 10};
  });
  pair->register_forward_hook([](nn::Module&, const std::vector<Tensor>& in, const std::vector<Tensor>& out) {
    EXPECT_EQ(values(in[1]), (std::vector<double>{10}));
    return std::vector<Tensor>{out[1], out[0]};
  });
  auto [first, second] = pair(ones({1}), 3.0, ones({1}));
  EXPECT_EQ(values(first), (std::vector<double>{11}));
  EXPECT_EQ(values(second), (std::vector<double>{3}));

  Count count;
  count->register_forward_pre_hook([](nn::Module&, const std::vector<Tensor>& in) { return in[0].reshape({-1})[0]; });
  EXPECT_EQ(count(ones({2, 3})), 1);  // pre-hooks run around any forward
  count->register_forward_hook([](nn::Module&, const std::vector<Tensor>&, const std::vector<Tensor>&) {});
  EXPECT_EQ(error_of_type<NotImplementedError>([&] { count(ones({2})); }),
            "[(anonymous namespace)::CountImpl] forward hooks and backward hooks see a forward that returns a Tensor, "
            "a std::tuple or a std::vector<Tensor>; this forward returns long");
}

TEST(ModuleHooks, FullBackwardHookSeesAndReplacesGradients) {
  nn::Linear fc = fixed_linear();
  std::vector<std::vector<double>> seen_in, seen_out;
  fc->register_full_backward_hook(
      [&](nn::Module& m, const std::vector<Tensor>& grad_input, const std::vector<Tensor>& grad_output) {
        EXPECT_EQ(&m, fc.get());
        seen_in.push_back(values(grad_input.at(0)));
        seen_out.push_back(values(grad_output.at(0)));
        return std::vector<Tensor>{grad_input[0] * 2};
      });
  const Tensor x = ones({1, 3}, kFloat64).requires_grad_();
  const Tensor c = tensor({{1.0, 10.0}}, kFloat64);
  (fc(x) * c).sum().backward();
  // grad_output = c; grad_input = c W = [1 + 40, 2 + 50, 3 + 60].
  ASSERT_EQ(seen_out.size(), 1u);
  EXPECT_EQ(seen_out[0], (std::vector<double>{1, 10}));
  EXPECT_EQ(seen_in[0], (std::vector<double>{41, 52, 63}));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{82, 104, 126}));                  // the hook's replacement
  EXPECT_EQ(values(fc->weight.grad()), (std::vector<double>{1, 1, 1, 10, 10, 10}));  // untouched
  // The forward's value is unchanged by the wrapping.
  EXPECT_EQ(values(fc(x)), (std::vector<double>{6.5, 14.5}));

  // Each call gets its own record (the engine may run them in either order).
  seen_in.clear();
  seen_out.clear();
  const Tensor y1 = fc(x), y2 = fc(x * 2);
  (y1.sum() + (y2 * c).sum()).backward();
  ASSERT_EQ(seen_in.size(), 2u);
  std::sort(seen_in.begin(), seen_in.end());
  std::sort(seen_out.begin(), seen_out.end());
  EXPECT_EQ(seen_in, (std::vector<std::vector<double>>{{5, 7, 9}, {41, 52, 63}}));
  EXPECT_EQ(seen_out, (std::vector<std::vector<double>>{{1, 1}, {1, 10}}));

  // No grad mode: no graph, no hook.
  seen_in.clear();
  {
    NoGradGuard no_grad;
    fc(x);
  }
  EXPECT_TRUE(seen_in.empty());
}

TEST(ModuleHooks, FullBackwardHookWithoutInputGradients) {
  nn::Linear fc = fixed_linear();
  int calls = 0;
  bool return_grads = false;
  fc->register_full_backward_hook(
      [&](nn::Module&, const std::vector<Tensor>& grad_input, const std::vector<Tensor>& grad_output) {
        ++calls;
        EXPECT_EQ(grad_input.size(), 1u);
        EXPECT_FALSE(grad_input[0].defined());
        EXPECT_EQ(values(grad_output[0]), (std::vector<double>{1, 1}));
        return return_grads ? std::optional<std::vector<Tensor>>(std::vector<Tensor>{ones({1, 3})})
                            : std::optional<std::vector<Tensor>>();
      });
  const Tensor x = ones({1, 3}, kFloat64);
  fc(x).sum().backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(values(fc->weight.grad()), (std::vector<double>{1, 1, 1, 1, 1, 1}));
  return_grads = true;
  EXPECT_EQ(error_of_type<ValueError>([&] { fc(x).sum().backward(); }),
            "[register_full_backward_hook] a backward hook of ember::nn::LinearImpl returned gradients, but no input "
            "of the module requires grad: it must return nothing (or undefined tensors)\n  (raised in the backward of "
            "BackwardHookFunctionBackward)");
}

TEST(ModuleHooks, BackwardHookCountError) {
  nn::Linear fc = fixed_linear();
  fc->register_full_backward_hook([](nn::Module&, const std::vector<Tensor>& gi, const std::vector<Tensor>&) {
    return std::vector<Tensor>{gi[0], gi[0]};
  });
  const Tensor x = ones({1, 3}, kFloat64).requires_grad_();
  EXPECT_EQ(error_of_type<ValueError>([&] { fc(x).sum().backward(); }),
            "[register_full_backward_hook] a backward hook of ember::nn::LinearImpl returned 2 gradients, expected 1 "
            "(one per tensor input of forward)\n  (raised in the backward of BackwardHookFunctionBackward)");
}

TEST(ModuleHooks, CloneKeepsItsOwnHooks) {
  nn::Linear fc(2, 2);
  int calls = 0;
  auto handle =
      fc->register_forward_hook([&](nn::Module&, const std::vector<Tensor>&, const std::vector<Tensor>&) { ++calls; });
  nn::Linear copy(std::dynamic_pointer_cast<nn::LinearImpl>(fc->clone()));
  handle.remove();
  fc(ones({1, 2}));
  EXPECT_EQ(calls, 0);
  copy(ones({1, 2}));
  EXPECT_EQ(calls, 1);
  {
    nn::Linear gone(2, 2);
    handle = gone->register_forward_hook([](nn::Module&, const std::vector<Tensor>&, const std::vector<Tensor>&) {});
  }
  handle.remove();  // the module is gone: a no-op
}

}  // namespace
