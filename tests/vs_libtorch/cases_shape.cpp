// Shape operators and reductions that return indices.
#include <string>
#include <vector>

#include "vs_record.h"

namespace {
vs::Tensor x() { return vs::arange(24, vs::kFloat32).reshape({2, 3, 4}); }
}  // namespace

VS_CASE("shape.join") {
  vs::Tensor a = x();
  r.tensor("cat0", vs::cat({a, a * 2}, 0));
  r.tensor("cat_neg", vs::cat({a, a.narrow(2, 0, 1)}, -1));
  r.tensor("cat_promote", vs::cat({a, vs::arange(12, vs::kInt64).reshape({1, 3, 4})}, 0));
  r.tensor("stack", vs::stack({a, a}, 1));
  r.tensor("cat_t", vs::cat({a.transpose(0, 2), a.transpose(0, 2)}, 1));
}

VS_CASE("shape.split") {
  vs::Tensor a = x();
  auto parts = a.split(3, 2);
  r.scalar("split.n", static_cast<double>(parts.size()));
  for (size_t i = 0; i < parts.size(); ++i) r.tensor("split." + std::to_string(i), parts[i]);
  auto chunks = a.chunk(2, 1);
  r.scalar("chunk.n", static_cast<double>(chunks.size()));
  for (size_t i = 0; i < chunks.size(); ++i) r.tensor("chunk." + std::to_string(i), chunks[i]);
}

VS_CASE("shape.misc") {
  vs::Tensor a = x();
  r.tensor("flip", a.flip({0, 2}));
  r.tensor("repeat", a.narrow(2, 0, 2).repeat({1, 2, 1}));
  r.tensor("flatten", a.flatten(1, 2));
  r.tensor("flatten_t", a.transpose(0, 1).flatten());
  r.tensor("squeeze", a.narrow(1, 0, 1).squeeze());
  r.tensor("squeeze_dim", a.narrow(1, 0, 1).squeeze(1));
  r.tensor("diagonal", a.diagonal(0, 1, 2));
  r.tensor("diagonal_off", a.diagonal(1, -2, -1));
  r.tensor("unfold", a.unfold(2, 2, 1));
  r.tensor("select", a.select(1, -1));
  r.tensor("slice", a.slice(2, 1, 4, 2));
}

VS_CASE("shape.indexed_reductions") {
  vs::Tensor a = (x() * 1.7).sin() * 3;  // distinct values: no ties in sort or arg*
  r.tensor("amax", a.amax(1));
  r.tensor("amin_keep", a.amin({0, 2}, true));
  auto [mx, imx] = a.max(2);
  r.tensor("max.values", mx);
  r.tensor("max.indices", imx);
  r.tensor("argmax", a.argmax(1));
  r.tensor("argmin_all", a.argmin());
  r.tensor("prod", (a + 1).prod(2));
  r.tensor("any", (a > 3).any(1));
  r.tensor("all", (a > 0).all());
  r.tensor("cumsum", a.cumsum(2));
  r.tensor("cumprod_t", (a.transpose(1, 2) + 1).cumprod(1));
  r.tensor("logsumexp", a.logsumexp(2));
  auto [sv, si] = a.sort(2, true);
  r.tensor("sort.values", sv);
  r.tensor("sort.indices", si);
  auto [tv, ti] = a.topk(2, 1);
  r.tensor("topk.values", tv);
  r.tensor("topk.indices", ti);
}
