#include "scrape/http_fetch.h"

#include "http/gzip.h"
#include "net/http_client.h"

namespace gpuwatch::scrape {
namespace {

std::string seconds_text(std::chrono::milliseconds d) {
  return std::to_string(static_cast<double>(d.count()) / 1000.0).substr(0, 5) + "s";
}

}  // namespace

FetchResult fetch(const FetchRequest& request) {
  FetchResult result;
  std::string url_error;
  const auto url = net::parse_url(request.url, &url_error);
  if (!url || url->tls()) {
    result.error = "invalid url '" + request.url + "'";
    return result;
  }
  // One deadline for the whole exchange: a target that trickles its body cannot stretch its scrape.
  net::ClientOptions options;
  options.timeouts = {request.timeout, request.timeout, request.timeout};
  std::unique_ptr<net::HttpClient> client;
  try {
    client = net::make_http_client(request.url, options);
  } catch (const net::ClientError&) {
    result.error = "invalid url '" + request.url + "'";
    return result;
  }

  bool gzipped = false;
  bool over_limit = false;
  bool inflated_over = false;
  std::string body;
  std::string gzip_error;
  std::unique_ptr<GzipInflater> inflater;
  net::Request get;
  get.target = url->target;
  get.headers = {{"Accept", kScrapeAccept},
                 {"Accept-Encoding", "gzip"},
                 {"X-Prometheus-Scrape-Timeout-Seconds",
                  std::to_string(static_cast<double>(request.timeout.count()) / 1000.0)}};
  get.on_headers = [&](const net::Response& response) {
    result.status = response.status;
    result.content_type = response.header("Content-Type");
    gzipped = response.header("Content-Encoding") == "gzip";
    if (gzipped) inflater = std::make_unique<GzipInflater>(request.body_size_limit);
  };
  get.on_body = [&](std::string_view piece) {
    // Inflated as it arrives, so a stream that inflates without end stops at the limit.
    if (inflater) {
      try {
        inflater->feed(piece, body);
      } catch (const GzipTooLarge&) {
        inflated_over = true;
        return false;
      } catch (const std::exception& e) {
        gzip_error = e.what();
        return false;
      }
    } else {
      body.append(piece);
    }
    if (request.body_size_limit != 0 && body.size() > request.body_size_limit) {
      over_limit = true;
      return false;
    }
    return true;
  };
  const auto res = client->send(get);
  if (inflated_over) {
    result.error = "body larger than body_size_limit (" + std::to_string(request.body_size_limit) +
                   " bytes) once inflated";
    return result;
  }
  if (!gzip_error.empty()) {
    result.error = "gzip body: " + gzip_error;
    return result;
  }
  if (over_limit) {
    result.error = "body larger than body_size_limit (" + std::to_string(request.body_size_limit) + " bytes)";
    return result;
  }
  using Kind = net::Failure::Kind;
  if (res.failure.kind == Kind::kTimeout) {
    result.error = "timeout: no complete answer within " + seconds_text(request.timeout);
    return result;
  }
  if (!res.ok()) {
    result.error = res.failure.kind == Kind::kConnect ? "connection refused or unreachable"
                                                      : "HTTP request failed: " + res.failure.message;
    return result;
  }
  if (result.status != 200) {
    result.error = "HTTP status " + std::to_string(result.status) + " (expected 200)";
    return result;
  }
  if (gzipped && !inflater->finished()) {
    result.error = "gzip body: truncated";
    return result;
  }
  result.body = std::move(body);
  result.ok = true;
  return result;
}

}  // namespace gpuwatch::scrape
