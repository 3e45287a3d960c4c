// The per-process series cap: what is admitted, what is folded into pid="other", and that places free up.
#include "store/process_cap.h"

#include <gtest/gtest.h>

namespace gpuwatch::store {
namespace {

Labels process(int pid) {
  return {{"__name__", "gpu_process_memory_used_bytes"},
          {"gpu", "0"},
          {"pid", std::to_string(pid)},
          {"process", "python"},
          {"uuid", "GPU-0"}};
}

TEST(ProcessSeriesCap, AdmitsUpToTheCapAndCountsEachRefusedSeriesOnce) {
  ProcessSeriesCap cap(2, 60'000);
  EXPECT_TRUE(cap.admit({{"__name__", "gpu_up"}, {"gpu", "0"}}, 0));  // not per-process: never capped
  EXPECT_TRUE(cap.admit(process(1), 0));
  EXPECT_TRUE(cap.admit(process(2), 0));
  EXPECT_FALSE(cap.admit(process(3), 0));
  EXPECT_FALSE(cap.admit(process(3), 1000));
  EXPECT_FALSE(cap.admit(process(4), 1000));
  EXPECT_TRUE(cap.admit(process(1), 1000));  // already admitted
  EXPECT_EQ(cap.dropped(), 2u);
}

TEST(ProcessSeriesCap, ASeriesGoneLongerThanTheForgetTimeFreesItsPlace) {
  ProcessSeriesCap cap(1, 10'000);
  EXPECT_TRUE(cap.admit(process(1), 0));
  EXPECT_FALSE(cap.admit(process(2), 5'000));
  EXPECT_TRUE(cap.admit(process(2), 20'000));  // pid 1 was last seen at 0
  EXPECT_FALSE(cap.admit(process(1), 20'001));
}

TEST(ProcessSeriesCap, TheAggregateDropsPidAndProcessAndKeepsWhereTheProcessBelongs) {
  Labels with_container = process(7);
  with_container.emplace_back("container", "trainer");
  const Labels agg = aggregate_labels(with_container);
  EXPECT_EQ(label_value(agg, "pid"), "other");
  EXPECT_EQ(label_value(agg, "process"), "");
  EXPECT_EQ(label_value(agg, "container"), "trainer");
  EXPECT_EQ(label_value(agg, "gpu"), "0");
  EXPECT_EQ(aggregate_labels(process(8)), aggregate_labels(process(9)));
}

}  // namespace
}  // namespace gpuwatch::store
