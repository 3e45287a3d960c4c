// The TLS client module: the shared HTTP exchange over an OpenSSL stream, and its one export, so that
// OpenSSL's code runs (and is mapped) only in a process that asked an https:// URL.
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>

#include "net/beast_client.h"
#include "net/tls_client.h"

namespace gpuwatch::net {
namespace {

namespace ssl = beast_client::asio::ssl;

struct TlsTransport {
  using Stream = ssl::stream<beast_client::tcp::socket>;
  static constexpr bool kTls = true;

  std::shared_ptr<ssl::context> context;  // shared by every connection of the client
  TlsOptions options;

  std::unique_ptr<Stream> make(beast_client::asio::io_context& io) {
    return std::make_unique<Stream>(io, *context);
  }

  template <typename Handler>
  void start_handshake(Stream& stream, const std::string& host, Handler handler) {
    const std::string name = options.server_name.empty() ? host : options.server_name;
    beast_client::error_code not_an_address;
    beast_client::asio::ip::make_address(name, not_an_address);
    // SNI names a host, never an address (RFC 6066).
    if (not_an_address) ::SSL_set_tlsext_host_name(stream.native_handle(), name.c_str());
    if (!options.insecure_skip_verify) stream.set_verify_callback(ssl::host_name_verification(name));
    stream.async_handshake(ssl::stream_base::client, handler);
  }

  std::string explain(const beast_client::error_code& ec) const {
    std::string text = ec.message();
    if (ec.category() == beast_client::asio::error::get_ssl_category()) {
      const long reason = ERR_GET_REASON(static_cast<unsigned long>(ec.value()));
      if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED)
        text += options.ca_file.empty() ? " (checked against the system's CAs)"
                                        : " (checked against " + options.ca_file + ")";
    }
    return text;
  }

  bool truncated(const beast_client::error_code& ec) const { return ec == ssl::error::stream_truncated; }
};

// The context of every connection: the CA to trust, the client's own certificate. Empty on success, else why.
std::string configure(ssl::context& context, const TlsOptions& tls) {
  beast_client::error_code ec;
  if (tls.insecure_skip_verify) {
    context.set_verify_mode(ssl::verify_none);
  } else {
    context.set_verify_mode(ssl::verify_peer);
    if (tls.ca_file.empty()) {
      context.set_default_verify_paths(ec);
      if (ec) return "cannot read the system's CA certificates: " + ec.message();
    } else if (context.load_verify_file(tls.ca_file, ec); ec) {
      return "cannot read the CA file " + tls.ca_file + ": " + ec.message();
    }
  }
  if (tls.cert_file.empty() != tls.key_file.empty())
    return "a client certificate needs both cert and key files";
  if (!tls.cert_file.empty()) {
    if (context.use_certificate_chain_file(tls.cert_file, ec); ec)
      return "cannot read the TLS certificate " + tls.cert_file + ": " + ec.message();
    if (context.use_private_key_file(tls.key_file, ssl::context::pem, ec); ec)
      return "cannot read the TLS key " + tls.key_file + ": " + ec.message();
  }
  return "";
}

}  // namespace
}  // namespace gpuwatch::net

extern "C" void gpuwatch_tls_client_open_v1(const gpuwatch::net::Url& origin,
                                            const gpuwatch::net::ClientOptions& options,
                                            std::unique_ptr<gpuwatch::net::HttpClient>* out,
                                            std::string* error) {
  using namespace gpuwatch::net;
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  if (const std::string why = configure(*context, options.tls); !why.empty()) {
    *error = origin.origin() + ": " + why;
    return;
  }
  *out = std::make_unique<beast_client::Client<TlsTransport>>(origin, options,
                                                              TlsTransport{std::move(context), options.tls});
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(std::is_same_v<decltype(gpuwatch_tls_client_open_v1), gpuwatch::net::OpenTlsClient>);
