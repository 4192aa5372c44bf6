// `ember train`: trains a model on Fashion-MNIST (or MNIST) with the plugins loaded at run time,
// evaluates on the test set each epoch, and writes metrics.csv, training.png, best.safetensors
// and last.ckpt.safetensors to --out. With --quantize it then quantizes the model to int8
// (Note [Post-training quantization in ember train]).
//
// Note [Training checkpoints]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// last.ckpt.safetensors holds the model ("model.<PyTorch name>"), the optimizer and scheduler
// state dicts ("optimizer.*", "scheduler.*"), the default CPU generator's state ("rng.cpu"), and
// in its __metadata__ the run's settings, the position (epochs done, steps done in the current
// epoch), the current epoch's running sums and every finished epoch's metrics. It is written at
// the end of each epoch and when a run stops early (--stop-after-steps, Ctrl-C). A batch is a pure
// function of (seed, epoch, index) (Note [DataLoader batches]), so a resumed run skips the steps
// already done and continues with the same batches, weights, optimizer state and random numbers:
// on the CPU with the same thread count its losses are bit for bit those of an unbroken run.
//
// Note [Distributed training run]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Under torchrun's environment (WORLD_SIZE > 1) every process joins a Gloo group and wraps the
// model in DistributedDataParallel. Each epoch all ranks draw the same permutation of the training
// set from (seed, epoch) and rank r takes positions r, r + world, ... (padded by wrapping around
// to equal shares, as PyTorch's DistributedSampler), batch-size samples per step: the global batch
// is batch-size x world. The test set is split the same way without shuffling or padding, so the
// all-reduced sums give exact metrics. Only rank 0 prints and writes files; a checkpoint holds the
// running sums of all ranks (all-reduced before writing), which rank 0 takes back on resume.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>

#include "Plot.h"
#include "Train.h"
#include "ember/ao/quantization.h"
#include "ember/distributed.h"
#include "ember/ember.h"

namespace ember::train {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using clk = std::chrono::steady_clock;
constexpr const char* kFormat = "ember-train-checkpoint-1";

struct Settings {
  int64_t epochs = 10;
  int64_t batch_size = 64;
  double lr = 0;  // 0: the optimizer's default below
  std::string optimizer = "sgd";
  std::string scheduler = "cosine";
  std::string model = "cnn";
  std::string device = "cpu";
  int threads = 0;  // 0: Ember's default
  uint64_t seed = 0;
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string out;
  std::string resume;
  int64_t workers = 0;
  int64_t limit_train = 0, limit_test = 0;  // 0: the whole split
  int64_t stop_after_steps = 0;             // 0: never
  bool progress = true;
  int nproc_per_node = 0;  // > 1: re-executes under `ember run`
  bool quantize = false;
  int64_t calib_batches = 32;
  std::string qconfig = "x86";
  std::string checkpoint;  // with --quantize: a trained model to quantize instead of training
};

// This process's place in a distributed run (Note [Distributed training run]).
struct Dist {
  int rank = 0, world = 1;
  std::shared_ptr<c10d::ProcessGroup> pg;
  std::shared_ptr<nn::parallel::DistributedDataParallelImpl> ddp;
  bool on() const { return world > 1; }
  bool lead() const { return rank == 0; }
  // Sums `values` over the ranks (returns them as they are in a single process).
  std::vector<double> sum(std::vector<double> values) const {
    if (!on()) return values;
    std::vector<Tensor> t{
        ember::from_blob(values.data(), {static_cast<int64_t>(values.size())}, TensorOptions().dtype(kDouble)).clone()};
    pg->allreduce(t)->wait();
    const Tensor r = t[0].contiguous();
    return {r.data_ptr<double>(), r.data_ptr<double>() + r.numel()};
  }
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  try {
    return std::stoi(v);
  } catch (const std::exception&) {
    throw ValueError(std::string("environment variable ") + name + ": expected an integer, got '" + v + "'");
  }
}

// The samples of one rank: positions rank, rank + world, ... of an order over `base` (Note
// [Distributed training run]). With shuffle, the order is a fresh permutation each epoch from
// (seed, epoch), padded to world equal shares; without, 0..N-1 unpadded.
class ShardDataset : public data::Dataset {
 public:
  ShardDataset(std::shared_ptr<data::Dataset> base, int rank, int world, bool shuffle, uint64_t seed)
      : base_(std::move(base)), rank_(rank), world_(world), shuffle_(shuffle) {
    if (shuffle_)  // the permutation a shuffling DataLoader draws, as one batch of every index
      order_ = std::make_unique<data::DataLoader>(
          base_, data::DataLoaderOptions().batch_size(base_->size()).shuffle(true).seed(seed));
    set_epoch(0);
  }
  void set_epoch(uint64_t epoch) {
    const size_t n = base_->size(), w = static_cast<size_t>(world_);
    std::vector<int64_t> order;
    if (shuffle_) {
      order = order_->batch_indices(epoch, 0);
      const size_t total = (n + w - 1) / w * w;
      for (size_t i = 0; order.size() < total; ++i) order.push_back(order[i % n]);
    } else {
      order.resize(n);
      std::iota(order.begin(), order.end(), int64_t{0});
    }
    indices_.clear();
    for (size_t i = static_cast<size_t>(rank_); i < order.size(); i += w) indices_.push_back(order[i]);
  }
  data::Example get(size_t index) override { return base_->get(static_cast<size_t>(indices_.at(index))); }
  size_t size() const override { return indices_.size(); }
  std::optional<data::Example> get_stacked(const std::vector<int64_t>& indices) override {
    std::vector<int64_t> mapped;
    for (int64_t i : indices) mapped.push_back(indices_.at(static_cast<size_t>(i)));
    return base_->get_stacked(mapped);  // nullopt: the loader calls get() per index
  }

