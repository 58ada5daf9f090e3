// An environment variable a test sets (or removes) for one scope, given back as it was after it:
// the value it had, or unset if it had none, even when the test fails or throws. Tests in one
// process then see the same environment whatever order they run in.
//
//   {
//     const alloclab::test::scoped_env path("PATH", "/nonexistent");
//     ...                      // PATH is /nonexistent
//   }                          // PATH is what it was
//   const alloclab::test::scoped_env gone("LD_PRELOAD", std::nullopt);  // unset for the scope
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace alloclab::test {

class scoped_env {
 public:
  // Sets `name` to `value`, or unsets it when `value` is nullopt.
  scoped_env(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* before = std::getenv(name_.c_str())) before_ = before;
    apply(value);
  }
  ~scoped_env() { apply(before_); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  void apply(const std::optional<std::string>& value) const {
    if (value)
      ::setenv(name_.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

  std::string name_;
  std::optional<std::string> before_;
};

}  // namespace alloclab::test
