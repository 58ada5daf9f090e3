#include "merge/frame_figures_reader.hpp"

#include <string>

namespace alloclab::lab {

measurement_record read_record(const nlohmann::json& j) {
  const std::string frame_name = j.at("frame").get<std::string>();
  for (const auto& row : frame_figures_readers())
    if (frame_name == row.name && row.part.read_figures != nullptr)
      return record_from_json(j, row.part.read_figures);
  throw nlohmann::json::other_error::create(
      501, "a record of frame " + j.at("frame").dump() + ", which measures nothing", &j);
}

}  // namespace alloclab::lab
