// requires_grad_() as a program's very first Ember call: it must start Ember up (load the
// default plugins, autograd among them) rather than report the autograd plugin missing. Its own
// binary, so nothing else has started Ember before.
#include <gtest/gtest.h>

#include "ember/ember.h"

TEST(AutogradFirstCall, RequiresGradLoadsTheDefaultPlugins) {
  ember::Tensor t = ember::tensor({1.0, 2.0});
  t.requires_grad_();
  EXPECT_TRUE(t.requires_grad());
  (t * t).sum().backward();
  EXPECT_TRUE(ember::equal(t.grad(), ember::tensor({2.0, 4.0})));
}
