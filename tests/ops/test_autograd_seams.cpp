// The seams autograd builds on, through the real operators of the cpu plugin: every view records
// its root base and can be replayed on another tensor (Note [View records]); every operator that
// writes bumps its written tensors' versions exactly once per call (Note [Version counters]);
// API.md's custom Function compiles and runs (Note [AutogradHooks]; the recording side is
// tests/unit/test_autograd_hooks.cpp).
#include <functional>

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

using ViewFn = std::function<Tensor(const Tensor&)>;

// base-shaped tensors with distinct values, so a replay on the wrong element shows.
Tensor filled(std::vector<int64_t> shape, int seed) { return make(std::move(shape), kFloat32, Kind::Contiguous, seed); }

void expect_same_view(const Tensor& got, const Tensor& want, const std::string& what) {
  EXPECT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_EQ(got.strides(), want.strides()) << what;
  EXPECT_EQ(got.storage_offset(), want.storage_offset()) << what;
  EXPECT_EQ(storage_of(got), storage_of(want)) << what;
  EXPECT_EQ(values(got), values(want)) << what;
}

// f(base) records `base` as its root; replayed on a fresh base-like tensor it is f(fresh).
void check_view(const std::string& what, const Tensor& base, const ViewFn& f) {
  Tensor v = f(base);
  ASSERT_TRUE(v._is_view()) << what;
  EXPECT_TRUE(v.is_view()) << what;
  EXPECT_TRUE(v._base().is_same(base)) << what;
  EXPECT_EQ(storage_of(v), storage_of(base)) << what;
  std::optional<detail::ViewInfo> info = detail::view_info(v);
  ASSERT_TRUE(info.has_value()) << what;
  EXPECT_TRUE(info->base.is_same(base)) << what;
  EXPECT_EQ(info->storage_offset, v.storage_offset() - base.storage_offset()) << what;
  EXPECT_FALSE(info->step) << what << ": as_strided redoes every built-in view";
  Tensor fresh = empty_strided(base.sizes(), base.strides());
  fresh.copy_(filled(base.sizes().vec(), 7));
  Tensor replayed = detail::replay_view(*info, fresh);
  expect_same_view(replayed, f(fresh), what + " replayed");
  EXPECT_TRUE(replayed._base().is_same(fresh)) << what;
}

struct Case {
  const char* what;
  ViewFn f;
};

std::vector<Case> view_cases() {
  return {
      {"view",
       [](const Tensor& x) {
         return x.view({6, 4});
       }},
      {"reshape (a view)",
       [](const Tensor& x) {
         return x.reshape({2, 12});
       }},
      {"flatten", [](const Tensor& x) { return x.flatten(); }},
      {"select", [](const Tensor& x) { return x.select(1, 2); }},
      {"operator[]", [](const Tensor& x) { return x[3]; }},
      {"slice", [](const Tensor& x) { return x.slice(1, 1, 5, 2); }},
      {"narrow", [](const Tensor& x) { return x.narrow(0, 1, 2); }},
      {"transpose", [](const Tensor& x) { return x.transpose(0, 1); }},
      {"t", [](const Tensor& x) { return x.t(); }},
      {"permute",
       [](const Tensor& x) {
         return x.permute({1, 0});
       }},
      {"unsqueeze", [](const Tensor& x) { return x.unsqueeze(1); }},
      {"squeeze", [](const Tensor& x) { return x.unsqueeze(0).squeeze(); }},
      {"squeeze.dim", [](const Tensor& x) { return x.narrow(0, 2, 1).squeeze(0); }},
      {"expand",
       [](const Tensor& x) {
         return x.select(0, 1).expand({3, 6});
       }},
      {"as_strided",
       [](const Tensor& x) {
         return x.as_strided({2, 2}, {1, 6}, 3);
       }},
      {"diagonal", [](const Tensor& x) { return x.diagonal(1); }},
      {"unfold", [](const Tensor& x) { return x.unfold(1, 3, 2); }},
      {"split piece", [](const Tensor& x) { return x.split(2, 1)[1]; }},
      {"chunk piece", [](const Tensor& x) { return x.chunk(3, 1)[2]; }},
      {"indexing",
       [](const Tensor& x) {
         return x.index({indexing::Slice(1, 4), 2});
       }},
  };
}

}  // namespace

TEST(ViewRecords, EveryViewOpRecordsItsBaseAndReplays) {
  const Tensor base = filled({4, 6}, 1);
  for (const Case& c : view_cases()) check_view(c.what, base, c.f);
}

