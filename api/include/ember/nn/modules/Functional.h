#pragma once
// Functional (LibTorch's): a function of one tensor as a module, to put an operator in a
// Sequential: Sequential(Linear(4, 4), Functional(ember::relu), Functional(ember::gelu, "tanh")).
#include <functional>
#include <ostream>
#include <utility>

#include "ember/dispatcher/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Pimpl.h"

namespace ember::nn {

class EMBER_API FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;

  explicit FunctionalImpl(Function function);
  // function(input, args...): the extra arguments bound after the input.
  template <typename SomeFunction, typename... Args, typename = std::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : function_([f = std::move(original_function), ... a = std::forward<Args>(args)](Tensor input) {
          return f(std::move(input), a...);
        }) {}

  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  Tensor operator()(Tensor input);

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
