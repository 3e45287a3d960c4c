// dcgm-exporter's HPC job-mapping directory: one file per GPU (index or index.instance), a job id a line.
#include <gtest/gtest.h>

#include <fstream>

#include "sim_support.h"
#include "sources/host/host_reader.h"
#include "sources/hpc_jobs/job_mapping.h"

namespace gpuwatch {
namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(JobMapping, OneFilePerGpuEachLineAJob) {
  EXPECT_EQ(hpc_jobs::job_ids_from_text("4242\n  4243 \n\n"), (std::vector<std::string>{"4242", "4243"}));
  test::TempDir dir;
  write(dir.path() + "/0", "4242\n");
  write(dir.path() + "/2.1", "77\n78\n");
  write(dir.path() + "/3", "");              // cleared by the epilog
  write(dir.path() + "/README.txt", "x\n");  // not a GPU
  const auto mapping = hpc_jobs::read_job_mapping(dir.path());
  ASSERT_TRUE(mapping);
  EXPECT_EQ(*mapping, (hpc_jobs::JobMapping{{"0", {"4242"}}, {"2.1", {"77", "78"}}}));
}

TEST(JobMapping, AnUnreadableDirectoryFailsItsSourceOnly) {
  HostReader reader({"", "", "", "", "/nonexistent/job-mapping", ""});
  const auto reading = reader.read({1000, {}, {}, std::nullopt});
  ASSERT_EQ(reading.sources.size(), 1u);
  EXPECT_EQ(reading.sources[0].name, "hpc_job_mapping");
  EXPECT_FALSE(reading.sources[0].success);
  EXPECT_EQ(reading.sources[0].reason, "unreadable");
  ASSERT_TRUE(reading.host->hpc_jobs);
  EXPECT_TRUE(reading.host->hpc_jobs->empty());
}

}  // namespace
}  // namespace gpuwatch
