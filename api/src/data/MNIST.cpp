#include "ember/data/MNIST.h"

#include <filesystem>
#include <utility>

#include "ember/api/Operators.h"
#include "ember/core/Exception.h"
#include "ember/data/Idx.h"

namespace ember::data::datasets {
namespace {

// root/name, or root/name.gz when only that exists.
std::string find_file(const std::string& root, const std::string& name) {
  const std::filesystem::path raw = std::filesystem::path(root) / name;
  const std::filesystem::path gz = std::filesystem::path(root) / (name + ".gz");
  std::error_code ec;
  if (std::filesystem::exists(raw, ec)) return raw.string();
  if (std::filesystem::exists(gz, ec)) return gz.string();
  EMBER_THROW(ValueError, "[MNIST] root '{}': found neither '{}' nor '{}'", root, raw.string(), gz.string());
}

Example read_split(const std::string& root, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string images_path = find_file(root, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_file(root, prefix + "-labels-idx1-ubyte");
  Tensor images = read_idx(images_path);
  Tensor labels = read_idx(labels_path);
  EMBER_CHECK(images.scalar_type() == kUInt8 && images.dim() == 3,
              "[MNIST] '{}': expected uint8 images of shape [N, rows, cols], got {} of shape {}", images_path,
              images.scalar_type(), images.sizes());
  EMBER_CHECK(labels.scalar_type() == kUInt8 && labels.dim() == 1,
              "[MNIST] '{}': expected uint8 labels of shape [N], got {} of shape {}", labels_path, labels.scalar_type(),
              labels.sizes());
  EMBER_CHECK(labels.size(0) == images.size(0), "[MNIST] '{}': expected {} labels (one per image in '{}'), got {}",
              labels_path, images.size(0), images_path, labels.size(0));
  // LibTorch's scaling: bytes / 255 as float32.
  Tensor data = images.to(kFloat32).div_(255).unsqueeze(1);
  return {std::move(data), labels.to(kInt64)};
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode)
    : MNIST(read_split(root, mode == Mode::kTrain), mode == Mode::kTrain) {}

MNIST::MNIST(Example split, bool train)
    : TensorDataset(std::move(split.data), std::move(split.target)), is_train_(train) {}

}  // namespace ember::data::datasets
