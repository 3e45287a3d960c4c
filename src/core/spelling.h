// "Did you mean ...?" hints for unknown keys in configs and scenarios.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gpuwatch {

// Edit distance (insertions, deletions, substitutions, adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a plausible typo, else "".
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace gpuwatch
