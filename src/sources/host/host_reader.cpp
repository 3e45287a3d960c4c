#include "sources/host/host_reader.h"

#include <algorithm>
#include <chrono>
#include <string_view>

#include "core/file_io.h"
#include "core/utf8.h"

namespace gpuwatch {
namespace {

// The CUDA driver and runtime libraries a process maps (each path once). A framework's process maps thousands
// of files: only the lines that name one of the two libraries are looked at.
std::vector<std::string> cuda_libraries(const std::string& proc_root, unsigned pid) {
  std::vector<std::string> out;
  const auto maps = read_file(proc_root + "/" + std::to_string(pid) + "/maps");
  if (!maps) return out;
  const std::string_view text = *maps;
  // Every line that can name either library holds "/libcud"; the rest are skipped unread.
  for (auto at = text.find("/libcud"); at != std::string_view::npos; at = text.find("/libcud", at)) {
    const auto begin = text.rfind('\n', at) + 1;  // npos + 1 == 0: the first line
    const auto end = std::min(text.find('\n', at), text.size());
    at = end;
    const std::string_view line = text.substr(begin, end - begin);
    const std::string_view path = line.substr(line.find('/'));
    const std::string_view base = path.substr(path.rfind('/') + 1);
    if (!base.starts_with("libcuda.so.") && !base.starts_with("libcudart.so.")) continue;
    std::string valid = to_valid_utf8(path);  // quoted in alerts
    if (std::find(out.begin(), out.end(), valid) == out.end()) out.push_back(std::move(valid));
  }
  return out;
}

// Wall time of one source's read, for gpuwatch_source_duration_seconds.
class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

SourceStatus ok(std::string name, const Stopwatch& watch) {
  return SourceStatus{std::move(name), true, watch.seconds(), {}, {}};
}

}  // namespace

HostReader::HostReader(HostSourceOptions options, const std::shared_ptr<const HostSnapshot>& resume_from)
    : options_(std::move(options)),
      users_(options_.proc_root.empty() ? std::vector<std::string>{}
                                        : procfs::passwd_paths(options_.proc_root)) {
  if (!options_.kmsg.empty()) {
    kmsg_.emplace(options_.kmsg);
    names_.push_back("kernel_log");
    if (const auto& earlier = resume_from; earlier && earlier->kernel_log) {
      kmsg_->resume(*earlier->kernel_log);
      if (earlier->kernel_events) events_ = earlier->kernel_events;
      events_read_ = earlier->kernel_events_read;
      event_counts_ = earlier->kernel_event_counts;
    }
  }
  if (!options_.sysfs_root.empty()) {
    for (const char* name : {"pcie_aer", "pcie_topology", "driver_module"}) names_.emplace_back(name);
  }
  if (!options_.proc_root.empty()) names_.push_back("procfs");
  if (!options_.pod_resources_socket.empty()) {
    kubelet_.emplace(options_.pod_resources_socket, options_.kubelet_module);
    names_.push_back("kubelet");
  }
  if (!options_.hpc_job_mapping_dir.empty()) names_.push_back("hpc_job_mapping");
}

HostReading HostReader::read(const HostRequest& request) {
  auto host = std::make_shared<HostSnapshot>();
  HostReading out;
  read_kernel_log(*host, out.sources);
  read_sysfs(request, *host, out.sources);
  read_procfs(request, *host, out.sources);
  read_workload_names(request, *host, out.sources);
  out.host = std::move(host);
  return out;
}

void HostReader::read_kernel_log(HostSnapshot& host, std::vector<SourceStatus>& out) {
  if (!kmsg_) return;
  const Stopwatch watch;
  auto fresh = kmsg_->poll();
  if (!fresh.empty()) {
    // Copied only when something was logged: the window is shared between snapshots otherwise.
    auto window = std::make_shared<std::vector<kernel::KernelEvent>>(*events_);
    events_read_ += fresh.size();
    for (auto& e : fresh) {
      ++event_counts_[kernel::to_string(e.kind)];
      window->push_back(std::move(e));
    }
    if (window->size() > kKernelEventWindow)
      window->erase(window->begin(), window->end() - static_cast<std::ptrdiff_t>(kKernelEventWindow));
    events_ = std::move(window);
  }
  host.kernel_events = events_;
  host.kernel_events_read = events_read_;
  host.kernel_event_counts = event_counts_;
  host.kernel_log = kmsg_->status();
  SourceStatus status = ok("kernel_log", watch);
  if (!host.kernel_log->readable) {
    status.success = false;
    status.reason = "unreadable";
    status.message = host.kernel_log->error;
  }
  out.push_back(std::move(status));
}

void HostReader::read_sysfs(const HostRequest& request, HostSnapshot& host, std::vector<SourceStatus>& out) {
  host.shared_pcie_links = shared_links_;
  if (options_.sysfs_root.empty()) return;
  {
    const Stopwatch watch;
    for (const auto& bus : request.gpu_bus_ids) {
      if (auto aer = kernel::read_aer_counters(options_.sysfs_root, bus)) host.aer[bus] = *aer;
    }
    out.push_back(ok("pcie_aer", watch));
  }
  {
    const Stopwatch watch;
    // A link can retrain, so the topology is re-read now and then, and at once when the GPUs change.
    if (request.gpu_bus_ids != topology_gpus_ || request.now_ms - topology_read_ms_ >= kTopologyRefreshMs ||
        request.now_ms < topology_read_ms_) {
      shared_links_ = std::make_shared<const std::vector<kernel::SharedPcieLink>>(
          kernel::read_shared_pcie_links(options_.sysfs_root, request.gpu_bus_ids));
      topology_gpus_ = request.gpu_bus_ids;
      topology_read_ms_ = request.now_ms;
    }
    host.shared_pcie_links = shared_links_;
    out.push_back(ok("pcie_topology", watch));
  }
  {
    const Stopwatch watch;
    host.kernel_module_version = kernel::read_nvidia_module_version(options_.sysfs_root);
    out.push_back(ok("driver_module", watch));
  }
}

void HostReader::read_procfs(const HostRequest& request, HostSnapshot& host, std::vector<SourceStatus>& out) {
  host.process_libraries = libraries_;
  host.workloads = workloads_;
  host.process_details = details_;
  if (options_.proc_root.empty()) return;
  const Stopwatch watch;
  if (request.pids != pids_) {
    // A process is read once: what it maps, where it runs and who runs it are kept until it leaves the
    // snapshot.
    auto libraries = std::make_shared<std::map<unsigned, std::vector<std::string>>>();
    auto workloads = std::make_shared<std::map<unsigned, procfs::Workload>>();
    auto details = std::make_shared<std::map<unsigned, procfs::ProcessDetails>>();
    for (unsigned pid : request.pids) {
      if (auto it = libraries_->find(pid); it != libraries_->end()) {
        libraries->emplace(pid, it->second);
        workloads->emplace(pid, workloads_->at(pid));
        details->emplace(pid, details_->at(pid));
        continue;
      }
      libraries->emplace(pid, cuda_libraries(options_.proc_root, pid));
      workloads->emplace(pid, procfs::read_workload(options_.proc_root, pid).value_or(procfs::Workload{}));
      details->emplace(pid, procfs::read_process_details(options_.proc_root, pid, users_));
    }
    libraries_ = std::move(libraries);
    workloads_ = std::move(workloads);
    details_ = std::move(details);
    pids_ = request.pids;
  }
  host.process_libraries = libraries_;
  host.workloads = workloads_;
  host.process_details = details_;
  out.push_back(ok("procfs", watch));
}

}  // namespace gpuwatch

