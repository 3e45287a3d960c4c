// `gpuwatch import` and `gpuwatch sim export` end to end, as a user runs them: exit codes, the summary, the
// file:line:column errors, and an exported scenario read back by import with nothing lost.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
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

const std::string kIncidents = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/incidents-8xh200.yaml";

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The export's summary line, key=value.
std::int64_t summary_field(const std::string& out, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(" " + key + "=(-?\\d+)"))) return -1;
  return std::stoll(m[1]);
}

// The files of a directory in name order (one file per window, named by its start: time order).
std::vector<std::string> files_of(const std::filesystem::path& dir) {
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files.push_back(f.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The timestamp (ms) of every sample line of a text 0.0.4 file.
std::vector<std::int64_t> sample_times(const std::string& path) {
  std::vector<std::int64_t> times;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    times.push_back(std::stoll(line.substr(line.rfind(' ') + 1)));
  }
  return times;
}

class SimExportTest : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }
  const std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("gpuwatch-export-" + std::to_string(::getpid()));
};

// History made in lockstep ends at now, never ahead of the wall clock: the last snapshot at the last
// multiple of the step, the first duration earlier.
TEST_F(SimExportTest, EndsAtTheLastStepBeforeNow) {
  const std::int64_t before = wall_ms();
  const auto r = run_process({kBinary, "sim", "export", "--scenario", kIncidents, "--duration", "5m",
                              "--step", "15s", "--format", "prometheus", "--out-dir", dir_.string()},
                             {{"GPUWATCH_SIM_EPOCH", ""}});
  const std::int64_t after = wall_ms();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::int64_t start = summary_field(r.out, "start_ms");
  const std::int64_t end = summary_field(r.out, "end_ms");
  EXPECT_EQ(end % 15000, 0) << r.out;
  EXPECT_LE(end, after);
  EXPECT_GT(end, before - 15000) << "the last snapshot is within a step of now";
  EXPECT_EQ(start, end - 19 * 15000) << "20 snapshots";
  EXPECT_NE(r.out.find("sim export: "), std::string::npos) << "the time range is printed: " << r.out;
  std::vector<std::int64_t> times;
  for (const auto& f : files_of(dir_)) {
    const auto t = sample_times(f);
    times.insert(times.end(), t.begin(), t.end());
  }
  ASSERT_FALSE(times.empty());
  EXPECT_EQ(*std::min_element(times.begin(), times.end()), start);
  EXPECT_EQ(*std::max_element(times.begin(), times.end()), end);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// A start the user fixed is kept, with a warning when the export then ends after now.
// History is never ahead of the clock: a start that would end the export after now is refused, saying why.
TEST_F(SimExportTest, AnEpochThatEndsAfterNowIsRefused) {
  const std::int64_t epoch_s = wall_ms() / 1000 - 5;
  const auto r = run_process(
      {kBinary, "sim", "export", "--scenario", kIncidents, "--duration", "1m", "--out-dir", dir_.string()},
      {{"GPUWATCH_SIM_EPOCH", std::to_string(epoch_s)}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("the export would end"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("after now"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_) && !std::filesystem::is_empty(dir_)) << "nothing is written";
}

// The same scenario and start give the same bytes, over a hung GPU (4 min to 5 min) and XIDs included: the
// files do not depend on the machine, its load or the threads' scheduling.
TEST_F(SimExportTest, TheSameStartGivesTheSameFiles) {
  std::vector<std::string> runs;
  for (int run = 0; run < 2; ++run) {
    std::filesystem::remove_all(dir_);
    const auto r = run_process({kBinary, "sim", "export", "--scenario", kIncidents, "--duration", "6m",
                                "--step", "1s", "--split", "0", "--out-dir", dir_.string()},
                               {{"GPUWATCH_SIM_EPOCH", "1796000000"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(summary_field(r.out, "start_ms"), 1796000000000) << r.out;
    const auto files = files_of(dir_);
    ASSERT_EQ(files.size(), 1U);
    runs.push_back(contents(files.front()));
  }
  EXPECT_TRUE(runs[0] == runs[1]) << "two exports of the same start differ";
  // GPU 5 is stale through its 60 s hang, and only then.
  std::size_t stale = 0;
  for (std::size_t at = runs[0].find("gpu_stale{gpu=\"5\""); at != std::string::npos;
       at = runs[0].find("gpu_stale{gpu=\"5\"", at + 1)) {
    const std::size_t end = runs[0].find('\n', at);
    const std::string line = runs[0].substr(at, end - at);
    stale += line.find("} 1 ") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(stale, 60U);
  EXPECT_EQ(runs[0].find("gpuwatch_collection_duration_seconds"), std::string::npos)
      << "the exporting machine's timings are left out";
}

// What the export counted is what import reads back, over the time range the export printed.
TEST_F(SimExportTest, AnExportedScenarioImportsWithoutALoss) {
  for (const std::string format : {"openmetrics", "prometheus"}) {
    SCOPED_TRACE(format);
    std::filesystem::remove_all(dir_);
    const auto exported =
        run_process({kBinary, "sim", "export", "--scenario", kIncidents, "--duration", "3m", "--step", "1s",
                     "--split", "1m", "--format", format, "--out-dir", dir_.string()});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(exported.out, m, std::regex("files=(\\d+) series=(\\d+) samples=(\\d+)")))
        << exported.out;
    EXPECT_GE(std::stoul(m[1]), 3u);
    const unsigned long series = std::stoul(m[2]);
    const std::string samples = m[3];
    EXPECT_GT(series, 8u * 20u) << "every native family of 8 GPUs";
    std::vector<std::string> argv{kBinary, "import", "--dry-run", "--quiet"};
    const auto files = files_of(dir_);
    argv.insert(argv.end(), files.begin(), files.end());
    const auto imported = run_process(argv);
    EXPECT_EQ(imported.exit_code, 0) << imported.err;
    EXPECT_NE(imported.out.find("samples:  " + samples + " imported of " + samples + " read"),
              std::string::npos)
        << imported.out;
    EXPECT_NE(imported.out.find("series:   " + std::to_string(series)), std::string::npos) << imported.out;
    const std::string range = "(" + std::to_string(summary_field(exported.out, "start_ms")) + " .. " +
                              std::to_string(summary_field(exported.out, "end_ms")) + " ms)";
    EXPECT_NE(imported.out.find(range), std::string::npos) << range << "\n" << imported.out;
  }
}

}  // namespace
}  // namespace gpuwatch::test
