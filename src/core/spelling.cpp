#include "core/spelling.h"

#include <algorithm>
#include <vector>

namespace gpuwatch {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance over three rows.
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
  auto matches = close_matches(word, candidates, 1);
  return matches.empty() ? std::string() : std::move(matches.front());
}

std::vector<std::string> close_matches(std::string_view word, std::span<const std::string_view> candidates,
                                       std::size_t limit) {
  const std::size_t too_far = std::max<std::size_t>(2, word.size() / 3) + 1;
  std::vector<std::pair<std::size_t, std::string_view>> near;
  for (auto candidate : candidates) {
    if (const std::size_t d = edit_distance(word, candidate); d < too_far) near.emplace_back(d, candidate);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < near.size() && i < limit; ++i) out.emplace_back(near[i].second);
  return out;
}

}  // namespace gpuwatch
