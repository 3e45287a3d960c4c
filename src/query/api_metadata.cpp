#include "query/api_metadata.h"

#include <algorithm>
#include <set>

#include "core/json_text.h"
#include "core/snapshot.h"
#include "exposition/dcgm_metrics.h"
#include "exposition/native_metrics.h"

namespace gpuwatch::query {
namespace {

// Metadata names types as OpenMetrics does (an info family is "info").
std::string type_name(FamilyType type) {
  return std::string(type_word(type, ExpositionFormat::kOpenMetrics));
}

}  // namespace

FamilyMetadata family_metadata(const Family& family) {
  return {std::string(family.name), type_name(family.type), std::string(family.help),
          std::string(family.unit)};
}

std::vector<FamilyMetadata> served_metadata(const PublishedMetadata& published) {
  std::vector<FamilyMetadata> out;
  std::set<std::string> seen;
  const auto add = [&](FamilyMetadata m) {
    if (seen.insert(m.name).second) out.push_back(std::move(m));
  };
  // An empty snapshot has every family of the snapshot's, with no series: the catalogue's and the others.
  for (const Family& f : native_families(Snapshot{})) add(family_metadata(f));
  if (published) {
    for (auto& m : published()) add(std::move(m));
  }
  for (const DcgmField& f : dcgm_fields()) {
    if (f.source == DcgmSource::kCatalogue)
      add({std::string(f.name), type_name(f.type), std::string(f.help), ""});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::string metadata_json(const std::vector<FamilyMetadata>& families, const std::string& metric,
                          long limit) {
  std::string out = "{";
  long n = 0;
  for (const FamilyMetadata& m : families) {
    if (!metric.empty() && m.name != metric) continue;
    if (limit >= 0 && n >= limit) break;
    if (n++) out += ',';
    append_json_string(out, m.name);
    out += R"(:[{"type":)";
    append_json_string(out, m.type);
    out += R"(,"help":)";
    append_json_string(out, m.help);
    out += R"(,"unit":)";
    append_json_string(out, m.unit);
    out += "}]";
  }
  return out + "}";
}

}  // namespace gpuwatch::query
