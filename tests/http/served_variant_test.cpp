// Test plan: http::served_variant (served_variant.hpp) and http::check_run_query.
//   constructor: unknown workload / strategy, inapplicable strategy -> usage_error
//                                          ... ServedVariant.RefusesWhatItCannotServe
//   run_one: the reference checksum, every call, any strategy; workload time recorded
//                                          ... ServedVariant.EveryIterationReproducesTheChecksum
//   run_one from several threads at once ... ServedVariant.ConcurrentRequestsEachGetAnInstance
//   check_run_query ........................ RunQuery.AcceptsOnlyThisVariant
#include <thread>

#include <gtest/gtest.h>

#include "io/usage_error.hpp"
#include "http/server.hpp"
#include "http/served_variant.hpp"
#include "strategies/strategy.hpp"

namespace {

using alloclab::lab::usage_error;
using alloclab::lab::http::check_run_query;
using alloclab::lab::http::served_variant;

TEST(ServedVariant, RefusesWhatItCannotServe) {
  EXPECT_THROW(served_variant("no_such_workload", "std", 42), usage_error);
  EXPECT_THROW(served_variant("request_mix", "no_such_strategy", 42), usage_error);
  // A node pool cannot serve a workload with requests beyond its largest block.
  EXPECT_THROW(served_variant("strings_heap", "alloclab_pool", 42), usage_error);
}

TEST(ServedVariant, EveryIterationReproducesTheChecksum) {
  served_variant baseline("request_mix", "std", 42);
  for (const char* name : {"std", "pmr_monotonic", "pmr_monotonic_over_pool", "alloclab_arena"}) {
    served_variant v("request_mix", name, 42);
    EXPECT_EQ(v.expected_checksum(), baseline.expected_checksum()) << name;
    for (int i = 0; i < 50; ++i) {
      const auto r = v.run_one();
      ASSERT_TRUE(r.ok) << name << ": " << r.error;
      EXPECT_EQ(r.checksum, baseline.expected_checksum()) << name;
      EXPECT_GT(r.workload_ns, 0u);
    }
  }
}

TEST(ServedVariant, ConcurrentRequestsEachGetAnInstance) {
  served_variant v("request_mix", "pmr_monotonic_over_pool", 42);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        const auto r = v.run_one();
        if (!r.ok || r.checksum != v.expected_checksum()) ++wrong;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(RunQuery, AcceptsOnlyThisVariant) {
  served_variant v("request_mix", "std", 42);
  EXPECT_EQ(check_run_query("workload=request_mix&strategy=std", v), "");
  EXPECT_EQ(check_run_query("strategy=std&workload=request_mix", v), "");
  EXPECT_EQ(check_run_query("", v), "missing query parameter 'workload'");
  EXPECT_EQ(check_run_query("strategy=std", v), "missing query parameter 'workload'");
  EXPECT_EQ(check_run_query("workload=request_mix&workload=request_mix&strategy=std", v),
            "query parameter 'workload' given twice");
  EXPECT_EQ(check_run_query("workload=&strategy=std", v), "empty query parameter 'workload'");
  EXPECT_EQ(check_run_query("workload=w&strategy=std", v), "unknown workload 'w'");
  EXPECT_EQ(check_run_query("workload=request_mix&strategy=s", v), "unknown strategy 's'");
  EXPECT_EQ(check_run_query("workload=request_mix&strategy=std&n=1", v),
            "unknown query parameter 'n'; /run takes workload and strategy");
  for (const char* malformed : {"workload=request_mix&&strategy=std", "=x", "workload",
                                "workload=request%5Fmix&strategy=std", "workload=a=b"})
    EXPECT_NE(check_run_query(malformed, v).find("malformed query parameter"), std::string::npos)
        << malformed;
  EXPECT_NE(check_run_query("workload=map_int&strategy=std", v).find("one server process"),
            std::string::npos);
}

}  // namespace
