#include "http/json_api.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "snapshot_fixture.h"
#include "sources/host/host_snapshot.h"

namespace gpuwatch {
namespace {

TEST(JsonApi, SchemaFields) {
  const nlohmann::json j = snapshot_to_json(testing::h200_node(11));
  EXPECT_EQ(j["schema_version"], kJsonSchemaVersion);
  EXPECT_EQ(j["sequence"], 11);
  EXPECT_EQ(j["ticks"], 42);
  EXPECT_EQ(j["node"]["hostname"], "gpu-node-07");
  EXPECT_EQ(j["node"]["driver_version"], "550.54.15");
  ASSERT_EQ(j["devices"].size(), 4U);
  const auto& gpu0 = j["devices"][0];
  EXPECT_EQ(gpu0["uuid"], "GPU-5f8b2c1e-0000-4a6b-9c3d-000000000000");
  EXPECT_EQ(gpu0["state"], "ok");
  EXPECT_TRUE(gpu0["mig"].is_null());
  EXPECT_EQ(gpu0["health"]["verdict"], "healthy");
  EXPECT_TRUE(gpu0["health"]["reasons"].is_array());
  EXPECT_EQ(gpu0["metrics"]["gpu_temperature_celsius"][0]["value"], 54);
  EXPECT_EQ(gpu0["metrics"]["gpu_clock_hertz"].size(), 4U);
  EXPECT_EQ(gpu0["metrics"]["gpu_ecc_errors_total"][0]["labels"]["counter"], "volatile");
  EXPECT_EQ(gpu0["processes"][0]["pid"], 4242);
  EXPECT_EQ(gpu0["processes"][0]["name"], "python3");
  EXPECT_TRUE(gpu0["processes"][1]["sm_utilization"].is_null());
  EXPECT_EQ(gpu0["unsupported"][0], "nvmlDeviceGetFanSpeed_v2");
  const auto& gpu1 = j["devices"][1];
  EXPECT_EQ(gpu1["xid_counts"]["79"], 1);
  EXPECT_EQ(gpu1["last_xid"], 79);
  EXPECT_EQ(gpu1["health"]["verdict"], "critical");  // XID 79: fell off the bus once
  EXPECT_EQ(j["devices"][2]["state"], "stale");
  EXPECT_EQ(j["devices"][3]["state"], "lost");
  EXPECT_TRUE(j["devices"][3]["metrics"].empty());
  ASSERT_EQ(j["collector_errors"].size(), 2U);
  EXPECT_EQ(j["collector_errors"][0]["call"], "nvmlSystemGetDriverVersion");
  EXPECT_EQ(j["collector_errors"][1]["count"], 3);
}

TEST(JsonApi, ProcessesNameTheirWorkloadFromTheHostReading) {
  Snapshot s = testing::h200_node();
  auto host = std::make_shared<HostSnapshot>();
  host->workloads = std::make_shared<const std::map<unsigned, procfs::Workload>>(
      std::map<unsigned, procfs::Workload>{{4242, {"containerd://abc123", "pod-uid-1", "", ""}}});
  s.host = host;
  const nlohmann::json j = snapshot_to_json(s);
  const auto& p = j["devices"][0]["processes"][0];
  ASSERT_EQ(p["pid"], 4242);
  EXPECT_EQ(p["container_id"], "containerd://abc123");
  EXPECT_EQ(p["pod_uid"], "pod-uid-1");
  EXPECT_TRUE(p["slurm_job"].is_null());
  // A process the host reader has no workload for, and a snapshot without a host reading: nulls.
  EXPECT_TRUE(j["devices"][0]["processes"][1]["container_id"].is_null());
  const nlohmann::json bare = snapshot_to_json(testing::h200_node());
  EXPECT_TRUE(bare["devices"][0]["processes"][0]["pod_uid"].is_null());
}

TEST(JsonApi, NonFiniteValuesBecomeNullAndTheTextStaysValidJson) {
  Snapshot s = testing::h200_node();
  s.devices[0].samples[0].value = std::numeric_limits<double>::quiet_NaN();
  const std::string text = snapshot_to_json(s).dump();
  const auto back = nlohmann::json::parse(text);
  EXPECT_TRUE(back["devices"][0]["metrics"]["gpu_utilization_ratio"][0]["value"].is_null());
}

TEST(JsonApi, MigIdentity) {
  Snapshot s;
  DeviceSnapshot d;
  d.identity.is_mig_instance = true;
  d.identity.parent_uuid = "GPU-p";
  d.identity.gpu_instance_id = 2;
  s.devices.push_back(d);
  const auto j = snapshot_to_json(s);
  EXPECT_EQ(j["devices"][0]["mig"]["parent_uuid"], "GPU-p");
  EXPECT_EQ(j["devices"][0]["mig"]["gpu_instance_id"], 2);
}

}  // namespace
}  // namespace gpuwatch
