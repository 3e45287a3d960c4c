// The URL alert links (runbook_url) point at when external_url is not set: one that reaches the listener
// the agent actually has.
#pragma once

#include <string>

#include "http/listen_address.h"

namespace gpuwatch {

// `bound` is the listener's address with the port it got (the one the system picked for port 0). For a
// listener on every address (0.0.0.0, [::], ":PORT") the host name (`hostname`, or the machine's when
// empty): other machines reach it by that name. For a specific address or name (127.0.0.1, [::1], 10.0.0.5,
// localhost) that one, since the host name may resolve to an address nothing listens on.
std::string default_external_url(const ListenAddress& bound, const std::string& hostname);

// The host:port of that URL: how a Prometheus scraping the agent names it (its `instance` label), which the
// query API gives the agent's own series.
std::string reachable_address(const ListenAddress& bound, const std::string& hostname);

}  // namespace gpuwatch
