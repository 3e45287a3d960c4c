// The exporter-toolkit web configuration file (`--web.config.file`), the format Prometheus, node_exporter and
// the other exporters share, so one file serves all of them: TLS (certificate, key, client CA and how client
// certificates are asked for), basic-auth users with bcrypt hashes, and headers added to every reply.
//
//   tls_server_config:
//     cert_file: server.pem
//     key_file: server.key
//     client_ca_file: ca.pem                     # mutual TLS
//     client_auth_type: RequireAndVerifyClientCert
//   basic_auth_users:
//     prometheus: $2y$10$...                     # bcrypt (htpasswd -nBC 10 prometheus)
//   http_server_config:
//     headers: {Strict-Transport-Security: max-age=31536000}
//
// Relative file names are relative to the configuration file's folder, as exporter-toolkit reads them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuwatch {

enum class ClientAuth {
  kNone,              // NoClientCert
  kRequest,           // RequestClientCert: asked for, not required, not verified
  kRequireAny,        // RequireAnyClientCert: required, not verified
  kVerifyIfGiven,     // VerifyClientCertIfGiven
  kRequireAndVerify,  // RequireAndVerifyClientCert
};

struct WebConfig {
  // TLS; off when cert_file is empty. The PEM texts are read when the file is loaded.
  std::string cert_pem, key_pem, client_ca_pem;
  ClientAuth client_auth = ClientAuth::kNone;
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash
  std::vector<std::pair<std::string, std::string>> headers;

  bool tls() const { return !cert_pem.empty(); }
};

// Reads and checks the file; nullopt with every problem as "file:line:column: message" in `errors`.
std::optional<WebConfig> load_web_config(const std::string& path, std::vector<std::string>& errors);

}  // namespace gpuwatch
