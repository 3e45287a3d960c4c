// The two small drawings of top: a bar (htop's "[|||||   63%]") and a sparkline of a history ("▁▂▅▇").
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::top {

// A bar `width` columns wide, brackets included, filled to `ratio` (clamped to 0..1; empty and "n/a" when
// absent), with `label` right-aligned inside it, or `short_label` where the label does not fit.
std::string bar(std::optional<double> ratio, std::size_t width, std::string_view label,
                std::string_view short_label = {});

// The newest `width` points of a 0..1 series as block characters, newest at the right; a gap (NaN) is a
// space, and a series shorter than the width is padded on the left.
std::string sparkline(const std::deque<double>& series, std::size_t width);

}  // namespace gpuwatch::top
