#include "records/measurement_record.hpp"

namespace alloclab::lab {

namespace {

template <class T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> optional_from(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<T>();
}

}  // namespace

nlohmann::json to_json(const measurement_record& r) {
  return {{"frame", r.frame},
          {"workload", r.workload},
          {"strategy", r.strategy},
          {"malloc", r.malloc},
          {"part", r.part},
          {"status", r.status},
          {"reason", r.reason},
          {"live_allocator", r.live_allocator},
          {"worker", r.worker},
          {"batch", optional_json(r.batch)},
          {"heap", optional_json(r.heap)},
          {"memory", optional_json(r.memory)},
          {"serve", optional_json(r.serve)},
          {"replay", optional_json(r.replay)}};
}

measurement_record record_from_json(const nlohmann::json& j) {
  measurement_record r;
  r.frame = j.at("frame");
  r.workload = j.at("workload");
  r.strategy = j.at("strategy");
  r.malloc = j.at("malloc");
  r.part = j.at("part");
  r.status = j.at("status");
  r.reason = j.at("reason");
  r.live_allocator = j.at("live_allocator");
  r.worker = j.at("worker");
  r.batch = optional_from<batch_figures>(j.at("batch"));
  r.heap = optional_from<heap_figures>(j.at("heap"));
  r.memory = optional_from<memory_figures>(j.value("memory", nlohmann::json()));
  r.serve = optional_from<serve_figures>(j.value("serve", nlohmann::json()));
  r.replay = optional_from<replay_figures>(j.value("replay", nlohmann::json(nullptr)));
  return r;
}

}  // namespace alloclab::lab
