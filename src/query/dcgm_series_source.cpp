#include "query/dcgm_series_source.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/metric_catalogue.h"
#include "exposition/dcgm_metrics.h"

namespace gpuwatch::query {
namespace {

using store::LabelMatcher;
using store::Labels;
using store::Point;
using store::SeriesPoints;
using Op = LabelMatcher::Op;

constexpr std::string_view kName = "__name__";
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Prometheus's stale marker: passed through as it is, never scaled into another NaN.
bool is_stale_marker(double v) {
  return std::bit_cast<std::uint64_t>(v) == 0x7ff0000000000002ULL;
}

// The fields a selector asks for: those of the native history (not the last XID) that its name matchers
// admit.
std::vector<const DcgmField*> selected_fields(std::span<const LabelMatcher> matchers) {
  std::vector<const DcgmField*> out;
  for (const DcgmField& f : dcgm_fields()) {
    if (f.source != DcgmSource::kCatalogue) continue;
    const bool admitted = std::all_of(matchers.begin(), matchers.end(), [&](const LabelMatcher& m) {
      return m.name() != kName || m.matches(f.name);
    });
    if (admitted) out.push_back(&f);
  }
  return out;
}

// The series of a native metric a field is made of: its name, the field's value of the first extra label
// when it names one, and the selector's matchers on gpu (the same label with the same values in both
// namings, so they narrow the read).
std::vector<LabelMatcher> native_matchers(const DcgmField& f, Metric metric,
                                          std::span<const LabelMatcher> matchers) {
  const MetricDef& def = metric_def(metric);
  std::vector<LabelMatcher> out;
  out.emplace_back(std::string(kName), Op::kEqual, std::string(def.name));
  if (metric == f.metric && !f.label0.empty())
    out.emplace_back(std::string(def.labels[0]), Op::kEqual, std::string(f.label0));
  for (const auto& m : matchers) {
    if (m.name() == "gpu") out.push_back(m);
  }
  return out;
}

// The label sets an info family (a device's gpu_info, the node's gpu_driver_info) had within the range and,
// when it had several, which held when: the set whose newest point at or before a time is the newest, or
// before the first point, the first.
struct InfoSets {
  std::vector<Labels> sets;
  std::vector<std::pair<std::int64_t, std::size_t>> changes;  // (t, set), by time; only with several sets

  std::size_t at(std::int64_t t) const {
    if (sets.size() <= 1) return sets.empty() ? kNone : 0;
    if (changes.empty()) return 0;
    const auto it = std::upper_bound(changes.begin(), changes.end(), t,
                                     [](std::int64_t x, const auto& c) { return x < c.first; });
    return it == changes.begin() ? changes.front().second : std::prev(it)->second;
  }
  const Labels* get(std::size_t i) const { return i == kNone ? nullptr : &sets[i]; }

  // Reads the points of the sets when there are several.
  void time_sets(const store::SeriesSource& native, std::int64_t min_t, std::int64_t max_t,
                 const store::SeriesSource::Checkpoint& checkpoint) {
    if (sets.size() <= 1) return;
    for (std::size_t i = 0; i < sets.size(); ++i) {
      std::vector<LabelMatcher> exact;
      for (const auto& [name, value] : sets[i]) exact.emplace_back(name, Op::kEqual, value);
      native.for_each_series_checked(
          exact, min_t, max_t,
          [&](const Labels& labels, std::span<const Point> points) {
            if (labels.size() != sets[i].size()) return;  // a set with more labels than these
            for (const Point& p : points) changes.emplace_back(p.t_ms, i);
          },
          checkpoint);
    }
    std::sort(changes.begin(), changes.end());
  }
};

// What the history says of the node's devices within the range.
class Identities {
 public:
  Identities(const store::SeriesSource& native, std::int64_t min_t, std::int64_t max_t,
             const store::SeriesSource::Checkpoint& checkpoint) {
    const std::vector<LabelMatcher> info{{std::string(kName), Op::kEqual, "gpu_info"}};
    for (auto& labels : native.series(info, min_t, max_t)) {
      const std::string& uuid = store::label_value(labels, "uuid");
      if (store::label_value(labels, "gpu_instance_id").empty())
        parents_[store::label_value(labels, "pci_bus_id")] = uuid;
      devices_[uuid].sets.push_back(std::move(labels));
    }
    for (auto& [uuid, sets] : devices_) sets.time_sets(native, min_t, max_t, checkpoint);
    const std::vector<LabelMatcher> driver{{std::string(kName), Op::kEqual, "gpu_driver_info"}};
    driver_.sets = native.series(driver, min_t, max_t);
    driver_.time_sets(native, min_t, max_t, checkpoint);
    read_holders(native, min_t, max_t, checkpoint);
  }