TEST(ViewRecords, ViewsOfViewsRecordTheRootBase) {
  const Tensor base = filled({4, 6}, 2);
  for (const Case& outer : view_cases()) {
    for (const Case& inner : {Case{"transpose", [](const Tensor& x) { return x.transpose(0, -1); }},
                              Case{"slice", [](const Tensor& x) { return x.slice(0, 1); }}}) {
      const std::string what = std::string(inner.what) + " of " + outer.what;
      check_view(what, base, [&](const Tensor& x) { return inner.f(outer.f(x)); });
      const Tensor mid = outer.f(base);
      EXPECT_FALSE(inner.f(mid)._base().is_same(mid)) << what << ": records the root, not the intermediate";
    }
  }
}

TEST(ViewRecords, ANonContiguousRootReplaysOnATensorOfItsStrides) {
  Tensor base = empty_strided({4, 6}, {1, 4});
  base.copy_(filled({4, 6}, 3));
  ASSERT_FALSE(base._is_view());
  check_view("slice of a column-major base", base, [](const Tensor& x) { return x.slice(1, 2, 5); });
  check_view("t of a column-major base", base, [](const Tensor& x) { return x.t().select(0, 1); });
  auto info = detail::view_info(base.select(0, 1));
  EXPECT_ERROR(ValueError, detail::replay_view(*info, filled({4, 6}, 4)), "[replay_view]",
               "must have the base's sizes and strides", "strides [1, 4]", "strides [6, 1]");
  EXPECT_ERROR(ValueError, detail::replay_view(*info, Tensor()), "[replay_view]", "undefined");
}

TEST(ViewRecords, NonViewsHaveNoBaseAndContiguousOfContiguousKeepsItsRecord) {
  const Tensor base = filled({4, 6}, 5);
  const std::pair<const char*, Tensor> non_views[] = {
      {"a factory", zeros({2, 3})},
      {"clone", base.clone()},
      {"clone of a view", base.t().clone()},
      {"contiguous of a non-contiguous view", base.t().contiguous()},
      {"reshape that copies", base.t().reshape({24})},
      {"a functional op", base + 1},
  };
  for (const auto& [what, t] : non_views) {
    EXPECT_FALSE(t._is_view()) << what;
    EXPECT_FALSE(t.is_view()) << what;
    EXPECT_FALSE(t._base().defined()) << what;
    EXPECT_FALSE(detail::view_info(t).has_value()) << what;
  }
  EXPECT_NE(storage_of(base.t().contiguous()), storage_of(base));
  // contiguous() of a contiguous tensor returns it: a non-view stays one, a view keeps its base.
  EXPECT_TRUE(base.contiguous().is_same(base));
  const Tensor row = base.select(0, 2);
  ASSERT_TRUE(row.is_contiguous());
  const Tensor c = row.contiguous();
  EXPECT_TRUE(c.is_same(row));
  EXPECT_TRUE(c._is_view());
  EXPECT_TRUE(c._base().is_same(base));
}

TEST(ViewRecords, AReplayStepChainsWithTheViewsAroundIt) {
  // A view as_strided cannot redo records a replay function; steps chain to the root, and the
  // views around them replay as as_strided from the nearest step's output.
  const Tensor base = filled({4, 6}, 6);
  int replays = 0;
  // A stand-in for such a view: rows 1.. of its input, made through the replay slot.
  auto custom = [&replays](const Tensor& x) {
    Tensor s = x.slice(0, 1);
    return make_view(x, s.sizes(), s.strides(), s.storage_offset(), [&replays](const Tensor& in) {
      ++replays;
      return in.slice(0, 1);
    });
  };
  struct StepCase {
    const char* what;
    ViewFn f;
    int steps;
  };
  const StepCase cases[] = {
      {"the step on the root", [&](const Tensor& x) { return custom(x); }, 1},
      {"a view of the step", [&](const Tensor& x) { return custom(x).t(); }, 1},
      {"the step on a view", [&](const Tensor& x) { return custom(x.t()); }, 1},
      {"views around two steps", [&](const Tensor& x) { return custom(custom(x.narrow(1, 1, 4)).t()).select(1, 0); },
       2},
  };
  for (const auto& [what, f, steps] : cases) {
    const Tensor v = f(base);
    ASSERT_TRUE(v._is_view()) << what;
    EXPECT_TRUE(v._base().is_same(base)) << what;
    auto info = detail::view_info(v);
    ASSERT_TRUE(info && info->step) << what;
    const Tensor fresh = filled({4, 6}, 8);
    replays = 0;
    const Tensor got = detail::replay_view(*info, fresh);
    EXPECT_EQ(replays, steps) << what << ": each recorded function ran once";
    expect_same_view(got, f(fresh), what);
  }
  EXPECT_ERROR(ValueError, make_view(base, {2}, {1}, 0, ViewStep::Fn()), "[make_view]", "empty");
}

// ---- version counters ----------------------------------------------------------------------

