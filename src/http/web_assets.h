// The web dashboards' files (web/dist, built with npm from web/src), embedded in the binary by the build
// (cmake/embed_files.cmake): nothing is read from disk or fetched at run time.
#pragma once

#include <span>
#include <string_view>

namespace gpuwatch {

struct WebAsset {
  std::string_view path;          // "/index.html", "/app.js", ...
  std::string_view content_type;  // with the charset for text
  std::string_view body;
  std::string_view etag;  // quoted, as the ETag header carries it: a hash of the body
};

std::span<const WebAsset> web_assets();

}  // namespace gpuwatch