  // The one pod container a device was allocated to at a time (its gpu_allocation_info series with a point
  // then: written with the same snapshot as the device's values), or kNone: allocated to nobody, to several
  // (time-sliced) or to a batch job; /metrics?naming=dcgm labels a GPU with its pod only when it has one.
  // Looked up by device once, then by time for each of its points.
  class Holders {
   public:
    explicit Holders(const std::map<std::int64_t, std::size_t>* times) : times_(times) {}
    std::size_t at(std::int64_t t) const {
      if (times_ == nullptr) return kNone;
      const auto it = times_->find(t);
      return it == times_->end() ? kNone : it->second;
    }

   private:
    const std::map<std::int64_t, std::size_t>* times_;
  };
  Holders holders_of(const std::string& uuid) const {
    const auto device = holder_times_.find(uuid);
    return Holders(device == holder_times_.end() ? nullptr : &device->second);
  }
  const Labels* holder(std::size_t i) const { return i == kNone ? nullptr : &holders_[i]; }
  // Whether the history has any pod allocation in the range.
  bool any_holders() const { return !holders_.empty(); }

  const InfoSets& device(const std::string& uuid) const {
    static const InfoSets kUnknown;
    const auto it = devices_.find(uuid);
    return it == devices_.end() ? kUnknown : it->second;
  }
  const InfoSets& driver() const { return driver_; }
  // The full GPU at a bus id (a MIG instance's parent), "" when the history does not say.
  std::string parent_at(const std::string& bus) const {
    const auto it = parents_.find(bus);
    return it == parents_.end() ? "" : it->second;
  }

 private:
  void read_holders(const store::SeriesSource& native, std::int64_t min_t, std::int64_t max_t,
                    const store::SeriesSource::Checkpoint& checkpoint) {
    constexpr std::size_t kSeveral = kNone - 1;
    std::map<std::string, std::map<std::int64_t, std::size_t>> times;  // uuid -> t -> holder, or kSeveral
    const std::vector<LabelMatcher> allocation{{std::string(kName), Op::kEqual, "gpu_allocation_info"}};
    native.for_each_series_checked(
        allocation, min_t, max_t,
        [&](const Labels& labels, std::span<const Point> points) {
          const std::string& uuid = store::label_value(labels, "uuid");
          std::size_t index = kNone;
          if (!store::label_value(labels, "pod").empty()) {
            index = holders_.size();
            holders_.push_back(labels);
          }
          auto& at = times[uuid];
          for (const Point& p : points) {
            if (is_stale_marker(p.value)) continue;
            const auto [it, fresh] = at.try_emplace(p.t_ms, index);
            if (!fresh) it->second = kSeveral;
          }
        },
        checkpoint);
    for (auto& [uuid, at] : times) {
      for (const auto& [t, index] : at)
        if (index != kSeveral && index != kNone) holder_times_[uuid][t] = index;
    }
  }

