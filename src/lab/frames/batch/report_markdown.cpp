#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {

// The batch frame's section: the seeds' published tables beside this run's cells. The
// per-workload tables close the report (render/markdown.cpp), after the failures.
void batch_section(std::string& md, const nlohmann::json& r) {
  std::string seed_tables;
  published_tables(seed_tables, r, r["published_tables"], "batch");
  if (!seed_tables.empty()) md += "## The seeds' published tables, batch frame\n\n" + seed_tables;
}

}  // namespace alloclab::lab::markdown
