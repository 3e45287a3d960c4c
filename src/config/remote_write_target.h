// One receiver of the agent's remote write (Prometheus remote-write 1.0): where to send, how to prove who the
// agent is, how to trust the receiver, which series to send and how much to keep on disk while it is away.
// Made by `--remote-write-url URL` (every field at its default) or by an entry of the `remote_write:` list in
// gpuwatch.yaml (config/remote_write_config.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpuwatch {

// A write_relabel_configs rule of the two kinds that filter (Prometheus's `keep` and `drop`): the values of
// source_labels joined with ';' matched against the anchored RE2 regex.
struct RemoteWriteFilter {
  enum class Action { kKeep, kDrop };
  Action action = Action::kKeep;
  std::vector<std::string> source_labels{"__name__"};
  std::string regex = "(.*)";
};

struct RemoteWriteTarget {
  std::string name;  // the `remote` label of its metrics and its queue's file name; default from the URL
  std::string url;
  std::map<std::string, std::string> headers;  // sent with every request
  std::string basic_auth_username;
  std::string basic_auth_password;  // or read from basic_auth_password_file when that is set
  std::string basic_auth_password_file;
  std::string bearer_token;  // or read from bearer_token_file when that is set
  std::string bearer_token_file;
  std::string tls_ca_file;    // the receiver's certificate is checked against it (else the system's)
  std::string tls_cert_file;  // a client certificate for mutual TLS, with its key
  std::string tls_key_file;
  bool tls_insecure_skip_verify = false;
  std::vector<RemoteWriteFilter> filters;
  std::uint64_t queue_max_size = std::uint64_t{512} << 20;  // on disk; the oldest samples go beyond it
};

// "host_port_path" from the URL, lower case, [a-z0-9_] only: stable across restarts, so a restarted agent
// finds its queue again.
std::string default_remote_write_name(const std::string& url);

}  // namespace gpuwatch
