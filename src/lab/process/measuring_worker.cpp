#include "process/measuring_worker.hpp"

#include <cmath>
#include <exception>

#include "text/enum_names.hpp"

namespace alloclab::process {

using nlohmann::json;

lab::model::purge_call model_of(const mallocs::purge_result& p) {
  return lab::model::purge_call{p.method, p.available, p.rc};
}

lab::model::rss_series model_of(const rss_series& s) {
  lab::model::rss_series out;
  out.period_ms = s.period_ms;
  if (!s.cgroup_file.empty()) {
    out.cgroup_file = s.cgroup_file;
    out.cgroup_bytes.emplace();
  }
  for (const rss_point& p : s.points) {
    out.t_ms.push_back(std::round(p.t_ms * 10) / 10);
    out.rss_bytes.push_back(p.rss_bytes);
    if (out.cgroup_bytes)
      out.cgroup_bytes->push_back(p.cgroup_bytes < 0 ? std::nullopt
                                                     : std::optional<std::int64_t>(p.cgroup_bytes));
  }
  return out;
}

json to_json(const mallocs::purge_result& p) {
  return lab::model::write_json(model_of(p));
}

json to_json(const rss_series& s) {
  return lab::model::write_json(model_of(s));
}

json to_json(const mallocs::live_allocator& l) {
  json proofs = json::array();
  for (const mallocs::symbol_check& c : l.proofs) {
    proofs.push_back(json{{"symbol", c.symbol},
                          {"expected_owner", c.expected_owner},
                          {"owner_path", c.owner_path},
                          {"found", c.found},
                          {"ok", c.ok}});
  }
  return json{{"expected", l.expected},
              {"expected_owner", l.expected_owner},
              {"malloc_owner_path", l.malloc_owner_path},
              {"free_owner_path", l.free_owner_path},
              {"malloc_owner_ok", l.malloc_owner_ok},
              {"proofs", proofs},
              {"proof_symbol_found", l.proof_symbol_found},
              {"env_mismatch", l.env_mismatch},
              {"ok", l.ok},
              {"detail", l.detail}};
}

std::string_view to_string(cell_status s) noexcept {
  constexpr lab::enum_names<cell_status, 4> names{{{cell_status::ok, "ok"},
                                                   {cell_status::not_installed, "not installed"},
                                                   {cell_status::refused, "refused"},
                                                   {cell_status::failed, "failed"}}};
  return lab::name_in(names, s);
}

cell_outcome run_measuring_worker(const worker_request& request) {
  cell_outcome o;
  try {
    o.worker = run_worker(request);
    const bool clean_exit = o.worker.started && o.worker.exited && !o.worker.timed_out &&
                            (o.worker.exit_code == 0 || o.worker.exit_code == worker_exit_refused);
    if (!clean_exit) {
      o.status = cell_status::failed;
      o.detail = o.worker.describe();
      return o;
    }
    try {
      o.document = json::parse(o.worker.stdout_text);
    } catch (const json::exception& e) {
      o.status = cell_status::failed;
      o.detail = std::string("worker printed no valid JSON (") + e.what() + ")";
      return o;
    }
    // A sanitizer build's worker measures ASan's malloc on purpose (DEBUG-stamped) and says so.
    const bool live_ok = o.document.value(json::json_pointer("/live_allocator/ok"), false) ||
                         o.document.value("sanitizer_allocator", false);
    const bool measured = o.document.value("measured", false);
    if (!live_ok || !measured || o.worker.exit_code != 0) {
      o.status = cell_status::refused;
      o.detail = "allocator not proven live: " +
                 o.document.value(json::json_pointer("/live_allocator/detail"), std::string("?"));
      return o;
    }
    o.status = cell_status::ok;
    o.detail = "ok";
  } catch (const std::exception& e) {
    o.status = cell_status::failed;
    o.detail = e.what();
  }
  return o;
}

}  // namespace alloclab::process
