#include "remote_write/receiver_client.h"

#include <algorithm>
#include <ctime>
#include <stdexcept>

#include "core/file_io.h"
#include "net/http_client.h"

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
  std::string error;
  const auto url = net::parse_url(url_, &error);
  if (!url) throw std::runtime_error(error);
  path_ = url->target;
  net::ClientOptions options;
  options.timeouts = {kConnectTimeout, kIoTimeout, {}};
  options.keep_alive = true;
  options.tls = {target.tls_ca_file, target.tls_cert_file, target.tls_key_file, "",
                 target.tls_insecure_skip_verify};
  options.default_headers.assign(target.headers.begin(), target.headers.end());
  if (!target.basic_auth_username.empty())
    options.default_headers.emplace_back(
        "Authorization",
        net::basic_authorization(target.basic_auth_username,
                                 secret(target.basic_auth_password, target.basic_auth_password_file)));
  if (const std::string token = secret(target.bearer_token, target.bearer_token_file); !token.empty())
    options.default_headers.emplace_back("Authorization", "Bearer " + token);
  options.default_headers.emplace_back("Content-Encoding", "snappy");
  options.default_headers.emplace_back("X-Prometheus-Remote-Write-Version", "0.1.0");
  options.default_headers.emplace_back("User-Agent", "gpuwatch");
  options.default_headers.emplace_back("Content-Type", "application/x-protobuf");
  client_ = net::make_http_client(url_, options);  // net::ClientError is a std::runtime_error
}

ReceiverClient::~ReceiverClient() = default;

void ReceiverClient::abort() {
  client_->abort();
}

SendOutcome ReceiverClient::send(const std::string& compressed_request) {
  SendOutcome out;
  net::Request request;
  request.method = "POST";
  request.target = path_;
  request.body = compressed_request;
  const auto result = client_->send(request);
  if (!result.ok()) {
    out.message = result.failure.message;
    return out;
  }
  const net::Response* res = &result.response;
  out.status = res->status;
  if (res->status / 100 == 2) {
    out.kind = SendOutcome::Kind::kAccepted;
    return out;
  }
  out.message = "POST " + url_ + ": HTTP " + std::to_string(res->status) + " " + res->body.substr(0, 300);
  if (res->status == 429 || res->status / 100 == 5) {
    out.retry_after = parse_retry_after(res->header("Retry-After"));
    return out;
  }
  out.kind = SendOutcome::Kind::kRejected;
  return out;
}

}  // namespace gpuwatch::remote_write