  std::map<std::string, InfoSets> devices_;  // by uuid
  std::map<std::string, std::string> parents_;
  InfoSets driver_;
  std::vector<Labels> holders_;                                              // gpu_allocation_info with a pod
  std::map<std::string, std::map<std::int64_t, std::size_t>> holder_times_;  // uuid -> t -> its one holder
};

// The dcgm series' labels for a native series, its device's gpu_info and the node's gpu_driver_info.
Labels dcgm_series_labels(const DcgmField& f, const Labels& native, const Labels* info, const Labels* driver,
                          const Labels* holder, const Identities& ids, const std::string& hostname,
                          const DcgmOptions& options) {
  DcgmDevice d;
  d.gpu = store::label_value(native, "gpu");
  d.uuid = store::label_value(native, "uuid");
  d.gpu_instance_id = store::label_value(native, "gpu_instance_id");
  if (info) {
    d.pci_bus_id = store::label_value(*info, "pci_bus_id");
    d.model_name = store::label_value(*info, "name");
  }
  if (!d.gpu_instance_id.empty()) {
    // dcgm-exporter labels a MIG instance with its GPU's UUID: the full GPU on the same bus.
    if (std::string parent = ids.parent_at(d.pci_bus_id); !parent.empty()) d.uuid = std::move(parent);
  }
  if (driver) d.driver_version = store::label_value(*driver, "driver_version");
  d.hostname = hostname;
  Labels out;
  out.emplace_back(std::string(kName), std::string(f.name));
  for (auto& [name, value] : dcgm_labels(d, options)) out.emplace_back(std::string(name), std::move(value));
  if (holder) {
    // dcgm-exporter's Kubernetes mapping, as /metrics?naming=dcgm labels it.
    for (const char* name : {"pod", "namespace", "container"})
      out.emplace_back(name, store::label_value(*holder, name));
  }
  store::normalize_labels(out);  // an empty value is no label, as a scrape stores it
  return out;
}

// The field's values at the primary series' times (where the `also` series has a point at the same time).
std::vector<Point> dcgm_points(const DcgmField& f, std::span<const Point> primary,
                               const std::vector<Point>* also) {
  std::vector<Point> out;
  out.reserve(primary.size());
  std::size_t j = 0;
  for (const Point& p : primary) {
    double native = p.value;
    if (also) {
      while (j < also->size() && (*also)[j].t_ms < p.t_ms) ++j;
      if (j == also->size() || (*also)[j].t_ms != p.t_ms) continue;
      const double extra = (*also)[j].value;
      if (is_stale_marker(extra)) {
        native = extra;
      } else if (!is_stale_marker(native)) {
        native += extra;
      }
    }
    out.push_back({p.t_ms, is_stale_marker(native) ? native : dcgm_value(f, native)});
  }
  return out;
}

// Adds a series to the result, merging it with one of the same labels (two MIG instances dcgm-exporter
// cannot tell apart) by time.
void add_series(std::map<Labels, std::vector<Point>>& out, Labels labels, std::vector<Point> points) {
  auto [it, fresh] = out.try_emplace(std::move(labels), std::move(points));
  if (fresh) return;
  std::vector<Point> merged;
  std::merge(it->second.begin(), it->second.end(), points.begin(), points.end(), std::back_inserter(merged),
             [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; });
  merged.erase(std::unique(merged.begin(), merged.end(),
                           [](const Point& a, const Point& b) { return a.t_ms == b.t_ms; }),
               merged.end());
  it->second = std::move(merged);
}

}  // namespace

DcgmSeriesSource::DcgmSeriesSource(std::shared_ptr<const store::SeriesSource> native, DcgmViewOptions options)
    : native_(std::move(native)), options_(std::move(options)) {}

std::string DcgmSeriesSource::hostname() const {
  return options_.hostname ? options_.hostname() : "";
}

std::vector<SeriesPoints> DcgmSeriesSource::select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                                   std::int64_t max_t) const {
  std::vector<SeriesPoints> out;
  for_each_series(matchers, min_t, max_t, [&](const Labels& labels, std::span<const Point> points) {
    out.push_back({labels, {points.begin(), points.end()}});
  });
  return out;
}

void DcgmSeriesSource::for_each_series(
    std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const Labels&, std::span<const Point>)>& fn) const {
  for_each_series_checked(matchers, min_t, max_t, fn, [] {});
}

void DcgmSeriesSource::for_each_series_checked(
    std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const Labels&, std::span<const Point>)>& fn,
    const Checkpoint& checkpoint) const {
  native_->for_each_series_checked(matchers, min_t, max_t, fn, checkpoint);
  for_each_dcgm_series(matchers, min_t, max_t, fn, checkpoint);
}

void DcgmSeriesSource::for_each_series_at(
    std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t, const EvalTimes& times,
    const std::function<void(const Labels&, std::span<const Point>)>& fn,
    const Checkpoint& checkpoint) const {
  gpuwatch::for_each_series_at(*native_, matchers, min_t, max_t, times, fn, checkpoint);
  // Those made from native series are made from all of their points (identities change between them).
  for_each_dcgm_series(matchers, min_t, max_t, fn, checkpoint);
}

