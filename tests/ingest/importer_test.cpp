// The importer into an in-memory store that applies the store's ordering rule: what is imported, what is
// rejected and why, unreadable files, and a file far larger than the memory the import may use.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "ingest/importer.h"
#include "ingest/validating_appender.h"

namespace gpuwatch::ingest {
namespace {

std::string data(const std::string& name) {
  return std::string(GPUWATCH_INGEST_DATA) + "/" + name;
}

struct Result {
  ImportSummary summary;
  std::vector<std::string> errors;
  std::vector<ImportProgress> progress;
};

Result import(ValidatingAppender& appender, std::vector<std::string> paths, ImportOptions options = {}) {
  Result r;
  Importer importer(
      appender, std::move(paths), options, [&r](const ParseError& e) { r.errors.push_back(e.to_string()); },
      [&r](const ImportProgress& p) { r.progress.push_back(p); });
  r.summary = importer.run();
  return r;
}

ImportOptions small_batches() {
  ImportOptions o;
  o.batch_points = 3;
  return o;
}

ImportOptions release_every(std::size_t bytes) {
  ImportOptions o;
  o.release_every_bytes = bytes;
  return o;
}

TEST(Importer, ImportsBothGoldenFilesIntoTheSameSeries) {
  for (const char* name : {"small.prom", "small.om"}) {
    SCOPED_TRACE(name);
    ValidatingAppender store(true);
    const Result r = import(store, {data(name)});
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(r.summary.files, 1u);
    EXPECT_EQ(r.summary.series, 6u);
    EXPECT_EQ(r.summary.samples_read, 11u);
    EXPECT_EQ(r.summary.samples_imported, 11u);
    EXPECT_EQ(r.summary.min_t_ms, -1000);
    EXPECT_EQ(r.summary.max_t_ms, 1795824002000);
    EXPECT_EQ(store.commits(), 1u);
    ASSERT_EQ(store.points().size(), 6u);
    const auto& energy = store.points().at("gpu_energy_joules_total{gpu=\"0\", uuid=\"GPU-0a\"}");
    EXPECT_EQ(energy,
              (std::vector<store::Point>{{1795824000000, 31000000.125}, {1795824001000, 31000612.5}}));
  }
}

TEST(Importer, RejectsOutOfOrderAndDuplicateSamplesWithReasonsAndKeepsTheRest) {
  ValidatingAppender store(true);
  const Result r = import(store, {data("malformed.prom")});
  EXPECT_EQ(r.summary.bad_lines, 10u);
  EXPECT_EQ(r.errors.size(), 10u);
  EXPECT_EQ(r.summary.samples_read, 4u);
  EXPECT_EQ(r.summary.samples_imported, 2u);
  ASSERT_EQ(r.summary.rejected.size(), 2u);
  EXPECT_EQ(r.summary.rejected.at("out of order").count, 1u);
  EXPECT_EQ(r.summary.rejected.at("out of order").example,
            "gpu_up{gpu=\"0\"}: out of order: sample at 2000 ms, the series already has one at 3000 ms");
  EXPECT_EQ(r.summary.rejected.at("duplicate timestamp").count, 1u);
  EXPECT_EQ(store.points().at("gpu_up{gpu=\"0\"}"), (std::vector<store::Point>{{1000, 1}, {3000, 0}}));
}

TEST(Importer, AnUnreadableFileCostsThatFileOnly) {
  ValidatingAppender store;
  const Result r = import(store, {data("no-such-file.om"), data("small.om")});
  EXPECT_EQ(r.summary.unreadable_files, 1u);
  EXPECT_EQ(r.summary.files, 1u);
  EXPECT_EQ(r.summary.samples_imported, 11u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("no-such-file.om: cannot open: No such file or directory"), std::string::npos)
      << r.errors[0];
}

// An appender that fails at its third batch: the import stops with that error, and the parsing thread, which
// runs ahead, is stopped and joined (run() returns instead of waiting on a full hand-over).
class FailingAppender : public ValidatingAppender {
 public:
  std::vector<Rejection> append_points(const store::Labels& labels,
                                       std::span<const store::Point> points) override {
    if (++batches_ == 3) throw std::runtime_error("disk gone");
    return ValidatingAppender::append_points(labels, points);
  }

