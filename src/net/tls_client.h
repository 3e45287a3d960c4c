// The boundary between the binary and the TLS client module (gpuwatch-tls-client.so): the one C entry point
// that makes a client for an https:// origin, over OpenSSL. Only a process that asks an https:// URL loads
// it, so every other maps no TLS library. The entry point's name carries this interface's version.
#pragma once

#include <memory>
#include <string>

#include "net/http_client.h"

namespace gpuwatch::net {

// Sets *out to a client of `origin` with options.tls, or *error to why there is none (a certificate, key or
// CA file that cannot be read).
using OpenTlsClient = void(const Url& origin, const ClientOptions& options, std::unique_ptr<HttpClient>* out,
                           std::string* error);
inline constexpr const char* kOpenTlsClientSymbol = "gpuwatch_tls_client_open_v1";
inline constexpr const char* kTlsModuleFileName = "gpuwatch-tls-client.so";

}  // namespace gpuwatch::net
