// What one process of a cell measured, as its frame's own typed struct (frames/<frame>/
// process_figures.hpp), held by the record without records/ knowing any frame's type. The frame
// that put it there reads it back with get<F>(). The box also answers, for the stages that read
// every frame's records alike, what the struct's own header says of it (found by ADL beside it):
//
// | function (beside F)        | says                                                        |
// |----------------------------|-------------------------------------------------------------|
// | to_json(json&, const F&)   | its JSON: the record's transport (nlohmann's serializer)    |
// | stop_readings_of(const F&) | its readings by figure, one map per process (a serve task:  |
// |                            | per server) for the stop rule; empty: the rule reads none   |
// | timed_samples_of(const F&) | its timed samples and the repetitions they make             |
//
// Usage:
//   measurement_record r;
//   r.figures = frame_figures(batch_figures{batch_size, footprint, cell});
//   if (const batch_figures* b = r.figures.get<batch_figures>()) use(b->cell);
#pragma once

#include <any>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// One process's readings by figure ("p50", "ns_per_pair", ...), one per repetition: what the
// stop rule compares (schedule/tracked_comparisons.hpp).
using figure_readings = std::map<std::string, std::vector<double>>;

// A record's timed samples and the repetitions they make.
struct sample_count {
  std::size_t samples = 0, repetitions = 0;
};

class frame_figures {
 public:
  frame_figures() = default;
  template <class Figures>
  explicit frame_figures(Figures figures)
      : value_(std::move(figures)), operations_(&operations_of<Figures>) {}

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

  // The figures as JSON; null when there are none.
  nlohmann::json to_json() const {
    return operations_ == nullptr ? nlohmann::json() : operations_->write(value_);
  }
  // What the stop rule reads of them; empty when there are none.
  std::vector<figure_readings> readings() const {
    return operations_ == nullptr ? std::vector<figure_readings>() : operations_->read(value_);
  }
  sample_count samples() const {
    return operations_ == nullptr ? sample_count() : operations_->count(value_);
  }

 private:
  struct operations {
    nlohmann::json (*write)(const std::any&);
    std::vector<figure_readings> (*read)(const std::any&);
    sample_count (*count)(const std::any&);
  };
  template <class Figures>
  static const Figures& held(const std::any& value) {
    return std::any_cast<const Figures&>(value);
  }
  template <class Figures>
  static constexpr operations operations_of = {
      [](const std::any& v) { return nlohmann::json(held<Figures>(v)); },
      [](const std::any& v) { return stop_readings_of(held<Figures>(v)); },
      [](const std::any& v) { return timed_samples_of(held<Figures>(v)); },
  };

  std::any value_;
  const operations* operations_ = nullptr;
};

// The figures of type `Figures` from their JSON (nlohmann's deserializer): what a frame's row
// names as its read_figures.
template <class Figures>
frame_figures read_figures_as(const nlohmann::json& j) {
  return frame_figures(j.get<Figures>());
}

}  // namespace alloclab::lab
