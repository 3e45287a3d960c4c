// A SeriesAppender held in memory that applies the store's ordering rule (per series, timestamps strictly
// increasing; an older or repeated timestamp is rejected with a reason) and counts what it accepts.
// `gpuwatch import --dry-run` validates files with it; tests use it as the store, keeping the points.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/series.h"

namespace gpuwatch::ingest {

class ValidatingAppender : public store::SeriesAppender {
 public:
  explicit ValidatingAppender(bool keep_points = false) : keep_points_(keep_points) {}

  std::string append(const store::Labels& labels, std::int64_t t_ms, double value) override;
  std::vector<Rejection> append_points(const store::Labels& labels,
                                       std::span<const store::Point> points) override;
  void commit() override { ++commits_; }

  std::size_t accepted() const { return accepted_; }
  std::size_t commits() const { return commits_; }
  // The accepted points by series (only with keep_points), keyed by labels_to_string.
  const std::map<std::string, std::vector<store::Point>>& points() const { return points_; }

 private:
  struct SeriesState {
    std::int64_t last_t = 0;
    bool any = false;
  };
  std::string check(SeriesState& s, std::int64_t t_ms);

  bool keep_points_;
  std::unordered_map<std::string, SeriesState> series_;
  std::map<std::string, std::vector<store::Point>> points_;
  std::size_t accepted_ = 0;
  std::size_t commits_ = 0;
};

}  // namespace gpuwatch::ingest
