// The vocabulary shared by the history store, the query engine, import and the detectors that look back in
// time: a series is a metric name plus sorted labels, its points are (milliseconds, value) pairs.
// SeriesSource is what the query engine reads; SeriesAppender is what import and the agent write to.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/label_matcher.h"

namespace gpuwatch {

// Label pairs sorted by name, "__name__" included (it sorts first among the usual lowercase names since
// '_' < 'a'). Two series are the same series exactly when their Labels compare equal.
using Labels = std::vector<std::pair<std::string, std::string>>;

// Sorts by name and checks: names unique, non-empty. Empty values are dropped (Prometheus treats an empty
// label as absent). Returns an error message or "".
std::string normalize_labels(Labels& labels);
// The value of a label, or "" when absent.
const std::string& label_value(const Labels& labels, std::string_view name);
// {__name__="x", a="b"} rendered as x{a="b"}: for logs and error messages.
std::string labels_to_string(const Labels& labels);

struct Point {
  std::int64_t t_ms;
  double value;
  friend bool operator==(const Point&, const Point&) = default;
};

struct SeriesPoints {
  Labels labels;
  std::vector<Point> points;  // ascending t_ms, no duplicates
};

// What queries read. Implementations must be safe to call from several threads at once.
class SeriesSource {
 public:
  virtual ~SeriesSource() = default;
  // Every series matching all matchers (at least one matcher; Prometheus semantics: a matcher on a label
  // the series lacks compares against ""), with its points in [min_t, max_t] inclusive. Series with no point
  // in the range are omitted.
  virtual std::vector<SeriesPoints> select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                           std::int64_t max_t) const = 0;
  // The label sets of matching series that have points in the range (for /api/v1/series); no points.
  virtual std::vector<Labels> series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                     std::int64_t max_t) const = 0;
  // Calls `fn` once for each series select() would return, with the same points, in any order; the span
  // is valid only during the call. The query engine reads through this: a store can hand out points it
  // holds or decodes into a reused buffer instead of building a vector per series. Default: select().
  virtual void for_each_series(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                               const std::function<void(const Labels&, std::span<const Point>)>& fn) const {
    for (const auto& s : select(matchers, min_t, max_t)) fn(s.labels, s.points);
  }
  // Called now and then while series are selected and read (never under a lock appends take); it throws
  // to stop the read, and the exception leaves for_each_series_checked. The query engine's deadline.
  using Checkpoint = std::function<void()>;
  // for_each_series, calling `checkpoint` between steps of the selection as well. Default: once before.
  virtual void for_each_series_checked(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                       std::int64_t max_t,
                                       const std::function<void(const Labels&, std::span<const Point>)>& fn,
                                       const Checkpoint& checkpoint) const {
    checkpoint();
    for_each_series(matchers, min_t, max_t, fn);
  }
};

// What ingestion writes. append() takes points of one series in time order; an out-of-order or duplicate
// timestamp for a series is rejected with a reason (returned), not silently reordered.
class SeriesAppender {
 public:
  virtual ~SeriesAppender() = default;
  virtual std::string append(const Labels& labels, std::int64_t t_ms, double value) = 0;

  struct Rejection {
    std::size_t index;  // of the point in the batch
    std::string reason;
  };
  // A batch of one series' points in time order, with the same outcome as append() of each in turn (which
  // is what this default does); a store may override it to look the series up once a batch. Import uses it.
  virtual std::vector<Rejection> append_points(const Labels& labels, std::span<const Point> points) {
    std::vector<Rejection> rejected;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (std::string reason = append(labels, points[i].t_ms, points[i].value); !reason.empty()) {
        rejected.push_back({i, std::move(reason)});
      }
    }
    return rejected;
  }
  // Makes everything appended so far durable (a WAL sync); import calls it at the end.
  virtual void commit() = 0;
};

// The store, the query engine and import spell these store::..., where they were first written.
namespace store {
using gpuwatch::label_value;
using gpuwatch::LabelMatcher;
using gpuwatch::Labels;
using gpuwatch::labels_to_string;
using gpuwatch::normalize_labels;
using gpuwatch::Point;
using gpuwatch::SeriesAppender;
using gpuwatch::SeriesPoints;
using gpuwatch::SeriesSource;
}  // namespace store

}  // namespace gpuwatch
