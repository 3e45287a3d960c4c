// Reading a Shape: a plain value ("80", "60GiB") or a map of value/segments/periodic/noise/min/max.
#include <algorithm>

#include "sim/scenario_loader.h"

namespace gpuwatch::sim {
namespace {

double read_value(const YamlReader& in, const YAML::Node& node, ShapeUnit unit) {
  switch (unit) {
    case ShapeUnit::kBytes:
      return in.bytes(node);
    case ShapeUnit::kBytesPerSecond:
      return in.rate(node, true);
    case ShapeUnit::kPercent:
    case ShapeUnit::kCount:
      break;
  }
  return in.number(node, "a value");
}

Periodic read_periodic(const YamlReader& in, const YAML::Node& node, ShapeUnit unit) {
  in.expect_map(node, "periodic", {"period", "amplitude", "phase", "wave"});
  Periodic p;
  if (!node["period"] || !node["amplitude"]) in.fail(node, "periodic needs a period and an amplitude");
  p.period = in.seconds(node["period"]);
  if (p.period <= 0) in.fail(node["period"], "expected a period > 0");
  p.amplitude = read_value(in, node["amplitude"], unit);
  if (node["phase"]) p.phase = in.seconds(node["phase"]);
  if (const auto w = node["wave"]) {
    const std::string s = in.text(w, "wave");
    if (s == "sine")
      p.wave = Wave::kSine;
    else if (s == "square")
      p.wave = Wave::kSquare;
    else if (s == "sawtooth")
      p.wave = Wave::kSawtooth;
    else
      in.fail(w, "expected wave 'sine', 'square' or 'sawtooth', got '" + s + "'");
  }
  return p;
}

}  // namespace

Shape read_shape(const YamlReader& in, const YAML::Node& node, ShapeUnit unit) {
  Shape shape;
  shape.set = true;
  if (unit == ShapeUnit::kPercent) shape.max = 100;
  if (node.IsScalar()) {
    shape.segments.push_back({0, read_value(in, node, unit), 0});
    return shape;
  }
  in.expect_map(node, "a shape", {"value", "segments", "periodic", "noise", "min", "max"});
  if (node["value"]) shape.segments.push_back({0, read_value(in, node["value"], unit), 0});
  if (const auto segs = node["segments"]) {
    if (node["value"]) in.fail(segs, "give either value or segments, not both");
    in.expect_list(segs, "segments");
    for (const auto& s : segs) {
      in.expect_map(s, "a segment", {"at", "value", "ramp"});
      if (!s["at"] || !s["value"]) in.fail(s, "a segment needs at and value");
      Segment seg{in.seconds(s["at"]), read_value(in, s["value"], unit), 0};
      if (s["ramp"]) seg.ramp = in.seconds(s["ramp"]);
      if (!shape.segments.empty() && seg.at < shape.segments.back().at)
        in.fail(s["at"], "segments must be in time order");
      shape.segments.push_back(seg);
    }
  }
  if (const auto per = node["periodic"]) {
    if (per.IsSequence()) {
      for (const auto& p : per) shape.periodic.push_back(read_periodic(in, p, unit));
    } else {
      shape.periodic.push_back(read_periodic(in, per, unit));
    }
  }
  if (node["noise"]) shape.noise = read_value(in, node["noise"], unit);
  if (node["min"]) shape.min = read_value(in, node["min"], unit);
  if (node["max"]) shape.max = read_value(in, node["max"], unit);
  if (shape.max < shape.min) in.fail(node, "max is below min");
  return shape;
}

}  // namespace gpuwatch::sim
