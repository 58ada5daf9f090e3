#include "process/worker_main.hpp"

#include <exception>

#include "process/measuring_worker.hpp"

namespace alloclab::process {

using nlohmann::json;

namespace {

// Prints `document` as one line; the exit status says whether it reached stdout.
int print(const json& document, std::ostream& out) {
  out << document.dump() << '\n';
  out.flush();
  return out ? 0 : 1;
}

int prove_and_measure(const worker_entry& entry, const worker_cell& cell, std::ostream& out,
                      std::ostream& err) {
  if (entry.before_measuring) entry.before_measuring(cell.id);
  if (!cell.not_ready.empty()) {
    err << entry.name << ": " << cell.not_ready << '\n';
    return worker_exit_bad_spec;
  }
  const mallocs::live_allocator live = cell.prove();
  json document = cell.head;
  document["live_allocator"] = to_json(live);
  if (!live.ok && !cell.measure_unproven) {
    document["measured"] = false;
    print(document, out);
    err << entry.name << ": refusing to measure: " << live.detail << '\n';
    return worker_exit_refused;
  }
  document["measured"] = true;
  if (!live.ok) document["sanitizer_allocator"] = true;
  document.update(cell.measure());
  return print(document, out);
}

}  // namespace

int run_worker_main(const worker_entry& entry, std::string_view spec_text, std::ostream& out,
                    std::ostream& err) {
  worker_cell cell;
  try {
    cell = entry.read(json::parse(spec_text));
  } catch (const std::exception& e) {
    err << entry.name << ": bad spec: " << e.what() << '\n';
    return worker_exit_bad_spec;
  }
  try {
    return prove_and_measure(entry, cell, out, err);
  } catch (const std::exception& e) {
    err << entry.name << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace alloclab::process
