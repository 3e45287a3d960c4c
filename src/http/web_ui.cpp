#include "http/web_ui.h"

#include <map>
#include <memory>
#include <string>

#include "http/gzip.h"
#include "http/negotiation.h"
#include "http/web_assets.h"

namespace gpuwatch {
namespace {

struct PreparedAsset {
  const WebAsset* asset;
  std::string gzipped;  // compressed once, when the routes are made
};

using Prepared = std::map<std::string, PreparedAsset, std::less<>>;

HttpReply serve(const PreparedAsset& file, const HttpRequest& req) {
  HttpReply reply;
  reply.content_type = std::string(file.asset->content_type);
  reply.headers = {{"ETag", std::string(file.asset->etag)},
                   {"Cache-Control", "no-cache"},
                   {"Vary", "Accept-Encoding"},
                   {"X-Content-Type-Options", "nosniff"}};
  const std::string if_none_match = req.header("If-None-Match");
  if (!if_none_match.empty() && if_none_match.find(file.asset->etag) != std::string::npos) {
    reply.status = 304;
    return reply;
  }
  if (header_accepts(req.header("Accept-Encoding"), "gzip")) {
    reply.body = file.gzipped;
    reply.headers.emplace_back("Content-Encoding", "gzip");
  } else {
    reply.body = std::string(file.asset->body);
  }
  return reply;
}

}  // namespace

std::vector<HttpRoute> web_ui_routes() {
  auto prepared = std::make_shared<Prepared>();
  for (const WebAsset& a : web_assets()) {
    prepared->emplace(std::string(a.path), PreparedAsset{&a, gzip_compress(a.body)});
  }
  auto page = [prepared](const std::string& path, const HttpRequest& req) {
    const auto it = prepared->find(path);
    if (it == prepared->end()) {
      return HttpReply{404, "application/json", R"({"error":"not found"})", {}};
    }
    return serve(it->second, req);
  };
  return {
      {{"GET"},
       "/",
       "the web dashboards: on-call (/), debug (/?view=debug), executive (/?view=executive)",
       [page](const HttpRequest& req) { return page("/index.html", req); }},
      {{"GET"},
       "/ui/([A-Za-z0-9_.-]+)",
       "",
       [page](const HttpRequest& req) { return page("/" + req.captures.at(0), req); }},
  };
}

}  // namespace gpuwatch
