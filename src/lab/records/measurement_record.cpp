#include "records/measurement_record.hpp"

namespace alloclab::lab {

nlohmann::json record_to_json(const measurement_record& record) {
  nlohmann::json j = {{"frame", record.frame},       {"workload", record.workload},
                      {"strategy", record.strategy}, {"malloc", record.malloc},
                      {"part", record.part},         {"status", record.status},
                      {"reason", record.reason},     {"live_allocator", record.live_allocator},
                      {"worker", record.worker}};
  j[record.frame] = record.figures.to_json();
  return j;
}

measurement_record record_from_json(const nlohmann::json& j, figures_json_reader read_figures) {
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
  const nlohmann::json& figures = j.at(r.frame);
  if (!figures.is_null()) r.figures = read_figures(figures);
  return r;
}

}  // namespace alloclab::lab
