// Composite resampling operators: grid_sampler (onto grid_sampler_2d) and affine_grid_generator
// (a base grid times theta, so autograd flows through the matrix product).
#include "Composite.h"
#include "ember/api/Operators.h"
#include "ember/native/ResampleRules.h"

namespace ember::native {

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  check_defined("grid_sampler", input, "input");
  check_defined("grid_sampler", grid, "grid");
  EMBER_CHECK_NOT_IMPLEMENTED(
      input.dim() != 5,
      "[grid_sampler] a 5-D (volumetric) input needs the grid_sampler_3d operator, which is not "
      "implemented yet; 4-D inputs are");
  EMBER_CHECK(input.dim() == 4,
              "[grid_sampler] argument 'input': expected a 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input, got shape {}",
              input.sizes());
  return ember::grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
}

namespace {

// -1 .. 1 in n steps (the pixel centres without align_corners), or 0 for a single step.
Tensor base_coords(int64_t n, bool align_corners, const TensorOptions& o) {
  if (n <= 1) return ember::zeros({n}, o);
  Tensor r = ember::linspace(-1, 1, n, o);
  return align_corners ? r : r * (static_cast<double>(n - 1) / static_cast<double>(n));
}

}  // namespace

Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  const char* op = "affine_grid_generator";
  check_defined(op, theta, "theta");
  EMBER_CHECK(size.size() == 4 || size.size() == 5,
              "[{}] argument 'size': expected 4 sizes (N, C, H, W) for a 2-D affine grid or 5 (N, C, D, H, W) for a "
              "3-D one, got {}",
              op, size);
  EMBER_CHECK_TYPE(is_floating_type(theta.dtype()), "[{}] argument 'theta': expected a floating point tensor, got {}",
                   op, theta.dtype());
  const bool two_d = size.size() == 4;
  const int64_t rows = two_d ? 2 : 3;
  EMBER_CHECK(theta.dim() == 3 && theta.size(1) == rows && theta.size(2) == rows + 1,
              "[{}] argument 'theta': expected a batch of {}-D affine matrices of shape (N, {}, {}) for size {}, got "
              "shape {}",
              op, rows, rows, rows + 1, size, theta.sizes());
  EMBER_CHECK(theta.size(0) == size[0], "[{}] expected theta's batch size {} to equal size[0] = {}", op, theta.size(0),
              size[0]);
  for (int64_t s : size) EMBER_CHECK(s > 0, "[{}] argument 'size': expected positive sizes, got {}", op, size);
  const TensorOptions o = theta.options();
  // The base grid (x, y[, z], 1) of every output position, x varying fastest.
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  std::vector<Tensor> coords;
  const size_t nd = spatial.size();
  for (size_t k = 0; k < nd; ++k) {
    // Coordinate k (x first) runs along spatial dimension nd - 1 - k.
    const size_t dim = nd - 1 - k;
    std::vector<int64_t> shape(nd, 1);
    shape[dim] = spatial[dim];
    coords.push_back(base_coords(spatial[dim], align_corners, o).reshape(shape).expand(spatial));
  }
  coords.push_back(ember::ones(spatial, o));
  const Tensor base = ember::stack(coords, -1).reshape({1, -1, rows + 1});
  std::vector<int64_t> out_shape{size[0]};
  out_shape.insert(out_shape.end(), spatial.begin(), spatial.end());
  out_shape.push_back(rows);
  return ember::matmul(base, theta.transpose(1, 2)).reshape(out_shape);
}

}  // namespace ember::native
