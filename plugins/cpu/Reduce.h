#pragma once
// Internal to the CPU plugin: the reductions of issue 3 (reduce2.cpp), registered in their own
// block of register.cpp. Each has the exact C++ signature its schema maps to.
#include <optional>
#include <tuple>

#include "ember/core/Tensor.h"

namespace ember::cpu {

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype);
Tensor mean_dim(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype);
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype);
Tensor prod_dim_int(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype);
Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim);
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor any(const Tensor& self);
Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim);
Tensor all(const Tensor& self);
Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim);
Tensor softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);
Tensor log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor var(const Tensor& self, bool unbiased);
Tensor var_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim);
Tensor std(const Tensor& self, bool unbiased);
Tensor std_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim);
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);

}  // namespace ember::cpu
