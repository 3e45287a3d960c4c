// Runs the gpuwatch binary as a child process for end-to-end tests: captures its output and exit code, or
// keeps it running in the background (killed on destruction).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuwatch::test {

#if defined(GPUWATCH_BINARY_DIR) && defined(GPUWATCH_SOURCE_DIR)
// The gpuwatch binary of this build tree, and the scenarios of the source tree (a trailing '/').
inline const std::string kGpuwatchBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
inline const std::string kScenariosDir = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/";
#endif

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs to completion (killed after `timeout`); `env` entries are added to the current environment.
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {},
                          std::chrono::seconds timeout = std::chrono::seconds(60));

class BackgroundProcess {
 public:
  // Started in `cwd` when one is given, else in the current working directory.
  BackgroundProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                    const std::string& cwd = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Waits up to `timeout` for the process to exit; returns its exit code (-signal when killed), nullopt on
  // timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  std::string stderr_text() const;

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string stderr_path_;
};

// How an agent started with `--listen 127.0.0.1:0` came up: the port its log names ("(port N)"), or 0 with
// its exit code when it exited first (neither when `limit` passed).
struct AgentListening {
  int port = 0;
  std::optional<int> exit_code;
};
AgentListening wait_for_listening(BackgroundProcess& agent, std::chrono::milliseconds limit);
// Waits until the process's stderr holds `text` (true), or the limit passes (false).
bool wait_for_log(BackgroundProcess& process, const std::string& text, std::chrono::milliseconds limit);

// A TCP port on 127.0.0.1 that was free a moment ago, for a server that must listen on a port known before it
// starts (a scrape target named in a config, an agent restarted on the same port). It is drawn below the
// kernel's ephemeral range, so no outgoing connection of a test running beside can take it in the meantime,
// as one did to a port the kernel handed out for bind(0).
int free_port();

}  // namespace gpuwatch::test
