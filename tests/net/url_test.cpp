#include "net/url.h"

#include <gtest/gtest.h>

#include "net/http_client.h"

namespace gpuwatch::net {
namespace {

Url parsed(const std::string& text) {
  std::string error;
  const auto url = parse_url(text, &error);
  EXPECT_TRUE(url) << text << ": " << error;
  return url.value_or(Url{});
}

std::string refused(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_url(text, &error)) << text;
  return error;
}

TEST(Url, SplitsOriginAndTarget) {
  const Url u = parsed("http://127.0.0.1:9093/api/v2/alerts?x=1#frag");
  EXPECT_EQ(u.scheme, "http");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 9093);
  EXPECT_EQ(u.target, "/api/v2/alerts?x=1");
  EXPECT_EQ(u.origin(), "http://127.0.0.1:9093");
  EXPECT_EQ(u.host_header(), "127.0.0.1:9093");
}

TEST(Url, DefaultPortsAndTargets) {
  const Url plain = parsed("http://agent");
  EXPECT_EQ(plain.port, 80);
  EXPECT_EQ(plain.target, "/");
  EXPECT_EQ(plain.host_header(), "agent");
  const Url tls = parsed("https://receiver.example?q=1");
  EXPECT_TRUE(tls.tls());
  EXPECT_EQ(tls.port, 443);
  EXPECT_EQ(tls.target, "/?q=1");
}

TEST(Url, Ipv6Literal) {
  const Url u = parsed("http://[::1]:19400/metrics");
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.port, 19400);
  EXPECT_EQ(u.host_header(), "[::1]:19400");
  EXPECT_EQ(u.origin(), "http://[::1]:19400");
}

TEST(Url, CredentialsAreKeptApartAndNeverShown) {
  const Url u = parsed("http://am:s3cr%40t%3A@127.0.0.1:9093/alerts");
  EXPECT_EQ(u.user, "am");
  EXPECT_EQ(u.password, "s3cr@t:");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 9093);
  EXPECT_EQ(u.origin(), "http://127.0.0.1:9093");
  EXPECT_EQ(u.host_header(), "127.0.0.1:9093");
  const Url only_user = parsed("https://token@receiver.example/");
  EXPECT_EQ(only_user.user, "token");
  EXPECT_EQ(only_user.password, "");
  EXPECT_EQ(redacted_url("http://am:s3cret@127.0.0.1:9093/x@y"), "http://am:xxxxx@127.0.0.1:9093/x@y");
  EXPECT_EQ(redacted_url("http://token@host/"), "http://token@host/");
  EXPECT_EQ(redacted_url("http://host:9093/a:b@c"), "http://host:9093/a:b@c");
  EXPECT_EQ(refused("http://am:s3cret@host:9x/"), "'http://am:xxxxx@host:9x/' has a bad port");
  EXPECT_EQ(refused("http://:s3cret@host/"), "'http://:xxxxx@host/' has credentials without a user");
}

TEST(Url, PercentDecoding) {
  EXPECT_EQ(percent_decode("a%20b%2Fc"), "a b/c");
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
  EXPECT_EQ(percent_decode(percent_encode("sum(x{a=\"b c\"})&/\xc3\xa9")), "sum(x{a=\"b c\"})&/\xc3\xa9");
}

TEST(Url, RefusesWhatItCannotAsk) {
  EXPECT_EQ(refused("ftp://host/x"), "'ftp://host/x' is not an http:// or https:// URL");
  EXPECT_EQ(refused("127.0.0.1:9093"), "'127.0.0.1:9093' is not an http:// or https:// URL");
  EXPECT_EQ(refused("http:///path"), "'http:///path' has no host");
  EXPECT_EQ(refused("http://host:0/"), "'http://host:0/' has a bad port");
  EXPECT_EQ(refused("http://host:65536/"), "'http://host:65536/' has a bad port");
  EXPECT_EQ(refused("http://host:9x/"), "'http://host:9x/' has a bad port");
  EXPECT_EQ(refused("http://[::1/"), "'http://[::1/' has an unclosed IPv6 address");
}

TEST(Url, PercentAndFormEncoding) {
  EXPECT_EQ(percent_encode("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(percent_encode("sum(x{a=\"b c\"})&/"), "sum%28x%7Ba%3D%22b%20c%22%7D%29%26%2F");
  EXPECT_EQ(percent_encode("\xc3\xa9"), "%C3%A9");
  EXPECT_EQ(form_encode({{"query", "up == 1"}, {"time", "12.5"}}), "query=up%20%3D%3D%201&time=12.5");
  EXPECT_EQ(form_encode({}), "");
}

TEST(Url, BasicAuthorization) {
  // RFC 7617's example, and the three paddings.
  EXPECT_EQ(basic_authorization("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  EXPECT_EQ(basic_authorization("a", ""), "Basic YTo=");
  EXPECT_EQ(basic_authorization("ab", ""), "Basic YWI6");
  EXPECT_EQ(basic_authorization("abc", "d"), "Basic YWJjOmQ=");
}

TEST(Url, HeaderLookupIgnoresCase) {
  const Headers headers{{"Content-Type", "text/plain"}, {"retry-after", "5"}};
  EXPECT_EQ(header_value(headers, "content-type"), "text/plain");
  EXPECT_EQ(header_value(headers, "Retry-After"), "5");
  EXPECT_EQ(header_value(headers, "Retry"), "");
}

}  // namespace
}  // namespace gpuwatch::net
