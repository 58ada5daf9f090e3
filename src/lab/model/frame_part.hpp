// A frame's own figures at one place of results.json (a cell, a workload, the config, the
// document), held type-erased so that the stage-side model (model/results.hpp) names no frame's
// types. The type lives in the frame's folder (frames/<frame>/figures.hpp) with its field list;
// its keys sit beside the stage's keys in the same JSON object. The frame's row names one
// part_codec per place (`results_parts`, looked up through frame_codec_table() below), which
// reads that part back from a document and describes it in the schema and the docs. Two typed
// hooks let the stages read a frame's figures without naming its type: `series` (the figure
// behind a ratio metric) and `add_claim_figures` (what the seed claims read,
// model/claim_figures.hpp); a part type has them when it defines them.
//
// Example:
//   cell.figures = model::figures::of(heap_cell_figures{...});   // the heap frame builds it
//   if (const auto* h = cell.figures.as<heap_cell_figures>()) use(h->ns_per_pair);  // it reads it
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/claim_figures.hpp"
#include "model/fields.hpp"

namespace alloclab::lab::model {

// A figure a frame keeps per repetition, as the stage's ratio estimates read it (e.g. the heap
// frame's "speedup_ns_per_pair": ns per pair per repetition, and their mean).
struct repetition_series {
  std::vector<double> per_repetition;
  double pooled = 0;
};

class frame_part {
 public:
  virtual ~frame_part() = default;
  virtual void write(json& object) const = 0;  // adds the frame's keys to the object
  virtual std::unique_ptr<frame_part> clone() const = 0;
  // The per-repetition figure behind a ratio metric this frame defines; nullopt for others.
  virtual std::optional<repetition_series> series(const std::string& metric) const = 0;
  // Adds the figures the seed claims read of this part (model/claim_figures.hpp), if any.
  virtual void add_claim_figures(claim_figures& into) const = 0;
};

namespace detail {
template <class T, class = void>
struct has_series : std::false_type {};
template <class T>
struct has_series<T, std::void_t<decltype(std::declval<const T&>().series(std::string()))>>
    : std::true_type {};
template <class T, class = void>
struct has_claim_figures : std::false_type {};
template <class T>
struct has_claim_figures<T, std::void_t<decltype(std::declval<const T&>().add_claim_figures(
                                std::declval<claim_figures&>()))>> : std::true_type {};
}  // namespace detail

template <class T>
class part_of final : public frame_part {
 public:
  explicit part_of(T v) : value(std::move(v)) {}
  void write(json& object) const override { write_fields(value, object); }
  std::unique_ptr<frame_part> clone() const override { return std::make_unique<part_of>(value); }
  std::optional<repetition_series> series(const std::string& metric) const override {
    if constexpr (detail::has_series<T>::value)
      return value.series(metric);
    else
      return std::nullopt;
  }
  void add_claim_figures(claim_figures& into) const override {
    if constexpr (detail::has_claim_figures<T>::value) value.add_claim_figures(into);
  }
  T value;
};

// One frame's part, or none. Copies are deep.
class figures {
 public:
  figures() = default;
  figures(const figures& other) : part_(other.part_ ? other.part_->clone() : nullptr) {}
  figures& operator=(const figures& other) {
    part_ = other.part_ ? other.part_->clone() : nullptr;
    return *this;
  }
  figures(figures&&) noexcept = default;
  figures& operator=(figures&&) noexcept = default;

  template <class T>
  static figures of(T value) {
    figures f;
    f.part_ = std::make_unique<part_of<T>>(std::move(value));
    return f;
  }
  template <class T>
  const T* as() const {
    const auto* p = dynamic_cast<const part_of<T>*>(part_.get());
    return p == nullptr ? nullptr : &p->value;
  }
  template <class T>
  T* as() {
    auto* p = dynamic_cast<part_of<T>*>(part_.get());
    return p == nullptr ? nullptr : &p->value;
  }
  explicit operator bool() const { return part_ != nullptr; }
  void write(json& object) const {
    if (part_) part_->write(object);
  }
  std::optional<repetition_series> series(const std::string& metric) const {
    return part_ ? part_->series(metric) : std::nullopt;
  }
  void add_claim_figures(claim_figures& into) const {
    if (part_) part_->add_claim_figures(into);
  }

 private:
  std::unique_ptr<frame_part> part_;
};

// The parts of several frames at one place (the config, the document).
struct frame_parts {
  std::vector<figures> all;

  template <class T>
  const T* get() const {
    for (const figures& f : all)
      if (const T* p = f.as<T>()) return p;
    return nullptr;
  }
  template <class T>
  T& set(T value) {
    for (figures& f : all)
      if (T* p = f.as<T>()) return *p = std::move(value);
    all.push_back(figures::of(std::move(value)));
    return *all.back().as<T>();
  }
  void write(json& object) const {
    for (const figures& f : all) f.write(object);
  }
  void add_claim_figures(claim_figures& into) const {
    for (const figures& f : all) f.add_claim_figures(into);
  }
};

// What the claims read of the part(s) at one place (model/claim_figures.hpp).
template <class Parts>
claim_figures claim_figures_of(const Parts& parts) {
  claim_figures found;
  parts.add_claim_figures(found);
  return found;
}

// How one frame's part at one place is read back from a results document and described.
struct part_codec {
  // The part, or none when the object has none of its keys (or only nulls, as version 6 files
  // wrote the keys of frames that did not run).
  figures (*read)(const json& object, const std::string& where);
  // Adds the part's properties, and its keys a document must have when the part is there.
  void (*schema)(json& properties, json& required);
  // Adds the part's table at `path` to the docs, as the keys of frame `owner`.
  void (*describe)(doc_sink& sink, const std::string& path, const std::string& owner);
};

// A frame's parts of results.json, one codec per place it has keys at (nullptr: none there).
struct frame_results_parts {
  const part_codec* document = nullptr;  // top-level keys (e.g. the serve section)
  const part_codec* config = nullptr;    // keys of `config` (e.g. the heap sizes)
  const part_codec* workload = nullptr;  // keys of each of its workloads
  const part_codec* cell = nullptr;      // keys of each of its workloads' cells
};

// What the model needs of a frame: its parts, under the name results.json gives the frame.
struct frame_codecs {
  const char* name = "";
  frame_results_parts results_parts;
};
// Every frame's codecs, in table order. main/frame_registry.cpp, which alone knows the frames,
// defines it from their rows, so the model reads a frame's keys without reaching into frames/.
const std::vector<frame_codecs>& frame_codec_table();

template <class T>
const part_codec& part_codec_of() {
  static const part_codec codec{
      [](const json& object, const std::string& where) {
        bool present = false;
        for (const std::string& key : field_names<T>())
          present = present || (object.contains(key) && !object.at(key).is_null());
        if (!present) return figures();
        T value{};
        read_fields(object, value, where);
        return figures::of(std::move(value));
      },
      [](json& properties, json& required) {
        const detail::field_schema s = fields_schema<T>();
        for (const auto& [key, value] : s.properties.items()) properties[key] = value;
        for (const auto& key : s.required) required.push_back(key);
      },
      [](doc_sink& sink, const std::string& path, const std::string& owner) {
        describe_fields<T>(sink, path, typeid(T).name(), owner);
      }};
  return codec;
}

}  // namespace alloclab::lab::model
