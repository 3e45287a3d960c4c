#include "config/remote_write_config.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "config/size.h"
#include "core/label_matcher.h"

namespace gpuwatch {
namespace {

// Reports problems of one file at the node they are about.
struct Reader {
  const std::string& file;
  std::vector<ConfigError>& errors;

  void fail(const YAML::Node& at, std::string message) {
    const YAML::Mark m = at.Mark();
    errors.push_back(
        {file, m.line >= 0 ? m.line + 1 : 1, m.column >= 0 ? m.column + 1 : 1, std::move(message)});
  }
  // Fails on keys outside `known`; false when `node` is not a mapping.
  bool mapping(const YAML::Node& node, std::string_view what, std::initializer_list<std::string_view> known) {
    if (!node.IsMap()) {
      fail(node, std::string(what) + " expects a mapping");
      return false;
    }
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>("");
      if (std::find(known.begin(), known.end(), key) == known.end())
        fail(entry.first, "unknown key '" + key + "' in " + std::string(what));
    }
    return true;
  }
  std::string text(const YAML::Node& node, std::string_view key) {
    if (!node.IsScalar()) {
      fail(node, "'" + std::string(key) + "' expects a single value");
      return "";
    }
    return node.Scalar();
  }
  bool flag(const YAML::Node& node, std::string_view key) {
    const std::string v = text(node, key);
    if (v == "true") return true;
    if (v != "false" && node.IsScalar())
      fail(node, "'" + std::string(key) + "' expects true or false, got '" + v + "'");
    return false;
  }
};

bool is_http_url(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos || url.size() == scheme_end + 3) return false;
  const std::string scheme = url.substr(0, scheme_end);
  return scheme == "http" || scheme == "https";
}

void parse_filter(Reader& in, const YAML::Node& node, RemoteWriteTarget& target) {
  if (!in.mapping(node, "a write_relabel_configs entry", {"source_labels", "regex", "action"})) return;
  RemoteWriteFilter filter;
  if (const auto action = node["action"]) {
    const std::string a = in.text(action, "action");
    if (a == "keep") {
      filter.action = RemoteWriteFilter::Action::kKeep;
    } else if (a == "drop") {
      filter.action = RemoteWriteFilter::Action::kDrop;
    } else if (action.IsScalar()) {
      in.fail(action, "'action' expects keep or drop (the filtering actions), got '" + a + "'");
    }
  } else {
    in.fail(node, "a write_relabel_configs entry needs 'action' (keep or drop)");
  }
  if (const auto labels = node["source_labels"]) {
    if (!labels.IsSequence()) {
      in.fail(labels, "'source_labels' expects a list of label names");
    } else {
      filter.source_labels.clear();
      for (const auto& l : labels) filter.source_labels.push_back(in.text(l, "source_labels"));
    }
  }
  if (const auto regex = node["regex"]) {
    filter.regex = in.text(regex, "regex");
    try {
      compile_regex(filter.regex);
    } catch (const InvalidRegex& e) {
      in.fail(regex, std::string("'regex': ") + e.what());
    }
  }
  target.filters.push_back(std::move(filter));
}