 private:
  std::shared_ptr<data::Dataset> base_;
  int rank_, world_;
  bool shuffle_;
  std::unique_ptr<data::DataLoader> order_;
  std::vector<int64_t> indices_;
};

// The first line of an error message: the job's errors are one line.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

double default_lr(const std::string& optimizer) { return optimizer == "sgd" ? 0.05 : 1e-3; }

// ---- models, with PyTorch's parameter names for the same nn.Sequential ----------------------

nn::Sequential make_model(const std::string& name) {
  if (name == "cnn")  // conv 1->32 3x3, ReLU, pool 2, conv 32->64 3x3, ReLU, pool 2, linear 1600->10
    return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                          nn::Conv2d(nn::Conv2dOptions(32, 64, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                          nn::Flatten(), nn::Linear(1600, 10));
  if (name == "mlp")
    return nn::Sequential(nn::Flatten(), nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(),
                          nn::Linear(512, 10));
  throw ValueError("--model: expected cnn or mlp, got '" + name + "'");
}

std::unique_ptr<optim::Optimizer> make_optimizer(const Settings& s, std::vector<Tensor> params) {
  if (s.optimizer == "sgd")
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(s.lr).momentum(0.9));
  if (s.optimizer == "adam") return std::make_unique<optim::Adam>(std::move(params), optim::AdamOptions(s.lr));
  if (s.optimizer == "adamw") return std::make_unique<optim::AdamW>(std::move(params), optim::AdamWOptions(s.lr));
  throw ValueError("--optimizer: expected sgd, adam or adamw, got '" + s.optimizer + "'");
}

// Steps once per epoch.
std::unique_ptr<optim::LRScheduler> make_scheduler(const Settings& s, optim::Optimizer& opt) {
  if (s.scheduler == "none") return nullptr;
  if (s.scheduler == "cosine") return std::make_unique<optim::CosineAnnealingLR>(opt, s.epochs);
  if (s.scheduler == "step") return std::make_unique<optim::StepLR>(opt, std::max<int64_t>(1, s.epochs / 3), 0.1);
  throw ValueError("--scheduler: expected cosine, step or none, got '" + s.scheduler + "'");
}

// ---- output ----------------------------------------------------------------------------------

std::string timestamp() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
  return buf;
}

