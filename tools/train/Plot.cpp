// training.png through PLplot's cairo driver: two panels, loss and accuracy per epoch.
#include "Plot.h"

#include <plplot/plplot.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

namespace ember::train {
namespace {

// The [lo, hi] of the series, padded so that flat curves still get an axis.
std::pair<double, double> range_of(std::initializer_list<const std::vector<double>*> series, double pad) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* s : series)
    for (double v : *s)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) return {0, 1};
  const double span = std::max(hi - lo, 1e-3);
  return {lo - pad * span, hi + pad * span};
}

void panel(const std::vector<double>& x, const std::vector<double>& train, const std::vector<double>& test,
           const char* ylabel, const char* title, double ypad, PLINT legend_at) {
  const auto [ylo, yhi] = range_of({&train, &test}, ypad);
  const double xhi = std::max(x.back(), 1.0);
  plcol0(15);  // axes and labels
  plenv(0.5, xhi + 0.5, ylo, yhi, 0, 0);
  pllab("epoch", ylabel, title);
  const PLINT n = static_cast<PLINT>(x.size());
  const PLINT colors[2] = {9, 1};  // blue train, red test
  const std::vector<double>* ys[2] = {&train, &test};
  for (int i = 0; i < 2; ++i) {
    plcol0(colors[i]);
    plwidth(2.0);
    plline(n, x.data(), ys[i]->data());
    plpoin(n, x.data(), ys[i]->data(), 17);  // a dot per epoch, visible with one epoch
  }
  plwidth(1.0);
  PLINT opt[2] = {PL_LEGEND_LINE, PL_LEGEND_LINE}, text_colors[2] = {15, 15}, line_styles[2] = {1, 1};
  PLFLT line_widths[2] = {2.0, 2.0};
  const char* texts[2] = {"train", "test"};
  PLFLT w = 0, h = 0;
  pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, legend_at | PL_POSITION_RIGHT | PL_POSITION_INSIDE,
           0.02, 0.02, 0.1, 0, 15, 1, 0, 0, 2, opt, 1.0, 1.0, 2.0, 1.0, text_colors, texts, nullptr, nullptr, nullptr,
           nullptr, colors, line_styles, line_widths, nullptr, nullptr, nullptr, nullptr);
}

}  // namespace

void plot_training(const std::vector<EpochMetrics>& rows, const std::string& path) {
  if (rows.empty()) return;
  std::vector<double> x, train_loss, test_loss, train_acc, test_acc;
  for (const auto& r : rows) {
    x.push_back(static_cast<double>(r.epoch));
    train_loss.push_back(r.train_loss);
    test_loss.push_back(r.test_loss);
    train_acc.push_back(r.train_acc);
    test_acc.push_back(r.test_acc);
  }
  static std::mutex mu;  // PLplot's current stream is global state
  std::lock_guard<std::mutex> lock(mu);
  PLINT stream = 0;
  plmkstrm(&stream);  // a stream of our own: a caller's PLplot stream is left as it was
  plsdev("pngcairo");
  plsfnam(path.c_str());
  plspage(0, 0, 1200, 500, 0, 0);
  plscolbg(255, 255, 255);  // white background (cmap0 colour 0)
  plscol0(15, 0, 0, 0);     // and colour 15, white by default, black for axes and text
  plssub(2, 1);
  plinit();
  // Legends where the curves are not: losses fall, accuracies rise.
  panel(x, train_loss, test_loss, "cross-entropy loss", "Loss", 0.08, PL_POSITION_TOP);
  panel(x, train_acc, test_acc, "accuracy", "Accuracy", 0.08, PL_POSITION_BOTTOM);
  plend1();
}

}  // namespace ember::train
