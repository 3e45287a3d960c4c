#include "http/json_api.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

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

TEST(JsonApi, ProcessesNameTheirWorkloadFromTheirOwnFields) {
  // collector/workload_names.h puts the cgroup's container and pod, the Slurm job and the kubelet's names on
  // the process; the JSON serves those and nothing else.
  Snapshot s = testing::h200_node();
  ProcessSample& named = s.devices[0].processes[0];
  named.container_id = "containerd://abc123";
  named.pod_uid = "pod-uid-1";
  named.namespace_name = "research";
  named.pod = "train-0";
  named.container = "trainer";
  s.devices[0].processes[1].slurm_job = "4242";
  const nlohmann::json j = snapshot_to_json(s);
  const auto& p = j["devices"][0]["processes"][0];
  ASSERT_EQ(p["pid"], 4242);
  EXPECT_EQ(p["container_id"], "containerd://abc123");
  EXPECT_EQ(p["pod_uid"], "pod-uid-1");
  EXPECT_EQ(p["namespace"], "research");
  EXPECT_EQ(p["pod"], "train-0");
  EXPECT_EQ(p["container"], "trainer");
  EXPECT_TRUE(p["slurm_job"].is_null());
  const auto& job = j["devices"][0]["processes"][1];
  EXPECT_EQ(job["slurm_job"], "4242");
  EXPECT_TRUE(job["container_id"].is_null());
  EXPECT_TRUE(job["pod"].is_null());
  // The host reading is not read again: a workload only it knows is not the process's.
  auto host = std::make_shared<HostSnapshot>();
  host->workloads = std::make_shared<const std::map<unsigned, procfs::Workload>>(
      std::map<unsigned, procfs::Workload>{{job["pid"].get<unsigned>(), {"containerd://other", "", "", ""}}});
  s.host = host;
  EXPECT_TRUE(snapshot_to_json(s)["devices"][0]["processes"][1]["container_id"].is_null());
}

TEST(JsonApi, NonFiniteValuesBecomeNullAndTheTextStaysValidJson) {
  Snapshot s = testing::h200_node();
  s.devices[0].samples[0].value = std::numeric_limits<double>::quiet_NaN();
  const std::string text = snapshot_to_json(s).dump();
  const auto back = nlohmann::json::parse(text);
  EXPECT_TRUE(back["devices"][0]["metrics"]["gpu_utilization_ratio"][0]["value"].is_null());
}

TEST(JsonApi, EveryGpuCountsItsProcesses) {
  const nlohmann::json j = snapshot_to_json(testing::h200_node());
  ASSERT_EQ(j["devices"].size(), 4U);
  EXPECT_EQ(j["devices"][0]["process_count"], 2);
  EXPECT_EQ(j["devices"][0]["processes"].size(), 2U);
  EXPECT_EQ(j["devices"][1]["process_count"], 0);
  EXPECT_TRUE(j["devices"][1]["processes"].is_array());
}

TEST(JsonApi, WithoutProcessesEachGpuKeepsItsCountAndTheRest) {
  const Snapshot s = testing::h200_node();
  const nlohmann::json all = snapshot_to_json(s);
  const nlohmann::json j = snapshot_to_json(s, {}, parse_gpus_selection("false", std::nullopt));
  ASSERT_EQ(j["devices"].size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& d = j["devices"][i];
    EXPECT_FALSE(d.contains("processes")) << i;
    EXPECT_EQ(d["process_count"], all["devices"][i]["process_count"]) << i;
    // Everything else is as with the processes.
    nlohmann::json full = all["devices"][i];
    full.erase("processes");
    EXPECT_EQ(d, full) << i;
  }
  EXPECT_EQ(j["devices"][0]["process_count"], 2);
  EXPECT_EQ(j["node"], all["node"]);
  EXPECT_EQ(j["collector_errors"], all["collector_errors"]);
  EXPECT_LT(j.dump().size(), all.dump().size());
  // `true` is the default, spelled out.
  EXPECT_EQ(snapshot_to_json(s, {}, parse_gpus_selection("true", std::nullopt)), all);
}

