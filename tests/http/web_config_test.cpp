// The listener behind an exporter-toolkit web configuration file: TLS with certificates this test makes
// (openssl), mutual TLS that refuses a client without a certificate or with one from another CA, and bcrypt
// basic auth (hashes made with libxcrypt, as htpasswd -B makes them).
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <memory>
#include <string>

#include "http/basic_auth.h"
#include "http/http_server.h"
#include "http/web_config.h"
#include "test_certificates.h"

namespace gpuwatch {
namespace {

using test::bcrypt;
using test::Dir;
using test::make_ca;
using test::make_signed;

class ServerWith {
 public:
  explicit ServerWith(const std::string& web_config_path) {
    HttpServerOptions o;
    o.listen = "127.0.0.1:0";
    std::vector<std::string> errors;
    o.web = load_web_config(web_config_path, errors);
    EXPECT_TRUE(o.web) << (errors.empty() ? "" : errors.front());
    server_ = std::make_unique<HttpServer>(
        o, [] { return SnapshotPtr{}; }, [] { return true; });
    server_->start();
  }
  int port() const { return server_->port(); }

 private:
  std::unique_ptr<HttpServer> server_;
};

TEST(WebConfig, TlsServesHttpsWithTheGivenCertificate) {
  Dir d;
  make_ca(d, "ca");
  make_signed(d, "ca", "server", "IP:127.0.0.1");
  d.write("web.yml", "tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n");
  ServerWith server(d.file("web.yml"));
  httplib::SSLClient tls("127.0.0.1", server.port());
  tls.set_ca_cert_path(d.file("ca.pem"));
  tls.enable_server_certificate_verification(true);
  const auto res = tls.Get("/healthz");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  httplib::Client plain("127.0.0.1", server.port());
  plain.set_read_timeout(2);
  const auto refused = plain.Get("/healthz");
  EXPECT_TRUE(!refused || refused->status != 200);  // plain HTTP on a TLS port gets nothing useful
}

// Which libraries the process has mapped, from /proc/self/maps: one line per mapping, the path last.
bool maps_library(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(name) != std::string::npos) return true;
  }
  return false;
}

// A plain-HTTP server (basic auth too) serves from Beast's loop and maps no TLS library; only a server with a
// certificate loads the TLS loop, and GnuTLS with it. One process, in this order: nothing else loads GnuTLS.
TEST(WebConfig, OnlyAServerWithACertificateMapsGnuTls) {
  Dir d;
  d.write("auth.yml", "basic_auth_users:\n  alice: " + bcrypt("secret") + "\n");
  {
    ServerWith plain(d.file("auth.yml"));
    httplib::Client client("127.0.0.1", plain.port());
    client.set_basic_auth("alice", "secret");
    ASSERT_EQ(client.Get("/healthz")->status, 200);
    EXPECT_TRUE(maps_library("gpuwatch-http-server.so"));
    EXPECT_FALSE(maps_library("gpuwatch-tls-server.so"));
    EXPECT_FALSE(maps_library("libgnutls"));
    EXPECT_FALSE(maps_library("libmicrohttpd"));
  }
  make_ca(d, "ca");
  make_signed(d, "ca", "server", "IP:127.0.0.1");
  d.write("web.yml", "tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n");
  ServerWith tls(d.file("web.yml"));
  EXPECT_TRUE(maps_library("gpuwatch-tls-server.so"));
  EXPECT_TRUE(maps_library("libgnutls"));
}

TEST(WebConfig, MutualTlsRefusesClientsWithoutACertificateFromTheClientCa) {
  Dir d;
  make_ca(d, "ca");
  make_ca(d, "other-ca");
  make_signed(d, "ca", "server", "IP:127.0.0.1");
  make_signed(d, "ca", "client", "");
  make_signed(d, "other-ca", "stranger", "");
  d.write("web.yml",
          "tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  client_ca_file: ca.pem\n"
          "  client_auth_type: RequireAndVerifyClientCert\n");
  ServerWith server(d.file("web.yml"));
  const auto get = [&](const std::string& cert) {
    auto client = cert.empty()
                      ? std::make_unique<httplib::SSLClient>("127.0.0.1", server.port())
                      : std::make_unique<httplib::SSLClient>("127.0.0.1", server.port(),
                                                             d.file(cert + ".pem"), d.file(cert + ".key"));
    client->set_ca_cert_path(d.file("ca.pem"));
    client->enable_server_certificate_verification(true);
    const auto res = client->Get("/healthz");
    return res ? res->status : 0;
  };
  EXPECT_EQ(get("client"), 200);
  EXPECT_NE(get(""), 200);
  EXPECT_NE(get("stranger"), 200);
}

TEST(WebConfig, BasicAuthAsksEveryEndpointForAUserOfTheFile) {
  Dir d;
  d.write("web.yml", "basic_auth_users:\n  prometheus: " + bcrypt("scrape-me") + "\n");
  ServerWith server(d.file("web.yml"));
  httplib::Client client("127.0.0.1", server.port());
  const auto anonymous = client.Get("/metrics");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(anonymous->get_header_value("WWW-Authenticate"), "Basic realm=\"gpuwatch\"");
  client.set_basic_auth("prometheus", "wrong");
  EXPECT_EQ(client.Get("/healthz")->status, 401);
  client.set_basic_auth("nobody", "scrape-me");
  EXPECT_EQ(client.Get("/healthz")->status, 401);
  client.set_basic_auth("prometheus", "scrape-me");
  EXPECT_EQ(client.Get("/healthz")->status, 200);
  EXPECT_EQ(client.Get("/healthz")->status, 200);  // now from the cache of verified credentials
  client.set_basic_auth("prometheus", "scrape-mE");
  EXPECT_EQ(client.Get("/healthz")->status, 401);  // the cache remembers only what matched
}

