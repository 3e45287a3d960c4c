#include "net/plain_client.h"

#include "net/beast_client.h"

namespace gpuwatch::net {
namespace {

struct PlainTransport {
  using Stream = beast_client::tcp::socket;
  static constexpr bool kTls = false;
  std::unique_ptr<Stream> make(beast_client::asio::io_context& io) { return std::make_unique<Stream>(io); }
  bool truncated(const beast_client::error_code&) const { return false; }
};

}  // namespace

std::unique_ptr<HttpClient> make_plain_client(const Url& origin, const ClientOptions& options) {
  return std::make_unique<beast_client::Client<PlainTransport>>(origin, options, PlainTransport{});
}

}  // namespace gpuwatch::net
