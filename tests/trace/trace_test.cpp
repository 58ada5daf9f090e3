// Tests of `alloclab record`, the trace reader, `alloclab trace info` and the replay engine.
//
// Test plan (public member -> test):
//   format.hpp put_varint / get_varint / zigzag / unzigzag -> Codec.*
//   record::block_table insert / take / find / take_foreign / find_foreign -> BlockTable.*
//                                                   (threads: tests/record, BlockTableThreads.*)
//   record: exact events of known threads, realloc, memalign family, cross-thread frees
//                                                   -> Recorder.KnownProgramGivesExactCounts
//   record: random cross-thread frees end with the program's live set
//                                                   -> Recorder.RandomCrossThreadProgramEndsWithItsLiveSet
//   record: frees after a thread's end leave no stale entries
//                                                   -> Recorder.FreesAfterAThreadEndedDoNotShadowReusedAddresses
//   record: fork child not recorded                 -> Recorder.ForkedChildIsNotRecorded
//   record --follow-fork: one trace per forked process, listed by trace info
//                                                   -> Recorder.FollowForkGivesEachForkedProcessItsOwnTrace
//   record --no-follow-exec: exec'd descendants not recorded
//                                                   -> Recorder.ExecedDescendantsAreNotRecorded
//   record (follow-exec): one trace per image, listed by trace info
//                                                   -> Recorder.ExecedDescendantsGetTheirOwnTraces,
//                                                      Recorder.ExecReplacingTheProgramIsFollowed
//   record: killed program -> readable, truncated   -> Recorder.KilledProgramLeavesTruncatedTrace
//   record --help: no "{false}" on a negated flag  -> Recorder.HelpShowsTheFollowDefaultsAsTheyAre
//   record: missing / static program -> exit 2      -> Recorder.RefusesMissingAndStaticPrograms
//   record -o: the program itself, a device, fifo or directory -> exit 2 before running it;
//              a symlink is followed; an old trace survives a failed preload
//                                                   -> RecordOutput.*
//   record: program aborted -> flushed, told, 128+N -> Recorder.AbortedProgramIsFlushedAndTold
//   record: program ends itself by SIGINT -> flushed -> Recorder.ProgramEndingItselfWithSigintIsFlushed
//   record: trace write fails (ulimit -f) -> exit 1 -> Recorder.TraceWriteFailureIsToldAndNonZero
//   record: SIGTERM is forwarded, no orphan         -> Recorder.SigtermIsForwardedToTheProgram
//   record: exec'd images are counted and told      -> Recorder.UnrecordedImagesAreTold
//   record's process loads no serve-frame library; other commands reach the full lab
//                                                   -> Recorder.RecordLoadsNoLibraryOfTheServeFrame,
//                                                      Recorder.OtherCommandsAndRecordsUsageGoToTheFullLab
//   trace info: directory, stdout full, truncated   -> Info.*
//   trace_file: damaged, newer, foreign input, random damage and random events -> Reader.*
//   summarize / render_summary                      -> Info.*
//   replay_trace: counts, live-byte curve, peak     -> Replay.*
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <memory>
#include <random>
#include <unordered_map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lab/cli_support.hpp"
#include "record/block_table.hpp"
#include "trace/format.hpp"
#include "trace/replay.hpp"
#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::trace {
namespace {

namespace fs = std::filesystem;
namespace tf = alloclab::trace_format;
using lab::cli_support::outcome;
using lab::cli_support::read_file;

// ---- the codec ----

TEST(Codec, VarintsRoundTripAtEveryLength) {
  for (const std::uint64_t v :
       {0ull, 1ull, 127ull, 128ull, 16383ull, 16384ull, 1ull << 35, ~0ull}) {
    std::uint8_t buffer[10];
    std::uint8_t* end = tf::put_varint(buffer, v);
    const std::uint8_t* in = buffer;
    std::uint64_t back = 0;
    ASSERT_TRUE(tf::get_varint(in, end, back)) << v;
    EXPECT_EQ(back, v);
    EXPECT_EQ(in, end);
    in = buffer;
    if (end - buffer > 1) {
      EXPECT_FALSE(tf::get_varint(in, end - 1, back)) << "cut short " << v;
    }
  }
}

TEST(Codec, ZigzagKeepsSmallDeltasSmall) {
  EXPECT_EQ(tf::zigzag(100, 100), 0u);
  EXPECT_EQ(tf::zigzag(101, 100), 2u);
  EXPECT_EQ(tf::zigzag(99, 100), 1u);
  for (const std::uint64_t previous : {0ull, 5ull, ~0ull})
    for (const std::uint64_t value : {0ull, 7ull, 1ull << 40, ~0ull})
      EXPECT_EQ(tf::unzigzag(tf::zigzag(value, previous), previous), value);
}

// ---- the recorder's pointer table, against a model ----

TEST(BlockTable, RandomOperationsMatchAModel) {
  using record::block_table;
  auto table = std::make_unique<block_table>();
  std::unordered_map<std::uintptr_t, std::uint64_t> model;
  std::mt19937_64 random(10);
  // Keys like a heap's: 16-byte aligned, clustered, plus page-aligned ones (shared home slots).
  // Phases of growth and of decline make the table grow, shrink and reuse its tombstones.
  const auto key = [&] {
    return random() % 4 == 0 ? (1 + random() % 4096) << 12 : (1 + random() % 20000) << 4;
  };
  for (int step = 0; step < 400000; ++step) {
    const bool growing = (step / 50000) % 2 == 0;
    const std::uintptr_t k = key();
    const auto expected = [&] {
      const auto it = model.find(k);
      return it == model.end() ? block_table::absent : it->second;
    }();
    switch (random() % 6) {
      case 0:
      case 1:  // malloc returns an address: a live one only after its free
        if (!growing && random() % 2 == 0) break;
        if (expected != block_table::absent) {
          ASSERT_EQ(table->take(k), expected) << step;
        }
        ASSERT_TRUE(table->insert(k, static_cast<std::uint64_t>(step)));
        model[k] = static_cast<std::uint64_t>(step);
        break;
      case 2:  // the owner frees
        ASSERT_EQ(table->take(k), expected) << step;
        model.erase(k);
        break;
      case 3:  // another thread frees
        ASSERT_EQ(table->take_foreign(k), expected) << step;
        model.erase(k);
        break;
      case 4:
        ASSERT_EQ(table->find(k), expected) << step;
        break;
      default:
        ASSERT_EQ(table->find_foreign(k), expected) << step;
    }
    if (step % 10000 == 0) {
      ASSERT_EQ(table->size(), model.size()) << step;
    }
  }
  for (const auto& [k, v] : model) ASSERT_EQ(table->take(k), v);
  EXPECT_EQ(table->size(), 0u);
}

// A free the recorder did not see leaves its block's entry behind; when malloc returns the address
// again, the new entry is found first, and a rebuild drops the old one.
TEST(BlockTable, AKeyInsertedAgainIsFoundNewestFirst) {
  using record::block_table;
  block_table table;
  const std::uintptr_t a = 0x7f00'0000'1000, k = a + 8;  // the same home slot
  ASSERT_TRUE(table.insert(a, 10));
  ASSERT_TRUE(table.insert(k, 1));  // behind `a`
  ASSERT_EQ(table.take(a), 10u);    // a tombstone before `k`
  ASSERT_TRUE(table.insert(k, 2));  // k's free went unseen: k is inserted again
  EXPECT_EQ(table.find(k), 2u);
  EXPECT_EQ(table.take(k), 2u);
  EXPECT_EQ(table.find(k), 1u) << "the older entry comes back";
  ASSERT_TRUE(table.insert(k, 3));
  // Enough other keys to rebuild the table (more than 3/4 of its 256 slots).
  for (std::uintptr_t i = 1; i <= 300; ++i) ASSERT_TRUE(table.insert(0x5000'0000'0000 + 16 * i, i));
  EXPECT_EQ(table.take(k), 3u);
  EXPECT_EQ(table.find(k), block_table::absent) << "the rebuild kept the older entry";
  EXPECT_EQ(table.size(), 300u);
}

// Heap-like key sets must not cluster: a shard index and a home slot drawn from the same address
// bits left 15 of 16 home slots unused, and probes grew to thousands of slots at 300 000 blocks
// (a recorded python3 spent 82 % of its time in the table).
TEST(BlockTable, HeapLikeKeysKeepProbesShort) {
  struct layout {
    const char* name;
    std::uintptr_t base, stride;
  };
  for (const layout& l : {layout{"16-byte blocks", 0x55d0'0000'0000, 16},
                          layout{"48-byte blocks", 0x7f3a'1000'0000, 48},
                          layout{"page-aligned blocks", 0x7f00'0000'0000, 4096},
                          layout{"1 MiB-aligned blocks", 0x7e00'0000'0000, 1 << 20}}) {
    auto table = std::make_unique<record::block_table>();
    for (std::uint64_t i = 0; i < 300'000; ++i)
      ASSERT_TRUE(table->insert(l.base + i * l.stride, i));
    EXPECT_LE(table->longest_probe(), 64u) << l.name;
  }
}

// ---- recording real processes ----

class Recorder : public lab::cli_support::binary_test {
 protected:
  fs::path trace_path() const { return dir_ / "t.trace"; }
  outcome record(const std::string& program_and_args) const {
    return run("record -o '" + trace_path().string() + "' -- " + program_and_args);
  }
};

struct kind_counts {
  std::map<event_kind, std::uint64_t> kinds;
  std::uint64_t cross_frees = 0;
  std::uint64_t os_tid = 0;
};

std::map<std::uint32_t, kind_counts> counts_by_thread(const trace_file& t) {
  std::map<std::uint32_t, kind_counts> counts;
  t.for_each_event([&](const event& e) {
    kind_counts& c = counts[e.thread];
    ++c.kinds[e.kind];
    if (e.kind == event_kind::thread_start) c.os_tid = e.value;
    if (e.kind == event_kind::free && !e.unknown_pointer && block_thread(e.block) != e.thread)
      ++c.cross_frees;
  });
  return counts;
}

std::uint64_t calls_in(const trace_file& t) {
  std::uint64_t calls = 0;
  t.for_each_event([&](const event& e) { calls += e.kind < event_kind::thread_start; });
  return calls;
}

TEST_F(Recorder, KnownProgramGivesExactCounts) {
  const outcome o = record(std::string(TRACE_RECORDED_PROGRAM) + " threads");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::istringstream tids_line(o.out);
  std::string word;
  std::uint64_t tid[4];
  tids_line >> word >> tid[0] >> tid[1] >> tid[2] >> tid[3];
  ASSERT_EQ(word, "tids") << o.out;

  const trace_file t(trace_path().string());
  EXPECT_FALSE(t.truncated());
  std::map<std::uint64_t, kind_counts> by_tid;
  for (const auto& [thread, c] : counts_by_thread(t)) by_tid[c.os_tid] = c;
  using k = event_kind;
  const kind_counts& first = by_tid[tid[0]];
  EXPECT_EQ(first.kinds.at(k::malloc), 100u);
  EXPECT_EQ(first.kinds.at(k::realloc), 55u);  // reallocarray included
  EXPECT_EQ(first.kinds.at(k::memalign), 10u);
  EXPECT_EQ(first.kinds.at(k::posix_memalign), 10u);
  EXPECT_EQ(first.kinds.at(k::aligned_alloc), 10u);
  EXPECT_EQ(first.kinds.at(k::calloc), 5u);
  EXPECT_EQ(first.kinds.at(k::usable_size), 7u);
  EXPECT_EQ(first.kinds.at(k::free), 95u);
  EXPECT_EQ(first.cross_frees, 0u);
  EXPECT_EQ(first.kinds.at(k::thread_start), 1u);
  EXPECT_EQ(first.kinds.at(k::thread_end), 1u);
  const kind_counts& second = by_tid[tid[1]];
  EXPECT_EQ(second.kinds.at(k::free), 50u);
  EXPECT_EQ(second.cross_frees, 40u);
  EXPECT_EQ(second.kinds.at(k::malloc), 10u);
  EXPECT_EQ(by_tid[tid[2]].kinds.at(k::malloc), 1000u);
  EXPECT_EQ(by_tid[tid[2]].kinds.count(k::free), 0u);
  EXPECT_EQ(by_tid[tid[3]].kinds.at(k::free), 1000u);
  EXPECT_EQ(by_tid[tid[3]].cross_frees, 1000u);

  // The recorded sizes and alignments are the program's.
  std::map<std::uint64_t, std::uint64_t> aligned_sizes;
  t.for_each_event([&](const event& e) {
    if (e.kind == k::memalign || e.kind == k::posix_memalign || e.kind == k::aligned_alloc) {
      EXPECT_EQ(e.alignment, 64u);
      ++aligned_sizes[e.value];
    }
  });
  EXPECT_EQ(aligned_sizes, (std::map<std::uint64_t, std::uint64_t>{{32, 10}, {48, 10}, {64, 10}}));

  // The replay runs every worker call (and the main thread's) and ends with what the trace ends.
  const trace_summary s = summarize(t);
  const replay_result r = replay_trace(t);
  EXPECT_EQ(r.calls_by_kind[static_cast<std::size_t>(k::realloc)],
            s.by_kind[static_cast<std::size_t>(k::realloc)]);
  EXPECT_EQ(r.calls_by_kind[static_cast<std::size_t>(k::memalign)], 10u);
  EXPECT_GE(r.calls_by_kind[static_cast<std::size_t>(k::free)], 1145u);
  EXPECT_EQ(r.final_live_bytes, s.final_live_bytes);
  EXPECT_GE(s.cross_thread_frees, 1040u);  // the main thread's C-library frees may add some
}

// Four threads in a ring run random mallocs, reallocs, frees and frees of each other's blocks,
// with the table shared and cross-thread frees racing the owners' own calls: the trace must end
// with exactly the blocks each worker left alive, and name every cross-thread free.
TEST_F(Recorder, RandomCrossThreadProgramEndsWithItsLiveSet) {
  for (const char* seed : {"1", "2", "3"}) {
    SCOPED_TRACE(std::string("seed ") + seed);
    const outcome o = record(std::string(TRACE_RECORDED_PROGRAM) + " random-threads " + seed);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    struct worker_live {
      std::uint64_t blocks = 0, bytes = 0, cross_frees = 0;
      bool operator==(const worker_live& w) const {
        return blocks == w.blocks && bytes == w.bytes && cross_frees == w.cross_frees;
      }
    };
    std::map<std::uint64_t, worker_live> program;  // by OS tid
    std::istringstream lines(o.out);
    std::string word;
    std::uint64_t tid = 0;
    worker_live w;
    while (lines >> word >> tid >> w.blocks >> w.bytes >> w.cross_frees) program[tid] = w;
    ASSERT_EQ(program.size(), 4u) << o.out;

    const trace_file t(trace_path().string());
    ASSERT_FALSE(t.truncated());
    std::map<std::uint32_t, std::uint64_t> tid_of;
    // Block keys are never reused, and in file order a cross-thread free may come before the
    // allocation: the live blocks are those created and never ended, in any order.
    std::map<block_key, std::uint64_t> live;  // block -> size
    std::set<block_key> ended;
    std::map<std::uint32_t, std::uint64_t> cross_frees;
    t.for_each_event([&](const event& e) {
      if (e.kind == event_kind::thread_start) tid_of[e.thread] = e.value;
      if (e.kind == event_kind::realloc && e.old_block != no_block) ended.insert(e.old_block);
      if (e.kind == event_kind::free && !e.unknown_pointer) {
        ended.insert(e.block);
        cross_frees[e.thread] += block_thread(e.block) != e.thread;
      }
      if (creates_block(e.kind)) live[e.block] = e.value;
    });
    for (const block_key b : ended)
      EXPECT_EQ(live.erase(b), 1u) << "a block ended twice or never began";
    std::map<std::uint64_t, worker_live> traced;
    for (const auto& [block, size] : live) {
      const std::uint64_t owner = tid_of[block_thread(block)];
      if (program.count(owner) == 0) continue;  // the main thread's C-library blocks
      ++traced[owner].blocks;
      traced[owner].bytes += size;
    }
    for (const auto& [thread, n] : cross_frees)
      if (program.count(tid_of[thread]) != 0) traced[tid_of[thread]].cross_frees = n;
    for (const auto& [worker, expected] : program) {
      EXPECT_TRUE(traced[worker] == expected)
          << "worker " << worker << ": trace " << traced[worker].blocks << " blocks, "
          << traced[worker].bytes << " B, " << traced[worker].cross_frees
          << " cross-thread frees; program " << expected.blocks << ", " << expected.bytes << ", "
          << expected.cross_frees;
    }
    const replay_result r = replay_trace(t);
    EXPECT_EQ(r.final_live_bytes, summarize(t).final_live_bytes);
  }
}

std::map<std::uint64_t, std::uint64_t> malloc_sizes(const trace_file& t) {
  std::map<std::uint64_t, std::uint64_t> sizes;
  t.for_each_event([&](const event& e) { sizes[e.value] += e.kind == event_kind::malloc; });
  return sizes;
}

// A worker's blocks freed after its recording ended (a later thread-key destructor) are not in
// the trace; when main gets their addresses back and a third thread frees main's blocks, those
// frees are main's blocks, not the worker's.
TEST_F(Recorder, FreesAfterAThreadEndedDoNotShadowReusedAddresses) {
  // glibc gives the freed addresses back to main (exact fits from the arena's unsorted blocks);
  // a run where it gave none would show nothing, and is tried again.
  std::uint64_t main_tid = 0, worker_tid = 0, freer_tid = 0;
  int reused = 0;
  for (int attempt = 0; attempt < 5 && reused == 0; ++attempt) {
    const outcome o = record(std::string(TRACE_RECORDED_PROGRAM) + " late-free");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::istringstream lines(o.out);
    std::string tids_word, reused_word;
    lines >> tids_word >> main_tid >> worker_tid >> freer_tid >> reused_word >> reused;
    ASSERT_EQ(reused_word, "reused") << o.out;
  }
  if (reused == 0) GTEST_SKIP() << "malloc gave no freed address back in 5 runs";
  const trace_file t(trace_path().string());
  std::map<std::uint32_t, std::uint64_t> tid_of;  // (a thread's start may come later in the file)
  t.for_each_event([&](const event& e) {
    if (e.kind == event_kind::thread_start) tid_of[e.thread] = e.value;
  });
  std::map<std::uint64_t, std::uint64_t> freed_by_owner;  // owner tid -> frees by the freer
  t.for_each_event([&](const event& e) {
    if (e.kind == event_kind::free && !e.unknown_pointer && tid_of[e.thread] == freer_tid)
      ++freed_by_owner[tid_of[block_thread(e.block)]];
  });
  EXPECT_EQ(freed_by_owner[main_tid], static_cast<std::uint64_t>(reused));
  EXPECT_EQ(freed_by_owner[worker_tid], 0u);
}

TEST_F(Recorder, ForkedChildIsNotRecorded) {
  const outcome o = record(std::string(TRACE_RECORDED_PROGRAM) + " fork");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const trace_file t(trace_path().string());
  EXPECT_FALSE(t.truncated());
  std::map<std::uint64_t, std::uint64_t> sizes = malloc_sizes(t);
  EXPECT_EQ(sizes[7777], 0u);
  EXPECT_EQ(sizes[5555], 0u);
  EXPECT_EQ(sizes[1234], 1u);
  EXPECT_GE(sizes[99], 1000u);  // the parent's second thread
  EXPECT_FALSE(fs::exists(trace_path().string() + ".1"));
}

// --follow-fork: the child (forked while another thread of the parent recorded) and its own
// child get a trace each, in order of start, that starts empty: the child's free of a block it
// inherited is a free of an unknown pointer.
TEST_F(Recorder, FollowForkGivesEachForkedProcessItsOwnTrace) {
  const outcome o = run("record --follow-fork -o '" + trace_path().string() + "' -- " +
                        std::string(TRACE_RECORDED_PROGRAM) + " fork");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const trace_file parent(trace_path().string());
  const trace_file child(trace_path().string() + ".1");
  const trace_file grandchild(trace_path().string() + ".2");
  EXPECT_FALSE(fs::exists(trace_path().string() + ".3"));
  EXPECT_EQ(parent.header().origin, tf::image_origin::started);
  EXPECT_EQ(malloc_sizes(parent)[7777], 0u);

  EXPECT_EQ(child.header().origin, tf::image_origin::fork);
  EXPECT_EQ(child.header().parent_pid, parent.header().pid);
  ASSERT_FALSE(child.truncated());
  EXPECT_EQ(child.threads().size(), 1u) << "the parent's other thread does not exist in the child";
  std::map<std::uint64_t, std::uint64_t> sizes = malloc_sizes(child);
  EXPECT_EQ(sizes[7777], 1000u);
  EXPECT_EQ(sizes[5555] + sizes[1234] + sizes[99], 0u);
  EXPECT_GE(child.footer()->unknown_frees, 1u);

  EXPECT_EQ(grandchild.header().origin, tf::image_origin::fork);
  EXPECT_EQ(grandchild.header().parent_pid, child.header().pid);
  EXPECT_EQ(malloc_sizes(grandchild)[5555], 500u);
  EXPECT_EQ(replay_trace(grandchild).final_live_bytes, summarize(grandchild).final_live_bytes);

  const outcome info = run("trace info '" + trace_path().string() + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("fork of " + std::to_string(child.header().pid)), std::string::npos)
      << info.out;
}

TEST_F(Recorder, ExecedDescendantsAreNotRecorded) {
  // `; true` makes the shell fork before exec'ing the loop; the loop's 2000 calls stay out.
  const outcome o = run("record --no-follow-exec -o '" + trace_path().string() +
                        "' -- /bin/sh -c \"'" + std::string(TRACE_MALLOC_LOOP) + "' 1000; true\"");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const trace_file t(trace_path().string());
  EXPECT_FALSE(t.truncated());
  EXPECT_LT(calls_in(t), 500u);
  EXPECT_EQ(t.header().command.front(), "/bin/sh");
  EXPECT_FALSE(fs::exists(trace_path().string() + ".1"));
}

TEST_F(Recorder, ExecedDescendantsGetTheirOwnTraces) {
  // The shell forks and execs the loop twice: three images, three traces, in order of start.
  const std::string loop = "'" + std::string(TRACE_MALLOC_LOOP) + "'";
  std::ofstream(trace_path().string() + ".3") << "an image of an older run";
  const outcome o = record("/bin/sh -c \"" + loop + " 1000; " + loop + " 2000; true\"");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const trace_file shell(trace_path().string());
  EXPECT_EQ(shell.header().command.front(), "/bin/sh");
  EXPECT_LT(calls_in(shell), 500u);
  for (const auto& [suffix, pairs] : {std::pair{".1", 1000u}, std::pair{".2", 2000u}}) {
    const trace_file loop_trace(trace_path().string() + suffix);
    EXPECT_FALSE(loop_trace.truncated()) << suffix;
    EXPECT_EQ(loop_trace.header().command.at(1), std::to_string(pairs)) << suffix;
    EXPECT_GE(calls_in(loop_trace), 2u * pairs) << suffix;
  }
  EXPECT_FALSE(fs::exists(trace_path().string() + ".3")) << "an older run's image is left";
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();

  const outcome info = run("trace info '" + trace_path().string() + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("t.trace.1"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("t.trace.2"), std::string::npos) << info.out;
}

TEST_F(Recorder, ExecReplacingTheProgramIsFollowed) {
  const outcome o = record("/bin/sh -c \"exec '" + std::string(TRACE_MALLOC_LOOP) + "' 1000\"");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const trace_file shell(trace_path().string());
  EXPECT_FALSE(shell.truncated());
  const trace_file loop_trace(trace_path().string() + ".1");
  EXPECT_FALSE(loop_trace.truncated());
  EXPECT_EQ(loop_trace.header().pid, shell.header().pid);
  EXPECT_GE(calls_in(loop_trace), 2000u);
}

TEST_F(Recorder, KilledProgramLeavesTruncatedTrace) {
  const outcome o = record(std::string(TRACE_RECORDED_PROGRAM) + " kill");
  EXPECT_EQ(o.exit_code, 128 + SIGKILL) << o.err;
  EXPECT_NE(o.err.find("killed by signal 9"), std::string::npos) << o.err;
  const trace_file t(trace_path().string());
  EXPECT_TRUE(t.truncated());
  std::uint64_t mallocs = 0;
  t.for_each_event([&](const event& e) { mallocs += e.kind == event_kind::malloc; });
  // Every full 64 KiB chunk reached the disk: all but the last chunk's worth of the 200000.
  EXPECT_GT(mallocs, 150000u);
  EXPECT_LE(mallocs, 200100u);

  const outcome info = run("trace info '" + trace_path().string() + "'");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("TRUNCATED"), std::string::npos);
}

TEST_F(Recorder, HelpShowsTheFollowDefaultsAsTheyAre) {
  const outcome help = run("record --help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("--no-follow-exec"), std::string::npos) << help.out;
  // CLI11 wrote a negated flag as "--no-follow-exec{false}", read as "default false".
  EXPECT_EQ(help.out.find("{false}"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("(default on)"), std::string::npos) << help.out;
}

TEST_F(Recorder, RefusesMissingAndStaticPrograms) {
  const outcome missing = record("/no/such/program");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(lab::cli_support::line_count(missing.err), 1u) << missing.err;
  EXPECT_NE(missing.err.find("not found"), std::string::npos) << missing.err;

  const outcome not_in_path = record("no_such_program_in_path_xyz");
  EXPECT_EQ(not_in_path.exit_code, 2) << not_in_path.err;
  const outcome no_program = run("record -o '" + trace_path().string() + "'");
  EXPECT_EQ(no_program.exit_code, 2) << no_program.err;

  const outcome static_program = record(TRACE_STATIC_PROGRAM);
  EXPECT_EQ(static_program.exit_code, 2);
  EXPECT_EQ(lab::cli_support::line_count(static_program.err), 1u) << static_program.err;
  EXPECT_NE(static_program.err.find("statically linked"), std::string::npos) << static_program.err;
  EXPECT_FALSE(fs::exists(trace_path()));  // refused before anything was written

  const outcome unwritable =
      run("record -o /proc/no/such/dir/t.trace -- " + std::string(TRACE_MALLOC_LOOP) + " 10");
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;
}

TEST_F(Recorder, AbortedProgramIsFlushedAndTold) {
  const outcome o = record(std::string(TRACE_RECORDED_PROGRAM) + " abort");
  EXPECT_EQ(o.exit_code, 128 + SIGABRT) << o.err;
  EXPECT_NE(o.err.find("killed by signal 6"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("made no malloc-family call"), std::string::npos) << o.err;
  const trace_file t(trace_path().string());
  std::uint64_t known = 0;
  t.for_each_event(
      [&](const event& e) { known += e.kind == event_kind::malloc && e.value == 4321; });
  EXPECT_EQ(known, 5000u) << "the recorder did not flush when the program aborted";
  EXPECT_FALSE(t.truncated());
}

TEST_F(Recorder, ProgramEndingItselfWithSigintIsFlushed) {
  const outcome o = record(std::string(TRACE_RECORDED_PROGRAM) + " interrupt");
  EXPECT_EQ(o.exit_code, 128 + SIGINT) << o.err;
  EXPECT_NE(o.err.find("finished its trace at the signal"), std::string::npos) << o.err;
  const trace_file t(trace_path().string());
  std::uint64_t known = 0;
  t.for_each_event(
      [&](const event& e) { known += e.kind == event_kind::malloc && e.value == 4321; });
  EXPECT_EQ(known, 5000u);
  EXPECT_FALSE(t.truncated());
}

TEST_F(Recorder, TraceWriteFailureIsToldAndNonZero) {
  // ulimit -f 64: 32 KiB files; the loop's trace is far larger. The program itself is not hurt.
  const std::string command = "ulimit -f 64 && env -u LD_PRELOAD '" + lab::cli_support::binary() +
                              "' record -o '" + trace_path().string() + "' -- '" +
                              TRACE_MALLOC_LOOP + "' 300000 >/dev/null 2>'" +
                              (dir_ / "err.txt").string() + "'";
  const int status = std::system(("/bin/sh -c \"" + command + "\"").c_str());
  const std::string err = read_file(dir_ / "err.txt");
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << err;
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
  EXPECT_EQ(err.find("killed by signal"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(trace_path())) << "a damaged trace was left at the output path";
}

// Starts `alloclab record` with its stdout on a pipe; returns its pid.
pid_t spawn_record(const std::vector<std::string>& args, int& stdout_fd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  std::vector<std::string> argv = {lab::cli_support::binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, pointers.data(), environ) != 0)
    pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  stdout_fd = fds[0];
  return pid;
}

bool process_gone(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST_F(Recorder, SigtermIsForwardedToTheProgram) {
  int out = -1;
  const pid_t recorder = spawn_record(
      {"record", "-o", trace_path().string(), "--", TRACE_RECORDED_PROGRAM, "wait"}, out);
  ASSERT_GT(recorder, 0);
  std::string said;
  char buffer[256];
  for (ssize_t n;
       said.find('\n') == std::string::npos && (n = ::read(out, buffer, sizeof buffer)) > 0;)
    said.append(buffer, static_cast<std::size_t>(n));
  ::close(out);
  ASSERT_EQ(said.rfind("ready ", 0), 0u) << said;
  const pid_t program = static_cast<pid_t>(std::stol(said.substr(6)));
  ::kill(recorder, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(recorder, &status, 0), recorder);
  const bool gone = process_gone(program, std::chrono::seconds(60));
  if (!gone) ::kill(program, SIGKILL);
  EXPECT_TRUE(gone) << "the recorded program was orphaned";
  ASSERT_TRUE(WIFEXITED(status)) << "record died by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  const trace_file t(trace_path().string());  // flushed by the program's SIGTERM handler
  std::uint64_t known = 0;
  t.for_each_event(
      [&](const event& e) { known += e.kind == event_kind::malloc && e.value == 4321; });
  EXPECT_EQ(known, 5000u);
}

TEST_F(Recorder, UnrecordedImagesAreTold) {
  const outcome o = run("record --no-follow-exec -o '" + trace_path().string() +
                        "' -- /bin/sh -c \"ls / >/dev/null; ls / >/dev/null\"");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("process images"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("not recorded"), std::string::npos) << o.err;
}

// `record`'s own process maps no library of the serve frame (HTTP, TLS, metrics): loading them
// was most of the fixed cost every recorded run pays (docs/trace-format.md, "Overhead"). The
// recorded shell prints its parent's (record's) memory map.
TEST_F(Recorder, RecordLoadsNoLibraryOfTheServeFrame) {
  const outcome o = record("/bin/sh -c 'cat /proc/$PPID/maps'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("libzstd"), std::string::npos) << o.out;  // it is record's map
  for (const char* library : {"libcpp-httplib", "libssl", "libcrypto", "libprometheus"})
    EXPECT_EQ(o.out.find(library), std::string::npos) << library << " is loaded:\n" << o.out;
}

// Every other command, and a record command line that does not parse, is the full lab's.
TEST_F(Recorder, OtherCommandsAndRecordsUsageGoToTheFullLab) {
  const outcome version = run("--version");
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.out.rfind("alloclab ", 0), 0u) << version.out;
  const outcome help = run("record --help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("--follow-exec"), std::string::npos) << help.out;
  const outcome bad = run("record --no-such-option -- /bin/true");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(lab::cli_support::line_count(bad.err), 1u) << bad.err;
  const outcome info = run("trace info /no/such/trace");
  EXPECT_EQ(info.exit_code, 2) << info.err;
  EXPECT_EQ(lab::cli_support::line_count(info.err), 1u) << info.err;
}

// ---- where record writes ----

class RecordOutput : public Recorder {
 protected:
  fs::path copy_of_program() const {
    const fs::path p = dir_ / "prog";
    fs::copy_file(TRACE_MALLOC_LOOP, p);
    return p;
  }
};

TEST_F(RecordOutput, TheProgramItselfIsRefused) {
  const fs::path program = copy_of_program();
  const std::string before = read_file(program);
  const outcome o = run("record -o '" + program.string() + "' -- '" + program.string() + "' 10");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
  EXPECT_EQ(read_file(program), before) << "record -o overwrote the program it records";
}

TEST_F(RecordOutput, AnOldTraceSurvivesAFailedPreload) {
  std::ofstream(trace_path(), std::ios::binary) << "an old trace";
  const fs::path not_a_library = dir_ / "not_a_library.so";
  std::ofstream(not_a_library) << "text";
  const outcome o =
      run("record -o '" + trace_path().string() + "' -- '" + TRACE_MALLOC_LOOP + "' 10",
          "ALLOCLAB_RECORD_LIBRARY='" + not_a_library.string() + "'");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("no trace written"), std::string::npos) << o.err;
  EXPECT_EQ(read_file(trace_path()), "an old trace");
  for (const auto& entry : fs::directory_iterator(dir_))  // no temporary left behind
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST_F(RecordOutput, DevicesFifosAndDirectoriesAreRefusedBeforeRunning) {
  const fs::path fifo = dir_ / "fifo", marker = dir_ / "ran";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& target : {std::string("/dev/full"), fifo.string(), dir_.string()}) {
    const outcome o =
        run("record -o '" + target + "' -- /bin/sh -c \"touch '" + marker.string() + "'\"");
    EXPECT_EQ(o.exit_code, 2) << target << ": " << o.err;
    EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find("not a regular file"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(marker)) << target << ": the program ran";
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(RecordOutput, SymlinksAreFollowed) {
  const fs::path target = dir_ / "real.trace", link = dir_ / "link.trace";
  fs::create_symlink(target.filename(), link);
  const outcome o = run("record -o '" + link.string() + "' -- '" + TRACE_MALLOC_LOOP + "' 10");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(fs::is_symlink(link));
  const trace_file t(target.string());
  EXPECT_FALSE(t.truncated());
}

// ---- damaged input ----

class Reader : public Recorder {
 protected:
  void SetUp() override {
    Recorder::SetUp();
    const outcome o = record(std::string(TRACE_MALLOC_LOOP) + " 100000");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    bytes_ = read_file(trace_path());
    ASSERT_GT(bytes_.size(), 3 * sizeof(tf::chunk_header));
  }
  fs::path write(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  void expect_refused(const fs::path& p, const std::string& text) const {
    const outcome o = run("trace info '" + p.string() + "'");
    EXPECT_EQ(o.exit_code, 2) << o.out;
    EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find(text), std::string::npos) << o.err;
  }
  // The file header, command line and (version 4) context block: where the first chunk starts.
  std::size_t read_header_bytes() const {
    tf::file_header h{};
    std::memcpy(&h, bytes_.data(), sizeof h);
    return sizeof h + h.command_bytes +
           (h.version >= tf::first_version_with_context ? h.context_bytes : 0);
  }
  // Offset of the footer chunk (the last one).
  std::size_t footer_offset() const {
    const trace_file t(trace_path().string());
    const auto& last = t.chunks().back();
    return last.offset + sizeof(tf::chunk_header) + last.header.stored_bytes;
  }
  std::string bytes_;
};

TEST_F(Reader, CutInsideAChunkIsRefused) {
  expect_refused(write("cut.trace", bytes_.substr(0, bytes_.size() / 2)), "truncated trace");
  expect_refused(write("header.trace", bytes_.substr(0, 40)), "not an alloclab trace");
}

TEST_F(Reader, CutAtAChunkBoundaryIsReadableAndMarkedTruncated) {
  const fs::path p = write("boundary.trace", bytes_.substr(0, footer_offset()));
  const trace_file t(p.string());
  EXPECT_TRUE(t.truncated());
  const outcome o = run("trace info '" + p.string() + "'");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("TRUNCATED"), std::string::npos);
}

TEST_F(Reader, FlippedByteIsRefused) {
  std::string damaged = bytes_;
  damaged[footer_offset() / 2] ^= 0x40;
  const fs::path p = write("flipped.trace", damaged);
  const outcome o = run("trace info '" + p.string() + "'");
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_EQ(lab::cli_support::line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("corrupt trace"), std::string::npos) << o.err;
}

TEST_F(Reader, NewerVersionIsRefused) {
  std::string newer = bytes_;
  newer[8] = static_cast<char>(tf::current_version + 1);
  expect_refused(write("newer.trace", newer), "newer than this alloclab reads");
}

TEST_F(Reader, ForeignFilesAreRefused) {
  expect_refused(write("empty.trace", ""), "not an alloclab trace");
  expect_refused(write("text.trace",
                       "hello, this is not a trace at all....................."
                       "........"),
                 "not an alloclab trace");
  expect_refused(dir_ / "absent.trace", "cannot open");
}

// Version 4's context block: a length over its limit is refused in one line, not allocated.
TEST_F(Reader, OversizedContextBlockIsRefused) {
  std::string damaged = bytes_;
  const std::uint32_t huge = tf::max_context_bytes + 1;
  std::memcpy(damaged.data() + offsetof(tf::file_header, context_bytes), &huge, sizeof huge);
  expect_refused(write("context.trace", damaged), "context block over");
}

TEST_F(Reader, UnknownImageOriginIsRefused) {
  std::string damaged = bytes_;
  damaged[offsetof(tf::file_header, origin)] = static_cast<char>(tf::last_image_origin + 1);
  expect_refused(write("origin.trace", damaged), "unknown image origin");
}

// What the reader does with damage anywhere: it reads the trace, or refuses it with a
// trace_error (one line); nothing else (another exception, a crash, an endless loop; the sanitize
// preset runs this under ASan and UBSan). In-process, so that many variants stay cheap.
void expect_read_or_refused(const fs::path& p, const std::string& what) {
  try {
    const trace_file t(p.string());
    summarize(t);
  } catch (const trace_error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << what;
  }
}

TEST_F(Reader, RandomDamageIsReadOrRefused) {
  std::mt19937_64 random(21);
  for (int variant = 0; variant < 60; ++variant) {
    std::string damaged = bytes_;
    const std::size_t at = random() % damaged.size();
    switch (variant % 3) {
      case 0:  // a cut anywhere
        damaged.resize(at);
        break;
      case 1:  // a flipped byte anywhere
        damaged[at] = static_cast<char>(damaged[at] ^ (1 << (random() % 8)));
        break;
      default:  // a random word over the first chunk's header (its lengths, kind, codec...)
        const std::uint32_t word = static_cast<std::uint32_t>(random());
        const std::size_t field = read_header_bytes() + 4 * (random() % 8);
        std::memcpy(damaged.data() + std::min(field, damaged.size() - 4), &word, 4);
    }
    expect_read_or_refused(write("damaged.trace", damaged), "variant " + std::to_string(variant));
  }
}

// Payloads that pass the checksum but hold random events: every one decodes or is refused.
TEST_F(Reader, RandomEventsDecodeOrAreRefused) {
  std::mt19937_64 random(22);
  for (int variant = 0; variant < 200; ++variant) {
    std::string payload(1 + random() % 64, '\0');
    for (char& c : payload) c = static_cast<char>(random());
    std::string file = bytes_.substr(0, read_header_bytes());
    tf::chunk_header c{};
    c.magic = tf::chunk_magic;
    c.thread = static_cast<std::uint32_t>(random() % 3);
    c.raw_bytes = c.stored_bytes = static_cast<std::uint32_t>(payload.size());
    c.codec = static_cast<std::uint8_t>(variant % 4 == 0 ? tf::codec::zstd : tf::codec::raw);
    c.checksum =
        tf::checksum(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size());
    file.append(reinterpret_cast<const char*>(&c), sizeof c);
    file += payload;
    expect_read_or_refused(write("events.trace", file), "variant " + std::to_string(variant));
  }
}

// ---- trace info and replay on a single-threaded program with a known live-byte peak ----

class Replay : public Recorder {};

TEST_F(Replay, ReproducesTheLiveByteCurveOfOneThread) {
  const outcome o = record(std::string(TRACE_MALLOC_LOOP) + " 20000 --track-live");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string marker = "peak live bytes ";
  const std::size_t at = o.out.find(marker);
  ASSERT_NE(at, std::string::npos) << o.out;
  const std::uint64_t program_peak = std::stoull(o.out.substr(at + marker.size()));

  const trace_file t(trace_path().string());
  summary_options options;
  options.curve_stride = 1;
  const trace_summary s = summarize(t, options);
  // The loop's blocks are the only ones alive while it runs (stdio's buffer comes after).
  EXPECT_EQ(s.peak_live_bytes, program_peak);
  EXPECT_EQ(s.by_kind[static_cast<std::size_t>(event_kind::malloc)], 20000u + 1u);

  replay_options replay;
  replay.curve_stride = 1;
  const replay_result r = replay_trace(t, replay);
  EXPECT_EQ(r.peak_live_bytes, program_peak);
  EXPECT_EQ(r.final_live_bytes, s.final_live_bytes);
  ASSERT_EQ(r.live_curve.size(), s.live_curve.size());
  EXPECT_TRUE(r.live_curve == s.live_curve) << "the replay's live bytes differ from the trace's";
  EXPECT_EQ(r.calls, 40001u);
  EXPECT_GT(r.ns_per_call(), 0.0);
}

// tests/data/python3_json.trace: `python3 -c` building and parsing a 200000-element JSON list
// (recorded with this format; python's own small-object allocator hides most of its calls).
TEST(RealProgram, ReplayFollowsTheRecordedTrace) {
  const trace_file t(std::string(TRACE_DATA_DIR) + "/python3_json.trace");
  EXPECT_FALSE(t.truncated());
  summary_options options;
  options.curve_stride = 1;
  const trace_summary s = summarize(t, options);
  EXPECT_GT(s.allocations, 1000u);
  EXPECT_GT(s.peak_live_bytes, 0u);
  replay_options replay;
  replay.curve_stride = 1;
  const replay_result r = replay_trace(t, replay);
  EXPECT_EQ(r.peak_live_bytes, s.peak_live_bytes);
  EXPECT_TRUE(r.live_curve == s.live_curve) << "the replay's live bytes differ from the trace's";
  // What python left allocated at exit is freed by the engine (LeakSanitizer found it leaked).
  EXPECT_EQ(r.released_at_end, s.final_live_blocks);
  EXPECT_NE(render_summary(t, s).find("python3"), std::string::npos);
}

TEST_F(Replay, InfoReportsTheFigures) {
  const outcome o = record(std::string(TRACE_MALLOC_LOOP) + " 20000");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const outcome info = run("trace info '" + trace_path().string() + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  for (const char* text : {"events by kind", "malloc", "cross-thread frees: 0 of",
                           "peak live bytes", "monotonic footprint", "nearest of seed 003",
                           "neither (frees in no stack or queue order)", "[     128,      256)"})
    EXPECT_NE(info.out.find(text), std::string::npos) << text << "\n" << info.out;
}

TEST_F(Recorder, InfoOnADirectoryOrAFullStdout) {
  const outcome directory = run("trace info '" + dir_.string() + "'");
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_EQ(lab::cli_support::line_count(directory.err), 1u) << directory.err;
  EXPECT_NE(directory.err.find("is a directory"), std::string::npos) << directory.err;

  ASSERT_EQ(record(std::string(TRACE_MALLOC_LOOP) + " 100").exit_code, 0);
  const std::string command = "env -u LD_PRELOAD '" + lab::cli_support::binary() +
                              "' trace info '" + trace_path().string() + "' >/dev/full 2>/dev/null";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1) << "a failed write to stdout was not an error";
}

TEST_F(Recorder, InfoOnATruncatedTraceDoesNotClaimNoTimestamps) {
  ASSERT_EQ(record(std::string(TRACE_MALLOC_LOOP) + " 100").exit_code, 0);
  const trace_file whole(trace_path().string());
  ASSERT_TRUE(whole.header().timestamps);
  const std::string bytes = read_file(trace_path());
  const fs::path cut = dir_ / "header_only.trace";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, whole.chunks().front().offset);
  const outcome o = run("trace info '" + cut.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("TRUNCATED"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("without timestamps"), std::string::npos) << o.out;
}

TEST(Info, LifoAndFifoAreTold) {
  // Build traces by hand: a stack pattern and a queue pattern.
  for (const bool lifo : {true, false}) {
    const fs::path p = fs::temp_directory_path() / ("alloclab_lifo_" + std::to_string(lifo));
    std::vector<std::uint8_t> raw;
    std::uint8_t buffer[16];
    const auto put = [&](std::uint64_t v) {
      raw.insert(raw.end(), buffer, tf::put_varint(buffer, v));
    };
    constexpr int n = 50;
    std::uint64_t previous_size = 0;
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < n; ++i) {
        put((tf::zigzag(32, previous_size) << 2) | 1);  // malloc(32)
        previous_size = 32;
      }
      // A free's age is (next id - 1 - id): LIFO frees ids n-1, n-2, ...; FIFO ids 0, 1, ...
      for (int i = 0; i < n; ++i) put(static_cast<std::uint64_t>(lifo ? i : (n - 1) - i) << 1);
    }
    tf::file_header h{};
    std::memcpy(h.magic, tf::file_magic, sizeof h.magic);
    h.version = tf::current_version;
    tf::chunk_header c{};
    c.magic = tf::chunk_magic;
    c.raw_bytes = c.stored_bytes = static_cast<std::uint32_t>(raw.size());
    c.checksum = tf::checksum(raw.data(), raw.size());
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(&c), sizeof c);
    out.write(reinterpret_cast<const char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
    out.close();
    const trace_file t(p.string());
    const trace_summary s = summarize(t);
    EXPECT_EQ(s.peak_live_bytes, 32u * n);
    EXPECT_EQ(s.final_live_bytes, 0u);
    EXPECT_EQ(lifo ? s.freed_youngest : s.freed_oldest, 4u * n) << lifo;
    EXPECT_NE(render_summary(t, s).find(lifo ? "LIFO (stack-like)" : "FIFO (queue-like)"),
              std::string::npos);
    fs::remove(p);
  }
}

}  // namespace
}  // namespace alloclab::trace
