#include "SavedVariable.h"

#include "Variable.h"

namespace ember::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  EMBER_CHECK(!t.is_inference() || InferenceMode::is_enabled(),
              "[autograd] inference tensors cannot be saved for backward. To work around this, make a clone to "
              "get a normal tensor and use it in autograd.");
  saved_version_ = t._version();
  is_output_ = is_output;
  AutogradMeta* m = meta_of(t);
  requires_grad_ = m && m->requires_grad();
  if (is_output && m && m->grad_fn) {
    // Keep the data only: the node saving its own output would own itself through grad_fn.
    output_nr_ = m->output_nr;
    data_ = alias_without_history(t);
  } else {
    is_output_ = false;
    data_ = t;
  }
}

void throw_saved_modified(const Tensor& t, const std::string& producer, uint32_t output_nr, uint64_t now,
                          uint64_t expected) {
  std::string which = producer.empty() ? "" : fmt::format(", which is output {} of {},", output_nr, producer);
  EMBER_THROW(ValueError,
              "[autograd] one of the variables needed for gradient computation has been modified by an inplace "
              "operation: {}{} is at version {}; expected version {} instead. Hint: enable anomaly detection to "
              "find the operation that failed to compute its gradient, with "
              "ember::autograd::DetectAnomalyGuard.",
              describe_tensor(t), which, now, expected);
}

Tensor SavedVariable::unpack(const std::shared_ptr<NodeImpl>& saved_for) const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK(!released_,
              "[autograd] Trying to backward through the graph a second time (or directly access saved tensors "
              "after they have already been freed). Saved intermediate values of the graph are freed when you "
              "call .backward() or autograd::grad(). Specify retain_graph=true if you need to backward through "
              "the graph a second time or if you need to access saved tensors after calling backward.");
  const uint64_t now = data_._version();
  if (now != saved_version_) {
    std::string producer;
    uint32_t nr = output_nr_;
    if (is_output_ && saved_for) {
      producer = saved_for->name();
    } else if (AutogradMeta* m = meta_of(data_); m && m->grad_fn) {
      producer = m->grad_fn->name();
      nr = m->output_nr;
    }
    throw_saved_modified(data_, producer, nr, now, saved_version_);
  }
  if (!is_output_ || !requires_grad_) return data_;
  // An output saved by its own node: rebuild a tensor with that node as grad_fn, so a formula
  // differentiated again (create_graph) reaches it.
  Tensor t = alias_without_history(data_);
  if (saved_for) {
    AutogradMeta& m = materialize_meta(t);
    m.grad_fn = saved_for;
    m.output_nr = output_nr_;
    t.unsafeGetTensorImpl()->add_keys(DispatchKeySet::of(Functionality::Autograd));
  }
  return t;
}

void SavedVariable::reset_data() {
  if (!was_defined_) return;
  data_ = Tensor();
  released_ = true;
}

}  // namespace ember::autograd
