#include "render/run_directory.hpp"

#include <cerrno>
#include <system_error>

#include <fmt/format.h>

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

void write_files(const fs::path& directory, const nlohmann::json& results,
                 const leading_file& first, run_directory& written) {
  fs::create_directories(directory);
  if (!first.name.empty()) write_file_atomically(directory / first.name, first.text);
  write_file_atomically(directory / "results.json", results.dump(2) + "\n");
  written.document = model::from_json(results);
  const std::string report = render_report(written.document);
  write_file_atomically(directory / "report.md", report);
  write_file_atomically(directory / "report.html",
                        render_html_report(written.document, report, results));
}

}  // namespace

run_directory write_run_directory(const fs::path& where, const nlohmann::json& results,
                                  const leading_file& first, run_directory_place place) {
  const bool fresh = place == run_directory_place::fresh_under_root;
  run_directory written;
  written.path = fresh ? fresh_directory(where) : where;
  try {
    write_files(written.path, results, first, written);
    if (fresh) replace_symlink_atomically(where / "latest", written.path.filename());
  } catch (const std::system_error& e) {
    const fs::path results_file = written.path / "results.json";
    std::error_code ignored;
    const bool kept = fs::exists(results_file, ignored);
    if (fresh && !kept) fs::remove_all(written.path, ignored);
    throw run_directory_error(fmt::format(
        "{}{}{}", e.what(), e.code().value() == EFBIG ? " (the file-size limit, ulimit -f)" : "",
        kept ? fmt::format("; {} is whole: `alloclab report` re-renders from it",
                           results_file.string())
             : ""));
  }
  return written;
}

}  // namespace alloclab::lab
