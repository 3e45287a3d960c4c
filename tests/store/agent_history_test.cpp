// The agent with history on, as a process on the simulator: history survives a restart, the store's health is
// on /metrics, the per-process cap folds extra processes into pid="other", and a full disk neither stops
// collection nor /metrics (an LD_PRELOAD shim makes writes under the data dir fail with ENOSPC on demand;
// a real size-limited tmpfs variant runs when the test may mount one).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "run_process.h"
#include "store/store.h"
#include "store/store_check.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

using gpuwatch::test::BackgroundProcess;
using test::TempDir;

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kScenario = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/healthy-8xh200.yaml";
constexpr auto kLimit = std::chrono::seconds(30);

class Agent {
 public:
  Agent(const std::string& data_dir, std::vector<std::string> args,
        std::map<std::string, std::string> env = {}, const std::string& scenario = kScenario) {
    std::vector<std::string> argv = {
        kBinary,      "agent", "--listen",   "127.0.0.1:0", "--sim-scenario",        scenario,
        "--interval", "100ms", "--data-dir", data_dir,      "--store-sync-interval", "100ms"};
    argv.insert(argv.end(), args.begin(), args.end());
    env.emplace("GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr)));
    process_ = std::make_unique<BackgroundProcess>(argv, env);
    port_ = wait_for_listening(*process_, kLimit).port;
  }
  int port() const { return port_; }
  BackgroundProcess& process() { return *process_; }

  std::string metrics() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(5, 0);
    auto r = client.Get("/metrics");
    return r && r->status == 200 ? r->body : std::string();
  }
  // The value of the first sample line starting with `series` (name and labels as rendered), or NaN.
  double value(const std::string& series) const {
    const std::string body = metrics();
    const std::size_t pos = body.find("\n" + series + " ");
    if (pos == std::string::npos) return std::nan("");
    return std::stod(body.substr(pos + series.size() + 2));
  }
  // Polls until the predicate holds on `series`' value.
  template <typename Pred>
  bool wait_value(const std::string& series, Pred pred) const {
    const auto deadline = std::chrono::steady_clock::now() + kLimit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (const double v = value(series); !std::isnan(v) && pred(v)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // Waits until the collector has ticked `n` more times.
  bool wait_ticks(double n) const {
    const double now = value("gpuwatch_ticks_total");
    return wait_value("gpuwatch_ticks_total", [&](double v) { return v >= (std::isnan(now) ? 0 : now) + n; });
  }
  void stop() {
    process_->signal(SIGTERM);
    EXPECT_EQ(process_->wait_exit(std::chrono::seconds(15)), 0) << process_->stderr_text();
  }

 private:
  std::unique_ptr<BackgroundProcess> process_;
  int port_ = 0;
};

std::vector<SeriesPoints> read_history(const std::string& dir, const std::string& name) {
  StoreOptions o;
  o.data_dir = dir;
  o.clock_domain = "sim:healthy-8xh200";
  o.background_flusher = false;
  auto store = Store::open(o);
  return store->select(std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, name}}, 0, INT64_MAX);
}

std::size_t points_of_gpu0(const std::vector<SeriesPoints>& all, std::int64_t* first = nullptr) {
  for (const auto& s : all) {
    if (label_value(s.labels, "gpu") == "0") {
      if (first) *first = s.points.front().t_ms;
      return s.points.size();
    }
  }
  return 0;
}

TEST(AgentHistory, KeepsHistoryAcrossARestartAndExportsStoreHealth) {
  TempDir dir;
  std::size_t first_run = 0;
  std::int64_t first_t = 0;
  {
    Agent agent(dir.path(), {});
    ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
    ASSERT_TRUE(agent.wait_ticks(20)) << agent.process().stderr_text();
    EXPECT_GT(agent.value("gpuwatch_store_samples_appended_total"), 2000);
    EXPECT_GT(agent.value("gpuwatch_store_series"), 100);
    EXPECT_GT(agent.value("gpuwatch_store_last_sync_timestamp_seconds"), 1.0e9);
    EXPECT_EQ(agent.value("gpuwatch_store_write_errors_total{reason=\"no_space\"}"), 0);
    agent.stop();
    first_run = points_of_gpu0(read_history(dir.path(), "gpu_up"), &first_t);
    ASSERT_GE(first_run, 20u);
    // Per-process series are stored like every other series /metrics shows.
    const auto processes = read_history(dir.path(), "gpu_process_memory_used_bytes");
    ASSERT_FALSE(processes.empty());
    EXPECT_FALSE(label_value(processes.front().labels, "pid").empty());
  }
  {
    Agent agent(dir.path(), {});
    ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
    ASSERT_TRUE(agent.wait_ticks(10));
    agent.stop();
  }
  std::int64_t t = 0;
  EXPECT_GT(points_of_gpu0(read_history(dir.path(), "gpu_up"), &t), first_run);
  EXPECT_EQ(t, first_t) << "the first run's samples are still there";
  const auto check = gpuwatch::test::run_process({kBinary, "store", "check", "--data-dir", dir.path()});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("no problems found"), std::string::npos) << check.out;
}