std::string format_duration(double s) {
  const long t = static_cast<long>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

std::string format_rate(double r) {
  char buf[32];
  if (r >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fk", r / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", r);
  return buf;
}

// A live bar on a terminal, redrawn at most every 100 ms; nothing otherwise.
class Progress {
 public:
  explicit Progress(bool live) : live_(live) {}
  void update(int64_t epoch, int64_t epochs, int64_t step, int64_t steps, double loss, double acc, double rate,
              double elapsed, bool force = false) {
    if (!live_) return;
    const auto now = clk::now();
    if (!force && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    constexpr int kWidth = 24;
    const int filled = steps > 0 ? static_cast<int>(kWidth * step / steps) : kWidth;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(kWidth - filled), '.');
    const double eta = step > 0 ? elapsed / static_cast<double>(step) * static_cast<double>(steps - step) : 0;
    std::printf("\r\033[Kepoch %lld/%lld [%s] %lld/%lld loss %.4f acc %.4f %s img/s ETA %s",
                static_cast<long long>(epoch), static_cast<long long>(epochs), bar.c_str(),
                static_cast<long long>(step), static_cast<long long>(steps), loss, acc, format_rate(rate).c_str(),
                format_duration(eta).c_str());
    std::fflush(stdout);
  }
  void clear() {
    if (!live_) return;
    std::printf("\r\033[K");
    std::fflush(stdout);
  }

 private:
  bool live_;
  clk::time_point last_{};
};

void write_metrics(const std::vector<EpochMetrics>& rows, const fs::path& path) {
  std::ofstream f(path);
  if (!f) throw Error("cannot write " + path.string());
  f << "epoch,train_loss,train_acc,test_loss,test_acc,images_per_s,seconds\n";
  char buf[256];
  for (const auto& r : rows) {
    // 17 significant digits: the file holds the losses exactly (resumed runs compare equal).
    std::snprintf(buf, sizeof buf, "%lld,%.17g,%.17g,%.17g,%.17g,%.1f,%.3f\n", static_cast<long long>(r.epoch),
                  r.train_loss, r.train_acc, r.test_loss, r.test_acc, r.images_per_s, r.seconds);
    f << buf;
  }
}

json metrics_json(const std::vector<EpochMetrics>& rows) {
  json a = json::array();
  for (const auto& r : rows)
    a.push_back({r.epoch, r.train_loss, r.train_acc, r.test_loss, r.test_acc, r.images_per_s, r.seconds});
  return a;
}

std::vector<EpochMetrics> metrics_from_json(const json& a) {
  std::vector<EpochMetrics> rows;
  for (const auto& r : a)
    rows.push_back({r.at(0).get<int64_t>(), r.at(1).get<double>(), r.at(2).get<double>(), r.at(3).get<double>(),
                    r.at(4).get<double>(), r.at(5).get<double>(), r.at(6).get<double>()});
  return rows;
}

// ---- checkpoints (Note [Training checkpoints]) -------------------------------------------------

struct Position {
  int64_t epochs_done = 0;  // finished epochs
  int64_t steps_done = 0;   // steps done in epoch epochs_done + 1
  double loss_sum = 0;      // that epoch's running sums
  int64_t correct = 0, seen = 0;
  double seconds = 0;
  double best_acc = -1;
};

void add_prefixed(OrderedDict<std::string, Tensor>& into, const std::string& prefix,
                  const OrderedDict<std::string, Tensor>& from) {
  for (const auto& item : from) into.insert(prefix + item.key(), item.value().detach().to(kCPU).contiguous());
}

OrderedDict<std::string, Tensor> with_prefix(const OrderedDict<std::string, Tensor>& all, const std::string& prefix) {
  OrderedDict<std::string, Tensor> out;
  for (const auto& item : all)
    if (item.key().rfind(prefix, 0) == 0) out.insert(item.key().substr(prefix.size()), item.value());
  return out;
}

void save_checkpoint(const fs::path& path, const Settings& s, int world_size, const Position& pos,
                     const std::vector<EpochMetrics>& rows, nn::Module& model, const optim::Optimizer& opt,
                     const optim::LRScheduler* sched) {
  OrderedDict<std::string, Tensor> t;
  add_prefixed(t, "model.", model.state_dict());
  add_prefixed(t, "optimizer.", opt.state_dict());
  if (sched) add_prefixed(t, "scheduler.", sched->state_dict());
  const Generator& gen = detail::getDefaultCPUGenerator();
  GeneratorState rng;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    rng = gen.get_state();
  }
  t.insert("rng.cpu", ember::from_blob(rng.bytes.data(), {static_cast<int64_t>(rng.bytes.size())}, kUInt8).clone());
  const json settings = {{"epochs", s.epochs},       {"batch_size", s.batch_size},   {"lr", s.lr},
                         {"optimizer", s.optimizer}, {"scheduler", s.scheduler},     {"model", s.model},
                         {"seed", s.seed},           {"limit_train", s.limit_train}, {"limit_test", s.limit_test},
                         {"world_size", world_size}};
  const json position = {{"epochs_done", pos.epochs_done},
                         {"steps_done", pos.steps_done},
                         {"loss_sum", pos.loss_sum},
                         {"correct", pos.correct},
                         {"seen", pos.seen},
                         {"seconds", pos.seconds},
                         {"best_acc", pos.best_acc}};
  std::map<std::string, std::string> meta = {{"format", kFormat},
                                             {"settings", settings.dump()},
                                             {"position", position.dump()},
                                             {"metrics", metrics_json(rows).dump()}};
  // Written beside, then renamed: an interrupted write never leaves a torn checkpoint.
  const fs::path tmp = path.string() + ".tmp";
  safetensors::save_file(t, tmp.string(), meta);
  fs::rename(tmp, path);
}

struct Checkpoint {
  json settings, position, metrics;
  OrderedDict<std::string, Tensor> tensors;
};

Checkpoint read_checkpoint(const std::string& path) {
  Checkpoint c;
  std::map<std::string, std::string> meta;
  try {
    meta = safetensors::load_metadata(path);
    c.tensors = safetensors::load_file(path);
  } catch (const std::exception& e) {
    throw Error("--resume: cannot read checkpoint: " + std::string(e.what()));
  }
  if (meta["format"] != kFormat)
    throw Error("--resume: " + path + " is not a training checkpoint (its __metadata__ has no format '" + kFormat +
                "')");
  try {
    c.settings = json::parse(meta.at("settings"));
    c.position = json::parse(meta.at("position"));
    c.metrics = json::parse(meta.at("metrics"));
  } catch (const std::exception& e) {
    throw Error("--resume: " + path + ": malformed checkpoint metadata: " + e.what());
  }
  return c;
}

// ---- the loop --------------------------------------------------------------------------------

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

struct EvalResult {
  double loss = 0, acc = 0;
};

