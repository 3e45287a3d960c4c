// Silences match with the agent's one label matcher: a regex is compiled once when the silence is made,
// anchored, and never backtracks (std::regex was compiled on every alert, and a pattern such as (.*){8}Z
// stalled the thread routing alerts).
#include "alerting/silences.h"

#include <gtest/gtest.h>

#include <chrono>

namespace gpuwatch::alerting {
namespace {

Silence parsed(const std::string& body) {
  std::string error;
  auto s = parse_silence(nlohmann::json::parse(body), error);
  EXPECT_TRUE(s) << error;
  return s ? *s : Silence{};
}

TEST(Silences, RegexMatchersAreAnchoredAndLinear) {
  const Silence s = parsed(R"({"matchers":[{"name":"uuid","value":"(.*){8}Z","isRegex":true}],
      "startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z"})");
  SilenceStore store("", {s});
  const LabelSet alert{{"alertname", "GpuLost"},
                       {"uuid", "GPU-8c4f6a3e-1d2b-4e5f-9a8b-7c6d5e4f3a2b-00000000000"}};
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t during = s.starts_at_ms + 1000;
  EXPECT_FALSE(store.silenced(alert, during));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(secs, 5.0);
  LabelSet ends_in_z = alert;
  ends_in_z["uuid"] += "Z";
  EXPECT_TRUE(store.silenced(ends_in_z, during));
}

TEST(Silences, NegativeMatchersAndTheirJson) {
  const Silence s = parsed(R"({"matchers":[{"name":"gpu","value":"1|2","isRegex":true,"isEqual":false},
      {"name":"alertname","value":"GpuLost"}],"startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z"})");
  EXPECT_TRUE(s.selects({{"alertname", "GpuLost"}, {"gpu", "12"}}));  // anchored: 12 is neither 1 nor 2
  EXPECT_FALSE(s.selects({{"alertname", "GpuLost"}, {"gpu", "2"}}));
  EXPECT_FALSE(s.selects({{"alertname", "GpuXid"}, {"gpu", "3"}}));
  const auto j = silence_json(s, 0);
  EXPECT_EQ(j["matchers"][0],
            (nlohmann::json{{"name", "gpu"}, {"value", "1|2"}, {"isRegex", true}, {"isEqual", false}}));
  EXPECT_EQ(j["matchers"][1]["isRegex"], false);
  EXPECT_EQ(j["matchers"][1]["isEqual"], true);
}

TEST(Silences, AHugeLabelValueDoesNotOverflowTheStack) {
  const Silence s = parsed(R"({"matchers":[{"name":"cmdline","value":"(a|b)*","isRegex":true}],
      "startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z"})");
  EXPECT_TRUE(s.selects({{"cmdline", std::string(50 * 1024, 'a')}}));
}

}  // namespace
}  // namespace gpuwatch::alerting
