// Exception-injection over the standard pmr containers on every alloclab
// resource: allocation 1, 2, 3, ... fails in turn; nothing may leak, nothing
// may crash, and the container must be valid after each failure.
//
// Test plan:
//   every resource (direct, arena, pool, tracking, limit, checked)
//   x every container (vector, string, map, unordered_map, list, deque)
//     -> container_exception_safety.no_leak_no_crash_valid_after_every_failure
//   The "valid after a failure" checks compare against values built on a
//   resource that never fails, and the test counts them: every check that
//   starts must complete, or it proved nothing.
#include <alloclab/alloclab.hpp>

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

using namespace alloclab;

// The resource under test, built on top of the failing resource.
struct resource_holder {
  virtual ~resource_holder() = default;
  virtual std::pmr::memory_resource& get() = 0;
};

template <class Resource>
struct simple_holder : resource_holder {
  Resource resource;
  template <class... Args>
  explicit simple_holder(Args&&... args) : resource(std::forward<Args>(args)...) {}
  std::pmr::memory_resource& get() override { return resource; }
};

struct arena_holder : resource_holder {
  alignas(std::max_align_t) std::byte buffer[256];  // small: growth reaches the failing upstream
  arena_resource arena;
  explicit arena_holder(std::pmr::memory_resource& upstream)
      : arena(buffer, sizeof buffer, &upstream) {}
  std::pmr::memory_resource& get() override { return arena; }
};

struct passthrough_holder : resource_holder {
  std::pmr::memory_resource* upstream;
  explicit passthrough_holder(std::pmr::memory_resource& u) : upstream(&u) {}
  std::pmr::memory_resource& get() override { return *upstream; }
};

using holder_factory = std::function<std::unique_ptr<resource_holder>(std::pmr::memory_resource&)>;

struct named_factory {
  const char* name;
  holder_factory make;
};

const named_factory resources[] = {
    {"direct", [](auto& u) { return std::make_unique<passthrough_holder>(u); }},
    {"arena", [](auto& u) { return std::make_unique<arena_holder>(u); }},
    {"pool", [](auto& u) { return std::make_unique<simple_holder<pool_resource>>(48, &u); }},
    {"multipool", [](auto& u) { return std::make_unique<simple_holder<multipool_resource>>(&u); }},
    {"concurrent_multipool",
     [](auto& u) { return std::make_unique<simple_holder<concurrent_multipool_resource>>(&u); }},
    {"synchronized",
     [](auto& u) { return std::make_unique<simple_holder<synchronized_resource<>>>(&u); }},
    {"tracking", [](auto& u) { return std::make_unique<simple_holder<tracking_resource>>(&u); }},
    {"limit",
     [](auto& u) {
       return std::make_unique<simple_holder<limit_resource>>(&u, allocation_limits{});
     }},
    {"checked", [](auto& u) { return std::make_unique<simple_holder<checked_resource>>(&u); }},
};

std::pmr::string long_text(int i, std::pmr::memory_resource* r) {
  return std::pmr::string("an element long enough to leave SSO behind, number " + std::to_string(i),
                          r);
}

// What element i must hold, built on a resource that never fails, so a
// check after a failure compares instead of failing again itself.
std::pmr::string expected_text(int i) {
  return long_text(i, std::pmr::new_delete_resource());
}

constexpr int element_count = 24;

// Counts the "valid after a failure" checks, so the test can prove they ran.
struct failure_check_counts {
  std::size_t started = 0;
  std::size_t completed = 0;
} after_failure;

template <class Valid>
bool valid_after_failure(Valid&& valid) {
  ++after_failure.started;
  const bool ok = valid();
  ++after_failure.completed;
  return ok;
}

// Each scenario fills a container until an injected failure interrupts it and
// checks that what is there is a valid prefix of what was asked for.
bool vector_scenario(std::pmr::memory_resource& r) {
  std::pmr::vector<std::pmr::string> c{&r};
  auto valid = [&] {
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c[i] != expected_text(static_cast<int>(i))) return false;
    }
    return true;
  };
  try {
    for (int i = 0; i < element_count; ++i) c.push_back(long_text(i, &r));
  } catch (const std::bad_alloc&) {
    if (!valid_after_failure(valid)) return false;
    throw;
  }
  return valid() && c.size() == element_count;
}

