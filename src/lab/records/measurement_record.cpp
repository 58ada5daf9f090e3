#include "records/measurement_record.hpp"

#include <string>

#include "frames/frame_table.hpp"

namespace alloclab::lab {

nlohmann::json to_json(const measurement_record& record) {
  nlohmann::json j = {{"frame", record.frame},       {"workload", record.workload},
                      {"strategy", record.strategy}, {"malloc", record.malloc},
                      {"part", record.part},         {"status", record.status},
                      {"reason", record.reason},     {"live_allocator", record.live_allocator},
                      {"worker", record.worker}};
  j[record.frame] = record.figures.to_json();
  return j;
}

measurement_record record_from_json(const nlohmann::json& j) {
  measurement_record r;
  j.at("frame").get_to(r.frame);
  j.at("workload").get_to(r.workload);
  j.at("strategy").get_to(r.strategy);
  j.at("malloc").get_to(r.malloc);
  j.at("part").get_to(r.part);
  j.at("status").get_to(r.status);
  j.at("reason").get_to(r.reason);
  r.live_allocator = j.at("live_allocator");
  r.worker = j.at("worker");
  const frame_module* row = find_module(r.frame);
  if (row == nullptr || row->read_figures == nullptr)
    throw nlohmann::json::other_error::create(
        501, "a record of frame '" + r.frame + "', which measures nothing", &j);
  const nlohmann::json& figures = j.at(r.frame);
  if (!figures.is_null()) r.figures = row->read_figures(figures);
  return r;
}

}  // namespace alloclab::lab
