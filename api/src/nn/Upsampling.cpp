// Upsample: F::interpolate with the module's options (LibTorch's modules/upsampling.cpp).
#include "ember/nn/modules/Upsampling.h"

#include <fmt/format.h>

#include "ember/nn/functional/resample.h"

namespace ember::nn {

UpsampleImpl::UpsampleImpl(const UpsampleOptions& options_) : options(options_) {}

void UpsampleImpl::reset() {}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Upsample(";
  if (options.scale_factor())
    stream << "scale_factor=[" << fmt::format("{}", fmt::join(*options.scale_factor(), ", ")) << "]";
  else
    stream << "size=[" << (options.size() ? fmt::format("{}", fmt::join(*options.size(), ", ")) : "") << "]";
  stream << ", mode=" << enumtype::get_enum_name(options.mode()) << ")";
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  functional::InterpolateFuncOptions o;
  o.size(options.size()).scale_factor(options.scale_factor()).align_corners(options.align_corners());
  std::visit([&](auto tag) { o.mode(tag); }, options.mode());
  return functional::interpolate(input, o);
}

FoldImpl::FoldImpl(const FoldOptions& options_) : options(options_) {}

void FoldImpl::reset() {}

void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Fold(output_size=" << options.output_size() << ", kernel_size=" << options.kernel_size()
         << ", dilation=" << options.dilation() << ", padding=" << options.padding() << ", stride=" << options.stride()
         << ")";
}

Tensor FoldImpl::forward(const Tensor& input) { return functional::fold(input, options); }

UnfoldImpl::UnfoldImpl(const UnfoldOptions& options_) : options(options_) {}

void UnfoldImpl::reset() {}

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Unfold(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

Tensor UnfoldImpl::forward(const Tensor& input) { return functional::unfold(input, options); }

}  // namespace ember::nn