// The metric names of the sample lines of a /metrics body.
std::set<std::string> served_names(const std::string& body) {
  std::set<std::string> out;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    out.insert(line.substr(0, line.find_first_of("{ ")));
  }
  return out;
}

// Served is stored: every name /metrics serves is in the history (the query API's names), the alerts,
// the store's, the sinks' and the sources' families included, except the documented "Not stored" rows.
// Samples the store refuses are said in the log, not only counted: a first run whose scenario starts a day
// ahead leaves newer samples than a second run on the same node can write.
TEST(AgentHistory, RefusedSamplesAreLoggedNotOnlyCounted) {
  TempDir dir;
  const std::string scenario = dir.path() + "/node.yaml";
  std::ifstream in(kScenario);
  const std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  char tomorrow[32];
  const std::time_t t = std::time(nullptr) + 86400;
  std::tm utc{};
  gmtime_r(&t, &utc);
  std::strftime(tomorrow, sizeof tomorrow, "%Y-%m-%dT%H:%M:%SZ", &utc);
  std::ofstream(scenario) << std::regex_replace(yaml, std::regex("\nnode:\n"),
                                                std::string("\nnode:\n  start: ") + tomorrow + "\n");
  {
    Agent ahead(dir.path() + "/data", {}, {}, scenario);
    ASSERT_GT(ahead.port(), 0) << ahead.process().stderr_text();
    ASSERT_TRUE(ahead.wait_ticks(5)) << ahead.process().stderr_text();
    ahead.stop();
  }
  std::ofstream(scenario) << yaml;
  Agent now(dir.path() + "/data", {}, {}, scenario);
  ASSERT_GT(now.port(), 0) << now.process().stderr_text();
  ASSERT_TRUE(now.wait_value("gpuwatch_store_samples_rejected_total{reason=\"out_of_order\"}", [](double v) {
    return v > 0;
  })) << now.process().stderr_text();
  EXPECT_TRUE(gpuwatch::test::wait_for_log(now.process(), "history: refused", kLimit))
      << now.process().stderr_text();
  const std::string log = now.process().stderr_text();
  EXPECT_NE(log.find("out-of-order timestamp"), std::string::npos) << log;
  now.stop();
}

