// /api/v1/metadata: the type, help and unit of every family the agent serves, as Prometheus answers them for
// the families it scraped: the metric catalogue's, the snapshot's other families (gpu_info,
// gpu_driver_info, gpuwatch_build_info, the PCIe link families, ...), what the agent's parts publish beside
// them (ALERTS, deliveries), and dcgm-exporter's fields, which the query API answers from the history too.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "exposition/exposition.h"

namespace gpuwatch::query {

struct FamilyMetadata {
  std::string name;  // the sample name as queried: gpu_info, gpu_energy_joules_total
  std::string type;  // counter, gauge or info
  std::string help;
  std::string unit;
};

FamilyMetadata family_metadata(const Family& family);

// Families beyond the snapshot's and the dcgm table's (what the agent's parts publish); may be empty.
using PublishedMetadata = std::function<std::vector<FamilyMetadata>()>;

// Every family, each once (the first seen wins), sorted by name.
std::vector<FamilyMetadata> served_metadata(const PublishedMetadata& published);

// The data object: {"name":[{"type":..,"help":..,"unit":..}], ...}; `metric` keeps that one only ("" all),
// `limit` the first that many (negative: all).
std::string metadata_json(const std::vector<FamilyMetadata>& families, const std::string& metric, long limit);

}  // namespace gpuwatch::query
