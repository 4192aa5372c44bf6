// outer and einsum: composites of views, sums and bmm, so autograd and every backend get them.
//
// Note [einsum contraction]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// As LibTorch 1.13: the equation is parsed (subscripts a-z A-Z, at most one "..." per operand,
// spaces ignored; without "->" the output is the ellipsis dims then the subscripts that appear
// once, in ASCII order), a subscript repeated within an operand takes its diagonal, and every
// operand is aligned to one dimension list (the output's dims, then the contracted subscripts,
// then ellipsis dims the output drops) with size-1 dims where it lacks one. The operands are then
// contracted left to right, each pair by one bmm over (batch, kept, summed) groups of dims; a dim
// is summed away as soon as no later operand and not the output has it. The optional path is
// accepted and not used: the order is always left to right.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "Composite.h"

namespace ember::native {

Tensor outer(const Tensor& self, const Tensor& vec2) {
  check_defined("outer", self, "self");
  check_defined("outer", vec2, "vec2");
  EMBER_CHECK(self.dim() == 1, "[outer] Expected 1-D argument self, but got {}-D", self.dim());
  EMBER_CHECK(vec2.dim() == 1, "[outer] Expected 1-D argument vec2, but got {}-D", vec2.dim());
  return ember::mul(self.reshape({-1, 1}), vec2);
}

namespace {

constexpr int kLabels = 52;    // a-z, A-Z
constexpr int kEllipsis = 52;  // the label standing for ellipsis dims in an operand's list

int label_of(char c) { return c >= 'a' && c <= 'z' ? c - 'a' : 26 + (c - 'A'); }
char char_of(int l) { return static_cast<char>(l < 26 ? 'a' + l : 'A' + (l - 26)); }
bool is_subscript(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// One side of the equation: subscripts (label numbers, kEllipsis for "...").
std::vector<int> parse_term(const std::string& eq, size_t begin, size_t end, bool& has_ellipsis) {
  std::vector<int> t;
  has_ellipsis = false;
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!has_ellipsis, "[einsum] found more than one ellipsis (\"...\") in one operand");
      EMBER_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.',
                  "[einsum] found '.' at index {} in the equation string that is not part of an ellipsis (\"...\")", i);
      has_ellipsis = true;
      t.push_back(kEllipsis);
      i += 2;
      continue;
    }
    EMBER_CHECK(is_subscript(c),
                "[einsum] invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]",
                i);
    t.push_back(label_of(c));
  }
  return t;
}

