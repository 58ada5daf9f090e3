// Whether a results.json the results builder wrote agrees with the results model (src/lab/model):
// the model describes every key the file holds, the file reads into the model and writes back
// with every key and value it had, and it is valid against the schema generated from the model.
// Used on the checked-in fixture and on the files the end-to-end tests' small runs write.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/document.hpp"
#include "model/schema.hpp"
#include "results/schema_check.hpp"

namespace alloclab::lab::model_agreement {

using json = nlohmann::json;

// Every key of `written` is in `read` with the same value; a key of `read` that `written` lacks
// was null (a version 6 file's key of another frame's cell or workload). The schema version and
// the repetition summary version 7 computes are left out.
inline void expect_same_keys(const json& read, const json& written, const std::string& where) {
  if (!read.is_object() || !written.is_object()) {
    if (read.is_array() && written.is_array() && read.size() == written.size()) {
      for (std::size_t i = 0; i < read.size(); ++i)
        expect_same_keys(read[i], written[i], where + "/" + std::to_string(i));
      return;
    }
    EXPECT_EQ(read, written) << where;
    return;
  }
  for (const auto& [key, value] : written.items()) {
    if (key == "repetition_means_summary" || key == "schema_version") continue;
    ASSERT_TRUE(read.contains(key)) << where << "/" << key << " is new";
    expect_same_keys(read.at(key), value, where + "/" + key);
  }
  for (const auto& [key, value] : read.items())
    if (!written.contains(key)) {
      EXPECT_TRUE(value.is_null()) << where << "/" << key << " was lost";
    }
}

// `name` says which file in a failure.
inline void expect_model_agrees(const json& file, const std::string& name) {
  SCOPED_TRACE(name);
  const std::vector<std::string> unknown = model::undescribed_keys(file);
  std::string listed;
  for (std::size_t i = 0; i < unknown.size() && i < 20; ++i) listed += "\n  " + unknown[i];
  EXPECT_TRUE(unknown.empty()) << unknown.size()
                               << " keys the results model does not describe:" << listed;
  json written;
  try {
    written = model::to_json(model::from_json(file));
  } catch (const model::model_error& e) {
    ADD_FAILURE() << "the model does not read it: " << e.what();
    return;
  }
  expect_same_keys(file, written, "");
  EXPECT_EQ(model::to_json(model::from_json(written)), written) << "reading again is not stable";
  const auto problems = schema_violations(file, model::results_json_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

}  // namespace alloclab::lab::model_agreement
