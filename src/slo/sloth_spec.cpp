// Sloth's prometheus/v1 spec (sloth.dev): service, labels, slos[] with name, objective (a percentage),
// description, sli.events.error_query/total_query (sli.raw is a ratio query, which the agent cannot keep as
// counts: refused) and alerting.name, page_alert.disable, ticket_alert.disable. Sloth's period is 30 days.
#include <stdexcept>

#include "slo/event_query.h"
#include "slo/spec_files.h"

namespace gpuwatch::slo {
namespace {

std::string text_of(const YAML::Node& node, const std::string& file) {
  if (!node.IsScalar()) throw error_at(file, node, "expected text");
  return node.Scalar();
}

std::vector<EventSelector> events_of(const YAML::Node& node, const std::string& file) {
  try {
    return parse_event_query(text_of(node, file));
  } catch (const std::invalid_argument& e) {
    throw error_at(file, node, e.what());
  }
}

bool disabled(const YAML::Node& alert, const std::string& file) {
  if (!alert || !alert["disable"]) return false;
  try {
    return alert["disable"].as<bool>();
  } catch (const YAML::Exception&) {
    throw error_at(file, alert["disable"], "disable: expected true or false");
  }
}

SloSpec one_slo(const YAML::Node& node, const std::string& service, const std::string& file) {
  if (!node.IsMap()) throw error_at(file, node, "expected an SLO (name, objective, sli)");
  SloSpec s;
  s.service = service;
  s.origin = origin_of(file, node);
  s.name = text_of(required(node, "name", file), file);
  const YAML::Node objective = required(node, "objective", file);
  double percent = 0;
  try {
    percent = objective.as<double>();
  } catch (const YAML::Exception&) {
    throw error_at(file, objective, "objective: expected a percentage such as 99.9");
  }
  if (!(percent > 0 && percent < 100))
    throw error_at(file, objective, "objective: must be above 0 and below 100");
  s.objective = percent / 100;
  if (node["description"]) s.description = text_of(node["description"], file);
  const YAML::Node sli = required(node, "sli", file);
  if (sli["raw"]) {
    throw error_at(
        file, sli["raw"],
        "sli.raw is a ratio query: the agent keeps counts, so write sli.events (error_query, total_query)");
  }
  if (sli["plugin"])
    throw error_at(file, sli["plugin"], "Sloth SLI plugins are not supported: write sli.events");
  const YAML::Node events = required(sli, "events", file);
  s.kind = EventKind::kBad;
  s.events = events_of(required(events, "error_query", file), file);
  s.total = events_of(required(events, "total_query", file), file);
  if (const YAML::Node alerting = node["alerting"]) {
    if (alerting["name"]) s.alertname = text_of(alerting["name"], file);
    s.page_enabled = !disabled(alerting["page_alert"], file);
    s.ticket_enabled = !disabled(alerting["ticket_alert"], file);
  }
  if (const YAML::Node gpus = node["gpus"]) {  // gpuwatch's addition: the GPUs that serve it, when stated
    if (!gpus.IsSequence()) throw error_at(file, gpus, "gpus: expected a list of GPU indexes");
    for (const auto& g : gpus) s.gpus.push_back(text_of(g, file));
  }
  return s;
}

}  // namespace

std::vector<SloSpec> parse_sloth(const YAML::Node& doc, const std::string& file) {
  const std::string service = text_of(required(doc, "service", file), file);
  const YAML::Node slos = required(doc, "slos", file);
  if (!slos.IsSequence() || slos.size() == 0) throw error_at(file, slos, "slos: expected a list of SLOs");
  std::vector<SloSpec> out;
  for (const auto& node : slos) out.push_back(one_slo(node, service, file));
  return out;
}

}  // namespace gpuwatch::slo
