#include "process/worker.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "../support/scoped_env.hpp"
#include "child.hpp"

using namespace alloclab::process;
using heap_test::run_child;

TEST(Worker, AbortingChildBecomesAFailedRecordWithItsStderr) {
  const worker_outcome o = run_child("abort");
  EXPECT_TRUE(o.started);
  EXPECT_FALSE(o.succeeded());
  EXPECT_FALSE(o.exited);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.term_signal, SIGABRT);
  EXPECT_NE(o.stderr_tail.find("about to abort on purpose"), std::string::npos) << o.stderr_tail;
  EXPECT_NE(o.describe().find("SIGABRT"), std::string::npos) << o.describe();
}

TEST(Worker, ChildPastTheTimeoutIsKilled) {
  const worker_outcome o = run_child("sleep", {}, {}, std::chrono::milliseconds(300));
  EXPECT_TRUE(o.started);
  EXPECT_TRUE(o.timed_out);
  EXPECT_FALSE(o.succeeded());
  EXPECT_EQ(o.term_signal, SIGKILL);
  EXPECT_LT(o.wall_seconds, 10.0);
  EXPECT_NE(o.describe().find("timed out"), std::string::npos) << o.describe();
}

TEST(Worker, CapturesStdoutExitStatusAndOnlyTheStderrTail) {
  const worker_outcome o = run_child("echo", {}, {"hello", "world"});
  EXPECT_TRUE(o.started);
  EXPECT_TRUE(o.exited);
  EXPECT_EQ(o.exit_code, 7);
  EXPECT_FALSE(o.succeeded());
  EXPECT_EQ(o.stdout_text, "hello world\n");
  EXPECT_LE(o.stderr_tail.size(), 4096u);
  EXPECT_GE(o.stderr_tail.size(), 4000u);
  EXPECT_NE(o.stderr_tail.find("END-OF-STDERR"), std::string::npos);
  EXPECT_EQ(o.describe(), "exit status 7");
}

TEST(Worker, EnvironmentIsSetAndUnset) {
  const alloclab::test::scoped_env from_parent("ALLOCLAB_HEAP_TEST_VAR", "from-parent");
  const worker_outcome inherited = run_child("env:ALLOCLAB_HEAP_TEST_VAR");
  const worker_outcome overridden =
      run_child("env:ALLOCLAB_HEAP_TEST_VAR", {{"ALLOCLAB_HEAP_TEST_VAR", "from-request"}});
  const worker_outcome removed = run_child("env:ALLOCLAB_HEAP_TEST_VAR", {}, {},
                                           std::chrono::seconds(60), {"ALLOCLAB_HEAP_TEST_VAR"});
  EXPECT_EQ(inherited.stdout_text, "from-parent\n");
  EXPECT_EQ(overridden.stdout_text, "from-request\n");
  EXPECT_EQ(removed.stdout_text, "<unset>\n");
}

TEST(Worker, MissingProgramIsReportedNotThrown) {
  worker_request req;
  req.argv = {"/nonexistent/alloclab-worker"};
  const worker_outcome o = run_worker(req);
  EXPECT_FALSE(o.started);
  EXPECT_FALSE(o.succeeded());
  EXPECT_NE(o.error.find("No such file"), std::string::npos) << o.error;
  EXPECT_NE(o.describe().find("failed to start"), std::string::npos);
  const worker_outcome empty = run_worker(worker_request{});
  EXPECT_FALSE(empty.started);
}
