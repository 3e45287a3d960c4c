#include "http/web_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <string_view>

#include "core/file_io.h"

namespace gpuwatch {
namespace {

struct Reader {
  const std::string& file;
  std::vector<std::string>& errors;

  void fail(const YAML::Node& at, const std::string& message) {
    const YAML::Mark m = at.Mark();
    errors.push_back(file + ":" + std::to_string(m.line >= 0 ? m.line + 1 : 1) + ":" +
                     std::to_string(m.column >= 0 ? m.column + 1 : 1) + ": " + message);
  }
  bool mapping(const YAML::Node& node, const std::string& what,
               std::initializer_list<std::string_view> known) {
    if (!node.IsMap()) {
      fail(node, what + " expects a mapping");
      return false;
    }
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>("");
      if (std::find(known.begin(), known.end(), key) == known.end())
        fail(entry.first, "unknown key '" + key + "' in " + what);
    }
    return true;
  }
  std::string text(const YAML::Node& node, const std::string& key) {
    if (!node.IsScalar()) {
      fail(node, "'" + key + "' expects a single value");
      return "";
    }
    return node.Scalar();
  }
  // The PEM file a key names, relative to the configuration's folder.
  std::string pem(const YAML::Node& node, const std::string& key) {
    std::string name = text(node, key);
    if (name.empty()) return "";
    std::filesystem::path p(name);
    if (p.is_relative()) p = std::filesystem::path(file).parent_path() / p;
    std::string error;
    auto content = read_file(p.string(), &error, 1 << 20);
    if (!content) {
      fail(node, "'" + key + "': " + error);
      return "";
    }
    return *content;
  }
};

std::optional<ClientAuth> client_auth_named(const std::string& name) {
  static const std::pair<const char*, ClientAuth> kTypes[] = {
      {"NoClientCert", ClientAuth::kNone},
      {"RequestClientCert", ClientAuth::kRequest},
      {"RequireAnyClientCert", ClientAuth::kRequireAny},
      {"VerifyClientCertIfGiven", ClientAuth::kVerifyIfGiven},
      {"RequireAndVerifyClientCert", ClientAuth::kRequireAndVerify},
  };
  for (const auto& [n, type] : kTypes)
    if (name == n) return type;
  return std::nullopt;
}

void read_tls(Reader& in, const YAML::Node& tls, WebConfig& config) {
  if (!in.mapping(tls, "tls_server_config",
                  {"cert_file", "key_file", "client_ca_file", "client_auth_type", "min_version",
                   "max_version", "cipher_suites", "curve_preferences", "prefer_server_cipher_suites"}))
    return;
  if (tls["cert_file"]) config.cert_pem = in.pem(tls["cert_file"], "cert_file");
  if (tls["key_file"]) config.key_pem = in.pem(tls["key_file"], "key_file");
  if (!tls["cert_file"] || !tls["key_file"]) in.fail(tls, "tls_server_config needs cert_file and key_file");
  if (tls["client_ca_file"]) config.client_ca_pem = in.pem(tls["client_ca_file"], "client_ca_file");
  if (const auto type = tls["client_auth_type"]) {
    const std::string name = in.text(type, "client_auth_type");
    if (const auto parsed = client_auth_named(name)) {
      config.client_auth = *parsed;
    } else if (type.IsScalar()) {
      in.fail(type,
              "'client_auth_type' expects NoClientCert, RequestClientCert, RequireAnyClientCert, "
              "VerifyClientCertIfGiven or RequireAndVerifyClientCert, got '" +
                  name + "'");
    }
  }
  // The library asks clients for a certificate only when it has a CA to name: every mode that wants one needs
  // the file.
  if (config.client_auth != ClientAuth::kNone && !tls["client_ca_file"])
    in.fail(tls, "client_auth_type " + in.text(tls["client_auth_type"], "client_auth_type") +
                     " needs client_ca_file");
  // Versions, ciphers and curves stay GnuTLS's defaults (TLS 1.2 and 1.3, no weak suites); they are accepted
  // so that a file shared with other exporters loads.
}

// exporter-toolkit's rule, so that a file one exporter takes every other takes too: only these headers, named
// exactly so, and the two whose values are an enumeration only with one of its values (a blank value leaves
// a header unset).
bool check_header(Reader& in, const std::pair<YAML::Node, YAML::Node>& entry, const std::string& name,
                  const std::string& value) {
  static const std::pair<std::string_view, std::vector<std::string_view>> kAllowed[] = {
      {"Strict-Transport-Security", {}},
      {"X-Content-Type-Options", {"nosniff"}},
      {"X-Frame-Options", {"deny", "sameorigin"}},
      {"X-XSS-Protection", {}},
      {"Content-Security-Policy", {}},
  };
  const auto* allowed =
      std::find_if(std::begin(kAllowed), std::end(kAllowed), [&](const auto& a) { return a.first == name; });
  if (allowed == std::end(kAllowed)) {
    in.fail(entry.first, "HTTP header '" + name +
                             "' can not be configured (exporter-toolkit allows Strict-Transport-Security, "
                             "X-Content-Type-Options, X-Frame-Options, X-XSS-Protection and "
                             "Content-Security-Policy, spelt so)");
    return false;
  }
  const auto& values = allowed->second;
  if (values.empty() || std::find(values.begin(), values.end(), value) != values.end()) return true;
  std::string expected;
  for (const auto v : values) expected += (expected.empty() ? "'" : " or '") + std::string(v) + "'";
  in.fail(entry.second, "invalid value for " + name + ": expected " + expected + ", got '" + value + "'");
  return false;
}

}  // namespace

std::optional<WebConfig> load_web_config(const std::string& path, std::vector<std::string>& errors) {
  const std::size_t before = errors.size();
  std::string error;
  const auto text = read_file(path, &error);
  if (!text) {
    errors.push_back(error);
    return std::nullopt;
  }
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    errors.push_back(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": invalid YAML: " + e.msg);
    return std::nullopt;
  }
  WebConfig config;
  Reader in{path, errors};
  if (root.IsNull())
    return config;  // an empty file: plain HTTP, no authentication, as exporter-toolkit reads it
  if (!in.mapping(root, "the web configuration",
                  {"tls_server_config", "basic_auth_users", "http_server_config"}))
    return std::nullopt;
  if (const auto tls = root["tls_server_config"]) read_tls(in, tls, config);
  if (const auto users = root["basic_auth_users"]) {
    if (!users.IsMap()) {
      in.fail(users, "'basic_auth_users' expects a mapping of user names to bcrypt hashes");
    } else {
      for (const auto& u : users) {
        const std::string hash = in.text(u.second, "basic_auth_users");
        if (hash.rfind("$2", 0) != 0 || hash.size() != 60) {
          in.fail(u.second,
                  "the password of '" + u.first.as<std::string>("") + "' is not a bcrypt hash ($2y$...)");
          continue;
        }
        config.basic_auth_users[u.first.as<std::string>("")] = hash;
      }
    }
  }
  if (const auto server = root["http_server_config"];
      server && in.mapping(server, "http_server_config", {"headers", "http2"})) {
    if (const auto headers = server["headers"]) {
      if (!headers.IsMap()) {
        in.fail(headers, "'headers' expects a mapping of header names to values");
      } else {
        for (const auto& h : headers) {
          const std::string name = h.first.as<std::string>("");
          const std::string value = in.text(h.second, name);
          if (check_header(in, h, name, value) && !value.empty()) config.headers.emplace_back(name, value);
        }
      }
    }
  }
  if (errors.size() != before) return std::nullopt;
  return config;
}

}  // namespace gpuwatch