EvalResult evaluate(nn::Sequential& model, data::DataLoader& loader, const Device& device, const Dist& dist) {
  model->eval();
  NoGradGuard no_grad;
  double loss_sum = 0;
  int64_t correct = 0, seen = 0;
  for (auto& batch : loader) {
    const Tensor x = batch.data.to(device, /*non_blocking=*/true), y = batch.target.to(device, /*non_blocking=*/true);
    const Tensor logits = model->forward(x);
    loss_sum += ember::cross_entropy_loss(logits, y, {}, ember::Reduction::Sum).item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
    seen += x.size(0);
  }
  const auto t = dist.sum({loss_sum, static_cast<double>(correct), static_cast<double>(seen)});
  return {t[0] / t[2], t[1] / t[2]};
}

// Fashion-MNIST's (and MNIST's) training-set pixel mean and standard deviation, from the name of
// the data directory; the normalisation is only a conditioning step.
std::pair<double, double> pixel_stats(const std::string& dir) {
  return dir.find("fashion") != std::string::npos ? std::pair{0.2860, 0.3530} : std::pair{0.1307, 0.3081};
}

std::shared_ptr<data::Dataset> load_split(const Settings& s, bool train) {
  auto ds = std::make_shared<data::datasets::MNIST>(
      s.data, train ? data::datasets::MNIST::Mode::kTrain : data::datasets::MNIST::Mode::kTest);
  const int64_t limit = train ? s.limit_train : s.limit_test;
  if (limit > 0 && limit < static_cast<int64_t>(ds->size()))
    return std::make_shared<data::TensorDataset>(ds->images().narrow(0, 0, limit), ds->targets().narrow(0, 0, limit));
  return ds;
}

// Note [Post-training quantization in ember train]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// --quantize runs PyTorch's eager-mode PTQ recipe on the trained model (the last epoch's, or the
// one --checkpoint names): fuse each Conv2d/Linear with the ReLU after it, prepare with the x86
// qconfig (histogram observers on activations, per-channel symmetric int8 weights; --qconfig
// picks another of PyTorch's defaults), calibrate on
// --calib-batches training batches, convert, then evaluate the float and the int8 model on the
// test set, timing each (the faster of two passes), and write quantized.json to --out. The int8 model
// lives in memory only: safetensors has no quantized dtypes.

// Each Conv2d or Linear entry followed by a ReLU, as fuse_modules groups.
std::vector<std::vector<std::string>> fusable_pairs(const nn::Sequential& model) {
  std::vector<std::vector<std::string>> groups;
  const auto children = model->named_children();
  for (size_t i = 0; i + 1 < children.size(); ++i) {
    const nn::Module& a = *children[i].value();
    if ((a.as<nn::Conv2dImpl>() || a.as<nn::LinearImpl>()) && children[i + 1].value()->as<nn::ReLUImpl>())
      groups.push_back({children[i].key(), children[i + 1].key()});
  }
  return groups;
}

struct TimedEval {
  EvalResult r;
  double seconds = 0;
  int64_t images = 0;
  double rate() const { return static_cast<double>(images) / std::max(seconds, 1e-9); }
};

// The faster of two passes: on a shared machine one pass can stall.
TimedEval timed_evaluate(nn::Sequential& model, data::DataLoader& loader, int64_t images) {
  TimedEval t;
  t.images = images;
  t.seconds = 1e300;
  for (int pass = 0; pass < 2; ++pass) {
    const auto t0 = clk::now();
    t.r = evaluate(model, loader, Device(kCPU), Dist{});
    t.seconds = std::min(t.seconds, std::chrono::duration<double>(clk::now() - t0).count());
  }
  return t;
}

// Note [Post-training quantization in ember train].
void quantize_and_report(nn::Sequential& model, const Settings& s, data::DataLoader& calib_loader,
                         data::DataLoader& test_loader, int64_t test_images, const fs::path& out) {
  namespace aq = ao::quantization;
  if (!plugins::is_loaded("quantized")) {
    try {
      plugins::load("quantized");
    } catch (const std::exception& e) {
      throw ValueError("--quantize: the quantized plugin is not available (" + first_line(e.what()) + ")");
    }
  }
  model->eval();
  const auto t0 = clk::now();
  const auto groups = fusable_pairs(model);
  nn::Sequential prepared = aq::prepare(aq::fuse_modules(model, groups), aq::get_default_qconfig(s.qconfig));
  int64_t batches = 0;
  {
    NoGradGuard no_grad;
    for (auto& batch : calib_loader) {
      if (batches == s.calib_batches) break;
      prepared->forward(batch.data);
      ++batches;
    }
  }
  nn::Sequential qmodel = aq::convert(prepared);
  const double prep_seconds = std::chrono::duration<double>(clk::now() - t0).count();
  std::printf("quantize: %s qconfig, fused %zu pair(s), calibrated on %lld batch(es) of %lld, converted in %.1f s\n",
              s.qconfig.c_str(), groups.size(), static_cast<long long>(batches), static_cast<long long>(s.batch_size),
              prep_seconds);
  std::fflush(stdout);
  const TimedEval f = timed_evaluate(model, test_loader, test_images);
  const TimedEval q = timed_evaluate(qmodel, test_loader, test_images);
  std::printf("quantize: test acc float %.4f  int8 %.4f (%+.2f points); test loss float %.4f  int8 %.4f\n", f.r.acc,
              q.r.acc, 100 * (q.r.acc - f.r.acc), f.r.loss, q.r.loss);
  std::printf("quantize: inference %s img/s float, %s img/s int8 (%.2fx), %d thread(s)\n",
              format_rate(f.rate()).c_str(), format_rate(q.rate()).c_str(), q.rate() / std::max(f.rate(), 1e-9),
              get_num_threads());
  std::fflush(stdout);
  json j = {{"qconfig", s.qconfig},        {"calibration_batches", batches}, {"batch_size", s.batch_size},
            {"float_test_acc", f.r.acc},   {"int8_test_acc", q.r.acc},       {"float_test_loss", f.r.loss},
            {"int8_test_loss", q.r.loss},  {"float_images_per_s", f.rate()}, {"int8_images_per_s", q.rate()},
            {"threads", get_num_threads()}};
  std::stringstream model_text;
  model_text << *qmodel;
  j["int8_model"] = model_text.str();
  fs::create_directories(out);
  std::ofstream(out / "quantized.json") << j.dump(2) << "\n";
}

