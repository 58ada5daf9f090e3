#include "advise/agreement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

namespace alloclab::lab {

namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = static_cast<double>(i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

const malloc_judgement* find_judgement(const malloc_advice& a, const std::string& malloc) {
  for (const auto& j : a.others)
    if (j.malloc == malloc) return &j;
  return nullptr;
}

}  // namespace

double spearman_rho(const std::vector<double>& a, const std::vector<double>& b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (a.size() != b.size() || a.size() < 2) return nan;
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double ma = mean_of(ra), mb = mean_of(rb);
  double cov = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : nan;
}

replay_agreement agree(const malloc_advice& replay, const malloc_advice& real) {
  replay_agreement a;
  std::vector<double> replay_ratios{1.0}, real_ratios{1.0};  // the baseline
  for (const auto& r : real.others) {
    const malloc_judgement* p = find_judgement(replay, r.malloc);
    if (p == nullptr || p->ratio <= 0 || r.ratio <= 0) continue;
    replay_ratios.push_back(p->ratio);
    real_ratios.push_back(r.ratio);
    a.errors.push_back({r.malloc, p->ratio, r.ratio});
    if ((r.faster() && p->ratio < 1) || (r.slower() && p->ratio > 1))
      a.reversed.push_back(a.errors.back());
  }
  a.mallocs = real_ratios.size();
  a.spearman = spearman_rho(replay_ratios, real_ratios);
  return a;
}

std::string render_agreement(const replay_agreement& a, const std::string& replay_figure) {
  std::string out;
  for (const ratio_error& r : a.reversed)
    out += fmt::format(
        "   REVERSAL {}: real runs decided {} ({:.2f}x); the replay's {} estimates {:.2f}x, on the "
        "other side of 1: the replay does not predict this program's ranking\n",
        r.malloc, r.real_ratio > 1 ? "faster" : "slower", r.real_ratio, replay_figure,
        r.replay_ratio);
  out += fmt::format(
      "   the replay's {} against the real runs: Spearman rho {} over {} mallocs (the baseline "
      "included), {}; ratio errors (replay / real - 1):",
      replay_figure, std::isnan(a.spearman) ? "undefined" : fmt::format("{:.2f}", a.spearman),
      a.mallocs,
      a.reversed.empty()
          ? std::string("no reversal")
          : fmt::format("{} reversal{}", a.reversed.size(), a.reversed.size() == 1 ? "" : "s"));
  for (const auto& e : a.errors)
    out += fmt::format(" {} {:+.0f} % ({:.2f}x vs {:.2f}x)", e.malloc, 100 * e.error(),
                       e.replay_ratio, e.real_ratio);
  return out + "\n";
}

}  // namespace alloclab::lab