TEST(AgentHistory, EveryServedNameIsStoredExceptTheNotStoredRows) {
  TempDir dir;
  // A kernel log that cannot be read makes gpuwatch_source_error_info appear: a not-stored row.
  Agent agent(dir.path() + "/data", {"--kmsg", dir.path() + "/absent-kmsg"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_ticks(20)) << agent.process().stderr_text();
  // The Watchdog alert fires from the first evaluation: ALERTS has a series.
  ASSERT_TRUE(agent.wait_value(R"(gpuwatch_ticks_total)", [&](double) {
    return agent.metrics().find("\nALERTS{") != std::string::npos;
  })) << agent.metrics();
  const std::set<std::string> served = served_names(agent.metrics());
  ASSERT_TRUE(agent.wait_ticks(5));
  httplib::Client client("127.0.0.1", agent.port());
  client.set_read_timeout(5, 0);
  const auto reply = client.Get("/api/v1/label/__name__/values");
  ASSERT_TRUE(reply && reply->status == 200);
  std::set<std::string> stored;
  const std::regex quoted(R"re("([A-Za-z_:][A-Za-z0-9_:]*)")re");
  for (std::sregex_iterator it(reply->body.begin(), reply->body.end(), quoted), end; it != end; ++it)
    stored.insert((*it)[1]);
  for (const char* name :
       {"ALERTS", "ALERTS_FOR_STATE", "gpuwatch_store_series", "gpuwatch_sink_queue_length",
        "gpuwatch_source_success", "gpuwatch_kernel_log_readable"})
    EXPECT_TRUE(served.contains(name)) << name << " is not served";
  const std::set<std::string> not_stored = {"gpuwatch_source_error_info"};  // docs/metrics.md, "Not stored"
  EXPECT_TRUE(served.contains("gpuwatch_source_error_info"));
  for (const auto& name : served) {
    if (not_stored.contains(name)) {
      EXPECT_FALSE(stored.contains(name)) << name << " is stored but documented as not stored";
    } else {
      EXPECT_TRUE(stored.contains(name)) << name << " is served on /metrics but not stored";
    }
  }
  agent.stop();
}

TEST(AgentHistory, CapsPerProcessSeriesAndKeepsTheirTotals) {
  TempDir dir;
  Agent agent(dir.path(), {"--store-max-process-series", "2"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_value("gpuwatch_store_dropped_process_series_total", [](double v) { return v > 0; }))
      << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_ticks(10));
  agent.stop();
  std::size_t kept = 0, other = 0;
  for (const auto& name : {"gpu_process_memory_used_bytes", "gpu_process_sm_utilization_ratio",
                           "gpu_process_memory_utilization_ratio"}) {
    for (const auto& s : read_history(dir.path(), name)) {
      (label_value(s.labels, "pid") == "other" ? other : kept) += 1;
    }
  }
  EXPECT_LE(kept, 2u);
  EXPECT_GT(other, 0u);
}

// Runs the agent while the disk fills and frees again; `fill` and `free` make that happen.
void survives_a_full_disk(const std::string& dir, std::map<std::string, std::string> env,
                          const std::function<void()>& fill, const std::function<void()>& free) {
  Agent agent(dir, {}, std::move(env));
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_value("gpuwatch_store_last_sync_timestamp_seconds", [](double v) { return v > 0; }));
  fill();
  ASSERT_TRUE(agent.wait_value("gpuwatch_store_write_errors_total{reason=\"no_space\"}", [](double v) {
    return v > 0;
  })) << agent.process().stderr_text();
  // Collection and /metrics go on while nothing can be written.
  const double appended = agent.value("gpuwatch_store_samples_appended_total");
  ASSERT_TRUE(agent.wait_ticks(20));
  EXPECT_GT(agent.value("gpuwatch_store_samples_appended_total"), appended + 1000);
  EXPECT_NE(agent.metrics().find("gpu_utilization_ratio{"), std::string::npos);
  const double synced_before = agent.value("gpuwatch_store_last_sync_timestamp_seconds");
  free();
  ASSERT_TRUE(agent.wait_value("gpuwatch_store_last_sync_timestamp_seconds",
                               [&](double v) { return v > synced_before; }))
      << "writing did not resume: " << agent.process().stderr_text();
  const std::string log = agent.process().stderr_text();
  EXPECT_NE(log.find("writing to"), std::string::npos) << log;                  // "writing to DIR resumed"
  EXPECT_NE(log.find("samples are kept in memory"), std::string::npos) << log;  // the error, logged
  agent.stop();
  // The samples taken while the disk was full were kept in memory and written afterwards: no gap.
  const auto up = read_history(dir, "gpu_up");
  ASSERT_FALSE(up.empty());
  const auto& points = up.front().points;
  ASSERT_GE(points.size(), 20u);
  std::int64_t widest = 0;
  for (std::size_t i = 1; i < points.size(); ++i)
    widest = std::max(widest, points[i].t_ms - points[i - 1].t_ms);
  EXPECT_LE(widest, 1000) << "a gap in the history";
  EXPECT_TRUE(check_store(dir).clean()) << check_store(dir).summary();
}

TEST(AgentHistory, FullDiskKeepsMetricsServingAndWritingResumes) {
  TempDir dir;
  const std::string flag = dir.path() + "-full";
  const std::string data = dir.path() + "/data";
  std::filesystem::create_directories(data);
  survives_a_full_disk(
      data, {{"LD_PRELOAD", DISK_FULL_SHIM_PATH}, {"GW_SHIM_DIR", data}, {"GW_FULL_FLAG", flag}},
      [&] { std::ofstream(flag) << "full\n"; }, [&] { std::filesystem::remove(flag); });
  std::filesystem::remove(flag);
}

