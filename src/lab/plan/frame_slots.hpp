// Each frame's own options and sizes, held by the request and the plan without the plan stage
// knowing any frame's type, as a record holds its frame's figures (records/frame_figures.hpp).
// A frame keeps its struct under its name: the request holds what its `run` options parsed into
// (its row's add_run_options), the plan what its resolve_sizes made of them; the frame's
// planner, executor and results read them back as their own type. Reading a slot as another
// type than the one put there is a bug and throws frame_slot_error.
//
// Usage (frames/<frame>/run_options.hpp declares the structs):
//   auto& options = request.frame_options.slot<heap_run_options>("heap");  // CLI binds to it
//   plan.frame_sizes.put("heap", heap_plan_sizes{iterations, repetitions, horizon});
//   const heap_plan_sizes& sizes = plan.frame_sizes.get<heap_plan_sizes>("heap");
#pragma once

#include <any>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// A slot read as another type than the one its frame put there.
class frame_slot_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// One frame's struct, of the frame's own type, with its JSON when the type has one.
class frame_slot {
 public:
  frame_slot() = default;
  template <class Value, class = std::enable_if_t<!std::is_same_v<Value, frame_slot>>>
  explicit frame_slot(Value value) : value_(std::move(value)), write_(&write_of<Value>) {}

  // The value, or nullptr when it is of another type.
  template <class Value>
  const Value* get() const {
    return std::any_cast<Value>(&value_);
  }
  template <class Value>
  Value* get() {
    return std::any_cast<Value>(&value_);
  }
  const std::type_info& type() const { return value_.type(); }
  // Its JSON (nlohmann's to_json beside the type); null for a type that has none.
  nlohmann::json to_json() const { return write_ == nullptr ? nlohmann::json() : write_(value_); }

 private:
  template <class Value>
  static nlohmann::json write_of(const std::any& value) {
    if constexpr (std::is_constructible_v<nlohmann::json, const Value&>)
      return nlohmann::json(std::any_cast<const Value&>(value));
    else
      return nlohmann::json();
  }

  std::any value_;
  nlohmann::json (*write_)(const std::any&) = nullptr;
};

class frame_slots {
 public:
  // Puts `value` in frame `frame`'s slot, replacing what was there.
  template <class Value>
  Value& put(const std::string& frame, Value value) {
    frame_slot& s = slots_[frame] = frame_slot(std::move(value));
    return *s.get<Value>();
  }

  // Frame `frame`'s value, made with Value's defaults when the slot is empty: what a frame's
  // options bind to. Its address stays while the slot does. Throws frame_slot_error when the
  // slot holds another type.
  template <class Value>
  Value& slot(const std::string& frame) {
    const auto found = slots_.find(frame);
    if (found == slots_.end()) return put(frame, Value{});
    return checked<Value>(frame, found->second);
  }

  // Frame `frame`'s value; Value's defaults when the frame put none (a request not made by the
  // command line, a hand-made plan). Throws frame_slot_error when the slot holds another type.
  template <class Value>
  const Value& get(const std::string& frame) const {
    static const Value defaults{};
    const auto found = slots_.find(frame);
    if (found == slots_.end()) return defaults;
    return checked<Value>(frame, found->second);
  }

  bool contains(const std::string& frame) const { return slots_.count(frame) != 0; }
  void put_slot(const std::string& frame, frame_slot slot) { slots_[frame] = std::move(slot); }
  const std::map<std::string, frame_slot>& slots() const { return slots_; }

  // {frame: its value's JSON} (a shard file's plan).
  nlohmann::json to_json() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [frame, s] : slots_) out[frame] = s.to_json();
    return out;
  }

 private:
  template <class Value, class Slot>
  static auto& checked(const std::string& frame, Slot& s) {
    if (auto* value = s.template get<Value>()) return *value;
    throw frame_slot_error("frame '" + frame + "' keeps a " + s.type().name() +
                           " in its slot, not the " + typeid(Value).name() + " read from it");
  }

  std::map<std::string, frame_slot> slots_;
};

// A frame's slot from its JSON (nlohmann's from_json beside Value): what a frame's row names as
// its read_sizes, for a plan read back from a shard file.
template <class Value>
frame_slot read_slot_as(const nlohmann::json& j) {
  return frame_slot(j.get<Value>());
}

}  // namespace alloclab::lab
