// The terminal headline (render_headline) and its claims tally: plain text from the results
// document alone, printed when a run ends; each frame adds its own lines through its row.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "markdown.hpp"
#include "markdown_format.hpp"
#include "markdown_sections.hpp"
#include "render/frame_report.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

using namespace markdown;  // the report's vocabulary

// "seed claims: 3 reproduced, 1 inconclusive, ...": every verdict the run gave, each counted under
// its own name, in the schema's order.
std::string claims_tally(const std::vector<model::claim_verdict>& claims) {
  static constexpr const char* verdicts[] = {"reproduced",
                                             "refuted",
                                             "inconclusive",
                                             "not judged: too few samples",
                                             "not measured in this run",
                                             "not measurable here"};
  std::vector<std::string> parts;
  for (const char* verdict : verdicts) {
    const auto n = std::count_if(claims.begin(), claims.end(), [&](const model::claim_verdict& c) {
      return c.verdict == verdict;
    });
    if (n > 0) parts.push_back(fmt::format("{} {}", n, verdict));
  }
  return fmt::format("seed claims: {}\n",
                     parts.empty() ? "none judged" : fmt::format("{}", fmt::join(parts, ", ")));
}

std::string render_headline(const nlohmann::json& results) {
  return render_headline(model::from_json(results));
}

std::string render_headline(const model::document& r) {
  std::string out = r.debug_build ? "DEBUG BUILD — numbers are meaningless\n" : "";
  if (r.smoke_test) out += "SMOKE TEST (--quick) — do not quote these numbers\n";
  for (const report_row& row : frame_reports())
    if (row.part.console_lines != nullptr) row.part.console_lines(out, r);
  out += budget_headline(r);
  out += claims_tally(r.claims);
  return out;
}

}  // namespace alloclab::lab
