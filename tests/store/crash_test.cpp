// Crash safety: a child process appends through the real store (crash_writer) and is killed with SIGKILL at
// random moments, over and over on the same data dir. After each kill the store must pass the integrity
// check, hold every sample acknowledged as synced, and hold each series as a gap-free prefix (what is
// missing is only the tail written after the last sync), a power and energy pair among them, energy sealed
// against power and read through it. The power-loss variant also drops every write not followed by a sync
// (an LD_PRELOAD shim keeps the synced state of each file), as a power cut would.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "crash_pair.h"
#include "store/chunk_codec.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_check.h"
#include "temp_dir.h"

extern char** environ;

namespace gpuwatch::store {
namespace {

namespace fs = std::filesystem;
constexpr int kSeries = 6;

struct Child {
  pid_t pid = -1;
  int out = -1;  // read end of the child's stdout
};

Child spawn_writer(const std::string& dir, const std::map<std::string, std::string>& extra_env) {
  int pipe_fds[2];
  EXPECT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  for (const auto& [k, v] : extra_env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string program = CRASH_WRITER_PATH, series = std::to_string(kSeries);
  std::string dir_arg = dir;
  char* argv[] = {program.data(), dir_arg.data(), series.data(), nullptr};
  Child child;
  EXPECT_EQ(posix_spawn(&child.pid, program.c_str(), &actions, nullptr, argv, envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  child.out = pipe_fds[0];
  return child;
}

// Reads the child's output until `acked` lines appear (or the child dies); returns everything read.
std::string read_until_acked(int fd, std::string& so_far, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline && so_far.find("acked") == std::string::npos) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) so_far.append(buf, static_cast<std::size_t>(n));
    if (n == 0) break;
    if (n < 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return so_far;
}

std::int64_t last_acked(const std::string& out) {
  std::int64_t acked = 0;
  std::size_t pos = 0;
  while ((pos = out.find("acked ", pos)) != std::string::npos) {
    const std::size_t end = out.find('\n', pos);
    if (end == std::string::npos) break;  // a line cut by the kill says nothing
    acked = std::stoll(out.substr(pos + 6, end - pos - 6));
    pos = end;
  }
  return acked;
}

// After a power cut only synced contents remain: each file becomes its durable copy, or vanishes.
void lose_unsynced_writes(const std::string& dir, const std::string& durable) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  for (const auto& file : files) {
    std::string rel = fs::relative(file, dir).string();
    for (char& c : rel) c = c == '/' ? '%' : c;
    const fs::path copy = fs::path(durable) / rel;
    if (fs::exists(copy)) {
      fs::copy_file(copy, file, fs::copy_options::overwrite_existing);
    } else {
      fs::remove(file);
    }
  }
}

// The test's own clean open and close (outside the shim) synced what it wrote: that is the durable state now.
void everything_is_durable(const std::string& dir, const std::string& durable) {
  fs::remove_all(durable);
  fs::create_directories(durable);
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir).string();
    for (char& c : rel) c = c == '/' ? '%' : c;
    fs::copy_file(e.path(), fs::path(durable) / rel);
  }
}

void crash_many_times(int rounds, bool power_loss) {
  test::TempDir data, durable;
  std::map<std::string, std::string> env;
  if (power_loss) {
    env = {{"LD_PRELOAD", POWER_LOSS_SHIM_PATH},
           {"GW_SHIM_DIR", data.path()},
           {"GW_SHIM_DURABLE", durable.path()}};
  }
  std::mt19937 rng(20261129);
  std::uniform_int_distribution<int> delay_us(0, 25'000);
  std::int64_t acked_ever = 0, kept_tail = 0;
  for (int round = 0; round < rounds; ++round) {
    Child child = spawn_writer(data.path(), env);
    std::string out;
    read_until_acked(child.out, out, std::chrono::seconds(10));
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    ::kill(child.pid, SIGKILL);
    int status = 0;
    ::waitpid(child.pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "round " << round << ": the writer exited by itself, status "
                                     << status;
    char buf[4096];
    ::fcntl(child.out, F_SETFL, 0);
    for (ssize_t n; (n = ::read(child.out, buf, sizeof buf)) > 0;)
      out.append(buf, static_cast<std::size_t>(n));
    ::close(child.out);
    const std::int64_t acked = last_acked(out);
    ASSERT_GT(acked, 0) << "round " << round << ": the writer never acknowledged a sync";
    acked_ever = std::max(acked_ever, acked);
    if (power_loss) lose_unsynced_writes(data.path(), durable.path());

    StoreOptions options;
    options.data_dir = data.path();
    options.background_flusher = false;
    std::vector<SeriesPoints> got, power, energy;
    {
      auto store = Store::open(options);  // replays the WAL, cuts a torn tail
      got =
          store->select(std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, "crash_test_value"}},
                        0, INT64_MAX);
      power = store->select(
          std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, test::kCrashPower}}, 0, INT64_MAX);
      energy =
          store->select(std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, test::kCrashEnergy}},
                        0, INT64_MAX);
    }
    const CheckReport check = check_store(data.path());
    ASSERT_TRUE(check.clean()) << "round " << round << ":\n" << check.summary();
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kSeries)) << "round " << round;
    for (const auto& s : got) {
      const int i = std::stoi(label_value(s.labels, "i"));
      const auto& p = s.points;
      // Every acknowledged sample is there: nothing synced was lost.
      ASSERT_GE(static_cast<std::int64_t>(p.size()), acked_ever) << "round " << round << " series " << i;
      // A gap-free prefix t = 1..n with the right values: only the unsynced tail can be missing.
      for (std::size_t k = 0; k < p.size(); ++k) {
        ASSERT_EQ(p[k].t_ms, static_cast<std::int64_t>(k) + 1) << "round " << round << " series " << i;
        ASSERT_EQ(p[k].value, static_cast<double>(p[k].t_ms) * 0.25 + i);
      }
      // Nothing beyond one sync period after the last acknowledgement (7 rows per commit; the kill may fall
      // between a commit and its line): the loss is bounded by the sync period.
      ASSERT_LE(static_cast<std::int64_t>(p.size()), acked + 14) << "round " << round << " series " << i;
      kept_tail = std::max<std::int64_t>(kept_tail, static_cast<std::int64_t>(p.size()) - acked);
    }
    // The power and energy pair: the same, energy read through the power blocks it was sealed against.
    ASSERT_EQ(power.size(), 1u) << "round " << round;
    ASSERT_EQ(energy.size(), 1u) << "round " << round;
    for (const auto* s : {&power[0], &energy[0]}) {
      const bool is_energy = s == &energy[0];
      const auto& p = s->points;
      ASSERT_GE(static_cast<std::int64_t>(p.size()), acked_ever)
          << "round " << round << " energy " << is_energy;
      for (std::size_t k = 0; k < p.size(); ++k) {
        ASSERT_EQ(p[k].t_ms, static_cast<std::int64_t>(k) + 1)
            << "round " << round << " energy " << is_energy;
        ASSERT_EQ(p[k].value, is_energy ? test::crash_energy(p[k].t_ms) : test::crash_power(p[k].t_ms));
      }
      ASSERT_LE(static_cast<std::int64_t>(p.size()), acked + 14)
          << "round " << round << " energy " << is_energy;
    }
    if (power_loss) everything_is_durable(data.path(), durable.path());
  }
  std::cout << rounds << " kills; " << acked_ever
            << " rows acknowledged; the longest kept unacknowledged tail was " << kept_tail << " rows\n";
  // The pair was sealed as the store seals it: most energy blocks against power.
  std::size_t energy_blocks = 0, against_power = 0;
  SqliteDb db(data.path() + "/store.db", false);
  auto s = db.prepare(
      "SELECT b.data FROM blocks b JOIN series s ON s.id = b.series_id WHERE instr(s.labels, ?) > 0");
  const std::string_view name = test::kCrashEnergy;
  s.bind_blob(1, std::span(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()));
  while (s.step()) {
    ++energy_blocks;
    against_power += inspect_block(s.column_blob(0)).needs_reference ? 1 : 0;
  }
  std::cout << against_power << " of " << energy_blocks << " energy blocks coded against power\n";
  EXPECT_GT(against_power * 2, energy_blocks);
}

TEST(Crash, SigkillAtRandomPointsLosesNothingSynced) {
  crash_many_times(100, false);
}

TEST(Crash, PowerLossKeepsEverySyncedSampleAndTheStoreOpens) {
  crash_many_times(40, true);
}

}  // namespace
}  // namespace gpuwatch::store
