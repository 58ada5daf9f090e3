#include "process/hooks.hpp"

#include <utility>

namespace alloclab::lab {
namespace {

process_hooks& installed() {
  static process_hooks hooks;
  return hooks;
}

}  // namespace

void install_process_hooks(process_hooks hooks) {
  installed() = std::move(hooks);
}

void before_measuring(const std::string& cell_id) {
  if (installed().before_measuring) installed().before_measuring(cell_id);
}

bool aborts_under_load(const std::string& cell_id) {
  return installed().aborts_under_load && installed().aborts_under_load(cell_id);
}

bool malloc_hidden(std::string_view malloc_name) {
  return installed().malloc_hidden && installed().malloc_hidden(malloc_name);
}

bool pretend_debug() {
  return installed().pretend_debug && installed().pretend_debug();
}

}  // namespace alloclab::lab