TEST(AgentHistory, FullTmpfsKeepsMetricsServingAndWritingResumes) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root; the ENOSPC shim test covers this";
  TempDir dir;
  if (::mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=4m") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
  const std::string data = dir.path() + "/data";
  const std::string filler = dir.path() + "/filler";
  std::filesystem::create_directories(data);
  survives_a_full_disk(
      data, {},
      [&] {
        std::ofstream out(filler, std::ios::binary);
        const std::string chunk(64 * 1024, 'x');
        for (int i = 0; i < 64 * 2; ++i) out << chunk;  // more than the 4 MiB: the rest of the space is gone
      },
      [&] { std::filesystem::remove(filler); });
  ::umount2(dir.path().c_str(), MNT_DETACH);
}

// What the agent answers while its history cannot open, and that it opens by itself once the cause is gone:
// `fix` removes the cause; `reason` is in the 503 and the log, `metric_reason` labels the failed opens.
void history_recovers(Agent& agent, const std::string& reason, const std::string& metric_reason,
                      const std::function<void()>& fix) {
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_ticks(3)) << agent.process().stderr_text();
  // The store's families stay, so its alerts can fire: down, and the failed opens counted as write errors.
  EXPECT_EQ(agent.value("gpuwatch_store_up"), 0) << agent.metrics();
  EXPECT_GE(agent.value("gpuwatch_store_open_errors_total{reason=\"" + metric_reason + "\"}"), 1);
  EXPECT_GE(agent.value("gpuwatch_store_write_errors_total{reason=\"" + metric_reason + "\"}"), 1);
  EXPECT_EQ(agent.value("gpuwatch_store_samples_appended_total"), 0);
  EXPECT_NE(agent.metrics().find("gpu_utilization_ratio{"), std::string::npos);  // collection goes on
  httplib::Client client("127.0.0.1", agent.port());
  auto r = client.Get("/api/v1/query?query=gpu_up");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503) << r->body;
  EXPECT_NE(r->body.find("history store unavailable: "), std::string::npos) << r->body;
  EXPECT_NE(r->body.find(reason), std::string::npos) << r->body;
  EXPECT_NE(agent.process().stderr_text().find(reason), std::string::npos);

  fix();
  ASSERT_TRUE(agent.wait_value("gpuwatch_store_up", [](double v) { return v == 1; }))
      << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_value("gpuwatch_store_samples_appended_total", [](double v) { return v > 0; }));
  r = client.Get("/api/v1/query?query=gpu_up");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(agent.process().stderr_text().find("history store: open in"), std::string::npos);
  agent.stop();
}

// A data dir below a regular file cannot be made (ENOTDIR); once the file is replaced by a directory the
// history opens by itself. Root ignores permissions, so this stands in for an unwritable data dir too.
TEST(AgentHistory, UnusableDataDirDegradesTheHistoryUntilItCanOpen) {
  TempDir dir;
  const std::string blocker = dir.path() + "/datafile";
  std::ofstream(blocker) << "not a directory\n";
  Agent agent(blocker + "/sub", {});
  history_recovers(agent, "Not a directory", "other", [&] {
    std::filesystem::remove(blocker);
    std::filesystem::create_directories(blocker + "/sub");
  });
}

// Another agent holding the data dir's LOCK: this one runs without history until the lock is released.
TEST(AgentHistory, DataDirHeldByAnotherAgentOpensWhenReleased) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  std::filesystem::create_directories(data);
  const int lock = ::open((data + "/LOCK").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  Agent agent(data, {});
  history_recovers(agent, "is in use by another gpuwatch process", "other", [&] { ::close(lock); });
}

// A disk that is full when the agent starts: the history opens once space frees, with no restart.
TEST(AgentHistory, FullDiskAtStartOpensTheHistoryWhenSpaceFrees) {
  TempDir dir;
  const std::string flag = dir.path() + "-full";
  const std::string data = dir.path() + "/data";
  std::filesystem::create_directories(data);
  std::ofstream(flag) << "full\n";
  Agent agent(data, {}, {{"LD_PRELOAD", DISK_FULL_SHIM_PATH}, {"GW_SHIM_DIR", data}, {"GW_FULL_FLAG", flag}});
  history_recovers(agent, "", "no_space", [&] { std::filesystem::remove(flag); });
  std::filesystem::remove(flag);
}

}  // namespace
}  // namespace gpuwatch::store