namespace {

// `what` adds exactly one to each tensor of `written` and nothing to those of `read`.
void expect_bumps(const std::string& what, const std::vector<Tensor>& written, const std::vector<Tensor>& read,
                  const std::function<void()>& op) {
  std::vector<uint64_t> w0, r0;
  for (const Tensor& t : written) w0.push_back(t._version());
  for (const Tensor& t : read) r0.push_back(t._version());
  op();
  for (size_t i = 0; i < written.size(); ++i) EXPECT_EQ(written[i]._version(), w0[i] + 1) << what << ": written " << i;
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i]._version(), r0[i]) << what << ": read " << i;
}

}  // namespace

TEST(VersionCounters, InPlaceAndOutOpsBumpExactlyOnce) {
  Tensor x = filled({3, 4}, 1), y = filled({3, 4}, 2), out = empty({3, 4});
  expect_bumps("add_", {x}, {y}, [&] { x.add_(y); });
  expect_bumps("add_.Scalar", {x}, {}, [&] { x.add_(2); });
  expect_bumps("mul_", {x}, {y}, [&] { x.mul_(y); });
  expect_bumps("add.out typed", {out}, {x, y}, [&] { add_out(out, x, y); });
  expect_bumps("add.out boxed", {out}, {x, y}, [&] { ops::call("aten::add.out", x, y, 1, out); });
  expect_bumps("add.out resizing an empty out", {out}, {x, y}, [&] {
    out.unsafeGetTensorImpl()->set_sizes_contiguous({0});
    add_out(out, x, y);
  });
  expect_bumps("exp.out", {out}, {x}, [&] { exp_out(out, x); });
  expect_bumps("copy_", {x}, {y}, [&] { x.copy_(y); });
  expect_bumps("copy_ boxed", {x}, {y}, [&] { ops::call("aten::copy_", x, y); });
  expect_bumps("fill_", {x}, {}, [&] { x.fill_(3); });
  expect_bumps("zero_", {x}, {}, [&] { x.zero_(); });
  expect_bumps("uniform_", {x}, {}, [&] { x.uniform_(); });
  const Tensor idx = tensor({0, 2});
  expect_bumps("index_put_", {x}, {idx}, [&] { index_put_(x, {std::optional<Tensor>(idx)}, tensor({1.f})); });
  expect_bumps("index_put_ by indexing", {x}, {}, [&] { x.index_put_({1}, 5.0); });
  expect_bumps("masked_fill_", {x}, {}, [&] { x.masked_fill_(x > 0, 1.0); });
  Tensor mx = empty({0}), mi = empty({0}, kInt64);
  expect_bumps("max.dim_max typed", {mx, mi}, {y}, [&] { max_out(mx, mi, y, 1); });
  expect_bumps("max.dim_max boxed", {mx, mi}, {y}, [&] { ops::call("aten::max.dim_max", y, 1, false, mx, mi); });
  EXPECT_EQ(values(mx), values(std::get<0>(y.max(1))));
}

TEST(VersionCounters, FunctionalOpsAndViewsDoNotBump) {
  Tensor x = filled({3, 4}, 3), y = filled({3, 4}, 4);
  expect_bumps("functional ops", {}, {x, y}, [&] {
    (void)(x + y);
    (void)x.sum();
    (void)x.clone();
    (void)x.contiguous();
    (void)x.t().contiguous();
    (void)x.view({12});
    (void)std::get<0>(x.max(1));
    (void)x.to(kFloat64);
  });
}

TEST(VersionCounters, AnInPlaceOpOnAViewBumpsItsBase) {
  Tensor x = filled({3, 4}, 5);
  Tensor row = x.select(0, 1);
  Tensor col = x.select(1, 2);
  expect_bumps("add_ on a row", {x, row, col}, {}, [&] { row.add_(1); });
  expect_bumps("zero_ on the base", {x, row, col}, {}, [&] { x.zero_(); });
  expect_bumps("copy_ into a transposed view", {x}, {}, [&] { x.t().copy_(filled({4, 3}, 6)); });
}

// ---- custom functions ----------------------------------------------------------------------

namespace {
// API.md's example, verbatim.
struct Cube : ember::autograd::Function<Cube> {
  static ember::Tensor forward(ember::autograd::AutogradContext* ctx, ember::Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static ember::autograd::variable_list backward(ember::autograd::AutogradContext* ctx,
                                                 ember::autograd::variable_list g) {
    auto x = ctx->get_saved_variables()[0];
    return {g[0] * 3 * x * x};
  }
};
}  // namespace

TEST(AutogradSeams, ApiMdCubeRunsForwardWithoutThePlugin) {
  // No input requires grad: no node is recorded, so no autograd plugin is needed.
  ASSERT_EQ(autograd_hooks(), nullptr);
  const Tensor x = from_values({3}, kFloat32, {1, 2, -3});
  const Tensor y = Cube::apply(x);
  EXPECT_EQ(values(y), (std::vector<double>{1, 8, -27}));
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(autograd::grad_fn_name(y), "");
}
