#include "render/run_directory.hpp"

#include <cerrno>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/atomic_write.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;

namespace {

// <root>/<UTC timestamp>, with a suffix if a run in the same second already took the name.
fs::path fresh_directory(const fs::path& root) {
  const std::string stamp = utc_now("%Y%m%dT%H%M%SZ");
  fs::path candidate = root / stamp;
  for (int n = 2; fs::exists(candidate); ++n) candidate = root / fmt::format("{}-{}", stamp, n);
  return candidate;
}

void write_files(const fs::path& directory, const model::document& results,
                 const leading_file& first) {
  fs::create_directories(directory);
  if (!first.name.empty()) write_file_atomically(directory / first.name, first.text);
  const nlohmann::json written = model::to_json(results);
  write_file_atomically(directory / "results.json", written.dump(2) + "\n");
  const std::string report = render_report(results);
  write_file_atomically(directory / "report.md", report);
  write_file_atomically(directory / "report.html", render_html_report(results, report, written));
}

}  // namespace

fs::path write_run_directory(const fs::path& where, const model::document& results,
                             const leading_file& first, run_directory_place place) {
  const bool fresh = place == run_directory_place::fresh_under_root;
  const fs::path directory = fresh ? fresh_directory(where) : where;
  try {
    write_files(directory, results, first);
    if (fresh) replace_symlink_atomically(where / "latest", directory.filename());
  } catch (const std::system_error& e) {
    const fs::path results_file = directory / "results.json";
    std::error_code ignored;
    const bool kept = fs::exists(results_file, ignored);
    if (fresh && !kept) fs::remove_all(directory, ignored);
    throw run_directory_error(fmt::format(
        "{}{}{}", e.what(), e.code().value() == EFBIG ? " (the file-size limit, ulimit -f)" : "",
        kept ? fmt::format("; {} is whole: `alloclab report` re-renders from it",
                           results_file.string())
             : ""));
  }
  return directory;
}

}  // namespace alloclab::lab
