#include "remote_write/disk_queue.h"
#include <gtest/gtest.h>
#include "temp_dir.h"

namespace gpuwatch::remote_write {
namespace {

std::string queue_file(const store::test::TempDir& dir) {
  return dir.path() + "/r.sqlite";
}

TEST(DiskQueue, HandsOutTheOldestFirstAndKeepsWhatIsNotPoppedAcrossReopening) {
  store::test::TempDir dir;
  {
    DiskQueue q(queue_file(dir), 1 << 20);
    q.push("aa", 2, 1000);
    q.push("bbb", 3, 2000);
    q.push("c", 1, 3000);
    const auto batch = q.front(5);  // the first two fit in 5 samples, the third does not
    ASSERT_TRUE(batch);
    EXPECT_EQ(batch->requests, (std::vector<std::string>{"aa", "bbb"}));
    EXPECT_EQ(batch->samples, 5u);
    EXPECT_EQ(batch->newest_ms, 2000);
    const auto first = q.front(1);  // at least one request, even when it alone is over the limit
    ASSERT_TRUE(first);
    EXPECT_EQ(first->requests, std::vector<std::string>{"aa"});
    q.pop_through(first->last_seq);
  }
  DiskQueue again(queue_file(dir), 1 << 20);  // a restarted agent
  const QueueStats s = again.stats();
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.samples, 4u);
  EXPECT_EQ(s.bytes, 4u);
  EXPECT_EQ(s.oldest_ms, 2000);
  EXPECT_EQ(s.newest_ms, 3000);
  const auto rest = again.front(100);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->requests, (std::vector<std::string>{"bbb", "c"}));
  again.pop_through(rest->last_seq);
  EXPECT_FALSE(again.front(100));
  EXPECT_EQ(again.stats().requests, 0u);
  again.push("d", 1, 4000);  // sequence numbers go on after the emptied queue
  EXPECT_EQ(again.front(100)->requests, std::vector<std::string>{"d"});
}

TEST(DiskQueue, PastItsSizeTheOldestRequestsAreGivenUpAndCounted) {
  store::test::TempDir dir;
  DiskQueue q(queue_file(dir), 10);
  EXPECT_EQ(q.push("12345", 5, 1000), 0u);
  EXPECT_EQ(q.push("12345", 4, 2000), 0u);
  EXPECT_EQ(q.push("123", 3, 3000), 5u);  // 13 bytes: the oldest goes
  const QueueStats s = q.stats();
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.samples, 7u);
  EXPECT_EQ(s.bytes, 8u);
  EXPECT_EQ(s.oldest_ms, 2000);
  EXPECT_EQ(q.push("this one alone is over the size", 1, 4000), 7u);  // the newest is always kept
  EXPECT_EQ(q.stats().requests, 1u);
}

}  // namespace
}  // namespace gpuwatch::remote_write
