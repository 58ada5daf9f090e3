#include "frames/heap/kernels.hpp"

#include "text/enum_names.hpp"

#include <stdexcept>

namespace alloclab::heap {

namespace {
constexpr lab::enum_names<kernel_kind, 3> kernel_names{
    {{kernel_kind::fifo, "fifo"}, {kernel_kind::lifo, "lifo"}, {kernel_kind::xthread, "xthread"}}};
constexpr lab::enum_names<touch_mode, 2> touch_names{
    {{touch_mode::once, "once"}, {touch_mode::every_page, "every_page"}}};
}  // namespace

std::string_view to_string(kernel_kind k) noexcept {
  return lab::name_in(kernel_names, k);
}

std::optional<kernel_kind> parse_kernel_kind(std::string_view name) noexcept {
  return lab::value_in(kernel_names, name);
}

const std::vector<kernel_kind>& all_kernel_kinds() {
  static const std::vector<kernel_kind> all = lab::values_in(kernel_names);
  return all;
}

std::string_view to_string(touch_mode t) noexcept {
  return lab::name_in(touch_names, t);
}

std::optional<touch_mode> parse_touch_mode(std::string_view name) noexcept {
  return lab::value_in(touch_names, name);
}

const std::vector<touch_mode>& all_touch_modes() {
  static const std::vector<touch_mode> all = lab::values_in(touch_names);
  return all;
}

void validate_kernel_args(const std::vector<std::uint32_t>& sizes, const kernel_config& cfg) {
  if (sizes.empty()) throw std::invalid_argument("heap kernel: no sizes given");
  if (cfg.batch == 0) throw std::invalid_argument("heap kernel: batch must be > 0");
  if (cfg.capacity < cfg.batch) {
    throw std::invalid_argument("heap kernel: capacity must be >= batch");
  }
  if (cfg.touch_stride == 0) throw std::invalid_argument("heap kernel: touch_stride must be > 0");
  for (std::uint32_t n : sizes) {
    if (n == 0) throw std::invalid_argument("heap kernel: zero-byte size");
  }
}

double ns_per_pair(double t_alloc_ns, double t_noop_ns, std::uint64_t pairs) {
  if (pairs == 0) throw std::invalid_argument("ns_per_pair: pairs must be > 0");
  return (t_alloc_ns - t_noop_ns) / static_cast<double>(pairs);
}

}  // namespace alloclab::heap
