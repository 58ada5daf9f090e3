// A results document to and from JSON: the stage's fields (model/fields.hpp) and each frame's
// parts, which a document reads back through the frame's codecs (model/frame_part.hpp).
#include "model/document.hpp"

#include <fmt/format.h>

#include "model/versions.hpp"

namespace alloclab::lab::model {
namespace {

const frame_results_parts* parts_of(const std::string& frame) {
  for (const frame_codecs& row : frame_codec_table())
    if (frame == row.name) return &row.results_parts;
  return nullptr;
}

// Every frame's part at one place (config, document) that `object` holds.
void read_parts(const json& object, const part_codec* frame_results_parts::*place, frame_parts& out,
                const std::string& where) {
  out.all.clear();
  for (const auto& row : frame_codec_table())
    if (const part_codec* codec = row.results_parts.*place)
      if (figures f = codec->read(object, where)) out.all.push_back(std::move(f));
}

}  // namespace

json codec<cell>::write(const cell& c) {
  json out = json::object();
  write_fields(c, out);
  c.figures.write(out);
  return out;
}

void codec<cell>::read(const json& j, cell& c, const std::string& where) {
  read_fields(j, c, where);
}

json codec<workload>::write(const workload& w) {
  json out = json::object();
  write_fields(w, out);
  w.figures.write(out);
  return out;
}

void codec<workload>::read(const json& j, workload& w, const std::string& where) {
  read_fields(j, w, where);
  const frame_results_parts* parts = parts_of(w.frame);
  if (parts == nullptr)
    throw model_error(fmt::format("{}/frame: no frame is called \"{}\"", where, w.frame));
  if (parts->workload != nullptr) w.figures = parts->workload->read(j, where);
  if (parts->cell == nullptr) return;
  const json& cells = j.at("cells");
  for (std::size_t i = 0; i < w.cells.size(); ++i)
    w.cells[i].figures = parts->cell->read(cells.at(i), fmt::format("{}/cells/{}", where, i));
}

json codec<run_config>::write(const run_config& c) {
  json out = json::object();
  write_fields(c, out);
  c.frames.write(out);
  return out;
}

void codec<run_config>::read(const json& j, run_config& c, const std::string& where) {
  read_fields(j, c, where);
  read_parts(j, &frame_results_parts::config, c.frames, where);
}

json to_json(const document& d) {
  json out = json::object();
  write_fields(d, out);
  d.parts.write(out);
  if (d.schema_version < 7) add_version6_keys(out);
  return out;
}

document from_json(const json& j) {
  if (!j.is_object() || j.value("schema", json()) != schema_name)
    throw model_error(fmt::format(
        "not an alloclab results file (no \"schema\": \"{}\" at the top level)", schema_name));
  const json version = j.value("schema_version", json());
  if (!version.is_number_integer() || version.get<int>() < oldest_readable_version ||
      version.get<int>() > schema_version)
    throw model_error(fmt::format("schema_version is {}, this alloclab reads versions {} to {}",
                                  version.dump(), oldest_readable_version, schema_version));
  document d;
  read_fields(j, d, "");
  read_parts(j, &frame_results_parts::document, d.parts, "");
  upgrade(d, version.get<int>());
  return d;
}

}  // namespace alloclab::lab::model
