#include "advise/malloc_advice.hpp"

#include <fmt/format.h>

#include "results/ratio_intervals.hpp"
#include "stats/ratio_text.hpp"
#include "stats/decision.hpp"

namespace alloclab::lab {

namespace {

malloc_judgement judge(const malloc_costs& baseline, const malloc_costs& other,
                       double noise_floor) {
  malloc_judgement j;
  j.malloc = other.malloc;
  const auto estimate = ratio_of_repetition_medians(baseline.samples, other.samples);
  if (!estimate) return j;
  j.ratio = estimate->value;
  j.range = estimate->range;
  const std::size_t n1 = baseline.samples.size(), n2 = other.samples.size();
  const bool power = n1 >= 2 && n2 >= 2 && can_reach_significance(n1, n2);
  if (n1 >= 2 && n2 >= 2) j.p_value = mann_whitney_u(baseline.samples, other.samples).p_value;
  j.verdict = judge_difference(j.p_value, power, j.range, noise_floor);
  return j;
}

// The switch (the largest decided gain) and every decided loss, over judgements in order.
malloc_advice advice_of(const std::string& baseline, std::vector<malloc_judgement> judgements,
                        double noise_floor_percent) {
  malloc_advice a;
  a.baseline = baseline;
  a.noise_floor_percent = noise_floor_percent;
  a.others = std::move(judgements);
  for (std::size_t i = 0; i < a.others.size(); ++i) {
    const malloc_judgement& j = a.others[i];
    if (j.slower()) a.avoid.push_back(i);
    if (j.faster() && (!a.switch_to || j.ratio > a.others[*a.switch_to].ratio)) a.switch_to = i;
  }
  return a;
}

}  // namespace

malloc_advice advise_malloc(const malloc_costs& baseline, const std::vector<malloc_costs>& others,
                            double noise_floor_percent) {
  std::vector<malloc_judgement> judgements;
  for (const auto& o : others) judgements.push_back(judge(baseline, o, noise_floor_percent / 100));
  return advice_of(baseline.malloc, std::move(judgements), noise_floor_percent);
}

malloc_advice advise_from_filed(const std::string& baseline, const std::vector<filed_ratio>& filed,
                                double noise_floor_percent) {
  std::vector<malloc_judgement> judgements;
  for (const filed_ratio& f : filed) {
    malloc_judgement j;
    j.malloc = f.malloc;
    j.ratio = f.ratio;
    j.range = f.range;
    j.p_value = f.p_value;
    j.verdict = judge_difference(f.p_value, f.enough_runs, f.range, noise_floor_percent / 100);
    judgements.push_back(j);
  }
  return advice_of(baseline, std::move(judgements), noise_floor_percent);
}

std::string judgement_text(const malloc_judgement& j, double noise_floor_percent) {
  if (j.ratio <= 0) return "no ratio (a side has no positive figure)";
  const std::string ratio = j.range.valid()
                                ? ratio_with_interval(j.ratio, j.range.low, j.range.high, "x")
                                : ratio_with_interval(j.ratio, std::nullopt, std::nullopt, "x");
  switch (j.verdict) {
    case difference::higher:
    case difference::lower:
      return fmt::format(
          "{}, decided (U test p = {:.3g}, the interval beyond the {:g} % noise floor)", ratio,
          j.p_value, noise_floor_percent);
    case difference::inside_noise:
      return fmt::format(
          "{}, inside the noise (U test p = {:.3g}; the U test and the interval do not both put "
          "it {:g} % or more from 1)",
          ratio, j.p_value, noise_floor_percent);
    case difference::too_few:
      break;
  }
  return ratio +
         ", undecided: too few repetitions per side for the U test to reach p < 0.05 "
         "(4 or more each)";
}

std::string render_malloc_advice(const malloc_advice& a, const std::string& source) {
  std::string out = fmt::format(
      "   from {}; a switch needs a gain the U test decides (p < 0.05) with its 95 % interval "
      "beyond the {:g} % noise floor\n",
      source, a.noise_floor_percent);
  if (a.others.empty())
    return out + fmt::format("   only {} was measured: measure --malloc all\n", a.baseline);
  if (a.switch_to) {
    const malloc_judgement& best = a.others[*a.switch_to];
    out += fmt::format("   use {}: faster than {}: {}\n", best.malloc, a.baseline,
                       judgement_text(best, a.noise_floor_percent));
  } else {
    out += fmt::format("   keep {}: no malloc is decidedly faster\n", a.baseline);
  }
  for (std::size_t i : a.avoid)
    out += fmt::format("   avoid {}: slower than {}: {}\n", a.others[i].malloc, a.baseline,
                       judgement_text(a.others[i], a.noise_floor_percent));
  for (std::size_t i = 0; i < a.others.size(); ++i) {
    const malloc_judgement& j = a.others[i];
    if (j.faster() || j.slower()) {
      if (a.switch_to == i || j.slower()) continue;
      out += fmt::format("   {} is also faster: {}\n", j.malloc,
                         judgement_text(j, a.noise_floor_percent));
    } else {
      out += fmt::format("   {}: {}\n", j.malloc, judgement_text(j, a.noise_floor_percent));
    }
  }
  return out;
}

}  // namespace alloclab::lab
