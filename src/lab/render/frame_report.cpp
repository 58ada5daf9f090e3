#include "render/frame_report.hpp"

#include <algorithm>

namespace alloclab::lab {

std::vector<const report_row*> frames_in_report_order() {
  std::vector<const report_row*> rows;
  for (const report_row& row : frame_reports()) rows.push_back(&row);
  std::stable_sort(rows.begin(), rows.end(), [](const report_row* a, const report_row* b) {
    return a->part.report_position < b->part.report_position;
  });
  return rows;
}

}  // namespace alloclab::lab
