// Complex tensors and the FFT: creation, arithmetic and promotion, the views, abs/angle/conj,
// reductions, and torch::fft's functions with their n/s, dim and norm arguments. A complex result
// is recorded through view_as_real (its parts as a trailing dimension of 2, strides included),
// after resolve_conj (LibTorch's conj is a lazy view; Ember's is materialised).
#include <string>

#include "vs_record.h"

namespace {

vs::Tensor f32(int64_t n) { return vs::arange(n, vs::kFloat32); }
vs::Tensor f64(int64_t n) { return vs::arange(n, vs::kFloat64); }

// A deterministic complex tensor of n elements: (k - n/2) / 3 + i sin(1.3 k).
vs::Tensor cplx(int64_t n, vs::ScalarType real_dt = vs::kFloat32) {
  vs::Tensor k = vs::arange(n, real_dt);
  return vs::complex((k - static_cast<double>(n / 2)) / 3, vs::sin(k * 1.3));
}

void rc(vs_test::Recorder& r, const std::string& label, const vs::Tensor& t) {
  r.tensor(label, vs::view_as_real(t.resolve_conj()));
}

}  // namespace

VS_CASE("complex.creation") {
  rc(r, "zeros_c64", vs::zeros({2, 3}, vs::kC64));
  rc(r, "ones_c128", vs::ones({3}, vs::kC128));
  rc(r, "complex_f32", vs::complex(f32(4), f32(4) * -2));
  rc(r, "complex_f64_broadcast", vs::complex(f64(3).reshape({3, 1}), f64(2)));
  rc(r, "polar", vs::polar(f64(4) + 1, f64(4) * 0.7));
  rc(r, "float_to_complex", f32(5).to(vs::kC64));
  rc(r, "c64_to_c128", cplx(5).to(vs::kC128));
  r.tensor("complex_to_float", cplx(5).to(vs::kFloat32));  // LibTorch warns and drops imag
  r.result("complex_mixed_dtypes", [] { return vs::complex(f32(3), f64(3)); });
  r.result("complex_of_ints", [] { return vs::complex(vs::arange(3), vs::arange(3)); });
}

VS_CASE("complex.arith") {
  vs::Tensor a = cplx(6).reshape({2, 3}), b = cplx(6).flip({0}).reshape({2, 3}) + 1;
  rc(r, "add", a + b);
  rc(r, "sub", a - b);
  rc(r, "mul", a * b);
  rc(r, "div", a / b);
  rc(r, "neg", -a);
  rc(r, "exp", vs::exp(a));
  rc(r, "log", vs::log(b));
  rc(r, "sqrt", vs::sqrt(a));
  rc(r, "pow2", vs::pow(a, 2));
  rc(r, "pow_tensor", vs::pow(b, a));
  rc(r, "mul_real_scalar", a * 2.5);
  rc(r, "float32+c64", f32(3) + cplx(3));
  rc(r, "float64+c64", f64(3) + cplx(3));
  rc(r, "float64_0dim+c64", f64(1).reshape({}) + 0.5 + cplx(3));
  rc(r, "int64*c64", vs::arange(3) * cplx(3));
  rc(r, "c64+c128", cplx(3) + cplx(3, vs::kFloat64));
  rc(r, "transposed", a.t() * b.t());
  r.result("real_inplace_complex", [&] { return f32(6).reshape({2, 3}).add_(a); });
}

VS_CASE("complex.views") {
  vs::Tensor z = cplx(6).reshape({2, 3});
  r.tensor("view_as_real", vs::view_as_real(z));
  r.tensor("real", vs::real(z));
  r.tensor("imag", vs::imag(z));
  r.tensor("real_of_column", vs::real(z.select(1, 1)));
  rc(r, "view_as_complex", vs::view_as_complex(f32(12).reshape({2, 3, 2})));
  rc(r, "view_as_complex_of_real_view", vs::view_as_complex(vs::view_as_real(z.t())));
  r.result("imag_of_real", [] { return vs::imag(f32(3)); });
  r.result("view_as_real_of_real", [] { return vs::view_as_real(f32(3)); });
  r.result("view_as_complex_size3", [] { return vs::view_as_complex(f32(3)); });
  r.result("view_as_complex_stride2", [] { return vs::view_as_complex(f32(6).reshape({3, 2}).t().contiguous().t()); });
}

VS_CASE("complex.abs_angle_conj") {
  vs::Tensor z = cplx(7);
  r.tensor("abs", vs::abs(z));
  r.tensor("angle", vs::angle(z));
  r.tensor("abs_c128", vs::abs(cplx(7, vs::kFloat64)));
  r.tensor("angle_int", vs::angle(vs::arange(-2, 3)));
  r.tensor("angle_float", vs::angle(f32(5) - 2));
  rc(r, "conj", z.conj());
  rc(r, "conj_physical", vs::conj_physical(z));
  r.tensor("conj_real", f32(3).conj());
  r.tensor("is_complex", vs::tensor({z.is_complex(), f32(2).is_complex()}));
}