TEST(JsonApi, OneGpuByIndexOrUuid) {
  const Snapshot s = testing::h200_node();
  const nlohmann::json by_index = snapshot_to_json(s, {}, parse_gpus_selection(std::nullopt, "0"));
  ASSERT_EQ(by_index["devices"].size(), 1U);
  EXPECT_EQ(by_index["devices"][0], snapshot_to_json(s)["devices"][0]);
  EXPECT_EQ(by_index["devices"][0]["processes"][0]["pid"], 4242);
  EXPECT_EQ(by_index["node"]["hostname"], "gpu-node-07");

  const nlohmann::json by_uuid =
      snapshot_to_json(s, {}, parse_gpus_selection(std::nullopt, "GPU-5f8b2c1e-0000-4a6b-9c3d-000000000002"));
  ASSERT_EQ(by_uuid["devices"].size(), 1U);
  EXPECT_EQ(by_uuid["devices"][0]["index"], 2);
  EXPECT_EQ(by_uuid["devices"][0]["state"], "stale");

  const nlohmann::json lean = snapshot_to_json(s, {}, parse_gpus_selection("false", "0"));
  ASSERT_EQ(lean["devices"].size(), 1U);
  EXPECT_FALSE(lean["devices"][0].contains("processes"));
  EXPECT_EQ(lean["devices"][0]["process_count"], 2);
}

TEST(JsonApi, AnIndexNamesTheGpuAndItsMigInstances) {
  Snapshot s;
  for (const char* uuid : {"GPU-a", "MIG-a1", "MIG-a2"}) {
    DeviceSnapshot d;
    d.identity.index = 0;
    d.identity.uuid = uuid;
    d.identity.is_mig_instance = uuid[0] == 'M';
    s.devices.push_back(d);
  }
  DeviceSnapshot other;
  other.identity.index = 1;
  other.identity.uuid = "GPU-b";
  s.devices.push_back(other);
  const auto j = snapshot_to_json(s, {}, parse_gpus_selection(std::nullopt, "0"));
  ASSERT_EQ(j["devices"].size(), 3U);
  EXPECT_EQ(j["devices"][2]["uuid"], "MIG-a2");
  const auto mig = snapshot_to_json(s, {}, parse_gpus_selection(std::nullopt, "MIG-a1"));
  ASSERT_EQ(mig["devices"].size(), 1U);
  EXPECT_EQ(mig["devices"][0]["uuid"], "MIG-a1");
}

// The message a 400 answers, for each kind of bad value.
std::string refusal(std::optional<std::string_view> processes, std::optional<std::string_view> gpu) {
  try {
    snapshot_to_json(testing::h200_node(), {}, parse_gpus_selection(processes, gpu));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(JsonApi, BadSelectionsAreRefusedWithWhatIsAccepted) {
  EXPECT_EQ(refusal("no", std::nullopt), "processes must be true or false, not \"no\"");
  EXPECT_EQ(refusal("", std::nullopt), "processes must be true or false, not \"\"");
  EXPECT_EQ(refusal("False", std::nullopt), "processes must be true or false, not \"False\"");
  EXPECT_EQ(refusal(std::nullopt, ""), "gpu must be a GPU index or UUID, not empty");
  EXPECT_EQ(refusal(std::nullopt, "99999999999999999999"),
            "gpu 99999999999999999999 is too large for a GPU index");
  EXPECT_EQ(
      refusal(std::nullopt, "9"),
      "no GPU \"9\" on this node; gpu is the index of one of its GPUs (0, 1, 2, 3) or a GPU or MIG UUID");
  EXPECT_EQ(refusal(std::nullopt, "GPU-nope"),
            "no GPU \"GPU-nope\" on this node; gpu is the index of one of its GPUs (0, 1, 2, 3) or a GPU or "
            "MIG UUID");
  EXPECT_EQ(
      refusal(std::nullopt, "-1"),
      "no GPU \"-1\" on this node; gpu is the index of one of its GPUs (0, 1, 2, 3) or a GPU or MIG UUID");
  // A UUID is matched whole: a prefix is not a GPU.
  EXPECT_NE(refusal(std::nullopt, "GPU-5f8b2c1e"), "accepted");
  EXPECT_EQ(refusal("false", "3"), "accepted");
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
