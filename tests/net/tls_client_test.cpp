// https:// through the TLS client module against a loopback TLS server (certificates made by the test), and
// the module missing: that one client fails with module_missing, plain http:// goes on without it.
#include <gtest/gtest.h>

#include "loopback.h"
#include "net/http_client.h"
#include "test_certificates.h"

namespace gpuwatch::net {
namespace {

using test::Serving;
using test::url;

class TlsClient : public ::testing::Test {
 protected:
  void SetUp() override {
    gpuwatch::test::make_ca(dir_, "ca");
    gpuwatch::test::make_signed(dir_, "ca", "server", "IP:127.0.0.1,DNS:receiver.test");
    gpuwatch::test::make_signed(dir_, "ca", "client", "");
  }

  // A TLS server answering GET /who with the client certificate's subject ("-" without one).
  std::unique_ptr<httplib::Server> server(bool want_client_cert = false) const {
    auto s =
        want_client_cert
            ? std::make_unique<httplib::SSLServer>(file("server.pem").c_str(), file("server.key").c_str(),
                                                   file("ca.pem").c_str())
            : std::make_unique<httplib::SSLServer>(file("server.pem").c_str(), file("server.key").c_str());
    s->Get("/who", [](const httplib::Request& req, httplib::Response& res) {
      std::string who = "-";
      if (req.ssl != nullptr) {
        if (X509* peer = SSL_get_peer_certificate(req.ssl)) {
          char name[256] = {};
          X509_NAME_oneline(X509_get_subject_name(peer), name, sizeof name);
          who = name;
          X509_free(peer);
        }
      }
      res.set_content(who, "text/plain");
    });
    return s;
  }

  ClientOptions trusting() const {
    ClientOptions options;
    options.tls_module_path = GPUWATCH_TLS_CLIENT_MODULE;
    options.tls.ca_file = file("ca.pem");
    return options;
  }
  std::string file(const std::string& name) const { return dir_.file(name); }

  gpuwatch::test::Dir dir_;
};

TEST_F(TlsClient, HttpsWithTheServersCa) {
  const Serving serving(server());
  const auto client = make_http_client(url(serving.port(), "/", "https"), trusting());
  const Result r = client->send({"GET", "/who", {}, {}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.failure.message;
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body, "-");
}

TEST_F(TlsClient, UntrustedCertificateIsATlsFailure) {
  const Serving serving(server());
  ClientOptions options = trusting();
  options.tls.ca_file = "";  // the system's CAs do not know the test's
  const Result r =
      make_http_client(url(serving.port(), "/", "https"), options)->send({"GET", "/who", {}, {}, {}, {}});
  EXPECT_EQ(r.failure.kind, Failure::Kind::kTls);
  EXPECT_NE(r.failure.message.find("GET https://127.0.0.1:" + std::to_string(serving.port()) +
                                   "/who: TLS handshake with 127.0.0.1:" + std::to_string(serving.port())),
            std::string::npos)
      << r.failure.message;
  EXPECT_NE(r.failure.message.find("certificate verify failed"), std::string::npos) << r.failure.message;

  options.tls.insecure_skip_verify = true;
  const Result skipped =
      make_http_client(url(serving.port(), "/", "https"), options)->send({"GET", "/who", {}, {}, {}, {}});
  EXPECT_TRUE(skipped.ok()) << skipped.failure.message;
}

TEST_F(TlsClient, ServerNameIsChecked) {
  const Serving serving(server());
  ClientOptions options = trusting();
  options.tls.server_name = "other.test";  // not in the certificate
  const Result wrong =
      make_http_client(url(serving.port(), "/", "https"), options)->send({"GET", "/who", {}, {}, {}, {}});
  EXPECT_EQ(wrong.failure.kind, Failure::Kind::kTls) << wrong.failure.message;
  options.tls.server_name = "receiver.test";
  const Result right =
      make_http_client(url(serving.port(), "/", "https"), options)->send({"GET", "/who", {}, {}, {}, {}});
  EXPECT_TRUE(right.ok()) << right.failure.message;
}

TEST_F(TlsClient, ClientCertificate) {
  const Serving serving(server(true));
  ClientOptions options = trusting();
  const Result without =
      make_http_client(url(serving.port(), "/", "https"), options)->send({"GET", "/who", {}, {}, {}, {}});
  EXPECT_FALSE(without.ok());
  options.tls.cert_file = file("client.pem");
  options.tls.key_file = file("client.key");
  const Result with =
      make_http_client(url(serving.port(), "/", "https"), options)->send({"GET", "/who", {}, {}, {}, {}});
  ASSERT_TRUE(with.ok()) << with.failure.message;
  EXPECT_NE(with.response.body.find("CN=client"), std::string::npos) << with.response.body;
}

TEST_F(TlsClient, UnreadableCertificateIsRefusedAtOnce) {
  ClientOptions options = trusting();
  options.tls.cert_file = file("nope.pem");
  options.tls.key_file = file("client.key");
  try {
    make_http_client("https://127.0.0.1:1/", options);
    FAIL() << "no error";
  } catch (const ClientError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the TLS certificate " + file("nope.pem")),
              std::string::npos)
        << e.what();
  }
}

TEST(TlsModule, MissingModuleFailsThatClientAlone) {
  ClientOptions options;
  for (const std::string& path :
       {std::string("/nonexistent/gpuwatch-tls-client.so"), std::string(GPUWATCH_NOT_A_TLS_CLIENT_MODULE)}) {
    options.tls_module_path = path;
    try {
      make_http_client("https://127.0.0.1:1/", options);
      FAIL() << "no error for " << path;
    } catch (const ClientError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("module_missing: the TLS client module: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  // http:// never needs it.
  auto plain = std::make_unique<httplib::Server>();
  plain->Get("/",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  const Serving serving(std::move(plain));
  const Result r = make_http_client(url(serving.port()), options)->send({"GET", "/", {}, {}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.failure.message;
  EXPECT_EQ(r.response.body, "ok");
}

}  // namespace
}  // namespace gpuwatch::net
