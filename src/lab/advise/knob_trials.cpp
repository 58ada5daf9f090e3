#include "advise/knob_trials.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "frames/replay/figures.hpp"
#include "frames/replay/replay_resources.hpp"
#include "mallocs/malloc_table.hpp"
#include "plan/malloc_missing.hpp"

namespace alloclab::lab {

namespace {

// The replay's median malloc call time per call of each measured malloc cell, by label.
std::map<std::string, double> replay_call_medians(const model::document& replay) {
  std::map<std::string, double> medians;
  for (const model::workload& w : replay.workloads) {
    if (w.kind != "trace") continue;
    for (const model::cell& c : w.cells) {
      const auto* figures = c.figures.as<replay_cell_figures>();
      if (c.head.status != "ok" || c.head.strategy != replay_malloc_strategy ||
          figures == nullptr || !figures->replay || !(figures->replay->ns_per_call.median > 0))
        continue;
      medians.emplace(c.head.malloc, figures->replay->ns_per_call.median);
    }
  }
  return medians;
}

// "jemalloc dirty_decay_ms=0 background_thread=true" -> "jemalloc:dirty_decay_ms=0+background_
// thread=true", the --variants text of the same knob variant.
std::string variant_text(const knob_trial& t) {
  std::string settings = t.of.setting;
  std::replace(settings.begin(), settings.end(), ' ', '+');
  return t.of.base + ":" + settings;
}

bool registry_variant(const knob_trial& t) {
  return t.label.find(' ') == std::string::npos;
}

}  // namespace

std::optional<tuning> tuning_of(const std::string& label) {
  if (const std::size_t space = label.find(' '); space != std::string::npos)
    return tuning{label.substr(0, space), label.substr(space + 1)};
  if (label.rfind("glibc_", 0) != 0) return std::nullopt;
  tuning t{"glibc", {}};
  if (const mallocs::malloc_entry* e = mallocs::find_malloc(label))
    for (const auto& v : e->env)
      t.setting += fmt::format("{}{}={}", t.setting.empty() ? "" : " ", v.name, v.value);
  return t;
}

std::string default_knob_sweep(const std::vector<std::string>& mallocs) {
  static const std::pair<const char*, const char*> sweep[] = {
      {"glibc", "glibc:top_pad=16777216"},
      {"jemalloc", "jemalloc:background_thread=true"},
      {"tcmalloc", "tcmalloc:release_rate=0"}};
  const bool all = std::find(mallocs.begin(), mallocs.end(), "all") != mallocs.end();
  std::string text;
  for (const auto& [malloc, setting] : sweep) {
    const mallocs::malloc_entry* e = mallocs::find_malloc(malloc);
    const bool asked = all || std::find(mallocs.begin(), mallocs.end(), malloc) != mallocs.end();
    if (asked && e != nullptr && malloc_missing_reason(*e).empty())
      text += (text.empty() ? "" : ",") + std::string(setting);
  }
  return text;
}

std::vector<knob_trial> knobs_to_try(const model::document& replay,
                                     const std::vector<std::string>& mallocs,
                                     std::size_t per_malloc) {
  const std::map<std::string, double> medians = replay_call_medians(replay);
  std::vector<knob_trial> chosen;
  for (const std::string& malloc : mallocs) {
    const auto base = medians.find(malloc);
    if (base == medians.end()) continue;
    std::vector<knob_trial> swept;
    for (const auto& [label, median] : medians) {
      std::optional<tuning> t = tuning_of(label);
      if (t && t->base == malloc) swept.push_back({label, *t, base->second / median, 0, 0});
    }
    std::stable_sort(swept.begin(), swept.end(), [](const knob_trial& a, const knob_trial& b) {
      return a.replay_ratio > b.replay_ratio;
    });
    for (std::size_t i = 0; i < swept.size() && i < per_malloc; ++i) {
      swept[i].rank = i + 1;
      swept[i].swept = swept.size();
      chosen.push_back(swept[i]);
    }
  }
  return chosen;
}

std::vector<std::string> tried_mallocs(const program::try_request& request) {
  if (!request.mallocs.empty()) return request.mallocs;
  std::vector<std::string> installed;
  for (const std::string& name : mallocs::try_default_mallocs())
    if (const mallocs::malloc_entry* e = mallocs::find_malloc(name);
        e != nullptr && malloc_missing_reason(*e).empty())
      installed.push_back(name);
  return installed;
}

void add_knob_trials(program::try_request& request, const std::vector<knob_trial>& trials) {
  if (trials.empty()) return;
  request.mallocs = tried_mallocs(request);
  for (const knob_trial& t : trials) {
    if (registry_variant(t)) {
      if (std::find(request.mallocs.begin(), request.mallocs.end(), t.label) ==
          request.mallocs.end())
        request.mallocs.push_back(t.label);
      continue;
    }
    const std::string text = variant_text(t);
    const std::string padded = "," + request.variants + ",";
    if (padded.find("," + text + ",") == std::string::npos)
      request.variants += (request.variants.empty() ? "" : ",") + text;
  }
}

std::string knob_trials_text(const std::vector<knob_trial>& trials) {
  if (trials.empty())
    return "knob settings tried as real runs: none (the replay measured no knob setting of a "
           "malloc the real runs ran)";
  std::string out =
      "knob settings tried as real runs, the replay's best of each malloc by malloc "
      "call time (an estimate; the real runs decide): ";
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const knob_trial& t = trials[i];
    out += fmt::format("{}{} (rank {} of {} {} settings swept, estimate {:.2f}x {}'s defaults)",
                       i == 0 ? "" : "; ", t.label, t.rank, t.swept, t.of.base, t.replay_ratio,
                       t.of.base);
  }
  return out;
}

}  // namespace alloclab::lab
