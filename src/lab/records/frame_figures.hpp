// What one process of a cell measured, as its frame's own typed struct (frames/<frame>/
// process_figures.hpp), held by the record without records/ knowing any frame's type. The frame
// that put it there reads it back with get<F>(); the record's transport writes it with the JSON
// serializer of the type it was built from, and reads it back through the frame table's
// read_figures.
//
// Usage:
//   measurement_record r;
//   r.figures = frame_figures(batch_figures{batch_size, footprint, cell});
//   if (const batch_figures* b = r.figures.get<batch_figures>()) use(b->cell);
#pragma once

#include <any>
#include <utility>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

class frame_figures {
 public:
  frame_figures() = default;
  template <class Figures>
  explicit frame_figures(Figures figures)
      : value_(std::move(figures)), write_(&write_as<Figures>) {}

  // The figures, or nullptr when there are none or they are another frame's.
  template <class Figures>
  const Figures* get() const {
    return std::any_cast<Figures>(&value_);
  }
  template <class Figures>
  Figures* get() {
    return std::any_cast<Figures>(&value_);
  }

  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return has_value(); }
  void reset() { *this = frame_figures(); }

  // The figures as JSON (by their type's nlohmann serializer); null when there are none.
  nlohmann::json to_json() const { return write_ == nullptr ? nlohmann::json() : write_(value_); }

 private:
  template <class Figures>
  static nlohmann::json write_as(const std::any& value) {
    return nlohmann::json(std::any_cast<const Figures&>(value));
  }

  std::any value_;
  nlohmann::json (*write_)(const std::any&) = nullptr;
};

// A frame table row's read_figures for figures of type `Figures` (nlohmann's deserializer).
template <class Figures>
frame_figures read_figures_as(const nlohmann::json& j) {
  return frame_figures(j.get<Figures>());
}

}  // namespace alloclab::lab
