// "Did you mean ...?" hints for unknown keys in configs and scenarios.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

// Edit distance (insertions, deletions, substitutions, adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a plausible typo, else "".
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);

// The candidates close enough to `word` to be plausible typos, closest first (ties in candidate order), at
// most `limit` of them.
std::vector<std::string> close_matches(std::string_view word, std::span<const std::string_view> candidates,
                                       std::size_t limit);

}  // namespace gpuwatch