bool string_scenario(std::pmr::memory_resource& r) {
  std::pmr::string c{&r};
  auto valid = [&] { return c.find_first_not_of('x') == std::pmr::string::npos; };
  try {
    for (int i = 0; i < 40; ++i) c.append(17, 'x');
  } catch (const std::bad_alloc&) {
    if (!valid_after_failure(valid)) return false;
    throw;
  }
  return valid() && c.size() == 40 * 17;
}

template <class Map>
bool map_scenario(std::pmr::memory_resource& r) {
  Map c{&r};
  auto valid = [&] {
    std::size_t seen = 0;
    for (const auto& [key, value] : c) {
      if (value != expected_text(key)) return false;
      ++seen;
    }
    return seen == c.size();
  };
  try {
    for (int i = 0; i < element_count; ++i) c.emplace(i, long_text(i, &r));
  } catch (const std::bad_alloc&) {
    if (!valid_after_failure(valid)) return false;
    throw;
  }
  return valid() && c.size() == element_count;
}

bool list_scenario(std::pmr::memory_resource& r) {
  std::pmr::list<std::pmr::string> c{&r};
  auto valid = [&] {
    int i = 0;
    for (const auto& value : c) {
      if (value != expected_text(i++)) return false;
    }
    return static_cast<std::size_t>(i) == c.size();
  };
  try {
    for (int i = 0; i < element_count; ++i) c.push_back(long_text(i, &r));
  } catch (const std::bad_alloc&) {
    if (!valid_after_failure(valid)) return false;
    throw;
  }
  return valid() && c.size() == element_count;
}

bool deque_scenario(std::pmr::memory_resource& r) {
  std::pmr::deque<int> c{&r};
  auto valid = [&] {
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c[i] != static_cast<int>(i)) return false;
    }
    return true;
  };
  try {
    for (int i = 0; i < 2000; ++i) c.push_back(i);
  } catch (const std::bad_alloc&) {
    if (!valid_after_failure(valid)) return false;
    throw;
  }
  return valid() && c.size() == 2000;
}

struct named_scenario {
  const char* name;
  std::function<bool(std::pmr::memory_resource&)> run;
};

const named_scenario scenarios[] = {
    {"vector", vector_scenario},
    {"string", string_scenario},
    {"map", map_scenario<std::pmr::map<int, std::pmr::string>>},
    {"unordered_map", map_scenario<std::pmr::unordered_map<int, std::pmr::string>>},
    {"list", list_scenario},
    {"deque", deque_scenario},
};

class container_exception_safety : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(container_exception_safety, no_leak_no_crash_valid_after_every_failure) {
  const named_factory& resource = resources[std::get<0>(GetParam())];
  const named_scenario& scenario = scenarios[std::get<1>(GetParam())];
  std::size_t invalid_after_failure = 0;
  after_failure = {};
  const exception_test_report report = run_exception_test([&](std::pmr::memory_resource& failing) {
    const std::unique_ptr<resource_holder> holder = resource.make(failing);
    if (!scenario.run(holder->get())) ++invalid_after_failure;
  });
  EXPECT_TRUE(report.passed()) << report.failure;
  EXPECT_EQ(invalid_after_failure, 0u);
  EXPECT_GT(report.injected_failures, 0u) << "no allocation ever reached the failing resource";
  EXPECT_GT(after_failure.started, 0u);
  EXPECT_EQ(after_failure.completed, after_failure.started)
      << "checks after a failure that threw before comparing anything";
}

INSTANTIATE_TEST_SUITE_P(
    all, container_exception_safety,
    ::testing::Combine(::testing::Range(0, static_cast<int>(std::size(resources))),
                       ::testing::Range(0, static_cast<int>(std::size(scenarios)))),
    [](const ::testing::TestParamInfo<std::tuple<int, int>>& param_info) {
      return std::string(resources[std::get<0>(param_info.param)].name) + "_" +
             scenarios[std::get<1>(param_info.param)].name;
    });

}  // namespace
