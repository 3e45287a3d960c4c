#include "remote_write/receiver_client.h"

#include <httplib.h>

#include <algorithm>
#include <ctime>
#include <stdexcept>

#include "core/file_io.h"

namespace gpuwatch::remote_write {
namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kIoTimeout = std::chrono::seconds(30);
constexpr auto kMaxRetryAfter = std::chrono::minutes(5);  // a receiver's word, bounded

std::string secret(const std::string& inline_value, const std::string& file) {
  if (file.empty()) return inline_value;
  std::string error;
  auto text = read_file(file, &error, 1 << 16);
  if (!text) throw std::runtime_error(error);
  while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
  return *text;
}

// An HTTP-date as the seconds since the epoch: IMF-fixdate first (what servers send), then RFC 850's and
// asctime's forms. The C locale's day and month names are HTTP's; strptime reads them, timegm takes them as
// UTC.
std::optional<std::time_t> parse_http_date(const std::string& value) {
  static constexpr const char* kForms[] = {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT",
                                           "%a %b %e %H:%M:%S %Y"};
  for (const char* form : kForms) {
    std::tm tm{};
    const char* end = ::strptime(value.c_str(), form, &tm);
    if (end != nullptr && *end == '\0') return ::timegm(&tm);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value,
                                                           std::chrono::system_clock::time_point now) {
  if (value.empty()) return std::nullopt;
  std::chrono::milliseconds wait{};
  if (value.find_first_not_of("0123456789") == std::string::npos) {
    if (value.size() > 9) return kMaxRetryAfter;  // more digits than a long wait needs: the bound
    wait = std::chrono::seconds(std::stol(value));
  } else if (const auto date = parse_http_date(value)) {
    const auto until = std::chrono::system_clock::from_time_t(*date);
    wait = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(until - now),
                    std::chrono::milliseconds::zero());
  } else {
    return std::nullopt;
  }
  return std::min<std::chrono::milliseconds>(wait, kMaxRetryAfter);
}

ReceiverClient::ReceiverClient(const RemoteWriteTarget& target) : url_(target.url) {
  const auto scheme_end = url_.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url_.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") throw std::runtime_error("'" + url_ + "' is not an http(s) URL");
  const auto path_start = url_.find('/', scheme_end + 3);
  const std::string origin = url_.substr(0, path_start);
  path_ = path_start == std::string::npos ? "/" : url_.substr(path_start);
  client_ = std::make_unique<httplib::Client>(origin, target.tls_cert_file, target.tls_key_file);
  if (!client_->is_valid())
    throw std::runtime_error("cannot make a client for '" + url_ + "' (TLS certificate or key?)");
  client_->set_connection_timeout(kConnectTimeout);
  client_->set_read_timeout(kIoTimeout);
  client_->set_write_timeout(kIoTimeout);
  client_->set_keep_alive(true);
  if (!target.tls_ca_file.empty()) client_->set_ca_cert_path(target.tls_ca_file);
  client_->enable_server_certificate_verification(!target.tls_insecure_skip_verify);
  if (!target.basic_auth_username.empty())
    client_->set_basic_auth(target.basic_auth_username,
                            secret(target.basic_auth_password, target.basic_auth_password_file));
  if (const std::string token = secret(target.bearer_token, target.bearer_token_file); !token.empty())
    client_->set_bearer_token_auth(token);
  httplib::Headers headers(target.headers.begin(), target.headers.end());
  headers.emplace("Content-Encoding", "snappy");
  headers.emplace("X-Prometheus-Remote-Write-Version", "0.1.0");
  headers.emplace("User-Agent", "gpuwatch");
  client_->set_default_headers(std::move(headers));
}

ReceiverClient::~ReceiverClient() = default;

void ReceiverClient::abort() {
  client_->stop();
}

SendOutcome ReceiverClient::send(const std::string& compressed_request) {
  SendOutcome out;
  const auto res = client_->Post(path_, compressed_request, "application/x-protobuf");
  if (!res) {
    out.message = "POST " + url_ + ": " + httplib::to_string(res.error());
    return out;
  }
  out.status = res->status;
  if (res->status / 100 == 2) {
    out.kind = SendOutcome::Kind::kAccepted;
    return out;
  }
  out.message = "POST " + url_ + ": HTTP " + std::to_string(res->status) + " " + res->body.substr(0, 300);
  if (res->status == 429 || res->status / 100 == 5) {
    out.retry_after = parse_retry_after(res->get_header_value("Retry-After"));
    return out;
  }
  out.kind = SendOutcome::Kind::kRejected;
  return out;
}

}  // namespace gpuwatch::remote_write
