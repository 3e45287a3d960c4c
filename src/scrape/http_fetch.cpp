#include "scrape/http_fetch.h"

#include <httplib.h>

#include "http/gzip.h"

namespace gpuwatch::scrape {
namespace {

struct Url {
  std::string host;
  int port = 80;
  std::string path = "/";
};

bool parse_url(const std::string& url, Url& out) {
  constexpr std::string_view kScheme = "http://";
  if (url.rfind(kScheme, 0) != 0) return false;
  const std::string rest = url.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) out.path = rest.substr(slash);
  std::size_t colon = authority.rfind(':');
  if (!authority.empty() && authority[0] == '[') {  // [::1]:port
    const std::size_t close = authority.find(']');
    if (close == std::string::npos) return false;
    out.host = authority.substr(1, close - 1);
    colon = authority.find(':', close);
  } else {
    out.host = authority.substr(0, colon);
  }
  if (colon != std::string::npos) {
    try {
      out.port = std::stoi(authority.substr(colon + 1));
    } catch (const std::exception&) {
      return false;
    }
  }
  return !out.host.empty() && out.port > 0 && out.port < 65536;
}

std::string seconds_text(std::chrono::milliseconds d) {
  return std::to_string(static_cast<double>(d.count()) / 1000.0).substr(0, 5) + "s";
}

}  // namespace

FetchResult fetch(const FetchRequest& request) {
  FetchResult result;
  Url url;
  if (!parse_url(request.url, url)) {
    result.error = "invalid url '" + request.url + "'";
    return result;
  }
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + request.timeout;
  httplib::Client client(url.host, url.port);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(request.timeout);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(request.timeout - seconds);
  client.set_connection_timeout(seconds.count(), micros.count());
  client.set_read_timeout(seconds.count(), micros.count());
  client.set_write_timeout(seconds.count(), micros.count());
  client.set_keep_alive(false);
  client.set_decompress(false);  // inflated below, within the body limit

  bool gzipped = false;
  bool over_limit = false;
  bool inflated_over = false;
  bool late = false;
  std::string body;
  std::string gzip_error;
  std::unique_ptr<GzipInflater> inflater;
  const httplib::Headers headers = {{"Accept", kScrapeAccept},
                                    {"Accept-Encoding", "gzip"},
                                    {"X-Prometheus-Scrape-Timeout-Seconds",
                                     std::to_string(static_cast<double>(request.timeout.count()) / 1000.0)}};
  const auto res = client.Get(
      url.path, headers,
      [&](const httplib::Response& response) {
        result.status = response.status;
        result.content_type = response.get_header_value("Content-Type");
        gzipped = response.get_header_value("Content-Encoding") == "gzip";
        if (gzipped) inflater = std::make_unique<GzipInflater>(request.body_size_limit);
        return true;
      },
      [&](const char* data, std::size_t length) {
        // Inflated as it arrives, so a stream that inflates without end stops at the limit.
        if (inflater) {
          try {
            inflater->feed(std::string_view(data, length), body);
          } catch (const GzipTooLarge&) {
            inflated_over = true;
            return false;
          } catch (const std::exception& e) {
            gzip_error = e.what();
            return false;
          }
        } else {
          body.append(data, length);
        }
        if (request.body_size_limit != 0 && body.size() > request.body_size_limit) {
          over_limit = true;
          return false;
        }
        if (std::chrono::steady_clock::now() > deadline) {
          late = true;
          return false;
        }
        return true;
      });
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
  if (late || (!res && res.error() == httplib::Error::Read &&
               std::chrono::steady_clock::now() >= deadline - std::chrono::milliseconds(5))) {
    result.error = "timeout: no complete answer within " + seconds_text(request.timeout);
    return result;
  }
  if (!res) {
    const auto e = res.error();
    result.error = e == httplib::Error::Connection ? "connection refused or unreachable"
                                                   : "HTTP request failed: " + httplib::to_string(e);
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
