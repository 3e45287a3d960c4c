// dcgm-exporter's HPC job mapping (--hpc-job-mapping-dir): a directory the batch scheduler writes, one file
// per GPU named by its index ("0", "1") or GPU.MIG instance ("2.0"), each line a job id running on it,
// written by the job's prolog and cleared by its epilog. For schedulers whose jobs the cgroup does not name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::hpc_jobs {

// Job ids by file name ("0", "2.0"), in file order, blank lines and surrounding spaces dropped.
using JobMapping = std::map<std::string, std::vector<std::string>>;

// The job ids of one file's text.
std::vector<std::string> job_ids_from_text(std::string_view text);

// Reads every regular file of `dir` whose name is an index or index.instance; nullopt when the directory
// cannot be read.
std::optional<JobMapping> read_job_mapping(const std::string& dir);

}  // namespace gpuwatch::hpc_jobs