TEST(WebConfig, HeadersOfTheFileAreOnEveryReplyTheRefusalsToo) {
  Dir d;
  d.write("web.yml",
          "basic_auth_users:\n  prometheus: " + bcrypt("scrape-me") +
              "\nhttp_server_config:\n  headers:\n    Strict-Transport-Security: max-age=31536000\n"
              "    X-Frame-Options: deny\n    X-Content-Type-Options: nosniff\n"
              "    Content-Security-Policy: default-src 'self'\n    X-XSS-Protection: \"\"\n");
  ServerWith server(d.file("web.yml"));
  httplib::Client client("127.0.0.1", server.port());
  const auto expect_headers = [](const httplib::Result& res, int status, const std::string& what) {
    ASSERT_TRUE(res) << what;
    EXPECT_EQ(res->status, status) << what;
    EXPECT_EQ(res->get_header_value("Strict-Transport-Security"), "max-age=31536000") << what;
    EXPECT_EQ(res->get_header_value("X-Frame-Options"), "deny") << what;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << what;
    EXPECT_EQ(res->get_header_value("Content-Security-Policy"), "default-src 'self'") << what;
    EXPECT_FALSE(res->has_header("X-XSS-Protection")) << what << ": a blank value leaves it unset";
    EXPECT_EQ(res->get_header_value_count("X-Frame-Options"), 1u) << what;
  };
  expect_headers(client.Get("/metrics"), 401, "a refused request");
  client.set_basic_auth("prometheus", "scrape-me");
  expect_headers(client.Get("/metrics"), 200, "/metrics (the cached exposition)");
  expect_headers(client.Get("/healthz"), 200, "/healthz");
  expect_headers(client.Get("/no/such/page"), 404, "a page that is not there");
  expect_headers(client.Post("/metrics", "", "text/plain"), 405, "a method the endpoint does not take");
}

TEST(WebConfig, HeadersExporterToolkitForbidsAreRejectedWithFileAndLine) {
  Dir d;
  d.write("web.yml",
          "http_server_config:\n  headers:\n    Server: gpuwatch\n    X-Frame-Options: allow-from x\n"
          "    x-content-type-options: nosniff\n    X-Content-Type-Options: sniff\n"
          "    Strict-Transport-Security: max-age=60\n");
  std::vector<std::string> errors;
  EXPECT_FALSE(load_web_config(d.file("web.yml"), errors));
  const std::string f = d.file("web.yml");
  ASSERT_EQ(errors.size(), 4u) << testing::PrintToString(errors);
  EXPECT_EQ(errors[0].rfind(f + ":3:5: HTTP header 'Server' can not be configured", 0), 0u) << errors[0];
  EXPECT_EQ(errors[1], f + ":4:22: invalid value for X-Frame-Options: expected 'deny' or 'sameorigin', got "
                           "'allow-from x'");
  // Names are matched as exporter-toolkit matches them: exactly, so a file it refuses is refused here too.
  EXPECT_EQ(errors[2].rfind(f + ":5:5: HTTP header 'x-content-type-options' can not be configured", 0), 0u)
      << errors[2];
  EXPECT_EQ(errors[3],
            f + ":6:29: invalid value for X-Content-Type-Options: expected 'nosniff', got 'sniff'");
}

TEST(BasicAuth, VerifiesBcryptHashesAndDecodesTheHeader) {
  const BasicAuth auth({{"alice", bcrypt("pa:ss")}}, load_password_check(""));
  EXPECT_EQ(auth.verify("Basic YWxpY2U6cGE6c3M="), "alice");  // alice:pa:ss (a password may hold ':')
  EXPECT_EQ(auth.verify("basic YWxpY2U6cGE6c3M="), "alice");
  EXPECT_FALSE(auth.verify("Bearer YWxpY2U6cGE6c3M="));
  EXPECT_FALSE(auth.verify("Basic not-base64!"));
  EXPECT_FALSE(auth.verify("Basic YWxpY2U6cGFzcw=="));  // alice:pass
  EXPECT_EQ(decode_base64("Zm9vYmE="), "fooba");
  EXPECT_FALSE(decode_base64("Zm9vYmE"));
}

TEST(WebConfig, MistakesAreReportedWithFileAndLine) {
  Dir d;
  d.write("web.yml",
          "tls_server_config:\n  cert_file: missing.pem\n  key_file: missing.key\n"
          "  client_auth_type: Sometimes\nbasic_auth_users:\n  bob: plaintext\ncolour: blue\n");
  std::vector<std::string> errors;
  EXPECT_FALSE(load_web_config(d.file("web.yml"), errors));
  const std::string f = d.file("web.yml");
  ASSERT_EQ(errors.size(), 5u) << testing::PrintToString(errors);
  EXPECT_EQ(errors[0], f + ":7:1: unknown key 'colour' in the web configuration");
  EXPECT_EQ(errors[1].rfind(f + ":2:14: 'cert_file': ", 0), 0u) << errors[1];
  EXPECT_EQ(errors[2].rfind(f + ":3:13: 'key_file': ", 0), 0u) << errors[2];
  EXPECT_EQ(errors[3].rfind(f + ":4:21: 'client_auth_type' expects NoClientCert", 0), 0u) << errors[3];
  EXPECT_EQ(errors[4], f + ":6:8: the password of 'bob' is not a bcrypt hash ($2y$...)");
}

}  // namespace
}  // namespace gpuwatch
