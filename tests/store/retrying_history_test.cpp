// The history as the agent holds it when its store cannot open: retried with backoff on appends (on the
// agent's clock, here a fake one), its health families present throughout, the query routes answering 503
// with the reason until it opens.
#include "store/retrying_history.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

using namespace std::chrono_literals;

double value_of(const std::vector<Family>& families, std::string_view name, std::string_view reason = {}) {
  for (const auto& f : families) {
    if (f.name != name) continue;
    for (const auto& s : f.series) {
      if (reason.empty() || (!s.labels.empty() && s.labels[0].second == reason)) return s.value;
    }
  }
  return -1;
}

TEST(RetryingHistory, RetriesWithBackoffAndOpensOnceTheCauseIsGone) {
  test::TempDir dir;
  const std::string blocker = dir.path() + "/datafile";
  std::ofstream(blocker) << "x";
  auto now = std::chrono::steady_clock::time_point{} + 100s;
  StoreOptions options;
  options.data_dir = blocker + "/sub";
  options.background_flusher = false;
  auto history = std::make_shared<RetryingHistory>(options, 100, RetryPolicy{1s, 4s}, [&now] { return now; });

  EXPECT_EQ(history->store(), nullptr);
  EXPECT_NE(history->unavailable_reason().find("Not a directory"), std::string::npos)
      << history->unavailable_reason();
  auto attempts = [&] {
    return value_of(history->health_families(), "gpuwatch_store_open_errors_total", "other");
  };
  EXPECT_EQ(attempts(), 1);
  const auto families = history->health_families();
  EXPECT_EQ(value_of(families, "gpuwatch_store_up"), 0);
  EXPECT_EQ(value_of(families, "gpuwatch_store_write_errors_total", "other"), 1);
  EXPECT_EQ(value_of(families, "gpuwatch_store_write_errors_total", "no_space"), 0);
  EXPECT_EQ(value_of(families, "gpuwatch_store_samples_appended_total"), 0);
  EXPECT_EQ(value_of(families, "gpuwatch_store_series"), 0);

  const Snapshot snapshot;
  // 1 s, then 2 s, then 4 s (the most) between attempts.
  for (auto [step, expected] :
       {std::pair{500ms, 1}, {500ms, 2}, {1500ms, 2}, {500ms, 3}, {3900ms, 3}, {100ms, 4}, {4000ms, 5}}) {
    now += step;
    history->append(snapshot);
    EXPECT_EQ(attempts(), expected);
  }

  HttpRoute route{{"GET"}, "/api/v1/query", "", [](const HttpRequest&) {
                    return HttpReply{200, "", "ok", {}};
                  }};
  const auto routes = unavailable_until_open({route}, history);
  const HttpReply closed = routes[0].handle(HttpRequest{});
  EXPECT_EQ(closed.status, 503);
  EXPECT_NE(closed.body.find("\"errorType\":\"unavailable\""), std::string::npos) << closed.body;
  EXPECT_NE(closed.body.find("history store unavailable: "), std::string::npos) << closed.body;
  EXPECT_NE(closed.body.find("Not a directory"), std::string::npos) << closed.body;

  std::filesystem::remove(blocker);
  std::filesystem::create_directories(blocker + "/sub");
  history->append(snapshot);
  EXPECT_EQ(history->store(), nullptr) << "not before the retry is due";
  now += 4s;
  history->append(snapshot);
  ASSERT_NE(history->store(), nullptr);
  EXPECT_EQ(history->unavailable_reason(), "");
  EXPECT_EQ(value_of(history->health_families(), "gpuwatch_store_up"), 1);
  // The failed opens stay counted, so the counters never go back.
  EXPECT_EQ(value_of(history->health_families(), "gpuwatch_store_write_errors_total", "other"), 5);
  EXPECT_EQ(routes[0].handle(HttpRequest{}).status, 200);
}

}  // namespace
}  // namespace gpuwatch::store