void DcgmSeriesSource::for_each_dcgm_series(
    std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const Labels&, std::span<const Point>)>& fn,
    const Checkpoint& checkpoint) const {
  const auto fields = selected_fields(matchers);
  if (fields.empty()) return;
  const Identities ids(*native_, min_t, max_t, checkpoint);
  const std::string host = hostname();
  const DcgmOptions options{options_.hostname_label};
  std::map<Labels, std::vector<Point>> made;
  for (const DcgmField* f : fields) {
    checkpoint();
    std::map<std::string, std::vector<Point>> also;  // by uuid
    if (f->also) {
      native_->for_each_series_checked(
          native_matchers(*f, *f->also, matchers), min_t, max_t,
          [&](const Labels& labels, std::span<const Point> points) {
            also[store::label_value(labels, "uuid")].assign(points.begin(), points.end());
          },
          checkpoint);
    }
    native_->for_each_series_checked(
        native_matchers(*f, f->metric, matchers), min_t, max_t,
        [&](const Labels& labels, std::span<const Point> points) {
          const std::string& uuid = store::label_value(labels, "uuid");
          const std::vector<Point>* extra = nullptr;
          if (f->also) {
            const auto it = also.find(uuid);
            if (it == also.end()) return;  // rendered only when both are read
            extra = &it->second;
          }
          const InfoSets& info = ids.device(uuid);
          const InfoSets& driver = ids.driver();
          // Points by the identity and holder that held at their time: one group unless they changed in the
          // range.
          std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::vector<Point>> groups;
          const auto holders = ids.holders_of(uuid);
          for (const Point& p : points)
            groups[{info.at(p.t_ms), driver.at(p.t_ms), holders.at(p.t_ms)}].push_back(p);
          for (auto& [key, group] : groups) {
            const auto& [info_set, driver_set, holder] = key;
            Labels dcgm = dcgm_series_labels(*f, labels, info.get(info_set), driver.get(driver_set),
                                             ids.holder(holder), ids, host, options);
            if (!gpuwatch::matches_all(matchers, dcgm)) continue;
            add_series(made, std::move(dcgm), dcgm_points(*f, group, extra));
          }
        },
        checkpoint);
  }
  for (const auto& [labels, points] : made) {
    if (!points.empty()) fn(labels, points);
  }
}

std::vector<Labels> DcgmSeriesSource::series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                             std::int64_t max_t) const {
  const auto fields = selected_fields(matchers);
  if (fields.empty()) return native_->series(matchers, min_t, max_t);
  const Identities ids(*native_, min_t, max_t, [] {});
  if (ids.any_holders()) {
    // Which series a GPU's holders make depends on when each held it: the points say, so they are read.
    std::vector<Labels> out;
    for_each_series(matchers, min_t, max_t,
                    [&](const Labels& labels, std::span<const Point>) { out.push_back(labels); });
    return out;
  }
  std::vector<Labels> out = native_->series(matchers, min_t, max_t);
  const std::string host = hostname();
  const DcgmOptions options{options_.hostname_label};
  std::set<Labels> made;
  for (const DcgmField* f : fields) {
    std::set<std::string> also;  // uuids
    if (f->also) {
      for (const auto& labels : native_->series(native_matchers(*f, *f->also, matchers), min_t, max_t))
        also.insert(store::label_value(labels, "uuid"));
    }
    for (const auto& labels : native_->series(native_matchers(*f, f->metric, matchers), min_t, max_t)) {
      const std::string& uuid = store::label_value(labels, "uuid");
      if (f->also && !also.contains(uuid)) continue;
      const InfoSets& info = ids.device(uuid);
      const InfoSets& driver = ids.driver();
      // Every identity the device had in the range (the points are not read here).
      for (std::size_t i = 0; i < std::max<std::size_t>(info.sets.size(), 1); ++i) {
        for (std::size_t j = 0; j < std::max<std::size_t>(driver.sets.size(), 1); ++j) {
          Labels dcgm =
              dcgm_series_labels(*f, labels, info.get(info.sets.empty() ? kNone : i),
                                 driver.get(driver.sets.empty() ? kNone : j), nullptr, ids, host, options);
          if (gpuwatch::matches_all(matchers, dcgm)) made.insert(std::move(dcgm));
        }
      }
    }
  }
  out.insert(out.end(), made.begin(), made.end());
  return out;
}

}  // namespace gpuwatch::query
