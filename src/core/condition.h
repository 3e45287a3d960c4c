// The boundary between detection and alerting. Each evaluation, the detectors report every condition that
// holds at that moment; the alert engine turns the stream of conditions into alerts with a lifecycle
// (pending for `for_duration`, firing, resolved), deduplicates, silences, inhibits and delivers them.
// A detector says what is wrong and what to do; it never decides whether or where to send.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

enum class Severity { kPage, kTicket };
std::string_view severity_name(Severity s);  // "page", "ticket"

struct Condition {
  std::string
      alertname;  // CamelCase, e.g. "GpuXidCritical"; also names the runbook docs/runbooks/<alertname>.md
  Severity severity = Severity::kTicket;
  // Identifying labels: gpu, uuid, and where known xid, pid, process, container_id, pod_uid, slurm_job.
  // The engine adds alertname, severity and hostname; it fingerprints on the full set, so a label that
  // changes every evaluation (a measured value) belongs in the description, never here.
  std::map<std::string, std::string> labels;
  std::string summary;      // one line, e.g. "GPU 3 fell off the bus"
  std::string description;  // with the measured values, e.g. "temperature 91 C, slowdown at 93 C"
  std::string action;       // what the operator does now
  std::chrono::milliseconds for_duration{0};  // how long the condition must hold before the alert fires
  // An event's condition (an XID) holds until then even when no detector reports it again: the engine keeps
  // the alert until this time, also after an agent restart that lost the detector's memory of the event.
  // 0 = holds only while reported. Milliseconds since the Unix epoch.
  std::int64_t holds_until_ms = 0;
};

// The alert engine, which consumes conditions, spells them alerting::...
namespace alerting {
using gpuwatch::Condition;
using gpuwatch::Severity;
using gpuwatch::severity_name;
}  // namespace alerting

}  // namespace gpuwatch
