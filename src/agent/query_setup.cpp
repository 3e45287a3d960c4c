#include "agent/query_setup.h"

#include "agent/latest_series.h"
#include "query/dcgm_series_source.h"
#include "query/query_api.h"
#include "query/target_labels_source.h"

namespace gpuwatch {

std::vector<HttpRoute> query_api_routes(const AgentOptions& options, const QuerySetup& setup) {
  std::shared_ptr<const store::SeriesSource> native = setup.history;
  if (!native) native = std::make_shared<LatestSeries>(setup.latest, setup.published);
  query::DcgmViewOptions dcgm;
  dcgm.hostname_label = options.dcgm_hostname_label;
  dcgm.hostname = [latest = setup.latest] {
    const SnapshotPtr s = latest();
    return s ? s->node.hostname : std::string();
  };
  auto view = std::make_shared<query::TargetLabelsSource>(
      std::make_shared<query::DcgmSeriesSource>(native, std::move(dcgm)),
      store::Labels{{"instance", setup.instance}, {"job", std::string(kQueryJob)}});

  query::QueryApiOptions query_options;
  query_options.eval.timeout = options.query_timeout;
  query_options.eval.max_samples = options.query_max_samples;
  query_options.published = [published = setup.published] {
    std::vector<query::FamilyMetadata> out;
    if (!published) return out;
    for (const auto& f : published->stored_families().families) out.push_back(query::family_metadata(f));
    return out;
  };
  if (!setup.history) {
    query_options.no_history =
        "history is off (store: off): this agent keeps no history to answer a range query from; instant "
        "queries at now are answered from the latest snapshot";
    return query::query_routes(view, query_options);
  }
  return store::unavailable_until_open(query::query_routes(view, query_options), setup.history);
}

}  // namespace gpuwatch
