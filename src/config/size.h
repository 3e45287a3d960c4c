// Sizes as users write them: a number with an optional unit B, KiB, MiB, GiB, TiB (or KB, MB, GB, TB: 1000s).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

std::optional<std::uint64_t> parse_size(std::string_view v);
std::string format_size(std::uint64_t bytes);  // the largest binary unit that divides it: "1GiB", "512MiB"

}  // namespace gpuwatch
