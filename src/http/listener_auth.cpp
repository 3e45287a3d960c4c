#include "http/listener_auth.h"

#include <gnutls/gnutls.h>

namespace gpuwatch {
namespace {

HttpReply refusal(int status, const std::string& error) {
  HttpReply r;
  r.status = status;
  r.body = R"({"status":"error","error":")" + error + R"("})";
  return r;
}

// A client certificate the file asks for: "" when it is as required, else why not.
std::string certificate_problem(MHD_Connection* connection, ClientAuth mode) {
  if (mode == ClientAuth::kNone || mode == ClientAuth::kRequest) return "";
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
  if (info == nullptr || info->tls_session == nullptr) return "no TLS session";
  auto session = static_cast<gnutls_session_t>(info->tls_session);
  unsigned int count = 0;
  const bool given = gnutls_certificate_get_peers(session, &count) != nullptr && count > 0;
  if (!given) {
    return mode == ClientAuth::kVerifyIfGiven ? "" : "a client certificate is required";
  }
  if (mode == ClientAuth::kRequireAny) return "";
  unsigned int status = 0;
  if (gnutls_certificate_verify_peers2(session, &status) != GNUTLS_E_SUCCESS || status != 0)
    return "the client certificate is not signed by the client CA";
  return "";
}

}  // namespace

std::optional<HttpReply> authenticate(MHD_Connection* connection, const WebConfig& config,
                                      const BasicAuth* basic_auth, std::string& user) {
  user.clear();
  if (config.tls()) {
    if (const std::string problem = certificate_problem(connection, config.client_auth); !problem.empty())
      return refusal(403, problem);
  }
  if (basic_auth == nullptr) return std::nullopt;
  const char* header =
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  if (header != nullptr) {
    if (auto verified = basic_auth->verify(header)) {
      user = std::move(*verified);
      return std::nullopt;
    }
  }
  HttpReply r = refusal(401, "unauthorized: this server asks for a user name and password");
  r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"gpuwatch\"");
  return r;
}

}  // namespace gpuwatch