void parse_target(Reader& in, const YAML::Node& node, std::vector<RemoteWriteTarget>& targets) {
  if (!in.mapping(node, "a remote_write entry",
                  {"name", "url", "headers", "basic_auth", "authorization", "bearer_token",
                   "bearer_token_file", "tls_config", "write_relabel_configs", "queue_max_size"}))
    return;
  RemoteWriteTarget t;
  if (const auto url = node["url"]) {
    t.url = in.text(url, "url");
    if (url.IsScalar() && !is_http_url(t.url))
      in.fail(url, "'url' expects an http:// or https:// URL, got '" + t.url + "'");
  } else {
    in.fail(node, "a remote_write entry needs 'url'");
  }
  if (const auto name = node["name"]) t.name = in.text(name, "name");
  if (t.name.empty()) t.name = default_remote_write_name(t.url);
  if (const auto headers = node["headers"]) {
    if (!headers.IsMap()) {
      in.fail(headers, "'headers' expects a mapping of header names to values");
    } else {
      for (const auto& h : headers) t.headers[h.first.as<std::string>("")] = in.text(h.second, "headers");
    }
  }
  if (const auto auth = node["basic_auth"];
      auth && in.mapping(auth, "basic_auth", {"username", "password", "password_file"})) {
    if (auth["username"]) t.basic_auth_username = in.text(auth["username"], "username");
    if (auth["password"]) t.basic_auth_password = in.text(auth["password"], "password");
    if (auth["password_file"]) t.basic_auth_password_file = in.text(auth["password_file"], "password_file");
  }
  if (const auto auth = node["authorization"];
      auth && in.mapping(auth, "authorization", {"type", "credentials", "credentials_file"})) {
    if (auth["type"] && in.text(auth["type"], "type") != "Bearer")
      in.fail(auth["type"], "'type' supports Bearer only");
    if (auth["credentials"]) t.bearer_token = in.text(auth["credentials"], "credentials");
    if (auth["credentials_file"]) t.bearer_token_file = in.text(auth["credentials_file"], "credentials_file");
  }
  if (node["bearer_token"]) t.bearer_token = in.text(node["bearer_token"], "bearer_token");
  if (node["bearer_token_file"])
    t.bearer_token_file = in.text(node["bearer_token_file"], "bearer_token_file");
  const bool basic = !t.basic_auth_username.empty();
  const bool bearer = !t.bearer_token.empty() || !t.bearer_token_file.empty();
  if (basic && bearer) in.fail(node, "a remote_write entry takes basic_auth or a bearer token, not both");
  if (const auto tls = node["tls_config"];
      tls && in.mapping(tls, "tls_config", {"ca_file", "cert_file", "key_file", "insecure_skip_verify"})) {
    if (tls["ca_file"]) t.tls_ca_file = in.text(tls["ca_file"], "ca_file");
    if (tls["cert_file"]) t.tls_cert_file = in.text(tls["cert_file"], "cert_file");
    if (tls["key_file"]) t.tls_key_file = in.text(tls["key_file"], "key_file");
    if (tls["insecure_skip_verify"])
      t.tls_insecure_skip_verify = in.flag(tls["insecure_skip_verify"], "insecure_skip_verify");
    if (t.tls_cert_file.empty() != t.tls_key_file.empty())
      in.fail(tls, "tls_config needs both cert_file and key_file, or neither");
  }
  if (const auto filters = node["write_relabel_configs"]) {
    if (!filters.IsSequence()) {
      in.fail(filters, "'write_relabel_configs' expects a list");
    } else {
      for (const auto& f : filters) parse_filter(in, f, t);
    }
  }
  if (const auto size = node["queue_max_size"]) {
    const std::string v = in.text(size, "queue_max_size");
    if (const auto bytes = parse_size(v); bytes && *bytes > 0) {
      t.queue_max_size = *bytes;
    } else if (size.IsScalar()) {
      in.fail(size, "'queue_max_size' expects a size like 512MiB, got '" + v + "'");
    }
  }
  for (const auto& other : targets)
    if (other.name == t.name)
      in.fail(node, "two remote_write entries are named '" + t.name + "' (set 'name')");
  targets.push_back(std::move(t));
}

}  // namespace

std::string default_remote_write_name(const std::string& url) {
  std::string rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  std::string name;
  for (const char c : rest) {
    const auto u = static_cast<unsigned char>(c);
    const char lower = static_cast<char>(std::tolower(u));
    if (std::isalnum(u)) {
      name += lower;
    } else if (!name.empty() && name.back() != '_') {
      name += '_';
    }
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name.empty() ? "remote" : name;
}

void parse_remote_write_list(const std::string& file, const YAML::Node& list,
                             std::vector<RemoteWriteTarget>& targets, std::vector<ConfigError>& errors) {
  Reader in{file, errors};
  if (!list.IsSequence()) {
    in.fail(list, "'remote_write' expects a list of receivers (- url: ...)");
    return;
  }
  for (const auto& node : list) parse_target(in, node, targets);
}

}  // namespace gpuwatch
