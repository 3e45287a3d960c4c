// The points an instant selector can pick out of one block: at each evaluation time, the newest point at or
// before it. The block's last point is kept too, since a time after the block and before the next block's
// first point picks it. Reading a day of 1 s samples at a 60 s step then copies one point in 60.
#pragma once

#include <span>
#include <vector>

#include "core/series.h"
#include "core/step_sampled_source.h"

namespace gpuwatch::store {

// Appends those of `points` (ascending) that a time in `times` picks, and the last one, ascending.
void append_picked(std::span<const Point> points, const EvalTimes& times, std::vector<Point>& out);

}  // namespace gpuwatch::store