namespace gpuwatch {

void HostReader::read_workload_names(const HostRequest& request, HostSnapshot& host,
                                     std::vector<SourceStatus>& out) {
  if (kubelet_) {
    const Stopwatch watch;
    // What is left of the tick's deadline, less a margin, and at most a second: a kubelet that does not
    // answer costs this source its reading, never the tick. Without a deadline, 40 ms (the shortest tick
    // deadline is 50 ms).
    using std::chrono::milliseconds;
    milliseconds call_deadline{40};
    if (request.deadline) {
      const auto left =
          std::chrono::duration_cast<milliseconds>(*request.deadline - std::chrono::steady_clock::now());
      call_deadline = std::clamp(left - milliseconds(10), milliseconds(1), milliseconds(1000));
    }
    auto read = kubelet_->read(request.now_ms, call_deadline);
    host.pod_resources = std::move(read.reading);
    if (read.error) {
      out.push_back(SourceStatus{"kubelet", false, watch.seconds(), read.error->reason, read.error->message});
    } else {
      out.push_back(ok("kubelet", watch));
    }
  }
  if (!options_.hpc_job_mapping_dir.empty()) {
    const Stopwatch watch;
    if (auto mapping = hpc_jobs::read_job_mapping(options_.hpc_job_mapping_dir)) {
      if (*mapping != *jobs_) jobs_ = std::make_shared<const hpc_jobs::JobMapping>(std::move(*mapping));
      host.hpc_jobs = jobs_;
      out.push_back(ok("hpc_job_mapping", watch));
    } else {
      host.hpc_jobs = jobs_ = std::make_shared<const hpc_jobs::JobMapping>();
      out.push_back(SourceStatus{"hpc_job_mapping", false, watch.seconds(), "unreadable",
                                 "cannot read the directory " + options_.hpc_job_mapping_dir});
    }
  }
}

}  // namespace gpuwatch
