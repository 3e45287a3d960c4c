// `gpuwatch import` and `gpuwatch sim export` end to end, as a user runs them: exit codes, the summary, the
// file:line:column errors, and an exported scenario read back by import with nothing lost.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "run_process.h"

namespace gpuwatch::test {
namespace {

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kData = std::string(GPUWATCH_SOURCE_DIR) + "/tests/ingest/data/";

TEST(ImportCommand, DryRunOfAGoodFileSummarisesAndExitsZero) {
  const auto r = run_process({kBinary, "import", "--dry-run", kData + "small.om"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("files:    1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("series:   6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples:  11 imported of 11 read"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("range:    1969-12-31T23:59:59Z .. 2026-11-28T00:00:02Z"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("_created samples skipped: 1"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("import: "), std::string::npos)
      << "no progress lines when stderr is not a terminal: " << r.err;
}

// Import writes the real store; `gpuwatch query` with no agent answering reads it directly, and a second
// import of the same file into it rejects every sample as already stored.
TEST(ImportCommand, ImportedHistoryIsQueriedFromTheStoreWithoutAnAgent) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuwatch-import-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "temperature.prom").string();
  std::ofstream(file) << "gpu_temperature_celsius{gpu=\"1\",uuid=\"GPU-1b\"} 39 1795824000000\n"
                         "gpu_temperature_celsius{gpu=\"1\",uuid=\"GPU-1b\"} 39.5 1795824001500\n";
  const std::string data = (dir / "data").string();
  const auto imported = run_process({kBinary, "import", "--quiet", "--data-dir", data, file});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  const auto q =
      run_process({kBinary, "query", "gpu_temperature_celsius", "--url", "http://127.0.0.1:1", "--data-dir",
                   data, "--start", "1795824000", "--end", "1795824002", "--step", "1", "--format", "csv"});
  EXPECT_EQ(q.exit_code, 0) << q.err;
  // The 5-minute lookback carries the last sample forward, as Prometheus does; csv quotes the series name.
  EXPECT_EQ(q.out,
            "series,timestamp,value\n"
            "\"gpu_temperature_celsius{gpu=\"\"1\"\", uuid=\"\"GPU-1b\"\"}\",1795824000,39\n"
            "\"gpu_temperature_celsius{gpu=\"\"1\"\", uuid=\"\"GPU-1b\"\"}\",1795824001,39\n"
            "\"gpu_temperature_celsius{gpu=\"\"1\"\", uuid=\"\"GPU-1b\"\"}\",1795824002,39.5\n");
  const auto again = run_process({kBinary, "import", "--quiet", "--data-dir", data, file});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.out.find("samples:  0 imported of 2 read"), std::string::npos) << again.out;
  std::filesystem::remove_all(dir);
}

TEST(ImportCommand, SamplesNotAfterTheStoredOnesAreRejectedAndExitTwo) {
  // The second file holds the first one's samples again.
  const auto r = run_process({kBinary, "import", "--dry-run", kData + "small.om", kData + "small.prom"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("files:    2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples:  11 imported of 22 read"), std::string::npos) << r.out;
  // Per series, the file's earlier samples are older than the last one stored, its last is a repeat.
  EXPECT_NE(r.out.find("rejected: 5 out of order"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rejected: 6 duplicate timestamp"), std::string::npos) << r.out;
}

TEST(ImportCommand, BadLinesAreReportedWithFileLineColumnAndTheRestImported) {
  const std::string path = kData + "malformed.prom";
  const auto r = run_process({kBinary, "import", "--dry-run", "--quiet", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":3:16: expected ',' or '}' after the label value"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("bad lines: 10"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rejected: 1 out of order"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rejected: 1 duplicate timestamp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples:  2 imported of 4 read"), std::string::npos) << r.out;
}

TEST(ImportCommand, NeedsADataDirectoryOrDryRun) {
  const auto r = run_process({kBinary, "import", kData + "small.om"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--data-dir"), std::string::npos) << r.err;
}

TEST(SimExport, AnExportedScenarioImportsWithoutALoss) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuwatch-export-" + std::to_string(::getpid()));
  for (const std::string format : {"openmetrics", "prometheus"}) {
    SCOPED_TRACE(format);
    std::filesystem::remove_all(dir);
    const auto exported =
        run_process({kBinary, "sim", "export", "--scenario",
                     std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/incidents-8xh200.yaml", "--duration",
                     "3m", "--step", "1s", "--split", "1m", "--format", format, "--out-dir", dir.string()});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(exported.out, m, std::regex("files=(\\d+) series=(\\d+) samples=(\\d+)")))
        << exported.out;
    EXPECT_GE(std::stoul(m[1]), 3u);
    const unsigned long series = std::stoul(m[2]);
    const std::string samples = m[3];
    EXPECT_GT(series, 8u * 20u) << "every native family of 8 GPUs";
    std::vector<std::string> files;
    for (const auto& f : std::filesystem::directory_iterator(dir)) files.push_back(f.path().string());
    std::sort(files.begin(), files.end());  // one file per minute, named by its start: in time order
    std::vector<std::string> argv{kBinary, "import", "--dry-run", "--quiet"};
    argv.insert(argv.end(), files.begin(), files.end());
    const auto imported = run_process(argv);
    EXPECT_EQ(imported.exit_code, 0) << imported.err;
    EXPECT_NE(imported.out.find("samples:  " + samples + " imported of " + samples + " read"),
              std::string::npos)
        << imported.out;
    EXPECT_NE(imported.out.find("series:   " + std::to_string(series)), std::string::npos) << imported.out;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuwatch::test
