// The stored report fixture (tests/data/report_fixture): a results.json, and what the renderers
// and exporters make of it.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

namespace alloclab::lab::report_fixture {

inline const std::filesystem::path directory =
    std::filesystem::path(ALLOCLAB_TEST_DATA) / "report_fixture";
inline const std::filesystem::path results_file = directory / "results.json";

inline nlohmann::json results() {
  return nlohmann::json::parse(cli_support::read_file(results_file));
}

}  // namespace alloclab::lab::report_fixture
