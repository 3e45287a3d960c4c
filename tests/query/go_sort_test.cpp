// go::sort and go::heap_* reproduce Go's algorithms so that gpuwatch orders ties as Prometheus does (the
// oracle test checks that against Prometheus on up to 53 series). Here: on inputs of every shape and size
// that reach each of the sort's paths (insertion, ninther pivots, partial insertion, equal partitions,
// pattern breaking), the result is sorted and a permutation of the input, also under a comparison that is
// not a strict order (Prometheus's, where NaN is "less" than NaN).
#include "query/go_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace gpuwatch::query {
namespace {

struct Item {
  double value;
  int id;  // where it started
};

std::vector<std::vector<Item>> shapes(std::size_t n) {
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL ^ n;
  const auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  std::vector<std::vector<Item>> out(6);
  for (std::size_t i = 0; i < n; ++i) {
    const int id = static_cast<int>(i);
    out[0].push_back({static_cast<double>(next() % 1000), id});                   // random
    out[1].push_back({static_cast<double>(next() % 3), id});                      // few distinct values
    out[2].push_back({static_cast<double>(i), id});                               // sorted
    out[3].push_back({static_cast<double>(n - i), id});                           // reversed
    out[4].push_back({static_cast<double>(i % 2 ? n - i : i), id});               // organ pipe
    out[5].push_back({i % 5 == 0 ? NAN : static_cast<double>(next() % 10), id});  // NaN among ties
  }
  return out;
}

TEST(GoSort, SortsEveryShapeAndSize) {
  for (std::size_t n : {0, 1, 2, 12, 13, 49, 50, 51, 64, 200, 1000, 5000}) {
    for (auto items : shapes(n)) {
      const auto less = [](const Item& a, const Item& b) {
        return !std::isnan(a.value) && (std::isnan(b.value) || a.value < b.value);
      };
      go::sort(items, less);
      EXPECT_TRUE(std::is_sorted(items.begin(), items.end(), less)) << n;
      std::vector<int> ids;
      for (const auto& it : items) ids.push_back(it.id);
      std::sort(ids.begin(), ids.end());
      std::vector<int> all(n);
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(ids, all) << n;
    }
  }
}

TEST(GoSort, PrometheusComparisonPutsNaNLast) {
  for (std::size_t n : {13, 50, 300, 3000}) {
    for (auto items : shapes(n)) {
      // sort()'s comparison in Prometheus: "b is NaN or b > a".
      go::sort(items, [](const Item& a, const Item& b) { return std::isnan(b.value) || b.value > a.value; });
      EXPECT_EQ(items.size(), n);
      const auto non_nan = std::stable_partition(items.begin(), items.end(),
                                                 [](const Item& it) { return !std::isnan(it.value); });
      EXPECT_TRUE(std::is_sorted(items.begin(), non_nan, [](const Item& a, const Item& b) {
        return a.value < b.value;
      })) << n;
    }
  }
}

TEST(GoHeap, KeepsTheSmallestOnTop) {
  const auto less = [](int a, int b) { return a < b; };
  std::vector<int> heap;
  for (int v : {5, 3, 8, 1, 9, 2, 7}) go::heap_push(heap, v, less);
  std::vector<int> popped;
  while (!heap.empty()) {
    popped.push_back(heap[0]);
    go::heap_pop(heap, less);
  }
  EXPECT_EQ(popped, (std::vector<int>{1, 2, 3, 5, 7, 8, 9}));
}

}  // namespace
}  // namespace gpuwatch::query
