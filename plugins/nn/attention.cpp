// scaled_dot_product_attention (PyTorch 2.x's math path) and multi_head_attention_forward
// (torch.nn.functional's, with bias_k/bias_v, add_zero_attn, static keys and values, separate
// projection weights, key padding and attention masks).
#include <cmath>
#include <limits>

#include "NNUtil.h"
#include "ember/generated/nn/CompositeFunctions.h"

namespace ember::native {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

void check_mask_dtype(const char* op, const Tensor& mask, const char* name) {
  EMBER_CHECK_TYPE(mask.dtype() == kBool || mask.is_floating_point(),
                   "[{}] argument '{}': expected a bool or floating point mask, got {}", op, name, mask.dtype());
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  const char* op = "scaled_dot_product_attention";
  check_defined(op, query, "query");
  check_defined(op, key, "key");
  check_defined(op, value, "value");
  nnutil::check_floating(op, query, "query");
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
              "[{}] expected query, key and value of at least 2 dimensions (..., L or S, E), got shapes {}, {} and {}",
              op, query.sizes(), key.sizes(), value.sizes());
  EMBER_CHECK(key.size(-1) == query.size(-1), "[{}] expected key's last dimension ({}) to match query's ({})", op,
              key.size(-1), query.size(-1));
  EMBER_CHECK(value.size(-2) == key.size(-2), "[{}] expected value's sequence length ({}) to match key's ({})", op,
              value.size(-2), key.size(-2));
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, "[{}] argument 'dropout_p': expected a value in [0, 1], got {}", op,
              dropout_p);
  const bool has_mask = attn_mask && attn_mask->defined();
  EMBER_CHECK(!(is_causal && has_mask), "[{}] attn_mask must be None when is_causal is true", op);
  const int64_t L = query.size(-2), S = key.size(-2);
  const double factor = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  Tensor attn = matmul(query, key.transpose(-2, -1)) * factor;
  const Tensor minus_inf = nnutil::scalar_like(attn, -kInf);
  if (is_causal) {  // query i sees keys j <= i (the top-left aligned lower triangle)
    const TensorOptions i64 = TensorOptions(kInt64).device(query.device());
    attn = where(arange(L, i64).unsqueeze(1).ge(arange(S, i64).unsqueeze(0)), attn, minus_inf);
  }
  if (has_mask) {
    check_mask_dtype(op, *attn_mask, "attn_mask");
    attn = attn_mask->dtype() == kBool ? where(*attn_mask, attn, minus_inf) : attn + *attn_mask;
  }
  attn = softmax(attn, -1);
  if (dropout_p > 0) attn = ember::dropout(attn, dropout_p, true);
  return matmul(attn, value);
}

