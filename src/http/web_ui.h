// The routes of the web dashboards: / (the on-call view; ?view=debug|executive for the others) and /ui/<file>
// for the bundle's scripts and styles. Each file is served gzipped to a client that accepts it, with an ETag
// (304 when the client has it) and Cache-Control: no-cache, so a new agent's bundle is picked up at once.
#pragma once

#include <vector>

#include "http/http_route.h"

namespace gpuwatch {

std::vector<HttpRoute> web_ui_routes();

}  // namespace gpuwatch
