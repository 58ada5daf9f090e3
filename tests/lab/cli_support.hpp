// Shared by the tests that drive the built `alloclab` binary (ALLOCLAB_BINARY): a scratch
// directory per test and a way to run the binary with arguments and environment.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace alloclab::lab::cli_support {

namespace fs = std::filesystem;

struct outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The binary under test: ALLOCLAB_TEST_BINARY overrides the one built with the tests, so a
// defect test can be shown failing against an older build.
inline std::string binary() {
  const char* other = std::getenv("ALLOCLAB_TEST_BINARY");
  return other != nullptr ? other : ALLOCLAB_BINARY;
}

// `alloclab` with test hooks (tests/support/hooked_alloclab.cpp): reads ALLOCLAB_TEST_WORKER_FAULT,
// ALLOCLAB_TEST_HIDE_MALLOC and ALLOCLAB_TEST_PRETEND_DEBUG, which the production binary ignores.
inline std::string hooked_binary() {
  return ALLOCLAB_HOOKED_BINARY;
}

// The hooked binary when `environment` sets a test hook, else the binary under test.
inline std::string binary_for(const std::string& environment) {
  const bool hooked = environment.find("ALLOCLAB_TEST_WORKER_FAULT=") != std::string::npos ||
                      environment.find("ALLOCLAB_TEST_HIDE_MALLOC=") != std::string::npos ||
                      environment.find("ALLOCLAB_TEST_PRETEND_DEBUG=") != std::string::npos;
  return hooked ? hooked_binary() : binary();
}

// A fresh directory per test (dir_), removed afterwards even if a test took its permissions.
class binary_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("alloclab_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, ignored);
    fs::remove_all(dir_);
  }

  // Runs the binary with `args` (shell words, no quoting needed) and `environment` (NAME=value
  // words; the hooked binary when they set a test hook), never under an inherited LD_PRELOAD.
  outcome run(const std::string& args, const std::string& environment = "") const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string command = "env -u LD_PRELOAD " + environment + " '" +
                                binary_for(environment) + "' " + args + " >'" + out.string() +
                                "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    outcome o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.out = read_file(out);
    o.err = read_file(err);
    return o;
  }

  fs::path dir_;
};

}  // namespace alloclab::lab::cli_support
