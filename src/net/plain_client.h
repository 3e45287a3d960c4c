// The binary's own client for http:// (Boost.Beast over a TCP socket; no TLS library).
#pragma once

#include <memory>

#include "net/http_client.h"

namespace gpuwatch::net {

std::unique_ptr<HttpClient> make_plain_client(const Url& origin, const ClientOptions& options);

}  // namespace gpuwatch::net
