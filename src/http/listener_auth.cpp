#include "http/listener_auth.h"

namespace gpuwatch {
namespace {

HttpReply refusal(int status, const std::string& error) {
  HttpReply r;
  r.status = status;
  r.body = R"({"status":"error","error":")" + error + R"("})";
  return r;
}

}  // namespace

std::optional<HttpReply> authenticate(const http::ServerConnection& connection, const WebConfig& config,
                                      const BasicAuth* basic_auth, std::string& user) {
  user.clear();
  if (config.tls()) {
    if (const std::string problem = connection.certificate_problem(config.client_auth); !problem.empty())
      return refusal(403, problem);
  }
  if (basic_auth == nullptr) return std::nullopt;
  if (const auto header = connection.header("Authorization")) {
    if (auto verified = basic_auth->verify(*header)) {
      user = std::move(*verified);
      return std::nullopt;
    }
  }
  HttpReply r = refusal(401, "unauthorized: this server asks for a user name and password");
  r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"gpuwatch\"");
  return r;
}

}  // namespace gpuwatch