int run(Settings s, bool lr_given) {
  Dist dist;
  dist.world = env_int("WORLD_SIZE", 1);
  if (dist.on()) {
    distributed::init_process_group("gloo");
    dist.pg = distributed::resolve_group();
    dist.rank = dist.pg->getRank();
  }
  if (s.threads > 0)
    set_num_threads(s.threads);
  else if (dist.on())  // the processes on this machine share its cores
    set_num_threads(std::max(1, get_num_threads() / std::max(1, env_int("LOCAL_WORLD_SIZE", dist.world))));
  // Resuming: the checkpoint's settings win, except the number of epochs.
  std::optional<Checkpoint> ckpt;
  if (!s.resume.empty()) {
    ckpt = read_checkpoint(s.resume);
    const json& c = ckpt->settings;
    s.batch_size = c.at("batch_size");
    s.lr = c.at("lr");
    s.optimizer = c.at("optimizer");
    s.scheduler = c.at("scheduler");
    s.model = c.at("model");
    s.seed = c.at("seed");
    s.limit_train = c.at("limit_train");
    s.limit_test = c.at("limit_test");
    const int saved_world = c.value("world_size", 1);
    if (saved_world != dist.world)
      throw ValueError("--resume: the checkpoint was written by a run of " + std::to_string(saved_world) +
                       " process(es), this run has " + std::to_string(dist.world));
    lr_given = true;
  }
  if (!lr_given) s.lr = default_lr(s.optimizer);
  if (s.epochs < 1) throw ValueError("--epochs: expected at least 1, got " + std::to_string(s.epochs));
  if (s.batch_size < 1) throw ValueError("--batch-size: expected at least 1, got " + std::to_string(s.batch_size));
  if (!(s.lr > 0)) throw ValueError("--lr: expected a positive learning rate, got " + std::to_string(s.lr));
  if (!s.checkpoint.empty() && !s.quantize)
    throw ValueError("--checkpoint: names a trained model to quantize, so it needs --quantize");
  if (!s.checkpoint.empty() && !s.resume.empty()) throw ValueError("--checkpoint and --resume exclude each other");
  if (s.quantize && dist.on())
    throw ValueError("--quantize: run it in one process (quantize the result afterwards with --checkpoint)");
  if (s.quantize && s.device != "cpu")
    throw ValueError("--quantize: the int8 kernels run on the CPU, got --device " + s.device);
  if (s.calib_batches < 1)
    throw ValueError("--calib-batches: expected at least 1, got " + std::to_string(s.calib_batches));

  const Device device = [&] {
    try {
      const Device d(s.device);
      (void)ember::empty({1}, d);  // a device no loaded plugin serves fails here, before any work
      return d;
    } catch (const std::exception& e) {
      throw ValueError("--device " + s.device + ": not available (" + first_line(e.what()) + ")");
    }
  }();
  manual_seed(s.seed);

  std::shared_ptr<data::Dataset> train_set = load_split(s, true), test_set = load_split(s, false);
  std::shared_ptr<ShardDataset> train_shard;
  if (dist.on()) {
    train_set = train_shard = std::make_shared<ShardDataset>(train_set, dist.rank, dist.world, true, s.seed);
    test_set = std::make_shared<ShardDataset>(test_set, dist.rank, dist.world, false, s.seed);
  }
  const auto [mean, stdev] = pixel_stats(s.data);
  // On a GPU the loaders pin their batches, so the copies to the device do not block.
  const bool pin = device.type() != kCPU && find_host_allocator(device.type()) != nullptr;
  data::DataLoader train_loader(train_set, data::DataLoaderOptions()
                                               .batch_size(static_cast<size_t>(s.batch_size))
                                               .shuffle(!dist.on())  // the shard is already shuffled
                                               .seed(s.seed)
                                               .workers(static_cast<size_t>(s.workers))
                                               .pin_memory(pin)
                                               .transform(data::transforms::Normalize(mean, stdev)));
  data::DataLoader test_loader(test_set, data::DataLoaderOptions()
                                             .batch_size(1000)
                                             .workers(static_cast<size_t>(s.workers))
                                             .pin_memory(pin)
                                             .transform(data::transforms::Normalize(mean, stdev)));

  nn::Sequential model = make_model(s.model);
  model->to(device);
  auto opt = make_optimizer(s, model->parameters());
  auto sched = make_scheduler(s, *opt);

  Position pos;
  std::vector<EpochMetrics> rows;
  if (ckpt) {
    model->load_state_dict(with_prefix(ckpt->tensors, "model."));
    opt->load_state_dict(with_prefix(ckpt->tensors, "optimizer."));
    if (sched) sched->load_state_dict(with_prefix(ckpt->tensors, "scheduler."));
    const Tensor rng = ckpt->tensors["rng.cpu"].contiguous();
    GeneratorState state{kCPU, std::vector<uint8_t>(rng.data_ptr<uint8_t>(), rng.data_ptr<uint8_t>() + rng.numel())};
    Generator gen = detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(state);
    const json& p = ckpt->position;
    pos = {p.at("epochs_done"), p.at("steps_done"), p.at("loss_sum"), p.at("correct"),
           p.at("seen"),        p.at("seconds"),    p.at("best_acc")};
    if (!dist.lead()) pos.loss_sum = 0, pos.correct = 0, pos.seen = 0;  // rank 0 holds the sums
    rows = metrics_from_json(ckpt->metrics);
  }
  // After loading: construction broadcasts rank 0's parameters.
  if (dist.on()) dist.ddp = std::make_shared<nn::parallel::DistributedDataParallelImpl>(model.ptr());

  const fs::path out = s.out.empty() ? fs::path("runs") / timestamp() : fs::path(s.out);
  if (dist.lead()) fs::create_directories(out);
  if (!s.checkpoint.empty()) {  // quantize a trained model: best.safetensors or last.ckpt.safetensors
    OrderedDict<std::string, Tensor> t;
    try {
      t = safetensors::load_file(s.checkpoint);
    } catch (const std::exception& e) {
      throw ValueError("--checkpoint " + s.checkpoint + ": " + first_line(e.what()));
    }
    const bool full = std::any_of(t.begin(), t.end(), [](const auto& i) { return i.key().rfind("model.", 0) == 0; });
    model->load_state_dict(full ? with_prefix(t, "model.") : t);
    std::printf("ember train --quantize: %s model from %s -> %s\n", s.model.c_str(), s.checkpoint.c_str(),
                out.string().c_str());
    quantize_and_report(model, s, train_loader, test_loader, static_cast<int64_t>(test_set->size()), out);
    return 0;
  }
  const bool live = s.progress && dist.lead() && isatty(STDOUT_FILENO);
  Progress progress(live);
  // Only rank 0 speaks.
  auto say = [&](const char* fmt, auto... args) {
    if (!dist.lead()) return;
    std::printf(fmt, args...);
    std::fflush(stdout);
  };
  const std::string procs = dist.on() ? ", " + std::to_string(dist.world) + " processes (global batch " +
                                            std::to_string(s.batch_size * dist.world) + ")"
                                      : "";
  say("ember train: %s, %s (lr %g, %s schedule), batch %lld%s, %lld epochs, %d thread(s), %s on %s -> %s\n",
      s.model.c_str(), s.optimizer.c_str(), s.lr, s.scheduler.c_str(), static_cast<long long>(s.batch_size),
      procs.c_str(), static_cast<long long>(s.epochs), get_num_threads(), s.data.c_str(), device.str().c_str(),
      out.string().c_str());
  if (ckpt)
    say("resuming from %s at epoch %lld, step %lld\n", s.resume.c_str(), static_cast<long long>(pos.epochs_done + 1),
        static_cast<long long>(pos.steps_done));

  std::signal(SIGINT, on_sigint);
  int64_t steps_this_run = 0;
  const int64_t steps = static_cast<int64_t>(train_loader.size());
  for (int64_t epoch = pos.epochs_done + 1; epoch <= s.epochs; ++epoch) {
    model->train();
    train_loader.set_epoch(static_cast<uint64_t>(epoch - 1));
    if (train_shard) train_shard->set_epoch(static_cast<uint64_t>(epoch - 1));
    const auto t0 = clk::now();
    const double seconds_before = pos.seconds;
    int64_t seen_now = 0;
    bool stopped = false;
    for (auto it = train_loader.begin(); it != train_loader.end(); ++it) {
      const int64_t step = static_cast<int64_t>(it.index()) + 1;
      if (step <= pos.steps_done) continue;  // done before the checkpoint
      const Tensor x = it->data.to(device, /*non_blocking=*/true), y = it->target.to(device, /*non_blocking=*/true);
      opt->zero_grad();
      const Tensor logits = dist.ddp ? dist.ddp->forward(x) : model->forward(x);
      const Tensor loss = ember::cross_entropy_loss(logits, y);
      loss.backward();
      opt->step();
      const int64_t b = x.size(0);
      pos.loss_sum += loss.item<double>() * static_cast<double>(b);
      {
        NoGradGuard g;
        pos.correct += logits.argmax(1).eq(y).sum().item<int64_t>();
      }
      pos.seen += b;
      seen_now += b;
      pos.steps_done = step;
      ++steps_this_run;
      const double elapsed = std::chrono::duration<double>(clk::now() - t0).count();
      progress.update(epoch, s.epochs, step, steps, pos.loss_sum / static_cast<double>(pos.seen),
                      static_cast<double>(pos.correct) / static_cast<double>(pos.seen),
                      static_cast<double>(seen_now) / std::max(elapsed, 1e-9), elapsed);
      // Every rank stops at the same step (a Ctrl-C may reach them at different ones).
      const bool interrupted = dist.sum({g_interrupted ? 1.0 : 0.0})[0] > 0;
      if (interrupted || (s.stop_after_steps > 0 && steps_this_run >= s.stop_after_steps)) {
        g_interrupted = interrupted;
        stopped = true;
        break;
      }
    }
    const double train_seconds = std::chrono::duration<double>(clk::now() - t0).count();
    pos.seconds = seconds_before + train_seconds;
    // The epoch's sums over all ranks (rank 0's include what a resumed checkpoint held).
    const auto sums = dist.sum(
        {pos.loss_sum, static_cast<double>(pos.correct), static_cast<double>(pos.seen), static_cast<double>(seen_now)});
    pos.loss_sum = sums[0];
    pos.correct = static_cast<int64_t>(sums[1]);
    pos.seen = static_cast<int64_t>(sums[2]);
    seen_now = static_cast<int64_t>(sums[3]);
    if (stopped && pos.steps_done < steps) {
      progress.clear();
      if (dist.lead())
        save_checkpoint(out / "last.ckpt.safetensors", s, dist.world, pos, rows, *model, *opt, sched.get());
      say("stopped at epoch %lld, step %lld/%lld; resume with --resume %s\n", static_cast<long long>(epoch),
          static_cast<long long>(pos.steps_done), static_cast<long long>(steps),
          (out / "last.ckpt.safetensors").string().c_str());
      if (dist.on()) distributed::destroy_process_group();
      return g_interrupted ? 130 : 0;
    }
    progress.update(epoch, s.epochs, steps, steps, pos.loss_sum / static_cast<double>(pos.seen),
                    static_cast<double>(pos.correct) / static_cast<double>(pos.seen),
                    static_cast<double>(seen_now) / std::max(train_seconds, 1e-9), train_seconds, true);
    const EvalResult test = evaluate(model, test_loader, device, dist);
    if (sched) sched->step();
    EpochMetrics m;
    m.epoch = epoch;
    m.train_loss = pos.loss_sum / static_cast<double>(pos.seen);
    m.train_acc = static_cast<double>(pos.correct) / static_cast<double>(pos.seen);
    m.test_loss = test.loss;
    m.test_acc = test.acc;
    m.images_per_s = static_cast<double>(pos.seen) / std::max(pos.seconds, 1e-9);
    m.seconds = std::chrono::duration<double>(clk::now() - t0).count() + seconds_before;
    rows.push_back(m);
    progress.clear();
    say("epoch %lld/%lld  train loss %.4f acc %.4f  test loss %.4f acc %.4f  %s img/s  %.1f s\n",
        static_cast<long long>(epoch), static_cast<long long>(s.epochs), m.train_loss, m.train_acc, m.test_loss,
        m.test_acc, format_rate(m.images_per_s).c_str(), m.seconds);
    pos = Position{epoch, 0, 0, 0, 0, 0, pos.best_acc};
    const bool improved = m.test_acc > pos.best_acc;
    if (improved) pos.best_acc = m.test_acc;
    if (dist.lead() && improved) {
      OrderedDict<std::string, Tensor> best;
      add_prefixed(best, "", model->state_dict());
      safetensors::save_file(
          best, (out / "best.safetensors").string(),
          {{"format", "pt"}, {"epoch", std::to_string(epoch)}, {"test_acc", std::to_string(m.test_acc)}});
    }
    if (dist.lead()) {
      write_metrics(rows, out / "metrics.csv");
      plot_training(rows, (out / "training.png").string());
      save_checkpoint(out / "last.ckpt.safetensors", s, dist.world, pos, rows, *model, *opt, sched.get());
    }
    if (g_interrupted) {
      if (dist.on()) distributed::destroy_process_group();
      return 130;
    }
  }
  if (dist.on()) distributed::destroy_process_group();
  if (!rows.empty())
    say("best test accuracy %.4f; wrote %s/{metrics.csv,training.png,best.safetensors,last.ckpt.safetensors}\n",
        pos.best_acc, out.string().c_str());
  if (s.quantize) quantize_and_report(model, s, train_loader, test_loader, static_cast<int64_t>(test_set->size()), out);
  return 0;
}

