#pragma once
// The `int reduction` argument of the loss operators (LibTorch's at::Reduction):
//   ember::cross_entropy_loss(x, t, {}, ember::Reduction::Sum);
// ember::nn::functional takes the tags ember::kNone / kMean / kSum instead, as torch::nn::functional.
namespace ember::Reduction {

enum Reduction { None, Mean, Sum, END };

}  // namespace ember::Reduction