 private:
  int batches_ = 0;
};

TEST(Importer, AFailingAppendStopsTheImportAndItsParser) {
  FailingAppender store;
  ImportOptions o;
  o.batch_points = 1;  // many batches queued ahead of the appends
  std::vector<std::string> errors;
  Importer importer(store, {data("small.om"), data("small.om"), data("small.om")}, o,
                    [&errors](const ParseError& e) { errors.push_back(e.to_string()); });
  EXPECT_THROW(importer.run(), std::runtime_error);
  EXPECT_EQ(store.accepted(), 2u);
}

// Errors reach the sink in file order on the importing thread, with the batches between them.
TEST(Importer, ParseErrorsReachTheSinkInOrderOnTheImportingThread) {
  ValidatingAppender store;
  std::vector<std::string> errors;
  const auto importing = std::this_thread::get_id();
  bool elsewhere = false;
  Importer importer(store, {data("no-such-file.om"), data("small.om"), data("also-missing.om")}, {},
                    [&](const ParseError& e) {
                      elsewhere = elsewhere || std::this_thread::get_id() != importing;
                      errors.push_back(e.to_string());
                    });
  const ImportSummary summary = importer.run();
  EXPECT_FALSE(elsewhere);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("no-such-file.om"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("also-missing.om"), std::string::npos) << errors[1];
  EXPECT_EQ(summary.unreadable_files, 2u);
  EXPECT_EQ(summary.samples_imported, 11u);
}

TEST(Importer, BatchesNeverMixSeriesOrSplitRejections) {
  // Batches of 3 points: series boundaries and batch boundaries fall in different places.
  ValidatingAppender store(true);
  const Result r = import(store, {data("small.prom")}, small_batches());
  EXPECT_EQ(r.summary.samples_imported, 11u);
  EXPECT_EQ(store.points().at("gpu_temperature_celsius{gpu=\"1\", uuid=\"GPU-1b\"}").size(), 2u);
}

long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(Importer, StreamsAFileWithoutHoldingItInMemory) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuwatch-import-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "big.prom").string();
  constexpr int kSeries = 40;
  constexpr int kPoints = 8000;  // 320,000 samples, about 40 MB
  {
    std::ofstream out(path);
    std::string line;
    for (int s = 0; s < kSeries; ++s) {
      const std::string series = "gpu_pcie_rx_bytes_per_second{gpu=\"" + std::to_string(s) +
                                 "\",uuid=\"GPU-22b0cc41-43df-4331-be8b-9be7feba6c18\",model=\"NVIDIA H200\","
                                 "hostname=\"h200-node-01\"} ";
      for (int i = 0; i < kPoints; ++i) {
        line = series + std::to_string((s * 7919 + i * 104729) % 1000003 * 1024) + " " +
               std::to_string(1795824000000 + i * 1000L) + "\n";
        out << line;
      }
    }
  }
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 35u << 20);
  const long before = peak_rss_kb();
  ValidatingAppender store;
  const Result r = import(store, {path}, release_every(2u << 20));
  const long grown_kb = peak_rss_kb() - before;
  std::filesystem::remove_all(dir);

  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.summary.series, static_cast<std::size_t>(kSeries));
  EXPECT_EQ(r.summary.samples_imported, static_cast<std::size_t>(kSeries) * kPoints);
  EXPECT_EQ(r.summary.bytes, size);
  // Progress came along the way, in order, and ended at the whole file.
  ASSERT_GE(r.progress.size(), 4u);
  for (std::size_t i = 1; i < r.progress.size(); ++i) {
    EXPECT_GE(r.progress[i].bytes_done, r.progress[i - 1].bytes_done);
  }
  EXPECT_LT(r.progress[1].bytes_done, size / 2);
  EXPECT_EQ(r.progress.back().bytes_done, size);
  EXPECT_EQ(r.progress.back().bytes_total, size);
  // The mapped file's pages were handed back as the parse went: the peak grew by far less than the file.
  EXPECT_LT(grown_kb, static_cast<long>(size / 1024 / 3)) << "peak RSS grew by " << grown_kb << " kB";
}

}  // namespace
}  // namespace gpuwatch::ingest