// (left * right) summed over `sum` dims, both of one rank with size-1 dims where they lack one:
// one bmm over (batch, left-only, summed) x (batch, summed, right-only) dims, or a product when
// no summed dim is in both; keeps the rank.
Tensor sumproduct_pair(Tensor left, Tensor right, const std::vector<bool>& sum) {
  const int64_t n = left.dim();
  std::vector<int64_t> batch, lo, ro, con;
  for (int64_t d = 0; d < n; ++d) {
    const int64_t ls = left.size(d), rs = right.size(d);
    if (sum[static_cast<size_t>(d)]) {
      if (ls != 1 && rs != 1)
        con.push_back(d);
      else if (ls != 1)
        left = left.sum({d}, true);
      else if (rs != 1)
        right = right.sum({d}, true);
    } else if (ls != 1 && rs != 1) {
      batch.push_back(d);
    } else if (ls != 1) {
      lo.push_back(d);
    } else if (rs != 1) {
      ro.push_back(d);
    }
  }
  // Nothing left to contract: a broadcast product (LibTorch's too, so the layout is the
  // elementwise one, and no bmm of 1-wide matrices).
  if (con.empty()) return ember::mul(left, right);
  auto prod = [](const Tensor& t, const std::vector<int64_t>& dims) {
    int64_t p = 1;
    for (int64_t d : dims) p *= t.size(d);
    return p;
  };
  auto rest = [&](std::vector<int64_t> first) {  // first, then every dim not listed (all size 1)
    for (int64_t d = 0; d < n; ++d)
      if (std::find(first.begin(), first.end(), d) == first.end()) first.push_back(d);
    return first;
  };
  std::vector<int64_t> lperm(batch), rperm(batch);
  lperm.insert(lperm.end(), lo.begin(), lo.end());
  lperm.insert(lperm.end(), con.begin(), con.end());
  rperm.insert(rperm.end(), con.begin(), con.end());
  rperm.insert(rperm.end(), ro.begin(), ro.end());
  const int64_t B = prod(left, batch), L = prod(left, lo), S = prod(left, con), R = prod(right, ro);
  const Tensor a = left.permute(rest(lperm)).reshape({B, L, S});
  const Tensor b = right.permute(rest(rperm)).reshape({B, S, R});
  Tensor r = ember::bmm(a, b);  // (B, L, R)
  // Back to the full rank: the batch, left and right dims in their places, 1 elsewhere.
  std::vector<int64_t> order(batch), shape;
  order.insert(order.end(), lo.begin(), lo.end());
  order.insert(order.end(), ro.begin(), ro.end());
  for (int64_t d : batch) shape.push_back(left.size(d));
  for (int64_t d : lo) shape.push_back(left.size(d));
  for (int64_t d : ro) shape.push_back(right.size(d));
  r = r.reshape(shape);
  std::vector<int64_t> inv(order.size());
  std::vector<int64_t> sorted_dims(order);
  std::sort(sorted_dims.begin(), sorted_dims.end());
  for (size_t i = 0; i < sorted_dims.size(); ++i)
    inv[i] = std::find(order.begin(), order.end(), sorted_dims[i]) - order.begin();
  r = r.permute(inv);
  std::vector<int64_t> full(static_cast<size_t>(n), 1);
  for (size_t i = 0; i < sorted_dims.size(); ++i)
    full[static_cast<size_t>(sorted_dims[i])] = r.size(static_cast<int64_t>(i));
  return r.reshape(full);
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors, std::optional<IntArrayRef> path) {
  (void)path;  // Note [einsum contraction]: always left to right
  const std::string eq(equation);
  EMBER_CHECK(!tensors.empty(), "[einsum] must provide at least one operand");
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_defined("einsum", tensors[i], "tensors");
    EMBER_CHECK_TYPE(tensors[i].dtype() == tensors[0].dtype(),
                     "[einsum] expected every operand of dtype {} (operand 0's), got {} for operand {}",
                     tensors[0].dtype(), tensors[i].dtype(), i);
  }
  const size_t arrow = eq.find("->");
  const size_t lhs_end = arrow == std::string::npos ? eq.size() : arrow;
  // ---- the operands' subscripts
  std::vector<std::vector<int>> terms;
  std::vector<bool> term_ell;
  for (size_t b = 0;;) {
    const size_t comma = eq.find(',', b);
    const size_t e = comma == std::string::npos || comma > lhs_end ? lhs_end : comma;
    bool ell = false;
    terms.push_back(parse_term(eq, b, e, ell));
    term_ell.push_back(ell);
    if (e == lhs_end) break;
    b = e + 1;
  }
  const size_t n_ops = tensors.size();
  EMBER_CHECK(terms.size() <= n_ops, "[einsum] fewer operands were provided than specified in the equation");
  EMBER_CHECK(terms.size() >= n_ops, "[einsum] more operands were provided than specified in the equation");
  // ---- each operand's labels per dim (-1 - k for its k-th ellipsis dim, counted from the right)
  int64_t ell_rank = 0;
  std::array<int64_t, kLabels> count{};
  std::vector<std::vector<int>> dims_of(n_ops);
  for (size_t i = 0; i < n_ops; ++i) {
    const auto& t = terms[i];
    const int64_t nd = tensors[i].dim(), named = static_cast<int64_t>(t.size()) - (term_ell[i] ? 1 : 0);
    if (term_ell[i]) {
      EMBER_CHECK(nd >= named,
                  "[einsum] the number of subscripts in the equation ({}) is more than the number of dimensions ({}) "
                  "for operand {}",
                  named, nd, i);
    } else {
      EMBER_CHECK(nd == named,
                  "[einsum] the number of subscripts in the equation ({}) does not match the number of dimensions "
                  "({}) for operand {} and no ellipsis was given",
                  named, nd, i);
    }
    const int64_t ne = nd - named;
    ell_rank = std::max(ell_rank, term_ell[i] ? ne : 0);
    for (int l : t) {
      if (l == kEllipsis) {
        for (int64_t k = ne - 1; k >= 0; --k) dims_of[i].push_back(static_cast<int>(-1 - k));
      } else {
        dims_of[i].push_back(l);
        ++count[static_cast<size_t>(l)];
      }
    }
  }
  // ---- the output's dims (labels >= 0, ellipsis dims as -1 - k)
  std::vector<int> out;
  bool out_has_ell = false;
  const bool any_ell = std::any_of(term_ell.begin(), term_ell.end(), [](bool b) { return b; });
  auto push_ell = [&] {
    for (int64_t k = ell_rank - 1; k >= 0; --k) out.push_back(static_cast<int>(-1 - k));
  };
  if (arrow != std::string::npos) {
    bool ell = false;
    const std::vector<int> t = parse_term(eq, arrow + 2, eq.size(), ell);
    std::array<bool, kLabels> seen{};
    for (int l : t) {
      if (l == kEllipsis) {
        EMBER_CHECK(any_ell, "[einsum] ellipsis (\"...\") in the output but in no input operand");
        out_has_ell = true;
        push_ell();
        continue;
      }
      EMBER_CHECK(count[static_cast<size_t>(l)] > 0,
                  "[einsum] output subscript {} does not appear in the equation for any input operand", char_of(l));
      EMBER_CHECK(!seen[static_cast<size_t>(l)], "[einsum] output subscript {} appears more than once in the output",
                  char_of(l));
      seen[static_cast<size_t>(l)] = true;
      out.push_back(l);
    }
  } else {
    out_has_ell = true;
    push_ell();
    for (int l = 0; l < kLabels; ++l) {
      // ASCII order: A-Z (labels 26..51) before a-z (0..25).
      const int lab = l < 26 ? 26 + l : l - 26;
      if (count[static_cast<size_t>(lab)] == 1) out.push_back(lab);
    }
  }
  // ---- the global dim list: output dims, contracted labels, dropped ellipsis dims
  std::vector<int> global(out);
  for (size_t i = 0; i < n_ops; ++i)
    for (int l : dims_of[i])
      if (std::find(global.begin(), global.end(), l) == global.end() && l >= 0) global.push_back(l);
  if (!out_has_ell)
    for (int64_t k = ell_rank - 1; k >= 0; --k) global.push_back(static_cast<int>(-1 - k));
  const int64_t G = static_cast<int64_t>(global.size()), n_out = static_cast<int64_t>(out.size());
  auto gpos = [&](int l) { return std::find(global.begin(), global.end(), l) - global.begin(); };
  // ---- each operand: diagonals of repeated labels, then aligned to the global list
  std::vector<Tensor> ops(n_ops);
  std::vector<int64_t> label_size(static_cast<size_t>(G), 1);
  for (size_t i = 0; i < n_ops; ++i) {
    Tensor t = tensors[i];
    std::vector<int> ls = dims_of[i];
    for (bool again = true; again;) {
      again = false;
      for (size_t p = 0; p < ls.size() && !again; ++p)
        for (size_t q = p + 1; q < ls.size() && !again; ++q)
          if (ls[p] >= 0 && ls[p] == ls[q]) {
            EMBER_CHECK(t.size(static_cast<int64_t>(p)) == t.size(static_cast<int64_t>(q)),
                        "[einsum] subscript {} is repeated for operand {} but the sizes don't match, {} != {}",
                        char_of(ls[p]), i, t.size(static_cast<int64_t>(p)), t.size(static_cast<int64_t>(q)));
            t = t.diagonal(0, static_cast<int64_t>(p), static_cast<int64_t>(q));
            const int l = ls[p];
            ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(q));
            ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(p));
            ls.push_back(l);
            again = true;
          }
    }
    std::vector<int64_t> perm, shape(static_cast<size_t>(G), 1);
    std::vector<std::pair<int64_t, int64_t>> placed;  // (global position, operand dim)
    for (size_t d = 0; d < ls.size(); ++d) placed.push_back({gpos(ls[d]), static_cast<int64_t>(d)});
    std::sort(placed.begin(), placed.end());
    for (const auto& [g, d] : placed) {
      perm.push_back(d);
      const int64_t s = t.size(d);
      shape[static_cast<size_t>(g)] = s;
      int64_t& seen = label_size[static_cast<size_t>(g)];
      if (s != 1) {
        EMBER_CHECK(seen == 1 || seen == s,
                    "[einsum] subscript {} has size {} for operand {} which does not broadcast with previously seen "
                    "size {}",
                    global[static_cast<size_t>(g)] >= 0 ? std::string(1, char_of(global[static_cast<size_t>(g)]))
                                                        : std::string("..."),
                    s, i, seen);
        seen = s;
      }
    }
    ops[i] = t.permute(perm).reshape(shape);
  }
  // ---- contract left to right (Note [einsum contraction])
  // last_use[g]: the last operand with a dim of size > 1 at g (the output keeps its dims).
  std::vector<int64_t> last_use(static_cast<size_t>(G), -1);
  for (size_t i = 0; i < n_ops; ++i)
    for (int64_t g = 0; g < G; ++g)
      if (ops[i].size(g) != 1) last_use[static_cast<size_t>(g)] = static_cast<int64_t>(i);
  Tensor result = ops[0];
  auto sum_unused = [&](Tensor t, int64_t upto) {  // sums dims nothing after `upto` needs
    std::vector<int64_t> dims;
    for (int64_t g = n_out; g < G; ++g)
      if (t.size(g) != 1 && last_use[static_cast<size_t>(g)] <= upto) dims.push_back(g);
    return dims.empty() ? t : t.sum(dims, true);
  };
  result = sum_unused(result, 0);
  for (size_t i = 1; i < n_ops; ++i) {
    std::vector<bool> sum(static_cast<size_t>(G), false);
    for (int64_t g = n_out; g < G; ++g)
      sum[static_cast<size_t>(g)] = last_use[static_cast<size_t>(g)] <= static_cast<int64_t>(i);
    result = sumproduct_pair(result, ops[i], sum);
  }
  // Every contracted dim is now size 1: drop them.
  std::vector<int64_t> final_shape;
  for (int64_t g = 0; g < n_out; ++g) final_shape.push_back(result.size(g));
  return result.reshape(final_shape);
}

}  // namespace ember::native
