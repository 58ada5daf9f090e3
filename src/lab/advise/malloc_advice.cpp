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

std::string verdict_of(const malloc_judgement& j, double noise_floor_percent) {
  return verdict_words(j.verdict, j.range, noise_floor_percent / 100, "faster", "slower");
}

namespace {

std::string ratio_text(const malloc_judgement& j) {
  return j.range.valid() ? ratio_with_interval(j.ratio, j.range.low, j.range.high, "x")
                         : ratio_with_interval(j.ratio, std::nullopt, std::nullopt, "x");
}

}  // namespace

std::string judgement_text(const malloc_judgement& j, double noise_floor_percent) {
  if (j.ratio <= 0) return "no ratio (a side has no positive figure)";
  return fmt::format("{}, {} (U test p = {:.2g})", ratio_text(j),
                     verdict_of(j, noise_floor_percent), j.p_value);
}

std::string replay_judgement_text(const malloc_judgement& j, double noise_floor_percent) {
  if (j.ratio <= 0) return "no ratio (a side has no positive figure)";
  return fmt::format("{}, in the replay {} (U test over whole replays, p = {:.2g})", ratio_text(j),
                     verdict_of(j, noise_floor_percent), j.p_value);
}

std::string ratio_convention(const std::string& baseline) {
  return fmt::format("{} ÷ malloc, > 1: faster than {}", baseline, baseline);
}

std::string answer_text(const malloc_advice& a, bool of_replay) {
  const char* scope = of_replay ? "in the replay " : "";
  if (a.switch_to) {
    const malloc_judgement& best = a.others[*a.switch_to];
    return fmt::format("use {}: {}{} than {}, {} (U test p = {:.2g})", best.malloc, scope,
                       verdict_of(best, a.noise_floor_percent), a.baseline, ratio_text(best),
                       best.p_value);
  }
  if (a.others.empty()) return fmt::format("keep {}: no other malloc was measured", a.baseline);
  std::vector<std::string> verdicts;
  for (const malloc_judgement& j : a.others)
    verdicts.push_back(j.malloc + " " + verdict_of(j, a.noise_floor_percent));
  return fmt::format("keep {}: no malloc {}decided faster ({})", a.baseline, scope,
                     fmt::join(verdicts, "; "));
}

std::string render_malloc_advice(const malloc_advice& a, const std::string& source) {
  std::string out = fmt::format("   {}; ratios {}\n", source, ratio_convention(a.baseline));
  if (a.others.empty())
    return out + fmt::format("   only {} was measured: measure --malloc all\n", a.baseline);
  for (const malloc_judgement& j : a.others)
    out += fmt::format("   {}: {}\n", j.malloc, judgement_text(j, a.noise_floor_percent));
  return out;
}

}  // namespace alloclab::lab
