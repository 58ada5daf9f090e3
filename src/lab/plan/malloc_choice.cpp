#include "plan/malloc_choice.hpp"

#include "plan/malloc_missing.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "mallocs/preload_check.hpp"
#include "plan/request.hpp"
#include "process/hooks.hpp"

namespace alloclab::lab {
namespace {

bool looks_like_path(std::string_view name) {
  return name.find('/') != std::string_view::npos || name.find(".so") != std::string_view::npos;
}

malloc_choice registry_choice(const mallocs::malloc_entry& e, bool named) {
  malloc_choice c;
  c.label = std::string(e.name);
  c.argument = c.label;
  c.entry = &e;
  c.named = named;
  c.missing = malloc_missing_reason(e);
  return c;
}

}  // namespace

std::string malloc_missing_reason(const mallocs::malloc_entry& e) {
  if (malloc_hidden(e.name))
    return fmt::format("{}: not installed (hidden by a test hook)", e.name);
  return mallocs::installed(e) ? std::string() : mallocs::not_installed_reason(e);
}

bool malloc_choice::plain_glibc() const {
  return entry != nullptr && entry->name == native_malloc && knobs.empty();
}

std::string malloc_choice::registry_name() const {
  return entry != nullptr ? std::string(entry->name) : std::string(mallocs::custom_malloc_name);
}

mallocs::variant malloc_choice::knob_variant() const {
  return {registry_name(), knobs};
}

std::vector<mallocs::variant> parse_knob_variants(const std::string& text) {
  if (text.empty()) return {};
  try {
    return mallocs::parse_variants(text);
  } catch (const mallocs::variant_error& e) {
    throw usage_error(e.what());
  }
}

std::vector<malloc_choice> add_knob_variants(std::vector<malloc_choice> chosen,
                                             std::vector<mallocs::variant> variants) {
  for (mallocs::variant& v : variants) {
    const auto base = std::find_if(chosen.begin(), chosen.end(), [&v](const malloc_choice& c) {
      return c.entry != nullptr && c.label == v.malloc;
    });
    if (base == chosen.end())
      throw usage_error("--variants '" + v.label() + "' names " + v.malloc +
                        ", which --malloc does not include");
    malloc_choice c = *base;
    c.label = v.label();
    c.knobs = std::move(v.settings);
    auto after = base + 1;
    while (after != chosen.end() && after->entry == base->entry && !after->knobs.empty()) ++after;
    chosen.insert(after, std::move(c));
  }
  return chosen;
}

std::vector<malloc_choice> resolve_mallocs(const std::vector<std::string>& requested,
                                           bool sanitized) {
  if (requested.empty()) return {registry_choice(*mallocs::find_malloc(native_malloc), true)};
  bool all = false;
  std::vector<std::string> named;
  std::vector<mallocs::preload_check> custom;
  for (const std::string& name : requested) {
    if (name == "all") {
      all = true;
    } else if (mallocs::find_malloc(name) != nullptr) {
      named.push_back(name);
    } else if (looks_like_path(name)) {
      mallocs::preload_check check = mallocs::validate_preload(name);
      if (!check.ok) throw usage_error(fmt::format("--malloc {}: {}", name, check.error));
      custom.push_back(std::move(check));
    } else {
      throw usage_error(
          fmt::format("unknown malloc '{}'; valid mallocs: {}, all, or a path to a malloc "
                      "library (.so)",
                      name, fmt::join(mallocs::malloc_names(), ", ")));
    }
  }
  if (sanitized) {
    const bool only_glibc =
        !all && custom.empty() &&
        std::all_of(named.begin(), named.end(), [](auto& n) { return n == native_malloc; });
    if (!only_glibc)
      throw usage_error(
          "this is a sanitizer build: AddressSanitizer owns malloc, so no other allocator or "
          "glibc tuning can be measured; use --malloc glibc or a release build");
  }
  std::vector<malloc_choice> chosen;
  for (const mallocs::malloc_entry& e : mallocs::malloc_registry()) {
    const bool is_named = std::find(named.begin(), named.end(), e.name) != named.end();
    if (is_named || all) chosen.push_back(registry_choice(e, is_named));
  }
  for (const mallocs::preload_check& check : custom) {
    malloc_choice c;
    c.label = "custom:" + std::filesystem::path(check.path).filename().string();
    c.argument = check.path;
    c.preload_path = check.path;
    if (std::none_of(chosen.begin(), chosen.end(), [&](auto& o) { return o.label == c.label; }))
      chosen.push_back(std::move(c));
  }
  return chosen;
}

mallocs::worker_env environment_for(const malloc_choice& choice) {
  mallocs::worker_env env = choice.custom()
                                ? mallocs::custom_worker_environment(choice.preload_path)
                                : mallocs::worker_environment(*choice.entry);
  if (choice.knobs.empty()) return env;
  // No knob is inherited from the parent: every knob variable goes, then the variant's are set.
  for (const std::string& name : mallocs::knob_variables())
    if (std::find(env.unset.begin(), env.unset.end(), name) == env.unset.end())
      env.unset.push_back(name);
  for (const auto& [name, value] : mallocs::knob_environment(choice.knob_variant())) {
    env.unset.erase(std::remove(env.unset.begin(), env.unset.end(), name), env.unset.end());
    env.set.emplace_back(name, value);
  }
  return env;
}

mallocs::live_allocator prove_choice(const malloc_choice& choice) {
  return choice.custom() ? mallocs::prove_live_custom(choice.preload_path)
                         : mallocs::prove_live(*choice.entry);
}

}  // namespace alloclab::lab
