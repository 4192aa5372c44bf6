// Composite spellings of reductions that LibTorch declares beside a kernel overload: var_mean /
// std_mean with `unbiased` (their .correction overloads hold the kernels) and argsort.stable.
#include "Composite.h"

namespace ember::native {

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return ember::var_mean(self, std::nullopt, std::optional<int64_t>(unbiased ? 1 : 0));
}

std::tuple<Tensor, Tensor> var_mean_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,
                                        bool keepdim) {
  return ember::var_mean(self, dim, std::optional<int64_t>(unbiased ? 1 : 0), keepdim);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return ember::std_mean(self, std::nullopt, std::optional<int64_t>(unbiased ? 1 : 0));
}

std::tuple<Tensor, Tensor> std_mean_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,
                                        bool keepdim) {
  return ember::std_mean(self, dim, std::optional<int64_t>(unbiased ? 1 : 0), keepdim);
}

Tensor argsort_stable(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(ember::sort(self, std::optional<bool>(stable), dim, descending));
}

}  // namespace ember::native
