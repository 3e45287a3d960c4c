// OpenSLO v1 (openslo.com): documents of kind SLO, with an inline `indicator` or an `indicatorRef` to a
// document of kind SLI. An SLI's ratioMetric (good or bad, and total; each a metricSource whose spec.query is
// a Prometheus query of counters) is evaluated; a thresholdMetric (a gauge compared with a value, meaningful
// with Timeslices budgeting) is refused with the reason, as is budgetingMethod Timeslices or RatioTimeslices.
// timeWindow: one entry, `duration` with isRolling true (rolling) or a calendar (calendar-aligned).
#include <map>
#include <stdexcept>

#include "core/duration.h"
#include "slo/event_query.h"
#include "slo/spec_files.h"

namespace gpuwatch::slo {
namespace {

std::string text_of(const YAML::Node& node, const std::string& file) {
  if (!node.IsScalar()) throw error_at(file, node, "expected text");
  return node.Scalar();
}

std::vector<EventSelector> source_query(const YAML::Node& side, const std::string& file) {
  const YAML::Node source = required(side, "metricSource", file);
  const YAML::Node spec = required(source, "spec", file);
  const YAML::Node query = required(spec, "query", file);
  try {
    return parse_event_query(text_of(query, file));
  } catch (const std::invalid_argument& e) {
    throw error_at(file, query, e.what());
  }
}

void read_indicator(const YAML::Node& sli_spec, const std::string& file, SloSpec& s) {
  if (sli_spec["thresholdMetric"]) {
    throw error_at(
        file, sli_spec["thresholdMetric"],
        "thresholdMetric is not evaluated by the agent: write a ratioMetric (for latency: good = the "
        "histogram's bucket at the threshold, total = its _count)");
  }
  const YAML::Node ratio = required(sli_spec, "ratioMetric", file);
  if (ratio["good"] && ratio["bad"]) throw error_at(file, ratio, "ratioMetric: give good or bad, not both");
  if (ratio["good"]) {
    s.kind = EventKind::kGood;
    s.events = source_query(ratio["good"], file);
  } else {
    s.kind = EventKind::kBad;
    s.events = source_query(required(ratio, "bad", file), file);
  }
  s.total = source_query(required(ratio, "total", file), file);
}

double objective_of(const YAML::Node& spec, const std::string& file) {
  const YAML::Node objectives = required(spec, "objectives", file);
  if (!objectives.IsSequence() || objectives.size() != 1)
    throw error_at(file, objectives, "objectives: expected one objective (the agent tracks one per SLO)");
  const YAML::Node o = objectives[0];
  try {
    if (o["target"]) {
      const double t = o["target"].as<double>();
      if (t > 0 && t < 1) return t;
      throw error_at(file, o["target"], "target: must be above 0 and below 1 (targetPercent takes 99.9)");
    }
    const YAML::Node p = required(o, "targetPercent", file);
    const double t = p.as<double>();
    if (t > 0 && t < 100) return t / 100;
    throw error_at(file, p, "targetPercent: must be above 0 and below 100");
  } catch (const YAML::Exception&) {
    throw error_at(file, o, "target: expected a number");
  }
}

void read_window(const YAML::Node& spec, const std::string& file, SloSpec& s) {
  const YAML::Node windows = spec["timeWindow"];
  if (!windows) return;  // Sloth's and the workbook's 30 days
  if (!windows.IsSequence() || windows.size() != 1)
    throw error_at(file, windows, "timeWindow: expected one entry");
  const YAML::Node w = windows[0];
  const YAML::Node duration = required(w, "duration", file);
  s.calendar = w["calendar"].IsDefined() || (w["isRolling"] && !w["isRolling"].as<bool>(true));
  if (!s.calendar) {
    const auto d = parse_duration(text_of(duration, file));
    if (!d || d->count() <= 0)
      throw error_at(file, duration,
                     "duration: expected a duration such as 28d (a rolling window has no 1M)");
    s.period = *d;
    return;
  }
  const auto p = parse_calendar_duration(text_of(duration, file));
  if (!p)
    throw error_at(file, duration, "duration: expected a calendar duration such as 1d, 1w, 1M, 1Q or 1Y");
  s.calendar_period = *p;
  if (const YAML::Node c = w["calendar"]; c) {
    if (!c.IsMap()) throw error_at(file, c, "calendar: expected startTime and timeZone");
    if (c["startTime"]) s.calendar_period.start_time = text_of(c["startTime"], file);
    if (c["timeZone"]) s.calendar_period.time_zone = text_of(c["timeZone"], file);
  }
  try {
    CalendarClock check(s.calendar_period);  // an unknown zone or a bad start stops the file here
  } catch (const std::invalid_argument& e) {
    throw error_at(file, w["calendar"] ? w["calendar"] : duration, std::string("calendar: ") + e.what());
  }
  s.period = nominal_length(s.calendar_period);
}

}  // namespace

std::vector<SloSpec> parse_openslo(const std::vector<YAML::Node>& docs, const std::string& file) {
  std::map<std::string, YAML::Node> slis;  // SLI documents by metadata.name
  for (const auto& d : docs) {
    if (!d.IsMap())
      throw error_at(file, d, "expected an OpenSLO document (apiVersion, kind, metadata, spec)");
    const std::string api = text_of(required(d, "apiVersion", file), file);
    if (api != "openslo/v1")
      throw error_at(file, d["apiVersion"], "unknown apiVersion (expected openslo/v1)");
    if (text_of(required(d, "kind", file), file) == "SLI")
      slis[text_of(required(required(d, "metadata", file), "name", file), file)] = required(d, "spec", file);
  }
  std::vector<SloSpec> out;
  for (const auto& d : docs) {
    if (d["kind"].Scalar() != "SLO") continue;  // Service, SLI, AlertPolicy, ...: read past
    SloSpec s;
    s.origin = origin_of(file, d);
    const YAML::Node meta = required(d, "metadata", file);
    s.name = text_of(required(meta, "name", file), file);
    const YAML::Node spec = required(d, "spec", file);
    s.service = text_of(required(spec, "service", file), file);
    if (spec["description"]) s.description = text_of(spec["description"], file);
    if (const YAML::Node method = spec["budgetingMethod"]; method && text_of(method, file) != "Occurrences") {
      throw error_at(file, method, "budgetingMethod: only Occurrences is evaluated (events, not timeslices)");
    }
    if (spec["indicator"]) {
      read_indicator(required(spec["indicator"], "spec", file), file, s);
    } else {
      const YAML::Node ref = required(spec, "indicatorRef", file);
      const auto it = slis.find(text_of(ref, file));
      if (it == slis.end())
        throw error_at(file, ref, "indicatorRef: no SLI named " + ref.Scalar() + " in the file");
      read_indicator(it->second, file, s);
    }
    s.objective = objective_of(spec, file);
    read_window(spec, file, s);
    out.push_back(std::move(s));
  }
  if (out.empty()) throw SpecError(file, 1, 1, "no document of kind SLO in the file");
  return out;
}

}  // namespace gpuwatch::slo
