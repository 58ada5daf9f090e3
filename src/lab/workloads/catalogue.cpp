#include "workloads/catalogue.hpp"

#include <algorithm>

namespace alloclab::lab {

std::vector<std::string> workload_catalogue::names() const {
  return collect(entries(), [](const workload_listing& w) { return w.name; });
}

std::vector<std::string> workload_catalogue::expand(const std::string& word) const {
  const std::vector<std::string> all = names();
  if (std::find(all.begin(), all.end(), word) != all.end()) return {word};
  return family != nullptr ? family(word) : std::vector<std::string>{};
}

std::vector<std::string> workload_catalogue::in_order(const std::vector<std::string>& names) const {
  std::vector<std::string> ordered;
  for (const auto& name : this->names())
    if (std::find(names.begin(), names.end(), name) != names.end()) ordered.push_back(name);
  return ordered;
}

}  // namespace alloclab::lab
