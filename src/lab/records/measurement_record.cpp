#include "records/measurement_record.hpp"

#include "records/json_optional.hpp"

namespace alloclab::lab {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(measurement_record, frame, workload, strategy, malloc, part,
                                   status, reason, live_allocator, worker, batch, heap, memory,
                                   serve, replay)

nlohmann::json to_json(const measurement_record& record) {
  return nlohmann::json(record);
}

measurement_record record_from_json(const nlohmann::json& j) {
  return j.get<measurement_record>();
}

}  // namespace alloclab::lab