namespace {

// A mask in additive form: a bool mask's true entries become -inf (disallowed), a float mask is
// added as it is.
Tensor additive_mask(const char* op, const Tensor& mask, const char* name, const TensorOptions& opts) {
  check_mask_dtype(op, mask, name);
  if (mask.dtype() != kBool) return mask;
  return zeros(mask.sizes(), opts).masked_fill(mask, -kInf);
}

// t with one more zero (or false) along its last dimension.
Tensor pad_last(const Tensor& t) {
  std::vector<int64_t> s(t.sizes().begin(), t.sizes().end());
  s.back() = 1;
  return cat({t, zeros(s, t.options())}, -1);
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check, int64_t num_heads,
    const std::optional<Tensor>& in_proj_weight, const std::optional<Tensor>& in_proj_bias,
    const std::optional<Tensor>& bias_k, const std::optional<Tensor>& bias_v, bool add_zero_attn, double dropout_p,
    const Tensor& out_proj_weight, const std::optional<Tensor>& out_proj_bias, bool training,
    const std::optional<Tensor>& key_padding_mask, bool need_weights, const std::optional<Tensor>& attn_mask,
    bool use_separate_proj_weight, const std::optional<Tensor>& q_proj_weight,
    const std::optional<Tensor>& k_proj_weight, const std::optional<Tensor>& v_proj_weight,
    const std::optional<Tensor>& static_k, const std::optional<Tensor>& static_v, bool average_attn_weights,
    bool is_causal) {
  const char* op = "multi_head_attention_forward";
  auto given = [](const std::optional<Tensor>& t) { return t && t->defined(); };
  check_defined(op, query, "query");
  check_defined(op, key, "key");
  check_defined(op, value, "value");
  check_defined(op, out_proj_weight, "out_proj_weight");
  nnutil::check_floating(op, query, "query");
  EMBER_CHECK(query.dim() == 3 || query.dim() == 2,
              "[{}] argument 'query': expected a 3-D (L, N, E) or 2-D unbatched (L, E) tensor, got shape {}", op,
              query.sizes());
  const bool batched = query.dim() == 3;
  EMBER_CHECK(key.dim() == query.dim() && value.dim() == query.dim(),
              "[{}] expected key and value to be {}-D like query {}, got shapes {} and {}", op, query.dim(),
              query.sizes(), key.sizes(), value.sizes());
  if (given(key_padding_mask))
    EMBER_CHECK(key_padding_mask->dim() == (batched ? 2 : 1),
                "[{}] argument 'key_padding_mask': expected a {}-D tensor for {} query, got shape {}", op,
                batched ? 2 : 1, batched ? "a batched" : "an unbatched", key_padding_mask->sizes());
  EMBER_CHECK(!is_causal || given(attn_mask),
              "[{}] is_causal is a hint that attn_mask is the causal mask: attn_mask must be given with it", op);

  const Tensor q = batched ? query : query.unsqueeze(1), k = batched ? key : key.unsqueeze(1),
               v = batched ? value : value.unsqueeze(1);
  const int64_t L = q.size(0), N = q.size(1), E = q.size(2), S = k.size(0), H = num_heads;
  EMBER_CHECK(E == embed_dim_to_check, "[{}] expected an embedding dimension of {} (embed_dim_to_check), got {}", op,
              embed_dim_to_check, E);
  EMBER_CHECK(H > 0 && E % H == 0, "[{}] embed_dim {} is not divisible by num_heads {}", op, E, H);
  const int64_t hd = E / H;
  if (use_separate_proj_weight)
    EMBER_CHECK(k.size(0) == v.size(0) && k.size(1) == v.size(1),
                "[{}] expected key and value to have the same sequence length and batch, got shapes {} and {}", op,
                key.sizes(), value.sizes());
  else
    EMBER_CHECK(key.sizes() == value.sizes(), "[{}] expected key and value of the same shape, got {} and {}", op,
                key.sizes(), value.sizes());
  const TensorOptions fopts = q.options();

  // The input projections.
  std::optional<Tensor> bq, bk, bv;
  if (given(in_proj_bias)) {
    EMBER_CHECK(in_proj_bias->dim() == 1 && in_proj_bias->size(0) == 3 * E,
                "[{}] argument 'in_proj_bias': expected a 1-D tensor of {} elements (3 * embed_dim), got shape {}", op,
                3 * E, in_proj_bias->sizes());
    bq = in_proj_bias->slice(0, 0, E), bk = in_proj_bias->slice(0, E, 2 * E), bv = in_proj_bias->slice(0, 2 * E);
  }
  Tensor qp, kp, vp;
  if (!use_separate_proj_weight) {
    EMBER_CHECK(given(in_proj_weight), "[{}] in_proj_weight is required unless use_separate_proj_weight", op);
    const Tensor& w = *in_proj_weight;
    EMBER_CHECK(w.dim() == 2 && w.size(0) == 3 * E && w.size(1) == E,
                "[{}] argument 'in_proj_weight': expected shape [{}, {}], got {}", op, 3 * E, E, w.sizes());
    qp = ember::linear(q, w.slice(0, 0, E), bq), kp = ember::linear(k, w.slice(0, E, 2 * E), bk),
    vp = ember::linear(v, w.slice(0, 2 * E), bv);
  } else {
    EMBER_CHECK(given(q_proj_weight) && given(k_proj_weight) && given(v_proj_weight),
                "[{}] use_separate_proj_weight requires q_proj_weight, k_proj_weight and v_proj_weight", op);
    EMBER_CHECK(q_proj_weight->dim() == 2 && q_proj_weight->size(0) == E && q_proj_weight->size(1) == E,
                "[{}] argument 'q_proj_weight': expected shape [{}, {}], got {}", op, E, E, q_proj_weight->sizes());
    EMBER_CHECK(k_proj_weight->dim() == 2 && k_proj_weight->size(0) == E && k_proj_weight->size(1) == k.size(2),
                "[{}] argument 'k_proj_weight': expected shape [{}, {}], got {}", op, E, k.size(2),
                k_proj_weight->sizes());
    EMBER_CHECK(v_proj_weight->dim() == 2 && v_proj_weight->size(0) == E && v_proj_weight->size(1) == v.size(2),
                "[{}] argument 'v_proj_weight': expected shape [{}, {}], got {}", op, E, v.size(2),
                v_proj_weight->sizes());
    qp = ember::linear(q, *q_proj_weight, bq), kp = ember::linear(k, *k_proj_weight, bk),
    vp = ember::linear(v, *v_proj_weight, bv);
  }

  // The attention mask as (1 or N*H, L, S), additive.
  Tensor mask;
  if (given(attn_mask)) {
    mask = additive_mask(op, *attn_mask, "attn_mask", fopts);
    if (mask.dim() == 2) {
      EMBER_CHECK(mask.size(0) == L && mask.size(1) == S,
                  "[{}] argument 'attn_mask': expected a 2-D mask of shape [{}, {}], got {}", op, L, S, mask.sizes());
      mask = mask.unsqueeze(0);
    } else {
      EMBER_CHECK(mask.dim() == 3 && mask.size(0) == N * H && mask.size(1) == L && mask.size(2) == S,
                  "[{}] argument 'attn_mask': expected a 2-D [{}, {}] or 3-D [{}, {}, {}] mask, got {}", op, L, S,
                  N * H, L, S, mask.sizes());
    }
  }
  Tensor kpm;
  if (given(key_padding_mask))
    kpm = additive_mask(op, batched ? *key_padding_mask : key_padding_mask->unsqueeze(0), "key_padding_mask", fopts);

  // bias_k and bias_v: one more key and value position.
  if (given(bias_k) && given(bias_v)) {
    EMBER_CHECK(!given(static_k) && !given(static_v), "[{}] bias_k and bias_v cannot be added to static_k/static_v",
                op);
    kp = cat({kp, bias_k->reshape({1, 1, E}).repeat({1, N, 1})});
    vp = cat({vp, bias_v->reshape({1, 1, E}).repeat({1, N, 1})});
    if (mask.defined()) mask = pad_last(mask);
    if (kpm.defined()) kpm = pad_last(kpm);
  } else {
    EMBER_CHECK(!given(bias_k) && !given(bias_v), "[{}] bias_k and bias_v must be given together", op);
  }

  // Heads: (N * H, length, head_dim).
  const Tensor qh = qp.reshape({L, N * H, hd}).transpose(0, 1);
  auto heads = [&](const Tensor& proj, const std::optional<Tensor>& fixed, const char* name) {
    if (!given(fixed)) return proj.reshape({proj.size(0), N * H, hd}).transpose(0, 1);
    EMBER_CHECK(fixed->dim() == 3 && fixed->size(0) == N * H && fixed->size(2) == hd,
                "[{}] argument '{}': expected shape [{}, S, {}] (batch * num_heads, S, head_dim), got {}", op, name,
                N * H, hd, fixed->sizes());
    return *fixed;
  };
  Tensor kh = heads(kp, static_k, "static_k"), vh = heads(vp, static_v, "static_v");
  if (add_zero_attn) {
    kh = cat({kh, zeros({N * H, 1, hd}, kh.options())}, 1);
    vh = cat({vh, zeros({N * H, 1, hd}, vh.options())}, 1);
    if (mask.defined()) mask = pad_last(mask);
    if (kpm.defined()) kpm = pad_last(kpm);
  }
  const int64_t S2 = kh.size(1);
  if (kpm.defined()) {
    EMBER_CHECK(kpm.size(0) == N && kpm.size(1) == S2,
                "[{}] argument 'key_padding_mask': expected shape [{}, {}] (batch, source length), got {}", op, N, S2,
                kpm.sizes());
    kpm = kpm.view({N, 1, 1, S2}).expand({N, H, 1, S2}).reshape({N * H, 1, S2});
    mask = mask.defined() ? mask + kpm : kpm;
  }

  Tensor attn = bmm(qh * (1.0 / std::sqrt(static_cast<double>(hd))), kh.transpose(1, 2));  // (N*H, L, S2)
  if (mask.defined()) attn = attn + mask;
  attn = softmax(attn, -1);
  if (training && dropout_p > 0) attn = ember::dropout(attn, dropout_p, true);
  Tensor out = bmm(attn, vh).transpose(0, 1).contiguous().view({L * N, E});
  out = ember::linear(out, out_proj_weight, out_proj_bias);
  out = out.view({L, N, out.size(1)});
  Tensor weights;
  if (need_weights) {
    weights = attn.view({N, H, L, S2});
    if (average_attn_weights) weights = weights.mean({1});
    if (!batched) weights = weights.squeeze(0);
  }
  if (!batched) out = out.squeeze(1);
  return {out, weights};
}

}  // namespace ember::native
