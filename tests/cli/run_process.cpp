#include "run_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace gpuwatch::test {
namespace {

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> all;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) all[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) all[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : all) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string temp_path(const char* what) {
  std::string pattern = std::string("/tmp/gpuwatch-test-") + what + "-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  return pattern;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

pid_t spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            const std::string& out_path, const std::string& err_path, const std::string& cwd = {}) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_TRUNC, 0600);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<std::string> args = argv;
  std::vector<std::string> envs = merged_environment(env);
  auto argp = pointers(args);
  auto envp = pointers(envs);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0] + " failed");
  return pid;
}

std::optional<int> wait_for(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    // Polling a child's exit; the child runs in wall time, there is no scenario clock to advance here.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                          std::chrono::seconds timeout) {
  const std::string out_path = temp_path("out"), err_path = temp_path("err");
  const pid_t pid = spawn(argv, env, out_path, err_path);
  ProcessResult result;
  auto code = wait_for(pid, timeout);
  if (!code) {
    ::kill(pid, SIGKILL);
    code = wait_for(pid, std::chrono::seconds(5));
  }
  result.exit_code = code && *code >= 0 ? *code : -1;
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const std::map<std::string, std::string>& env, const std::string& cwd)
    : stderr_path_(temp_path("bg-err")) {
  pid_ = spawn(argv, env, "/dev/null", stderr_path_, cwd);
}

BackgroundProcess::~BackgroundProcess() {
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    wait_for(pid_, std::chrono::seconds(5));
  }
  ::unlink(stderr_path_.c_str());
}

std::optional<int> BackgroundProcess::wait_exit(std::chrono::milliseconds timeout) {
  auto code = wait_for(pid_, timeout);
  if (code) reaped_ = true;
  return code;
}

std::string BackgroundProcess::stderr_text() const {
  return slurp(stderr_path_);
}

bool wait_for_log(BackgroundProcess& process, const std::string& text, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (process.stderr_text().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

AgentListening wait_for_listening(BackgroundProcess& agent, std::chrono::milliseconds limit) {
  const std::regex port_line(R"(\(port (\d+)\))");
  const auto deadline = std::chrono::steady_clock::now() + limit;
  AgentListening out;
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch m;
    const std::string log = agent.stderr_text();
    if (std::regex_search(log, m, port_line)) {
      out.port = std::stoi(m[1]);
      return out;
    }
    if ((out.exit_code = agent.wait_exit(std::chrono::milliseconds(20)))) return out;
  }
  return out;
}

int free_port() {
  // The ephemeral range's lower end (32768 by default); ports are drawn from the 12,000 below it.
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  const int high = std::max(ephemeral_low - 1, 2048);
  const int low = std::max(high - 12000, 1024);
  std::mt19937 draw(std::random_device{}() ^ static_cast<unsigned>(::getpid()));
  std::uniform_int_distribution<int> port_in(low, high);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = port_in(draw);
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (bound) return port;
  }
  throw std::runtime_error("cannot find a free port on 127.0.0.1");
}

}  // namespace gpuwatch::test