VS_CASE("complex.compare_reduce") {
  vs::Tensor z = cplx(6).reshape({2, 3});
  r.tensor("eq", vs::eq(z, z.flip({1})));
  r.tensor("ne", vs::ne(z, cplx(3)));
  rc(r, "sum", z.sum());
  rc(r, "sum_dim1", z.sum(1));
  rc(r, "sum_dim0_keepdim", z.sum(0, true));
  rc(r, "mean", z.mean());
  rc(r, "mean_dim0", z.mean(0));
  r.result("lt", [&] { return vs::lt(z, z); });
}

VS_CASE("complex.fft_one_dim") {
  vs::Tensor x = vs::sin(f64(12) * 0.7) + f64(12) * 0.1;
  vs::Tensor z = cplx(10, vs::kFloat64);
  rc(r, "fft_real", vs::fft::fft(x));
  rc(r, "fft_complex", vs::fft::fft(z));
  rc(r, "fft_f32", vs::fft::fft(x.to(vs::kFloat32)));
  rc(r, "fft_int", vs::fft::fft(vs::arange(6)));
  rc(r, "fft_n_pad", vs::fft::fft(x, 16));
  rc(r, "fft_n_trim", vs::fft::fft(x, 7));
  rc(r, "fft_ortho", vs::fft::fft(z, vs::none, -1, "ortho"));
  rc(r, "fft_forward", vs::fft::fft(z, vs::none, -1, "forward"));
  rc(r, "ifft", vs::fft::ifft(z));
  rc(r, "ifft_real", vs::fft::ifft(x));
  rc(r, "rfft", vs::fft::rfft(x));
  rc(r, "rfft_odd", vs::fft::rfft(x, 11));
  r.tensor("irfft", vs::fft::irfft(vs::fft::rfft(x)));
  r.tensor("irfft_n", vs::fft::irfft(z, 9));
  r.tensor("irfft_default_n", vs::fft::irfft(z));
  r.tensor("hfft", vs::fft::hfft(z, 13));
  rc(r, "ihfft", vs::fft::ihfft(x));
  vs::Tensor m = vs::sin(f64(24)).reshape({4, 6});
  rc(r, "fft_dim0", vs::fft::fft(m, vs::none, 0));
  rc(r, "rfft_batched", vs::fft::rfft(m));
  rc(r, "fft_prime_97", vs::fft::fft(vs::cos(f64(97) * 0.3)));
  rc(r, "fft_4097", vs::fft::fft(vs::cos(f64(4097) * 0.01)).slice(0, 0, 64));
  r.result("fft_bad_norm", [&] { return vs::fft::fft(x, vs::none, -1, "sideways"); });
  r.result("fft_n0", [&] { return vs::fft::fft(x, 0); });
  r.result("rfft_complex", [&] { return vs::fft::rfft(z); });
}

VS_CASE("complex.fft_many_dims") {
  vs::Tensor x = vs::sin(f64(60) * 0.37).reshape({3, 4, 5});
  rc(r, "fft2", vs::fft::fft2(x));
  rc(r, "fft2_s", vs::fft::fft2(x, std::vector<int64_t>{6, 3}));
  rc(r, "ifft2", vs::fft::ifft2(x.to(vs::kC128)));
  rc(r, "fftn", vs::fft::fftn(x));
  rc(r, "fftn_dims", vs::fft::fftn(x, vs::none, std::vector<int64_t>{0, 2}));
  rc(r, "ifftn_ortho", vs::fft::ifftn(x, vs::none, vs::none, "ortho"));
  rc(r, "rfft2", vs::fft::rfft2(x));
  rc(r, "rfftn", vs::fft::rfftn(x));
  r.tensor("irfft2", vs::fft::irfft2(vs::fft::rfft2(x)));
  r.tensor("irfftn_s", vs::fft::irfftn(vs::fft::rfftn(x), std::vector<int64_t>{3, 4, 8}));
  r.tensor("fftfreq", vs::fft::fftfreq(7));
  r.tensor("fftfreq_d", vs::fft::fftfreq(8, 0.25, vs::kFloat64));
  r.tensor("rfftfreq", vs::fft::rfftfreq(7, vs::kFloat32));
  r.tensor("fftshift", vs::fft::fftshift(vs::arange(10).reshape({2, 5})));
  r.tensor("fftshift_dim", vs::fft::fftshift(vs::arange(10).reshape({2, 5}), std::vector<int64_t>{1}));
  r.tensor("ifftshift", vs::fft::ifftshift(vs::arange(7)));
}
