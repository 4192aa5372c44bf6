// Views: their strides, and writes through them.
#include "vs_record.h"

VS_CASE("views.transpose") {
  vs::Tensor x = vs::arange(24, vs::kFloat32).reshape({2, 3, 4});
  r.tensor("transpose01", x.transpose(0, 1));
  r.tensor("transpose_neg", x.transpose(-1, 0));
  r.tensor("t", x.select(0, 1).t());
  r.scalar("is_contiguous", x.transpose(1, 2).is_contiguous());
  r.tensor("contiguous", x.transpose(1, 2).contiguous());
}

// NumPy's names and LibTorch's matrix views (numpy_T, matrix_H, mT, mH, adjoint) with their errors.
VS_CASE("views.matrix_views") {
  vs::Tensor x = vs::arange(24, vs::kFloat32).reshape({2, 3, 4});
  r.tensor("swapaxes", x.swapaxes(0, 2));
  r.tensor("swapdims_fn", vs::swapdims(x, -1, 1));
  r.tensor("numpy_T", x.numpy_T());
  r.tensor("T_1d", x.select(0, 0).select(0, 0).numpy_T());
  r.tensor("mT", x.mT());
  r.tensor("mH", x.mH());
  r.tensor("adjoint", vs::adjoint(x));
  r.tensor("matrix_H", x.select(0, 1).matrix_H());
  r.tensor("H_0d", vs::scalar_tensor(2.5).matrix_H());
  vs::Tensor c = vs::view_as_complex(x.reshape({2, 3, 2, 2}));
  r.tensor("mH_complex", vs::view_as_real(c.mH().resolve_conj()));
  r.tensor("H_complex", vs::view_as_real(c.select(0, 0).matrix_H().resolve_conj()));
  r.raises("mT_1d", [&] { x.select(0, 0).select(0, 0).mT(); });
  r.raises("mH_1d", [&] { x.select(0, 0).select(0, 0).mH(); });
  r.raises("adjoint_1d", [&] { vs::adjoint(x.select(0, 0).select(0, 0)); });
  r.raises("H_3d", [&] { x.matrix_H(); });
  r.raises("swapaxes_bad_dim", [&] { x.swapaxes(0, 3); });
}

VS_CASE("views.permute") {
  vs::Tensor x = vs::arange(24, vs::kFloat32).reshape({2, 3, 4});
  r.tensor("permute", x.permute({2, 0, 1}));
  r.tensor("permute_neg", x.permute({-1, -3, -2}));
  r.tensor("permute_twice", x.permute({2, 0, 1}).permute({1, 2, 0}));
}

VS_CASE("views.narrow") {
  vs::Tensor x = vs::arange(24, vs::kFloat32).reshape({4, 6});
  r.tensor("narrow0", x.narrow(0, 1, 2));
  r.tensor("narrow1", x.narrow(1, 2, 3));
  r.tensor("narrow_neg_dim", x.narrow(-1, 0, 1));
  r.tensor("narrow_of_t", x.t().narrow(1, 1, 2));
  r.tensor("narrow_empty", x.narrow(0, 4, 0));
  vs::Tensor y = x.clone();
  y.narrow(1, 1, 2).mul_(-1);
  r.tensor("write_through", y);
}

VS_CASE("views.reshape_view") {
  vs::Tensor x = vs::arange(12, vs::kFloat32).reshape({3, 4});
  r.tensor("view", x.view({4, 3}));
  r.tensor("reshape_t", x.t().reshape({12}));
  r.tensor("unsqueeze", x.unsqueeze(1));
  r.tensor("expand", vs::arange(3, vs::kFloat32).reshape({3, 1}).expand({3, 4}));
}

VS_CASE("views.strided") {
  vs::Tensor x = vs::arange(24, vs::kFloat32);
  r.tensor("as_strided", x.as_strided({3, 4}, {1, 3}, 2));
  r.tensor("as_strided_overlap", x.as_strided({4, 3}, {2, 1}));
  vs::Tensor m = x.reshape({4, 6});
  r.tensor("diagonal", m.diagonal());
  r.tensor("unfold", m.unfold(1, 3, 2));
  r.tensor("split_part", m.split(4, 1)[1]);
  r.tensor("select_of_permute", x.reshape({2, 3, 4}).permute({2, 0, 1}).select(1, 1));
  r.tensor("contiguous_noop", m.contiguous());
  r.tensor("clone_t", m.t().clone());
  r.tensor("reduce_keepdim_t", m.t().sum(0, true));
  r.tensor("to_dtype_t", m.t().to(vs::kFloat64));
}