// A TCP port free on this host now (bind port 0), or -1.
int free_local_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

// `ember train --nproc-per-node N ...` becomes `ember run --nproc-per-node N -- ember train ...`.
int relaunch(int argc, char** argv, int nproc) {
  if (std::getenv("WORLD_SIZE")) {
    std::fprintf(stderr, "ember train: error: --nproc-per-node: already running under a launcher (WORLD_SIZE=%s)\n",
                 std::getenv("WORLD_SIZE"));
    return 2;
  }
  std::error_code ec;
  // The real path, so that `ember run`'s failure summary names the program.
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec || self.empty()) self = "/proc/self/exe";
  const std::string n = std::to_string(nproc);
  std::vector<std::string> args{"ember", "run", "--nproc-per-node", n};
  // One node: a free port unless MASTER_PORT says otherwise (torchrun --standalone's choice), so
  // two runs on one machine do not collide on the default 29500.
  if (!std::getenv("MASTER_PORT")) {
    if (int port = free_local_port(); port > 0) {
      args.push_back("--master-port");
      args.push_back(std::to_string(port));
    }
  }
  args.insert(args.end(), {"--", self, "train"});
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--nproc-per-node") {
      ++i;  // and its value
      continue;
    }
    if (a.rfind("--nproc-per-node=", 0) == 0) continue;
    args.push_back(a);
  }
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  std::fflush(stdout);
  execv(self.c_str(), cargs.data());
  std::fprintf(stderr, "ember train: error: --nproc-per-node: cannot start `ember run`: %s\n", std::strerror(errno));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  CLI::App app{"Trains a model on Fashion-MNIST with the plugins loaded at run time.", "ember train"};
  app.add_option("--epochs", s.epochs, "epochs to train (in all, when resuming)")->capture_default_str();
  app.add_option("--batch-size", s.batch_size,
                 "training batch size per process (with N processes the global batch is N x this)")
      ->capture_default_str();
  app.add_option("--lr", s.lr, "learning rate (default: 0.05 for sgd, 0.001 for adam/adamw)");
  app.add_option("--optimizer", s.optimizer, "sgd (momentum 0.9), adam or adamw")
      ->check(CLI::IsMember({"sgd", "adam", "adamw"}))
      ->capture_default_str();
  app.add_option("--scheduler", s.scheduler, "learning-rate schedule per epoch: cosine, step or none")
      ->check(CLI::IsMember({"cosine", "step", "none"}))
      ->capture_default_str();
  app.add_option("--model", s.model, "cnn or mlp")->check(CLI::IsMember({"cnn", "mlp"}))->capture_default_str();
  app.add_option("--device", s.device, "cpu, or a device a loaded plugin serves (cuda, ...)")->capture_default_str();
  app.add_option("--threads", s.threads, "intra-op threads (default: Ember's)")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", s.seed, "seed of the weights, the shuffle and every random number")->capture_default_str();
  app.add_option("--data", s.data, "directory of the IDX files (raw or .gz)")->capture_default_str();
  app.add_option("--out", s.out, "output directory (default: runs/<timestamp>)");
  app.add_option("--resume", s.resume, "a last.ckpt.safetensors to continue from");
  app.add_option("--workers", s.workers, "data-loading threads")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--limit-train", s.limit_train, "use only the first N training images")->check(CLI::NonNegativeNumber);
  app.add_option("--limit-test", s.limit_test, "use only the first N test images")->check(CLI::NonNegativeNumber);
  app.add_option("--stop-after-steps", s.stop_after_steps, "stop (with a checkpoint) after N steps of this run")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("!--no-progress", s.progress, "no live progress bar");
  app.add_option("--nproc-per-node", s.nproc_per_node,
                 "train on N processes on this machine (DistributedDataParallel over Gloo, started by `ember run`): "
                 "each process takes its share of every epoch and --batch-size samples per step, so the global "
                 "batch is N x --batch-size; each uses 1/N of the threads unless --threads is given. Started by "
                 "torchrun's environment (WORLD_SIZE > 1) instead, `ember train` joins that run.")
      ->check(CLI::PositiveNumber);
  app.add_flag("--quantize", s.quantize,
               "after training, quantize the model to int8 (fuse Conv2d/Linear+ReLU, x86 qconfig, calibrate, convert) "
               "and report float and int8 test accuracy and speed; writes quantized.json");
  app.add_option("--calib-batches", s.calib_batches, "training batches to calibrate --quantize on")
      ->capture_default_str();
  app.add_option("--qconfig", s.qconfig, "--quantize's observers: PyTorch's get_default_qconfig(backend)")
      ->check(CLI::IsMember({"x86", "fbgemm", "onednn", "qnnpack"}))
      ->capture_default_str();
  app.add_option("--checkpoint", s.checkpoint,
                 "with --quantize: quantize this trained model (a best.safetensors or last.ckpt.safetensors of the "
                 "same --model) instead of training");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ember train: error: %s (see ember train --help)\n", first_line(e.what()).c_str());
    return 2;
  }
  if (s.nproc_per_node > 1) return relaunch(argc, argv, s.nproc_per_node);
  try {
    return run(s, app.count("--lr") > 0);
  } catch (const std::exception& e) {
    if (s.progress && isatty(STDOUT_FILENO)) std::printf("\r\033[K");  // off the progress bar's line
    std::fflush(stdout);
    std::fprintf(stderr, "ember train: error: %s\n", first_line(e.what()).c_str());
    return 1;
  }
}

}  // namespace ember::train
