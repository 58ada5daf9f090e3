#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <gtest/gtest.h>

#include "io/atomic_write.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"
#include "render/run_directory.hpp"
#include "report_fixture.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("alloclab_atomic_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

TEST_F(AtomicWrite, WritesAndReplacesWithoutLeavingTemporaries) {
  write_file_atomically(dir_ / "results.json", "first");
  write_file_atomically(dir_ / "results.json", "second, longer content");
  EXPECT_EQ(read(dir_ / "results.json"), "second, longer content");
  EXPECT_EQ(entries(), 1u);
}

// A write that fails half-way (file size limit: works as root too) must leave
// the previous results untouched and no temporary behind.
TEST_F(AtomicWrite, FailureLeavesTheOldFileIntact) {
  write_file_atomically(dir_ / "results.json", "old");
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit tiny = saved;
  tiny.rlim_cur = 8;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &tiny), 0);
  EXPECT_THROW(write_file_atomically(dir_ / "results.json", std::string(4096, 'n')),
               std::system_error);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_EQ(read(dir_ / "results.json"), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicWrite, MissingDirectoryThrows) {
  EXPECT_THROW(write_file_atomically(dir_ / "no" / "such" / "file", "x"), std::system_error);
}

TEST_F(AtomicWrite, SymlinkIsRepointed) {
  fs::create_directories(dir_ / "run1");
  fs::create_directories(dir_ / "run2");
  replace_symlink_atomically(dir_ / "latest", "run1");
  replace_symlink_atomically(dir_ / "latest", "run2");
  EXPECT_EQ(fs::read_symlink(dir_ / "latest"), fs::path("run2"));
}

TEST_F(AtomicWrite, WritableDirectoryCheck) {
  EXPECT_NO_THROW(ensure_writable_directory(dir_ / "created" / "nested"));
  EXPECT_TRUE(fs::is_directory(dir_ / "created" / "nested"));
  write_file_atomically(dir_ / "plain_file", "x");
  EXPECT_THROW(ensure_writable_directory(dir_ / "plain_file"), std::system_error);
}

// Output never destroys what it cannot replace atomically: a write through a symlink lands in
// its target and the link stays; a fifo (like a device node, which a rename would replace with a
// regular file) or a directory is refused and left as it was.
TEST_F(AtomicWrite, WritesThroughSymlinksToTheirTarget) {
  fs::create_directories(dir_ / "elsewhere");
  write_file_atomically(dir_ / "elsewhere" / "report.md", "old");
  fs::create_symlink("elsewhere/report.md", dir_ / "link.md");
  fs::create_symlink("link.md", dir_ / "link-to-link.md");
  write_file_atomically(dir_ / "link-to-link.md", "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.md")));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link-to-link.md")));
  EXPECT_EQ(read(dir_ / "elsewhere" / "report.md"), "new");
  EXPECT_EQ(checked_output_file(dir_ / "link.md"), dir_ / "elsewhere/report.md");
  // A dangling link is written through too: its target is created.
  fs::create_symlink("elsewhere/fresh.md", dir_ / "dangling.md");
  write_file_atomically(dir_ / "dangling.md", "fresh");
  EXPECT_EQ(read(dir_ / "elsewhere" / "fresh.md"), "fresh");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "dangling.md")));
}

TEST_F(AtomicWrite, RefusesWhatARenameWouldDestroy) {
  ASSERT_EQ(::mkfifo((dir_ / "pipe").c_str(), 0600), 0);
  fs::create_symlink("pipe", dir_ / "link-to-pipe");
  fs::create_directories(dir_ / "a_directory");
  for (const char* name : {"pipe", "link-to-pipe", "a_directory"}) {
    try {
      write_file_atomically(dir_ / name, "x");
      ADD_FAILURE() << name << " was written";
    } catch (const std::system_error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(dir_ / "pipe")));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link-to-pipe")));
  EXPECT_TRUE(fs::is_directory(dir_ / "a_directory"));
  EXPECT_THROW(checked_output_file(dir_ / "no-such-dir" / "x"), std::system_error);
  EXPECT_THROW(checked_output_file(""), std::system_error);
  fs::create_symlink("loop-b", dir_ / "loop-a");
  fs::create_symlink("loop-a", dir_ / "loop-b");
  EXPECT_THROW(checked_output_file(dir_ / "loop-a"), std::system_error);
}

TEST_F(AtomicWrite, TheLatestLinkNeverReplacesAFile) {
  write_file_atomically(dir_ / "latest", "a user's file");
  EXPECT_THROW(replace_symlink_atomically(dir_ / "latest", "run1"), std::system_error);
  EXPECT_EQ(read(dir_ / "latest"), "a user's file");
}

// The one run-directory writer: results.json as model::to_json writes the document, the reports
// rendered from the document, which are what `alloclab report` renders from the file written;
// `run`'s fresh directory under the root with `latest` after it; a directory it could not write
// whole says whether results.json is.
TEST_F(AtomicWrite, RunDirectoryHoldsTheResultsAndTheirReports) {
  const model::document results = model::from_json(report_fixture::results());
  const std::string written = model::to_json(results).dump(2) + "\n";
  const fs::path given = write_run_directory(dir_ / "given", results, {"shard.json", "{}"});
  EXPECT_EQ(given, dir_ / "given");
  EXPECT_EQ(read(given / "results.json"), written);
  EXPECT_EQ(read(given / "shard.json"), "{}");
  const nlohmann::json file = nlohmann::json::parse(read(given / "results.json"));
  EXPECT_EQ(read(given / "report.md"), render_report(model::from_json(file)));
  EXPECT_EQ(read(given / "report.html"), render_html_report(file));
  EXPECT_FALSE(fs::exists(dir_ / "latest")) << "a given directory gets no link";

  const fs::path fresh =
      write_run_directory(dir_, results, {}, run_directory_place::fresh_under_root);
  EXPECT_EQ(fresh.parent_path(), dir_);
  EXPECT_EQ(fs::read_symlink(dir_ / "latest"), fresh.filename());
  EXPECT_EQ(read(dir_ / "latest" / "results.json"), written);

  fs::create_directories(dir_ / "blocked" / "report.md");  // a directory where report.md goes
  try {
    write_run_directory(dir_ / "blocked", results);
    ADD_FAILURE() << "wrote over a directory";
  } catch (const run_directory_error& e) {
    EXPECT_NE(std::string(e.what()).find("is whole: `alloclab report` re-renders from it"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace alloclab::lab
