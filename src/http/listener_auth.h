// Who may use the listener, as a web configuration file says: a client certificate (mutual TLS: present,
// and signed by the client CA when the file asks for verification) and a basic-auth user, checked on every
// request before its route is looked up, so every endpoint (also /metrics) needs them alike.
#pragma once

#include <optional>
#include <string>

#include "http/basic_auth.h"
#include "http/event_loop.h"
#include "http/http_route.h"
#include "http/web_config.h"

namespace gpuwatch {

// nullopt when the request may go on (`user` then holds the basic-auth user, or "" without basic auth);
// otherwise the reply that refuses it (401 with a Basic challenge, or 403 for a missing or unverified client
// certificate).
std::optional<HttpReply> authenticate(const http::ServerConnection& connection, const WebConfig& config,
                                      const BasicAuth* basic_auth, std::string& user);

}  // namespace gpuwatch
