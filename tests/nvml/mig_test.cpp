// scenarios/mig-a100.yaml: MIG instances are devices of their own, with no utilization (NVML gives none).
#include <gtest/gtest.h>

#include "sim_support.h"
#include "sources/nvml/nvml_session.h"

namespace gpuwatch {
namespace {

TEST(Mig, InstancesAreDevicesOfTheirOwnWithoutUtilization) {
  test::SimScenario scenario{test::ScenarioFile{test::scenario_path("mig-a100.yaml")}};
  test::Sim sim;
  sim.advance_to(60);
  NvmlSession session(sim.library(), "/nonexistent", "");
  ASSERT_TRUE(session.ok()) << session.error();
  ASSERT_EQ(session.gpus().size(), 4U);

  std::vector<DeviceSnapshot> gpu0;
  session.gpus()[0]->read(sim.ms_at(60), gpu0);
  ASSERT_EQ(gpu0.size(), 5U) << "GPU 0 and its four instances";
  const auto& parent = gpu0[0];
  EXPECT_FALSE(parent.identity.is_mig_instance);
  EXPECT_EQ(parent.find(Metric::kMigMode)->value, 1);
  EXPECT_EQ(parent.find(Metric::kUtilization), nullptr) << "NVML has no utilization for a GPU in MIG mode";

  const unsigned expected_gi[] = {1, 3, 7, 8};  // 3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb
  for (std::size_t i = 1; i < gpu0.size(); ++i) {
    const auto& inst = gpu0[i];
    EXPECT_TRUE(inst.identity.is_mig_instance);
    EXPECT_TRUE(inst.identity.uuid.starts_with("MIG-")) << inst.identity.uuid;
    EXPECT_EQ(inst.identity.parent_uuid, parent.identity.uuid);
    EXPECT_EQ(inst.identity.pci_bus_id, parent.identity.pci_bus_id);
    EXPECT_EQ(inst.identity.gpu_instance_id, expected_gi[i - 1]);
    EXPECT_EQ(inst.state, DeviceState::kOk);
    EXPECT_EQ(inst.find(Metric::kUtilization), nullptr);
    EXPECT_EQ(inst.find(Metric::kMemoryUtilization), nullptr);
    // The instance's own memory, as the simulator reports it for that MIG handle.
    nvmlDevice_t handle = nullptr;
    ASSERT_EQ(sim.fn().nvmlDeviceGetMigDeviceHandleByIndex(sim.gpu(0), static_cast<unsigned>(i - 1), &handle),
              NVML_SUCCESS);
    nvmlMemory_t memory{};
    ASSERT_EQ(sim.fn().nvmlDeviceGetMemoryInfo(handle, &memory), NVML_SUCCESS);
    ASSERT_NE(inst.find(Metric::kMemoryTotal), nullptr);
    EXPECT_EQ(inst.find(Metric::kMemoryTotal)->value, static_cast<double>(memory.total));
    EXPECT_LT(memory.total, 80ULL << 30);
    for (const auto& p : inst.processes) EXPECT_FALSE(p.sm_utilization.has_value());
  }
  // The inference server runs in the first instance.
  ASSERT_EQ(gpu0[1].processes.size(), 1U);
  EXPECT_EQ(gpu0[1].processes[0].pid, 7101U);
  EXPECT_EQ(gpu0[1].processes[0].gpu_instance_id, 1U);

  std::vector<DeviceSnapshot> gpu2;
  session.gpus()[2]->read(sim.ms_at(60), gpu2);
  ASSERT_EQ(gpu2.size(), 1U);
  ASSERT_NE(gpu2[0].find(Metric::kUtilization), nullptr);
  EXPECT_EQ(gpu2[0].find(Metric::kMigMode)->value, 0);
  EXPECT_FALSE(session.layout_changed());
}

}  // namespace
}  // namespace gpuwatch
