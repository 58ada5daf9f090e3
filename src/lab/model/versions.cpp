#include "model/versions.hpp"

#include "stats/stats.hpp"

namespace alloclab::lab::model {

repetition_summary summarize_repetition_means(const std::vector<double>& means) {
  if (means.empty()) return {};
  const summary s = summarize(means);
  return {s.mean, s.p50, s.stddev, s.cv};
}

void upgrade(document& d, int version) {
  if (version < 7)
    for (workload& w : d.workloads)
      for (cell& c : w.cells)
        if (c.timing)
          c.timing->repetition_means_summary =
              summarize_repetition_means(c.timing->repetition_means_ns);
  d.schema_version = schema_version;
}

}  // namespace alloclab::lab::model
