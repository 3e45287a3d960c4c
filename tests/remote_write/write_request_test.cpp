#include <gtest/gtest.h>

#include "remote.pb.h"
#include "remote_write/receiver_client.h"
#include "remote_write/series_filter.h"
#include "remote_write/wire_format_module.h"
#include "remote_write/write_request.h"

namespace gpuwatch::remote_write {
namespace {

// The module the agent loads, from the build tree; the test decodes with the same generated messages.
const WireFormat& wire() {
  static const auto format = open_wire_format(GPUWATCH_REMOTE_WRITE_MODULE);
  return *format;
}

Labels gpu_labels(const std::string& name, const std::string& gpu) {
  Labels l{{"__name__", name}, {"gpu", gpu}};
  normalize_labels(l);
  return l;
}

TEST(WriteRequest, SurvivesSnappyAndProtobufAsAReceiverDecodesIt) {
  WriteRequestBuilder b(wire());
  b.add(gpu_labels("gpu_power_watts", "0"), 1000, 312.5);
  b.add(gpu_labels("gpu_power_watts", "1"), 1000, 98.25);
  EXPECT_EQ(b.samples(), 2u);
  EXPECT_EQ(b.newest_ms(), 1000);
  const auto raw = wire().uncompress(wire().compress(b.serialize()));
  ASSERT_TRUE(raw);
  prometheus::WriteRequest decoded;
  ASSERT_TRUE(decoded.ParseFromString(*raw));
  ASSERT_EQ(decoded.timeseries_size(), 2);
  const auto& ts = decoded.timeseries(1);
  ASSERT_EQ(ts.labels_size(), 2);
  EXPECT_EQ(ts.labels(0).name(), "__name__");
  EXPECT_EQ(ts.labels(0).value(), "gpu_power_watts");
  EXPECT_EQ(ts.labels(1).name(), "gpu");
  EXPECT_EQ(ts.labels(1).value(), "1");
  ASSERT_EQ(ts.samples_size(), 1);
  EXPECT_EQ(ts.samples(0).value(), 98.25);
  EXPECT_EQ(ts.samples(0).timestamp(), 1000);
}

TEST(WriteRequest, ConcatenatedRequestsAreOneRequestWithAllTheirSeries) {
  // The disk queue batches requests by putting their bytes one after the other.
  WriteRequestBuilder first(wire()), second(wire());
  first.add(gpu_labels("gpu_temperature_celsius", "0"), 1000, 41);
  second.add(gpu_labels("gpu_temperature_celsius", "0"), 2000, 42);
  second.add(gpu_labels("gpu_temperature_celsius", "1"), 2000, 43);
  prometheus::WriteRequest merged;
  ASSERT_TRUE(merged.ParseFromString(first.serialize() + second.serialize()));
  ASSERT_EQ(merged.timeseries_size(), 3);
  EXPECT_EQ(merged.timeseries(0).samples(0).timestamp(), 1000);
  EXPECT_EQ(merged.timeseries(1).samples(0).timestamp(), 2000);
  EXPECT_EQ(merged.timeseries(2).samples(0).value(), 43);
}

TEST(WriteRequest, NotSnappyIsSaidSo) {
  EXPECT_FALSE(wire().uncompress("\xff\xff\xff\xff\xff not snappy"));
}

// Without its module remote write is off, and the reason says which file and why.
TEST(WireFormatModule, AMissingModuleIsRefusedWithItsPath) {
  try {
    open_wire_format("/nonexistent/gpuwatch-remote-write.so");
    FAIL() << "a missing module loaded";
  } catch (const ModuleMissing& e) {
    const std::string why = e.what();
    EXPECT_EQ(why.rfind("module_missing: ", 0), 0u) << why;
    EXPECT_NE(why.find("/nonexistent/gpuwatch-remote-write.so"), std::string::npos) << why;
  }
}

TEST(WireFormatModule, AModuleWithoutTheEntryPointIsRefused) {
  // A shared library that loads but is not the remote-write module (the simulator's, say).
  try {
    open_wire_format(GPUWATCH_NOT_A_REMOTE_WRITE_MODULE);
    FAIL() << "the simulator loaded as the remote-write module";
  } catch (const ModuleMissing& e) {
    EXPECT_NE(std::string(e.what()).find("gpuwatch_remote_write_open_v1"), std::string::npos) << e.what();
  }
}

TEST(SeriesFilter, KeepAndDropRulesApplyInOrderOnJoinedLabels) {
  RemoteWriteFilter keep_gpu;
  keep_gpu.action = RemoteWriteFilter::Action::kKeep;
  keep_gpu.regex = "gpu_.*";
  RemoteWriteFilter drop_gpu1_power;
  drop_gpu1_power.action = RemoteWriteFilter::Action::kDrop;
  drop_gpu1_power.source_labels = {"__name__", "gpu"};
  drop_gpu1_power.regex = "gpu_power_watts;1";
  const SeriesFilter filter({keep_gpu, drop_gpu1_power});
  EXPECT_TRUE(filter.keeps(gpu_labels("gpu_power_watts", "0")));
  EXPECT_FALSE(filter.keeps(gpu_labels("gpu_power_watts", "1")));
  EXPECT_TRUE(filter.keeps(gpu_labels("gpu_temperature_celsius", "1")));
  EXPECT_FALSE(
      filter.keeps(gpu_labels("gpuwatch_sink_queue_length", "")));  // anchored: not "gpu_" at the start
  EXPECT_TRUE(SeriesFilter({}).keeps(gpu_labels("anything", "0")));
}

TEST(RetryAfter, SecondsAreHonouredAndBounded) {
  EXPECT_EQ(parse_retry_after("3"), std::chrono::milliseconds(3000));
  EXPECT_EQ(parse_retry_after("86400"), std::chrono::minutes(5));
  EXPECT_EQ(parse_retry_after("12345678901234"), std::chrono::minutes(5));
  EXPECT_FALSE(parse_retry_after(""));
  EXPECT_FALSE(parse_retry_after("-1"));
  EXPECT_FALSE(parse_retry_after("soon"));
}

TEST(RetryAfter, AnHttpDateIsTheWaitUntilThen) {
  // 2015-10-21 07:28:00 UTC, RFC 9110's example date.
  const auto date = std::chrono::system_clock::from_time_t(1445412480);
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", date - seconds(90)), seconds(90));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", date - milliseconds(1500)),
            milliseconds(1500));
  // The obsolete forms RFC 9110 says a recipient must accept.
  EXPECT_EQ(parse_retry_after("Wednesday, 21-Oct-15 07:28:00 GMT", date - seconds(7)), seconds(7));
  EXPECT_EQ(parse_retry_after("Wed Oct 21 07:28:00 2015", date - seconds(7)), seconds(7));
  // Already past: send again now. Far ahead: bounded as delay-seconds are.
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", date + seconds(30)), milliseconds(0));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", date - std::chrono::hours(2)),
            std::chrono::minutes(5));
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT trailing", date));
  EXPECT_FALSE(parse_retry_after("Wed, 32 Oct 2015 07:28:00 GMT", date));
}

}  // namespace
}  // namespace gpuwatch::remote_write
